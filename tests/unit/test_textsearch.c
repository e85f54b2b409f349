// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * textsearch against a naive reference: random texts over small alphabets (so patterns recur
 * and overlap), cut into 1..50 random segments (empty ones too) of a real struct pkt or of a
 * segment list, with and without TS_IGNORECASE, in random [from, to) windows; every
 * occurrence in order through ts_next. The same for the many-patterns engines (Aho-Corasick,
 * and Hyperscan when the build has it): every (pattern, end) pair, as a set.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pkt/pkt.h"
#include "textsearch/multi.h"
#include "textsearch/pkt_source.h"
#include "textsearch/textsearch.h"

static const char *const algos[] = {"bm", "kmp"};

/* A tiny deterministic generator (xorshift), so failures repeat. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

static bool ref_eq(const uint8_t *t, const uint8_t *p, uint32_t m, bool icase)
{
	for (uint32_t i = 0; i < m; i++)
		if (icase ? ts_fold(t[i]) != ts_fold(p[i]) : t[i] != p[i])
			return false;
	return true;
}

/* Naive: first occurrence at or after `start` in t[0..n). */
static uint32_t ref_find(const uint8_t *t, uint32_t n, const uint8_t *p, uint32_t m, bool icase,
			 uint32_t start)
{
	for (uint32_t s = start; s + m <= n; s++)
		if (ref_eq(t + s, p, m, icase))
			return s;
	return TS_NOMATCH;
}

/* A segment list source: blocks as cut, empty ones included (the source skips them). */
struct segs {
	const uint8_t *data;
	uint32_t cut[64]; /* block i is [cut[i], cut[i+1]) */
	unsigned n;
	unsigned calls;
};

static uint32_t segs_next(void *arg, uint32_t consumed, const uint8_t **block)
{
	struct segs *s = arg;

	s->calls++;
	for (unsigned i = 0; i < s->n; i++)
		if (consumed >= s->cut[i] && consumed < s->cut[i + 1]) {
			*block = s->data + consumed;
			return s->cut[i + 1] - consumed;
		}
	return 0;
}

static void random_cuts(struct segs *s, const uint8_t *data, uint32_t len, unsigned nseg)
{
	s->data = data;
	s->n = nseg;
	s->cut[0] = 0;
	for (unsigned i = 1; i < nseg; i++)
		s->cut[i] = rnd(len + 1);
	s->cut[nseg] = len;
	/* sort the inner cuts (insertion sort: at most 50) */
	for (unsigned i = 2; i < nseg; i++)
		for (unsigned k = i; k > 1 && s->cut[k - 1] > s->cut[k]; k--) {
			uint32_t t = s->cut[k];

			s->cut[k] = s->cut[k - 1];
			s->cut[k - 1] = t;
		}
}

static void random_text(uint8_t *t, uint32_t n, unsigned alpha)
{
	static const uint8_t letters[] = "abAB\xdf\xff\xbf\xe0\xc0"
					 "c";

	for (uint32_t i = 0; i < n; i++)
		t[i] = alpha ? letters[rnd(alpha)] : (uint8_t)rnd(256);
}

/* Every occurrence, in order, equals the reference's, for one algorithm. */
static void check_all(const char *algo, const uint8_t *t, uint32_t n, const uint8_t *p, uint32_t m,
		      bool icase, const struct ts_source *src)
{
	struct ts_config *c;
	struct ts_state st;
	uint32_t want, got;

	assert_int_equal(ts_prepare(algo, p, m, icase ? TS_IGNORECASE : 0, &c), 0);
	want = ref_find(t, n, p, m, icase, 0);
	got = ts_find(c, &st, src);
	for (unsigned k = 0; k < 1000; k++) {
		if (got != want)
			fail_msg("%s icase=%d m=%u n=%u: occurrence %u at %u, reference %u", algo,
				 icase, m, n, k, got, want);
		if (want == TS_NOMATCH)
			break;
		want = ref_find(t, n, p, m, icase, want + 1);
		got = ts_next(c, &st);
	}
	ts_destroy(c);
}

static void test_random_segments(void **state)
{
	uint8_t text[600], pat[24];

	(void)state;
	for (unsigned iter = 0; iter < 3000; iter++) {
		uint32_t n = rnd(sizeof(text) + 1), m = 1 + rnd(iter % 3 ? 6 : sizeof(pat));
		unsigned alpha = iter % 4 == 0 ? 0 : 2 + rnd(9);
		bool icase = iter & 1;
		struct segs s;
		struct ts_source src = {.next_block = segs_next, .arg = &s};

		random_text(text, n, alpha);
		/* half of the patterns are taken from the text, so there is something to find */
		if (n >= m && rnd(2))
			memcpy(pat, text + rnd(n - m + 1), m);
		else
			random_text(pat, m, alpha);
		random_cuts(&s, text, n, 1 + rnd(50));
		for (unsigned a = 0; a < 2; a++)
			check_all(algos[a], text, n, pat, m, icase, &src);
	}
}

/* A struct pkt cut at random places, searched in random [from, to) windows. */
static void test_packet_windows(void **state)
{
	uint8_t text[1500], pat[12];

	(void)state;
	for (unsigned iter = 0; iter < 1500; iter++) {
		uint32_t n = 1 + rnd(sizeof(text)), m = 1 + rnd(sizeof(pat));
		uint32_t cuts[PKT_MAX_SEGS], ncuts = rnd(PKT_MAX_SEGS), from, to;
		bool icase = rnd(2);
		struct ts_pkt_range r;
		struct ts_source src;
		struct pkt *p;

		random_text(text, n, 2 + rnd(4));
		random_text(pat, m, 2 + rnd(4));
		for (unsigned i = 0; i < ncuts; i++)
			cuts[i] = 1 + rnd(n > 1 ? n - 1 : 1);
		/* ascending, distinct, inside (0, n) */
		for (unsigned i = 1; i < ncuts; i++)
			for (unsigned k = i; k > 0 && cuts[k - 1] > cuts[k]; k--) {
				uint32_t t = cuts[k];

				cuts[k] = cuts[k - 1];
				cuts[k - 1] = t;
			}
		{
			unsigned w = 0;

			for (unsigned i = 0; i < ncuts; i++)
				if (cuts[i] > 0 && cuts[i] < n && (!w || cuts[w - 1] != cuts[i]))
					cuts[w++] = cuts[i];
			ncuts = w;
		}
		p = pkt_from_bytes_cuts(text, n, cuts, ncuts);
		assert_non_null(p);
		from = rnd(n + 1);
		to = from + rnd(n - from + 8);
		src = ts_pkt_source(&r, p, from, to - from);
		for (unsigned a = 0; a < 2; a++)
			check_all(algos[a], text + from, (to < n ? to : n) - from, pat, m, icase,
				  &src);
		pkt_free(p);
	}
}

static void test_prepare_errors(void **state)
{
	static uint8_t big[TS_MAX_PATTERN + 1];
	struct ts_config *c = (void *)1;

	(void)state;
	assert_int_equal(ts_prepare("fsm", "a", 1, 0, &c), -ENOENT);
	assert_null(c);
	assert_int_equal(ts_prepare("bm", "", 0, 0, &c), -EINVAL);
	assert_int_equal(ts_prepare("kmp", big, sizeof(big), 0, &c), -E2BIG);
	assert_int_equal(ts_prepare("kmp", big, TS_MAX_PATTERN, 0, &c), 0);
	assert_int_equal(ts_pattern_len(c), TS_MAX_PATTERN);
	ts_destroy(c);
	assert_true(ts_algo_known("bm") && ts_algo_known("kmp") && !ts_algo_known("BM"));
}

/* A config in the caller's memory: no allocation, same answers; too small is -ENOSPC. */
static void test_prepare_at(void **state)
{
	static const uint8_t text[] = "xxPORT 1,2";
	struct ts_flat f = {text, 10};
	struct ts_source src = ts_flat_source(&f);
	uint64_t mem[64];
	struct ts_config *c;
	struct ts_state st;

	(void)state;
	for (unsigned a = 0; a < 2; a++) {
		size_t need = ts_config_size(algos[a], 4);

		assert_true(need > 0 && need <= sizeof(mem) * 8);
		assert_int_equal(
		    ts_prepare_at(mem, need - 1, algos[a], "port", 4, TS_IGNORECASE, &c), -ENOSPC);
		if (need <= sizeof(mem)) {
			assert_int_equal(
			    ts_prepare_at(mem, need, algos[a], "port", 4, TS_IGNORECASE, &c), 0);
			assert_int_equal(ts_find(c, &st, &src), 2);
		}
	}
	assert_int_equal(ts_config_size("fsm", 4), 0);
	assert_int_equal(ts_config_size("kmp", 0), 0);
}

/* The kernel's folding: 0xdf folds to 0xbf and 0xff to 0xdf, so a folded pattern 0xbf finds
 * 0xdf in the text and a pattern 0xff does not (measured with xt_string on Linux 6.18). */
static void test_kernel_folding(void **state)
{
	static const uint8_t text[] = "xx\xdf"
				      "yy";
	struct ts_flat f = {text, 5};
	struct ts_source src = ts_flat_source(&f);
	struct ts_config *c;
	struct ts_state st;

	(void)state;
	for (unsigned a = 0; a < 2; a++) {
		assert_int_equal(ts_prepare(algos[a], "\xbf", 1, TS_IGNORECASE, &c), 0);
		assert_int_equal(ts_find(c, &st, &src), 2);
		ts_destroy(c);
		assert_int_equal(ts_prepare(algos[a], "\xff", 1, TS_IGNORECASE, &c), 0);
		assert_int_equal(ts_find(c, &st, &src), TS_NOMATCH);
		ts_destroy(c);
		assert_int_equal(ts_prepare(algos[a], "XX", 2, TS_IGNORECASE, &c), 0);
		assert_int_equal(ts_find(c, &st, &src), 0);
		ts_destroy(c);
	}
}

/* A segment source is asked for blocks in place: a search of a 3-segment text over 40
 * patterns' worth of restarts never asks for more than a bounded number of blocks. */
static void test_no_copy_blocks(void **state)
{
	static const uint8_t text[] = "GET /index.html HTTP/1.1\r\nHost: example\r\n";
	struct segs s = {.data = text, .cut = {0, 7, 7, 30, sizeof(text) - 1}, .n = 4};
	struct ts_source src = {.next_block = segs_next, .arg = &s};
	struct ts_config *c;
	struct ts_state st;

	(void)state;
	for (unsigned a = 0; a < 2; a++) {
		/* "index" spans the first cut (7), "\r\nHost" the third (30) */
		assert_int_equal(ts_prepare(algos[a], "/index", 6, 0, &c), 0);
		s.calls = 0;
		assert_int_equal(ts_find(c, &st, &src), 4);
		assert_true(s.calls <= 4);
		ts_destroy(c);
		assert_int_equal(ts_prepare(algos[a], "1\r\nhost", 7, TS_IGNORECASE, &c), 0);
		assert_int_equal(ts_find(c, &st, &src), 23);
		ts_destroy(c);
	}
}

struct hit {
	unsigned id;
	uint32_t end;
};

struct hits {
	struct hit h[20000];
	unsigned n;
};

static int collect(void *arg, unsigned id, uint32_t end)
{
	struct hits *h = arg;

	if (h->n < sizeof(h->h) / sizeof(h->h[0]))
		h->h[h->n++] = (struct hit){id, end};
	return 0;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void check_multi(enum ts_multi_engine engine)
{
	static struct hits got, want;
	uint8_t text[700], pats[40][10];
	struct ts_multi_pattern mp[40];

	for (unsigned iter = 0; iter < 400; iter++) {
		unsigned np = 1 + rnd(40), alpha = 2 + rnd(4);
		uint32_t n = rnd(sizeof(text) + 1);
		struct segs s;
		struct ts_source src = {.next_block = segs_next, .arg = &s};
		struct ts_multi *m;
		int ret;

		random_text(text, n, alpha);
		for (unsigned i = 0; i < np; i++) {
			mp[i].len = 1 + rnd(sizeof(pats[0]));
			random_text(pats[i], mp[i].len, alpha);
			/* Hyperscan folds ASCII only: its sets stay ASCII when case-insensitive */
			if (engine == TS_MULTI_HS)
				for (uint32_t k = 0; k < mp[i].len; k++)
					pats[i][k] &= 0x7f;
			mp[i].data = pats[i];
			mp[i].flags = rnd(2) ? TS_IGNORECASE : 0;
		}
		if (engine == TS_MULTI_HS)
			for (uint32_t k = 0; k < n; k++)
				text[k] = rnd(3) ? text[k] & 0x7f : text[k];
		ret = ts_multi_build(mp, np, engine, &m);
		assert_int_equal(ret, 0);
		assert_string_equal(ts_multi_engine_name(m), engine == TS_MULTI_HS ? "hs" : "ac");
		random_cuts(&s, text, n, 1 + rnd(50));
		got.n = want.n = 0;
		assert_int_equal(ts_multi_scan(m, &src, collect, &got), 0);
		for (unsigned i = 0; i < np; i++)
			for (uint32_t st = 0; st + mp[i].len <= n; st++)
				if (ref_eq(text + st, mp[i].data, mp[i].len,
					   mp[i].flags & TS_IGNORECASE))
					collect(&want, i, st + mp[i].len);
		qsort(got.h, got.n, sizeof(got.h[0]), hit_cmp);
		qsort(want.h, want.n, sizeof(want.h[0]), hit_cmp);
		assert_int_equal(got.n, want.n);
		assert_memory_equal(got.h, want.h, got.n * sizeof(got.h[0]));
		ts_multi_free(m);
	}
}

static void test_multi_ac(void **state)
{
	(void)state;
	check_multi(TS_MULTI_AC);
}

static void test_multi_hs(void **state)
{
	struct ts_multi_pattern p = {(const uint8_t *)"a", 1, 0};
	struct ts_multi *m;

	(void)state;
	if (!ts_multi_have_hyperscan()) {
		assert_int_equal(ts_multi_build(&p, 1, TS_MULTI_HS, &m), -ENOTSUP);
		skip();
	}
	check_multi(TS_MULTI_HS);
	/* a case-insensitive Latin-1 letter: Hyperscan would fold it differently, so AUTO
	 * builds the automaton and HS refuses */
	p = (struct ts_multi_pattern){(const uint8_t *)"\xe0", 1, TS_IGNORECASE};
	assert_int_equal(ts_multi_build(&p, 1, TS_MULTI_HS, &m), -ENOTSUP);
	assert_int_equal(ts_multi_build(&p, 1, TS_MULTI_AUTO, &m), 0);
	assert_string_equal(ts_multi_engine_name(m), "ac");
	ts_multi_free(m);
}

/* Stopping: the callback's value ends the scan and is returned. */
static int stop_at_first(void *arg, unsigned id, uint32_t end)
{
	*(uint32_t *)arg = end;
	return 7;
}

static void test_multi_stop_and_limits(void **state)
{
	static const uint8_t text[] = "abcabcabc";
	struct ts_flat f = {text, 9};
	struct ts_source src = ts_flat_source(&f);
	struct ts_multi_pattern p[2] = {{(const uint8_t *)"bc", 2, 0},
					{(const uint8_t *)"CA", 2, TS_IGNORECASE}};
	static uint8_t big[TS_MAX_PATTERN];
	struct ts_multi_pattern many[70];
	struct ts_multi *m;
	uint32_t end = 0;

	(void)state;
	assert_int_equal(ts_multi_build(p, 2, TS_MULTI_AC, &m), 0);
	assert_int_equal(ts_multi_scan(m, &src, stop_at_first, &end), 7);
	assert_int_equal(end, 3);
	ts_multi_free(m);
	assert_int_equal(ts_multi_build(p, 0, TS_MULTI_AC, &m), -EINVAL);
	memset(big, 'x', sizeof(big));
	for (unsigned i = 0; i < 70; i++) /* 70 * 1024 states > TS_MULTI_MAX_STATES */
		many[i] = (struct ts_multi_pattern){big, sizeof(big), 0};
	big[0] = 'y';
	assert_int_equal(ts_multi_build(many, 70, TS_MULTI_AC, &m), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prepare_errors),
	    cmocka_unit_test(test_prepare_at),
	    cmocka_unit_test(test_kernel_folding),
	    cmocka_unit_test(test_no_copy_blocks),
	    cmocka_unit_test(test_random_segments),
	    cmocka_unit_test(test_packet_windows),
	    cmocka_unit_test(test_multi_ac),
	    cmocka_unit_test(test_multi_hs),
	    cmocka_unit_test(test_multi_stop_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
