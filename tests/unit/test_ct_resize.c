// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Resizing the conntrack hash (nf_conntrack_buckets): every entry of every protocol is found in
 * both directions before, during (old and new arrays both in use) and after a resize up and
 * down; a walk with resizes between its steps visits each entry present throughout exactly
 * once; the setting's names, rounding, refusals and the automatic growth with max.
 */
#include "ct_test.h"

#include "ct/create.h"
#include "ct/ct_int.h"

#define BULK 3000

/* Each protocol's first packet and the answer's tuple (looked up, never fed). */
static const struct {
	const char *fwd, *rev;
} flows[] = {
    {"tcp 10.0.0.2:40000 > 192.0.2.1:80 syn", "tcp 192.0.2.1:80 > 10.0.0.2:40000 syn,ack"},
    {"tcp [2001:db8::2]:40000 > [2001:db8:1::1]:443 syn",
     "tcp [2001:db8:1::1]:443 > [2001:db8::2]:40000 syn,ack"},
    {"udp 10.0.0.2:5000 > 192.0.2.1:53 len=8", "udp 192.0.2.1:53 > 10.0.0.2:5000 len=8"},
    {"udp [2001:db8::2]:5000 > [2001:db8::1]:53 len=8",
     "udp [2001:db8::1]:53 > [2001:db8::2]:5000 len=8"},
    {"udplite 10.0.0.2:5000 > 192.0.2.1:5004 len=40",
     "udplite 192.0.2.1:5004 > 10.0.0.2:5000 len=40"},
    {"icmp 10.0.0.2 > 192.0.2.1 echo-request id=77", "icmp 192.0.2.1 > 10.0.0.2 echo-reply id=77"},
    {"icmp6 2001:db8::2 > 2001:db8::1 echo-request id=5",
     "icmp6 2001:db8::1 > 2001:db8::2 echo-reply id=5"},
    {"dccp 10.0.0.2:5000 > 192.0.2.1:6000 request seq=1",
     "dccp 192.0.2.1:6000 > 10.0.0.2:5000 response seq=1"},
    {"gre 10.0.0.2 > 192.0.2.1", "gre 192.0.2.1 > 10.0.0.2"},
    {"proto=99 10.0.0.2 > 10.0.0.3 len=5", "proto=99 10.0.0.3 > 10.0.0.2 len=5"},
    {"sctp 10.0.0.2:5000 > 192.0.2.1:80", "sctp 192.0.2.1:80 > 10.0.0.2:5000"}, /* made by -I */
};
#define NFLOWS (sizeof(flows) / sizeof(flows[0]))

static struct ct_entry *proto_entry[NFLOWS];

static void bulk_text(unsigned i, char *buf, size_t len)
{
	snprintf(buf, len, "udp 10.1.%u.%u:%u > 198.51.100.%u:53 len=8", i >> 8 & 255, i & 255,
		 1024 + i, 1 + i % 7);
}

static void tuple_of(const char *text, struct ct_tuple *tu)
{
	struct pkt *p = ct_test_pkt(text);

	assert_int_equal(ct_tuple_from_pkt(p, 0, tu), 0);
	pkt_free(p);
}

/* A table of 16 buckets holding one entry per protocol and BULK UDP ones. */
static struct ct_table *filled(void)
{
	struct ct_config c;
	struct ct_table *t;
	char txt[96];

	ct_config_default(&c);
	c.max_entries = 4 * BULK;
	c.buckets = 16;
	t = ct_table_new(&c);
	assert_non_null(t);
	for (unsigned i = 0; i < NFLOWS; i++) {
		if (!strncmp(flows[i].fwd, "sctp", 4)) {
			struct ct_entry_attrs a = {.have = CT_ATTR_TIMEOUT, .timeout = S(3600)};

			tuple_of(flows[i].fwd, &a.orig);
			assert_int_equal(ct_entry_create(t, &a, 0, NULL), 0);
		} else {
			assert_int_equal(ct_test_feed(t, flows[i].fwd, 0), CT_STATE_NEW);
		}
		proto_entry[i] = ct_test_find(t, flows[i].fwd, 0);
		assert_non_null(proto_entry[i]);
	}
	for (unsigned i = 0; i < BULK; i++) {
		bulk_text(i, txt, sizeof(txt));
		ct_test_feed(t, txt, 0);
	}
	assert_int_equal(ct_table_stats(t)->count, NFLOWS + BULK);
	return t;
}

/* Every entry, by either tuple (dir says which matched). */
static void check_all(struct ct_table *t)
{
	char txt[96];

	for (unsigned i = 0; i < NFLOWS; i++) {
		struct ct_tuple fwd, rev;
		enum ct_dir d;

		tuple_of(flows[i].fwd, &fwd);
		tuple_of(flows[i].rev, &rev);
		assert_ptr_equal(ct_lookup(t, &fwd, 1, &d), proto_entry[i]);
		assert_int_equal(d, CT_DIR_ORIGINAL);
		assert_ptr_equal(ct_lookup(t, &rev, 1, &d), proto_entry[i]);
		assert_int_equal(d, CT_DIR_REPLY);
	}
	for (unsigned i = 0; i < BULK; i++) {
		struct ct_tuple fwd, rev;
		struct ct_entry *e;
		enum ct_dir d;

		bulk_text(i, txt, sizeof(txt));
		tuple_of(txt, &fwd);
		e = ct_lookup(t, &fwd, 1, NULL);
		assert_non_null(e);
		assert_int_equal(ct_tuple_invert(&fwd, &rev), 0);
		assert_ptr_equal(ct_lookup(t, &rev, 1, &d), e);
		assert_int_equal(d, CT_DIR_REPLY);
	}
	assert_int_equal(ct_table_stats(t)->count, NFLOWS + BULK);
}

static void test_resize_up_and_down(void **state)
{
	struct ct_table *t = filled();
	const uint32_t sizes[] = {4096, 16, 1 << 14, 64, 64};

	check_all(t);
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		assert_int_equal(ct_table_resize(t, sizes[s]), 0);
		assert_int_equal(ct_table_config(t)->buckets, sizes[s]);
		/* part of it moved (a sweep moves at most its own bucket count) */
		ct_sweep(t, 1, 3);
		check_all(t);
		while (ct_table_resizing(t))
			ct_sweep(t, 1, 5);
		check_all(t);
	}
	assert_int_equal(ct_table_resize(t, 0), -EINVAL);
	assert_int_equal(ct_table_resize(t, CT_BUCKETS_MAX + 1), -EINVAL);
	assert_int_equal(ct_table_resize(t, 1000), 0); /* rounded up */
	assert_int_equal(ct_table_config(t)->buckets, 1024);
	ct_table_rehash_finish(t);
	assert_false(ct_table_resizing(t));
	check_all(t);
	ct_table_free(t);
}

/* Inserts during a resize go where lookups look, and move old buckets on the way; kills of
 * entries in either array unlink them; the table goes mid-resize without a leak. */
static void test_insert_and_kill_during_resize(void **state)
{
	struct ct_table *t = filled();
	char txt[96];

	assert_int_equal(ct_table_resize(t, 16384), 0);
	ct_table_rehash_finish(t);
	/* 16384 old buckets: 200 inserts moving at most 64 each leave some */
	assert_int_equal(ct_table_resize(t, 64), 0);
	for (unsigned i = BULK; i < BULK + 200; i++) {
		bulk_text(i, txt, sizeof(txt));
		assert_int_equal(ct_test_feed(t, txt, 0), CT_STATE_NEW);
		assert_non_null(ct_test_find(t, txt, 0));
	}
	for (unsigned i = BULK; i < BULK + 200; i += 2) {
		bulk_text(i, txt, sizeof(txt));
		ct_kill(t, ct_test_find(t, txt, 0));
		assert_null(ct_test_find(t, txt, 0));
	}
	assert_int_equal(ct_table_stats(t)->count, NFLOWS + BULK + 100);
	/* a second resize while one is going on: the first one finishes at once */
	assert_true(ct_table_resizing(t));
	assert_int_equal(ct_table_resize(t, 2048), 0);
	assert_true(ct_table_resizing(t));
	for (unsigned i = BULK + 1; i < BULK + 200; i += 2) {
		bulk_text(i, txt, sizeof(txt));
		assert_non_null(ct_test_find(t, txt, 0));
	}
	ct_table_free(t); /* still resizing: both arrays go */
}

/* ---- walks ------------------------------------------------------------------------------- */

struct visits {
	unsigned char *seen; /* by entry id */
	uint64_t nids;
	unsigned kill_from; /* kill entries with an id at or above (those made during the walk) */
};

static enum ct_walk_action visit_cb(void *priv, struct ct_entry *e)
{
	struct visits *v = priv;
	uint64_t id = ct_entry_id(e);

	assert_true(id < v->nids);
	v->seen[id]++;
	return v->kill_from && id >= v->kill_from && id % 3 == 0 ? CT_WALK_KILL : CT_WALK_NEXT;
}

/*
 * A walk in steps of `step`, and between the steps the table is resized following `plan`
 * (0: a rehash step only), new entries come and some of them are killed by the walk itself.
 * Each entry present from the start is visited exactly once.
 */
static void walk_with_resizes(const uint32_t *plan, unsigned nplan, unsigned step)
{
	struct ct_table *t = filled();
	struct visits v = {.nids = NFLOWS + BULK + 4096};
	uint64_t first_new = NFLOWS + BULK + 1;
	uint32_t cursor = 0;
	unsigned k = 0, made = 0;
	char txt[96];

	v.seen = calloc(v.nids, 1);
	assert_non_null(v.seen);
	v.kill_from = (unsigned)first_new;
	while (!ct_walk(t, &cursor, step, 0, visit_cb, &v)) {
		if (k < nplan && plan[k])
			assert_int_equal(ct_table_resize(t, plan[k]), 0);
		else
			ct_sweep(t, 0, 2);
		k++;
		if (made < 2000) {
			bulk_text(BULK + made++, txt, sizeof(txt));
			ct_test_feed(t, txt, 0);
		}
	}
	for (uint64_t id = 1; id < first_new; id++)
		assert_int_equal(v.seen[id], 1);
	for (uint64_t id = first_new; id < v.nids; id++)
		assert_true(v.seen[id] <= 1);
	free(v.seen);
	ct_table_free(t);
}

static void test_walk_across_grow(void **state)
{
	const uint32_t plan[] = {0, 0, 0, 4096};

	walk_with_resizes(plan, 4, 37);
}

static void test_walk_across_shrink(void **state)
{
	/* grow first so that the walk is inside a fine range when the table shrinks */
	const uint32_t plan[] = {8192, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16};

	walk_with_resizes(plan, sizeof(plan) / sizeof(plan[0]), 11);
}

static void test_walk_across_many_resizes(void **state)
{
	const uint32_t plan[] = {1024, 32, 0, 65536, 0, 128, 4096, 16, 0, 0, 2048, 0, 64, 512};

	for (unsigned step = 1; step <= 301; step += 100)
		walk_with_resizes(plan, sizeof(plan) / sizeof(plan[0]), step);
}

static enum ct_walk_action kill_all_cb(void *priv, struct ct_entry *e)
{
	(*(unsigned *)priv)++;
	return CT_WALK_KILL;
}

static void test_walk_kills_during_resize(void **state)
{
	struct ct_table *t = filled();
	uint32_t cursor = 0;
	unsigned n = 0;

	assert_int_equal(ct_table_resize(t, 512), 0);
	ct_sweep(t, 0, 4);
	while (!ct_walk(t, &cursor, 50, 0, kill_all_cb, &n))
		;
	assert_int_equal(n, NFLOWS + BULK);
	assert_int_equal(ct_table_stats(t)->count, 0);
	/* a finished walk stays finished */
	assert_true(ct_walk(t, &cursor, 50, 0, kill_all_cb, &n));
	ct_table_free(t);
}

/* ---- the setting ------------------------------------------------------------------------- */

static void test_buckets_setting(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	char buf[4096];
	FILE *f;

	ct_config_default(&c);
	t = ct_table_new(&c);
	assert_non_null(t);
	assert_int_equal(ct_table_config(t)->buckets, 32768); /* max 65536 / 2 */

	/* raising max grows an automatic hash (max <= 2 * buckets); lowering never shrinks it */
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "max", "1000000"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 524288);
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "max", "1000"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 524288);

	/* every name, rounded up; set explicitly, max no longer moves it */
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "net.netfilter.nf_conntrack_buckets", "1000"), 0);
	assert_int_equal(c.buckets, 1000);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 1024);
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "hashsize", "4096"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 4096);
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "nf_conntrack_max", "2000000"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 4096);
	assert_int_equal(ct_table_config(t)->max_entries, 2000000);

	assert_int_equal(ct_config_set(&c, "buckets", "0"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "buckets", "-1"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "buckets", "1073741825"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "buckets", "12x"), -EINVAL);

	/* set to the size it has: still explicit (bench_ctl --buckets 32768 grew without this) */
	ct_table_free(t);
	ct_config_default(&c);
	t = ct_table_new(&c);
	assert_non_null(t);
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "buckets", "32768"), 0);
	assert_int_equal(ct_config_set(&c, "max", "1000000"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);
	assert_int_equal(ct_table_config(t)->buckets, 32768);
	assert_false(ct_table_resizing(t));
	c = *ct_table_config(t);
	assert_int_equal(ct_config_set(&c, "buckets", "4096"), 0);
	assert_int_equal(ct_table_set_config(t, &c), 0);

	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	ct_config_print(ct_table_config(t), f);
	fclose(f);
	assert_non_null(strstr(buf, "\nbuckets = 4096\n"));
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resize_up_and_down),
	    cmocka_unit_test(test_insert_and_kill_during_resize),
	    cmocka_unit_test(test_walk_across_grow),
	    cmocka_unit_test(test_walk_across_shrink),
	    cmocka_unit_test(test_walk_across_many_resizes),
	    cmocka_unit_test(test_walk_kills_during_resize),
	    cmocka_unit_test(test_buckets_setting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
