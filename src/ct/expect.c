// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Expectations: registration with the kernel's limits and replacement rules, lookup when a
 * new connection is created, removal with the master, expiry on the box clock, listing and
 * events. The per-table state lives in struct ct_helper_state (helper_int.h).
 *
 * A new connection matches an expectation when its original tuple equals x->tuple in the
 * destination half, protocol, family and zone, and in the source half under the mask:
 *
 *   (tuple.src & mask_src) == x->tuple.src   (x->tuple.src is stored masked)
 *   (tuple.s & mask_sport) == x->tuple.s
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/helper_int.h"

struct ct_entry *ct_entry_master(const struct ct_entry *e)
{
	return e->master;
}

void ct_expect_init(struct ct_expect *x, unsigned class, int family, const union pt_addr *src,
		    const union pt_addr *dst, uint8_t l4proto, const uint16_t *sport,
		    uint16_t dport)
{
	unsigned alen = family == AF_INET ? 4 : 16;

	memset(x, 0, sizeof(*x));
	ct_tuple_zero(&x->tuple);
	x->class = (uint8_t) class;
	x->tuple.family = (uint8_t)family;
	x->tuple.l4proto = l4proto;
	if (src) {
		memcpy(x->tuple.src.b, src->b, alen);
		memset(x->mask_src.b, 0xff, alen);
	}
	memcpy(x->tuple.dst.b, dst->b, alen);
	if (sport) {
		x->tuple.s.port = *sport;
		x->mask_sport = 0xffff;
	}
	x->tuple.d.port = dport;
}

/* ---- hash and matching ------------------------------------------------------------------- */

/* Only the half that is never masked is hashed. */
static unsigned bucket_of(const struct ct_table *t, const struct ct_tuple *tuple)
{
	struct ct_tuple k;

	ct_tuple_zero(&k);
	k.dst = tuple->dst;
	k.d = tuple->d;
	k.zone = tuple->zone;
	k.family = tuple->family;
	k.l4proto = tuple->l4proto;
	return (unsigned)(ct_hash_tuple(t, &k) % CT_EXPECT_BUCKETS);
}

static bool masked_eq(const struct ct_tuple *tuple, const struct ct_expect *x)
{
	if (tuple->family != x->tuple.family || tuple->l4proto != x->tuple.l4proto ||
	    tuple->zone != x->tuple.zone || tuple->d.all != x->tuple.d.all ||
	    !pt_addr_eq(&tuple->dst, &x->tuple.dst))
		return false;
	if ((tuple->s.all & x->mask_sport) != x->tuple.s.all)
		return false;
	for (int i = 0; i < 4; i++)
		if ((tuple->src.w[i] & x->mask_src.w[i]) != x->tuple.src.w[i])
			return false;
	return true;
}

/* Could one connection match both? (the kernel's expect_clash: under the common mask) */
static bool clash(const struct ct_expect *a, const struct ct_expect *b)
{
	uint16_t m = a->mask_sport & b->mask_sport;

	if (a->tuple.family != b->tuple.family || a->tuple.l4proto != b->tuple.l4proto ||
	    a->tuple.zone != b->tuple.zone || a->tuple.d.all != b->tuple.d.all ||
	    !pt_addr_eq(&a->tuple.dst, &b->tuple.dst))
		return false;
	if ((a->tuple.s.all & m) != (b->tuple.s.all & m))
		return false;
	for (int i = 0; i < 4; i++) {
		uint32_t w = a->mask_src.w[i] & b->mask_src.w[i];

		if ((a->tuple.src.w[i] & w) != (b->tuple.src.w[i] & w))
			return false;
	}
	return true;
}

static bool same(const struct ct_expect *a, const struct ct_expect *b)
{
	return a->master == b->master && a->class == b->class &&
	       ct_tuple_eq(&a->tuple, &b->tuple) && a->mask_sport == b->mask_sport &&
	       pt_addr_eq(&a->mask_src, &b->mask_src);
}

/* ---- events ------------------------------------------------------------------------------ */

static void deliver(struct ct_helper_state *hs, unsigned ev, const struct ct_expect *x)
{
	for (unsigned i = 0; i < hs->nsub; i++)
		hs->sub[i].fn(hs->sub[i].priv, ev, x);
}

int ct_expect_subscribe(struct ct_table *t, ct_expect_event_fn fn, void *priv)
{
	struct ct_helper_state *hs = ct_helper_state(t);

	if (!hs)
		return -ENOMEM;
	if (hs->nsub == CT_EXPECT_SUBSCRIBERS)
		return -ENOSPC;
	hs->sub[hs->nsub].fn = fn;
	hs->sub[hs->nsub].priv = priv;
	hs->nsub++;
	return 0;
}

int ct_expect_unsubscribe(struct ct_table *t, ct_expect_event_fn fn, void *priv)
{
	struct ct_helper_state *hs = t->helpers;

	for (unsigned i = 0; hs && i < hs->nsub; i++) {
		if (hs->sub[i].fn == fn && hs->sub[i].priv == priv) {
			memmove(&hs->sub[i], &hs->sub[i + 1],
				(hs->nsub - i - 1) * sizeof(hs->sub[0]));
			hs->nsub--;
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- insert and remove ------------------------------------------------------------------- */

static void unlink_expect(struct ct_table *t, struct ct_expect *x)
{
	struct ct_helper_state *hs = t->helpers;
	struct ct_expect **pp = &hs->bucket[bucket_of(t, &x->tuple)];
	struct ct_help *help = ct_entry_help(x->master);

	while (*pp && *pp != x)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = x->hnext;
	if (x->prev)
		x->prev->next = x->next;
	else
		hs->oldest = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		hs->newest = x->prev;
	if (help && help->expecting[x->class])
		help->expecting[x->class]--;
	hs->stats.count--;
	deliver(hs, CT_EXP_EV_DESTROY, x);
	free(x);
}

void ct_expect_remove(struct ct_table *t, struct ct_expect *x)
{
	unlink_expect(t, x);
}

unsigned ct_expect_sweep(struct ct_table *t, uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;
	struct ct_expect *x, *next;
	unsigned n = 0;

	for (x = hs ? hs->oldest : NULL; x; x = next) {
		next = x->next;
		if (now >= x->expires) {
			hs->stats.expired++;
			unlink_expect(t, x);
			n++;
		}
	}
	return n;
}

/* The expired expectations of one bucket. */
static void sweep_bucket(struct ct_table *t, unsigned i, uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;
	struct ct_expect *x, *next;

	for (x = hs->bucket[i]; x; x = next) {
		next = x->hnext;
		if (now >= x->expires) {
			hs->stats.expired++;
			unlink_expect(t, x);
		}
	}
}

unsigned ct_expect_sweep_elapsed(struct ct_table *t, uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;
	uint64_t due;

	if (!hs)
		return 0;
	due = ct_sweep_due(&hs->sweep_clock, now, CT_EXPECT_BUCKETS, CT_EXPECT_SWEEP_SLICE);
	for (unsigned i = 0; i < due; i++) {
		if (hs->stats.count)
			sweep_bucket(t, hs->sweep_next, now);
		hs->sweep_next = (hs->sweep_next + 1) % CT_EXPECT_BUCKETS;
	}
	hs->sweep_visited += due;
	return (unsigned)due;
}

uint64_t ct_expect_sweep_visited(const struct ct_table *t)
{
	return t->helpers ? t->helpers->sweep_visited : 0;
}

/* The master's oldest expectation of a class (the kernel evicts that one). */
static struct ct_expect *oldest_of(struct ct_helper_state *hs, const struct ct_entry *master,
				   unsigned class)
{
	for (struct ct_expect *x = hs->oldest; x; x = x->next)
		if (x->master == master && x->class == class)
			return x;
	return NULL;
}

int ct_expect_related(struct ct_table *t, struct ct_entry *master, const struct ct_expect *tmpl,
		      uint64_t now)
{
	struct ct_help *help = ct_entry_help(master);
	const struct ct_helper_policy *pol;
	struct ct_helper_state *hs;
	struct ct_expect *x, *i, *next, **b;

	if (!help || !help->helper)
		return -ESHUTDOWN;
	if (tmpl->class >= CT_EXPECT_CLASS_MAX)
		return -EINVAL;
	if (master->status & CT_S_DYING)
		return -ESHUTDOWN;
	hs = ct_helper_state(t);
	if (!hs)
		return -ENOMEM;
	pol = &hs->policy[help->helper->id];
	x = malloc(sizeof(*x));
	if (!x)
		return -ENOMEM;
	*x = *tmpl;
	x->master = master;
	x->tuple.zone = ct_entry_zone(master);
	for (int w = 0; w < 4; w++)
		x->tuple.src.w[w] &= x->mask_src.w[w];
	x->tuple.s.all &= x->mask_sport;
	/* the same expectation again replaces the old one; another master's that would catch
	 * the same connections is refused. Both can only be in x's bucket (it is chosen by the
	 * half of the tuple they share with x); an expired one met there is gone, as for a
	 * lookup. What expired elsewhere is the sweep's, or a full pass's below where a limit
	 * is reached: no decision sees an expired expectation. */
	for (i = hs->bucket[bucket_of(t, &x->tuple)]; i; i = next) {
		next = i->hnext;
		if (now >= i->expires) {
			hs->stats.expired++;
			unlink_expect(t, i);
		} else if (same(i, x)) {
			unlink_expect(t, i);
		} else if (clash(i, x)) {
			hs->stats.refused_clash++;
			free(x);
			return -EBUSY;
		}
	}
	if (pol->max_expected && help->expecting[x->class] >= pol->max_expected) {
		struct ct_expect *old;

		ct_expect_sweep(t, now); /* the master's expired ones do not count */
		old = help->expecting[x->class] >= pol->max_expected
			  ? oldest_of(hs, master, x->class)
			  : NULL;

		if (old) {
			hs->stats.evicted++;
			unlink_expect(t, old);
		}
		help = ct_entry_help(master);
		if (help->expecting[x->class] >= pol->max_expected) {
			free(x);
			return -EMFILE;
		}
	}
	if (hs->stats.count >= hs->stats.max)
		ct_expect_sweep(t, now); /* full of expired ones is not full */
	if (hs->stats.count >= hs->stats.max) {
		hs->stats.refused_full++;
		free(x);
		return -EMFILE;
	}
	x->expires = now + pol->timeout;
	x->id = hs->next_id++;
	b = &hs->bucket[bucket_of(t, &x->tuple)];
	x->hnext = *b;
	*b = x;
	x->next = NULL;
	x->prev = hs->newest;
	if (hs->newest)
		hs->newest->next = x;
	else
		hs->oldest = x;
	hs->newest = x;
	help->expecting[x->class]++;
	hs->stats.count++;
	hs->stats.created++;
	deliver(hs, CT_EXP_EV_NEW, x);
	return 0;
}

struct ct_expect *ct_expect_find(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;
	struct ct_expect *x, *next;

	if (!hs || !hs->stats.count)
		return NULL;
	for (x = hs->bucket[bucket_of(t, tuple)]; x; x = next) {
		next = x->hnext;
		if (now >= x->expires) {
			hs->stats.expired++;
			unlink_expect(t, x);
			continue;
		}
		if ((x->flags & CT_EXPECT_INACTIVE) || !masked_eq(tuple, x))
			continue;
		/* a master not yet confirmed has not left the box: nobody can know of its
		 * expectations yet (the kernel's rule) */
		if (!(x->master->status & CT_S_CONFIRMED) || (x->master->status & CT_S_DYING))
			continue;
		return x;
	}
	return NULL;
}

/* ---- core hooks -------------------------------------------------------------------------- */

void ct_expect_attach_child(struct ct_table *t, struct ct_entry *e, struct ct_expect *x,
			    uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;

	e->master = x->master;
	x->master->use++;
	e->status |= CT_S_EXPECTED;
	e->mark = x->master->mark;
	ct_event_cache(e, CT_EV_RELATED);
	if (x->helper)
		ct_entry_set_helper(t, e, x->helper);
	if (x->expectfn)
		x->expectfn(t, e, x, now);
	hs->stats.consumed++;
	if (!(x->flags & CT_EXPECT_PERMANENT))
		unlink_expect(t, x);
}

void ct_expect_master_gone(struct ct_table *t, struct ct_entry *e)
{
	struct ct_help *help = ct_entry_help(e);
	struct ct_helper_state *hs = t->helpers;
	unsigned n = 0;

	if (!help || !hs)
		return;
	for (unsigned c = 0; c < CT_EXPECT_CLASS_MAX; c++)
		n += help->expecting[c];
	if (!n)
		return;
	for (struct ct_expect *x = hs->oldest, *next; x; x = next) {
		next = x->next;
		if (x->master == e)
			unlink_expect(t, x);
	}
}

void ct_expect_entry_free(struct ct_table *t, struct ct_entry *e)
{
	struct ct_entry *m = e->master;

	ct_expect_master_gone(t, e);
	if (m) {
		e->master = NULL;
		ct_put(t, m);
	}
}

void ct_expect_table_free(struct ct_table *t)
{
	struct ct_helper_state *hs = t->helpers;

	if (!hs)
		return;
	while (hs->oldest)
		unlink_expect(t, hs->oldest);
	free(hs);
	t->helpers = NULL;
}

/* ---- stats and listing ------------------------------------------------------------------- */

void ct_expect_stats(const struct ct_table *t, struct ct_expect_stats *s)
{
	if (t->helpers) {
		*s = t->helpers->stats;
	} else {
		uint32_t b = (t->mask + 1) / 256;

		memset(s, 0, sizeof(*s));
		s->max = 4 * (b ? b : 1);
	}
}

int ct_expect_set_max(struct ct_table *t, uint32_t max)
{
	struct ct_helper_state *hs = ct_helper_state(t);

	if (!hs)
		return -ENOMEM;
	hs->stats.max = max;
	return 0;
}

int ct_expect_format(const struct ct_expect *x, uint64_t now, char *buf, size_t len)
{
	const struct ct_tuple *mt = ct_entry_tuple(x->master, CT_DIR_ORIGINAL);
	const struct ct_help *help = ct_entry_help(x->master);
	char tu[160], ms[64], msrc[64], mdst[64];
	uint64_t left = x->expires > now ? (x->expires - now) / CT_SEC : 0;

	ct_tuple_str(&x->tuple, tu, sizeof(tu));
	pt_addr_str(x->tuple.family, &x->mask_src, ms, sizeof(ms));
	pt_addr_str(mt->family, &mt->src, msrc, sizeof(msrc));
	pt_addr_str(mt->family, &mt->dst, mdst, sizeof(mdst));
	/* the destination half is never masked: conntrack shows its mask as all ones */
	return snprintf(buf, len,
			"%llu proto=%u %s mask-src=%s mask-dst=%s sport=%u dport=65535 "
			"master-src=%s master-dst=%s sport=%u dport=%u%s%s class=%u%s%s",
			(unsigned long long)left, x->tuple.l4proto, tu, ms,
			x->tuple.family == AF_INET ? "255.255.255.255"
						   : "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
			x->mask_sport, msrc, mdst, mt->s.port, mt->d.port,
			(x->flags & CT_EXPECT_PERMANENT) ? " PERMANENT" : "",
			(x->flags & CT_EXPECT_INACTIVE) ? " INACTIVE" : "", x->class,
			help && help->helper ? " helper=" : "",
			help && help->helper ? help->helper->name : "");
}

unsigned ct_expect_dump(struct ct_table *t, FILE *f, uint64_t now)
{
	struct ct_helper_state *hs = t->helpers;
	unsigned n = 0;
	char line[512];

	ct_expect_sweep(t, now);
	for (struct ct_expect *x = hs ? hs->oldest : NULL; x; x = x->next) {
		ct_expect_format(x, now, line, sizeof(line));
		fprintf(f, "%s\n", line);
		n++;
	}
	return n;
}
