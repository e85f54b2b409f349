// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT mapping table (endpoint-independent and address-dependent mappings, src/nat)
 * replicated between pkttables boxes, so that a STUN-learned mapping survives a failover. It
 * travels in a message type of pkttables' own (SYNC_T_PT_MAP, wire.h): conntrackd refuses a
 * type above 5 and would count it malformed, so it is sent only with `peer-kind pkttables`,
 * never learned (SYNC-WIRE.md gives no flag bit a conntrackd peer provably ignores).
 *
 *   sending  every tick: the mappings made or refreshed since the last tick (nat export, a walk
 *            from the newest end of the age list); each is sent when new to the peer, when its
 *            internal side changed, or when it was last sent more than a quarter of its
 *            timeout ago, so a mapping in use stays alive on the peer without a message per
 *            packet. A mapping this box took in from the peer and nobody used here since is
 *            not sent back. After a bulk request or a peer's HELLO, all are sent again.
 *   receiving  strict decode (wire.c), then nat_mapping_import: a new mapping owns its port
 *            here (the allocator skips it); a conflict is counted and nothing changes.
 *
 * What was sent or taken in is remembered per external endpoint (bounded by map_max; the
 * least recently used record is forgotten first, counted): forgetting costs one extra
 * message at most. A mapping that goes is not announced: the peer's copy ends with its own
 * timeout.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat.h"
#include "pkt/hash.h"
#include "sync/sync_int.h"

#define NONE UINT64_MAX

struct sync_maprec {
	struct sync_maprec *hnext, *prev, *next; /* hash chain; LRU list, oldest first */
	struct {
		union pt_addr ext;
		uint16_t port, zone;
		uint8_t family, l4proto, pad[2];
	} key;
	union pt_addr int_addr;
	uint16_t int_port;
	uint64_t sent;	   /* refresh time of the mapping when last sent (NONE) */
	uint64_t imported; /* refresh time this box gave it when it came in (NONE) */
};

#define MAP_BUCKETS 4096u

static bool enabled(const struct sync *s)
{
	return s->nat && s->cfg.peer == SYNC_PEER_PKTTABLES && !s->cfg.no_nat_mappings;
}

static struct sync_maprec **slot(struct sync *s, const struct sync_maprec *k)
{
	struct sync_maprec **pp =
	    &s->map_hash[pkt_hash(s->seed, &k->key, sizeof(k->key)) & (MAP_BUCKETS - 1)];

	while (*pp && memcmp(&(*pp)->key, &k->key, sizeof(k->key)))
		pp = &(*pp)->hnext;
	return pp;
}

static void lru_del(struct sync *s, struct sync_maprec *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		s->map_oldest = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		s->map_newest = r->prev;
}

static void lru_add(struct sync *s, struct sync_maprec *r)
{
	r->next = NULL;
	r->prev = s->map_newest;
	if (s->map_newest)
		s->map_newest->next = r;
	else
		s->map_oldest = r;
	s->map_newest = r;
}

/* The record of m's external endpoint, made (and the oldest forgotten if full) when absent.
 * NULL on ENOMEM. */
static struct sync_maprec *record(struct sync *s, const struct nat_map_state *m)
{
	struct sync_maprec k, **pp, *r;

	memset(&k, 0, sizeof(k));
	k.key.ext = m->ext_addr;
	k.key.port = m->ext_port;
	k.key.zone = m->zone;
	k.key.family = m->family;
	k.key.l4proto = m->l4proto;
	if (!s->map_hash && !(s->map_hash = calloc(MAP_BUCKETS, sizeof(*s->map_hash))))
		return NULL;
	pp = slot(s, &k);
	if ((r = *pp)) {
		lru_del(s, r);
		lru_add(s, r);
		return r;
	}
	if (s->map_count >= s->cfg.map_max && s->map_oldest) {
		struct sync_maprec *old = s->map_oldest, **op = slot(s, old);

		*op = old->hnext;
		lru_del(s, old);
		free(old);
		s->map_count--;
		s->st.map_forgotten++;
		pp = slot(s, &k); /* the chain may have changed */
	}
	if (!(r = malloc(sizeof(*r))))
		return NULL;
	*r = k;
	r->hnext = NULL;
	r->sent = r->imported = NONE;
	*pp = r;
	lru_add(s, r);
	s->map_count++;
	return r;
}

static void send_map(struct sync *s, const struct nat_map_state *m)
{
	uint8_t buf[SYNC_MAP_MAX];
	int n = sync_map_encode(buf, sizeof(buf), m);

	if (n > 0 && sync_queue(s, buf, (size_t)n) == 0)
		s->st.map_tx++;
}

static bool export_one(void *priv, const struct nat_map_state *m)
{
	struct sync *s = priv;
	struct sync_maprec *r = record(s, m);

	if (!r) {
		send_map(s, m); /* no memory to remember it: send it anyway */
		return true;
	}
	if (r->imported == m->refreshed && r->int_port == m->int_port &&
	    pt_addr_eq(&r->int_addr, &m->int_addr))
		return true; /* the peer's own, untouched here */
	if (!s->map_all && r->sent != NONE && r->int_port == m->int_port &&
	    pt_addr_eq(&r->int_addr, &m->int_addr) && m->refreshed >= r->sent &&
	    m->refreshed - r->sent < m->timeout / 4)
		return true; /* the peer's copy outlives this refresh's need */
	r->int_addr = m->int_addr;
	r->int_port = m->int_port;
	r->sent = m->refreshed;
	r->imported = NONE;
	send_map(s, m);
	return true;
}

void sync_map_tick(struct sync *s, uint64_t now)
{
	if (!enabled(s))
		return;
	nat_mapping_export(s->nat, s->map_all ? 0 : s->map_since, export_one, s);
	s->map_since = now;
	s->map_all = false;
}

void sync_map_all(struct sync *s)
{
	s->map_all = true;
}

void sync_map_apply(struct sync *s, const uint8_t *msg, size_t len, uint64_t now)
{
	struct nat_map_state m;
	struct sync_maprec *r;
	int rc;

	if ((rc = sync_map_decode(msg, len, &m)) < 0) {
		s->st.rx_err[-rc - 1]++;
		s->st.rx_malformed++;
		return;
	}
	s->st.map_rx++;
	if (!s->nat) {
		s->st.map_refused++; /* nowhere to put it */
		return;
	}
	if ((rc = nat_mapping_import(s->nat, &m, now)) < 0) {
		s->st.map_refused++;
		return;
	}
	s->st.map_applied++;
	if ((r = record(s, &m))) {
		r->int_addr = m.int_addr;
		r->int_port = m.int_port;
		r->imported = now; /* what nat_mapping_import made its refresh time */
		r->sent = NONE;
	}
}

void sync_map_free(struct sync *s)
{
	struct sync_maprec *r, *next;

	for (r = s->map_oldest; r; r = next) {
		next = r->next;
		free(r);
	}
	free(s->map_hash);
	s->map_hash = NULL;
	s->map_oldest = s->map_newest = NULL;
	s->map_count = 0;
}
