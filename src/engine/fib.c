/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The forwarding lookup: routes by longest prefix and the box's own addresses, as hash tables
 * built from the box's route and address lists after they change, read per packet without
 * allocating or scanning.
 *
 *   per family:  len[0] > len[1] > ...       the prefix lengths routes use, longest first
 *                   |
 *                   +-- destination & mask -> hash -> slot {net, first, n}
 *                                                              |
 *   order[]:  route indexes, grouped by prefix; in a group by metric, then the order added
 *
 * A lookup probes one table per prefix length in use (a handful on a router) and takes, at the
 * first length that has one, the first route of the group whose interface is up: the longest
 * prefix, then the lower metric, then the route added first, as the scan this replaces chose.
 * An interface going down needs no rebuild (the up flag is read at lookup).
 *
 * The address set holds each local address and, for IPv4 prefixes shorter than /31, the
 * directed broadcast address of its network (all host bits set).
 *
 * Built lazily: the first lookup after a change builds (allocation then, never in the steady
 * state). When memory runs out the lookup says so and the caller scans instead.
 *
 * In front of the per-length tables, per family, a trie of 256-way nodes, one destination byte
 * a level (a route of prefix length L fills 2^(8*ceil(L/8)-L) entries of a node at depth
 * ceil(L/8)-1, routes put in from the shortest prefix up, a longer one splitting an entry into a
 * node that starts as a copy of it):
 *
 *   node 0: [d0] -> leaf: group g (odd; group 0: nothing) | node n (even, n > 0)
 *   node n: [d1] -> ...                                  up to 4 levels (IPv4), 16 (IPv6)
 *
 * One load per level finds the longest prefix's group; its first route, when its interface is
 * up, is the answer (the common case). The box's addresses (and IPv4's directed broadcasts)
 * are /32 and /128 leaves of their own (the covering prefix's route and the address's kind), so
 * the input path learns both from one walk; a group also carries what a forwarded packet needs
 * of its route (interface, MTUs, whether it is forwarded as it is: groups_fill). A group whose
 * first route is down is the per-length tables' business (they fall back to shorter prefixes),
 * and so is a family whose trie would need more than FIB_TRIE_MAX_NODES nodes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

struct fib_slot {
	union pt_addr net;
	uint32_t first, n; /* n == 0: empty slot */
};

struct fib_len {
	int plen;
	union pt_addr mask;
	struct fib_slot *slots;
	uint32_t slot_mask; /* slots - 1, a power of two minus one */
};

#define FIB_TRIE_MAX_NODES 1024 /* 1 MB per family at most */

struct fib_addr {
	union pt_addr addr;
	uint8_t family; /* 0: empty slot */
	uint8_t kind;	/* BOX_ADDR_LOCAL | BOX_ADDR_BCAST */
};

/* Not keyed: the tables hold configured routes and addresses only, packets choose no key. */
static uint32_t addr_hash(const union pt_addr *a)
{
	uint64_t h = (uint64_t)(a->w[0] ^ a->w[1] * 0x85ebca6bu ^ a->w[2] * 0xc2b2ae35u ^
				a->w[3] * 0x27d4eb2fu) *
		     0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

/* The same for an IPv4 address (the other words are zero). */
static uint32_t addr_hash4(uint32_t w0)
{
	return (uint32_t)(((uint64_t)w0 * 0x9e3779b97f4a7c15ull) >> 32);
}

static uint32_t fib_addr_hash(int family, const union pt_addr *a)
{
	return family == AF_INET ? addr_hash4(a->w[0]) : addr_hash(a);
}

static bool addr_eq(const union pt_addr *a, const union pt_addr *b)
{
	return ((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1]) | (a->w[2] ^ b->w[2]) |
		(a->w[3] ^ b->w[3])) == 0;
}

static void addr_and(union pt_addr *out, const union pt_addr *a, const union pt_addr *m)
{
	for (unsigned i = 0; i < 4; i++)
		out->w[i] = a->w[i] & m->w[i];
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t s = 4;

	while (s < n)
		s <<= 1;
	return s;
}

static void fib_clear(struct box_fib *f)
{
	for (int x = 0; x < 2; x++) {
		for (unsigned i = 0; i < f->fam[x].nlens; i++)
			free(f->fam[x].lens[i].slots);
		free(f->fam[x].lens);
		free(f->fam[x].trie);
		free(f->fam[x].groups);
		memset(&f->fam[x], 0, sizeof(f->fam[x]));
	}
	free(f->order);
	free(f->addrs);
	f->order = NULL;
	f->addrs = NULL;
	f->addr_mask = 0;
}

struct box_fib *box_fib_new(void)
{
	struct box_fib *f = calloc(1, sizeof(*f));

	if (f)
		f->stale = true;
	return f;
}

void box_fib_free(struct box_fib *f)
{
	if (!f)
		return;
	fib_clear(f);
	free(f);
}

void box_fib_changed(struct box *b)
{
	if (b->fib) {
		b->fib->stale = true;
		b->fib->fam[0].ready = b->fib->fam[1].ready = false;
	}
}

/* Routes: family index, longest prefix first, then by network, metric, index (stable). */
static int route_order(const void *x, const void *y, void *arg)
{
	const struct box *b = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct box_route *r = &b->routes[i], *s = &b->routes[j];
	int c;

	if (box_fam_index(r->family) != box_fam_index(s->family))
		return box_fam_index(r->family) - box_fam_index(s->family);
	if (r->plen != s->plen)
		return s->plen - r->plen;
	c = memcmp(&r->net, &s->net, sizeof(r->net));
	if (c)
		return c;
	if (r->metric != s->metric)
		return r->metric < s->metric ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int build_len(struct fib_len *L, const struct box *b, const uint32_t *order, uint32_t lo,
		     uint32_t hi, int family)
{
	uint32_t groups = 0;

	for (uint32_t k = lo; k < hi; k++)
		if (k == lo || memcmp(&b->routes[order[k]].net, &b->routes[order[k - 1]].net,
				      sizeof(union pt_addr)))
			groups++;
	L->plen = b->routes[order[lo]].plen;
	pt_mask_from_len(family, L->plen, &L->mask);
	L->slot_mask = pow2_at_least(groups * 2) - 1;
	L->slots = calloc(L->slot_mask + 1, sizeof(*L->slots));
	if (!L->slots)
		return -ENOMEM;
	for (uint32_t k = lo; k < hi;) {
		const union pt_addr *net = &b->routes[order[k]].net;
		uint32_t e = k + 1, h;

		while (e < hi && addr_eq(&b->routes[order[e]].net, net))
			e++;
		for (h = fib_addr_hash(family, net) & L->slot_mask; L->slots[h].n;
		     h = (h + 1) & L->slot_mask)
			;
		L->slots[h] = (struct fib_slot){.net = *net, .first = k, .n = e - k};
		k = e;
	}
	return 0;
}

static int addr_put(struct box_fib *f, int family, const union pt_addr *a, uint8_t kind)
{
	uint32_t h;

	for (h = fib_addr_hash(family, a) & f->addr_mask; f->addrs[h].family;
	     h = (h + 1) & f->addr_mask)
		if (f->addrs[h].family == family && addr_eq(&f->addrs[h].addr, a)) {
			f->addrs[h].kind |= kind;
			return 0;
		}
	f->addrs[h] = (struct fib_addr){.addr = *a, .family = (uint8_t)family, .kind = kind};
	return 0;
}

static int build_addrs(struct box_fib *f, const struct box *b)
{
	f->addr_mask = pow2_at_least(b->naddrs * 4) - 1; /* two entries each at most, half full */
	f->addrs = calloc(f->addr_mask + 1, sizeof(*f->addrs));
	if (!f->addrs)
		return -ENOMEM;
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *x = &b->addrs[i];

		addr_put(f, x->family, &x->addr, BOX_ADDR_LOCAL);
		if (x->family == AF_INET && x->plen < 31) {
			union pt_addr m, bc = x->addr;

			pt_mask_from_len(AF_INET, x->plen, &m);
			bc.w[0] |= ~m.w[0];
			addr_put(f, AF_INET, &bc, BOX_ADDR_BCAST);
		}
	}
	return 0;
}

/* A new node, a copy of entry `fill` in every slot: its index, or 0 when the limit is met. */
static uint32_t trie_node(struct fib_family *ff, uint32_t fill)
{
	if (ff->ntrie == ff->trie_cap) {
		uint32_t cap = ff->trie_cap ? ff->trie_cap * 2 : 8;
		uint32_t(*t)[256];

		if (cap > FIB_TRIE_MAX_NODES)
			return 0;
		t = realloc(ff->trie, cap * sizeof(*t));
		if (!t)
			return 0;
		ff->trie = t;
		ff->trie_cap = cap;
	}
	for (unsigned i = 0; i < 256; i++)
		ff->trie[ff->ntrie][i] = fill;
	return ff->ntrie++;
}

/* Put the group `g` of prefix net/plen in (every shorter prefix is in already). */
static int trie_put(struct fib_family *ff, const union pt_addr *net, int plen, uint32_t g)
{
	unsigned depth = plen ? (unsigned)(plen - 1) / 8 : 0, span, lo;
	uint32_t node = 0;

	for (unsigned d = 0; d < depth; d++) {
		uint32_t *e = &ff->trie[node][net->b[d]];

		if (*e & 1) { /* a leaf (maybe group 0's): a node starting as copies of it */
			uint32_t n = trie_node(ff, *e);

			if (!n)
				return -ENOMEM;
			e = &ff->trie[node][net->b[d]]; /* the nodes may have moved */
			*e = n << 1;
		}
		node = *e >> 1;
	}
	span = 1u << (8 * (depth + 1) - (unsigned)plen);
	lo = net->b[depth] & ~(span - 1) & 0xff;
	for (unsigned i = lo; i < lo + span; i++)
		ff->trie[node][i] = g << 1 | 1;
	return 0;
}

/* Address a (kind: BOX_ADDR_*) as a leaf of its own (/32, /128), after every route is in. */
static int trie_put_addr(struct fib_family *ff, int family, const union pt_addr *a, uint8_t kind)
{
	unsigned last = family == AF_INET ? 3 : 15;
	uint32_t node = 0, *e;

	for (unsigned d = 0; d < last; d++) {
		e = &ff->trie[node][a->b[d]];
		if (*e & 1) {
			uint32_t n = trie_node(ff, *e);

			if (!n)
				return -ENOMEM;
			e = &ff->trie[node][a->b[d]];
			*e = n << 1;
		}
		node = *e >> 1;
	}
	e = &ff->trie[node][a->b[last]];
	if (ff->groups[*e >> 1].kind) { /* the same address again, or a broadcast */
		ff->groups[*e >> 1].kind |= kind;
		return 0;
	}
	ff->groups[ff->ngroups] = (struct fib_group){
	    .r = ff->groups[*e >> 1].r,
	    .kind = kind,
	};
	*e = ff->ngroups++ << 1 | 1;
	return 0;
}

/* The box's addresses of the family and IPv4 networks' broadcasts into the trie (as
 * build_addrs). */
static int trie_addrs(struct fib_family *ff, const struct box *b, int family)
{
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *x = &b->addrs[i];

		if (x->family != family)
			continue;
		if (trie_put_addr(ff, family, &x->addr, BOX_ADDR_LOCAL))
			return -ENOMEM;
		if (family == AF_INET && x->plen < 31) {
			union pt_addr m, bc = x->addr;

			pt_mask_from_len(AF_INET, x->plen, &m);
			bc.w[0] |= ~m.w[0];
			if (trie_put_addr(ff, family, &bc, BOX_ADDR_BCAST))
				return -ENOMEM;
		}
	}
	ff->kinds = true;
	return 0;
}

/*
 * What the input path needs of each group besides its route (struct fib_group): its interface,
 * MTUs, and whether a packet to it is forwarded as it is. Everything read here (the interface's
 * MTU, that it exists, the forwarding switch, box.fwd_general) marks the structure stale when
 * it changes (box.c); only the interface's up flag is read per packet.
 */
static void groups_fill(struct fib_family *ff, const struct box *b, int family)
{
	for (uint32_t i = 0; i < ff->ngroups; i++) {
		struct fib_group *g = &ff->groups[i];
		const struct box_route *r = g->r;

		g->ifc = r ? box_iface_at(b, r->oif) : NULL;
		g->fwd_mtu = r ? box_route_mtu_at(g->ifc, r, true) : 0;
		g->out_mtu = r ? box_route_mtu_at(g->ifc, r, false) : 0;
		g->fwd = r && g->ifc && r->type == BOX_RT_UNICAST && !g->kind &&
			 b->forwarding[box_fam_index(family)] && !b->fwd_general;
	}
}

/* The trie of family ff from its per-length tables (shortest first); none when too big. */
static int trie_build(struct fib_family *ff, const struct box *b, const uint32_t *order, int family)
{
	uint32_t total = 0;

	for (unsigned i = 0; i < ff->nlens; i++)
		for (uint32_t h = 0; h <= ff->lens[i].slot_mask; h++)
			total += ff->lens[i].slots[h].n != 0;
	total += 2 * b->naddrs; /* IPv4: an address and its broadcast */
	if (!total)
		return 0;
	ff->groups = malloc((total + 1) * sizeof(*ff->groups));
	if (!ff->groups)
		goto none;
	ff->groups[ff->ngroups++] = (struct fib_group){0}; /* group 0: nothing covers it */
	if (trie_node(ff, 0 << 1 | 1) != 0 || !ff->trie)
		goto none;
	for (unsigned i = ff->nlens; i-- > 0;) {
		const struct fib_len *L = &ff->lens[i];

		for (uint32_t h = 0; h <= L->slot_mask; h++) {
			const struct fib_slot *sl = &L->slots[h];

			if (!sl->n)
				continue;
			ff->groups[ff->ngroups] =
			    (struct fib_group){.r = &b->routes[order[sl->first]]};
			if (trie_put(ff, &sl->net, L->plen, ff->ngroups++))
				goto none;
		}
	}
	/* the addresses not all in (too many nodes): the leaves put in are right for routes, the
	 * kinds are the address table's (kinds false) */
	if (trie_addrs(ff, b, family))
		ff->kinds = false;
	groups_fill(ff, b, family);
	return 0;
none: /* the per-length tables answer alone */
	free(ff->trie);
	free(ff->groups);
	ff->trie = NULL;
	ff->groups = NULL;
	ff->ntrie = ff->trie_cap = ff->ngroups = 0;
	ff->kinds = false;
	return 0;
}

static int fib_build(struct box_fib *f, const struct box *b)
{
	fib_clear(f);
	if (build_addrs(f, b))
		return -ENOMEM;
	f->order = malloc((b->nroutes ? b->nroutes : 1) * sizeof(*f->order));
	if (!f->order)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nroutes; i++)
		f->order[i] = i;
	qsort_r(f->order, b->nroutes, sizeof(*f->order), route_order, (void *)b);
	for (uint32_t k = 0; k < b->nroutes;) {
		const struct box_route *r = &b->routes[f->order[k]];
		struct fib_family *ff = &f->fam[box_fam_index(r->family)];
		uint32_t e = k + 1;
		struct fib_len *nl;

		while (e < b->nroutes && b->routes[f->order[e]].plen == r->plen &&
		       box_fam_index(b->routes[f->order[e]].family) == box_fam_index(r->family))
			e++;
		nl = realloc(ff->lens, (ff->nlens + 1) * sizeof(*ff->lens));
		if (!nl)
			return -ENOMEM;
		ff->lens = nl;
		memset(&ff->lens[ff->nlens], 0, sizeof(ff->lens[0]));
		if (build_len(&ff->lens[ff->nlens++], b, f->order, k, e, r->family))
			return -ENOMEM;
		k = e;
	}
	for (int x = 0; x < 2; x++)
		trie_build(&f->fam[x], b, f->order, x ? AF_INET6 : AF_INET);
	return 0;
}

static bool fib_build_now(const struct box *b)
{
	struct box_fib *f = b->fib;

	f->broken = fib_build(f, b) != 0;
	if (f->broken)
		fib_clear(f);
	f->stale = false;
	for (int x = 0; x < 2; x++)
		f->fam[x].ready = f->fam[x].kinds;
	return !f->broken;
}

static inline bool fib_ready(const struct box *b)
{
	const struct box_fib *f = b->fib;

	if (!f)
		return false;
	if (f->stale)
		return fib_build_now(b);
	return !f->broken;
}

/* The first route of a prefix's group through an interface that is up, NULL if none. */
static const struct box_route *group_route(const struct box *b, const struct fib_slot *s)
{
	for (uint32_t k = s->first; k < s->first + s->n; k++) {
		const struct box_route *r = &b->routes[b->fib->order[k]];
		const struct box_iface *ifc = r->oif ? box_iface_at(b, r->oif) : NULL;

		if (!ifc || ifc->up)
			return r;
	}
	return NULL;
}

/* The trie's leaf for dst (group 0: nothing covers it); NULL when the per-length tables must
 * answer (no trie, or the group's first route is down). */
static inline const struct fib_group *trie_find(const struct box *b, const struct fib_family *ff,
						const union pt_addr *dst)
{
	const struct fib_group *g;

	if (!ff->trie)
		return NULL;
	g = fib_trie_leaf(ff, dst);
	if (g->r && g->r->oif) {
		const struct box_iface *ifc = box_iface_at(b, g->r->oif);

		if (ifc && !ifc->up)
			return NULL;
	}
	return g;
}

int box_fib_route(const struct box *b, int family, const union pt_addr *dst,
		  const struct box_route **out)
{
	const struct fib_family *ff;
	const struct fib_group *g;

	if (!fib_ready(b))
		return -ENOMEM;
	ff = &b->fib->fam[box_fam_index(family)];
	g = trie_find(b, ff, dst);
	if (g) {
		*out = g->r;
		return 0;
	}
	*out = NULL;
	for (unsigned i = 0; i < ff->nlens; i++) {
		const struct fib_len *L = &ff->lens[i];
		const struct fib_slot *s;
		union pt_addr key;
		uint32_t h;

		if (family == AF_INET) {
			uint32_t k4 = dst->w[0] & L->mask.w[0];

			for (h = addr_hash4(k4) & L->slot_mask; (s = &L->slots[h])->n;
			     h = (h + 1) & L->slot_mask)
				if (s->net.w[0] == k4)
					break;
		} else {
			addr_and(&key, dst, &L->mask);
			for (h = addr_hash(&key) & L->slot_mask; (s = &L->slots[h])->n;
			     h = (h + 1) & L->slot_mask)
				if (addr_eq(&s->net, &key))
					break;
		}
		if (s->n && (*out = group_route(b, s)))
			return 0;
	}
	return 0;
}

static inline int addr_kind(const struct box_fib *f, int family, const union pt_addr *a)
{
	uint32_t h;

	for (h = fib_addr_hash(family, a) & f->addr_mask; f->addrs[h].family;
	     h = (h + 1) & f->addr_mask)
		if (f->addrs[h].family == family && addr_eq(&f->addrs[h].addr, a))
			return f->addrs[h].kind;
	return 0;
}

int box_fib_addr_kind(const struct box *b, int family, const union pt_addr *a)
{
	if (!fib_ready(b))
		return -ENOMEM;
	return addr_kind(b->fib, family, a);
}

const struct box_route *box_route_input_slow(const struct box *b, int family,
					     const union pt_addr *dst, int *kind)
{
	const struct fib_family *ff;
	const struct fib_group *g;

	if (fib_ready(b)) {
		ff = &b->fib->fam[box_fam_index(family)];
		g = trie_find(b, ff, dst);
		if (g) {
			*kind = ff->kinds ? g->kind : addr_kind(b->fib, family, dst);
			return g->r;
		}
	}
	*kind = box_addr_kind(b, family, dst);
	return box_route_lookup(b, family, dst);
}
