/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The classifier's insides, shared by builder.c, tree.c and update.c only. */
#ifndef CLASSIFY_CLASSIFY_INT_H
#define CLASSIFY_CLASSIFY_INT_H

#include "classify/classify.h"

/* A builder's constraint: a normalized interval set of one dimension. */
struct cls_bcon {
	uint8_t dim;
	unsigned n;
	struct cls_interval *iv;
};

struct cls_brule {
	struct cls_bcon *con;
	unsigned ncon;
	bool final;
};

struct cls_builder {
	struct cls_brule *rules;
	unsigned nrules;
};

unsigned cls_set_normalize(struct cls_interval *iv, unsigned n);

/*
 * Built form. A rule's constraints are a run of cls_con; one interval sits inline (the usual
 * prefix, port or range), more live in ivs[ivoff..ivoff+nint).
 *
 *   nodes[i]: dim < CLS_NDIMS  nodes[a + j], j = how many of thr[] lie below key[dim]
 *             (thr ascending, an unused slot CLS_NO_THR, which no key exceeds): up to
 *             CLS_NODE_THR + 1 children side by side. The build makes a binary tree and
 *             packs it: a node takes a split and the first split below it on the same
 *             dimension, so a walk reads up to two levels per node (16 bytes; three
 *             thresholds in 20-byte nodes, or three with the dimension packed into `a`,
 *             measured no better: docs/performance.md)
 *             dim == CLS_LEAF  leaves[a]: rule positions, ascending
 */
struct cls_con {
	uint32_t lo, hi;
	uint16_t dim, nint;
	uint32_t ivoff;
};

struct cls_rule {
	uint32_t coff;
	uint16_t ncon;
	uint8_t group;	   /* bit 0: narrow source, bit 1: narrow destination */
	uint8_t never : 1; /* some dimension allows no value */
	uint8_t final : 1; /* cls_builder_final */
	/* The first (narrowest) constraint's bounds, where a candidate that fails most often
	 * fails: tested from the rule itself, before its constraint list is read (no
	 * constraint: dim0 0 and the whole range); mask0, when not 0, its set of values as
	 * bits (a set within 0..31: a conntrack state mask). skip0: these tests are the whole
	 * of the first constraint (one interval, or a mask), the list is read from the
	 * second. */
	uint8_t dim0, skip0;
	uint32_t lo0, hi0, mask0;
};

/* A leaf entry: the rule's position, and whether the rule allows every key of the leaf's
 * box (then no check is needed). */
#define CLS_COVERS 0x80000000u
#define CLS_POS(e) ((e) & ~CLS_COVERS)

#define CLS_LEAF 0xffffu

#define CLS_NODE_THR 2
#define CLS_NO_THR   UINT32_MAX /* an unused threshold slot (a split's is below its box's end) */

struct cls_node {
	uint32_t thr[CLS_NODE_THR];
	uint32_t dim;
	uint32_t a;
};

/* A leaf node (also a tree of one leaf: cls_insert into an empty group). */
static inline struct cls_node cls_leaf_node(unsigned leaf)
{
	struct cls_node n = {.dim = CLS_LEAF, .a = leaf};

	for (unsigned k = 0; k < CLS_NODE_THR; k++)
		n.thr[k] = CLS_NO_THR;
	return n;
}

/* Children of node n: 1 + its thresholds in use. */
static inline unsigned cls_node_kids(const struct cls_node *n)
{
	unsigned k = 0;

	while (k < CLS_NODE_THR && n->thr[k] != CLS_NO_THR)
		k++;
	return k + 1;
}

struct cls_leaf {
	uint32_t *pos;
	uint32_t n, cap; /* cap 0: pos points into the classifier's pool */
};

struct classifier {
	unsigned nrules, rcap;
	struct cls_rule *rules;
	struct cls_con *cons;
	unsigned ncons, ccap;
	struct cls_interval *ivs;
	unsigned nivs, icap;
	struct cls_node *nodes;
	unsigned nnodes;
	struct cls_leaf *leaves;
	unsigned nleaves;
	uint32_t *pool;
	int root[CLS_GROUPS]; /* -1: the group is empty */
	unsigned nroots;      /* the lookup's list of them: the non-empty groups' roots */
	uint32_t roots[CLS_GROUPS];
	unsigned group_mask; /* which of a rule's group bits the trees are split by */
	size_t max_bytes, bytes;
	unsigned updates; /* rules inserted or deleted since the build (cls_update's limit) */
};

/* Make c->roots the list of c->root[] that are not empty (after a build or a new root). */
void cls_index_roots(struct classifier *c);
/* Group of a rule from its constraints (narrow source, narrow destination). */
unsigned cls_rule_group(const struct cls_bcon *con, unsigned ncon);
/* Append a builder rule's constraints to c's tables; 0 or -ENOMEM. */
int cls_store_rule(struct classifier *c, struct cls_rule *out, const struct cls_brule *r);
/* Smallest and largest allowed value of constraint set `dim` of rule `r` within [lo, hi]:
 * false if none. */
/* Does rule r allow every key of the box? */
bool cls_rule_covers(const struct classifier *c, const struct cls_rule *r, const uint32_t *lo,
		     const uint32_t *hi);
bool cls_rule_span(const struct classifier *c, const struct cls_rule *r, unsigned dim, uint32_t lo,
		   uint32_t hi, uint32_t *s, uint32_t *e);

#endif
