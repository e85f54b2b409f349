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

/* Rule checks a deletion of a final rule may make (leaves it is in, times the rules after
 * it) before a rebuild is the better way: about 10 ms. */
#define CLS_DELETE_FINAL_WORK (4ul << 20)

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

typedef int leaf_fn(struct classifier *c, struct cls_leaf *l, const uint32_t *lo,
		    const uint32_t *hi, void *arg);

/* Call fn on every leaf of rule r's group tree whose box r meets (with the leaf's box). */
static int each_leaf(struct classifier *c, const struct cls_rule *r, unsigned node, uint32_t *lo,
		     uint32_t *hi, leaf_fn *fn, void *arg)
{
	const struct cls_node *n = &c->nodes[node];
	unsigned dim = n->dim, kids = cls_node_kids(n), a = n->a;
	uint32_t s, e, save_lo, save_hi;
	int err = 0;

	if (dim == CLS_LEAF)
		return fn(c, &c->leaves[a], lo, hi, arg);
	if (!cls_rule_span(c, r, dim, lo[dim], hi[dim], &s, &e))
		return 0;
	save_lo = lo[dim];
	save_hi = hi[dim];
	for (unsigned j = 0; j < kids && !err; j++) {
		/* child j's box: above threshold j - 1, up to threshold j */
		uint32_t clo = j ? c->nodes[node].thr[j - 1] + 1 : save_lo;
		uint32_t chi = j + 1 < kids ? c->nodes[node].thr[j] : save_hi;

		if (s > chi || e < clo)
			continue;
		lo[dim] = clo;
		hi[dim] = chi;
		err = each_leaf(c, r, a + j, lo, hi, fn, arg);
	}
	lo[dim] = save_lo;
	hi[dim] = save_hi;
	return err;
}

static int for_rule_leaves(struct classifier *c, const struct cls_rule *r, leaf_fn *fn, void *arg)
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

/* Room for `more` entries in a leaf (a leaf in the pool moves out to an array of its own). */
static int leaf_room(struct cls_leaf *l, unsigned more)
{
	if (l->n + more > l->cap || l->cap == 0) {
		unsigned cap = (l->n + more) * 2 + 4;
		uint32_t *p = malloc(cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		move(p, l->pos, l->n * sizeof(*p));
		if (l->cap)
			free(l->pos);
		l->pos = p;
		l->cap = cap;
	}
	return 0;
}

static int leaf_add(struct classifier *c, struct cls_leaf *l, const uint32_t *lo,
		    const uint32_t *hi, void *arg)
{
	uint32_t pos = *(const uint32_t *)arg;
	unsigned i = 0;

	if (leaf_room(l, 1))
		return -ENOMEM;
	while (i < l->n && CLS_POS(l->pos[i]) < pos)
		i++;
	move(&l->pos[i + 1], &l->pos[i], (l->n - i) * sizeof(*l->pos));
	l->pos[i] = pos;
	l->n++;
	return 0;
}

/* Does rule r allow some key of the box? */
static bool rule_meets(const struct classifier *c, const struct cls_rule *r, const uint32_t *lo,
		       const uint32_t *hi)
{
	const struct cls_con *k = &c->cons[r->coff];
	uint32_t s, e;

	if (r->never)
		return false;
	for (unsigned i = 0; i < r->ncon; i++)
		if (!cls_rule_span(c, r, k[i].dim, lo[k[i].dim], hi[k[i].dim], &s, &e))
			return false;
	return true;
}

struct removal {
	uint32_t pos;
	unsigned group;
};

/*
 * Take rule rm->pos out of the leaf. Where it covered the leaf's box it may have hidden the
 * rules after it here (a final rule), so the leaf's tail is made again: every later rule of
 * the group that meets the box, up to a final one that covers it.
 */
static int leaf_remove(struct classifier *c, struct cls_leaf *l, const uint32_t *lo,
		       const uint32_t *hi, void *arg)
{
	const struct removal *rm = arg;
	unsigned i;

	for (i = 0; i < l->n && CLS_POS(l->pos[i]) != rm->pos; i++)
		;
	if (i == l->n)
		return 0;
	if (!(l->pos[i] & CLS_COVERS) || !c->rules[rm->pos].final) {
		move(&l->pos[i], &l->pos[i + 1], (l->n - i - 1) * sizeof(*l->pos));
		l->n--;
		return 0;
	}
	l->n = i;
	for (unsigned j = rm->pos + 1; j < c->nrules; j++) {
		const struct cls_rule *r = &c->rules[j];
		bool covers;

		if ((r->group & c->group_mask) != rm->group || !rule_meets(c, r, lo, hi))
			continue;
		if (leaf_room(l, 1))
			return -ENOMEM;
		covers = cls_rule_covers(c, r, lo, hi);
		l->pos[l->n++] = j | (covers ? CLS_COVERS : 0);
		if (covers && r->final)
			break;
	}
	return 0;
}

static int leaf_count(struct classifier *c, struct cls_leaf *l, const uint32_t *lo,
		      const uint32_t *hi, void *arg)
{
	*(unsigned long *)arg += 1;
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
		c->nodes[c->nnodes] = cls_leaf_node(c->nleaves++);
		c->root[r.group & c->group_mask] = (int)c->nnodes++;
		cls_index_roots(c);
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
	struct removal rm = {pos, c->rules[pos < c->nrules ? pos : 0].group & c->group_mask};
	int err;

	if (pos >= c->nrules)
		return -EINVAL;
	if (c->rules[pos].final) {
		/* the leaves it may hide rules in get their tails made again: bounded work */
		unsigned long leaves = 0;

		for_rule_leaves(c, &c->rules[pos], leaf_count, &leaves);
		if (leaves * (c->nrules - pos) > CLS_DELETE_FINAL_WORK)
			return -EAGAIN;
	}
	err = for_rule_leaves(c, &c->rules[pos], leaf_remove, &rm);
	if (err)
		return err; /* out of memory: the caller drops this copy */
	move(&c->rules[pos], &c->rules[pos + 1], (c->nrules - pos - 1) * sizeof(*c->rules));
	c->nrules--;
	renumber(c, pos + 1, -1);
	return 0;
}

/* Does the built rule r have exactly the builder rule br's constraints and finality? */
static bool same_rule(const struct classifier *c, const struct cls_rule *r,
		      const struct cls_brule *br)
{
	const struct cls_con *k = &c->cons[r->coff];

	if (r->ncon != br->ncon || r->final != br->final)
		return false;
	/* the built rule keeps its constraints in its own order (cls_store_rule): match by
	 * dimension (one constraint per dimension) */
	for (unsigned i = 0; i < br->ncon; i++) {
		const struct cls_bcon *q = &br->con[i];
		unsigned j = 0;

		while (j < r->ncon && k[j].dim != q->dim)
			j++;
		if (j == r->ncon || k[j].nint != q->n)
			return false;
		if (q->n == 1 && (k[j].lo != q->iv[0].lo || k[j].hi != q->iv[0].hi))
			return false;
		if (q->n > 1 && memcmp(&c->ivs[k[j].ivoff], q->iv, q->n * sizeof(*q->iv)))
			return false;
	}
	return true;
}

int cls_update(const struct classifier *old, const struct cls_builder *b, struct classifier **out,
	       unsigned *changed)
{
	unsigned on = old->nrules, nn = b->nrules, p = 0, s = 0, ndel, nins;
	struct classifier *d;
	int err = 0;

	*out = NULL;
	while (p < on && p < nn && same_rule(old, &old->rules[p], &b->rules[p]))
		p++;
	while (s < on - p && s < nn - p &&
	       same_rule(old, &old->rules[on - 1 - s], &b->rules[nn - 1 - s]))
		s++;
	ndel = on - p - s;
	nins = nn - p - s;
	if (changed)
		*changed = ndel + nins;
	/* leaves only grow with inserts: past a few per hundred rules a rebuild is tidier */
	if (ndel > CLS_UPDATE_MAX || nins > CLS_UPDATE_MAX ||
	    old->updates + ndel + nins > CLS_UPDATE_MAX + on / 32)
		return -EAGAIN;
	if (!(d = cls_clone(old)))
		return -ENOMEM;
	for (unsigned k = 0; k < ndel && !err; k++)
		err = cls_delete(d, p);
	for (unsigned k = 0; k < nins && !err; k++)
		err = cls_insert(d, p + k, b, p + k);
	if (err) {
		cls_free(d);
		return err;
	}
	d->updates += ndel + nins;
	*out = d;
	return 0;
}
