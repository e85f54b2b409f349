// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Deciding a connection's binding: which external address and port its reply tuple gets.
 *
 *   source manip, mapping EI or AD       source manip APD (Linux), destination manip
 *   ------------------------------       ---------------------------------------------
 *   the internal endpoint's mapping      one tuple per connection: keep the port when
 *   (reused for every destination; AD:   the resulting reply tuple is unused (and no
 *   per remote address), else a new     mapping owns it), else probe from a start the
 *   one: keep the port if its bit is     mode gives (--random: keyed hash of the
 *   free, else a free port of the same   endpoints, --random-fully and default: the
 *   class and parity from a random       box PRNG), at most 128 tuples
 *   start (nat_pool_find)
 *
 * Linux mode (APD source) first reuses the translated source of the endpoint's newest live
 * connection when it lies in the rule's range and its tuple is free (bysrc.c), as Linux does.
 *
 * Port classes: 1-1023 and 1024-65535 (RFC 4787 REQ-3); with a --to range, its part in the
 * original port's class when there is one. ICMP query ids use 0-65535. Addresses of a range:
 * a hash of the internal address picks one (paired pooling, RFC 4787 REQ-2); per-tuple
 * bindings hash the destination too unless --persistent, as Linux.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat_int.h"

enum nat_behave_mode nat_range_mapping(const struct nat_range *r)
{
	if (r->mapping)
		return (enum nat_behave_mode)r->mapping;
	return r->flags & (NAT_R_RANDOM | NAT_R_RANDOM_FULLY) ? NAT_B_APD : NAT_B_EI;
}

enum nat_behave_mode nat_range_filtering(const struct nat_range *r)
{
	return r->filtering ? (enum nat_behave_mode)r->filtering : NAT_B_APD;
}

enum nat_refresh nat_range_refresh(const struct nat_range *r)
{
	return r->refresh ? (enum nat_refresh)r->refresh : NAT_REFRESH_OUTBOUND;
}

bool nat_range_hairpin(const struct nat_range *r)
{
	return r->hairpin != NAT_HAIRPIN_OFF;
}

/* ---- the binding extension --------------------------------------------------------------- */

static struct nat_binding *binding(const struct pkt *p)
{
	const struct ct_entry *e = ct_pkt_entry(p);

	return e ? ct_ext_get(e, CT_EXT_NAT) : NULL;
}

static struct nat_binding *entry_binding_add(struct ct_table *t, struct ct_entry *e)
{
	struct nat_binding *b = e ? ct_ext_add(t, e, CT_EXT_NAT) : NULL;

	if (b)
		b->entry = e;
	return b;
}

static struct nat_binding *binding_add(struct ct_table *t, struct pkt *p)
{
	return entry_binding_add(t, ct_pkt_entry(p));
}

unsigned nat_entry_status(const struct ct_entry *e)
{
	const struct nat_binding *b = e ? ct_ext_get(e, CT_EXT_NAT) : NULL;

	return b ? b->status : 0;
}

unsigned nat_entry_decided(const struct ct_entry *e)
{
	const struct nat_binding *b = e ? ct_ext_get(e, CT_EXT_NAT) : NULL;

	return b ? b->done_mask : 0;
}

int nat_request(struct ct_table *t, struct pkt *p, enum nat_manip m, const struct nat_range *r)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b;

	if (!e || !t || (e->status & CT_S_CONFIRMED))
		return -EINVAL;
	b = binding_add(t, p);
	if (!b)
		return -ENOMEM;
	if (b->done_mask & (1u << m))
		return -EEXIST;
	b->pending[m] = *r;
	b->pending_mask |= (uint8_t)(1u << m);
	return 0;
}

const struct nat_range *nat_pending(const struct pkt *p, enum nat_manip m)
{
	const struct nat_binding *b = binding(p);

	return b && (b->pending_mask & (1u << m)) ? &b->pending[m] : NULL;
}

bool nat_bound(const struct pkt *p, enum nat_manip m)
{
	const struct ct_entry *e = ct_pkt_entry(p);
	const struct nat_binding *b = binding(p);

	/* A confirmed entry went through both NAT hooks: decided, maybe as a null binding that
	 * left no extension. Its later original-direction packets are NEW until a reply. */
	if (e && (e->status & CT_S_CONFIRMED))
		return true;
	return b && (b->done_mask & (1u << m));
}

int nat_entry_adopt(struct nat_table *n, struct ct_entry *e)
{
	const struct ct_tuple *orig = &e->th[CT_DIR_ORIGINAL].tuple;
	struct ct_tuple cur;
	struct nat_binding *b;
	uint8_t status = 0;

	if (!(e->status & CT_S_CONFIRMED) || ct_tuple_invert(&e->th[CT_DIR_REPLY].tuple, &cur))
		return -EINVAL;
	if (!pt_addr_eq(&orig->src, &cur.src) || orig->s.all != cur.s.all)
		status |= NAT_ST_SRC;
	if (!pt_addr_eq(&orig->dst, &cur.dst) || orig->d.all != cur.d.all)
		status |= NAT_ST_DST;
	if (!status)
		return 0; /* a null binding leaves no extension */
	if (ct_ext_find(e, CT_EXT_NAT))
		return -EEXIST;
	if (!(b = ct_ext_add(n->ct, e, CT_EXT_NAT)))
		return -ENOMEM;
	b->entry = e;
	b->done_mask = (1u << NAT_MANIP_SRC) | (1u << NAT_MANIP_DST);
	b->status = status;
	/* in the by-source index like a binding made here, so the next connection from that
	 * source reuses the translated source (as on the box that made it) */
	nat_bysrc_add(n, e, b);
	b->counted = true;
	n->stats.bindings++;
	return 1;
}

bool nat_entry_mapping(const struct pkt *p, union pt_addr *ext_addr, uint16_t *ext_port)
{
	const struct nat_binding *b = binding(p);

	if (!b || !b->map)
		return false;
	*ext_addr = b->map->ext_addr;
	*ext_port = b->map->ext_port;
	return true;
}

/* ---- tuples ------------------------------------------------------------------------------ */

/* The original direction as it looks after the manips decided so far. */
static void current_tuple(const struct ct_entry *e, struct ct_tuple *cur)
{
	ct_tuple_invert(&e->th[CT_DIR_REPLY].tuple, cur);
}

static bool has_port(uint8_t l4proto, enum nat_manip m)
{
	return pkt_proto(l4proto)->ports || (m == NAT_MANIP_SRC && pkt_proto(l4proto)->icmp);
}

static uint16_t tuple_port(const struct ct_tuple *t, enum nat_manip m)
{
	return m == NAT_MANIP_SRC ? t->s.port : t->d.port;
}

static void tuple_set(struct ct_tuple *t, enum nat_manip m, const union pt_addr *a, int port)
{
	if (m == NAT_MANIP_SRC) {
		t->src = *a;
		if (port >= 0)
			t->s.port = (uint16_t)port;
	} else {
		t->dst = *a;
		if (port >= 0)
			t->d.port = (uint16_t)port;
	}
}

/* Would a connection with this original tuple clash with one in the table? */
static bool tuple_taken(struct nat_table *n, const struct ct_tuple *cand, uint64_t now)
{
	struct ct_tuple reply;

	if (ct_tuple_invert(cand, &reply))
		return false;
	return ct_lookup(n->ct, &reply, now, NULL) != NULL;
}

/*
 * Is the port of pool pl free? A set bit whose mapping can go (nat_mapping_reap) is freed on
 * the spot. The caller holds a reference on pl (pool_hold), so freeing a mapping never frees
 * the pool under it.
 */
static bool port_free(struct nat_table *n, struct nat_pool *pl, uint16_t port, uint64_t now)
{
	if (!nat_pool_test(pl, port))
		return true;
	nat_mapping_find_ext(n, pl->family, &pl->addr, port, pl->l4proto, pl->zone, now);
	return !nat_pool_test(pl, port);
}

/* A pool's `used` doubles as its reference count while a binding is being decided. */
static void pool_hold(struct nat_pool *pl)
{
	if (pl)
		pl->used++;
}

static void pool_release(struct nat_table *n, struct nat_pool *pl)
{
	if (pl) {
		pl->used--;
		nat_pool_put(n, pl);
	}
}

static void apply(struct nat_table *n, struct ct_entry *e, struct nat_binding *b, enum nat_manip m,
		  const struct ct_tuple *cand)
{
	const struct ct_tuple *orig = &e->th[CT_DIR_ORIGINAL].tuple;
	bool changed;

	ct_tuple_invert(cand, &e->th[CT_DIR_REPLY].tuple);
	if (m == NAT_MANIP_SRC)
		changed = !pt_addr_eq(&orig->src, &cand->src) || orig->s.all != cand->s.all;
	else
		changed = !pt_addr_eq(&orig->dst, &cand->dst) || orig->d.all != cand->d.all;
	b->done_mask |= (uint8_t)(1u << m);
	b->pending_mask &= (uint8_t) ~(1u << m);
	if (changed) {
		b->status |= (uint8_t)(1u << m);
		n->stats.bindings++;
	} else {
		n->stats.null_bindings++;
	}
}

/* ---- addresses and ports ----------------------------------------------------------------- */

/* Number of addresses in [min, max] (IPv6: of the low 64 bits when the high ones agree, else
 * 2^32; a reversed range, which iptables accepts, counts as its first address). */
static uint64_t addr_count(int family, const union pt_addr *min, const union pt_addr *max)
{
	uint64_t lo, hi;

	if (pt_addr_cmp(min, max) >= 0)
		return 1;
	if (family == AF_INET)
		return (uint64_t)__builtin_bswap32(max->w[0]) - __builtin_bswap32(min->w[0]) + 1;
	if (memcmp(min->b, max->b, 8))
		return 1ull << 32;
	memcpy(&lo, min->b + 8, 8);
	memcpy(&hi, max->b + 8, 8);
	lo = __builtin_bswap64(lo);
	hi = __builtin_bswap64(hi);
	return hi - lo == UINT64_MAX ? UINT64_MAX : hi - lo + 1;
}

static void addr_add(int family, const union pt_addr *min, uint64_t k, union pt_addr *out)
{
	*out = *min;
	if (family == AF_INET) {
		out->w[0] = __builtin_bswap32((uint32_t)(__builtin_bswap32(min->w[0]) + k));
	} else {
		uint64_t lo;

		memcpy(&lo, min->b + 8, 8);
		lo = __builtin_bswap64(__builtin_bswap64(lo) + k);
		memcpy(out->b + 8, &lo, 8);
	}
}

static void pick_addr(struct nat_table *n, const struct nat_range *r, const struct ct_tuple *cur,
		      enum nat_manip m, bool client_only, unsigned attempt, union pt_addr *out)
{
	uint64_t count, h;
	union pt_addr key[2];

	if (!(r->flags & NAT_R_MAP_IPS)) {
		*out = m == NAT_MANIP_SRC ? cur->src : cur->dst;
		return;
	}
	count = addr_count(r->family, &r->min_addr, &r->max_addr);
	if (count == 1) {
		*out = r->min_addr;
		return;
	}
	key[0] = cur->src;
	memset(&key[1], 0, sizeof(key[1]));
	if (!client_only && !(r->flags & NAT_R_PERSISTENT))
		key[1] = cur->dst;
	h = nat_hash(n, key, sizeof(key), 3);
	addr_add(r->family, &r->min_addr, (h + attempt) % count, out);
}

static void port_range(const struct nat_range *r, uint8_t l4proto, uint16_t want, uint16_t *lo,
		       uint16_t *hi)
{
	uint16_t clo = want < 1024 ? 1 : 1024, chi = want < 1024 ? 1023 : 65535;

	if (pkt_proto(l4proto)->icmp) {
		clo = 0;
		chi = 65535;
	}
	if (!(r->flags & NAT_R_PROTO)) {
		*lo = clo;
		*hi = chi;
		return;
	}
	*lo = r->min_port;
	*hi = r->max_port;
	/* stay in the original port's class when the range has ports of it */
	if (*lo <= chi && *hi >= clo) {
		if (*lo < clo)
			*lo = clo;
		if (*hi > chi)
			*hi = chi;
	}
}

static uint16_t probe_start(struct nat_table *n, const struct nat_range *r,
			    const struct ct_tuple *cur, uint16_t want, uint16_t lo, uint16_t hi)
{
	uint32_t size = (uint32_t)hi - lo + 1, v;

	/* a shift (PORT-PORT/BASE) maps the port to min + (port - base) mod size, as the
	 * kernel's NF_NAT_RANGE_PROTO_OFFSET; taken ports are searched on from there */
	if (r->flags & NAT_R_PROTO_OFFSET)
		return (uint16_t)(lo + (uint16_t)(want - r->base_port) % size);
	if ((r->flags & NAT_R_RANDOM) && !(r->flags & NAT_R_RANDOM_FULLY)) {
		/* per destination, unpredictable without the key: the kernel's --random */
		struct {
			union pt_addr s, d;
			uint16_t dport;
			uint8_t proto, pad;
		} k;

		memset(&k, 0, sizeof(k));
		k.s = cur->src;
		k.d = cur->dst;
		k.dport = cur->d.port;
		k.proto = cur->l4proto;
		v = (uint32_t)nat_hash(n, &k, sizeof(k), 4);
	} else if (n->random) {
		v = n->random(n->rpriv);
	} else {
		v = (uint32_t)nat_hash(n, cur, sizeof(*cur), 5);
	}
	return (uint16_t)(lo + v % size);
}

/* ---- source mappings (EI, AD) ------------------------------------------------------------ */

static bool mapping_fits(const struct nat_mapping *mp, const struct nat_range *r, uint16_t lo,
			 uint16_t hi)
{
	if ((r->flags & NAT_R_MAP_IPS) && (pt_addr_cmp(&mp->ext_addr, &r->min_addr) < 0 ||
					   (pt_addr_cmp(&r->min_addr, &r->max_addr) < 0
						? pt_addr_cmp(&mp->ext_addr, &r->max_addr) > 0
						: !pt_addr_eq(&mp->ext_addr, &r->min_addr))))
		return false;
	return !(r->flags & NAT_R_PROTO) || (mp->ext_port >= lo && mp->ext_port <= hi);
}

/* 1 done (*out set), 0 use a per-tuple binding instead, -ENOSPC. */
static int bind_mapping(struct nat_table *n, struct ct_entry *e, struct nat_binding *b,
			const struct nat_range *r, enum nat_behave_mode mode,
			const struct nat_where *w, uint64_t now, struct ct_tuple *cand)
{
	struct ct_tuple cur;
	struct nat_mapping *mp;
	uint16_t want, lo, hi;
	bool keep = !(r->flags & (NAT_R_RANDOM | NAT_R_RANDOM_FULLY | NAT_R_PROTO_OFFSET));
	unsigned attempts;
	const union pt_addr *remote;

	current_tuple(e, &cur);
	remote = mode == NAT_B_AD ? &cur.dst : NULL;
	want = cur.s.port;
	port_range(r, cur.l4proto, want, &lo, &hi);
	mp =
	    nat_mapping_find_int(n, cur.family, &cur.src, want, cur.l4proto, cur.zone, remote, now);
	if (mp) {
		if (!mapping_fits(mp, r, lo, hi))
			return 0; /* made by another rule for another range */
		*cand = cur;
		tuple_set(cand, NAT_MANIP_SRC, &mp->ext_addr, mp->ext_port);
		if (tuple_taken(n, cand, now))
			return 0;
		b->map = mp;
		n->stats.mappings_reused++;
		return 1;
	}
	attempts = (r->flags & NAT_R_MAP_IPS) ? 16 : 1;
	for (unsigned a = 0; a < attempts; a++) {
		union pt_addr ext, first;
		struct nat_pool *pl;
		int port = -1;

		pick_addr(n, r, &cur, NAT_MANIP_SRC, true, a, &ext);
		if (!a)
			first = ext;
		else if (pt_addr_eq(&ext, &first))
			break; /* wrapped round a small range */
		*cand = cur;
		cand->src = ext;
		pl = nat_pool_get(n, cur.family, &ext, cur.l4proto, cur.zone, true);
		if (!pl)
			return -ENOSPC;
		pool_hold(pl);
		if (keep && want >= lo && want <= hi && port_free(n, pl, want, now)) {
			cand->s.port = want;
			if (!tuple_taken(n, cand, now))
				port = want;
		}
		if (port < 0) {
			uint16_t start = probe_start(n, r, &cur, want, lo, hi);
			bool reaped = false;

			/* a few tries: a free bit can still be a per-tuple binding's tuple */
			for (int t = 0; t < 8 && port < 0; t++) {
				int f = nat_pool_find(pl, lo, hi, start, want & 1);

				if (f < 0)
					f = nat_pool_find(pl, lo, hi, start, -1);
				if (f < 0 && !reaped) {
					/* full: first free the mappings whose time is up */
					reaped = true;
					nat_sweep(n, now, n->stats.mappings);
					t--;
					continue;
				}
				if (f < 0)
					break;
				cand->s.port = (uint16_t)f;
				if (!tuple_taken(n, cand, now))
					port = f;
				else
					start = (uint16_t)(f == hi ? lo : f + 1);
			}
		}
		pl->used--; /* the hold: the new mapping takes the port's reference */
		if (port >= 0) {
			mp = nat_mapping_new(n, pl, (uint16_t)port, &cur, r, mode, w, now);
			if (!mp) {
				nat_pool_put(n, pl);
				return -ENOSPC;
			}
			if (port == want)
				n->stats.port_preserved++;
			else
				n->stats.port_changed++;
			b->map = mp;
			return 1;
		}
		nat_pool_put(n, pl);
	}
	n->stats.exhausted++;
	return -ENOSPC;
}

/* ---- per-tuple bindings (APD source, destination) ---------------------------------------- */

/* Does the range hold this address and port (the kernel's in_range; a reversed address
 * range, which iptables accepts, holds its first address)? */
static bool range_holds(const struct nat_range *r, const union pt_addr *a, uint16_t port)
{
	if ((r->flags & NAT_R_MAP_IPS) &&
	    (pt_addr_cmp(a, &r->min_addr) < 0 ||
	     (pt_addr_cmp(&r->min_addr, &r->max_addr) < 0 ? pt_addr_cmp(a, &r->max_addr) > 0
							  : !pt_addr_eq(a, &r->min_addr))))
		return false;
	return !(r->flags & NAT_R_PROTO) || (port >= r->min_port && port <= r->max_port);
}

/*
 * Linux mode, a source outside the range: the translated source of the newest live
 * connection from the same original source that lies in the range, when the tuple it gives
 * towards this destination is free (no connection, no mapping owns the port). Linux does this
 * before it keeps or chooses a port (find_appropriate_src), so an endpoint whose port a clash
 * changed keeps the new port for its other destinations. Like Linux, only the first
 * connection in the range is tried.
 */
static bool reuse_source(struct nat_table *n, const struct nat_range *r, const struct ct_tuple *cur,
			 uint64_t now, struct ct_tuple *cand)
{
	struct ct_entry *e = nat_bysrc_first(n, cur);

	for (unsigned i = 0; e && i < NAT_BYSRC_SCAN; i++, e = nat_bysrc_next(e)) {
		struct ct_tuple t, c;
		struct nat_pool *pl;
		bool ok;

		if (now >= e->expires || (e->status & CT_S_DYING))
			continue; /* gone for the box clock, swept or not */
		current_tuple(e, &t);
		if (!range_holds(r, &t.src, t.s.port))
			continue;
		c = *cur;
		c.src = t.src;
		c.s.all = t.s.all;
		pl = nat_pool_get(n, cur->family, &t.src, cur->l4proto, cur->zone, false);
		pool_hold(pl);
		ok = (!pl || port_free(n, pl, t.s.port, now)) && !tuple_taken(n, &c, now);
		pool_release(n, pl);
		if (ok)
			*cand = c;
		return ok;
	}
	return false;
}

static int bind_tuple(struct nat_table *n, struct ct_entry *e, enum nat_manip m,
		      const struct nat_range *r, bool linux_src, uint64_t now,
		      struct ct_tuple *cand)
{
	struct ct_tuple cur;
	union pt_addr a;
	struct nat_pool *pl;
	uint16_t want, lo, hi;
	uint32_t size, tries;
	bool keep = !(r->flags & (NAT_R_RANDOM | NAT_R_RANDOM_FULLY | NAT_R_PROTO_OFFSET));

	current_tuple(e, &cur);
	pick_addr(n, r, &cur, m, false, 0, &a);
	*cand = cur;
	tuple_set(cand, m, &a, -1);
	if (!has_port(cur.l4proto, m))
		return 0;
	want = tuple_port(&cur, m);
	if (m == NAT_MANIP_DST && !(r->flags & NAT_R_PROTO))
		return 0; /* no ports given: the destination port stays */
	if (linux_src && keep && !range_holds(r, &cur.src, want) &&
	    reuse_source(n, r, &cur, now, cand)) {
		n->stats.source_reused++;
		if (cand->s.port == want)
			n->stats.port_preserved++;
		else
			n->stats.port_changed++;
		return 0;
	}
	port_range(r, cur.l4proto, want, &lo, &hi);
	if (m == NAT_MANIP_DST) {
		lo = r->min_port;
		hi = r->max_port;
	}
	pl = m == NAT_MANIP_SRC ? nat_pool_get(n, cur.family, &a, cur.l4proto, cur.zone, false)
				: NULL;
	pool_hold(pl);
	if (keep && want >= lo && want <= hi && (!pl || port_free(n, pl, want, now))) {
		tuple_set(cand, m, &a, want);
		if (!tuple_taken(n, cand, now)) {
			if (m == NAT_MANIP_SRC)
				n->stats.port_preserved++;
			pool_release(n, pl);
			return 0;
		}
	}
	if (!(r->flags & NAT_R_PROTO) && !pkt_proto(cur.l4proto)->icmp && want < 1024) {
		/* per connection, as Linux searches: 1-511 for ports under 512, else 600-1023 */
		lo = want < 512 ? 1 : 600;
		hi = want < 512 ? 511 : 1023;
	}
	size = (uint32_t)hi - lo + 1;
	tries = size < 128 ? size : 128;
	{
		uint16_t start = probe_start(n, r, &cur, want, lo, hi);

		for (uint32_t i = 0; i < tries; i++) {
			uint16_t port = (uint16_t)(lo + ((uint32_t)start - lo + i) % size);

			if (pl && !port_free(n, pl, port, now))
				continue;
			tuple_set(cand, m, &a, port);
			if (!tuple_taken(n, cand, now)) {
				if (m == NAT_MANIP_SRC)
					n->stats.port_changed++;
				pool_release(n, pl);
				return 0;
			}
		}
	}
	pool_release(n, pl);
	n->stats.exhausted++;
	return -ENOSPC;
}

/* nat_setup's work on an entry that is not in the table yet. */
static int setup_entry(struct nat_table *n, struct ct_entry *e, enum nat_manip m,
		       const struct nat_range *r, const struct nat_where *w, uint64_t now)
{
	struct nat_binding *b;
	struct ct_tuple cand;
	enum nat_behave_mode mode = nat_range_mapping(r);
	int err = 0;

	if (!e || (e->status & CT_S_CONFIRMED) || e->th[0].tuple.family != r->family)
		return -EINVAL;
	b = entry_binding_add(n->ct, e);
	if (!b)
		return -ENOMEM;
	if (b->done_mask & (1u << m))
		return -EEXIST;
	if (m == NAT_MANIP_SRC && mode != NAT_B_APD && has_port(e->th[0].tuple.l4proto, m))
		err = bind_mapping(n, e, b, r, mode, w, now, &cand);
	if (err == 0)
		err = bind_tuple(n, e, m, r, m == NAT_MANIP_SRC && mode == NAT_B_APD, now, &cand);
	if (err < 0)
		return err;
	if (m == NAT_MANIP_SRC && (r->flags & NAT_R_MASQUERADE) && w)
		b->masq_if = w->out;
	apply(n, e, b, m, &cand);
	return 0;
}

int nat_setup(struct nat_table *n, struct pkt *p, enum nat_manip m, const struct nat_range *r,
	      const struct nat_where *w, uint64_t now)
{
	return setup_entry(n, ct_pkt_entry(p), m, r, w, now);
}

int nat_bind_entry(struct nat_table *n, struct ct_entry *e, const struct nat_range *src,
		   const struct nat_range *dst, uint64_t now)
{
	const struct nat_range *want[2] = {[NAT_MANIP_SRC] = src, [NAT_MANIP_DST] = dst};
	static const enum nat_manip order[2] = {NAT_MANIP_DST, NAT_MANIP_SRC};

	if (!e || (e->status & CT_S_CONFIRMED) || (!src && !dst))
		return -EINVAL;
	for (int i = 0; i < 2; i++) {
		enum nat_manip m = order[i];
		struct nat_range r;
		int err;

		if (!want[m]) {
			struct nat_binding *b = entry_binding_add(n->ct, e);
			struct ct_tuple cur;

			if (!b)
				return -ENOMEM;
			current_tuple(e, &cur);
			apply(n, e, b, m, &cur); /* decided as no change: the _DONE bit */
			continue;
		}
		r = *want[m];
		/* one connection's own translation: a per-tuple binding, never a mapping */
		r.mapping = NAT_B_APD;
		r.flags &= (uint16_t)(NAT_R_MAP_IPS | NAT_R_PROTO);
		if ((err = setup_entry(n, e, m, &r, NULL, now)) < 0)
			return err;
	}
	return 0;
}

int nat_setup_null(struct nat_table *n, struct pkt *p, enum nat_manip m)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b;
	struct ct_tuple cur;

	if (!e || (e->status & CT_S_CONFIRMED))
		return -EINVAL;
	b = ct_ext_find(e, CT_EXT_NAT);
	if (!b) {
		/* nothing to remember: an entry without the extension is a null binding */
		n->stats.null_bindings++;
		return 0;
	}
	if (b->done_mask & (1u << m))
		return 0;
	current_tuple(e, &cur);
	apply(n, e, b, m, &cur);
	return 0;
}

/* ---- inbound connections to a mapping ---------------------------------------------------- */

static bool addr_is_multicast(int family, const union pt_addr *a)
{
	return family == AF_INET ? (a->b[0] & 0xf0) == 0xe0 : a->b[0] == 0xff;
}

/*
 * A peer that is a multicast group stands for its members, who answer from their own
 * addresses: address-dependent filtering admits any address after a packet to a group, and
 * address-and-port-dependent any address from the group's port (SSDP, mDNS queries).
 */
static bool filter_admits(const struct nat_mapping *mp, const struct ct_tuple *cur, uint64_t now)
{
	if (mp->filtering == NAT_B_EI)
		return true;
	for (unsigned i = 0; i < mp->npeers; i++) {
		const struct nat_peer *pe = &mp->peer[i];

		if (pe->last + mp->timeout <= now)
			continue;
		if (!pt_addr_eq(&pe->addr, &cur->src) && !addr_is_multicast(mp->family, &pe->addr))
			continue;
		if (mp->filtering == NAT_B_AD || pe->port == cur->s.port)
			return true;
	}
	return false;
}

int nat_inbound(struct nat_table *n, struct pkt *p, const struct nat_where *w, uint64_t now)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b;
	struct nat_mapping *mp;
	struct ct_tuple cur, cand;
	bool hairpin;

	if (!e || (e->status & CT_S_CONFIRMED) || nat_bound(p, NAT_MANIP_DST))
		return 0;
	current_tuple(e, &cur);
	if (!pkt_proto(cur.l4proto)->ports)
		return 0;
	mp = nat_mapping_find_ext(n, cur.family, &cur.dst, cur.d.port, cur.l4proto, cur.zone, now);
	if (!mp)
		return 0;
	hairpin = mp->out && w && w->in && w->in != mp->out;
	if (hairpin && !mp->hairpin)
		return 0; /* as Linux: the packet goes to the box itself */
	if (!hairpin && !filter_admits(mp, &cur, now)) {
		n->stats.inbound_filtered++;
		/* RFC 5382 REQ-4: held if the box accepts it (nat_syn_hold at INPUT) */
		if (cur.l4proto == IPPROTO_TCP && p->info.has_l4 &&
		    (p->info.tcp_flags & 0x12) == 0x02) {
			b = binding_add(n->ct, p);
			if (b)
				b->syn_refused = true;
		}
		return 0;
	}
	cand = cur;
	tuple_set(&cand, NAT_MANIP_DST, &mp->int_addr, mp->int_port);
	if (tuple_taken(n, &cand, now))
		return 0;
	b = binding_add(n->ct, p);
	if (!b)
		return -ENOMEM;
	apply(n, e, b, NAT_MANIP_DST, &cand);
	b->inmap = mp;
	if (mp->refresh == NAT_REFRESH_BOTH)
		nat_mapping_refresh(n, mp, now);
	if (hairpin) {
		struct nat_where hw = {.in = w->in, .out = mp->out};

		n->stats.hairpinned++;
		/* the sender appears as its own mapping (RFC 4787 REQ-9) */
		if (!(b->done_mask & (1u << NAT_MANIP_SRC)))
			nat_setup(n, p, NAT_MANIP_SRC, &mp->range, &hw, now);
	} else {
		n->stats.inbound++;
	}
	return 1;
}
