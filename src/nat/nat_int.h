/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT internals shared by the files of src/nat. Not for use outside src/nat.
 *
 * Ownership: a mapping is referenced by the bindings (ct extensions) of the connections using
 * it. `conns` counts confirmed ones (the conntrack NEW event adds, DESTROY removes); an
 * unconfirmed entry freed with its packet fires no event and was never counted. A mapping is
 * freed only when conns == 0 and its timer ran out (expires <= now), which never happens at
 * the `now` it was created or used at, so an unconfirmed entry's pointer stays valid for as
 * long as its packet is being processed.
 */
#ifndef NAT_NAT_INT_H
#define NAT_NAT_INT_H

#include <netinet/in.h>
#include <string.h>

#include "ct/ct_int.h"
#include "nat/nat.h"
#include "pkt/proto.h"

#define NAT_MAP_PEERS 8 /* remote endpoints a mapping remembers for AD/APD filtering */

struct nat_peer {
	union pt_addr addr;
	uint16_t port;
	uint64_t last; /* last outbound packet towards it */
};

/* One port bitmap: the ports of one external address and protocol that mappings own.
 *   bits[w] bit b: port w*64+b owned       full[s] bit b: bits[s*64+b] == ~0 */
struct nat_pool {
	struct nat_pool *next;
	union pt_addr addr;
	uint16_t zone;
	uint8_t family, l4proto;
	uint32_t used;
	uint64_t full[16];
	uint64_t bits[1024];
};

struct nat_mapping {
	struct nat_mapping *int_next, *ext_next; /* hash chains */
	struct nat_mapping *prev, *next;	 /* age list, least recently refreshed first */
	struct nat_pool *pool;
	union pt_addr int_addr, ext_addr, remote; /* remote: AD mappings only */
	uint16_t int_port, ext_port;
	uint16_t zone;
	uint8_t family, l4proto;
	uint8_t mode;	   /* NAT_B_EI or NAT_B_AD */
	uint8_t filtering; /* NAT_B_* effective */
	uint8_t refresh;   /* NAT_REFRESH_* effective */
	bool hairpin;
	int in, out; /* where the internal side came from and the mapping goes out */
	uint32_t conns;
	/* the confirmed entries counted in conns: [0] bound through map, [1] through inmap
	 * (linked by their bindings' conn_link), so an expired one can be reaped on the spot */
	struct ct_entry *conn_head[2];
	uint64_t expires, timeout;
	struct nat_range range; /* the rule that made it (a hairpin maps its sender alike) */
	struct nat_peer peer[NAT_MAP_PEERS];
	unsigned npeers;
};

/*
 * The by-source index of the Linux-compatible mode (bysrc.c): the confirmed connections whose
 * source a per-tuple binding changed, grouped by their original source (zone, family,
 * protocol, address, port or ICMP id), newest first, so the next connection from that source
 * can get the same translated source (the kernel's nf_nat_bysource and find_appropriate_src).
 */
struct nat_srcnode {
	struct nat_srcnode *next; /* hash chain */
	union pt_addr addr;
	uint16_t port, zone;
	uint8_t family, l4proto;
	uint32_t count;
	struct ct_entry *head; /* linked by the bindings' src_link */
};

/* The conntrack extension CT_EXT_NAT. */
enum { NAT_ST_SRC = NAT_STATUS_SRC, NAT_ST_DST = NAT_STATUS_DST };

struct nat_binding {
	struct nat_mapping *map;   /* source mapping (EI/AD), NULL for per-tuple bindings */
	struct nat_mapping *inmap; /* inbound connection admitted to this mapping */
	struct nat_range pending[2];
	uint8_t pending_mask;	/* 1 << manip: a request is stored */
	uint8_t done_mask;	/* 1 << manip: decided (maybe as null) */
	uint8_t status;		/* NAT_ST_*: the translation changes something */
	bool counted;		/* the mappings' conns include this entry */
	bool syn_refused;	/* a TCP SYN a mapping's filtering refused (RFC 5382 REQ-4) */
	int masq_if;		/* MASQUERADE: the interface whose address the source took */
	struct ct_entry *entry; /* the entry this binding belongs to */
	struct ct_entry *conn_link[2][2]; /* [map, inmap][prev, next] in the mapping's list */
	struct nat_srcnode *src;	  /* in the by-source index (NULL: not) */
	struct ct_entry *src_link[2];	  /* [prev, next] in src's list */
};

struct nat_table {
	struct ct_table *ct;
	struct nat_config cfg;
	uint32_t (*random)(void *);
	void *rpriv;
	uint64_t secret[2]; /* --random's hash key */
	struct nat_mapping **int_hash, **ext_hash;
	uint32_t hmask;
	struct nat_pool **pool_hash;
	uint32_t pmask;
	struct nat_mapping *oldest, *newest;
	uint64_t sweep_clock;	       /* nat_sweep_elapsed: the last slice's time */
	uint64_t sweep_seen;	       /* nat_sweep_elapsed: mappings looked at, for tests */
	struct nat_srcnode **src_hash; /* hmask + 1 buckets, as the mapping hashes */
	struct nat_stats stats;
	/* RFC 5382 REQ-4 (synhold.c): copies of refused SYNs the box accepted, oldest first */
	struct nat_held *held, *held_tail;
	uint32_t nheld;
	void (*syn_unreach)(void *priv, const struct pkt *syn);
	void *syn_unreach_priv;
};

/* nat.c */
uint64_t nat_hash(const struct nat_table *n, const void *data, size_t len, uint64_t salt);
uint64_t nat_hash_bucket(const struct nat_table *n, const void *data, size_t len, uint64_t salt);
struct nat_pool *nat_pool_get(struct nat_table *n, int family, const union pt_addr *a,
			      uint8_t l4proto, uint16_t zone, bool create);
/* Free the pool if no mapping uses it. */
void nat_pool_put(struct nat_table *n, struct nat_pool *pl);
bool nat_pool_test(const struct nat_pool *pl, uint16_t port);
/* A free port in [lo, hi], from `start` on (wrapping); parity -1 any, else 0/1 preferred. */
int nat_pool_find(const struct nat_pool *pl, uint16_t lo, uint16_t hi, uint16_t start, int parity);
struct nat_mapping *nat_mapping_find_int(struct nat_table *n, int family, const union pt_addr *a,
					 uint16_t port, uint8_t l4proto, uint16_t zone,
					 const union pt_addr *remote, uint64_t now);
struct nat_mapping *nat_mapping_find_ext(struct nat_table *n, int family, const union pt_addr *a,
					 uint16_t port, uint8_t l4proto, uint16_t zone,
					 uint64_t now);
/* Make a mapping owning ext port `port` of pool pl. NULL when the table is full. */
struct nat_mapping *nat_mapping_new(struct nat_table *n, struct nat_pool *pl, uint16_t port,
				    const struct ct_tuple *orig, const struct nat_range *r,
				    enum nat_behave_mode mode, const struct nat_where *w,
				    uint64_t now);
/* The mapping's timeout for its protocol, from the settings as they are now. */
static inline uint64_t nat_timeout(const struct nat_table *n, uint8_t l4proto)
{
	switch (l4proto) {
	case IPPROTO_TCP:
		return n->cfg.tcp_timeout;
	case IPPROTO_UDP:
		return n->cfg.udp_timeout;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return n->cfg.icmp_timeout;
	default:
		return n->cfg.other_timeout;
	}
}

/* The age list (least recently refreshed first): out of it, and in again as the newest. */
static inline void nat_age_del(struct nat_table *n, struct nat_mapping *m)
{
	if (m->prev)
		m->prev->next = m->next;
	else
		n->oldest = m->next;
	if (m->next)
		m->next->prev = m->prev;
	else
		n->newest = m->prev;
	m->prev = m->next = NULL;
}

static inline void nat_age_add(struct nat_table *n, struct nat_mapping *m)
{
	m->prev = n->newest;
	m->next = NULL;
	if (n->newest)
		n->newest->next = m;
	else
		n->oldest = m;
	n->newest = m;
}

/* A packet keeps the mapping: its timer starts again (a changed timeout setting applies from
 * here) and it becomes the newest of the age list. Inline: the established path's. */
static inline void nat_mapping_refresh(struct nat_table *n, struct nat_mapping *m, uint64_t now)
{
	m->timeout = nat_timeout(n, m->l4proto);
	m->expires = now + m->timeout;
	if (n->newest != m) {
		nat_age_del(n, m);
		nat_age_add(n, m);
	}
}
/* Can the mapping go? Its timer ran out and none of its connections lives: connections past
 * their timeout that the conntrack sweep has not reached yet are killed here. */
bool nat_mapping_reap(struct nat_table *n, struct nat_mapping *m, uint64_t now);
/* Remove a mapping (after nat_mapping_reap said yes, or when its address went away). */
void nat_mapping_free(struct nat_table *n, struct nat_mapping *m);
/* Note an outbound packet of the mapping towards a (remote address, port): its peer's time, or
 * a new peer (the longest silent one forgotten when all NAT_MAP_PEERS are in use). */
static inline void nat_mapping_peer(struct nat_mapping *m, const union pt_addr *a, uint16_t port,
				    uint64_t now)
{
	unsigned i, oldest = 0;

	for (i = 0; i < m->npeers; i++) {
		if (m->peer[i].port == port && !memcmp(&m->peer[i].addr, a, sizeof(*a))) {
			m->peer[i].last = now;
			return;
		}
		if (m->peer[i].last < m->peer[oldest].last)
			oldest = i;
	}
	if (m->npeers < NAT_MAP_PEERS)
		i = m->npeers++;
	else
		i = oldest; /* forget the peer not contacted for the longest time */
	m->peer[i].addr = *a;
	m->peer[i].port = port;
	m->peer[i].last = now;
}

/* translate.c */
/* nat_translate with the entry's binding found (the NAT hook finds it once for this and
 * nat_hold_binding). */
int nat_translate_binding(struct nat_table *n, struct pkt *p, const struct ct_entry *e,
			  struct nat_binding *b, unsigned hook, uint64_t now);
/*
 * Rewrite side m of p's datagram to tuple t's address and port (ICMP query id), checksums
 * updated, p->info following: the general path (0, or -EINVAL). nat_rewrite_fast: the same
 * for TCP and UDP with address a and port, when the headers up to the transport checksum are
 * in the first segment and the checksum is not CHECKSUM_PARTIAL; 1 (nothing done) for any
 * other packet. Equal results on every packet both take (test_nat_fast).
 */
int nat_rewrite_general(struct pkt *p, const struct ct_tuple *t, enum nat_manip m);
int nat_rewrite_fast(struct pkt *p, const union pt_addr *a, uint16_t port, enum nat_manip m);

/* nat.c: nat_hold with the entry's binding found */
void nat_hold_binding(struct nat_table *n, const struct pkt *p, struct ct_entry *e,
		      const struct nat_binding *b, uint64_t now);

/*
 * nat_hold's timer for an entry bound through a mapping, once the packet is known not to be an
 * ICMP error about it: TCP at least tcp_transitory_timeout (tcp_timeout when ESTABLISHED), ICMP
 * icmp_timeout; UDP and the others nothing (the mapping outlives the entry, inbound finds it).
 */
static inline void nat_hold_entry(const struct nat_table *n, struct ct_entry *e, uint64_t now)
{
	uint8_t proto = e->th[0].tuple.l4proto;
	uint64_t hold;

	if (e->status & CT_S_DYING)
		return;
	if (proto == IPPROTO_TCP) {
		hold = n->cfg.tcp_transitory_timeout;
		if (!hold)
			return;
		/* the hold is one of the two: an entry that outlives both needs no TCP state */
		if (e->expires >= now + hold && e->expires >= now + n->cfg.tcp_timeout)
			return;
		/* ESTABLISHED is 5 days in Linux, but only 300 s with data unacknowledged */
		if (ct_entry_tcp_state(e) == CT_TCP_ESTABLISHED)
			hold = n->cfg.tcp_timeout;
	} else if (pkt_proto(proto)->icmp) {
		hold = n->cfg.icmp_timeout; /* conntrack's ICMP timeout is 30 s */
	} else {
		return;
	}
	if (hold && e->expires < now + hold)
		e->expires = now + hold;
}

/* synhold.c */
struct nat_held {
	struct nat_held *next;
	struct pkt *syn;
	struct ct_tuple orig; /* remote endpoint -> external endpoint */
	uint64_t at;
};
/* Send port unreachable for the held SYNs older than syn_hold_timeout (if not 0). */
void nat_held_expire(struct nat_table *n, uint64_t now);
void nat_held_free(struct nat_table *n);

/* bysrc.c. Entries of the index: add at confirmation (a per-tuple binding that changed the
 * source), del at destruction; both no-ops for other entries. */
#define NAT_BYSRC_SCAN 8 /* connections of one source a lookup looks at, newest first */
void nat_bysrc_add(struct nat_table *n, struct ct_entry *e, struct nat_binding *b);
void nat_bysrc_del(struct nat_table *n, struct ct_entry *e, struct nat_binding *b);
/* The newest connection from cur's source, NULL if none; then the next older one. */
struct ct_entry *nat_bysrc_first(struct nat_table *n, const struct ct_tuple *cur);
struct ct_entry *nat_bysrc_next(const struct ct_entry *e);
void nat_bysrc_free(struct nat_table *n);

#endif
