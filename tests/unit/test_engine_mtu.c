/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A router meeting a smaller link: IPv4 with DF refused with "fragmentation needed" and the
 * next-hop MTU, IPv4 without DF fragmented, IPv6 refused with "packet too big"; the route's
 * MTU; the box's own packets. Checksums of everything that leaves are checked. */
#include <netinet/in.h>

#include "engine_test.h"
#include "pkt/gso.h"

#define LAN 1
#define WAN 2

static struct box *mtu_box(struct rec *r, uint32_t wan_mtu)
{
	struct box *b = gw_box(r, NULL);
	union pt_addr a;

	addr("10.0.0.1", &a);
	assert_int_equal(box_add_addr(b, LAN, AF_INET, &a, 8), 0);
	addr("fd00::1", &a);
	assert_int_equal(box_add_addr(b, LAN, AF_INET6, &a, 64), 0);
	assert_int_equal(box_set_iface_mtu(b, WAN, wan_mtu), 0);
	return b;
}

static void assert_ip_csum_ok(const struct pkt *p)
{
	uint8_t buf[60];
	const uint8_t *h;

	if (p->info.family != AF_INET)
		return;
	h = pkt_header(p, p->info.l3off, p->info.ihl, buf);
	assert_non_null(h);
	assert_int_equal(pkt_csum_fold(pkt_csum_bytes(h, p->info.ihl, 0)), 0);
}

/* The 32-bit "rest of header" of an ICMP / ICMPv6 message. */
static uint32_t icmp_rest(const struct pkt *p)
{
	uint8_t b[4];

	assert_int_equal(pkt_copy_out(p, p->info.l4off + 4, b, 4), 0);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* An ICMP error the box sent back out of lan0: parsed, checksums right, type/code/rest. */
static const struct pkt *assert_error(struct rec *r, unsigned i, int l4proto, uint8_t type,
				      uint8_t code, uint32_t rest)
{
	struct pkt *e = r->xmit[i];

	assert_int_equal(r->xmit_oif[i], LAN);
	assert_int_equal(pkt_parse(e, PKT_LINK_ETHERNET, true), 0);
	assert_int_equal(e->info.l4proto, l4proto);
	assert_int_equal(e->info.icmp_type, type);
	assert_int_equal(e->info.icmp_code, code);
	assert_int_equal(icmp_rest(e), rest);
	assert_ip_csum_ok(e);
	assert_true(pkt_l4_csum_ok(e));
	return e;
}

/* A counting rule in filter FORWARD: what the FORWARD chain saw. */
static struct rules_counter *counting_forward(struct box *b)
{
	struct rules_ruleset *rs = rules_ruleset_new(AF_INET);
	unsigned ch = builtin(rs, TABLE_FILTER, HOOK_FORWARD);

	add_target(rs, TABLE_FILTER, ch, RULES_T_NONE, 0);
	box_set_ruleset(b, rs, AF_INET);
	return rule_ctr(rs, TABLE_FILTER, ch, 0);
}

static void test_v4_df_too_big(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1280);
	struct rules_counter *rule = counting_forward(b);
	const struct pkt *e;
	uint8_t ttl;

	/* 20 + 8 + 1252 = 1280 fits, whole, DF kept */
	assert_int_equal(box_receive(b, LAN, mk("udp 10.0.0.2:1 > 198.51.100.7:2 len=1252 df eth")),
			 EXT_ACCEPT);
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit_oif[0], WAN);
	assert_int_equal(r.xmit[0]->info.l3len, 1280);
	/* one byte more: dropped (mtu), "fragmentation needed" with the next-hop MTU in the low
	 * 16 bits (RFC 1191), quoting the datagram as it came: TTL 64, not decremented */
	assert_int_equal(box_receive(b, LAN, mk("udp 10.0.0.2:1 > 198.51.100.7:2 len=1253 df eth")),
			 EXT_DROP);
	assert_int_equal(r.ndrop, 1);
	assert_int_equal(r.drop[0].kind, BOX_DROP_MTU);
	assert_int_equal(r.drop[0].hook, HOOK_FORWARD);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_MTU], 1);
	assert_int_equal(box_stats(b)->forwarded, 1);
	assert_int_equal(rule->pkts, 1); /* refused in routing, before FORWARD */
	assert_int_equal(r.nxmit, 2);
	e = assert_error(&r, 1, IPPROTO_ICMP, 3, 4, 1280);
	assert_int_equal(pkt_copy_out(e, e->info.l4off + 8 + 8, &ttl, 1), 0);
	assert_int_equal(ttl, 64);
	rec_free(&r);
	box_free(b);
}

static void test_v4_fragmented(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1280);
	struct pkt *orig = mk("udp 10.0.0.2:1 > 198.51.100.7:2 len=1400 id=7 eth");
	uint8_t want[1408], got[1408];
	uint32_t at = 0;

	assert_int_equal(pkt_copy_out(orig, orig->info.l4off, want, sizeof(want)), 0);
	assert_int_equal(box_receive(b, LAN, orig), EXT_ACCEPT);
	/* (1280 - 20) & ~7 = 1256 bytes per fragment: 1256 + 152 */
	assert_int_equal(r.nxmit, 2);
	for (unsigned i = 0; i < r.nxmit; i++) {
		struct pkt *f = r.xmit[i];
		uint32_t dlen;

		assert_int_equal(r.xmit_oif[i], WAN);
		pkt_parse(f, PKT_LINK_ETHERNET, true);
		assert_true(f->info.l3len <= 1280);
		assert_ip_csum_ok(f);
		assert_int_equal(f->info.frag_id, 7);
		assert_int_equal(f->info.ttl, 63);
		assert_int_equal(f->info.frag_off * 8u, at);
		assert_int_equal(f->info.more_frags, i == 0);
		dlen = f->info.l3len - f->info.ihl;
		assert_true(at + dlen <= sizeof(got));
		assert_int_equal(pkt_copy_out(f, f->info.l3off + f->info.ihl, got + at, dlen), 0);
		at += dlen;
	}
	assert_int_equal(at, sizeof(want));
	/* the pieces put back are the datagram: the UDP checksum over them still holds */
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_MTU], 0);
	rec_free(&r);
	box_free(b);
}

static void test_v6_packet_too_big(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1280);

	/* 40 + 8 + 1232 = 1280 fits */
	assert_int_equal(box_receive(b, LAN, mk("udp [fd00::2]:1 > [2001:db8::1]:2 len=1232 eth")),
			 EXT_ACCEPT);
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit_oif[0], WAN);
	/* one byte more: never fragmented by a router, "packet too big" with the 32-bit MTU */
	assert_int_equal(box_receive(b, LAN, mk("udp [fd00::2]:1 > [2001:db8::1]:2 len=1233 eth")),
			 EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_MTU);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_MTU], 1);
	assert_int_equal(r.nxmit, 2);
	assert_error(&r, 1, IPPROTO_ICMPV6, 2, 0, 1280);
	/* the error fits the minimum MTU */
	assert_true(r.xmit[1]->info.l3len <= 1280);
	rec_free(&r);
	box_free(b);
}

static void test_route_mtu(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1500);
	struct box_route rt = {0};
	const struct pkt *e;
	uint8_t hlim;

	rt.family = pt_addr_parse("203.0.113.0", &rt.net);
	rt.plen = 24;
	rt.oif = WAN;
	rt.mtu = 1000;
	assert_int_equal(box_add_route(b, &rt), 0);
	rt.family = pt_addr_parse("2001:db8:5::", &rt.net);
	rt.plen = 48;
	rt.mtu = 1280;
	assert_int_equal(box_add_route(b, &rt), 0);
	/* IPv4 forwarding honours the route's MTU */
	assert_int_equal(box_receive(b, LAN, mk("udp 10.0.0.2:1 > 203.0.113.9:2 len=1000 df eth")),
			 EXT_DROP);
	assert_error(&r, 0, IPPROTO_ICMP, 3, 4, 1000);
	assert_int_equal(box_receive(b, LAN, mk("udp 10.0.0.2:1 > 203.0.113.9:2 len=1000 eth")),
			 EXT_ACCEPT);
	assert_int_equal(r.nxmit, 3);
	assert_true(r.xmit[1]->info.l3len <= 1000);
	/* IPv6: ip6_forward checks the interface's MTU; the route's is met on output, after
	 * FORWARD, so "packet too big" quotes the hop limit decremented (as the kernel does) */
	assert_int_equal(
	    box_receive(b, LAN, mk("udp [fd00::2]:1 > [2001:db8:5::1]:2 len=1400 eth")),
	    EXT_DROP);
	assert_int_equal(r.nxmit, 4);
	e = assert_error(&r, 3, IPPROTO_ICMPV6, 2, 0, 1280);
	assert_int_equal(pkt_copy_out(e, e->info.l4off + 8 + 7, &hlim, 1), 0);
	assert_int_equal(hlim, 63);
	rec_free(&r);
	box_free(b);
}

static void test_own_packets(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1280);

	/* the box's own IPv4 without DF is fragmented too */
	assert_int_equal(box_output(b, mk("udp 10.0.0.1:1 > 198.51.100.7:2 len=1400")), EXT_ACCEPT);
	assert_int_equal(r.nxmit, 2);
	for (unsigned i = 0; i < 2; i++) {
		pkt_parse(r.xmit[i], PKT_LINK_ETHERNET, true);
		assert_true(r.xmit[i]->info.l3len <= 1280);
		assert_ip_csum_ok(r.xmit[i]);
	}
	/* with DF, or IPv6: dropped, counted, and no ICMP to itself (Linux tells the socket) */
	assert_int_equal(box_output(b, mk("udp 10.0.0.1:1 > 198.51.100.7:2 len=1400 df")),
			 EXT_DROP);
	assert_int_equal(box_output(b, mk("udp [fd00::1]:1 > [2001:db8::1]:2 len=1400")), EXT_DROP);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_MTU], 2);
	assert_int_equal(box_stats(b)->emitted, 0);
	assert_int_equal(r.nxmit, 2);
	rec_free(&r);
	box_free(b);
}

/* A GSO packet (10000 payload bytes, DF) standing for segments of gso_size bytes. */
static struct pkt *mk_gso(const char *spec, uint16_t gso_size)
{
	struct pkt *p = mk(spec);

	p->gso_size = gso_size;
	p->gso_type = PKT_GSO_TCP;
	pkt_l4_csum_set_partial(p);
	return p;
}

/*
 * GSO packets are one packet for the rules, and the MTU check is the segments' (the kernel's
 * skb_gso_validate_network_len): whole when they fit; with DF and segments too big,
 * "fragmentation needed"; without DF, cut into segments and each fragmented.
 */
static void test_gso(void **state)
{
	struct rec r = {0};
	struct box *b = mtu_box(&r, 1280);
	struct rules_counter *rule = counting_forward(b);
	const char *df = "tcp 10.0.0.2:1000 > 198.51.100.7:80 ack len=10000 df eth";

	/* 20 + 20 + 1000 fits: forwarded whole, still GSO, the rules saw one packet */
	assert_int_equal(box_receive(b, LAN, mk_gso(df, 1000)), EXT_ACCEPT);
	assert_int_equal(r.nxmit, 1);
	assert_int_equal(r.xmit[0]->info.l3len, 10040);
	assert_int_equal(r.xmit[0]->gso_size, 1000);
	assert_true(r.xmit[0]->csum_partial);
	assert_int_equal(rule->pkts, 1);
	/* 20 + 20 + 1448 does not: refused with the MTU, before FORWARD */
	assert_int_equal(box_receive(b, LAN, mk_gso(df, 1448)), EXT_DROP);
	assert_int_equal(r.drop[0].kind, BOX_DROP_MTU);
	assert_int_equal(r.nxmit, 2);
	assert_error(&r, 1, IPPROTO_ICMP, 3, 4, 1280);
	assert_int_equal(rule->pkts, 1);
	/* without DF: 7 segments of 1488 bytes or less, each in 2 fragments, checksums whole */
	assert_int_equal(
	    box_receive(b, LAN,
			mk_gso("tcp 10.0.0.2:1000 > 198.51.100.7:80 ack len=10000 eth", 1448)),
	    EXT_ACCEPT);
	assert_int_equal(rule->pkts, 2);
	assert_int_equal(r.nxmit, 2 + 14);
	for (unsigned i = 2; i < r.nxmit; i++) {
		pkt_parse(r.xmit[i], PKT_LINK_ETHERNET, true);
		assert_true(r.xmit[i]->info.l3len <= 1280);
		assert_int_equal(r.xmit[i]->gso_size, 0);
		assert_ip_csum_ok(r.xmit[i]);
	}
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v4_df_too_big),
	    cmocka_unit_test(test_v4_fragmented),
	    cmocka_unit_test(test_v6_packet_too_big),
	    cmocka_unit_test(test_route_mtu),
	    cmocka_unit_test(test_own_packets),
	    cmocka_unit_test(test_gso),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
