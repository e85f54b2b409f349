/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A compiled classifier for one chain: which rules can match a packet, first one first.
 *
 * The classifier knows packets only as a key of CLS_NDIMS unsigned 32-bit values, and rules
 * only as a set of allowed values per dimension (a union of closed intervals; no constraint =
 * any value). A rule is a candidate for a key when every constrained dimension holds the key's
 * value. The caller describes rules so that this is a superset of "the rule matches": a rule
 * that could match is never left out. The caller still evaluates each candidate whole (its
 * residual matches, in rule order), so the first candidate that matches is the linear scan's
 * first match.
 *
 *   key:   src[0..3] dst[0..3] proto sport dport icmp in out mark ctstate frag
 *           \ IPv6 words, host order (IPv4: word 0 only, the rest 0)
 *
 *   build (off the data path, may allocate)        lookup (never allocates)
 *   cls_builder_new / cls_builder_constrain ...    cls_first(c, key, from)
 *   cls_build -> struct classifier                 cls_first_burst(c, keys, n, from, out)
 *
 * Structure: the rules are split in up to CLS_GROUPS groups by whether their source and
 * destination address constraints are narrow (a /16 or longer) or wide, and each group gets a
 * decision tree of binary splits on one dimension at a time (HyperSplit-like), leaves holding
 * at most a few rules in rule order. docs/classifier.md says why this shape and what else was
 * measured.
 *
 * Memory: a build that would exceed its budget (struct cls_limits) stops and returns
 * -E2BIG; the caller keeps the chain linear. The worst case of a built classifier is its
 * budget.
 */
#ifndef CLASSIFY_CLASSIFY_H
#define CLASSIFY_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cls_dim {
	CLS_SRC0, /* source address, 32-bit words, most significant first */
	CLS_SRC1,
	CLS_SRC2,
	CLS_SRC3,
	CLS_DST0,
	CLS_DST1,
	CLS_DST2,
	CLS_DST3,
	CLS_PROTO, /* transport protocol number */
	CLS_SPORT, /* 0..65535, or CLS_NO_PORT */
	CLS_DPORT,
	CLS_ICMP, /* type << 8 | code, or CLS_NO_PORT */
	CLS_IN,	  /* first 4 bytes of the interface name, big-endian, NUL padded */
	CLS_OUT,
	CLS_MARK,
	CLS_CTSTATE, /* the bit number of the packet's conntrack state */
	CLS_FRAG,    /* 1: a non-first fragment */
	CLS_NDIMS
};

/* The port (and ICMP type/code) value of a packet that has none to show: not a first fragment,
 * or a protocol without ports. Outside every port range, so only "any" covers it. */
#define CLS_NO_PORT 0x10000u

#define CLS_GROUPS 4

struct cls_interval {
	uint32_t lo, hi; /* inclusive */
};

struct cls_limits {
	size_t max_bytes;    /* the built structure's budget (0: CLS_DEFAULT_MAX_BYTES) */
	unsigned leaf_rules; /* a node with at most this many rules is a leaf (0: 8) */
};

#define CLS_DEFAULT_MAX_BYTES ((size_t)64 << 20)

struct cls_builder;
struct classifier;

/* A builder for `nrules` rules, all unconstrained. NULL on ENOMEM. */
struct cls_builder *cls_builder_new(unsigned nrules);
void cls_builder_free(struct cls_builder *b);
/*
 * Rule `rule` may match only when the key's value in `dim` lies in the union of the `n`
 * intervals (any order, may overlap; n == 0: no value, the rule never matches). Several calls
 * for one dimension intersect. With `invert`, the allowed set is the complement (within
 * 0..UINT32_MAX). 0, or -ENOMEM / -EINVAL.
 */
int cls_builder_constrain(struct cls_builder *b, unsigned rule, unsigned dim,
			  const struct cls_interval *iv, unsigned n, bool invert);

/*
 * Rule `rule` is final: whenever its constraints hold it is the answer (the caller's own
 * evaluation of it cannot fail, and it ends the search). The build then drops the rules
 * after it from every part of the key space it covers whole (cls_delete of a final rule puts
 * them back where it covered a leaf).
 */
int cls_builder_final(struct cls_builder *b, unsigned rule);

struct cls_build_info {
	double build_s; /* wall time of cls_build, filled by the caller if it measures */
	size_t bytes;	/* memory of the built structure */
	unsigned nodes, leaves, max_leaf, max_depth;
	unsigned groups;       /* non-empty groups */
	unsigned long entries; /* rule references in all leaves (replication) */
};

/*
 * Build the classifier of the builder's rules. 0 with *out set, -E2BIG when over the budget,
 * -ENOMEM. The builder is unchanged and may be freed or reused.
 */
int cls_build(const struct cls_builder *b, const struct cls_limits *lim, struct classifier **out,
	      struct cls_build_info *info);
void cls_free(struct classifier *c);
unsigned cls_nrules(const struct classifier *c);
/* Bit (1 << CLS_*) for each dimension some rule constrains: the key needs only those. */
uint32_t cls_dims(const struct classifier *c);
size_t cls_bytes(const struct classifier *c);

/*
 * The first rule at position >= from whose constraints the key meets, or cls_nrules(c) if
 * none. Never allocates; reads only.
 */
unsigned cls_first(const struct classifier *c, const uint32_t key[CLS_NDIMS], unsigned from);
/*
 * A lookup that goes on: cls_cursor_init walks every tree once, then each cls_cursor_next
 * returns the next candidate at position >= from (ascending), without walking again, or
 * cls_nrules(c). For the engine, which evaluates a candidate's residual matches and goes on
 * to the next one when they fail. The key must stay unchanged (and alive) meanwhile.
 */
struct cls_cursor {
	const struct classifier *c;
	const uint32_t *key;
	const uint32_t *pos[CLS_GROUPS], *end[CLS_GROUPS];
	unsigned n;
};
void cls_cursor_init(const struct classifier *c, const uint32_t key[CLS_NDIMS],
		     struct cls_cursor *cur);
unsigned cls_cursor_next(struct cls_cursor *cur, unsigned from);
/* cls_cursor_init then cls_cursor_next(cur, from) in one: at a chain's start (from 0) each
 * tree's leaf is scanned as soon as the walk finds it. */
unsigned cls_cursor_start(const struct classifier *c, const uint32_t key[CLS_NDIMS],
			  struct cls_cursor *cur, unsigned from);

/* cls_first for n keys at once (from = 0 for all). */
void cls_first_burst(const struct classifier *c, const uint32_t (*keys)[CLS_NDIMS], unsigned n,
		     unsigned *out);

/*
 * Incremental change of a built classifier (not under readers: the caller copies first with
 * cls_clone and publishes the copy). cls_insert puts the builder's rule `brule` at position
 * `pos` (rules at pos and after move up by one); cls_delete removes the rule at `pos` (a
 * final one: with the rules it hid in the leaves it covered, or -EAGAIN, c unchanged, when
 * that is more work than a rebuild). 0, -ENOMEM, -E2BIG (over the budget: rebuild or stay
 * linear), -EINVAL. After -ENOMEM the copy may be half changed: drop it.
 */
struct classifier *cls_clone(const struct classifier *c);
int cls_insert(struct classifier *c, unsigned pos, const struct cls_builder *b, unsigned brule);
int cls_delete(struct classifier *c, unsigned pos);

/*
 * The classifier of the builder's rules made from `old` (built from a chain that differs in
 * a few rules) without a rebuild: the rules the two have alike at the start and at the end
 * (same constraints, same finality) are kept, the run between them is deleted from a copy and
 * the builder's run inserted. 0 with *out (old is untouched), or -EAGAIN when a rebuild is the
 * better way (more than CLS_UPDATE_MAX rules differ, a final rule in too many leaves would go,
 * the copy has taken too many updates since its build: its leaves only grow), -E2BIG,
 * -ENOMEM. *changed (may be NULL): rules deleted plus inserted.
 */
#define CLS_UPDATE_MAX 16
int cls_update(const struct classifier *old, const struct cls_builder *b, struct classifier **out,
	       unsigned *changed);

#endif
