// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * connmark, CONNMARK, connbytes, connlimit: rules parsed from their text, packets from their
 * one-line form fed through a conntrack table at explicit times, the rule's matches and target
 * run between ct_in and ct_confirm as the box runs them (the printed forms are the compat
 * suite's business: tests/compat/conn*.t).
 */
#include "ct_test.h"

#include "rules/rules.h"

static void *env_conntrack(void *box)
{
	return box;
}

static const struct ext_env_ops env_ops = {.conntrack = env_conntrack};

/* One rule, loaded once (connlimit keeps its counts in the rule), and the table it sees. */
struct harness {
	struct rules_ruleset *rs;
	struct rules_rule *rule;
	struct ct_table *t;
	struct ext_env env;
	int family;
};

static void h_init(struct harness *h, struct ct_table *t, int family, const char *table,
		   const char *chain, const char *rule)
{
	char buf[1024];
	struct rules_error err;
	int ti, c;

	snprintf(buf, sizeof(buf), "*%s\n-A %s %s\nCOMMIT\n", table, chain, rule);
	h->rs = NULL;
	if (rules_parse_buffer(buf, strlen(buf), "test", family, ext_registry_default(), NULL, 0,
			       &h->rs, &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("rule did not load: %s", rule);
	}
	ti = rules_table_by_name(table);
	c = rules_chain_find(&h->rs->tables[ti], chain);
	assert_true(c >= 0);
	h->rule = &h->rs->tables[ti].chains[c].rules[0];
	h->t = t;
	h->env.ops = &env_ops;
	h->env.box = t;
	h->family = family;
}

static void h_free(struct harness *h)
{
	rules_ruleset_free(h->rs);
}

/*
 * Track one packet at `now` (with packet mark *mark), run the rule (matches, then the target
 * if they all matched); confirm unless `dropped`. Returns whether the matches matched; *mark
 * gets the packet's mark afterwards.
 */
static bool h_run_mark(struct harness *h, const char *text, uint64_t now, uint32_t *mark,
		       bool dropped)
{
	struct pkt *p = ct_test_pkt(text);
	struct ext_pkt_ctx ctx = {.pkt = p,
				  .info = &p->info,
				  .family = h->family,
				  .hook = HOOK_PREROUTING,
				  .table = TABLE_MANGLE,
				  .in = "eth0",
				  .out = "",
				  .now_ns = now,
				  .env = &h->env};
	struct rules_rule *r = h->rule;
	bool ok = true;

	p->mark = mark ? *mark : 0;
	ct_in(h->t, p, true, 0, now);
	for (unsigned i = 0; i < r->nmatches && ok; i++)
		ok = r->matches[i].match->match(&ctx, &r->matches[i]);
	assert_false(ctx.hotdrop);
	if (ok && r->target.kind == RULES_T_EXT)
		r->target.ext.target->target(&ctx, &r->target.ext);
	if (mark)
		*mark = p->mark;
	if (!dropped)
		ct_confirm(h->t, p, now);
	ct_pkt_release(h->t, p);
	pkt_free(p);
	return ok;
}

static bool h_run(struct harness *h, const char *text, uint64_t now)
{
	return h_run_mark(h, text, now, NULL, false);
}

static uint32_t ct_mark_of(struct ct_table *t, const char *text, uint64_t now)
{
	struct ct_entry *e = ct_test_find(t, text, now);

	assert_non_null(e);
	return ct_entry_mark(e);
}

#define UO "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20" /* 48 bytes at L3 */
#define UR "udp 192.0.2.1:53 > 10.0.0.2:5000 len=60" /* 88 bytes */

/* ---- connmark / CONNMARK ----------------------------------------------------------------- */

static void test_connmark_save_restore(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct harness save, orm, restore, shift, m1, m2, m3;
	uint32_t mark;

	h_init(&save, t, AF_INET, "mangle", "PREROUTING",
	       "-j CONNMARK --save-mark --nfmask 0xff --ctmask 0xff");
	h_init(&orm, t, AF_INET, "mangle", "PREROUTING", "-j CONNMARK --or-mark 0x10000");
	h_init(&restore, t, AF_INET, "mangle", "PREROUTING",
	       "-j CONNMARK --restore-mark --mask 0xffff");
	h_init(&shift, t, AF_INET, "mangle", "PREROUTING",
	       "-j CONNMARK --save-mark --nfmask 0xf --ctmask 0xf00 --left-shift-mark 8");
	h_init(&m1, t, AF_INET, "mangle", "PREROUTING", "-m connmark --mark 0x34/0xff");
	h_init(&m2, t, AF_INET, "mangle", "PREROUTING", "-m connmark ! --mark 0x10034");
	h_init(&m3, t, AF_INET, "mangle", "PREROUTING", "-m connmark --mark 0x10f34");

	/* no connection: CONNMARK does nothing, connmark never matches (inverted or not) */
	mark = 0x1234;
	assert_true(h_run_mark(&save,
			       "tcp 10.0.0.2:1 > 192.0.2.1:80 ack seq=1 ack=1 win=1 "
			       "frag=mf",
			       0, &mark, false));
	assert_false(h_run(&m2, "tcp 10.0.0.2:1 > 192.0.2.1:80 ack seq=1 ack=1 win=1 frag=mf", 0));

	/* save: ctmark = (0 & ~0xff) ^ (0x1234 & 0xff) */
	mark = 0x1234;
	h_run_mark(&save, UO, S(1), &mark, false);
	assert_int_equal(ct_mark_of(t, UO, S(1)), 0x34);
	assert_true(h_run(&m1, UR, S(2)));
	h_run(&orm, UR, S(2));
	assert_int_equal(ct_mark_of(t, UO, S(2)), 0x10034);
	assert_false(h_run(&m2, UO, S(3)));
	/* restore: nfmark = (0xabcd5678 & ~0xffff) ^ (0x10034 & 0xffff) */
	mark = 0xabcd5678;
	h_run_mark(&restore, UR, S(3), &mark, false);
	assert_int_equal(mark, 0xabcd0034);
	/* a save with a shift: ctmark = (0x10034 & ~0xf00) ^ ((0x1237 & 0xf) << 8) */
	mark = 0x1237;
	h_run_mark(&shift, UO, S(4), &mark, false);
	assert_int_equal(ct_mark_of(t, UO, S(4)), 0x10734);
	assert_false(h_run(&m3, UO, S(4)));
	assert_true(h_run(&m2, UO, S(4)));
	/* and back: the packet gets the low 16 bits of the connection's mark */
	mark = 0xffff0000;
	h_run_mark(&restore, UO, S(5), &mark, false);
	assert_int_equal(mark, 0xffff0734);

	h_free(&save), h_free(&orm), h_free(&restore), h_free(&shift);
	h_free(&m1), h_free(&m2), h_free(&m3);
	ct_table_free(t);
}

static void test_connmark_set_forms(void **state)
{
	static const struct {
		const char *rule;
		uint32_t before, after;
	} cases[] = {
	    {"-j CONNMARK --set-mark 0x5", 0xff00ff, 0x5},
	    {"-j CONNMARK --set-xmark 0x5/0xf", 0xff00ff, 0xff00f5},
	    {"-j CONNMARK --set-mark 0x5/0xf", 0xff00ff, 0xff00f5},
	    {"-j CONNMARK --and-mark 0xf0", 0xff00ff, 0xf0},
	    {"-j CONNMARK --or-mark 0x100", 0xff00ff, 0xff01ff},
	    {"-j CONNMARK --xor-mark 0x11", 0xff00ff, 0xff00ee},
	    {"-j CONNMARK --set-xmark 0x1/0xffffffff --right-shift-mark 0", 7, 1},
	    {"-j CONNMARK --set-xmark 0x100/0xff00 --right-shift-mark 4", 0xab, 0x1a},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_table *t = ct_test_table(16);
		struct harness set, pre;
		char rule[64];

		snprintf(rule, sizeof(rule), "-j CONNMARK --set-xmark 0x%x", cases[i].before);
		h_init(&pre, t, AF_INET, "mangle", "PREROUTING", rule);
		h_init(&set, t, AF_INET, "mangle", "PREROUTING", cases[i].rule);
		h_run(&pre, UO, 0);
		h_run(&set, UO, 1);
		if (ct_mark_of(t, UO, 1) != cases[i].after)
			fail_msg("%s: 0x%x -> 0x%x, want 0x%x", cases[i].rule, cases[i].before,
				 ct_mark_of(t, UO, 1), cases[i].after);
		h_free(&pre), h_free(&set);
		ct_table_free(t);
	}
}

/* ---- connbytes --------------------------------------------------------------------------- */

static struct ct_table *acct_table(void)
{
	struct ct_config c;
	struct ct_table *t;

	ct_config_default(&c);
	c.max_entries = 64;
	c.acct = true;
	t = ct_table_new(&c);
	assert_non_null(t);
	return t;
}

/* Does `rule` match a packet `text` of the connection that has had `o` original and `r` reply
 * packets before it? (A fresh table each time; counters include the packet itself.) */
static bool connbytes_after(const char *rule, unsigned o, unsigned r, const char *text)
{
	struct ct_table *t = acct_table();
	struct harness h;
	uint64_t now = 0;
	bool ok;

	h_init(&h, t, AF_INET, "filter", "INPUT", rule);
	for (unsigned i = 0; i < o; i++)
		h_run(&h, UO, now++);
	for (unsigned i = 0; i < r; i++)
		h_run(&h, UR, now++);
	ok = h_run(&h, text, now);
	h_free(&h);
	ct_table_free(t);
	return ok;
}

#define CB(range, dir, mode)                                                                       \
	"-m connbytes --connbytes " range " --connbytes-dir " dir " --connbytes-mode " mode

static void test_connbytes_packets(void **state)
{
	/* 3 original packets in all (2 before + this one) */
	assert_true(connbytes_after(CB("3:3", "original", "packets"), 2, 0, UO));
	assert_false(connbytes_after(CB("4", "original", "packets"), 2, 0, UO));
	assert_true(connbytes_after(CB("3", "original", "packets"), 2, 0, UO));
	assert_false(connbytes_after(CB("0:2", "original", "packets"), 2, 0, UO));
	/* reply: 2 (1 before + this one); original counts stay out of it */
	assert_true(connbytes_after(CB("2:2", "reply", "packets"), 3, 1, UR));
	assert_false(connbytes_after(CB("3:", "reply", "packets"), 3, 1, UR));
	/* both: 3 + 2 */
	assert_true(connbytes_after(CB("5:5", "both", "packets"), 3, 1, UR));
	assert_false(connbytes_after(CB("6", "both", "packets"), 3, 1, UR));
	/* inverted: outside 2..4 */
	assert_true(connbytes_after("-m connbytes ! --connbytes 2:4 --connbytes-dir both "
				    "--connbytes-mode packets",
				    0, 0, UO));
	assert_false(connbytes_after("-m connbytes ! --connbytes 2:4 --connbytes-dir both "
				     "--connbytes-mode packets",
				     1, 0, UO));
	assert_false(connbytes_after("-m connbytes ! --connbytes 2:4 --connbytes-dir both "
				     "--connbytes-mode packets",
				     3, 0, UO));
	assert_true(connbytes_after("-m connbytes ! --connbytes 2:4 --connbytes-dir both "
				    "--connbytes-mode packets",
				    4, 0, UO));
}

static void test_connbytes_bytes_avgpkt(void **state)
{
	/* original: 48 bytes per packet; reply 88 */
	assert_true(connbytes_after(CB("144:144", "original", "bytes"), 2, 0, UO));
	assert_false(connbytes_after(CB("145", "original", "bytes"), 2, 0, UO));
	assert_true(connbytes_after(CB(":143", "original", "bytes"), 1, 0, UO));
	assert_true(connbytes_after(CB("176:176", "reply", "bytes"), 1, 1, UR));
	assert_true(connbytes_after(CB("272:272", "both", "bytes"), 2, 1, UR));
	/* avgpkt: 48; reply 88; both (2*48 + 88) / 3 = 61 (integer division) */
	assert_true(connbytes_after(CB("48:48", "original", "avgpkt"), 4, 0, UO));
	assert_true(connbytes_after(CB("88:88", "reply", "avgpkt"), 1, 0, UR));
	assert_true(connbytes_after(CB("61:61", "both", "avgpkt"), 2, 0, UR));
	assert_false(connbytes_after(CB("62", "both", "avgpkt"), 2, 0, UR));
	/* no reply yet: the reply average is 0, not a division by zero */
	assert_true(connbytes_after(CB("0:0", "reply", "avgpkt"), 2, 0, UO));
}

static void test_connbytes_needs_counters(void **state)
{
	struct ct_table *t = ct_test_table(64); /* accounting off */
	struct harness h;

	h_init(&h, t, AF_INET, "filter", "INPUT", CB("1", "both", "packets"));
	/* made before accounting was on: no counters, no match, ever */
	assert_false(h_run(&h, UO, 0));
	/* the rule turned accounting on: the next connection has counters */
	assert_true(ct_table_config(t)->acct);
	assert_false(h_run(&h, UO, 1));
	assert_true(h_run(&h, "udp 10.0.0.3:5000 > 192.0.2.1:53 len=20", 2));
	h_free(&h);
	ct_table_free(t);
}

/* ---- connlimit --------------------------------------------------------------------------- */

static const char *syn_from(char *buf, size_t len, unsigned a, unsigned b, unsigned port)
{
	snprintf(buf, len, "tcp 10.%u.%u.%u:%u > 192.0.2.1:22 syn seq=1 win=1000", a, b / 256,
		 b % 256, port);
	return buf;
}

static void test_connlimit_above_mask(void **state)
{
	struct ct_table *t = ct_test_table(4096);
	struct harness above, upto;
	char buf[128];

	h_init(&above, t, AF_INET, "filter", "INPUT",
	       "-p tcp --syn -m connlimit --connlimit-above 2 --connlimit-mask 24");
	h_init(&upto, t, AF_INET, "filter", "INPUT", "-m connlimit --connlimit-upto 2");
	/* 10.1.0.1, 10.1.0.2: 1 and 2 connections in 10.1.0.0/24; the third is above 2 */
	assert_false(h_run(&above, syn_from(buf, sizeof(buf), 1, 1, 1000), 0));
	assert_false(h_run(&above, syn_from(buf, sizeof(buf), 1, 2, 1000), 0));
	assert_true(h_run(&above, syn_from(buf, sizeof(buf), 1, 3, 1000), 0));
	/* a retransmitted SYN of a counted connection is not a new one: still 3 */
	assert_true(h_run(&above, syn_from(buf, sizeof(buf), 1, 1, 1000), 0));
	/* another /24: its own count */
	assert_false(h_run(&above, syn_from(buf, sizeof(buf), 1, 256 + 1, 1000), 0));
	/* upto 2 with the default /32: per address */
	assert_true(h_run(&upto, syn_from(buf, sizeof(buf), 2, 7, 1), 0));
	assert_true(h_run(&upto, syn_from(buf, sizeof(buf), 2, 7, 2), 0));
	assert_false(h_run(&upto, syn_from(buf, sizeof(buf), 2, 7, 3), 0));
	assert_true(h_run(&upto, syn_from(buf, sizeof(buf), 2, 8, 3), 0));
	h_free(&above), h_free(&upto);
	ct_table_free(t);
}

static void test_connlimit_many_sources(void **state)
{
	struct ct_table *t = ct_test_table(8192);
	struct harness h;
	char buf[128];

	/* 300 addresses in 10.3.0.0/16, 3 connections each: with a /16 mask all 900 are one
	 * key; above 899 holds only for the last one */
	h_init(&h, t, AF_INET, "filter", "INPUT",
	       "-m connlimit --connlimit-above 899 --connlimit-mask 16");
	for (unsigned i = 0; i < 900; i++) {
		bool m = h_run(&h, syn_from(buf, sizeof(buf), 3, 1 + i / 3, 2000 + i % 3), 0);

		if (m != (i == 899))
			fail_msg("connection %u: match %d", i, m);
	}
	h_free(&h);
	/* the same with a /32 mask: 3 per address, never above 3 */
	h_init(&h, t, AF_INET, "filter", "INPUT", "-m connlimit --connlimit-above 2");
	for (unsigned i = 0; i < 900; i++) {
		bool m = h_run(&h, syn_from(buf, sizeof(buf), 4, 1 + i / 3, 2000 + i % 3), 0);

		if (m != (i % 3 == 2))
			fail_msg("connection %u: match %d", i, m);
	}
	h_free(&h);
	ct_table_free(t);
}

static void test_connlimit_count_drops(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct harness h;
	char buf[128];

	h_init(&h, t, AF_INET, "filter", "INPUT", "-m connlimit --connlimit-above 3");
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 1), 0));
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 2), S(1)));
	/* counted while its packet is in flight, but dropped: it never enters the table, so
	 * the next connection is the third, not the fourth */
	assert_false(h_run_mark(&h, syn_from(buf, sizeof(buf), 5, 1, 3), S(2), NULL, true));
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 4), S(3)));
	assert_true(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 5), S(4)));
	/* ports 1 and 2 expire at 120 s and 121 s (SYN_SENT): 4, 5 and this one */
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 6), S(122)));
	/* flushed: counting starts again */
	ct_flush(t);
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 7), S(124)));
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 8), S(124)));
	assert_false(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 9), S(124)));
	assert_true(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 10), S(124)));
	/* a RST before any reply ends port 7's connection (CLOSE, then killed): 8, 9, 10 */
	assert_false(h_run(&h, "tcp 10.5.0.1:7 > 192.0.2.1:22 rst seq=2 win=0", S(125)));
	assert_true(h_run(&h, syn_from(buf, sizeof(buf), 5, 1, 11), S(126)));
	h_free(&h);
	ct_table_free(t);
}

static void test_connlimit_closed_tcp(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct harness h;

	h_init(&h, t, AF_INET, "filter", "INPUT", "-m connlimit --connlimit-above 1");
	assert_false(h_run(&h, "tcp 10.6.0.1:1 > 192.0.2.1:22 syn seq=1000 win=64240", 0));
	assert_false(
	    h_run(&h, "tcp 192.0.2.1:22 > 10.6.0.1:1 syn,ack seq=5000 ack=1001 win=65160", 0));
	assert_false(h_run(&h, "tcp 10.6.0.1:1 > 192.0.2.1:22 ack seq=1001 ack=5001 win=502", 0));
	assert_true(h_run(&h, "tcp 10.6.0.1:2 > 192.0.2.1:22 syn seq=1 win=9", 0));
	/* the RST puts it in CLOSE (kept 10 s): no longer counted, from this packet on */
	assert_false(
	    h_run(&h, "tcp 10.6.0.1:1 > 192.0.2.1:22 rst,ack seq=1001 ack=5001 win=0", S(1)));
	assert_int_equal(
	    ct_entry_tcp_state(ct_test_find(t, "tcp 10.6.0.1:1 > 192.0.2.1:22 ack", S(1))),
	    CT_TCP_CLOSE);
	assert_false(h_run(&h, "tcp 10.6.0.1:2 > 192.0.2.1:22 syn seq=1 win=9", S(2)));
	h_free(&h);
	ct_table_free(t);
}

static void test_connlimit_daddr_ipv6(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct harness h;

	h_init(&h, t, AF_INET6, "filter", "INPUT",
	       "-m connlimit --connlimit-above 1 --connlimit-mask 64 --connlimit-daddr");
	assert_false(h_run(&h, "tcp [2001:db8::1]:1 > [2001:db8:1::1]:80 syn seq=1 win=9", 0));
	/* another client, another server in the same /64: 2 for that destination key */
	assert_true(h_run(&h, "tcp [2001:db8::2]:1 > [2001:db8:1::2]:80 syn seq=1 win=9", 0));
	assert_false(h_run(&h, "tcp [2001:db8::2]:1 > [2001:db8:2::2]:80 syn seq=1 win=9", 0));
	h_free(&h);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_connmark_save_restore),
	    cmocka_unit_test(test_connmark_set_forms),
	    cmocka_unit_test(test_connbytes_packets),
	    cmocka_unit_test(test_connbytes_bytes_avgpkt),
	    cmocka_unit_test(test_connbytes_needs_counters),
	    cmocka_unit_test(test_connlimit_above_mask),
	    cmocka_unit_test(test_connlimit_many_sources),
	    cmocka_unit_test(test_connlimit_count_drops),
	    cmocka_unit_test(test_connlimit_closed_tcp),
	    cmocka_unit_test(test_connlimit_daddr_ipv6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
