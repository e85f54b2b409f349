// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The by-source index of the Linux-compatible mode: per original source endpoint, its live
 * connections whose source a per-tuple binding changed. Linux looks there before choosing a
 * new source for a connection (find_appropriate_src over nf_nat_bysource), so an inside
 * endpoint whose port was changed by a clash, or mapped into a port range, keeps that port
 * for its next connections to other destinations.
 *
 *   src_hash[h(zone, family, proto, addr, port)] -> node -> node ...     (distinct sources)
 *   node: addr, port, ... count, head -> entry <-> entry <-> entry        (newest first,
 *                                         through the bindings' src_link)
 *
 * Kept in sync by the conntrack events (nat.c ct_event): NEW adds, DESTROY removes; a node
 * goes with its last connection. The hash has as many buckets as the mapping hashes; a lookup
 * walks one chain of distinct sources and then at most NAT_BYSRC_SCAN connections.
 */
#include <stdlib.h>
#include <string.h>

#include "nat/nat_int.h"

struct src_key {
	union pt_addr a;
	uint16_t port, zone;
	uint8_t family, l4proto;
	uint8_t pad[2];
};

static uint32_t src_bucket(const struct nat_table *n, const struct ct_tuple *t)
{
	struct src_key k;

	memset(&k, 0, sizeof(k));
	k.a = t->src;
	k.port = t->s.all;
	k.zone = t->zone;
	k.family = t->family;
	k.l4proto = t->l4proto;
	return (uint32_t)nat_hash_bucket(n, &k, sizeof(k), 6) & n->hmask;
}

static bool node_is(const struct nat_srcnode *s, const struct ct_tuple *t)
{
	return s->family == t->family && s->l4proto == t->l4proto && s->port == t->s.all &&
	       s->zone == t->zone && pt_addr_eq(&s->addr, &t->src);
}

static struct nat_binding *bind_of(const struct ct_entry *e)
{
	return ct_ext_find(e, CT_EXT_NAT);
}

static struct nat_srcnode *node_find(struct nat_table *n, const struct ct_tuple *t,
				     struct nat_srcnode ***where)
{
	struct nat_srcnode **pp = &n->src_hash[src_bucket(n, t)];

	for (; *pp; pp = &(*pp)->next)
		if (node_is(*pp, t))
			break;
	if (where)
		*where = pp;
	return *pp;
}

void nat_bysrc_add(struct nat_table *n, struct ct_entry *e, struct nat_binding *b)
{
	const struct ct_tuple *orig = &e->th[CT_DIR_ORIGINAL].tuple;
	struct nat_srcnode **pp, *s;

	if (!n->src_hash || b->src || b->map || !(b->status & NAT_ST_SRC))
		return;
	s = node_find(n, orig, &pp);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return; /* not indexed: its source is only not reused */
		s->addr = orig->src;
		s->port = orig->s.all;
		s->zone = orig->zone;
		s->family = orig->family;
		s->l4proto = orig->l4proto;
		*pp = s;
	}
	b->src = s;
	b->src_link[0] = NULL;
	b->src_link[1] = s->head;
	if (s->head)
		bind_of(s->head)->src_link[0] = e;
	s->head = e;
	s->count++;
}

void nat_bysrc_del(struct nat_table *n, struct ct_entry *e, struct nat_binding *b)
{
	struct nat_srcnode *s = b->src, **pp;
	struct ct_entry *prev = b->src_link[0], *next = b->src_link[1];

	if (!s)
		return;
	(void)e;
	if (prev)
		bind_of(prev)->src_link[1] = next;
	else
		s->head = next;
	if (next)
		bind_of(next)->src_link[0] = prev;
	b->src = NULL;
	b->src_link[0] = b->src_link[1] = NULL;
	if (--s->count)
		return;
	for (pp = &n->src_hash[src_bucket(n, &e->th[CT_DIR_ORIGINAL].tuple)]; *pp;
	     pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	free(s);
}

struct ct_entry *nat_bysrc_first(struct nat_table *n, const struct ct_tuple *cur)
{
	struct nat_srcnode *s = n->src_hash ? node_find(n, cur, NULL) : NULL;

	return s ? s->head : NULL;
}

struct ct_entry *nat_bysrc_next(const struct ct_entry *e)
{
	return bind_of(e)->src_link[1];
}

void nat_bysrc_free(struct nat_table *n)
{
	if (!n->src_hash)
		return;
	for (uint32_t i = 0; i <= n->hmask; i++)
		for (struct nat_srcnode *s = n->src_hash[i], *nx; s; s = nx) {
			nx = s->next;
			free(s);
		}
	free(n->src_hash);
	n->src_hash = NULL;
}
