/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading ClassBench filter sets and traces for the classifier's differential test and its
 * benchmark. The files stay where they are (../shared/data/classbench by default, or
 * $PT_CLASSBENCH): research-use data, never copied into the project.
 *
 *   rule:  @SRC/LEN  DST/LEN  SPLO : SPHI  DPLO : DPHI  PROTO/MASK  FLAGS/MASK
 *   trace: SRC DST SPORT DPORT PROTO FLAGS RULE        (unsigned integers)
 *
 * A rule becomes classifier constraints on src, dst, ports and protocol; its TCP flags test
 * is left out of the classifier on purpose and checked on each candidate, as the engine
 * checks residual matches.
 */
#ifndef TESTS_CLASSBENCH_H
#define TESTS_CLASSBENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify.h"

struct cb_rule {
	uint32_t src, smask, dst, dmask;
	uint16_t splo, sphi, dplo, dphi;
	uint8_t proto, pmask;
	uint16_t flags, fmask;
};

struct cb_pkt {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t proto;
	uint16_t flags;
};

static inline const char *cb_dir(void)
{
	const char *d = getenv("PT_CLASSBENCH");

	return d && *d ? d : "../shared/data/classbench";
}

static inline uint32_t cb_mask(unsigned len)
{
	return len ? ~0u << (32 - len) : 0;
}

/* The rules of a filter set, or NULL (file missing or malformed). */
static inline struct cb_rule *cb_load_rules(const char *path, unsigned *n)
{
	FILE *f = fopen(path, "r");
	struct cb_rule *v = NULL;
	unsigned cap = 0;
	char line[512];

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		unsigned a[4], b[4], sl, dl, sp0, sp1, dp0, dp1, pr, pm, fl, fm;
		struct cb_rule r;

		if (sscanf(line, "@%u.%u.%u.%u/%u %u.%u.%u.%u/%u %u : %u %u : %u %x/%x %x/%x",
			   &a[0], &a[1], &a[2], &a[3], &sl, &b[0], &b[1], &b[2], &b[3], &dl, &sp0,
			   &sp1, &dp0, &dp1, &pr, &pm, &fl, &fm) != 18 ||
		    sl > 32 || dl > 32) {
			free(v);
			fclose(f);
			return NULL;
		}
		r.smask = cb_mask(sl);
		r.dmask = cb_mask(dl);
		r.src = (a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]) & r.smask;
		r.dst = (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]) & r.dmask;
		r.splo = (uint16_t)sp0, r.sphi = (uint16_t)sp1;
		r.dplo = (uint16_t)dp0, r.dphi = (uint16_t)dp1;
		r.proto = (uint8_t)pr, r.pmask = (uint8_t)pm;
		r.flags = (uint16_t)fl, r.fmask = (uint16_t)fm;
		if (*n == cap) {
			struct cb_rule *w = realloc(v, (cap = cap * 2 + 1024) * sizeof(*w));

			if (!w) {
				free(v);
				fclose(f);
				return NULL;
			}
			v = w;
		}
		v[(*n)++] = r;
	}
	fclose(f);
	return v;
}

/* The packets of a trace (every `step`-th one), or NULL. */
static inline struct cb_pkt *cb_load_trace(const char *path, unsigned step, unsigned *n)
{
	FILE *f = fopen(path, "r");
	struct cb_pkt *v = NULL;
	unsigned cap = 0, line_no = 0;
	unsigned long s, d, sp, dp, pr, fl, rule;

	*n = 0;
	if (!f)
		return NULL;
	while (fscanf(f, "%lu %lu %lu %lu %lu %lu %lu", &s, &d, &sp, &dp, &pr, &fl, &rule) == 7) {
		if (line_no++ % (step ? step : 1))
			continue;
		if (*n == cap) {
			struct cb_pkt *w = realloc(v, (cap = cap * 2 + 4096) * sizeof(*w));

			if (!w) {
				free(v);
				fclose(f);
				return NULL;
			}
			v = w;
		}
		v[(*n)++] = (struct cb_pkt){(uint32_t)s,  (uint32_t)d, (uint16_t)sp,
					    (uint16_t)dp, (uint8_t)pr, (uint16_t)fl};
	}
	fclose(f);
	return v;
}

static inline bool cb_rule_matches(const struct cb_rule *r, const struct cb_pkt *p)
{
	return (p->src & r->smask) == r->src && (p->dst & r->dmask) == r->dst &&
	       p->sport >= r->splo && p->sport <= r->sphi && p->dport >= r->dplo &&
	       p->dport <= r->dphi && (p->proto & r->pmask) == (r->proto & r->pmask) &&
	       (p->flags & r->fmask) == (r->flags & r->fmask);
}

/* The reference: the first rule that matches, or n. */
static inline unsigned cb_linear(const struct cb_rule *r, unsigned n, const struct cb_pkt *p)
{
	for (unsigned i = 0; i < n; i++)
		if (cb_rule_matches(&r[i], p))
			return i;
	return n;
}

static inline int cb_constrain(struct cls_builder *b, unsigned i, const struct cb_rule *r)
{
	struct cls_interval iv;
	int err = 0;

	if (r->smask) {
		iv = (struct cls_interval){r->src, r->src | ~r->smask};
		err |= cls_builder_constrain(b, i, CLS_SRC0, &iv, 1, false);
	}
	if (r->dmask) {
		iv = (struct cls_interval){r->dst, r->dst | ~r->dmask};
		err |= cls_builder_constrain(b, i, CLS_DST0, &iv, 1, false);
	}
	iv = (struct cls_interval){r->splo, r->sphi};
	err |= cls_builder_constrain(b, i, CLS_SPORT, &iv, 1, false);
	iv = (struct cls_interval){r->dplo, r->dphi};
	err |= cls_builder_constrain(b, i, CLS_DPORT, &iv, 1, false);
	if (r->pmask == 0xff) {
		iv = (struct cls_interval){r->proto, r->proto};
		err |= cls_builder_constrain(b, i, CLS_PROTO, &iv, 1, false);
	}
	return err;
}

/* A builder with every rule's constraints, or NULL. With `finals`, a rule without a flags
 * test (nothing left to check on a candidate) is final (cls_builder_final). */
static inline struct cls_builder *cb_builder(const struct cb_rule *r, unsigned n, bool finals)
{
	struct cls_builder *b = cls_builder_new(n);

	if (!b)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		if (cb_constrain(b, i, &r[i]) ||
		    (finals && !r[i].fmask && cls_builder_final(b, i))) {
			cls_builder_free(b);
			return NULL;
		}
	return b;
}

static inline void cb_key(const struct cb_pkt *p, uint32_t key[CLS_NDIMS])
{
	memset(key, 0, CLS_NDIMS * sizeof(*key));
	key[CLS_SRC0] = p->src;
	key[CLS_DST0] = p->dst;
	key[CLS_SPORT] = p->sport;
	key[CLS_DPORT] = p->dport;
	key[CLS_PROTO] = p->proto;
}

/* The compiled answer: candidates in order, the flags test on each (the residual); `first`
 * is the first candidate (from cls_first or a burst). */
static inline unsigned cb_compiled(const struct classifier *c, const struct cb_rule *r,
				   const struct cb_pkt *p, const uint32_t key[CLS_NDIMS],
				   unsigned first)
{
	unsigned n = cls_nrules(c);
	struct cls_cursor cur;

	if (first >= n || (p->flags & r[first].fmask) == (r[first].flags & r[first].fmask))
		return first;
	cls_cursor_init(c, key, &cur);
	for (unsigned i = cls_cursor_next(&cur, first + 1); i < n; i = cls_cursor_next(&cur, i + 1))
		if ((p->flags & r[i].fmask) == (r[i].flags & r[i].fmask))
			return i;
	return n;
}

#endif
