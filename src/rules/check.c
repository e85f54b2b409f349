// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole-ruleset validation, after the last line was read:
 *
 *   1. walk the jump graph from every built-in chain: each user chain learns the hooks it
 *      can be reached from (hook_mask, for the extensions' hook restrictions); a cycle
 *      reachable from a built-in chain is an error, and so is nesting deeper than the
 *      kernel's jump stack (16 levels, what nf_tables enforces: "Too many links").
 *      Cycles among chains no built-in chain reaches are accepted, as iptables-nft does.
 *   2. every extension's hook restriction and check(), in file order.
 *
 * On failure the instances already checked are destroyed (their run-time state freed);
 * the caller then frees the data of all of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules_int.h"

#define JUMP_STACK_MAX 16

enum { WHITE, GREY, BLACK };

struct walk {
	struct rules_table *t;
	unsigned char *color;
	unsigned char *best;   /* lowest level a chain was fully walked at, for this hook */
	struct rules_error *err;
};

static int walk_chain(struct walk *w, unsigned idx, unsigned hook, unsigned level)
{
	struct rules_chain *c = &w->t->chains[idx];
	int ret = 0;

	if (level >= JUMP_STACK_MAX) {
		snprintf(w->err->msg, sizeof(w->err->msg),
			 "chain %s is nested more than %d jumps deep (too many links)", c->name,
			 JUMP_STACK_MAX - 1);
		snprintf(w->err->token, sizeof(w->err->token), "%s", c->name);
		return -ELOOP;
	}
	/* walked before from no deeper: its cycles and depth are known, skip (no blow-up on
	 * diamonds of jumps) */
	if (w->best[idx] <= level)
		return 0;
	c->hook_mask |= HOOK_BIT(hook);
	w->color[idx] = GREY;
	for (unsigned i = 0; i < c->nrules && !ret; i++) {
		const struct rules_rule *r = &c->rules[i];
		unsigned to = r->target.chain;

		if (r->target.kind != RULES_T_JUMP && r->target.kind != RULES_T_GOTO)
			continue;
		if (w->color[to] == GREY) {
			w->err->line = r->line;
			snprintf(w->err->msg, sizeof(w->err->msg),
				 "loop: chain %s jumps back to %s", c->name,
				 w->t->chains[to].name);
			snprintf(w->err->token, sizeof(w->err->token), "%s",
				 w->t->chains[to].name);
			return -ELOOP;
		}
		ret = walk_chain(w, to, hook, level + 1);
		if (ret && !w->err->line)
			w->err->line = r->line;
	}
	w->color[idx] = WHITE;
	if (!ret)
		w->best[idx] = (unsigned char)level;
	return ret;
}

static int walk_table(struct rules_table *t, struct rules_error *err)
{
	struct walk w = { .t = t, .err = err };
	int ret = 0;

	if (!t->nchains)
		return 0;
	w.color = calloc(t->nchains, 1);
	w.best = malloc(t->nchains);
	if (!w.color || !w.best) {
		free(w.color);
		free(w.best);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->nchains; i++)
		t->chains[i].hook_mask = 0;
	for (unsigned h = 0; h < HOOK_MAX && !ret; h++) {
		memset(w.best, 0xff, t->nchains);
		if (t->builtin[h] >= 0)
			ret = walk_chain(&w, (unsigned)t->builtin[h], h, 0);
	}
	free(w.color);
	free(w.best);
	return ret;
}

struct inst_ref {
	struct ext_instance *inst;
	const struct rules_rule *rule;
	const struct rules_chain *chain;
	unsigned table;
};

/* Calls fn on each extension instance in file order; stops when fn returns non-zero. */
static int for_each_inst(struct rules_ruleset *rs, int (*fn)(struct inst_ref *, void *),
			 void *arg)
{
	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned c = 0; c < rs->tables[t].nchains; c++) {
			struct rules_chain *ch = &rs->tables[t].chains[c];

			for (unsigned r = 0; r < ch->nrules; r++) {
				struct rules_rule *ru = &ch->rules[r];
				unsigned n = ru->nmatches + (ru->target.kind == RULES_T_EXT);

				for (unsigned k = 0; k < n; k++) {
					struct inst_ref ref = {
						.inst = k < ru->nmatches ? &ru->matches[k]
									 : &ru->target.ext,
						.rule = ru,
						.chain = ch,
						.table = t,
					};
					int ret = fn(&ref, arg);

					if (ret)
						return ret;
				}
			}
		}
	return 0;
}

struct check_state {
	struct rules_ruleset *rs;
	struct rules_error *err;
	unsigned done;  /* instances checked successfully so far */
	unsigned limit; /* destroy pass: how many to destroy */
};

static int check_one(struct inst_ref *ref, void *arg)
{
	struct check_state *st = arg;
	const struct ext_instance *inst = ref->inst;
	uint32_t hooks = inst->match ? inst->match->hooks : inst->target->hooks;
	const char *name = inst->match ? inst->match->name : inst->target->name;
	int (*check)(const struct ext_check_ctx *, struct ext_instance *) =
		inst->match ? inst->match->check : inst->target->check;
	uint32_t mask = ref->chain->builtin ? HOOK_BIT((unsigned)ref->chain->hook)
					    : ref->chain->hook_mask;
	char msg[sizeof(st->err->msg)] = "";
	struct ext_check_ctx ctx = {
		.family = st->rs->family,
		.table = ref->table,
		.hook_mask = mask,
		.proto = ref->rule->ip.proto,
		.proto_inverted = ref->rule->ip.inv & RULES_INV_PROTO,
		.err = msg,
		.errlen = sizeof(msg),
	};

	if (hooks && (mask & ~hooks)) {
		unsigned h = (unsigned)__builtin_ctz(mask & ~hooks);

		snprintf(st->err->msg, sizeof(st->err->msg), "%s may not be used from %s (chain %s)",
			 name, rules_hook_name(h), ref->chain->name);
		goto fail;
	}
	if (check && check(&ctx, ref->inst)) {
		snprintf(st->err->msg, sizeof(st->err->msg), "%s: %.200s", name,
			 msg[0] ? msg : "invalid options");
		goto fail;
	}
	st->done++;
	return 0;
fail:
	st->err->line = ref->rule->line;
	snprintf(st->err->token, sizeof(st->err->token), "%s", name);
	return -EINVAL;
}

static int destroy_one(struct inst_ref *ref, void *arg)
{
	struct check_state *st = arg;
	struct ext_instance *inst = ref->inst;

	if (st->limit == 0)
		return 1;
	st->limit--;
	if (inst->match && inst->match->destroy)
		inst->match->destroy(inst);
	else if (inst->target && inst->target->destroy)
		inst->target->destroy(inst);
	return 0;
}

/*
 * ext_match.chain_prepare: per chain and per match that has it, the chain's instances of that
 * match in rule order. Runs after every check() succeeded; nothing here can fail the load.
 */
static int prepare_chain(struct rules_chain *ch, const struct ext_match *m,
			 struct ext_instance ***insts, struct ext_chain_place **where, size_t *cap)
{
	unsigned n = 0;

	for (unsigned r = 0; r < ch->nrules; r++)
		for (unsigned k = 0; k < ch->rules[r].nmatches; k++) {
			if (ch->rules[r].matches[k].match != m)
				continue;
			if (n == *cap) {
				size_t nc = *cap ? 2 * *cap : 16;
				void *q = realloc(*insts, nc * sizeof(**insts));

				if (!q)
					return -ENOMEM;
				*insts = q;
				q = realloc(*where, nc * sizeof(**where));
				if (!q)
					return -ENOMEM;
				*where = q;
				*cap = nc;
			}
			(*where)[n] = (struct ext_chain_place){.rule = r, .match = k};
			(*insts)[n++] = &ch->rules[r].matches[k];
		}
	if (n >= 2)
		m->chain_prepare(*insts, *where, n);
	return 0;
}

void rules_prepare_chains(struct rules_ruleset *rs)
{
	struct ext_instance **insts = NULL;
	struct ext_chain_place *where = NULL;
	size_t cap = 0;

	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned c = 0; c < rs->tables[t].nchains; c++) {
			struct rules_chain *ch = &rs->tables[t].chains[c];
			const struct ext_match *done[8];
			unsigned ndone = 0;

			/* each match type that has chain_prepare, once per chain (a handful) */
			for (unsigned r = 0; r < ch->nrules; r++)
				for (unsigned k = 0; k < ch->rules[r].nmatches; k++) {
					const struct ext_match *m = ch->rules[r].matches[k].match;
					unsigned d = 0;

					if (!m || !m->chain_prepare)
						continue;
					while (d < ndone && done[d] != m)
						d++;
					if (d < ndone || ndone == 8)
						continue;
					done[ndone++] = m;
					if (prepare_chain(ch, m, &insts, &where, &cap))
						goto out;
				}
		}
out:
	free(insts);
	free(where);
}

int rules_check_ruleset(struct rules_ruleset *rs, struct rules_error *err)
{
	struct check_state st = { .rs = rs, .err = err };
	int ret;

	for (unsigned t = 0; t < TABLE_MAX; t++) {
		err->line = 0;
		ret = walk_table(&rs->tables[t], err);
		if (ret) {
			if (ret == -ENOMEM)
				snprintf(err->msg, sizeof(err->msg), "out of memory");
			return ret == -ENOMEM ? ret : -EINVAL;
		}
	}
	ret = for_each_inst(rs, check_one, &st);
	if (ret) {
		st.limit = st.done;
		for_each_inst(rs, destroy_one, &st);
	}
	return ret;
}
