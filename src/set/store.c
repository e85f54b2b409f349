// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Element storage of every set type (set.h draws the layout): packing keys, the hash with its
 * prefix-length list, the bitmaps, list:set members; add, delete, test, expiry.
 *
 * A hash lookup hashes the packed key once per prefix length present in the set (hash:net-like
 * types, longest first, the first live element wins: a nomatch one says "no"), else once: O(1)
 * per set for a fixed number of prefix lengths. A bitmap lookup is an index. list:set tests
 * its members in order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/hash.h"
#include "set/set_int.h"

/* ---- keys -------------------------------------------------------------------------------- */

static uint16_t dim_len(const struct set *s, unsigned d)
{
	switch (d) {
	case SET_D_IP:
		return s->alen;
	case SET_D_NET:
		return (uint16_t)(s->alen + 1);
	case SET_D_PORT:
		return 3;
	case SET_D_IFACE:
		return SET_IFACE_MAX + 1;
	case SET_D_MAC:
		return 6;
	default:
		return 4;
	}
}

void set_key_pack(const struct set *s, const struct set_key *k, uint8_t *out)
{
	unsigned ai = 0;

	memset(out, 0, s->keylen);
	for (unsigned i = 0; i < s->c.type->ndims; i++) {
		unsigned d = s->c.type->dims[i];

		switch (d) {
		case SET_D_IP:
			memcpy(out, &k->ip[ai++], s->alen);
			break;
		case SET_D_NET:
			memcpy(out, &k->ip[ai], s->alen);
			out[s->alen] = k->cidr[ai++];
			break;
		case SET_D_PORT:
			out[0] = k->proto;
			out[1] = (uint8_t)(k->port >> 8);
			out[2] = (uint8_t)k->port;
			break;
		case SET_D_IFACE:
			memcpy(out, k->iface, strnlen(k->iface, SET_IFACE_MAX));
			out[SET_IFACE_MAX] = k->physdev;
			break;
		case SET_D_MAC:
			memcpy(out, k->mac, 6);
			break;
		default: {
			uint32_t v = htonl(k->set_id);

			memcpy(out, &v, 4);
		}
		}
		out += dim_len(s, d);
	}
}

void set_key_unpack(const struct set *s, const uint8_t *in, struct set_key *k)
{
	unsigned ai = 0;

	memset(k, 0, sizeof(*k));
	for (unsigned i = 0; i < s->c.type->ndims; i++) {
		unsigned d = s->c.type->dims[i];

		switch (d) {
		case SET_D_IP:
			memcpy(&k->ip[ai], in, s->alen);
			k->cidr[ai++] = (uint8_t)(s->alen * 8);
			break;
		case SET_D_NET:
			memcpy(&k->ip[ai], in, s->alen);
			k->cidr[ai++] = in[s->alen];
			break;
		case SET_D_PORT:
			k->proto = in[0];
			k->port = (uint16_t)(in[1] << 8 | in[2]);
			break;
		case SET_D_IFACE:
			memcpy(k->iface, in, SET_IFACE_MAX);
			k->iface[SET_IFACE_MAX - 1] = '\0';
			k->physdev = in[SET_IFACE_MAX];
			break;
		case SET_D_MAC:
			memcpy(k->mac, in, 6);
			break;
		default: {
			uint32_t v;

			memcpy(&v, in, 4);
			k->set_id = ntohl(v);
		}
		}
		in += dim_len(s, d);
	}
}

/* ---- a set ------------------------------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = SET_HASH_MIN;

	while (p < n && p < SET_HASH_MAX)
		p <<= 1;
	return p;
}

struct set *set_alloc(const struct set_create *c, const uint64_t key[2])
{
	struct set *s = calloc(1, sizeof(*s));
	size_t off = 0;

	if (!s)
		return NULL;
	s->c = *c;
	s->alen = c->family == AF_INET6 ? 16 : 4;
	s->netdim = -1;
	for (unsigned i = 0; i < c->type->ndims; i++) {
		s->keylen = (uint16_t)(s->keylen + dim_len(s, c->type->dims[i]));
		if (c->type->dims[i] == SET_D_NET)
			s->netdim = (int)i;
	}
	if (c->counters) {
		s->off_cnt = (uint16_t)off;
		off += sizeof(struct set_counters);
	}
	if (c->skbinfo) {
		s->off_skb = (uint16_t)off;
		off += 16;
	}
	if (c->comment) {
		s->off_comment = (uint16_t)off;
		off += sizeof(char *);
	}
	s->off_key = (uint16_t)off;
	s->elem_size = (uint16_t)(sizeof(struct set_elem) + off + s->keylen);
	s->key[0] = key[0] ^ c->initval;
	s->key[1] = key[1] ^ ((uint64_t)c->initval << 32);
	switch (c->type->kind) {
	case SET_K_HASH:
		s->nbuckets = pow2_at_least(c->hashsize ? c->hashsize : 1024);
		s->c.hashsize = s->nbuckets;
		s->bucket = calloc(s->nbuckets, sizeof(*s->bucket));
		s->mem = s->nbuckets * sizeof(*s->bucket);
		break;
	case SET_K_BITMAP_IP: {
		unsigned shift = 32 - (c->netmask ? c->netmask : 32);

		s->nslot = ((ntohl(c->to.w[0]) - ntohl(c->from.w[0])) >> shift) + 1;
		s->slot = calloc(s->nslot, sizeof(*s->slot));
		s->mem = s->nslot * sizeof(*s->slot);
		break;
	}
	case SET_K_BITMAP_PORT:
		s->nslot = (uint32_t)(c->pto - c->pfrom) + 1;
		s->slot = calloc(s->nslot, sizeof(*s->slot));
		s->mem = s->nslot * sizeof(*s->slot);
		break;
	case SET_K_LIST:
		s->nslot = c->size ? c->size : 8;
		s->c.size = s->nslot;
		s->slot = calloc(s->nslot, sizeof(*s->slot));
		s->mem = s->nslot * sizeof(*s->slot);
		break;
	}
	if ((c->type->kind == SET_K_HASH && !s->bucket) ||
	    (c->type->kind != SET_K_HASH && !s->slot)) {
		free(s);
		return NULL;
	}
	s->mem += sizeof(*s);
	return s;
}

static void elem_free(struct set_table *t, struct set *s, struct set_elem *e)
{
	char **cm = set_elem_comment(s, e);

	s->mem -= s->elem_size + (cm && *cm ? strlen(*cm) + 1 : 0);
	if (cm)
		free(*cm);
	s->count--;
	free(e);
}

static void net_count(struct set *s, const uint8_t *packed, int delta)
{
	unsigned off = 0, cidr;

	if (s->netdim < 0)
		return;
	for (int i = 0; i < s->netdim; i++) {
		unsigned d = s->c.type->dims[i];

		off += d == SET_D_IP ? s->alen : d == SET_D_PORT ? 3 : SET_IFACE_MAX + 1;
	}
	cidr = packed[off + s->alen];
	s->netcount[cidr] = (uint32_t)((int64_t)s->netcount[cidr] + delta);
	if (delta > 0 && s->netcount[cidr] != 1)
		return;
	if (delta < 0 && s->netcount[cidr] != 0)
		return;
	s->ncidrs = 0;
	for (unsigned c = 129; c-- > 0;)
		if (s->netcount[c])
			s->cidrs[s->ncidrs++] = (uint8_t)c;
}

void set_free_elems(struct set_table *t, struct set *s)
{
	if (s->c.type->kind == SET_K_HASH) {
		for (uint32_t b = 0; b < s->nbuckets; b++)
			while (s->bucket[b]) {
				struct set_elem *e = s->bucket[b];

				s->bucket[b] = e->next;
				elem_free(t, s, e);
			}
		memset(s->netcount, 0, sizeof(s->netcount));
		s->ncidrs = 0;
	} else {
		for (uint32_t i = 0; i < s->nslot; i++)
			if (s->slot[i]) {
				elem_free(t, s, s->slot[i]);
				s->slot[i] = NULL;
			}
		s->nmember = 0;
	}
}

void set_free(struct set_table *t, struct set *s)
{
	if (!s)
		return;
	set_free_elems(t, s);
	free(s->bucket);
	free(s->slot);
	free(s);
}

bool set_elem_live(const struct set_elem *e, uint64_t now)
{
	return !e->expires || now < e->expires;
}

/* ---- hash -------------------------------------------------------------------------------- */

static uint32_t hash_bucket(const struct set *s, const uint8_t *packed, uint32_t nbuckets)
{
	return (uint32_t)pkt_hash(s->key, packed, s->keylen) & (nbuckets - 1);
}

static struct set_elem **hash_find(struct set *s, const uint8_t *packed)
{
	struct set_elem **pp = &s->bucket[hash_bucket(s, packed, s->nbuckets)];

	for (; *pp; pp = &(*pp)->next)
		if (!memcmp((*pp)->data + s->off_key, packed, s->keylen))
			return pp;
	return NULL;
}

/* Doubling, when the average chain passes SET_CHAIN_AVG; a failed allocation leaves it be. */
static void hash_grow(struct set *s)
{
	uint32_t n = s->nbuckets * 2;
	struct set_elem **nb;

	if (s->count <= s->nbuckets * SET_CHAIN_AVG || s->nbuckets >= SET_HASH_MAX)
		return;
	if (!(nb = calloc(n, sizeof(*nb))))
		return;
	for (uint32_t b = 0; b < s->nbuckets; b++)
		while (s->bucket[b]) {
			struct set_elem *e = s->bucket[b];
			uint32_t nbk = hash_bucket(s, e->data + s->off_key, n);

			s->bucket[b] = e->next;
			e->next = nb[nbk];
			nb[nbk] = e;
		}
	free(s->bucket);
	s->mem += (n - s->nbuckets) * sizeof(*nb);
	s->bucket = nb;
	s->nbuckets = n;
	s->c.hashsize = n;
}

/* ---- where an element lives -------------------------------------------------------------- */

/* The slot of key k in a bitmap, or -1 when out of range. */
static long bitmap_index(const struct set *s, const struct set_key *k)
{
	if (s->c.type->kind == SET_K_BITMAP_IP) {
		uint32_t a = ntohl(k->ip[0].w[0]), lo = ntohl(s->c.from.w[0]);
		unsigned shift = 32 - (s->c.netmask ? s->c.netmask : 32);

		if (a < lo || a > ntohl(s->c.to.w[0]))
			return -1;
		return (long)((a - lo) >> shift);
	}
	if (k->port < s->c.pfrom || k->port > s->c.pto)
		return -1;
	return (long)(k->port - s->c.pfrom);
}

static long list_index(const struct set *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nmember; i++) {
		struct set_key k;

		set_key_unpack(s, s->slot[i]->data + s->off_key, &k);
		if (k.set_id == id)
			return (long)i;
	}
	return -1;
}

/* The address where the element of key k sits (or would), NULL if it cannot be in s. */
static struct set_elem **elem_place(struct set *s, const struct set_key *k, uint8_t *packed)
{
	long i;

	switch (s->c.type->kind) {
	case SET_K_HASH: {
		struct set_elem **pp;

		set_key_pack(s, k, packed);
		pp = hash_find(s, packed);
		return pp ? pp : &s->bucket[hash_bucket(s, packed, s->nbuckets)];
	}
	case SET_K_LIST:
		set_key_pack(s, k, packed);
		i = list_index(s, k->set_id);
		return i < 0 ? NULL : &s->slot[i];
	default: {
		/* a bitmap stores the start of the element's block (netmask) */
		struct set_key c = *k;

		if ((i = bitmap_index(s, k)) < 0)
			return NULL;
		if (s->c.type->kind == SET_K_BITMAP_IP) {
			unsigned shift = 32 - (s->c.netmask ? s->c.netmask : 32);

			c.ip[0].w[0] = htonl(ntohl(s->c.from.w[0]) + ((uint32_t)i << shift));
		}
		set_key_pack(s, &c, packed);
		return &s->slot[i];
	}
	}
}

static bool place_holds(const struct set *s, struct set_elem **pp, const uint8_t *packed)
{
	return pp && *pp && !memcmp((*pp)->data + s->off_key, packed, s->keylen);
}

struct set_elem *set_lookup(struct set *s, const struct set_key *k, uint64_t now)
{
	uint8_t packed[SET_KEY_MAX];
	struct set_elem **pp;

	if (s->c.type->kind == SET_K_HASH && s->netdim >= 0) {
		struct set_key m = *k;
		unsigned ai = 0;

		for (int i = 0; i < s->netdim; i++)
			ai += s->c.type->dims[i] == SET_D_IP;
		for (unsigned c = 0; c < s->ncidrs; c++) {
			union pt_addr mask;

			pt_mask_from_len(s->alen == 4 ? AF_INET : AF_INET6, s->cidrs[c], &mask);
			for (unsigned w = 0; w < 4; w++)
				m.ip[ai].w[w] = k->ip[ai].w[w] & mask.w[w];
			m.cidr[ai] = s->cidrs[c];
			set_key_pack(s, &m, packed);
			pp = hash_find(s, packed);
			if (pp && set_elem_live(*pp, now))
				return *pp;
		}
		return NULL;
	}
	pp = elem_place(s, k, packed);
	return place_holds(s, pp, packed) && set_elem_live(*pp, now) ? *pp : NULL;
}

int set_has(struct set *s, const struct set_key *k, uint64_t now)
{
	uint8_t packed[SET_KEY_MAX];
	struct set_elem **pp = elem_place(s, k, packed);

	if (!pp)
		return -SET_E_RANGE;
	return place_holds(s, pp, packed) && set_elem_live(*pp, now);
}

/* ---- add, delete, test ------------------------------------------------------------------- */

static int opts_allowed(const struct set *s, const struct set_elem_opts *o)
{
	if (o->has_timeout && !s->c.has_timeout)
		return -SET_E_NOTIMEOUT;
	if ((o->has_packets || o->has_bytes) && !s->c.counters)
		return -SET_E_NOCOUNTERS;
	if (o->has_comment && !s->c.comment)
		return -SET_E_NOCOMMENT;
	if ((o->has_mark || o->has_prio || o->has_queue) && !s->c.skbinfo)
		return -SET_E_NOSKBINFO;
	return 0;
}

/* The extensions of an add, on a new element or (-exist) an old one. */
static int elem_init(struct set *s, struct set_elem *e, const struct set_elem_opts *o, uint64_t now,
		     bool fresh)
{
	struct set_counters *cn = set_elem_counters(s, e);
	struct set_skbinfo *sk = set_elem_skbinfo(s, e);
	char **cm = set_elem_comment(s, e);
	uint32_t tmo = o->has_timeout ? o->timeout : s->c.timeout;

	e->expires = s->c.has_timeout && tmo ? now + (uint64_t)tmo * SET_NS_PER_S : 0;
	e->flags = o->nomatch ? SET_EF_NOMATCH : 0;
	if (cn) {
		if (fresh || o->has_packets)
			cn->packets = o->has_packets ? o->packets : 0;
		if (fresh || o->has_bytes)
			cn->bytes = o->has_bytes ? o->bytes : 0;
	}
	if (sk) {
		sk->mark = o->has_mark ? o->skbmark : 0;
		sk->mask = o->has_mark ? o->skbmarkmask : 0;
		sk->prio = o->has_prio ? o->skbprio : 0;
		sk->queue = o->has_queue ? o->skbqueue : 0;
	}
	if (cm) {
		char *c = NULL;

		if (o->has_comment && o->comment[0] && !(c = strdup(o->comment)))
			return -SET_E_NOMEM;
		if (*cm)
			s->mem -= strlen(*cm) + 1;
		free(*cm);
		*cm = c;
		if (c)
			s->mem += strlen(c) + 1;
	}
	return 0;
}

static struct set_elem *elem_new(struct set *s, const uint8_t *packed)
{
	struct set_elem *e = calloc(1, s->elem_size);

	if (!e)
		return NULL;
	memcpy(e->data + s->off_key, packed, s->keylen);
	s->count++;
	s->mem += s->elem_size;
	return e;
}

/* A new element with the extensions of an add: 0, or -SET_E_* with nothing left behind. */
static int elem_make(struct set *s, const uint8_t *packed, const struct set_elem_opts *o,
		     uint64_t now, struct set_elem **out)
{
	struct set_elem *e = elem_new(s, packed);
	int rc;

	if (!e)
		return -SET_E_NOMEM;
	if ((rc = elem_init(s, e, o, now, true)) < 0) {
		s->count--;
		s->mem -= s->elem_size;
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* Unlink and free the element at *pp (hash chain or bitmap slot; lists use list_remove). */
static void elem_remove(struct set_table *t, struct set *s, struct set_elem **pp)
{
	struct set_elem *e = *pp;

	if (s->c.type->kind == SET_K_HASH) {
		*pp = e->next;
		net_count(s, e->data + s->off_key, -1);
	} else {
		*pp = NULL;
	}
	elem_free(t, s, e);
}

static void list_remove(struct set_table *t, struct set *s, long i)
{
	elem_free(t, s, s->slot[i]);
	memmove(&s->slot[i], &s->slot[i + 1], (s->nmember - (uint32_t)i - 1) * sizeof(*s->slot));
	s->slot[--s->nmember] = NULL;
}

static void list_expire(struct set_table *t, struct set *s, uint64_t now)
{
	for (uint32_t i = s->nmember; i-- > 0;)
		if (!set_elem_live(s->slot[i], now))
			list_remove(t, s, (long)i);
}

static int list_add(struct set_table *t, struct set *s, const struct set_key *k,
		    const struct set_elem_opts *o, unsigned flags, uint64_t now)
{
	struct set *m = k->set_id < SET_MAX_SETS ? t->slot[k->set_id] : NULL;
	uint8_t packed[SET_KEY_MAX];
	long at = (long)s->nmember, i;
	struct set_elem *e;
	int rc;

	list_expire(t, s, now);
	if (!m)
		return -SET_E_LISTNOSET;
	if (m->c.type->kind == SET_K_LIST)
		return -SET_E_LISTLOOP;
	if (o->position) {
		long r = list_index(s, o->ref_id);

		if (r < 0)
			return -SET_E_LISTREF;
		at = o->position < 0 ? r : r + 1;
	}
	if ((i = list_index(s, k->set_id)) >= 0) {
		if (!(flags & SET_F_EXIST))
			return -SET_E_EXIST;
		return elem_init(s, s->slot[i], o, now, false);
	}
	if (s->nmember >= s->nslot)
		return -SET_E_LISTFULL;
	set_key_pack(s, k, packed);
	if ((rc = elem_make(s, packed, o, now, &e)) < 0)
		return rc;
	memmove(&s->slot[at + 1], &s->slot[at], (s->nmember - (uint32_t)at) * sizeof(*s->slot));
	s->slot[at] = e;
	s->nmember++;
	return 0;
}

int set_add(struct set_table *t, struct set *s, const struct set_key *k,
	    const struct set_elem_opts *o, unsigned flags, uint64_t now)
{
	uint8_t packed[SET_KEY_MAX];
	struct set_elem **pp, *e;
	int rc;

	if ((rc = opts_allowed(s, o)) < 0)
		return rc;
	if (s->c.type->kind == SET_K_LIST)
		return list_add(t, s, k, o, flags, now);
	if (!(pp = elem_place(s, k, packed)))
		return -SET_E_RANGE;
	if (place_holds(s, pp, packed)) {
		bool live = set_elem_live(*pp, now);

		if (live && !(flags & SET_F_EXIST))
			return -SET_E_EXIST;
		return elem_init(s, *pp, o, now, !live);
	}
	if (s->c.type->kind == SET_K_HASH && s->count >= s->c.maxelem) {
		/* room from the expired first (the whole set, as the kernel's gc on a full set),
		 * then (forceadd) the first element of the new one's bucket */
		struct set_elem **b = pp;

		for (uint32_t i = 0; s->c.has_timeout && i < s->nbuckets; i++) {
			for (struct set_elem **q = &s->bucket[i]; *q;) {
				if (!set_elem_live(*q, now))
					elem_remove(t, s, q);
				else
					q = &(*q)->next;
			}
		}
		if (s->count >= s->c.maxelem) {
			if (!s->c.forceadd || !*b) {
				if (t)
					t->stat_full++;
				return -SET_E_FULL;
			}
			elem_remove(t, s, b);
			if (t)
				t->stat_forced++;
		}
	}
	if ((rc = elem_make(s, packed, o, now, &e)) < 0)
		return rc;
	if (s->c.type->kind == SET_K_HASH) {
		e->next = *pp;
		*pp = e;
		net_count(s, packed, 1);
		hash_grow(s);
	} else {
		*pp = e;
	}
	return 0;
}

int set_del(struct set_table *t, struct set *s, const struct set_key *k,
	    const struct set_elem_opts *o, unsigned flags, uint64_t now)
{
	uint8_t packed[SET_KEY_MAX];
	struct set_elem **pp;

	if (s->c.type->kind == SET_K_LIST) {
		long i;

		list_expire(t, s, now);
		if (!(k->set_id < SET_MAX_SETS && t->slot[k->set_id]))
			return -SET_E_LISTNOSET;
		i = list_index(s, k->set_id);
		if (i >= 0 && o && o->position) {
			long r = list_index(s, o->ref_id);

			if (r < 0 || r != (o->position < 0 ? i + 1 : i - 1))
				i = -1;
		}
		if (i < 0)
			return flags & SET_F_EXIST ? 0 : -SET_E_NOELEM;
		list_remove(t, s, i);
		return 0;
	}
	if (!(pp = elem_place(s, k, packed)))
		return -SET_E_RANGE;
	if (!place_holds(s, pp, packed) || !set_elem_live(*pp, now)) {
		if (place_holds(s, pp, packed))
			elem_remove(t, s, pp);
		return flags & SET_F_EXIST ? 0 : -SET_E_NOELEM;
	}
	elem_remove(t, s, pp);
	return 0;
}

int set_test(struct set_table *t, struct set *s, const struct set_key *k,
	     const struct set_elem_opts *o, uint64_t now)
{
	uint8_t packed[SET_KEY_MAX];
	struct set_elem **pp;

	if (s->c.type->kind == SET_K_LIST) {
		long i;

		if (!(k->set_id < SET_MAX_SETS && t->slot[k->set_id]))
			return -SET_E_LISTNOSET;
		i = list_index(s, k->set_id);
		if (i < 0 || !set_elem_live(s->slot[i], now))
			return 0;
		if (o && o->position) {
			long r = list_index(s, o->ref_id);

			if (r < 0)
				return -SET_E_LISTREF;
			return r == (o->position < 0 ? i + 1 : i - 1);
		}
		return 1;
	}
	/* a test names one element exactly, as ipset's userspace test does (a hash:net test of
	 * an address finds the networks holding it: the lookup path) */
	if (s->c.type->kind == SET_K_HASH && s->netdim >= 0) {
		unsigned ai = 0;

		for (int i = 0; i < s->netdim; i++)
			ai += s->c.type->dims[i] == SET_D_IP;
		if (k->cidr[ai] == s->alen * 8) {
			struct set_elem *e = set_lookup(s, k, now);

			return e && !(e->flags & SET_EF_NOMATCH);
		}
	}
	if (!(pp = elem_place(s, k, packed)))
		return -SET_E_RANGE;
	return place_holds(s, pp, packed) && set_elem_live(*pp, now) &&
	       !((*pp)->flags & SET_EF_NOMATCH);
}

/* ---- expiry and walking ------------------------------------------------------------------ */

void set_sweep_one(struct set_table *t, struct set *s, uint64_t now, unsigned budget)
{
	if (!s->c.has_timeout)
		return;
	if (s->c.type->kind == SET_K_LIST) {
		list_expire(t, s, now);
		return;
	}
	if (s->c.type->kind != SET_K_HASH) {
		for (; budget-- && s->nslot;) {
			uint32_t i = s->sweep_pos++ % s->nslot;

			if (s->slot[i] && !set_elem_live(s->slot[i], now)) {
				elem_remove(t, s, &s->slot[i]);
				t->stat_expired++;
			}
		}
		return;
	}
	for (; budget--;) {
		uint32_t b = s->sweep_pos++ & (s->nbuckets - 1);

		for (struct set_elem **q = &s->bucket[b]; *q;)
			if (!set_elem_live(*q, now)) {
				elem_remove(t, s, q);
				t->stat_expired++;
			} else {
				q = &(*q)->next;
			}
	}
}

void set_walk(const struct set *s, uint64_t now, void (*fn)(void *arg, const struct set_elem *e),
	      void *arg)
{
	if (s->c.type->kind == SET_K_HASH) {
		for (uint32_t b = 0; b < s->nbuckets; b++)
			for (const struct set_elem *e = s->bucket[b]; e; e = e->next)
				if (set_elem_live(e, now))
					fn(arg, e);
		return;
	}
	for (uint32_t i = 0; i < s->nslot; i++)
		if (s->slot[i] && set_elem_live(s->slot[i], now))
			fn(arg, s->slot[i]);
}

static struct set_elem *elem_dup(const struct set *s, const struct set_elem *e)
{
	struct set_elem *n = malloc(s->elem_size);
	char **cm;

	if (!n)
		return NULL;
	memcpy(n, e, s->elem_size);
	n->next = NULL;
	if ((cm = set_elem_comment(s, n)) && *cm && !(*cm = strdup(*cm))) {
		free(n);
		return NULL;
	}
	return n;
}

struct set *set_clone(const struct set *s)
{
	struct set *n = malloc(sizeof(*n));
	size_t arr = s->c.type->kind == SET_K_HASH ? s->nbuckets : s->nslot;

	if (!n)
		return NULL;
	*n = *s;
	n->bucket = NULL;
	n->slot = calloc(arr, sizeof(struct set_elem *));
	if (!n->slot) {
		free(n);
		return NULL;
	}
	if (s->c.type->kind == SET_K_HASH) {
		n->bucket = n->slot;
		n->slot = NULL;
		for (uint32_t b = 0; b < s->nbuckets; b++) {
			struct set_elem **tail = &n->bucket[b];

			for (const struct set_elem *e = s->bucket[b]; e; e = e->next) {
				if (!(*tail = elem_dup(s, e)))
					goto nomem;
				tail = &(*tail)->next;
			}
		}
		return n;
	}
	for (uint32_t i = 0; i < s->nslot; i++)
		if (s->slot[i] && !(n->slot[i] = elem_dup(s, s->slot[i])))
			goto nomem;
	return n;
nomem:
	/* a partial copy: free what was made without counting (the counters are the source's) */
	if (n->bucket) {
		for (uint32_t b = 0; b < n->nbuckets; b++)
			while (n->bucket[b]) {
				struct set_elem *e = n->bucket[b];
				char **cm = set_elem_comment(n, e);

				n->bucket[b] = e->next;
				if (cm)
					free(*cm);
				free(e);
			}
		free(n->bucket);
	} else {
		for (uint32_t i = 0; i < n->nslot; i++)
			if (n->slot[i]) {
				char **cm = set_elem_comment(n, n->slot[i]);

				if (cm)
					free(*cm);
				free(n->slot[i]);
			}
		free(n->slot);
	}
	free(n);
	return NULL;
}
