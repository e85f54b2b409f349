// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ruleset in memory: tables, chains and rules, their lifetime and the edits the restore
 * commands make (-A -I -D -N -X -F ...).
 *
 * Within a table, chains[] holds the built-in chains first, in hook order, then user chains
 * in the order they were created. Jumps name chains by index, so deleting a user chain
 * renumbers the jumps above it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/plain.h"
#include "rules/rules_int.h"

void rules_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void rules_error_print(const struct rules_error *e, FILE *f)
{
	fprintf(f, "%s:%u: %s", e->file, e->line, e->msg);
	if (e->token[0])
		fprintf(f, " (near '%s')", e->token);
	fputc('\n', f);
}

void rules_rule_free(struct rules_rule *r, bool checked)
{
	for (unsigned i = 0; i < r->nmatches; i++)
		rules_ext_free(&r->matches[i], checked);
	free(r->matches);
	r->matches = NULL;
	r->nmatches = 0;
	if (r->target.kind == RULES_T_EXT)
		rules_ext_free(&r->target.ext, checked);
}

static void chain_free(struct rules_chain *c, bool checked)
{
	for (unsigned i = 0; i < c->nrules; i++)
		rules_rule_free(&c->rules[i], checked);
	free(c->rules);
	free(c->ctr);
	rules_plain_free(&c->plain);
	c->rules = NULL;
	c->ctr = NULL;
	c->nrules = c->cap = 0;
}

void rules_table_free(struct rules_table *t, bool checked)
{
	for (unsigned i = 0; i < t->nchains; i++)
		chain_free(&t->chains[i], checked);
	free(t->chains);
	memset(t, 0, sizeof(*t));
	for (unsigned h = 0; h < HOOK_MAX; h++)
		t->builtin[h] = -1;
}

static int chain_append(struct rules_table *t, const char *name, int hook, unsigned line)
{
	struct rules_chain *nc = realloc(t->chains, (t->nchains + 1) * sizeof(*nc));
	struct rules_chain *c;

	if (!nc)
		return -ENOMEM;
	t->chains = nc;
	c = &t->chains[t->nchains];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->builtin = hook >= 0;
	c->hook = hook;
	c->policy = EXT_ACCEPT;
	c->line = line;
	return (int)t->nchains++;
}

int rules_table_reset(struct rules_table *t, unsigned table, bool checked)
{
	uint32_t hooks = rules_table_hooks(table);

	rules_table_free(t, checked);
	t->present = true;
	for (unsigned h = 0; h < HOOK_MAX; h++) {
		int idx;

		if (!(hooks & HOOK_BIT(h)))
			continue;
		idx = chain_append(t, rules_hook_name(h), (int)h, 0);
		if (idx < 0)
			return idx;
		t->builtin[h] = idx;
	}
	return 0;
}

int rules_chain_add(struct rules_table *t, const char *name, unsigned line)
{
	return chain_append(t, name, -1, line);
}

int rules_chain_find(const struct rules_table *t, const char *name)
{
	for (unsigned i = 0; i < t->nchains; i++)
		if (!strcmp(t->chains[i].name, name))
			return (int)i;
	return -1;
}

int rules_chain_insert(struct rules_chain *c, unsigned pos, struct rules_rule *r,
		       const struct rules_counter *ctr)
{
	static const struct rules_counter zero;

	if (c->nrules == c->cap) {
		unsigned ncap = c->cap ? c->cap * 2 : 8;
		struct rules_rule *nr = realloc(c->rules, ncap * sizeof(*nr));
		struct rules_counter *nc;

		if (!nr)
			return -ENOMEM;
		c->rules = nr; /* cap stays until both have the room */
		nc = realloc(c->ctr, ncap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		c->ctr = nc;
		c->cap = ncap;
	}
	if (pos > c->nrules)
		pos = c->nrules;
	memmove(&c->rules[pos + 1], &c->rules[pos], (c->nrules - pos) * sizeof(*r));
	memmove(&c->ctr[pos + 1], &c->ctr[pos], (c->nrules - pos) * sizeof(*c->ctr));
	c->rules[pos] = *r;
	c->ctr[pos] = ctr ? *ctr : zero;
	c->nrules++;
	return 0;
}

void rules_chain_remove(struct rules_table *t, struct rules_chain *c, unsigned pos)
{
	struct rules_rule *r = &c->rules[pos];

	if ((r->target.kind == RULES_T_JUMP || r->target.kind == RULES_T_GOTO) &&
	    r->target.chain < t->nchains)
		t->chains[r->target.chain].refs--;
	rules_rule_free(r, false);
	memmove(r, r + 1, (c->nrules - pos - 1) * sizeof(*r));
	memmove(&c->ctr[pos], &c->ctr[pos + 1], (c->nrules - pos - 1) * sizeof(*c->ctr));
	c->nrules--;
}

void rules_chain_delete(struct rules_table *t, unsigned idx)
{
	struct rules_chain *c = &t->chains[idx];

	while (c->nrules)
		rules_chain_remove(t, c, c->nrules - 1);
	chain_free(c, false);
	memmove(c, c + 1, (t->nchains - idx - 1) * sizeof(*c));
	t->nchains--;
	for (unsigned i = 0; i < t->nchains; i++)
		for (unsigned j = 0; j < t->chains[i].nrules; j++) {
			struct rules_target *tg = &t->chains[i].rules[j].target;

			if ((tg->kind == RULES_T_JUMP || tg->kind == RULES_T_GOTO) &&
			    tg->chain > idx)
				tg->chain--;
		}
}

struct rules_ruleset *rules_ruleset_alloc(int family)
{
	struct rules_ruleset *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->family = family;
	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned h = 0; h < HOOK_MAX; h++)
			rs->tables[t].builtin[h] = -1;
	return rs;
}

/* Every table present with its built-in chains: what a box starts with. */
struct rules_ruleset *rules_ruleset_new(int family)
{
	struct rules_ruleset *rs = rules_ruleset_alloc(family);

	for (unsigned t = 0; rs && t < TABLE_MAX; t++)
		if (rules_table_reset(&rs->tables[t], t, false)) {
			rules_ruleset_free(rs);
			return NULL;
		}
	return rs;
}

void rules_ruleset_free(struct rules_ruleset *rs)
{
	if (!rs)
		return;
	if (rs->compiled && rs->compiled_free)
		rs->compiled_free(rs->compiled);
	for (unsigned t = 0; t < TABLE_MAX; t++)
		rules_table_free(&rs->tables[t], true);
	free(rs);
}

void rules_chain_zero_counters(struct rules_chain *c)
{
	c->pkts = c->bytes = 0;
	if (c->nrules)
		memset(c->ctr, 0, c->nrules * sizeof(*c->ctr));
}

void rules_zero_counters(struct rules_ruleset *rs)
{
	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned i = 0; i < rs->tables[t].nchains; i++)
			rules_chain_zero_counters(&rs->tables[t].chains[i]);
}
