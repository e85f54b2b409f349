/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The classifier's lookups against a brute-force scan of the rules' constraints, on random
 * rulesets made with the builder: for every key, cls_first (from 0 and from a random
 * position), the cursor (from a chain's start, then past each candidate, and set up again at
 * a random position as after a target; cls_cursor_start, the engine's way in, likewise) and
 * cls_first_burst give exactly the positions whose constraints the key meets, in order. The
 * lookup has a path for a chain's start (no entry below `from`) beside the general one, a
 * list of non-empty roots, leaves that never hold a rule that allows nothing, and a rule's
 * first constraint tested from the rule itself: this drives all of them, also after
 * cls_insert / cls_delete.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "classify/classify.h"
#include "classify/ruleset.h"
#include "test_rng.h"

#define MAX_RULES 100
#define MAX_IV	  6

struct tcon {
	unsigned dim, n;
	bool invert;
	struct cls_interval iv[MAX_IV];
};

struct trule {
	struct tcon con[CLS_NDIMS];
	unsigned ncon;
	bool final;
};

/* Values cluster near a few points so that rules overlap, keys hit interval ends, and the
 * tree has something to split. */
static const uint32_t points[] = {
    0,	  1,	  5,	   6,	       31,	   63,	       64,	   80,
    1000, 0xffff, 0x10000, 0x0a000000, 0x0affffff, 0xc0000200, 0xfffffffe, 0xffffffffu};

static uint32_t value(void)
{
	uint32_t p = points[rng() % (sizeof(points) / sizeof(points[0]))];

	switch (rng() % 4) {
	case 0:
		return p;
	case 1:
		return p + rng() % 3;
	case 2:
		return p - rng() % 3;
	default:
		return rng();
	}
}

static void random_con(struct tcon *k, unsigned dim)
{
	k->dim = dim;
	k->invert = rng() % 6 == 0;
	k->n = rng() % 16 == 0 ? 0 : 1 + rng() % (rng() % 3 ? 1 : MAX_IV); /* 0: allows nothing */
	for (unsigned i = 0; i < k->n; i++) {
		uint32_t a, b;

		if (rng() % 3 == 0) { /* a small set (a state mask): values 0..63 */
			a = rng() % 64;
			b = a + rng() % 4;
			b = b > 63 ? 63 : b;
		} else {
			a = value();
			b = rng() % 4 ? a + rng() % 256 : value();
			if (b < a) {
				uint32_t t = a;

				a = b;
				b = t;
			}
		}
		k->iv[i] = (struct cls_interval){a, b};
	}
}

/* 0: rules constrain any dimension; else only these few (so the tree splits on one dimension
 * level after level, and the build packs those levels into nodes of several thresholds) */
static unsigned ndims_only;
static unsigned dims_only[2];

static void random_rule(struct trule *r)
{
	bool used[CLS_NDIMS] = {false};
	unsigned want = rng() % 5;

	r->ncon = 0;
	r->final = rng() % 5 == 0;
	for (unsigned i = 0; i < want; i++) {
		unsigned dim = ndims_only ? dims_only[rng() % ndims_only] : rng() % CLS_NDIMS;

		if (used[dim])
			continue;
		used[dim] = true;
		random_con(&r->con[r->ncon++], dim);
	}
}

static bool con_allows(const struct tcon *k, uint32_t v)
{
	bool in = false;

	for (unsigned i = 0; i < k->n; i++)
		in |= v >= k->iv[i].lo && v <= k->iv[i].hi;
	return in != k->invert;
}

static bool rule_allows(const struct trule *r, const uint32_t *key)
{
	for (unsigned i = 0; i < r->ncon; i++)
		if (!con_allows(&r->con[i], key[r->con[i].dim]))
			return false;
	return true;
}

/* The first of rules[from..n) whose constraints the key meets, or n. */
static unsigned brute_first(const struct trule *rules, unsigned n, const uint32_t *key,
			    unsigned from)
{
	for (unsigned i = from; i < n; i++)
		if (rule_allows(&rules[i], key))
			return i;
	return n;
}

static struct cls_builder *make_builder(const struct trule *rules, unsigned n)
{
	struct cls_builder *b = cls_builder_new(n);

	assert_non_null(b);
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < rules[i].ncon; k++) {
			const struct tcon *c = &rules[i].con[k];

			assert_int_equal(
			    cls_builder_constrain(b, i, c->dim, c->iv, c->n, c->invert), 0);
		}
		if (rules[i].final)
			assert_int_equal(cls_builder_final(b, i), 0);
	}
	return b;
}

static void random_key(const struct trule *rules, unsigned n, uint32_t *key)
{
	for (unsigned d = 0; d < CLS_NDIMS; d++)
		key[d] = value();
	/* often a key inside some rule's box, at an interval's end */
	if (n && rng() % 2) {
		const struct trule *r = &rules[rng() % n];

		for (unsigned i = 0; i < r->ncon; i++) {
			const struct tcon *k = &r->con[i];

			if (k->n && !k->invert) {
				const struct cls_interval *iv = &k->iv[rng() % k->n];

				key[k->dim] = (rng() % 2 ? iv->lo : iv->hi) + rng() % 3 - 1;
			}
		}
	}
}

/* Every lookup of c against the brute force over rules[0..n), for nkeys random keys. */
static void check(const struct classifier *c, const struct trule *rules, unsigned n, unsigned nkeys)
{
	enum { BURST = 19 };
	uint32_t keys[BURST][CLS_NDIMS];
	unsigned out[BURST];

	assert_int_equal(cls_nrules(c), n);
	for (unsigned round = 0; round < nkeys / BURST; round++) {
		for (unsigned i = 0; i < BURST; i++)
			random_key(rules, n, keys[i]);
		cls_first_burst(c, (const uint32_t(*)[CLS_NDIMS])keys, BURST, out);
		for (unsigned i = 0; i < BURST; i++) {
			const uint32_t *key = keys[i];
			unsigned want = brute_first(rules, n, key, 0), from = rng() % (n + 1), got;
			struct cls_cursor cur;

			assert_int_equal(out[i], want);
			assert_int_equal(cls_first(c, key, 0), want);
			assert_int_equal(cls_first(c, key, from), brute_first(rules, n, key, from));
			/* a chain's start, then on past each candidate */
			cls_cursor_init(c, key, &cur);
			for (unsigned at = 0; at <= n; at = got + 1) {
				got = cls_cursor_next(&cur, at);
				want = brute_first(rules, n, key, at);
				if (got != want)
					fail_msg("cursor from %u: %u, brute force %u", at, got,
						 want);
				/* a candidate's residual may fail: go on past it */
			}
			/* set up again in the middle (after a target): the skip path */
			cls_cursor_init(c, key, &cur);
			assert_int_equal(cls_cursor_next(&cur, from),
					 brute_first(rules, n, key, from));
			/* the engine's way: cls_cursor_start at a chain's start or mid-chain, then
			 * on past each candidate */
			for (unsigned at = rng() % 2 ? 0 : from, first = 1; at <= n;
			     at = got + 1, first = 0) {
				got = first ? cls_cursor_start(c, key, &cur, at)
					    : cls_cursor_next(&cur, at);
				want = brute_first(rules, n, key, at);
				if (got != want)
					fail_msg(
					    "cursor started at %u, from %u: %u, brute force %u",
					    first ? at : 0, at, got, want);
			}
		}
	}
}

static unsigned over_budget; /* rounds whose build went over its budget */

static void one_round(unsigned n, unsigned leaf_rules)
{
	struct trule *rules = calloc(MAX_RULES + 1, sizeof(*rules));
	/* a small budget keeps the builds of wide overlapping rules quick; over it, the chain
	 * would stay linear (counted, and most rounds must build) */
	struct cls_limits lim = {.leaf_rules = leaf_rules, .max_bytes = 1u << 20};
	struct cls_builder *b;
	struct classifier *c, *d;
	int err;

	assert_non_null(rules);
	for (unsigned i = 0; i < n; i++)
		random_rule(&rules[i]);
	b = make_builder(rules, n);
	err = cls_build(b, &lim, &c, NULL);
	if (err == -E2BIG) {
		over_budget++;
		cls_builder_free(b);
		free(rules);
		return;
	}
	assert_int_equal(err, 0);
	check(c, rules, n, 190);

	/* one rule out and one in (the copy), as a restore --noflush does */
	d = cls_clone(c);
	assert_non_null(d);
	if (n) {
		unsigned del = rng() % n;

		err = cls_delete(d, del);

		if (err == -EAGAIN) { /* a final rule in too many leaves: a rebuild's case */
			cls_free(d);
			d = NULL;
		} else {
			assert_int_equal(err, 0);
			memmove(&rules[del], &rules[del + 1], (n - del - 1) * sizeof(*rules));
			n--;
		}
	}
	if (d) {
		struct trule extra;
		struct cls_builder *b1;
		unsigned at = rng() % (n + 1);

		random_rule(&extra);
		b1 = make_builder(&extra, 1);
		assert_int_equal(cls_insert(d, at, b1, 0), 0);
		memmove(&rules[at + 1], &rules[at], (n - at) * sizeof(*rules));
		rules[at] = extra;
		n++;
		check(d, rules, n, 95);
		cls_builder_free(b1);
		cls_free(d);
	}
	cls_builder_free(b);
	cls_free(c);
	free(rules);
}

static void test_random_rulesets(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 300; round++)
		one_round(round % 7 == 0 ? round % 5 : 1 + rng() % MAX_RULES, 1 + round % 3 * 3);
	fprintf(stderr, "%u of 300 rulesets over the budget (left out)\n", over_budget);
	assert_true(over_budget < 30);
}

/* The same on rulesets over one or two dimensions: runs of splits on one dimension, packed
 * into nodes of several thresholds (also walked by cls_insert's and cls_delete's leaf visits). */
static void test_one_dimension(void **state)
{
	static const unsigned pick[][2] = {{CLS_DPORT, CLS_DPORT}, {CLS_SRC0, CLS_SRC0},
					   {CLS_DST0, CLS_SPORT},  {CLS_CTSTATE, CLS_PROTO},
					   {CLS_IN, CLS_OUT},	   {CLS_MARK, CLS_DST0}};

	(void)state;
	for (unsigned round = 0; round < 120; round++) {
		dims_only[0] = pick[round % 6][0];
		dims_only[1] = pick[round % 6][1];
		ndims_only = 1 + round % 2;
		one_round(1 + rng() % MAX_RULES, 1 + round % 3);
	}
	ndims_only = 0;
}

/* A rule that allows nothing is in no leaf and never an answer, also when it is the only
 * rule of its group (an empty tree) or inserted later. */
static void test_never_rules(void **state)
{
	struct trule rules[3] = {0};
	struct cls_builder *b;
	struct classifier *c;

	(void)state;
	rules[0].ncon = 1;
	rules[0].con[0] = (struct tcon){.dim = CLS_DST0, .n = 0};
	rules[1].ncon = 1;
	rules[1].con[0] = (struct tcon){.dim = CLS_CTSTATE, .n = 2, .iv = {{1, 1}, {3, 3}}};
	rules[2].ncon = 0;
	b = make_builder(rules, 3);
	assert_int_equal(cls_build(b, NULL, &c, NULL), 0);
	check(c, rules, 3, 190);
	cls_builder_free(b);
	cls_free(c);
}

/* cls_key's interface words against the rules' side, byte by byte: the first four bytes of the
 * name, big-endian, zeros from the NUL on. The names sit in buffers of their exact size, so a
 * read past the NUL shows under ASan. */
static void test_key_iface_words(void **state)
{
	static const char *const names[] = {
	    "",		"l", "lo", "eth", "eth0", "lan0x", "wan0+", "veth12", "abcdefghijklmno",
	    "\xff\x80z"};
	const unsigned nn = sizeof(names) / sizeof(names[0]);
	struct cls_ruleset cr = {.dims = 1u << CLS_IN | 1u << CLS_OUT};
	struct pkt_info info = {.bad = PKT_OK};

	(void)state;
	for (unsigned i = 0; i < nn * nn; i++) {
		const char *a = names[i % nn], *z = names[i / nn];
		char *in = malloc(strlen(a) + 1), *out = malloc(strlen(z) + 1);
		struct ext_pkt_ctx ctx = {.info = &info, .family = AF_INET, .in = in, .out = out};
		uint32_t key[CLS_NDIMS], want[2] = {0, 0};

		assert_non_null(in);
		assert_non_null(out);
		memcpy(in, a, strlen(a) + 1);
		memcpy(out, z, strlen(z) + 1);
		for (unsigned k = 0; k < 4; k++) {
			want[0] = want[0] << 8 | (k < strlen(a) ? (uint8_t)a[k] : 0);
			want[1] = want[1] << 8 | (k < strlen(z) ? (uint8_t)z[k] : 0);
		}
		assert_true(cls_key(&cr, &ctx, key));
		assert_int_equal(key[CLS_IN], want[0]);
		assert_int_equal(key[CLS_OUT], want[1]);
		free(in);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_rulesets),
	    cmocka_unit_test(test_never_rules),
	    cmocka_unit_test(test_one_dimension),
	    cmocka_unit_test(test_key_iface_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
