/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT: bindings (a conntrack extension saying what a connection's reply tuple became), the
 * per-box mapping table for endpoint-independent and address-dependent mappings (RFC 4787,
 * RFC 5382, RFC 5508), port allocation, and the rewriting of packets.
 *
 * Life of a connection through NAT (the kernel's model, with mappings added):
 *
 *   first packet (NEW, entry unconfirmed)
 *     nat table traversed at PREROUTING/OUTPUT (DST) and POSTROUTING/INPUT (SRC); a NAT
 *     target stores its request with nat_request(); right after the table the NAT hook calls
 *     nat_setup() with it (MASQUERADE/REDIRECT addresses resolved by the hook), else, at the
 *     DST hook, nat_inbound() (a packet to a mapping's external endpoint, or a hairpin), else
 *     nat_setup_null(). The reply tuple of the entry is changed there, before confirmation.
 *   every packet: nat_translate() at each NAT hook rewrites what the binding says.
 *
 *   mapping (EI or AD): internal addr:port/proto [remote addr for AD] <-> external addr:port
 *     lives while a confirmed connection uses it, and `timeout` after the last refresh
 *     (outbound packets; inbound ones too with --refresh both).
 *
 * Time comes in as `now` (box clock, ns). A table belongs to one box and its data-path thread.
 * Free the NAT table before (or with) the conntrack table it watches.
 */
#ifndef NAT_NAT_H
#define NAT_NAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"

struct ct_table;
struct ct_entry;

enum nat_manip { NAT_MANIP_SRC = 0, NAT_MANIP_DST = 1 };

enum nat_range_flags {
	NAT_R_MAP_IPS = 1 << 0,	     /* min_addr..max_addr given */
	NAT_R_PROTO = 1 << 1,	     /* min_port..max_port given (host order) */
	NAT_R_RANDOM = 1 << 2,	     /* --random: port from a keyed hash of the endpoints */
	NAT_R_PERSISTENT = 1 << 3,   /* --persistent: same address for a client, any server */
	NAT_R_RANDOM_FULLY = 1 << 4, /* --random-fully: port from the box PRNG */
	NAT_R_MASQUERADE = 1 << 5,   /* address: the outgoing interface's (set by the hook) */
	NAT_R_REDIRECT = 1 << 6,     /* address: the incoming interface's, loopback at OUTPUT */
	NAT_R_PROTO_OFFSET = 1 << 7, /* PORT-PORT/BASE: port = min + (port - base) % size, never
					the port kept (the kernel's NF_NAT_RANGE_PROTO_OFFSET) */
};

/* BEHAVE policies (pkttables extensions). 0 = the documented default. */
enum nat_behave_mode {
	NAT_B_DEFAULT = 0,
	NAT_B_EI,  /* endpoint-independent */
	NAT_B_AD,  /* address-dependent */
	NAT_B_APD, /* address-and-port-dependent (mapping: per 5-tuple, as Linux does) */
};
enum nat_refresh { NAT_REFRESH_DEFAULT = 0, NAT_REFRESH_OUTBOUND, NAT_REFRESH_BOTH };
enum nat_hairpin { NAT_HAIRPIN_DEFAULT = 0, NAT_HAIRPIN_ON, NAT_HAIRPIN_OFF };

/* What a NAT rule asks for; the private data of the NAT targets. */
struct nat_range {
	union pt_addr min_addr, max_addr;
	uint16_t min_port, max_port;
	uint16_t base_port; /* NAT_R_PROTO_OFFSET */
	uint16_t flags;	    /* NAT_R_* */
	uint8_t family;	    /* AF_INET / AF_INET6 */
	uint8_t mapping;    /* enum nat_behave_mode */
	uint8_t filtering;
	uint8_t refresh; /* enum nat_refresh */
	uint8_t hairpin; /* enum nat_hairpin */
	uint8_t netmap;	 /* NETMAP: min_addr is the network, max_addr the mask */
};

/* Effective policies of a range (defaults applied): EI mapping (APD with --random or
 * --random-fully, which Linux makes symmetric), APD filtering, outbound refresh, hairpin on. */
enum nat_behave_mode nat_range_mapping(const struct nat_range *r);
enum nat_behave_mode nat_range_filtering(const struct nat_range *r);
enum nat_refresh nat_range_refresh(const struct nat_range *r);
bool nat_range_hairpin(const struct nat_range *r);

struct nat_config {
	uint32_t max_mappings;	/* mappings at most (default 65536) */
	uint32_t max_pools;	/* port bitmaps (external address, protocol) at most (1024) */
	uint64_t udp_timeout;	/* UDP mapping after its last refresh: 300 s (at least 120) */
	uint64_t tcp_timeout;	/* TCP: 7440 s (RFC 5382 REQ-5: 2 h 4 min) */
	uint64_t icmp_timeout;	/* ICMP query: 60 s (RFC 5508 REQ-2), also its session's */
	uint64_t other_timeout; /* SCTP, DCCP, UDP-Lite: 300 s */
	/* A TCP connection bound through a mapping (EI/AD source mapping, or inbound to one)
	 * outside ESTABLISHED lives at least this long after its last packet, whatever the
	 * conntrack timeout of its state (SYN_SENT is 120 s): 240 s (RFC 5382 REQ-5); in
	 * ESTABLISHED at least tcp_timeout (Linux's 300 s with unacknowledged data is less
	 * than 2 h 4 min). 0: the conntrack timeouts only. Per-tuple bindings (the
	 * Linux-compatible mode, DNAT) always keep the conntrack timeouts. */
	uint64_t tcp_transitory_timeout;
	/* RFC 5382 REQ-4: an unsolicited TCP SYN a mapping's filtering refused and the box's
	 * INPUT accepted is held (the box never answers it); an outbound SYN of that connection
	 * within syn_hold_timeout (6 s, at least 6; 0: never answered) discards it silently,
	 * else port unreachable is sent for it. At most syn_hold_max (64) held, more are
	 * dropped silently. Default (BEHAVE) mappings only: the Linux mode has none. */
	uint64_t syn_hold_timeout;
	uint32_t syn_hold_max;
};

struct nat_stats {
	uint64_t bindings; /* nat_setup that changed something */
	uint64_t null_bindings;
	uint64_t mappings_created, mappings_reused, mappings_expired;
	uint64_t port_preserved; /* the internal port was kept */
	uint64_t port_changed;
	uint64_t source_reused;	   /* Linux mode: an endpoint's earlier translated source reused */
	uint64_t exhausted;	   /* no free port (or tuple) in the range: the packet is dropped */
	uint64_t table_full;	   /* max_mappings or max_pools reached */
	uint64_t inbound;	   /* new inbound connections admitted to a mapping */
	uint64_t inbound_filtered; /* refused by the mapping's filtering */
	uint64_t hairpinned;
	uint64_t icmp_errors;	    /* ICMP errors whose quoted datagram was translated */
	uint64_t icmp_bad_quoted;   /* dropped: quoted IPv4 header checksum wrong (5508 REQ-3a) */
	uint64_t syn_held;	    /* unsolicited SYNs held (RFC 5382 REQ-4) */
	uint64_t syn_held_overflow; /* not held, syn_hold_max reached: dropped silently */
	uint64_t syn_held_dropped;  /* discarded: an outbound SYN of the connection came */
	uint64_t syn_unreachable;   /* port unreachable sent after syn_hold_timeout */
	uint64_t masq_flushed;	    /* connections and mappings ended: their address went away */
	uint32_t mappings, pools;   /* now */
};

struct nat_table;

void nat_config_default(struct nat_config *c);
/*
 * Set one field by name (docs/nat.md; timeouts in seconds): max_mappings, max_pools,
 * udp_timeout (at least 120), tcp_timeout, icmp_timeout, other_timeout,
 * tcp_transitory_timeout, syn_hold_timeout (0 or at least 6), syn_hold_max. 0; -ENOENT no such
 * name; -EINVAL bad value; -ERANGE out of its range.
 */
int nat_config_set(struct nat_config *c, const char *name, const char *value);
/* Every setting as "name = value" lines, timeouts in seconds. */
void nat_config_print(const struct nat_config *c, FILE *f);
const struct nat_config *nat_table_config(const struct nat_table *n);
/* New values apply to new mappings and at each mapping's next refresh (its timeout), and to
 * the limits from now on; the hashes keep the size the table was made with. */
void nat_table_set_config(struct nat_table *n, const struct nat_config *c);
/* A table watching `ct` (destroy events end mappings' connections). random/rpriv: the box
 * PRNG (box_random). NULL on ENOMEM or -ENOSPC from the ct subscription (errno). */
struct nat_table *nat_table_new(struct ct_table *ct, const struct nat_config *c,
				uint32_t (*random)(void *), void *rpriv);
void nat_table_free(struct nat_table *n);
const struct nat_stats *nat_table_stats(const struct nat_table *n);
/* Who sends port unreachable for a held SYN (the NAT plug-in: box_send_icmp_error). */
void nat_set_syn_unreach(struct nat_table *n, void (*fn)(void *priv, const struct pkt *syn),
			 void *priv);
/*
 * RFC 5382 REQ-4, at the NAT hook on INPUT, a NEW packet: a TCP SYN that nat_inbound refused
 * (mapping's filtering) is copied into the hold queue. true when the packet was such a SYN:
 * the caller drops it (held or overflowed), so the box never answers it itself.
 */
bool nat_syn_hold(struct nat_table *n, const struct pkt *p, uint64_t now);
/* After POSTROUTING translated an outbound TCP SYN: held SYNs of its reverse (remote endpoint
 * to the same external endpoint) are discarded silently. */
void nat_syn_outbound(struct nat_table *n, const struct pkt *p);
/* Remove expired unused mappings among at most `max` of the oldest (and send port
 * unreachable for held SYNs past syn_hold_timeout). Returns how many mappings went. */
unsigned nat_sweep(struct nat_table *n, uint64_t now, unsigned max);
/*
 * Housekeeping by elapsed time (the box's clock hook): held SYNs past syn_hold_timeout at every
 * call (their port unreachable is output, due when it is due; a look at the list's head), the
 * mappings' nat_sweep of NAT_SWEEP_MAPPINGS at most once per NAT_SWEEP_INTERVAL of box clock.
 * A mapping past its time is gone for lookups and port allocation whether swept or not
 * (nat_mapping_reap). Returns the mappings removed.
 */
#define NAT_SWEEP_INTERVAL 100000000ull /* 0.1 s, in ns */
#define NAT_SWEEP_MAPPINGS 64u
unsigned nat_sweep_elapsed(struct nat_table *n, uint64_t now);

/* Interfaces a new connection came in on and goes out of (box indexes, 0 unknown). */
struct nat_where {
	int in, out;
};

/* ---- for the targets (the nat table's rules) --------------------------------------------- */

/*
 * Record a rule's request for the packet's (new, unconfirmed) connection; the NAT hook acts on
 * it after the table. t: the packet's conntrack table (the binding is one of its extensions).
 * 0; -EINVAL without a conntrack entry; -EEXIST when that manip is bound.
 */
int nat_request(struct ct_table *t, struct pkt *p, enum nat_manip m, const struct nat_range *r);
/* The request stored for manip m, NULL if none (the hook's business). */
const struct nat_range *nat_pending(const struct pkt *p, enum nat_manip m);
/* Has manip m been decided for the packet's connection (the nat table need not run)? */
bool nat_bound(const struct pkt *p, enum nat_manip m);

/* ---- for the NAT hook -------------------------------------------------------------------- */

/*
 * Bind the packet's new connection for manip m as range r asks (MASQUERADE/REDIRECT already
 * resolved to an address range). Changes the entry's reply tuple. 0; -ENOSPC when no port
 * (or tuple) is free, counted in `exhausted` or `table_full` (drop the packet); -EEXIST
 * when already bound; -EINVAL (no entry, entry confirmed, family mismatch).
 */
int nat_setup(struct nat_table *n, struct pkt *p, enum nat_manip m, const struct nat_range *r,
	      const struct nat_where *w, uint64_t now);
/* Decide manip m as "no change" (the kernel's null binding). 0 or -EINVAL. */
int nat_setup_null(struct nat_table *n, struct pkt *p, enum nat_manip m);
/*
 * A new connection at PREROUTING that no DNAT rule bound: if it is addressed to the external
 * endpoint of a mapping and that mapping's filtering admits it, bind it to the internal
 * endpoint (DST); coming from inside (w->in is not the mapping's outside interface), it is a
 * hairpin: with hairpinning on it is also source-translated to the sender's own mapping.
 * 1 when bound, 0 when not (no mapping, filtered, hairpin off), <0 as nat_setup.
 */
int nat_inbound(struct nat_table *n, struct pkt *p, const struct nat_where *w, uint64_t now);
/*
 * Rewrite the packet as its connection's binding says for this hook (HOOK_PREROUTING and
 * HOOK_OUTPUT: destination; HOOK_POSTROUTING and HOOK_INPUT: source), both directions,
 * ICMP errors with their quoted datagram (RFC 5508), checksums updated incrementally.
 * Refreshes the mapping. 0; -EINVAL when the packet cannot be rewritten (truncated);
 * -EBADMSG for an ICMP error about a connection through a mapping whose quoted IPv4 header
 * checksum is wrong (RFC 5508 REQ-3a). Drop the packet on any error.
 */
int nat_translate(struct nat_table *n, struct pkt *p, unsigned hook, uint64_t now);

/*
 * After nat_translate: a connection bound through a mapping is kept at least this long after
 * its packet: TCP tcp_transitory_timeout (tcp_timeout when ESTABLISHED), ICMP queries
 * icmp_timeout. Its conntrack timeout is raised, never lowered; ICMP errors change nothing.
 */
void nat_hold(struct nat_table *n, struct pkt *p, uint64_t now);

/*
 * An address left interface `ifindex`: the connections MASQUERADE gave that address on that
 * interface are killed and its MASQUERADE mappings removed (the kernel does the same when an
 * address is deleted), so they come back with the new address. Returns how many went.
 */
unsigned nat_addr_removed(struct nat_table *n, int ifindex, int family, const union pt_addr *a,
			  uint64_t now);

/* NAT_STATUS_*: which manips of the entry's binding change the tuple (ctstate SNAT/DNAT). */
enum { NAT_STATUS_SRC = 1 << NAT_MANIP_SRC, NAT_STATUS_DST = 1 << NAT_MANIP_DST };
unsigned nat_entry_status(const struct ct_entry *e);
/* NAT_STATUS_*: which manips the entry's binding decided, a change or none (the kernel's
 * IPS_*_NAT_DONE bits); 0 for an entry without a binding (no NAT rule or request saw it). */
unsigned nat_entry_decided(const struct ct_entry *e);

/* ---- for entries made without a packet (conntrack -I --src-nat / --dst-nat) -------------- */

/*
 * Bind e, an entry ct_entry_create made and has not put in the table yet, to the translations
 * asked for, destination first, as the kernel's ctnetlink does: a NULL range is decided as
 * "no change" (its _DONE bit), and at least one range must be given. Each is a per-tuple
 * binding of the Linux-compatible mode (never a mapping; NAT_R_MAP_IPS and NAT_R_PROTO are
 * read, the other flags and policies ignored): the address given, the port given or else the
 * entry's own when its reply tuple is free, otherwise another chosen as a NAT rule's would be
 * (tuple_taken: no entry of the table has that reply). The entry's reply tuple becomes the
 * translated one; its NEW event puts it in the by-source index, so later connections of the
 * same source reuse the translation, and packets of the entry are rewritten by nat_translate
 * like those of any bound connection. 0; -EINVAL (confirmed entry, no range, family
 * mismatch); -ENOSPC (no free tuple, counted in `exhausted`); -ENOMEM.
 */
int nat_bind_entry(struct nat_table *n, struct ct_entry *e, const struct nat_range *src,
		   const struct nat_range *dst, uint64_t now);

/*
 * A confirmed entry made from replicated state (src/sync) with its translated reply tuple:
 * give it the binding that tuple implies, so its packets are rewritten as on the box that made
 * it. The port allocator sees its reply tuple in the conntrack table, so a new connection never
 * gets the same translated tuple. 1 bound, 0 nothing to translate, -EINVAL (not confirmed),
 * -EEXIST (already bound), -ENOMEM.
 */
int nat_entry_adopt(struct nat_table *n, struct ct_entry *e);

/* ---- the mapping table replicated between pkttables boxes (src/sync; export.c) ---------- */

/* One EI or AD mapping as another box needs it. */
struct nat_map_state {
	uint8_t family, l4proto;
	uint8_t mode; /* NAT_B_EI or NAT_B_AD */
	uint16_t zone;
	union pt_addr int_addr, ext_addr, remote; /* remote: AD only */
	uint16_t int_port, ext_port;
	uint64_t timeout;	/* ns: how long it lives unused after a refresh */
	uint64_t refreshed;	/* box clock of its last refresh (export only) */
	struct nat_range range; /* the rule that made it (hairpin, which range it fits) */
};
/* Visit the mappings made or refreshed at or after `since` (box clock), newest first, until fn
 * returns false. Returns how many were visited. */
unsigned nat_mapping_export(struct nat_table *n, uint64_t since,
			    bool (*fn)(void *priv, const struct nat_map_state *m), void *priv);
/*
 * Take in a mapping made on another box, refreshed at `now` with its timeout: its port is then
 * owned here (the port allocator skips it) and a connection of its internal endpoint reuses
 * it. 1 made; 0 it was here already (refreshed at now with that timeout); -EINVAL bad
 * values; -EEXIST its external endpoint, internal endpoint or port is another mapping's here;
 * -ENOSPC table full.
 */
int nat_mapping_import(struct nat_table *n, const struct nat_map_state *m, uint64_t now);

/* The external endpoint of a connection's source mapping (tests, listings). */
bool nat_entry_mapping(const struct pkt *p, union pt_addr *ext_addr, uint16_t *ext_port);

#endif
