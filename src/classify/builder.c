// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The classifier's input: per rule, the allowed values of each constrained dimension as a
 * sorted list of disjoint, non-adjacent closed intervals. Complement and intersection keep
 * that form, so a rule's set is always one list per dimension, whatever mix of prefixes,
 * ranges, port lists and inversions made it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classify/classify_int.h"

struct cls_builder *cls_builder_new(unsigned nrules)
{
	struct cls_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->rules = calloc(nrules ? nrules : 1, sizeof(*b->rules));
	if (!b->rules) {
		free(b);
		return NULL;
	}
	b->nrules = nrules;
	return b;
}

void cls_builder_free(struct cls_builder *b)
{
	if (!b)
		return;
	for (unsigned r = 0; r < b->nrules; r++) {
		for (unsigned i = 0; i < b->rules[r].ncon; i++)
			free(b->rules[r].con[i].iv);
		free(b->rules[r].con);
	}
	free(b->rules);
	free(b);
}

static int cmp_interval(const void *a, const void *b)
{
	const struct cls_interval *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge in place (overlapping or adjacent intervals become one); the new count. */
unsigned cls_set_normalize(struct cls_interval *iv, unsigned n)
{
	unsigned k = 0;

	qsort(iv, n, sizeof(*iv), cmp_interval);
	for (unsigned i = 0; i < n; i++) {
		if (iv[i].lo > iv[i].hi)
			continue;
		if (k && (iv[i].lo <= iv[k - 1].hi ||
			  (iv[k - 1].hi != UINT32_MAX && iv[i].lo == iv[k - 1].hi + 1))) {
			if (iv[i].hi > iv[k - 1].hi)
				iv[k - 1].hi = iv[i].hi;
			continue;
		}
		iv[k++] = iv[i];
	}
	return k;
}

/* The complement of a normalized set within 0..UINT32_MAX, into out (n + 1 entries). */
static unsigned set_complement(const struct cls_interval *iv, unsigned n, struct cls_interval *out)
{
	unsigned k = 0;
	uint64_t next = 0; /* first value not yet covered */

	for (unsigned i = 0; i < n; i++) {
		if (iv[i].lo > next)
			out[k++] = (struct cls_interval){(uint32_t)next, iv[i].lo - 1};
		next = (uint64_t)iv[i].hi + 1;
	}
	if (next <= UINT32_MAX)
		out[k++] = (struct cls_interval){(uint32_t)next, UINT32_MAX};
	return k;
}

/* The intersection of two normalized sets, into out (na + nb entries at most). */
static unsigned set_intersect(const struct cls_interval *a, unsigned na,
			      const struct cls_interval *b, unsigned nb, struct cls_interval *out)
{
	unsigned i = 0, j = 0, k = 0;

	while (i < na && j < nb) {
		uint32_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
		uint32_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;

		if (lo <= hi)
			out[k++] = (struct cls_interval){lo, hi};
		if (a[i].hi < b[j].hi)
			i++;
		else
			j++;
	}
	return k;
}

int cls_builder_final(struct cls_builder *b, unsigned rule)
{
	if (!b || rule >= b->nrules)
		return -EINVAL;
	b->rules[rule].final = true;
	return 0;
}

static struct cls_bcon *find_con(struct cls_brule *r, unsigned dim)
{
	for (unsigned i = 0; i < r->ncon; i++)
		if (r->con[i].dim == dim)
			return &r->con[i];
	return NULL;
}

int cls_builder_constrain(struct cls_builder *b, unsigned rule, unsigned dim,
			  const struct cls_interval *iv, unsigned n, bool invert)
{
	struct cls_interval *set, *res;
	struct cls_brule *r;
	struct cls_bcon *c;
	unsigned k;

	if (!b || rule >= b->nrules || dim >= CLS_NDIMS)
		return -EINVAL;
	r = &b->rules[rule];
	set = malloc((n + 1) * sizeof(*set));
	if (!set)
		return -ENOMEM;
	if (n)
		memcpy(set, iv, n * sizeof(*set));
	k = cls_set_normalize(set, n);
	if (invert) {
		struct cls_interval *cpl = malloc((k + 1) * sizeof(*cpl));

		if (!cpl) {
			free(set);
			return -ENOMEM;
		}
		k = set_complement(set, k, cpl);
		free(set);
		set = cpl;
	}
	c = find_con(r, dim);
	if (c) {
		res = malloc((c->n + k + 1) * sizeof(*res));
		if (!res) {
			free(set);
			return -ENOMEM;
		}
		k = set_intersect(c->iv, c->n, set, k, res);
		free(set);
		free(c->iv);
		c->iv = res;
		c->n = k;
		return 0;
	}
	/* The whole range is no constraint at all. */
	if (k == 1 && set[0].lo == 0 && set[0].hi == UINT32_MAX) {
		free(set);
		return 0;
	}
	c = realloc(r->con, (r->ncon + 1) * sizeof(*c));
	if (!c) {
		free(set);
		return -ENOMEM;
	}
	r->con = c;
	r->con[r->ncon++] = (struct cls_bcon){.dim = (uint8_t)dim, .n = k, .iv = set};
	return 0;
}
