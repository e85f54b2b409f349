/* SPDX-License-Identifier: GPL-2.0-or-later */
/* limit and hashlimit at exact box times: burst, refill, above/upto, keys, expiry, full table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "ext/hashlimit.h"
#include "ext_fake_env.h"

#define MS 1000000ull

static struct fake_box fb;
static const struct ext_env env = {&fake_ops, &fb};

static bool run(struct ext_instance *m, const char *spec, uint64_t t, bool *hotdrop)
{
	struct pkt *p = fake_pkt(spec);
	struct ext_pkt_ctx ctx;
	bool r;

	assert_non_null(p);
	fake_ctx(&ctx, p, &env, HOOK_INPUT, t);
	r = m->match->match(&ctx, m);
	if (hotdrop)
		*hotdrop = ctx.hotdrop;
	pkt_free(p);
	return r;
}

static void test_limit_burst_refill(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct rules_rule *r = fake_rule(&rs, AF_INET, "filter", "INPUT",
					 "-m limit --limit 10/s --limit-burst 5 -j ACCEPT");
	const char *u = "udp 10.0.0.2:1 > 10.0.0.1:2";

	assert_non_null(r);
	for (int i = 0; i < 5; i++)
		assert_true(run(&r->matches[0], u, 1000 * MS, NULL));
	assert_false(run(&r->matches[0], u, 1000 * MS, NULL));
	/* 10/s: one packet's worth of credit every 100 ms = 25 jiffies of 4 ms */
	assert_false(run(&r->matches[0], u, 1096 * MS, NULL));
	assert_true(run(&r->matches[0], u, 1100 * MS, NULL));
	assert_false(run(&r->matches[0], u, 1100 * MS, NULL));
	/* a long pause refills to the burst, never above */
	for (int i = 0; i < 5; i++)
		assert_true(run(&r->matches[0], u, 60000 * MS, NULL));
	assert_false(run(&r->matches[0], u, 60000 * MS, NULL));
	rules_ruleset_free(rs);
}

static void test_hashlimit_keys(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct rules_rule *r = fake_rule(&rs, AF_INET, "filter", "INPUT",
					 "-m hashlimit --hashlimit-upto 1/sec --hashlimit-burst 2 "
					 "--hashlimit-mode srcip --hashlimit-srcmask 24 "
					 "--hashlimit-name t -j ACCEPT");
	struct ext_instance *m;

	assert_non_null(r);
	m = &r->matches[0];
	assert_true(run(m, "udp 10.0.0.2:1 > 10.9.0.1:2", 0, NULL));
	assert_true(run(m, "udp 10.0.0.3:1 > 10.9.0.1:2", 0, NULL)); /* same /24 */
	assert_false(run(m, "udp 10.0.0.4:1 > 10.9.0.1:2", 0, NULL));
	assert_true(run(m, "udp 10.0.1.2:1 > 10.9.0.1:2", 0, NULL)); /* another /24 */
	/* 1/s: refilled after 250 jiffies */
	assert_false(run(m, "udp 10.0.0.2:1 > 10.9.0.1:2", 996 * MS, NULL));
	assert_true(run(m, "udp 10.0.0.2:1 > 10.9.0.1:2", 1000 * MS, NULL));
	rules_ruleset_free(rs);
}

static void test_hashlimit_above_expiry_full(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct rules_rule *r = fake_rule(&rs, AF_INET, "filter", "INPUT",
					 "-m hashlimit --hashlimit-above 1/sec --hashlimit-burst 1 "
					 "--hashlimit-mode srcip,dstport --hashlimit-name t "
					 "--hashlimit-htable-max 2 --hashlimit-htable-expire 500 "
					 "--hashlimit-htable-gcinterval 1000 -j DROP");
	struct ext_hashlimit_stats st;
	struct ext_instance *m;
	bool hd;

	assert_non_null(r);
	m = &r->matches[0];
	assert_false(run(m, "udp 10.0.0.2:1 > 10.0.0.1:80", 0, &hd)); /* under: no match */
	assert_true(run(m, "udp 10.0.0.2:1 > 10.0.0.1:80", 0, &hd));  /* above */
	assert_false(run(m, "udp 10.0.0.2:1 > 10.0.0.1:81", 0, &hd)); /* other port: own key */
	assert_false(run(m, "udp 10.0.0.3:1 > 10.0.0.1:80", 0, &hd));
	assert_true(hd); /* the third key does not fit */
	ext_hashlimit_stats(m, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.full_drops, 1);
	/* expire 500 ms, collection every 1000 ms: gone at the collection at t=1s */
	assert_false(run(m, "udp 10.0.0.3:1 > 10.0.0.1:80", 999 * MS, &hd));
	assert_true(hd);
	assert_false(run(m, "udp 10.0.0.3:1 > 10.0.0.1:80", 1000 * MS, &hd));
	assert_false(hd);
	ext_hashlimit_stats(m, &st);
	assert_int_equal(st.entries, 1);
	assert_int_equal(st.expired, 2);
	rules_ruleset_free(rs);
}

/*
 * A collection runs in slices of 64 buckets, one per packet, with the verdicts and counts of a
 * whole pass at its time: an entry it has not reached yet is gone for a lookup (the next
 * packet of its key starts afresh), one refreshed before it stays, and the statistics count
 * what it still has to remove.
 */
static void test_hashlimit_gc_slices(void **state)
{
	struct rules_ruleset *rs = NULL;
	struct rules_rule *r = fake_rule(&rs, AF_INET, "filter", "INPUT",
					 "-m hashlimit --hashlimit-upto 1/min --hashlimit-burst 1 "
					 "--hashlimit-mode srcip --hashlimit-name t "
					 "--hashlimit-htable-size 1024 --hashlimit-htable-max 4096 "
					 "--hashlimit-htable-expire 500 "
					 "--hashlimit-htable-gcinterval 1000 -j ACCEPT");
	struct ext_hashlimit_stats st;
	struct ext_instance *m;
	char spec[64];

	(void)state;
	assert_non_null(r);
	m = &r->matches[0];
	for (unsigned i = 0; i < 300; i++) {
		snprintf(spec, sizeof(spec), "udp 10.1.%u.%u:1 > 10.0.0.1:2", i / 250, i % 250);
		assert_true(run(m, spec, 0, NULL)); /* the burst of one */
	}
	/* expired at 500 ms, collected at 1 s: until then it still counts (no credit) */
	assert_false(run(m, "udp 10.1.0.0:1 > 10.0.0.1:2", 600 * MS, NULL));
	/* at 1 s a collection is due: this packet pays for 64 of the 1024 buckets */
	assert_true(run(m, "udp 10.9.9.9:1 > 10.0.0.1:2", 1000 * MS, NULL));
	ext_hashlimit_stats(m, &st);
	assert_int_equal(st.gc_buckets, 64);
	assert_int_equal(st.entries, 2); /* 10.1.0.0 refreshed at 600 ms, and 10.9.9.9 */
	assert_int_equal(st.expired, 299);
	/* the others start afresh, swept or not: the burst again */
	assert_false(run(m, "udp 10.1.0.0:1 > 10.0.0.1:2", 1000 * MS, NULL));
	for (unsigned i = 1; i < 300; i++) {
		snprintf(spec, sizeof(spec), "udp 10.1.%u.%u:1 > 10.0.0.1:2", i / 250, i % 250);
		assert_true(run(m, spec, 1000 * MS, NULL));
	}
	ext_hashlimit_stats(m, &st);
	assert_int_equal(st.entries, 301);
	assert_int_equal(st.expired, 299);
	assert_true(st.gc_buckets <= 64 * 301);
	rules_ruleset_free(rs);
}

static void test_print(void **state)
{
	static const char *const cases[][2] = {
	    {"-m limit", "-m limit --limit 3/hour"},
	    {"-m limit --limit 100/m --limit-burst 7", "-m limit --limit 100/min --limit-burst 7"},
	    {"-m hashlimit --hashlimit-name foo --hashlimit-upto 60/min",
	     "-m hashlimit --hashlimit-upto 1/sec --hashlimit-burst 5 --hashlimit-name foo "
	     "--hashlimit-htable-expire 60000"},
	    {"-m hashlimit --hashlimit-name foo --hashlimit-upto 2mb/s --hashlimit-burst 3m",
	     "-m hashlimit --hashlimit-upto 2mb/s --hashlimit-burst 4mb --hashlimit-name foo"},
	    {"-m hashlimit --hashlimit-name foo --hashlimit-upto 100b/s",
	     "-m hashlimit --hashlimit-upto 96b/s --hashlimit-name foo"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_ruleset *rs = NULL;
		struct rules_rule *r = fake_rule(&rs, AF_INET, "filter", "INPUT", cases[i][0]);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(r);
		rules_print_rule(rs, TABLE_FILTER, r, f);
		fclose(f);
		assert_string_equal(buf, cases[i][1]);
		free(buf);
		rules_ruleset_free(rs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_limit_burst_refill),
	    cmocka_unit_test(test_hashlimit_keys),
	    cmocka_unit_test(test_hashlimit_above_expiry_full),
	    cmocka_unit_test(test_hashlimit_gc_slices),
	    cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
