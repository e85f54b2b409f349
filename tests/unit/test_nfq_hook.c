/* SPDX-License-Identifier: GPL-2.0-or-later */
/* box_hook_packet (run --nfqueue): one hook for one packet; the caller keeps the packet; marks
 * and rewrites stay on it; -i/-o by the box's interface names; only that hook's chains run. */
#include "engine/nfq_hook.h"
#include "engine_test.h"

static struct rules_ruleset *load(const char *text, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;

	if (rules_parse_buffer(text, strlen(text), "test", family, ext_registry_default(), NULL, 0,
			       &rs, &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("ruleset did not load");
	}
	return rs;
}

static const char rules4[] = "*mangle\n"
			     ":FORWARD ACCEPT [0:0]\n"
			     "-A FORWARD -i eth0 -o eth1 -p udp -j MARK --set-mark 0x7\n"
			     "-A FORWARD -i eth0 -o eth1 -p udp -j DSCP --set-dscp 10\n"
			     "COMMIT\n"
			     "*filter\n"
			     ":INPUT ACCEPT [0:0]\n"
			     ":FORWARD ACCEPT [0:0]\n"
			     "-A INPUT -j DROP\n"
			     "-A FORWARD -p tcp --dport 23 -j DROP\n"
			     "COMMIT\n";

static struct box *nfq_box(struct rec *r)
{
	struct box *b = box_new("nfq", &rec_ops, r);

	assert_non_null(b);
	assert_int_equal(box_add_iface(b, "eth0", NULL), 1);
	assert_int_equal(box_add_iface(b, "eth1", NULL), 2);
	box_set_ruleset(b, load(rules4, AF_INET), AF_INET);
	return b;
}

static void test_accept_mark_and_rewrite(void **state)
{
	struct rec r = {0};
	struct box *b = nfq_box(&r);
	struct pkt *p = mk("udp 192.0.2.2:1000 > 198.51.100.2:7777");
	struct box_drop drop;

	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 1, 2, p, &drop), EXT_ACCEPT);
	assert_int_equal(p->mark, 7);
	/* the caller still has the packet, rewritten, with a valid header checksum */
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(p->info.tos, 10 << 2);
	assert_int_equal(r.nxmit + r.ndeliver + r.ndrop, 0);
	pkt_free(p);

	/* -i/-o by name: the other direction is not marked */
	p = mk("udp 192.0.2.2:1000 > 198.51.100.2:7777");
	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 2, 1, p, &drop), EXT_ACCEPT);
	assert_int_equal(p->mark, 0);
	pkt_free(p);
	box_free(b);
}

static void test_drop_counted_not_freed(void **state)
{
	struct rec r = {0};
	struct box *b = nfq_box(&r);
	struct pkt *p = mk("tcp 192.0.2.2:1000 > 198.51.100.2:23 syn");
	struct box_drop drop;

	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 1, 2, p, &drop), EXT_DROP);
	assert_int_equal(drop.kind, BOX_DROP_RULE);
	assert_int_equal(drop.table, TABLE_FILTER);
	assert_int_equal(drop.rulenum, 1);
	assert_int_equal(r.ndrop, 1);
	assert_int_equal(box_stats(b)->dropped[BOX_DROP_RULE], 1);
	assert_int_equal(p->info.dport, 23); /* still ours to read and free */
	pkt_free(p);
	box_free(b);
}

/* Only the chains of the hook asked for: INPUT drops everything, FORWARD does not. */
static void test_only_that_hook(void **state)
{
	struct rec r = {0};
	struct box *b = nfq_box(&r);
	struct pkt *p = mk("icmp 192.0.2.2 > 198.51.100.2 echo-request id=1");
	struct box_drop drop;

	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 1, 2, p, &drop), EXT_ACCEPT);
	assert_int_equal(box_hook_packet(b, HOOK_INPUT, 1, 0, p, &drop), EXT_DROP);
	assert_int_equal(box_hook_packet(b, HOOK_OUTPUT, 0, 2, p, &drop), EXT_ACCEPT);
	pkt_free(p);
	box_free(b);
}

static void test_ipv6_and_refusals(void **state)
{
	static const uint8_t junk[24] = {0x10};
	struct rec r = {0};
	struct box *b = nfq_box(&r);
	struct pkt *p = mk("icmp6 2001:db8:1::2 > 2001:db8:2::2 echo-request id=5");
	struct box_drop drop;

	box_set_ruleset(b,
			load("*mangle\n:FORWARD ACCEPT [0:0]\n"
			     "-A FORWARD -p ipv6-icmp -j MARK --set-mark 0x2\nCOMMIT\n",
			     AF_INET6),
			AF_INET6);
	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 1, 2, p, &drop), EXT_ACCEPT);
	assert_int_equal(p->mark, 2);
	assert_int_equal(box_hook_packet(b, HOOK_MAX, 1, 2, p, &drop), -EINVAL);
	pkt_free(p);
	p = pkt_from_bytes(junk, sizeof(junk));
	assert_int_equal(box_hook_packet(b, HOOK_FORWARD, 1, 2, p, &drop), -EPROTONOSUPPORT);
	pkt_free(p);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accept_mark_and_rewrite),
	    cmocka_unit_test(test_drop_counted_not_freed),
	    cmocka_unit_test(test_only_that_hook),
	    cmocka_unit_test(test_ipv6_and_refusals),
	};

	(void)gw_box; /* engine_test.h helpers this file has no use for */
	(void)add_target;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
