// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The standard part of rules as rows of masked words (rules/plain.h): built per chain when a
 * ruleset is published, and the reference test they must agree with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/plain.h"

/* rules_plain_exact puts each field's mismatch at its RULES_INV_* bit */
_Static_assert(RULES_INV_SRC == 1 << 0 && RULES_INV_DST == 1 << 1 && RULES_INV_IN == 1 << 2 &&
		   RULES_INV_OUT == 1 << 3 && RULES_INV_PROTO == 1 << 4 && RULES_INV_FRAG == 1 << 5,
	       "RULES_INV_* bits");

/* ---- the reference ----------------------------------------------------------------------- */

static bool masked_eq(const union pt_addr *a, const union pt_addr *net, const union pt_addr *m)
{
	for (unsigned i = 0; i < 4; i++)
		if ((a->w[i] & m->w[i]) != (net->w[i] & m->w[i]))
			return false;
	return true;
}

/* -i/-o: exact name (the kernel's mask covers the NUL too) or prefix before '+'. */
static bool iface_match(const char *name, const char *rule, uint8_t len, bool wild)
{
	if (!wild && len == 0)
		return true; /* no -i: the kernel's mask is all zero */
	if (strncmp(name, rule, len))
		return false;
	return wild || name[len] == '\0';
}

static bool inv(const struct rules_ipmatch *ip, unsigned flag, bool v)
{
	return v ^ !!(ip->inv & flag);
}

bool rules_ip_match(int family, const struct rules_ipmatch *ip, const struct pkt_info *in,
		    const char *indev, const char *outdev, bool *hotdrop)
{
	if (!inv(ip, RULES_INV_SRC, masked_eq(&in->src, &ip->src, &ip->smsk)) ||
	    !inv(ip, RULES_INV_DST, masked_eq(&in->dst, &ip->dst, &ip->dmsk)))
		return false;
	if (!inv(ip, RULES_INV_IN, iface_match(indev, ip->in, ip->in_len, ip->in_wild)) ||
	    !inv(ip, RULES_INV_OUT, iface_match(outdev, ip->out, ip->out_len, ip->out_wild)))
		return false;
	if (family == AF_INET) {
		if (ip->proto && !inv(ip, RULES_INV_PROTO, in->l4proto == ip->proto))
			return false;
		/* -f: a non-first fragment (offset != 0) */
		if (inv(ip, RULES_INV_FRAG, ip->frag && in->frag_off == 0))
			return false;
		return true;
	}
	if (ip->proto) {
		/* ipv6_find_hdr failed: hotdrop unless this is a non-first fragment */
		if (in->bad == PKT_BAD_EXTHDR) {
			if (in->frag_off == 0)
				*hotdrop = true;
			return false;
		}
		return inv(ip, RULES_INV_PROTO, in->l4proto == ip->proto);
	}
	return true;
}

/* ---- keys and rows ----------------------------------------------------------------------- */

void rules_plain_name(const char *name, uint64_t w[2])
{
	unsigned char b[16] = {0};

	for (unsigned i = 0; i < sizeof(b) && name[i]; i++)
		b[i] = (unsigned char)name[i];
	memcpy(w, b, sizeof(b));
}

bool rules_plain_exact(const struct rules_plain_exact *x, const struct rules_plain_key *k)
{
	uint32_t bad = 0, pd = (k->proto ^ x->proto) & x->protom;
	uint64_t src[2], dst[2];

	memcpy(src, k->info->src.b, 16);
	memcpy(dst, k->info->dst.b, 16);
	bad |= (uint32_t)((((src[0] ^ x->src[0]) & x->smsk[0]) |
			   ((src[1] ^ x->src[1]) & x->smsk[1])) != 0)
	       << 0;
	bad |= (uint32_t)((((dst[0] ^ x->dst[0]) & x->dmsk[0]) |
			   ((dst[1] ^ x->dst[1]) & x->dmsk[1])) != 0)
	       << 1;
	bad |= (uint32_t)((((k->in[0] ^ x->in[0]) & x->inm[0]) |
			   ((k->in[1] ^ x->in[1]) & x->inm[1])) != 0)
	       << 2;
	bad |= (uint32_t)((((k->out[0] ^ x->out[0]) & x->outm[0]) |
			   ((k->out[1] ^ x->out[1]) & x->outm[1])) != 0)
	       << 3;
	bad |= (uint32_t)((pd & 0xffff) != 0) << 4;
	bad |= (uint32_t)((pd & RULES_PLAIN_NONFIRST) != 0) << 5;
	/* RULES_INV_SRC .. RULES_INV_FRAG are bits 0..5: a field with '!' must differ */
	return bad == x->inv;
}

static void addr_words(const union pt_addr *a, uint64_t w[2])
{
	memcpy(w, a->b, 16);
}

/* -i/-o as the kernel masks it: the name and its NUL, or the part before '+'. */
static void iface_words(const char *name, uint8_t len, bool wild, uint64_t w[2], uint64_t m[2])
{
	unsigned char b[16] = {0}, mb[16] = {0};
	unsigned n = wild ? len : len ? len + 1u : 0; /* no name: no test */

	if (n > sizeof(b))
		n = sizeof(b);
	memcpy(b, name, len < sizeof(b) ? len : sizeof(b));
	memset(mb, 0xff, n);
	memcpy(w, b, sizeof(b));
	memcpy(m, mb, sizeof(mb));
	w[0] &= m[0];
	w[1] &= m[1];
}

static void exact_of(int family, const struct rules_ipmatch *ip, struct rules_plain_exact *x)
{
	memset(x, 0, sizeof(*x));
	addr_words(&ip->smsk, x->smsk);
	addr_words(&ip->dmsk, x->dmsk);
	addr_words(&ip->src, x->src);
	addr_words(&ip->dst, x->dst);
	for (unsigned i = 0; i < 2; i++) {
		x->src[i] &= x->smsk[i];
		x->dst[i] &= x->dmsk[i];
	}
	iface_words(ip->in, ip->in_len, ip->in_wild, x->in, x->inm);
	iface_words(ip->out, ip->out_len, ip->out_wild, x->out, x->outm);
	x->inv = ip->inv & (RULES_INV_SRC | RULES_INV_DST | RULES_INV_IN | RULES_INV_OUT);
	if (ip->proto) { /* without -p, '!' has nothing to invert */
		x->proto = ip->proto;
		x->protom = 0xffff;
		x->inv |= ip->inv & RULES_INV_PROTO;
	}
	if (family == AF_INET) { /* IPv6 has no -f: ip6_packet_match ignores it */
		if (ip->frag) {
			x->proto |= RULES_PLAIN_NONFIRST;
			x->protom |= RULES_PLAIN_NONFIRST;
		}
		x->inv |= ip->inv & RULES_INV_FRAG;
	}
}

/* The first four bytes of 16 held as two words, as the IPv4 key has them (pt_addr.w[0]). */
static uint64_t first4(const uint64_t w[2])
{
	uint32_t v;

	memcpy(&v, w, sizeof(v));
	return v;
}

static bool beyond4(const uint64_t w[2])
{
	static const unsigned char zero[12];

	return memcmp((const unsigned char *)w + 4, zero, sizeof(zero)) != 0;
}

/* A field as masked key words (at most two; a mask of 0 in both: one word, always equal). */
struct field {
	unsigned n;
	struct rules_plain_test t[2];
};

static void field_add(struct field *f, unsigned w, uint64_t v, uint64_t m)
{
	struct rules_plain_test t = {.v = v & m, .m = m, .w = (uint8_t)w};

	if (!f->n || (f->n == 1 && !f->t[0].m)) { /* the first word, or one without a mask */
		f->t[0] = t;
		f->n = 1;
	} else if (m) {
		f->t[f->n++] = t;
	}
}

/* The six fields of x in key words (rules_plain_key's order for the family), RULES_INV_* order.
 * False when an IPv4 address is masked beyond its four bytes (left to rules_plain_exact). */
static bool fields_of(int family, const struct rules_plain_exact *x, struct field f[6])
{
	bool v4 = family == AF_INET;
	unsigned in1 = v4 ? RULES_PLAIN_W4 : RULES_PLAIN_W6 + 2; /* rules_plain_key.w[] */

	memset(f, 0, 6 * sizeof(*f));
	if (v4) {
		field_add(&f[0], 0, first4(x->src), first4(x->smsk));
		field_add(&f[1], 0, first4(x->dst) << 32, first4(x->dmsk) << 32);
	} else {
		field_add(&f[0], 0, x->src[0], x->smsk[0]);
		field_add(&f[0], RULES_PLAIN_W6, x->src[1], x->smsk[1]);
		field_add(&f[1], 1, x->dst[0], x->dmsk[0]);
		field_add(&f[1], RULES_PLAIN_W6 + 1, x->dst[1], x->dmsk[1]);
	}
	field_add(&f[2], v4 ? 1 : 2, x->in[0], x->inm[0]);
	field_add(&f[2], in1, x->in[1], x->inm[1]);
	field_add(&f[3], v4 ? 2 : 3, x->out[0], x->outm[0]);
	field_add(&f[3], in1 + 1, x->out[1], x->outm[1]);
	field_add(&f[4], v4 ? 3 : 4, x->proto, x->protom & 0xffff);
	field_add(&f[5], v4 ? 3 : 4, x->proto, x->protom & RULES_PLAIN_NONFIRST);
	return !v4 || (!beyond4(x->smsk) && !beyond4(x->dmsk));
}

/*
 * The row (fields without '!', words the row has) and the tests of the rest: a field with '!'
 * in one word must differ there; bytes 8-15 of a name must equal. Anything else (a field with
 * '!' in two words, an IPv4 mask beyond four bytes, too many tests): rules_plain_exact.
 */
static void row_of(int family, struct rules_plain_exact *x, uint64_t *d)
{
	unsigned w = family == AF_INET ? RULES_PLAIN_W4 : RULES_PLAIN_W6;
	struct field f[6];
	bool whole = !fields_of(family, x, f);

	x->ntests = 0;
	for (unsigned i = 0; i < 6; i++) {
		bool neg = x->inv & (1u << i);

		if (neg && f[i].n > 1) {
			whole = true;
			continue;
		}
		for (unsigned j = 0; j < f[i].n; j++) {
			const struct rules_plain_test *t = &f[i].t[j];

			if (!neg && t->w < w) { /* in the row */
				d[2 * t->w] |= t->v;
				d[2 * t->w + 1] |= t->m;
			} else if (neg || t->m) {
				if (x->ntests == RULES_PLAIN_TESTS) {
					whole = true;
					continue;
				}
				x->t[x->ntests] = *t;
				x->t[x->ntests++].neg = neg;
			}
		}
	}
	if (whole)
		x->ntests = RULES_PLAIN_WHOLE;
	if (x->ntests) { /* no key has the bit: the row alone never passes */
		d[2 * w - 2] |= RULES_PLAIN_MORE;
		d[2 * w - 1] |= RULES_PLAIN_MORE;
	}
}

bool rules_plain_more(const struct rules_plain_exact *x, const struct rules_plain_key *k)
{
	if (x->ntests == RULES_PLAIN_WHOLE)
		return rules_plain_exact(x, k);
	for (unsigned i = 0; i < x->ntests; i++) {
		const struct rules_plain_test *t = &x->t[i];

		if ((((k->w[t->w] ^ t->v) & t->m) == 0) == t->neg)
			return false;
	}
	return true;
}

void rules_plain_free(struct rules_plain *pl)
{
	free(pl->rows);
	free(pl->exact);
	memset(pl, 0, sizeof(*pl));
}

static int chain_prepare(int family, struct rules_chain *c)
{
	unsigned w = family == AF_INET ? RULES_PLAIN_W4 : RULES_PLAIN_W6;
	struct rules_plain *pl = &c->plain;

	rules_plain_free(pl);
	if (!c->nrules)
		return 0;
	pl->rows = calloc((size_t)c->nrules * 2 * w, sizeof(*pl->rows));
	pl->exact = calloc(c->nrules, sizeof(*pl->exact));
	if (!pl->rows || !pl->exact) {
		rules_plain_free(pl);
		return -ENOMEM;
	}
	pl->open = c->nrules;
	for (unsigned i = 0; i < c->nrules; i++) {
		const uint64_t *d = pl->rows + (size_t)i * 2 * w;

		exact_of(family, &c->rules[i].ip, &pl->exact[i]);
		row_of(family, &pl->exact[i], pl->rows + (size_t)i * 2 * w);
		for (unsigned j = 1; j < 2 * w && pl->open == c->nrules; j += 2)
			if (d[j])
				pl->open = i;
	}
	pl->nrules = c->nrules;
	return 0;
}

int rules_ruleset_prepare(struct rules_ruleset *rs)
{
	int ret = 0;

	for (unsigned t = 0; t < TABLE_MAX; t++)
		for (unsigned i = 0; i < rs->tables[t].nchains; i++)
			if (chain_prepare(rs->family, &rs->tables[t].chains[i]))
				ret = -ENOMEM;
	return ret;
}
