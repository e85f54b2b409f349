// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ct_walk, the bounded walk behind control-socket dumps and deletes: every entry exactly once,
 * including an entry whose two tuples share a bucket. Both nodes are pushed at the bucket's
 * head, original first, so such an entry's reply node comes right before its original node:
 *
 *   bucket k:  e7r -> e7o -> e2o -> ...
 *
 * The walk used to step over every node of the entry it stood on, also at e7r, and so never
 * visited e7 (found by bench_ctl: a 1M dump gave ~1 entry in 10k too few).
 */
#include "ct_test.h"

#include "ct/ct_int.h"

#define N 400

static enum ct_walk_action count_cb(void *priv, struct ct_entry *e)
{
	(*(unsigned *)priv)++;
	return CT_WALK_NEXT;
}

static enum ct_walk_action kill_cb(void *priv, struct ct_entry *e)
{
	(*(unsigned *)priv)++;
	return CT_WALK_KILL;
}

/* N UDP entries in a table of 16 buckets: many have both tuples in one bucket. */
static struct ct_table *crowded(void)
{
	struct ct_config c;
	struct ct_table *t;
	char pkt[96];

	ct_config_default(&c);
	c.max_entries = 4 * N;
	c.buckets = 16;
	t = ct_table_new(&c);
	assert_non_null(t);
	for (unsigned i = 0; i < N; i++) {
		snprintf(pkt, sizeof(pkt), "udp 10.0.%u.%u:%u > 192.0.2.1:53 len=8", i >> 8,
			 i & 255, 1024 + i);
		ct_test_feed(t, pkt, 0);
	}
	assert_int_equal(ct_table_stats(t)->count, N);
	return t;
}

static void test_walk_visits_every_entry(void **state)
{
	struct ct_table *t = crowded();

	for (unsigned step = 1; step <= 1000; step *= 10) {
		uint32_t cursor = 0;
		unsigned n = 0;

		while (!ct_walk(t, &cursor, step, 0, count_cb, &n))
			;
		assert_int_equal(n, N);
	}
	ct_table_free(t);
}

static void test_walk_kills_every_entry(void **state)
{
	struct ct_table *t = crowded();
	uint32_t cursor = 0;
	unsigned n = 0;

	while (!ct_walk(t, &cursor, 7, 0, kill_cb, &n))
		;
	assert_int_equal(n, N);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_walk_visits_every_entry),
	    cmocka_unit_test(test_walk_kills_every_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
