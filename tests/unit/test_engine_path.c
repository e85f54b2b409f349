/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing (LPM, route types), forwarding (TTL, MAC rewrite, ICMP time exceeded), malformed
 * packets, not-IP frames, addr_type, the PRNG, loopback output. */
#include "engine_test.h"

static void route(struct box *b, const char *net, int plen, int oif, enum box_route_type type,
		  uint32_t metric)
{
	struct box_route r;

	memset(&r, 0, sizeof(r));
	r.family = pt_addr_parse(net, &r.net);
	r.plen = plen;
	r.oif = oif;
	r.type = type;
	r.metric = metric;
	assert_int_equal(box_add_route(b, &r), 0);
}

static int lookup_oif(struct box *b, const char *dst)
{
	union pt_addr a;
	int fam = pt_addr_parse(dst, &a);
	const struct box_route *r = box_route_lookup(b, fam, &a);

	return r ? r->oif : -1;
}

static void test_lpm_both_families(void **state)
{
	struct box *b = box_new("r", NULL, NULL);
	int i1 = box_add_iface(b, "a", NULL), i2 = box_add_iface(b, "b", NULL),
	    i3 = box_add_iface(b, "c", NULL);

	route(b, "0.0.0.0", 0, i1, BOX_RT_UNICAST, 0);
	route(b, "10.0.0.0", 8, i2, BOX_RT_UNICAST, 0);
	route(b, "10.1.0.0", 17, i3, BOX_RT_UNICAST, 0);
	route(b, "2001:db8::", 32, i2, BOX_RT_UNICAST, 0);
	route(b, "2001:db8:1::", 48, i3, BOX_RT_UNICAST, 0);
	route(b, "2001:db8:1::", 48, i1, BOX_RT_UNICAST, 10); /* worse metric */
	assert_int_equal(lookup_oif(b, "192.0.2.1"), i1);
	assert_int_equal(lookup_oif(b, "10.200.0.1"), i2);
	assert_int_equal(lookup_oif(b, "10.1.127.255"), i3);
	assert_int_equal(lookup_oif(b, "10.1.128.0"), i2); /* bit 17 set: outside /17 */
	assert_int_equal(lookup_oif(b, "2001:db8:1:ffff::1"), i3);
	assert_int_equal(lookup_oif(b, "2001:db8:2::1"), i2);
	assert_int_equal(lookup_oif(b, "2001:db9::1"), -1); /* no v6 default */
	/* a down interface's routes are skipped */
	box_set_iface_up(b, i3, false);
	assert_int_equal(lookup_oif(b, "10.1.0.1"), i2);
	assert_int_equal(lookup_oif(b, "2001:db8:1::1"), i1);
	{
		union pt_addr n;

		addr("10.0.0.0", &n);
		assert_int_equal(box_del_route(b, AF_INET, &n, 8), 0);
		assert_int_equal(box_del_route(b, AF_INET, &n, 8), -ESRCH);
	}
	assert_int_equal(lookup_oif(b, "10.200.0.1"), i1);
	box_free(b);
}

/* Forwarded: TTL 64 -> 63 with a valid header checksum, MACs rewritten for the next hop. */
static void test_forward_ttl_and_mac(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	uint8_t peer[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
	struct pkt *o;
	const uint8_t *d;

	assert_int_equal(box_set_iface_peer_mac(b, 2, peer), 0);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 198.51.100.7:2 ttl=64 eth")),
			 EXT_ACCEPT);
	assert_int_equal(r.nxmit, 1);
	o = r.xmit[0];
	assert_int_equal(pkt_parse(o, PKT_LINK_ETHERNET, true), 0);
	assert_int_equal(o->info.ttl, 63);
	d = pkt_linear_data(o);
	assert_memory_equal(d, peer, 6);
	assert_memory_equal(d + 6, box_iface(b, 2)->mac, 6);
	/* IPv6: hop limit */
	assert_int_equal(box_receive(b, 1, mk("udp [fd00::2]:1 > [2001:db8::1]:2 hlim=2 eth")),
			 EXT_ACCEPT);
	assert_int_equal(r.nxmit, 2);
	assert_int_equal(pkt_parse(r.xmit[1], PKT_LINK_ETHERNET, true), 0);
	assert_int_equal(r.xmit[1]->info.ttl, 1);
	rec_free(&r);
	box_free(b);
}

static void test_ttl_expiry(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	union pt_addr a;
	struct pkt *icmp;

	/* no address: dropped, and the error still goes out from 192.0.0.8 (RFC 7600's dummy
	 * address), as the kernel does (tests/diff/README.md, frame 102) */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 198.51.100.7:2 ttl=1 eth")),
			 EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_TTL);
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(box_stats(b)->emitted, 1);
	assert_int_equal(pkt_parse(r.xmit[0], PKT_LINK_ETHERNET, true), 0);
	addr("192.0.0.8", &a);
	assert_true(pt_addr_eq(&r.xmit[0]->info.src, &a));
	/* with an address on lan0: ICMP time exceeded back to the sender, from that address */
	addr("10.0.0.1", &a);
	box_add_addr(b, 1, AF_INET, &a, 8);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 198.51.100.7:2 ttl=1 eth")),
			 EXT_DROP);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_TTL], 2);
	assert_int_equal(box_stats(b)->emitted, 2);
	assert_int_equal(r.nxmit, 2);
	assert_int_equal(r.xmit_oif[1], 1);
	icmp = r.xmit[1];
	assert_int_equal(pkt_parse(icmp, PKT_LINK_ETHERNET, true), 0);
	assert_true(pkt_l4_csum_ok(icmp));
	assert_int_equal(icmp->info.l4proto, 1);
	assert_int_equal(icmp->info.icmp_type, 11);
	assert_int_equal(icmp->info.icmp_code, 0);
	assert_true(pt_addr_eq(&icmp->info.src, &a));
	/* quoted: the original IP header + 8 bytes of UDP + nothing more (datagram of 28) */
	assert_int_equal(icmp->info.l3len, 20 + 8 + 28);
	/* no error about an ICMP error */
	assert_int_equal(box_receive(b, 1,
				     mk("icmp 10.0.0.2 > 198.51.100.7 port-unreachable "
					"ttl=1 eth")),
			 EXT_DROP);
	assert_int_equal(box_stats(b)->emitted, 2);
	/* IPv6 hop limit 1 */
	addr("fd00::1", &a);
	box_add_addr(b, 1, AF_INET6, &a, 64);
	assert_int_equal(box_receive(b, 1, mk("tcp [fd00::2]:1 > [2001:db8::1]:2 syn hlim=1 eth")),
			 EXT_DROP);
	assert_int_equal(r.nxmit, 3);
	assert_int_equal(pkt_parse(r.xmit[2], PKT_LINK_ETHERNET, true), 0);
	assert_true(pkt_l4_csum_ok(r.xmit[2]));
	assert_int_equal(r.xmit[2]->info.l4proto, 58);
	assert_int_equal(r.xmit[2]->info.icmp_type, 3);
	rec_free(&r);
	box_free(b);
}

/* raw PREROUTING counts what reached the hooks. */
static struct rules_counter *counting_raw(struct box *b)
{
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned ch = builtin(rs, TABLE_RAW, HOOK_PREROUTING);

	add_target(rs, TABLE_RAW, ch, RULES_T_NONE, 0);
	box_set_ruleset(b, rs, AF_INET);
	return rule_ctr(rs, TABLE_RAW, ch, 0);
}

static void test_malformed_and_not_ip(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_counter *rule = counting_raw(b);
	static const uint8_t arp[42] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2,
					0,    0,    0,	  0,	1,    0x08, 0x06};

	/* bad IPv4 header checksum: dropped before any hook */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 badipsum eth")),
			 EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_MALFORMED);
	assert_int_equal(r.drop[0].bad, PKT_BAD_IP_CSUM);
	assert_int_equal(box_stats(b)->malformed[PKT_BAD_IP_CSUM], 1);
	assert_int_equal(rule->pkts, 0);
	/* ARP */
	assert_int_equal(box_receive(b, 1, pkt_from_bytes(arp, sizeof(arp))), EXT_DROP);
	assert_int_equal(r.drop[1].kind, BOX_DROP_NOT_IP);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_NOT_IP], 1);
	assert_int_equal(rule->pkts, 0);
	/* a wrong transport checksum is no business of the IP layer: forwarded */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 192.0.2.1:2 badsum eth")),
			 EXT_ACCEPT);
	assert_int_equal(rule->pkts, 1);
	/* Ethernet padding is trimmed: counted and forwarded as the 28-byte datagram */
	{
		struct pkt *p = mk("udp 10.0.0.2:1 > 192.0.2.1:2 eth");
		uint8_t buf[64] = {0};

		pkt_copy_out(p, 0, buf, p->len);
		pkt_free(p);
		assert_int_equal(box_receive(b, 1, pkt_from_bytes(buf, 60)), EXT_ACCEPT);
		assert_int_equal(rule->bytes, 28 + 28);
		assert_int_equal(r.xmit[1]->len, 14 + 28);
	}
	rec_free(&r);
	box_free(b);
}

static void test_no_route_and_forwarding_off(void **state)
{
	struct rec r = {0};
	struct box *b = box_new("h", &rec_ops, &r);
	int i = box_add_iface(b, "eth0", NULL);
	union pt_addr a;

	addr("192.0.2.10", &a);
	box_add_addr(b, i, AF_INET, &a, 24);
	route(b, "203.0.113.0", 24, 0, BOX_RT_BLACKHOLE, 0);
	assert_int_equal(box_receive(b, i, mk("udp 192.0.2.1:1 > 198.51.100.1:2 eth")), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_NOROUTE);
	assert_int_equal(r.nxmit, 1); /* ICMP net unreachable */
	pkt_parse(r.xmit[0], PKT_LINK_ETHERNET, true);
	assert_int_equal(r.xmit[0]->info.icmp_type, 3);
	assert_int_equal(r.xmit[0]->info.icmp_code, 0);
	assert_int_equal(box_receive(b, i, mk("udp 192.0.2.1:1 > 203.0.113.1:2 eth")), EXT_DROP);
	assert_int_equal(r.nxmit, 1); /* blackhole: silent */
	box_set_forwarding(b, AF_INET, false);
	assert_int_equal(box_receive(b, i, mk("udp 192.0.2.1:1 > 192.0.2.77:2 eth")), EXT_DROP);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_NOROUTE], 3);
	/* still delivered locally */
	assert_int_equal(box_receive(b, i, mk("udp 192.0.2.1:1 > 192.0.2.10:2 eth")), EXT_ACCEPT);
	assert_int_equal(r.ndeliver, 1);
	rec_free(&r);
	box_free(b);
}

static uint32_t at(struct box *b, const char *s, const char *limit)
{
	union pt_addr a;
	int fam = pt_addr_parse(s, &a);
	const struct ext_env *env = box_ext_env(b);

	return env->ops->addr_type(env->box, fam, &a, limit);
}

static void test_addr_type(void **state)
{
	struct box *b = gw_box(NULL, NULL);
	union pt_addr a;

	addr("10.0.0.1", &a);
	box_add_addr(b, 1, AF_INET, &a, 24);
	addr("fd00::1", &a);
	box_add_addr(b, 1, AF_INET6, &a, 64);
	route(b, "198.51.100.0", 24, 0, BOX_RT_BLACKHOLE, 0);
	route(b, "198.51.101.0", 24, 0, BOX_RT_UNREACHABLE, 0);
	route(b, "198.51.102.0", 24, 0, BOX_RT_PROHIBIT, 0);
	route(b, "2001:db8:dead::", 48, 0, BOX_RT_PROHIBIT, 0);
	assert_int_equal(at(b, "0.0.0.0", NULL), EXT_RTN_UNSPEC);
	assert_int_equal(at(b, "10.0.0.1", NULL), EXT_RTN_LOCAL);
	assert_int_equal(at(b, "10.0.0.1", "lan0"), EXT_RTN_LOCAL);
	assert_int_equal(at(b, "10.0.0.1", "wan0"), EXT_RTN_UNICAST);
	assert_int_equal(at(b, "10.0.0.255", NULL), EXT_RTN_BROADCAST);
	assert_int_equal(at(b, "255.255.255.255", NULL), EXT_RTN_BROADCAST);
	assert_int_equal(at(b, "224.0.0.1", NULL), EXT_RTN_MULTICAST);
	assert_int_equal(at(b, "10.0.0.2", NULL), EXT_RTN_UNICAST);
	assert_int_equal(at(b, "192.0.2.1", NULL), EXT_RTN_UNICAST);
	assert_int_equal(at(b, "198.51.100.1", NULL), EXT_RTN_BLACKHOLE);
	assert_int_equal(at(b, "198.51.101.1", NULL), EXT_RTN_UNREACHABLE);
	assert_int_equal(at(b, "198.51.102.1", NULL), EXT_RTN_PROHIBIT);
	assert_int_equal(at(b, "::", NULL), EXT_RTN_UNSPEC);
	assert_int_equal(at(b, "ff02::1", NULL), EXT_RTN_MULTICAST);
	assert_int_equal(at(b, "fd00::1", NULL), EXT_RTN_UNICAST | EXT_RTN_LOCAL);
	assert_int_equal(at(b, "2001:db8::1", NULL), EXT_RTN_UNICAST);
	assert_int_equal(at(b, "2001:db8:dead::1", NULL), EXT_RTN_UNICAST | EXT_RTN_UNREACHABLE);
	box_free(b);
}

static void test_prng_deterministic(void **state)
{
	struct box *b1 = box_new("a", NULL, NULL), *b2 = box_new("b", NULL, NULL);
	uint32_t first[8];
	bool differ = false;

	for (unsigned i = 0; i < 8; i++) {
		first[i] = box_random(b1);
		assert_int_equal(first[i], box_random(b2)); /* same default seed */
	}
	box_seed(b1, 42);
	box_seed(b2, 42);
	for (unsigned i = 0; i < 8; i++) {
		uint32_t x = box_random(b1);

		assert_int_equal(x, box_random(b2));
		differ |= x != first[i];
	}
	assert_true(differ);
	assert_int_equal(box_ext_env(b1)->ops->random(b1), box_random(b2));
	box_free(b1);
	box_free(b2);
}

static void test_output_to_self_and_clock(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	union pt_addr a;

	addr("10.0.0.1", &a);
	box_add_addr(b, 1, AF_INET, &a, 8);
	assert_int_equal(box_output(b, mk("udp 10.0.0.1:1 > 10.0.0.1:2")), EXT_ACCEPT);
	assert_int_equal(r.ndeliver, 1);
	assert_int_equal(r.deliver[0]->iif, BOX_IFINDEX_LO);
	assert_int_equal(box_stats(b)->sent_local, 1);
	assert_int_equal(box_now(b), 0);
	box_advance(b, 1500);
	box_advance(b, 500);
	assert_int_equal(box_now(b), 2000);
	box_set_time(b, 7);
	assert_int_equal(box_now(b), 7);
	/* MACs are derived, deterministic per box and interface name */
	{
		struct box *c = gw_box(NULL, NULL);

		assert_memory_equal(box_iface(b, 1)->mac, box_iface(c, 1)->mac, 6);
		assert_memory_not_equal(box_iface(b, 1)->mac, box_iface(b, 2)->mac, 6);
		box_free(c);
	}
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lpm_both_families),
	    cmocka_unit_test(test_forward_ttl_and_mac),
	    cmocka_unit_test(test_ttl_expiry),
	    cmocka_unit_test(test_malformed_and_not_ip),
	    cmocka_unit_test(test_no_route_and_forwarding_off),
	    cmocka_unit_test(test_addr_type),
	    cmocka_unit_test(test_prng_deterministic),
	    cmocka_unit_test(test_output_to_self_and_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
