// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Build and lookup of the decision trees (one per group).
 *
 * A node holds the rules that allow some value inside its box (one interval per dimension).
 * It is split at one threshold of one dimension: the left child's box keeps the values
 * <= thr, the right one the rest; a rule goes to each side where it still allows a value, so
 * wide rules are copied to both. The split chosen is the one whose larger side holds the
 * fewest rules (ties: fewest copies), among thresholds at the rules' own interval ends.
 * A node stops being split when it holds at most leaf_rules rules, or when no split makes
 * either side smaller (the rules overlap everywhere in the box): its rules are then scanned
 * in order, as in the linear scan, but only those.
 *
 *   lookup:  walk each group's tree to one leaf (key[dim] <= thr ? left : right), scan the
 *            leaf's positions >= from, below the best found so far, checking each rule's
 *            constraints; the smallest position wins.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify_int.h"

#define CLS_MAX_DEPTH 96
#define CLS_SAMPLES   48 /* thresholds tried per dimension and node */

unsigned cls_rule_group(const struct cls_bcon *con, unsigned ncon)
{
	unsigned g = 0;

	for (unsigned i = 0; i < ncon; i++) {
		const struct cls_bcon *k = &con[i];

		if (!k->n || (k->dim != CLS_SRC0 && k->dim != CLS_DST0))
			continue;
		if (k->iv[k->n - 1].hi - k->iv[0].lo < 0x10000u)
			g |= k->dim == CLS_SRC0 ? 1u : 2u;
	}
	return g;
}

static int grow(void **p, unsigned *cap, unsigned need, size_t size)
{
	unsigned n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, (size_t)n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Order of a rule's constraints in a check: narrow ones first, where a key that fails the rule
 * most likely fails (a port, a state, a /32), the protocol and fragment bit last (most
 * packets share them). */
static uint64_t con_rank(const struct cls_bcon *k)
{
	uint64_t width = k->n ? (uint64_t)(k->iv[k->n - 1].hi - k->iv[0].lo) : 0;

	return (uint64_t)(k->dim == CLS_PROTO || k->dim == CLS_FRAG) << 40 | width << 5 | k->dim;
}

int cls_store_rule(struct classifier *c, struct cls_rule *out, const struct cls_brule *r)
{
	unsigned niv = 0, order[CLS_NDIMS];

	if (r->ncon > CLS_NDIMS)
		return -EINVAL;
	for (unsigned i = 0; i < r->ncon; i++)
		if (r->con[i].n > 1)
			niv += r->con[i].n + 1; /* + the bitmap of a small set (con_holds) */
	if (grow((void **)&c->cons, &c->ccap, c->ncons + r->ncon, sizeof(*c->cons)) ||
	    grow((void **)&c->ivs, &c->icap, c->nivs + niv, sizeof(*c->ivs)))
		return -ENOMEM;
	*out = (struct cls_rule){.coff = c->ncons,
				 .ncon = (uint16_t)r->ncon,
				 .group = (uint8_t)cls_rule_group(r->con, r->ncon),
				 .final = r->final,
				 .hi0 = UINT32_MAX};
	/* insertion sort by rank (the builder keeps one constraint per dimension) */
	for (unsigned i = 0; i < r->ncon; i++) {
		unsigned j = i;

		for (; j > 0 && con_rank(&r->con[order[j - 1]]) > con_rank(&r->con[i]); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (unsigned i = 0; i < r->ncon; i++) {
		const struct cls_bcon *k = &r->con[order[i]];
		struct cls_con *d = &c->cons[c->ncons++];

		*d = (struct cls_con){.dim = k->dim, .nint = (uint16_t)k->n};
		if (k->n == 0) {
			out->never = 1;
		} else if (k->n == 1) {
			d->lo = k->iv[0].lo;
			d->hi = k->iv[0].hi;
		} else {
			d->ivoff = c->nivs;
			d->lo = k->iv[0].lo;
			d->hi = k->iv[k->n - 1].hi;
			memcpy(&c->ivs[c->nivs], k->iv, k->n * sizeof(*k->iv));
			c->nivs += k->n;
			if (d->hi < 64) { /* values 0..63: one more entry, the set as bits */
				uint64_t bits = 0;

				for (unsigned a = 0; a < k->n; a++)
					for (uint32_t v = k->iv[a].lo; v <= k->iv[a].hi; v++)
						bits |= 1ull << v;
				c->ivs[c->nivs++] =
				    (struct cls_interval){(uint32_t)bits, (uint32_t)(bits >> 32)};
			}
		}
		if (i == 0) { /* the narrowest: its bounds go into the rule (leaf_rule_holds) */
			out->dim0 = (uint8_t)d->dim;
			out->lo0 = d->lo;
			out->hi0 = d->hi;
			out->skip0 = d->nint == 1;
			if (d->nint > 1 && d->hi < 32) {
				for (unsigned a = 0; a < k->n; a++)
					for (uint32_t v = k->iv[a].lo; v <= k->iv[a].hi; v++)
						out->mask0 |= 1u << v;
				out->skip0 = 1;
			}
		}
	}
	return 0;
}

bool cls_rule_covers(const struct classifier *c, const struct cls_rule *r, const uint32_t *lo,
		     const uint32_t *hi)
{
	const struct cls_con *k = &c->cons[r->coff];

	if (r->never)
		return false;
	for (unsigned i = 0; i < r->ncon; i++, k++) {
		const struct cls_interval *iv;
		unsigned a;

		if (k->nint <= 1) {
			if (k->nint == 0 || k->lo > lo[k->dim] || k->hi < hi[k->dim])
				return false;
			continue;
		}
		iv = &c->ivs[k->ivoff];
		for (a = 0; a < k->nint && iv[a].hi < lo[k->dim]; a++)
			;
		if (a == k->nint || iv[a].lo > lo[k->dim] || iv[a].hi < hi[k->dim])
			return false;
	}
	return true;
}

bool cls_rule_span(const struct classifier *c, const struct cls_rule *r, unsigned dim, uint32_t lo,
		   uint32_t hi, uint32_t *s, uint32_t *e)
{
	const struct cls_con *k = &c->cons[r->coff];

	for (unsigned i = 0; i < r->ncon; i++, k++) {
		const struct cls_interval *iv;
		unsigned n, a, z;

		if (k->dim != dim)
			continue;
		if (k->nint <= 1) {
			if (k->nint == 0 || k->hi < lo || k->lo > hi)
				return false;
			*s = k->lo > lo ? k->lo : lo;
			*e = k->hi < hi ? k->hi : hi;
			return true;
		}
		iv = &c->ivs[k->ivoff];
		n = k->nint;
		for (a = 0; a < n && iv[a].hi < lo; a++)
			;
		for (z = n; z > 0 && iv[z - 1].lo > hi; z--)
			;
		if (a >= z)
			return false;
		*s = iv[a].lo > lo ? iv[a].lo : lo;
		*e = iv[z - 1].hi < hi ? iv[z - 1].hi : hi;
		return true;
	}
	*s = lo;
	*e = hi;
	return true;
}

/* ---- lookup ------------------------------------------------------------------------------ */

static inline bool con_holds(const struct classifier *c, const struct cls_con *k, uint32_t v)
{
	const struct cls_interval *iv;
	unsigned a, z;

	if (v < k->lo || v > k->hi)
		return false;
	if (k->nint == 1)
		return true;
	iv = &c->ivs[k->ivoff];
	if (k->hi < 64) /* a small set (a state mask): its bits follow the intervals */
		return ((uint64_t)iv[k->nint].hi << 32 | iv[k->nint].lo) >> v & 1;
	a = 0;
	z = k->nint;
	while (a < z) { /* first interval with hi >= v */
		unsigned m = (a + z) / 2;

		if (iv[m].hi < v)
			a = m + 1;
		else
			z = m;
	}
	return a < k->nint && iv[a].lo <= v;
}

/* Do a rule's constraints hold, for a rule in a leaf (never a rule that allows nothing: the
 * build and cls_insert leave those out of every tree)? */
static inline __attribute__((always_inline)) bool leaf_rule_holds(const struct classifier *c,
								  unsigned pos, const uint32_t *key)
{
	const struct cls_rule *r = &c->rules[pos];
	const uint32_t v = key[r->dim0];
	const struct cls_con *k, *end;

	if (v < r->lo0 || v > r->hi0)
		return false;
	if (r->mask0 && !(r->mask0 >> v & 1)) /* v <= hi0 < 32 */
		return false;
	k = &c->cons[r->coff];
	end = k + r->ncon;
	for (k += r->skip0; k < end; k++)
		if (!con_holds(c, k, key[k->dim]))
			return false;
	return true;
}

static inline bool rule_holds(const struct classifier *c, unsigned pos, const uint32_t *key)
{
	return !c->rules[pos].never && leaf_rule_holds(c, pos, key);
}

/* The child of inner node n that holds value v: its first child plus the thresholds below v
 * (a compare and an add each, no branch; unused slots are never below). */
static inline __attribute__((always_inline)) unsigned node_next(const struct cls_node *n,
								uint32_t v)
{
	unsigned i = n->a;

	for (unsigned k = 0; k < CLS_NODE_THR; k++)
		i += v > n->thr[k];
	return i;
}

static inline __attribute__((always_inline)) const struct cls_leaf *
walk(const struct classifier *c, unsigned node, const uint32_t *key)
{
	const struct cls_node *n = &c->nodes[node];

	while (n->dim != CLS_LEAF)
		n = &c->nodes[node_next(n, key[n->dim])];
	return &c->leaves[n->a];
}

/*
 * A final rule that covers a leaf's box hides the rules after it there (the build leaves
 * them out). A search from a position past it cannot trust the leaf: the engine resumes a
 * chain after a target changed the packet (MARK), and the final rule, now holding for the
 * new key, is behind it. Is entry e, skipped as below `from`, such a rule?
 */
static inline bool hides(const struct classifier *c, uint32_t e)
{
	return (e & CLS_COVERS) && c->rules[CLS_POS(e)].final;
}

/* The first rule at position >= from whose constraints the key meets, by every rule. */
static unsigned scan_from(const struct classifier *c, const uint32_t *key, unsigned from,
			  unsigned best)
{
	for (; from < best; from++)
		if (rule_holds(c, from, key))
			return from;
	return best;
}

static unsigned leaf_first(const struct classifier *c, const struct cls_leaf *l,
			   const uint32_t *key, unsigned from, unsigned best)
{
	unsigned i = 0;

	if (from) {
		unsigned z = l->n;

		while (i < z) {
			unsigned m = (i + z) / 2;

			if (CLS_POS(l->pos[m]) < from)
				i = m + 1;
			else
				z = m;
		}
		for (unsigned k = 0; k < i; k++)
			if (hides(c, l->pos[k]))
				return scan_from(c, key, from, best);
	}
	for (; i < l->n && CLS_POS(l->pos[i]) < best; i++)
		if ((l->pos[i] & CLS_COVERS) || leaf_rule_holds(c, CLS_POS(l->pos[i]), key))
			return CLS_POS(l->pos[i]);
	return best;
}

unsigned cls_first(const struct classifier *c, const uint32_t key[CLS_NDIMS], unsigned from)
{
	unsigned best = c->nrules;

	for (unsigned g = 0; g < c->nroots; g++)
		best = leaf_first(c, walk(c, c->roots[g], key), key, from, best);
	return best;
}

void cls_cursor_init(const struct classifier *c, const uint32_t key[CLS_NDIMS],
		     struct cls_cursor *cur)
{
	unsigned n = 0;

	cur->c = c;
	cur->key = key;
	for (unsigned g = 0; g < c->nroots; g++) {
		const struct cls_leaf *l = walk(c, c->roots[g], key);

		cur->pos[n] = l->pos;
		cur->end[n] = l->pos + l->n;
		n += l->n != 0;
	}
	cur->n = n;
}

/* The first entry of p..e below *best whose rule's constraints hold (it becomes *best), or
 * where the scan stopped: an entry at or past *best, or e. */
static inline __attribute__((always_inline)) const uint32_t *
leaf_scan(const struct classifier *c, const uint32_t *p, const uint32_t *e, const uint32_t *key,
	  unsigned *best)
{
	for (; p < e; p++) {
		uint32_t x = *p;

		if (CLS_POS(x) >= *best)
			break;
		if ((x & CLS_COVERS) || leaf_rule_holds(c, CLS_POS(x), key)) {
			*best = CLS_POS(x);
			break;
		}
	}
	return p;
}

/* cls_cursor_next, made twice: with skip false (from 0, a chain's start) nothing lies below
 * from and the loop that passes over such entries goes. */
static inline __attribute__((always_inline)) unsigned cursor_next(struct cls_cursor *cur,
								  unsigned from, const bool skip)
{
	const struct classifier *c = cur->c;
	unsigned best = c->nrules;

	for (unsigned g = 0; g < cur->n; g++) {
		const uint32_t *p = cur->pos[g], *e = cur->end[g];

		for (; skip && p < e && CLS_POS(*p) < from; p++)
			if (hides(c, *p)) /* see hides(): this leaf cannot answer */
				return scan_from(c, cur->key, from, c->nrules);
		/* stays on the candidate: a later from >= it moves past */
		cur->pos[g] = leaf_scan(c, p, e, cur->key, &best);
	}
	return best;
}

unsigned cls_cursor_next(struct cls_cursor *cur, unsigned from)
{
	return from ? cursor_next(cur, from, true) : cursor_next(cur, 0, false);
}

unsigned cls_cursor_start(const struct classifier *c, const uint32_t key[CLS_NDIMS],
			  struct cls_cursor *cur, unsigned from)
{
	unsigned n = 0, best = c->nrules;

	if (from) { /* mid-chain (after a target): entries below from are passed over */
		cls_cursor_init(c, key, cur);
		return cursor_next(cur, from, true);
	}
	/* a chain's start: each leaf is scanned as soon as it is found, below the best of the
	 * groups before it (what cls_cursor_next(cur, 0) does after cls_cursor_init) */
	cur->c = c;
	cur->key = key;
	for (unsigned g = 0; g < c->nroots; g++) {
		const struct cls_leaf *l = walk(c, c->roots[g], key);
		const uint32_t *p = l->pos, *e = p + l->n;

		if (!l->n)
			continue;
		cur->pos[n] = leaf_scan(c, p, e, key, &best);
		cur->end[n++] = e;
	}
	cur->n = n;
	return best;
}

void cls_first_burst(const struct classifier *c, const uint32_t (*keys)[CLS_NDIMS], unsigned n,
		     unsigned *out)
{
	enum { STRIDE = 8 };

	/* Group by group over a stride of keys: each tree's upper nodes stay in cache while
	 * the stride's walks run side by side. */
	for (unsigned base = 0; base < n; base += STRIDE) {
		unsigned m = n - base < STRIDE ? n - base : STRIDE;
		const struct cls_leaf *leaf[STRIDE];

		for (unsigned i = 0; i < m; i++)
			out[base + i] = c->nrules;
		for (unsigned g = 0; g < c->nroots; g++) {
			unsigned node[STRIDE], active = m;

			/* level by level across the stride: the loads of different keys' nodes
			 * are independent, so their cache misses overlap */
			for (unsigned i = 0; i < m; i++)
				node[i] = c->roots[g];
			while (active) {
				active = 0;
				for (unsigned i = 0; i < m; i++) {
					const struct cls_node *nd = &c->nodes[node[i]];

					if (nd->dim == CLS_LEAF)
						continue;
					node[i] = node_next(nd, keys[base + i][nd->dim]);
					active++;
				}
			}
			for (unsigned i = 0; i < m; i++)
				leaf[i] = &c->leaves[c->nodes[node[i]].a];
			for (unsigned i = 0; i < m; i++)
				out[base + i] =
				    leaf_first(c, leaf[i], keys[base + i], 0, out[base + i]);
		}
	}
}

unsigned cls_nrules(const struct classifier *c)
{
	return c->nrules;
}

uint32_t cls_dims(const struct classifier *c)
{
	uint32_t d = 0;

	for (unsigned i = 0; i < c->ncons; i++)
		d |= 1u << c->cons[i].dim;
	return d;
}

size_t cls_bytes(const struct classifier *c)
{
	return c->bytes;
}

/* ---- build ------------------------------------------------------------------------------- */

/* A node of the binary tree the build makes (then packs into cls_node): key[dim] <= thr ?
 * bn[a] : bn[b]; dim CLS_LEAF: leaves[a]. */
struct bnode {
	uint32_t thr, dim, a, b;
};

struct build {
	struct classifier *c;
	const struct cls_limits *lim;
	struct cls_build_info *info;
	unsigned leaf_rules;
	unsigned npool, poolcap;
	unsigned nodecap, leafcap;
	struct bnode *bn; /* the binary tree of the group being built */
	unsigned nbn, bncap;
	uint32_t *s, *e; /* scratch: per-rule span starts and ends of one dimension */
};

static size_t build_bytes(const struct build *bd)
{
	const struct classifier *c = bd->c;

	return sizeof(*c) + (size_t)c->nrules * sizeof(*c->rules) +
	       (size_t)c->ncons * sizeof(*c->cons) + (size_t)c->nivs * sizeof(*c->ivs) +
	       (size_t)c->nnodes * sizeof(*c->nodes) + (size_t)bd->nbn * sizeof(*bd->bn) +
	       (size_t)c->nleaves * sizeof(*c->leaves) + (size_t)bd->npool * sizeof(uint32_t);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Number of values in sorted v[0..n) that are <= t. */
static unsigned count_le(const uint32_t *v, unsigned n, uint32_t t)
{
	unsigned a = 0, z = n;

	while (a < z) {
		unsigned m = (a + z) / 2;

		if (v[m] <= t)
			a = m + 1;
		else
			z = m;
	}
	return a;
}

struct split {
	unsigned dim;
	uint32_t thr;
	unsigned big, sum;
};

static void try_threshold(struct split *best, unsigned dim, uint32_t t, const uint32_t *s,
			  const uint32_t *e, unsigned n)
{
	unsigned l = count_le(s, n, t), r = n - count_le(e, n, t);
	unsigned big = l > r ? l : r;

	if (big < best->big || (big == best->big && l + r < best->sum))
		*best = (struct split){dim, t, big, l + r};
}

static void best_split(struct build *bd, const uint32_t *rules, unsigned n, const uint32_t *lo,
		       const uint32_t *hi, struct split *best)
{
	const struct classifier *c = bd->c;

	*best = (struct split){.dim = CLS_NDIMS, .big = n, .sum = 2 * n};
	for (unsigned d = 0; d < CLS_NDIMS; d++) {
		bool varies = false;

		if (lo[d] == hi[d])
			continue;
		for (unsigned i = 0; i < n; i++) {
			if (!cls_rule_span(c, &c->rules[rules[i]], d, lo[d], hi[d], &bd->s[i],
					   &bd->e[i]))
				bd->s[i] = hi[d], bd->e[i] = lo[d]; /* cannot happen: routed */
			varies |= bd->s[i] != lo[d] || bd->e[i] != hi[d];
		}
		if (!varies)
			continue;
		qsort(bd->s, n, sizeof(*bd->s), cmp_u32);
		qsort(bd->e, n, sizeof(*bd->e), cmp_u32);
		/* thresholds at quantiles of the interval ends and of the starts minus one */
		for (unsigned k = 0; k < CLS_SAMPLES; k++) {
			unsigned i = (unsigned)(((uint64_t)n * (2 * k + 1)) / (2 * CLS_SAMPLES));

			if (bd->e[i] < hi[d])
				try_threshold(best, d, bd->e[i], bd->s, bd->e, n);
			if (bd->s[i] > lo[d])
				try_threshold(best, d, bd->s[i] - 1, bd->s, bd->e, n);
		}
	}
}

static int new_node(struct build *bd, unsigned *idx)
{
	if (grow((void **)&bd->bn, &bd->bncap, bd->nbn + 1, sizeof(*bd->bn)))
		return -ENOMEM;
	*idx = bd->nbn++;
	return 0;
}

static int make_leaf(struct build *bd, unsigned node, const uint32_t *rules, unsigned n,
		     const uint32_t *lo, const uint32_t *hi)
{
	struct classifier *c = bd->c;

	if (grow((void **)&c->leaves, &bd->leafcap, c->nleaves + 1, sizeof(*c->leaves)) ||
	    grow((void **)&c->pool, &bd->poolcap, bd->npool + n, sizeof(*c->pool)))
		return -ENOMEM;
	/* pos is fixed up to point into the pool once the pool stops moving */
	c->leaves[c->nleaves] = (struct cls_leaf){.pos = (uint32_t *)(uintptr_t)bd->npool, .n = n};
	for (unsigned i = 0; i < n; i++)
		c->pool[bd->npool + i] =
		    rules[i] | (cls_rule_covers(c, &c->rules[rules[i]], lo, hi) ? CLS_COVERS : 0);
	bd->npool += n;
	bd->bn[node] = (struct bnode){.dim = CLS_LEAF, .a = c->nleaves++};
	bd->info->leaves++;
	bd->info->entries += n;
	if (n > bd->info->max_leaf)
		bd->info->max_leaf = n;
	return 0;
}

static int build_node(struct build *bd, unsigned node, uint32_t *rules, unsigned n, uint32_t *lo,
		      uint32_t *hi, unsigned depth)
{
	struct classifier *c = bd->c;
	uint32_t *left, *right, save;
	unsigned nl = 0, nr = 0, l, r;
	struct split sp;
	int err;

	if (depth > bd->info->max_depth)
		bd->info->max_depth = depth;
	if (build_bytes(bd) > c->max_bytes)
		return -E2BIG;
	/* a final rule that covers the box hides every rule after it here */
	for (unsigned i = 0; i < n; i++)
		if (c->rules[rules[i]].final && cls_rule_covers(c, &c->rules[rules[i]], lo, hi)) {
			n = i + 1;
			break;
		}
	if (n <= bd->leaf_rules || depth >= CLS_MAX_DEPTH)
		return make_leaf(bd, node, rules, n, lo, hi);
	best_split(bd, rules, n, lo, hi, &sp);
	if (sp.dim == CLS_NDIMS || sp.big >= n)
		return make_leaf(bd, node, rules, n, lo, hi);
	left = malloc((size_t)n * sizeof(*left));
	right = malloc((size_t)n * sizeof(*right));
	if (!left || !right) {
		free(left);
		free(right);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t s, e;

		if (!cls_rule_span(c, &c->rules[rules[i]], sp.dim, lo[sp.dim], hi[sp.dim], &s, &e))
			continue;
		if (s <= sp.thr)
			left[nl++] = rules[i];
		if (e > sp.thr)
			right[nr++] = rules[i];
	}
	err = new_node(bd, &l); /* the children side by side: r == l + 1 (walk) */
	if (!err)
		err = new_node(bd, &r);
	if (!err) {
		bd->bn[node] = (struct bnode){.dim = sp.dim, .thr = sp.thr, .a = l, .b = r};
		save = hi[sp.dim];
		hi[sp.dim] = sp.thr;
		err = build_node(bd, l, left, nl, lo, hi, depth + 1);
		hi[sp.dim] = save;
	}
	free(left);
	if (!err) {
		save = lo[sp.dim];
		lo[sp.dim] = sp.thr + 1;
		err = build_node(bd, r, right, nr, lo, hi, depth + 1);
		lo[sp.dim] = save;
	}
	free(right);
	return err;
}

void cls_free(struct classifier *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nleaves; i++)
		if (c->leaves[i].cap)
			free(c->leaves[i].pos);
	free(c->rules);
	free(c->cons);
	free(c->ivs);
	free(c->nodes);
	free(c->leaves);
	free(c->pool);
	free(c);
}

/* Grouping tried in order, each within bytes_per_rule * rules (+ 64 KiB), the last within the
 * whole budget (docs/classifier.md has the measurements behind these numbers). */
static const struct {
	unsigned mask, bytes_per_rule;
} cls_modes[] = {{0, 256}, {2, 512}, {3, 0}};

static void reset_trees(struct build *bd)
{
	bd->c->nnodes = 0;
	bd->nbn = 0;
	bd->c->nleaves = 0;
	bd->npool = 0;
	memset(bd->info, 0, sizeof(*bd->info));
}

/*
 * Pack binary node `bin` and its subtree into packed node `out`: a node takes up to
 * CLS_NODE_THR binary splits on its dimension, connected below it, shallowest (then
 * leftmost) first; its children are the subtrees below them, left to right, so that the
 * thresholds come out ascending (a split below another on the same dimension lies inside
 * its parent's side). Same leaves, same boxes, same answers: only fewer steps to them.
 */
static int pack(struct build *bd, unsigned bin, unsigned out)
{
	struct classifier *c = bd->c;
	unsigned kid[CLS_NODE_THR + 1], depth[CLS_NODE_THR + 1], nk = 1, dim = bd->bn[bin].dim,
								 base;
	uint32_t thr[CLS_NODE_THR];
	int err = 0;

	if (dim == CLS_LEAF) {
		c->nodes[out] = cls_leaf_node(bd->bn[bin].a);
		return 0;
	}
	kid[0] = bin;
	depth[0] = 0;
	while (nk <= CLS_NODE_THR) {
		unsigned j = nk;
		const struct bnode *x;

		for (unsigned i = 0; i < nk; i++)
			if (bd->bn[kid[i]].dim == dim && (j == nk || depth[i] < depth[j]))
				j = i;
		if (j == nk)
			break;
		x = &bd->bn[kid[j]];
		for (unsigned i = nk; i > j + 1; i--) {
			kid[i] = kid[i - 1];
			depth[i] = depth[i - 1];
		}
		for (unsigned i = nk - 1; i > j; i--)
			thr[i] = thr[i - 1];
		thr[j] = x->thr;
		kid[j + 1] = x->b;
		kid[j] = x->a;
		depth[j + 1] = ++depth[j];
		nk++;
	}
	if (grow((void **)&c->nodes, &bd->nodecap, c->nnodes + nk, sizeof(*c->nodes)))
		return -ENOMEM;
	base = c->nnodes;
	c->nnodes += nk;
	c->nodes[out] = cls_leaf_node(base);
	c->nodes[out].dim = dim;
	for (unsigned i = 0; i + 1 < nk; i++)
		c->nodes[out].thr[i] = thr[i];
	for (unsigned i = 0; i < nk && !err; i++)
		err = pack(bd, kid[i], base + i);
	return err;
}

static int build_groups(struct build *bd, uint32_t *list)
{
	struct classifier *c = bd->c;
	uint32_t lo[CLS_NDIMS], hi[CLS_NDIMS];

	for (unsigned g = 0; g < CLS_GROUPS; g++) {
		unsigned n = 0, root;
		int err;

		for (unsigned i = 0; i < c->nrules; i++)
			if ((c->rules[i].group & c->group_mask) == g && !c->rules[i].never)
				list[n++] = i;
		c->root[g] = -1;
		if (!n)
			continue;
		for (unsigned d = 0; d < CLS_NDIMS; d++)
			lo[d] = 0, hi[d] = UINT32_MAX;
		bd->nbn = 0;
		err = new_node(bd, &root);
		if (!err)
			err = build_node(bd, root, list, n, lo, hi, 0);
		if (!err &&
		    grow((void **)&c->nodes, &bd->nodecap, c->nnodes + 1, sizeof(*c->nodes)))
			err = -ENOMEM;
		if (err)
			return err;
		c->root[g] = (int)c->nnodes++;
		err = pack(bd, root, (unsigned)c->root[g]);
		bd->nbn = 0;
		if (err)
			return err;
		bd->info->groups++;
	}
	cls_index_roots(c);
	return 0;
}

void cls_index_roots(struct classifier *c)
{
	c->nroots = 0;
	for (unsigned g = 0; g < CLS_GROUPS; g++)
		if (c->root[g] >= 0)
			c->roots[c->nroots++] = (uint32_t)c->root[g];
}

int cls_build(const struct cls_builder *b, const struct cls_limits *lim, struct classifier **out,
	      struct cls_build_info *info)
{
	struct cls_build_info scratch;
	struct build bd = {.lim = lim};
	struct classifier *c;
	uint32_t *list;
	size_t full;
	int err = -ENOMEM;

	*out = NULL;
	if (!info)
		info = &scratch;
	memset(info, 0, sizeof(*info));
	bd.info = info;
	bd.leaf_rules = lim && lim->leaf_rules ? lim->leaf_rules : 1;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	bd.c = c;
	full = lim && lim->max_bytes ? lim->max_bytes : CLS_DEFAULT_MAX_BYTES;
	c->nrules = c->rcap = b->nrules;
	c->rules = calloc(b->nrules ? b->nrules : 1, sizeof(*c->rules));
	list = malloc((b->nrules ? b->nrules : 1) * sizeof(*list));
	bd.s = malloc((b->nrules ? b->nrules : 1) * sizeof(*bd.s));
	bd.e = malloc((b->nrules ? b->nrules : 1) * sizeof(*bd.e));
	if (!c->rules || !list || !bd.s || !bd.e)
		goto out;
	for (unsigned i = 0; i < b->nrules; i++)
		if ((err = cls_store_rule(c, &c->rules[i], &b->rules[i])))
			goto out;
	/* One tree is fastest to search; when it would copy rules too often (many wide rules
	 * across narrow ones), split the rules by destination width, then also by source. */
	for (unsigned m = 0; m < sizeof(cls_modes) / sizeof(cls_modes[0]); m++) {
		bool last = m + 1 == sizeof(cls_modes) / sizeof(cls_modes[0]);
		size_t trial = (size_t)cls_modes[m].bytes_per_rule * b->nrules + (64u << 10);

		c->group_mask = cls_modes[m].mask;
		c->max_bytes = full;
		if (!last && trial < full)
			c->max_bytes = trial;
		err = build_groups(&bd, list);
		if (err != -E2BIG || last)
			break;
		reset_trees(&bd);
	}
	c->max_bytes = full;
	if (err)
		goto out;
	for (unsigned i = 0; i < c->nleaves; i++)
		c->leaves[i].pos = c->pool + (uintptr_t)c->leaves[i].pos;
	c->bytes = build_bytes(&bd);
	info->bytes = c->bytes;
	info->nodes = c->nnodes;
	*out = c;
	c = NULL;
out:
	if (c) {
		c->nleaves = 0; /* no leaf owns memory yet */
		cls_free(c);
	}
	free(list);
	free(bd.s);
	free(bd.e);
	free(bd.bn);
	return err;
}
