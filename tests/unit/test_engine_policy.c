// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A built-in chain with no rules is decided without a traversal (src/engine/hook.c: the policy,
 * counted, by box_run_hook or run_list, no call into the table). The shortcut against the
 * general path on the same inputs: two boxes with the same rulesets and hook functions, one of
 * them tracing every packet (TRACE takes the traversal, box_table_run / do_table, at every
 * table), fed the same random packets (forwarded, for the box, from the box; IPv4 and IPv6; any
 * size). Every verdict, every drop record field, what left and was delivered, and every chain's
 * and rule's counters must agree after each packet. The rulesets are random: tables present or
 * not, policies ACCEPT or DROP, some chains with unconditional rules (so tables of no rules sit
 * before, between and after traversed tables and the hook functions of plug-ins); policies are
 * also changed in place between packets, as CTL_RULES_POLICY does.
 */
#include "engine_test.h"

#include <stdio.h>

#define ROUNDS	200
#define PACKETS 24

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random ruleset of family fam from seed (the same seed, the same ruleset). */
static struct rules_ruleset *random_ruleset(int fam, uint64_t seed)
{
	struct rules_ruleset *rs = rules_ruleset_new(fam);

	assert_non_null(rs);
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		struct rules_table *tb = &rs->tables[t];

		tb->present = rnd(&seed) % 4 != 0;
		for (unsigned h = 0; h < HOOK_MAX; h++) {
			unsigned ci, n;

			if (tb->builtin[h] < 0)
				continue;
			ci = (unsigned)tb->builtin[h];
			tb->chains[ci].policy = rnd(&seed) % 5 == 0 ? EXT_DROP : EXT_ACCEPT;
			/* most chains without rules; some with rules that never decide (no
			 * target), some with one that does */
			n = rnd(&seed) % 3 == 0 ? (unsigned)(rnd(&seed) % 3) : 0;
			for (unsigned i = 0; i < n; i++) {
				static const enum rules_target_kind kinds[] = {
				    RULES_T_NONE,   RULES_T_NONE, RULES_T_NONE,
				    RULES_T_ACCEPT, RULES_T_DROP, RULES_T_RETURN};

				add_target(rs, t, ci, kinds[rnd(&seed) % 6], 0);
			}
		}
	}
	return rs;
}

struct side {
	struct rec r;
	struct box *b;
	struct fn_state fn[4];
};

static const int prios[] = {-250, -120, 10, 200};

static void side_init(struct side *s, bool traced)
{
	memset(s, 0, sizeof(*s));
	s->b = gw_box_wan(&s->r, traced);
}

/* Plug-in-like functions at the hooks, as seed says (the same on both sides). */
static void side_hooks(struct side *s, uint64_t seed, bool on)
{
	const uint64_t hooks = seed;

	for (unsigned i = 0; i < 4; i++) {
		unsigned hook = (unsigned)((hooks >> (8 * i)) % HOOK_MAX);

		if (on) {
			s->fn[i].every = rnd(&seed) % 2 ? (unsigned)(rnd(&seed) % 7 + 2) : 0;
			assert_int_equal(
			    box_register_hook(s->b, 0, hook, prios[i], plugin_fn, &s->fn[i]), 0);
		} else {
			assert_int_equal(box_unregister_hook(s->b, 0, hook, plugin_fn, &s->fn[i]),
					 0);
		}
	}
}

static void test_policies_as_traversal(void **state)
{
	struct side *fast = calloc(1, sizeof(*fast)), *gen = calloc(1, sizeof(*gen));
	uint64_t s = 0x9e3779b97f4a7c15ull;
	uint64_t hseed = 0;
	bool hooks = false;

	(void)state;
	assert_non_null(fast);
	assert_non_null(gen);
	side_init(fast, false);
	side_init(gen, true);
	for (unsigned round = 0; round < ROUNDS; round++) {
		uint64_t seed4 = rnd(&s), seed6 = rnd(&s);

		box_set_ruleset(fast->b, random_ruleset(AF_INET, seed4), AF_INET);
		box_set_ruleset(gen->b, random_ruleset(AF_INET, seed4), AF_INET);
		box_set_ruleset(fast->b, random_ruleset(AF_INET6, seed6), AF_INET6);
		box_set_ruleset(gen->b, random_ruleset(AF_INET6, seed6), AF_INET6);
		if (round % 3 == 0) { /* plug-in functions on for some rounds, off for others */
			if (hooks) {
				side_hooks(fast, hseed, false);
				side_hooks(gen, hseed, false);
			}
			hooks = !hooks && rnd(&s) % 2;
			if (hooks) {
				hseed = rnd(&s);
				side_hooks(fast, hseed, true);
				side_hooks(gen, hseed, true);
			}
		}
		for (unsigned i = 0; i < PACKETS; i++) {
			uint64_t ps = rnd(&s) | 1, ps2 = ps;
			bool out, out2;
			int ifx, ifx2, v1, v2;
			struct pkt *p1 = gw_random_packet(&ps, 8, 60000, &out, &ifx);
			struct pkt *p2 = gw_random_packet(&ps2, 8, 60000, &out2, &ifx2);

			v1 = out ? box_output(fast->b, p1) : box_receive(fast->b, ifx, p1);
			v2 = out2 ? box_output(gen->b, p2) : box_receive(gen->b, ifx2, p2);
			assert_int_equal(v1, v2);
			rec_compare(&fast->r, &gen->r);
			box_compare_counters(fast->b, gen->b, AF_INET);
			box_compare_counters(fast->b, gen->b, AF_INET6);
			rec_free(&fast->r);
			rec_free(&gen->r);
			if (rnd(&s) % 8 == 0) { /* a policy changed in place (CTL_RULES_POLICY) */
				int fam = rnd(&s) % 2 ? AF_INET6 : AF_INET;
				unsigned t = (unsigned)(rnd(&s) % TABLE_MAX);
				struct rules_ruleset *x = box_ruleset(fast->b, fam);
				struct rules_ruleset *y = box_ruleset(gen->b, fam);
				unsigned c = (unsigned)(rnd(&s) % HOOK_MAX);

				if (x->tables[t].builtin[c] >= 0) {
					struct rules_chain *cx =
					    &x->tables[t].chains[x->tables[t].builtin[c]];
					int pol = cx->policy == EXT_DROP ? EXT_ACCEPT : EXT_DROP;

					cx->policy = pol;
					y->tables[t].chains[y->tables[t].builtin[c]].policy = pol;
				}
			}
		}
		for (unsigned i = 0; i < 4; i++)
			assert_int_equal(fast->fn[i].calls, gen->fn[i].calls);
	}
	box_free(fast->b);
	box_free(gen->b);
	free(fast);
	free(gen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_policies_as_traversal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
