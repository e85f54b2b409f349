/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compiled classifier against the linear scan on ClassBench filter sets: every packet of
 * the trace gets the same first match (the TCP-flags test left to the residual check).
 *
 *   test_classify_classbench                    make check: acl1/fw1/ipc1 1k with their whole
 *                                                traces, the 10k sets on every 25th packet,
 *                                                one rule deleted and re-inserted in a 1k set
 *   test_classify_classbench RULES TRACE [STEP]  one set (the full sweep, make classify-sweep)
 *
 * Skipped (77) when the data directory ($PT_CLASSBENCH, default ../shared/data/classbench)
 * is not there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "classbench.h"

/* Compare every packet; the number of mismatches (and the first few printed). */
static unsigned check_set(const char *rules_path, const char *trace_path, unsigned step,
			  unsigned *npkts)
{
	unsigned nr = 0, np = 0, bad = 0;
	struct cb_rule *r = cb_load_rules(rules_path, &nr);
	struct cb_pkt *p = cb_load_trace(trace_path, step, &np);
	struct cls_builder *b = r ? cb_builder(r, nr, true) : NULL;
	struct classifier *c = NULL;
	struct cls_build_info info;
	uint32_t(*keys)[CLS_NDIMS] = NULL;
	unsigned *burst = NULL;

	if (!r || !p || !b || cls_build(b, NULL, &c, &info)) {
		fprintf(stderr, "%s: cannot load or build\n", rules_path);
		bad = 1;
		goto out;
	}
	keys = malloc((size_t)np * sizeof(*keys));
	burst = malloc((size_t)np * sizeof(*burst));
	if (!keys || !burst) {
		bad = 1;
		goto out;
	}
	for (unsigned i = 0; i < np; i++)
		cb_key(&p[i], keys[i]);
	cls_first_burst(c, (const uint32_t(*)[CLS_NDIMS])keys, np, burst);
	for (unsigned i = 0; i < np; i++) {
		unsigned want = cb_linear(r, nr, &p[i]);
		unsigned single = cls_first(c, keys[i], 0);
		unsigned got = cb_compiled(c, r, &p[i], keys[i], single);

		if (got != want || burst[i] != single) {
			if (bad++ < 5)
				fprintf(stderr,
					"%s packet %u: linear %u compiled %u (burst %u/%u)\n",
					trace_path, i, want, got, burst[i], single);
		}
	}
	printf("%s: %u rules, %u packets, %u mismatches; %zu bytes, %u nodes, %u leaves, "
	       "max leaf %u, depth %u, %lu entries\n",
	       rules_path, nr, np, bad, info.bytes, info.nodes, info.leaves, info.max_leaf,
	       info.max_depth, info.entries);
out:
	*npkts = np;
	free(keys);
	free(burst);
	cls_free(c);
	cls_builder_free(b);
	free(r);
	free(p);
	return bad;
}

static void check_named(const char *set, unsigned step)
{
	char rules[512], trace[512];
	unsigned np = 0;

	snprintf(rules, sizeof(rules), "%s/%s", cb_dir(), set);
	snprintf(trace, sizeof(trace), "%s/%s_trace", cb_dir(), set);
	assert_int_equal(check_set(rules, trace, step, &np), 0);
	assert_true(np > 0);
}

static void test_acl1_1k(void **state)
{
	check_named("acl1_1k", 1);
}

static void test_fw1_1k(void **state)
{
	check_named("fw1_1k", 1);
}

static void test_ipc1_1k(void **state)
{
	check_named("ipc1_1k", 1);
}

static void test_sample_10k(void **state)
{
	check_named("acl1_10k", 25);
	check_named("fw1_10k", 25);
	check_named("ipc1_10k", 25);
}

/* Delete rules and insert them back one at a time; after each change compiled == linear on
 * the rules then in force. */
static void test_incremental(void **state)
{
	char path[512], tpath[512];
	unsigned nr = 0, np = 0;
	struct cb_rule *r, *cur;
	struct cb_pkt *p;
	struct cls_builder *b;
	struct classifier *c = NULL;
	const unsigned victims[] = {0, 17, 400, 700};

	snprintf(path, sizeof(path), "%s/fw1_1k", cb_dir());
	snprintf(tpath, sizeof(tpath), "%s/fw1_1k_trace", cb_dir());
	r = cb_load_rules(path, &nr);
	p = cb_load_trace(tpath, 4, &np);
	assert_non_null(r);
	assert_non_null(p);
	cur = malloc(nr * sizeof(*cur));
	assert_non_null(cur);
	b = cb_builder(r, nr, false); /* a final rule cannot be deleted (-EAGAIN) */
	assert_non_null(b);
	assert_int_equal(cls_build(b, NULL, &c, NULL), 0);
	for (unsigned v = 0; v < sizeof(victims) / sizeof(victims[0]); v++) {
		unsigned k = victims[v], n = nr - 1;
		struct classifier *d = cls_clone(c);

		assert_non_null(d);
		assert_int_equal(cls_delete(d, k), 0);
		memcpy(cur, r, k * sizeof(*r));
		memcpy(cur + k, r + k + 1, (nr - k - 1) * sizeof(*r));
		for (unsigned i = 0; i < np; i++) {
			uint32_t key[CLS_NDIMS];

			cb_key(&p[i], key);
			assert_int_equal(cb_compiled(d, cur, &p[i], key, cls_first(d, key, 0)),
					 cb_linear(cur, n, &p[i]));
		}
		/* back in: the builder still has the rule at k */
		assert_int_equal(cls_insert(d, k, b, k), 0);
		assert_int_equal(cls_nrules(d), nr);
		for (unsigned i = 0; i < np; i++) {
			uint32_t key[CLS_NDIMS];

			cb_key(&p[i], key);
			assert_int_equal(cb_compiled(d, r, &p[i], key, cls_first(d, key, 0)),
					 cb_linear(r, nr, &p[i]));
		}
		cls_free(d);
	}
	cls_free(c);
	cls_builder_free(b);
	free(cur);
	free(r);
	free(p);
}

/* cls_update, as a reload of a changed chain uses it: from the classifier of fw1_1k (final
 * rules and all) to that of the set with a rule taken out, a rule added, one replaced, and
 * final rules taken out; compiled == linear on the new rules each time, the old classifier
 * still right on its own; too many changes ask for a rebuild. */
static void check_update(const struct classifier *c, const struct cb_rule *r, unsigned nr,
			 const struct cb_rule *nrules, unsigned nn, const struct cb_pkt *p,
			 unsigned np, int want_err, unsigned want_changed)
{
	struct cls_builder *nb = cb_builder(nrules, nn, true);
	struct classifier *d = NULL;
	unsigned changed = 0;

	assert_non_null(nb);
	assert_int_equal(cls_update(c, nb, &d, &changed), want_err);
	assert_int_equal(changed, want_changed);
	for (unsigned i = 0; i < np; i++) {
		uint32_t key[CLS_NDIMS];

		cb_key(&p[i], key);
		assert_int_equal(cb_compiled(c, r, &p[i], key, cls_first(c, key, 0)),
				 cb_linear(r, nr, &p[i]));
		if (d)
			assert_int_equal(cb_compiled(d, nrules, &p[i], key, cls_first(d, key, 0)),
					 cb_linear(nrules, nn, &p[i]));
	}
	cls_free(d);
	cls_builder_free(nb);
}

static void test_update(void **state)
{
	char path[512], tpath[512];
	unsigned nr = 0, np = 0, k, fin;
	struct cb_rule *r, *cur;
	struct cb_pkt *p;
	struct cls_builder *b;
	struct classifier *c = NULL;

	snprintf(path, sizeof(path), "%s/fw1_1k", cb_dir());
	snprintf(tpath, sizeof(tpath), "%s/fw1_1k_trace", cb_dir());
	r = cb_load_rules(path, &nr);
	p = cb_load_trace(tpath, 4, &np);
	assert_non_null(r);
	assert_non_null(p);
	cur = malloc((nr + 1) * sizeof(*cur));
	assert_non_null(cur);
	b = cb_builder(r, nr, true);
	assert_non_null(b);
	assert_int_equal(cls_build(b, NULL, &c, NULL), 0);
	for (k = 100; k < nr && !r[k].fmask; k++) /* a rule with a flags test: not final */
		;
	for (fin = 100; fin < nr && r[fin].fmask; fin++) /* a final one */
		;
	assert_true(k < nr && fin < nr);
	/* out */
	memcpy(cur, r, k * sizeof(*r));
	memcpy(cur + k, r + k + 1, (nr - k - 1) * sizeof(*r));
	check_update(c, r, nr, cur, nr - 1, p, np, 0, 1);
	/* in: a copy of the last rule but one at k (a new rule that matches much) */
	memcpy(cur, r, k * sizeof(*r));
	cur[k] = r[nr - 2];
	memcpy(cur + k + 1, r + k, (nr - k) * sizeof(*r));
	check_update(c, r, nr, cur, nr + 1, p, np, 0, 1);
	/* replaced: rule k becomes rule 3's copy (delete and insert) */
	memcpy(cur, r, nr * sizeof(*r));
	cur[k] = r[3];
	check_update(c, r, nr, cur, nr, p, np, 0, 2);
	/* final rules out (the rules they hid come back where they covered a leaf): the first
	 * after 100, the widest one (fewest address bits), and the catch-all at the end */
	for (unsigned v = 0; v < 3; v++) {
		unsigned f = fin, bits = 65;

		for (unsigned i = 0; v == 1 && i + 1 < nr; i++)
			if (!r[i].fmask && (unsigned)(__builtin_popcount(r[i].smask) +
						      __builtin_popcount(r[i].dmask)) < bits) {
				bits = (unsigned)(__builtin_popcount(r[i].smask) +
						  __builtin_popcount(r[i].dmask));
				f = i;
			}
		if (v == 2)
			f = nr - 1;
		memcpy(cur, r, f * sizeof(*r));
		memcpy(cur + f, r + f + 1, (nr - f - 1) * sizeof(*r));
		check_update(c, r, nr, cur, nr - 1, p, np, 0, 1);
	}
	/* many rules out: rebuild */
	check_update(c, r, nr, r, nr - CLS_UPDATE_MAX - 1, p, np, -EAGAIN, CLS_UPDATE_MAX + 1);
	cls_free(c);
	cls_builder_free(b);
	free(cur);
	free(r);
	free(p);
}

/* The budget: a structure that does not fit is refused, not truncated. */
static void test_budget(void **state)
{
	char path[512];
	unsigned nr = 0;
	struct cb_rule *r;
	struct cls_builder *b;
	struct classifier *c = NULL;
	struct cls_limits lim = {.max_bytes = 4096};

	snprintf(path, sizeof(path), "%s/acl1_1k", cb_dir());
	r = cb_load_rules(path, &nr);
	assert_non_null(r);
	b = cb_builder(r, nr, true);
	assert_non_null(b);
	assert_int_equal(cls_build(b, &lim, &c, NULL), -E2BIG);
	assert_null(c);
	cls_builder_free(b);
	free(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_acl1_1k),	cmocka_unit_test(test_fw1_1k),
	    cmocka_unit_test(test_ipc1_1k),	cmocka_unit_test(test_sample_10k),
	    cmocka_unit_test(test_incremental), cmocka_unit_test(test_update),
	    cmocka_unit_test(test_budget),
	};
	char probe[512];

	if (argc >= 3) {
		unsigned np = 0, bad = check_set(argv[1], argv[2],
						 argc > 3 ? (unsigned)atoi(argv[3]) : 1, &np);

		return bad || !np ? 1 : 0;
	}
	snprintf(probe, sizeof(probe), "%s/acl1_1k", cb_dir());
	if (access(probe, R_OK)) {
		printf("SKIP: no ClassBench data at %s (set PT_CLASSBENCH)\n", cb_dir());
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
