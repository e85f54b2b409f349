// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One rule in or out of a built classifier without a rebuild.
 *
 * Positions are rule numbers, so inserting at pos moves every later rule up by one: one pass
 * over all leaf entries renumbers them (a few milliseconds for a 10k-rule chain), then the new
 * rule is added to every leaf of its group's tree whose box it meets. Leaves only grow; a
 * chain that takes many inserts is better rebuilt, which the caller decides (cls_bytes).
 * Deleting walks the same leaves to take the rule out, then renumbers down.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify_int.h"

/* memmove that takes n == 0 with NULL pointers (an empty table or leaf has none). */
static void move(void *dst, const void *src, size_t n)
{
	if (n)
		memmove(dst, src, n);
}

struct classifier *cls_clone(const struct classifier *c)
{
	struct classifier *d = calloc(1, sizeof(*d));
	size_t pool = 0;

	if (!d)
		return NULL;
	*d = *c;
	d->rcap = c->nrules;
	d->ccap = c->ncons;
	d->icap = c->nivs;
	d->rules = malloc((c->nrules ? c->nrules : 1) * sizeof(*d->rules));
	d->cons = malloc((c->ncons ? c->ncons : 1) * sizeof(*d->cons));
	d->ivs = malloc((c->nivs ? c->nivs : 1) * sizeof(*d->ivs));
	d->nodes = malloc((c->nnodes ? c->nnodes : 1) * sizeof(*d->nodes));
	d->leaves = calloc(c->nleaves ? c->nleaves : 1, sizeof(*d->leaves));
	for (unsigned i = 0; i < c->nleaves; i++)
		pool += c->leaves[i].n;
	d->pool = malloc((pool ? pool : 1) * sizeof(*d->pool));
	if (!d->rules || !d->cons || !d->ivs || !d->nodes || !d->leaves || !d->pool) {
		d->nleaves = 0;
		cls_free(d);
		return NULL;
	}
	move(d->rules, c->rules, c->nrules * sizeof(*c->rules));
	move(d->cons, c->cons, c->ncons * sizeof(*c->cons));
	move(d->ivs, c->ivs, c->nivs * sizeof(*c->ivs));
	move(d->nodes, c->nodes, c->nnodes * sizeof(*c->nodes));
	pool = 0;
	for (unsigned i = 0; i < c->nleaves; i++) {
		d->leaves[i] = (struct cls_leaf){.pos = d->pool + pool, .n = c->leaves[i].n};
		move(d->leaves[i].pos, c->leaves[i].pos, c->leaves[i].n * sizeof(uint32_t));
		pool += c->leaves[i].n;
	}
	return d;
}

/* Call fn on every leaf of rule r's group tree whose box r meets. */
static int each_leaf(struct classifier *c, const struct cls_rule *r, unsigned node, uint32_t *lo,
		     uint32_t *hi, int (*fn)(struct cls_leaf *, void *), void *arg)
{
	const struct cls_node *n = &c->nodes[node];
	uint32_t s, e, save;
	int err = 0;

	if (n->dim == CLS_LEAF)
		return fn(&c->leaves[n->a], arg);
	if (!cls_rule_span(c, r, n->dim, lo[n->dim], hi[n->dim], &s, &e))
		return 0;
	if (s <= n->thr) {
		save = hi[n->dim];
		hi[n->dim] = n->thr;
		err = each_leaf(c, r, n->a, lo, hi, fn, arg);
		hi[n->dim] = save;
	}
	if (!err && e > n->thr) {
		n = &c->nodes[node];
		save = lo[n->dim];
		lo[n->dim] = n->thr + 1;
		err = each_leaf(c, r, n->b, lo, hi, fn, arg);
		lo[n->dim] = save;
	}
	return err;
}

static int for_rule_leaves(struct classifier *c, const struct cls_rule *r,
			   int (*fn)(struct cls_leaf *, void *), void *arg)
{
	uint32_t lo[CLS_NDIMS], hi[CLS_NDIMS];

	unsigned g = r->group & c->group_mask;

	if (r->never || c->root[g] < 0)
		return 0;
	for (unsigned d = 0; d < CLS_NDIMS; d++)
		lo[d] = 0, hi[d] = UINT32_MAX;
	return each_leaf(c, r, (unsigned)c->root[g], lo, hi, fn, arg);
}

static void renumber(struct classifier *c, unsigned pos, int delta)
{
	for (unsigned i = 0; i < c->nleaves; i++) {
		struct cls_leaf *l = &c->leaves[i];

		for (unsigned k = 0; k < l->n; k++)
			if (CLS_POS(l->pos[k]) >= pos)
				l->pos[k] = (uint32_t)((int64_t)l->pos[k] + delta);
	}
}

static int leaf_add(struct cls_leaf *l, void *arg)
{
	uint32_t pos = *(const uint32_t *)arg;
	unsigned i = 0;

	if (l->n == l->cap || l->cap == 0) {
		unsigned cap = l->n * 2 + 4;
		uint32_t *p = malloc(cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		move(p, l->pos, l->n * sizeof(*p));
		if (l->cap)
			free(l->pos);
		l->pos = p;
		l->cap = cap;
	}
	while (i < l->n && CLS_POS(l->pos[i]) < pos)
		i++;
	move(&l->pos[i + 1], &l->pos[i], (l->n - i) * sizeof(*l->pos));
	l->pos[i] = pos;
	l->n++;
	return 0;
}

static int leaf_remove(struct cls_leaf *l, void *arg)
{
	uint32_t pos = *(const uint32_t *)arg;

	for (unsigned i = 0; i < l->n; i++)
		if (CLS_POS(l->pos[i]) == pos) {
			move(&l->pos[i], &l->pos[i + 1], (l->n - i - 1) * sizeof(*l->pos));
			l->n--;
			break;
		}
	return 0;
}

int cls_insert(struct classifier *c, unsigned pos, const struct cls_builder *b, unsigned brule)
{
	struct cls_rule r;
	uint32_t p = pos;
	int err;

	if (pos > c->nrules || brule >= b->nrules)
		return -EINVAL;
	if (c->bytes > c->max_bytes)
		return -E2BIG;
	if (c->nrules + 1 > c->rcap) {
		unsigned cap = c->rcap * 2 + 16;
		struct cls_rule *nr = realloc(c->rules, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		c->rules = nr;
		c->rcap = cap;
	}
	err = cls_store_rule(c, &r, &b->rules[brule]);
	if (err)
		return err;
	/* A group that had no tree gets a one-leaf tree; grouping stays as built. */
	if (c->root[r.group & c->group_mask] < 0 && !r.never) {
		struct cls_node *nn = realloc(c->nodes, (c->nnodes + 1) * sizeof(*nn));
		struct cls_leaf *nl = realloc(c->leaves, (c->nleaves + 1) * sizeof(*nl));

		if (nn)
			c->nodes = nn;
		if (nl)
			c->leaves = nl;
		if (!nn || !nl)
			return -ENOMEM;
		c->leaves[c->nleaves] = (struct cls_leaf){0};
		c->nodes[c->nnodes] = (struct cls_node){.dim = CLS_LEAF, .a = c->nleaves++};
		c->root[r.group & c->group_mask] = (int)c->nnodes++;
	}
	renumber(c, pos, +1);
	move(&c->rules[pos + 1], &c->rules[pos], (c->nrules - pos) * sizeof(*c->rules));
	c->rules[pos] = r;
	c->nrules++;
	err = for_rule_leaves(c, &c->rules[pos], leaf_add, &p);
	c->bytes += sizeof(r) + r.ncon * sizeof(struct cls_con);
	return err;
}

int cls_delete(struct classifier *c, unsigned pos)
{
	uint32_t p = pos;

	if (pos >= c->nrules)
		return -EINVAL;
	if (c->rules[pos].final)
		return -EAGAIN;
	for_rule_leaves(c, &c->rules[pos], leaf_remove, &p);
	move(&c->rules[pos], &c->rules[pos + 1], (c->nrules - pos - 1) * sizeof(*c->rules));
	c->nrules--;
	renumber(c, pos + 1, -1);
	return 0;
}
