// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT table of a box: port bitmaps per (external address, protocol), the mapping table
 * hashed both ways, mapping lifetime (connections + timer), and the conntrack events that
 * tie them together.
 *
 *   int_hash: (internal addr, port, proto, zone[, remote addr]) -> mapping
 *   ext_hash: (external addr, port, proto, zone)                 -> mapping
 *   age list: least recently refreshed first (nat_sweep walks it from the head)
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "nat/nat_int.h"
#include "pkt/hash.h"

#define NAT_SEC 1000000000ull

void nat_config_default(struct nat_config *c)
{
	c->max_mappings = 65536;
	c->max_pools = 1024;
	c->udp_timeout = 300 * NAT_SEC;
	c->tcp_timeout = 7440 * NAT_SEC;
	c->icmp_timeout = 60 * NAT_SEC;
	c->other_timeout = 300 * NAT_SEC;
	c->tcp_transitory_timeout = 240 * NAT_SEC;
	c->syn_hold_timeout = 6 * NAT_SEC;
	c->syn_hold_max = 64;
}

/* pkt_hash (SipHash-2-4) under the table's secret; the salt separates the uses (buckets of
 * each hash, --random's port offsets) so that one use's values tell nothing of another's. */
uint64_t nat_hash(const struct nat_table *n, const void *data, size_t len, uint64_t salt)
{
	const uint64_t key[2] = {n->secret[0] ^ salt, n->secret[1]};

	return pkt_hash(key, data, len);
}

/* The same for a bucket index, with SipHash-1-3 (pkt_hash13): a bucket never leaves the box,
 * as conntrack's (ct/table.c); port offsets that a peer sees keep nat_hash. */
uint64_t nat_hash_bucket(const struct nat_table *n, const void *data, size_t len, uint64_t salt)
{
	const uint64_t key[2] = {n->secret[0] ^ salt, n->secret[1]};

	return pkt_hash13(key, data, len);
}

static void ct_event(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why);

struct nat_table *nat_table_new(struct ct_table *ct, const struct nat_config *c,
				uint32_t (*random)(void *), void *rpriv)
{
	struct nat_table *n = calloc(1, sizeof(*n));
	uint32_t buckets = 1;
	int err;

	if (!n)
		return NULL;
	n->ct = ct;
	if (c)
		n->cfg = *c;
	else
		nat_config_default(&n->cfg);
	if (!n->cfg.max_mappings)
		n->cfg.max_mappings = 1;
	if (n->cfg.udp_timeout < 120 * NAT_SEC) /* RFC 4787 REQ-5 */
		n->cfg.udp_timeout = 120 * NAT_SEC;
	n->random = random;
	n->rpriv = rpriv;
	for (int i = 0; i < 2; i++)
		n->secret[i] = random ? (uint64_t)random(rpriv) << 32 | random(rpriv)
				      : 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
	while (buckets < n->cfg.max_mappings / 2 && buckets < (1u << 20))
		buckets <<= 1;
	n->hmask = buckets - 1;
	n->pmask = 255;
	n->int_hash = calloc(buckets, sizeof(*n->int_hash));
	n->ext_hash = calloc(buckets, sizeof(*n->ext_hash));
	n->pool_hash = calloc(n->pmask + 1, sizeof(*n->pool_hash));
	n->src_hash = calloc(buckets, sizeof(*n->src_hash));
	if (!n->int_hash || !n->ext_hash || !n->pool_hash || !n->src_hash)
		goto fail;
	err = ct_ext_register(ct, CT_EXT_NAT, sizeof(struct nat_binding));
	if (!err)
		err = ct_event_subscribe(ct, ct_event, n);
	if (err) {
		errno = -err;
		goto fail;
	}
	return n;
fail:
	free(n->src_hash);
	free(n->int_hash);
	free(n->ext_hash);
	free(n->pool_hash);
	free(n);
	if (!errno)
		errno = ENOMEM;
	return NULL;
}

void nat_table_free(struct nat_table *n)
{
	if (!n)
		return;
	ct_event_unsubscribe(n->ct, ct_event, n);
	nat_held_free(n);
	for (struct nat_mapping *m = n->oldest, *nx; m; m = nx) {
		nx = m->next;
		free(m);
	}
	for (uint32_t i = 0; i <= n->pmask; i++)
		for (struct nat_pool *p = n->pool_hash[i], *nx; p; p = nx) {
			nx = p->next;
			free(p);
		}
	nat_bysrc_free(n);
	free(n->int_hash);
	free(n->ext_hash);
	free(n->pool_hash);
	free(n);
}

const struct nat_stats *nat_table_stats(const struct nat_table *n)
{
	return &n->stats;
}

/* ---- port bitmaps ------------------------------------------------------------------------ */

static uint32_t pool_bucket(const struct nat_table *n, const union pt_addr *a, uint8_t l4proto,
			    uint16_t zone)
{
	return (uint32_t)nat_hash_bucket(n, a, sizeof(*a), (uint64_t)l4proto << 16 | zone) &
	       n->pmask;
}

struct nat_pool *nat_pool_get(struct nat_table *n, int family, const union pt_addr *a,
			      uint8_t l4proto, uint16_t zone, bool create)
{
	uint32_t b = pool_bucket(n, a, l4proto, zone);
	struct nat_pool *pl;

	for (pl = n->pool_hash[b]; pl; pl = pl->next)
		if (pl->family == family && pl->l4proto == l4proto && pl->zone == zone &&
		    pt_addr_eq(&pl->addr, a))
			return pl;
	if (!create)
		return NULL;
	if (n->stats.pools >= n->cfg.max_pools) {
		n->stats.table_full++;
		return NULL;
	}
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->addr = *a;
	pl->family = (uint8_t)family;
	pl->l4proto = l4proto;
	pl->zone = zone;
	pl->next = n->pool_hash[b];
	n->pool_hash[b] = pl;
	n->stats.pools++;
	return pl;
}

void nat_pool_put(struct nat_table *n, struct nat_pool *pl)
{
	uint32_t b;

	if (pl->used)
		return;
	b = pool_bucket(n, &pl->addr, pl->l4proto, pl->zone);
	for (struct nat_pool **pp = &n->pool_hash[b]; *pp; pp = &(*pp)->next)
		if (*pp == pl) {
			*pp = pl->next;
			break;
		}
	n->stats.pools--;
	free(pl);
}

bool nat_pool_test(const struct nat_pool *pl, uint16_t port)
{
	return pl && (pl->bits[port >> 6] >> (port & 63) & 1);
}

static void pool_set(struct nat_pool *pl, uint16_t port)
{
	unsigned w = port >> 6;

	pl->bits[w] |= 1ull << (port & 63);
	pl->used++;
	if (pl->bits[w] == ~0ull)
		pl->full[w >> 6] |= 1ull << (w & 63);
}

static void pool_clear(struct nat_pool *pl, uint16_t port)
{
	unsigned w = port >> 6;

	pl->bits[w] &= ~(1ull << (port & 63));
	pl->full[w >> 6] &= ~(1ull << (w & 63));
	pl->used--;
}

/* Free ports of word w inside [lo, hi], of the parity asked for. */
static uint64_t word_free(const struct nat_pool *pl, unsigned w, uint16_t lo, uint16_t hi,
			  int parity)
{
	uint64_t f = pl ? ~pl->bits[w] : ~0ull;
	unsigned base = w * 64;

	if (lo > base)
		f &= ~0ull << (lo - base);
	if (hi < base + 63)
		f &= ~0ull >> (63 - (hi - base));
	if (parity == 0)
		f &= 0x5555555555555555ull;
	else if (parity == 1)
		f &= 0xaaaaaaaaaaaaaaaaull;
	return f;
}

/*
 * Words are visited from start's word upwards, wrapping at hi to lo, skipping full words 64 at
 * a time through `full`. Cost, whatever the occupancy: at most 16 reads of `full` plus the
 * words tried. A word that is not full has a free port, so without a parity preference the
 * first non-full word answers unless its free ports lie outside [lo, hi] (only the two edge
 * words): at most 16 + 3 word reads. With a parity preference at most 64 non-full words are
 * tried before the caller falls back to any parity: worst case 16 + 64 + 16 + 3 = 99.
 */
int nat_pool_find(const struct nat_pool *pl, uint16_t lo, uint16_t hi, uint16_t start, int parity)
{
	unsigned wlo = lo >> 6, whi = hi >> 6, ws, nw, tried = 0, i = 0;

	if (lo > hi)
		return -ENOSPC;
	if (start < lo || start > hi)
		start = lo;
	ws = start >> 6;
	nw = whi - wlo + 1;
	while (i <= nw) {
		unsigned w = wlo + (ws - wlo + i) % nw;
		uint64_t f;

		if (pl && (pl->full[w >> 6] >> (w & 63) & 1)) {
			/* jump to the next word that is not full, within this summary word */
			uint64_t nf = ~pl->full[w >> 6] & (~0ull << (w & 63));
			unsigned next = (w & ~63u) + (nf ? (unsigned)__builtin_ctzll(nf) : 64);

			if (next > whi + 1)
				next = whi + 1;
			i += next - w;
			continue;
		}
		f = word_free(pl, w, lo, hi, parity);
		if (i == 0)
			f &= ~0ull << (start & 63); /* the low part of start's word comes last */
		else if (i == nw)
			f &= ~(~0ull << (start & 63));
		if (f)
			return (int)(w * 64 + (unsigned)__builtin_ctzll(f));
		if (parity >= 0 && ++tried >= 64)
			return -ENOSPC;
		i++;
	}
	return -ENOSPC;
}

/* ---- mappings ---------------------------------------------------------------------------- */

struct int_key {
	union pt_addr a, remote;
	uint16_t port, zone;
	uint8_t family, l4proto;
	uint8_t pad[2];
};

struct ext_key {
	union pt_addr a;
	uint16_t port, zone;
	uint8_t family, l4proto;
	uint8_t pad[2];
};

static uint32_t int_bucket(const struct nat_table *n, int family, const union pt_addr *a,
			   uint16_t port, uint8_t l4proto, uint16_t zone,
			   const union pt_addr *remote)
{
	struct int_key k;

	memset(&k, 0, sizeof(k));
	k.a = *a;
	if (remote)
		k.remote = *remote;
	k.port = port;
	k.zone = zone;
	k.family = (uint8_t)family;
	k.l4proto = l4proto;
	return (uint32_t)nat_hash_bucket(n, &k, sizeof(k), 1) & n->hmask;
}

static uint32_t ext_bucket(const struct nat_table *n, int family, const union pt_addr *a,
			   uint16_t port, uint8_t l4proto, uint16_t zone)
{
	struct ext_key k;

	memset(&k, 0, sizeof(k));
	k.a = *a;
	k.port = port;
	k.zone = zone;
	k.family = (uint8_t)family;
	k.l4proto = l4proto;
	return (uint32_t)nat_hash_bucket(n, &k, sizeof(k), 2) & n->hmask;
}

void nat_mapping_free(struct nat_table *n, struct nat_mapping *m)
{
	struct nat_mapping **pp;
	uint32_t b;

	b = int_bucket(n, m->family, &m->int_addr, m->int_port, m->l4proto, m->zone,
		       m->mode == NAT_B_AD ? &m->remote : NULL);
	for (pp = &n->int_hash[b]; *pp; pp = &(*pp)->int_next)
		if (*pp == m) {
			*pp = m->int_next;
			break;
		}
	b = ext_bucket(n, m->family, &m->ext_addr, m->ext_port, m->l4proto, m->zone);
	for (pp = &n->ext_hash[b]; *pp; pp = &(*pp)->ext_next)
		if (*pp == m) {
			*pp = m->ext_next;
			break;
		}
	nat_age_del(n, m);
	pool_clear(m->pool, m->ext_port);
	nat_pool_put(n, m->pool);
	n->stats.mappings--;
	free(m);
}

/*
 * A connection past its timeout still counts in conns until the conntrack sweep (or a lookup
 * of its tuple) removes it, which may be much later: it must not keep the port. Such entries
 * are removed here, as ct_lookup would, so the answer depends only on the box clock.
 */
bool nat_mapping_reap(struct nat_table *n, struct nat_mapping *m, uint64_t now)
{
	if (m->expires > now)
		return false;
	for (int k = 0; k < 2 && m->conns; k++)
		for (struct ct_entry *e = m->conn_head[k], *nx; e; e = nx) {
			struct nat_binding *b = ct_ext_find(e, CT_EXT_NAT);

			nx = b->conn_link[k][1];
			if (now >= e->expires) {
				n->ct->stats.expired++;
				ct_kill_reason(n->ct, e, CT_GONE_TIMEOUT); /* ct_event unlinks it */
			}
		}
	return !m->conns;
}

/* Expired mappings met on the way are removed. */
struct nat_mapping *nat_mapping_find_int(struct nat_table *n, int family, const union pt_addr *a,
					 uint16_t port, uint8_t l4proto, uint16_t zone,
					 const union pt_addr *remote, uint64_t now)
{
	uint32_t b = int_bucket(n, family, a, port, l4proto, zone, remote);

	for (struct nat_mapping *m = n->int_hash[b], *nx; m; m = nx) {
		nx = m->int_next;
		if (m->family != family || m->l4proto != l4proto || m->int_port != port ||
		    m->zone != zone || !pt_addr_eq(&m->int_addr, a) ||
		    (m->mode == NAT_B_AD) != (remote != NULL) ||
		    (remote && !pt_addr_eq(&m->remote, remote)))
			continue;
		if (nat_mapping_reap(n, m, now)) {
			n->stats.mappings_expired++;
			nat_mapping_free(n, m);
			return NULL;
		}
		return m;
	}
	return NULL;
}

struct nat_mapping *nat_mapping_find_ext(struct nat_table *n, int family, const union pt_addr *a,
					 uint16_t port, uint8_t l4proto, uint16_t zone,
					 uint64_t now)
{
	uint32_t b = ext_bucket(n, family, a, port, l4proto, zone);

	for (struct nat_mapping *m = n->ext_hash[b], *nx; m; m = nx) {
		nx = m->ext_next;
		if (m->family != family || m->l4proto != l4proto || m->ext_port != port ||
		    m->zone != zone || !pt_addr_eq(&m->ext_addr, a))
			continue;
		if (nat_mapping_reap(n, m, now)) {
			n->stats.mappings_expired++;
			nat_mapping_free(n, m);
			return NULL;
		}
		return m;
	}
	return NULL;
}

struct nat_mapping *nat_mapping_new(struct nat_table *n, struct nat_pool *pl, uint16_t port,
				    const struct ct_tuple *orig, const struct nat_range *r,
				    enum nat_behave_mode mode, const struct nat_where *w,
				    uint64_t now)
{
	struct nat_mapping *m;
	uint32_t b;

	if (n->stats.mappings >= n->cfg.max_mappings) {
		/* room only by removing a mapping whose time is up */
		if (!n->oldest || !nat_mapping_reap(n, n->oldest, now) ||
		    nat_sweep(n, now, 8) == 0) {
			n->stats.table_full++;
			return NULL;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->pool = pl;
	m->family = orig->family;
	m->l4proto = orig->l4proto;
	m->zone = orig->zone;
	m->int_addr = orig->src;
	m->int_port = orig->s.port;
	m->ext_addr = pl->addr;
	m->ext_port = port;
	m->mode = (uint8_t)mode;
	if (mode == NAT_B_AD)
		m->remote = orig->dst;
	m->filtering = (uint8_t)nat_range_filtering(r);
	m->refresh = (uint8_t)nat_range_refresh(r);
	m->hairpin = nat_range_hairpin(r);
	m->range = *r;
	m->in = w ? w->in : 0;
	m->out = w ? w->out : 0;
	m->timeout = nat_timeout(n, orig->l4proto);
	m->expires = now + m->timeout;
	pool_set(pl, port);
	b = int_bucket(n, m->family, &m->int_addr, m->int_port, m->l4proto, m->zone,
		       mode == NAT_B_AD ? &m->remote : NULL);
	m->int_next = n->int_hash[b];
	n->int_hash[b] = m;
	b = ext_bucket(n, m->family, &m->ext_addr, m->ext_port, m->l4proto, m->zone);
	m->ext_next = n->ext_hash[b];
	n->ext_hash[b] = m;
	nat_age_add(n, m);
	n->stats.mappings++;
	n->stats.mappings_created++;
	return m;
}

unsigned nat_sweep(struct nat_table *n, uint64_t now, unsigned max)
{
	unsigned gone = 0;
	struct nat_mapping *m = n->oldest, *nx;

	nat_held_expire(n, now);
	for (unsigned i = 0; m && i < max; i++, m = nx) {
		nx = m->next;
		n->sweep_seen++;
		if (nat_mapping_reap(n, m, now)) {
			n->stats.mappings_expired++;
			nat_mapping_free(n, m);
			gone++;
		}
	}
	return gone;
}

unsigned nat_sweep_elapsed(struct nat_table *n, uint64_t now)
{
	if (now >= n->sweep_clock && now - n->sweep_clock < NAT_SWEEP_INTERVAL) {
		nat_held_expire(n, now);
		return 0;
	}
	n->sweep_clock = now; /* also after a clock set back */
	return nat_sweep(n, now, NAT_SWEEP_MAPPINGS);
}

/* ---- conntrack events: a mapping's connections ------------------------------------------- */

static void conn_link(struct nat_binding *b, struct nat_mapping *m, int k)
{
	struct ct_entry *head;

	if (!m)
		return;
	head = m->conn_head[k];
	b->conn_link[k][0] = NULL;
	b->conn_link[k][1] = head;
	if (head)
		((struct nat_binding *)ct_ext_find(head, CT_EXT_NAT))->conn_link[k][0] = b->entry;
	m->conn_head[k] = b->entry;
	m->conns++;
}

static void conn_unlink(struct nat_binding *b, struct nat_mapping *m, int k)
{
	struct ct_entry *prev = b->conn_link[k][0], *next = b->conn_link[k][1];

	if (!m)
		return;
	if (prev)
		((struct nat_binding *)ct_ext_find(prev, CT_EXT_NAT))->conn_link[k][1] = next;
	else
		m->conn_head[k] = next;
	if (next)
		((struct nat_binding *)ct_ext_find(next, CT_EXT_NAT))->conn_link[k][0] = prev;
	b->conn_link[k][0] = b->conn_link[k][1] = NULL;
	m->conns--;
}

static void ct_event(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why)
{
	struct nat_table *n = priv;
	struct nat_binding *b = ct_ext_find(e, CT_EXT_NAT);

	(void)why;
	if (!b)
		return;
	if ((events & CT_EV_NEW) && !b->counted) {
		conn_link(b, b->map, 0);
		conn_link(b, b->inmap, 1);
		nat_bysrc_add(n, (struct ct_entry *)e, b);
		b->counted = true;
	}
	if ((events & CT_EV_DESTROY) && b->counted) {
		/* the timer (last refresh + timeout) decides from now on */
		conn_unlink(b, b->map, 0);
		conn_unlink(b, b->inmap, 1);
		nat_bysrc_del(n, (struct ct_entry *)e, b);
		b->counted = false;
	}
}

/* ---- session timers of connections through mappings (RFC 5382 REQ-5, RFC 5508 REQ-2) ---- */

void nat_hold(struct nat_table *n, struct pkt *p, uint64_t now)
{
	struct ct_entry *e = ct_pkt_entry(p);
	const struct nat_binding *b = e ? ct_ext_get(e, CT_EXT_NAT) : NULL;

	if (b)
		nat_hold_binding(n, p, e, b, now);
}

void nat_hold_binding(struct nat_table *n, const struct pkt *p, struct ct_entry *e,
		      const struct nat_binding *b, uint64_t now)
{
	unsigned ci = ct_pkt_ctinfo(p);

	/* an ICMP error about the connection refreshes nothing (RFC 5508 REQ-6) */
	if ((!b->map && !b->inmap) || ci == CT_RELATED || ci == CT_RELATED_REPLY)
		return;
	nat_hold_entry(n, e, now);
}

/* ---- an address went away (MASQUERADE) --------------------------------------------------- */

struct addr_gone {
	int ifindex, family;
	union pt_addr addr;
	unsigned killed;
};

static enum ct_walk_action masq_conn_gone(void *priv, struct ct_entry *e)
{
	struct addr_gone *g = priv;
	const struct nat_binding *b = ct_ext_find(e, CT_EXT_NAT);
	const struct ct_tuple *reply = &e->th[CT_DIR_REPLY].tuple;

	if (!b || !(b->status & NAT_ST_SRC) || b->masq_if != g->ifindex ||
	    reply->family != g->family || !pt_addr_eq(&reply->dst, &g->addr))
		return CT_WALK_NEXT;
	g->killed++;
	return CT_WALK_KILL;
}

unsigned nat_addr_removed(struct nat_table *n, int ifindex, int family, const union pt_addr *a,
			  uint64_t now)
{
	struct addr_gone g = {.ifindex = ifindex, .family = family, .addr = *a};
	uint32_t cursor = 0;

	while (!ct_walk(n->ct, &cursor, 1024, now, masq_conn_gone, &g))
		;
	for (struct nat_mapping *m = n->oldest, *nx; m; m = nx) {
		nx = m->next;
		if (!(m->range.flags & NAT_R_MASQUERADE) || m->out != ifindex ||
		    m->family != family || !pt_addr_eq(&m->ext_addr, a))
			continue;
		/* inbound connections admitted to it, and any the walk did not see */
		for (int k = 0; k < 2; k++) {
			struct ct_entry *e;

			while ((e = m->conn_head[k])) {
				ct_kill(n->ct, e); /* its destroy event unlinks it */
				g.killed++;
				if (m->conn_head[k] == e)
					break;
			}
		}
		g.killed++;
		if (m->conns) {
			m->expires = now; /* the next lookup or sweep takes it */
			continue;
		}
		nat_mapping_free(n, m); /* killing entries never touches the age list: nx stays */
	}
	n->stats.masq_flushed += g.killed;
	return g.killed;
}
