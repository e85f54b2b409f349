/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The box: one instance of a netfilter host (a router, a client, a server). Everything a box
 * knows lives in it: interfaces, addresses, routes, rulesets (one per family), the clock, the
 * log, counters. A process may hold many boxes; nothing here is global.
 *
 * Packet paths, in the kernel's order (hook functions sorted by priority at each hook):
 *
 *   box_receive(iface) -> PREROUTING -> route -+-> INPUT -> ops.deliver (local)
 *                                              +-> FORWARD -> POSTROUTING -> ops.xmit(oif)
 *   box_output(local)  -> route -> OUTPUT -> POSTROUTING -> ops.xmit(oif)
 *
 *   priorities: defrag -400, raw -300, conntrack -200, mangle -150, nat(dst) -100,
 *               filter 0, security 50, nat(src) 100, conntrack confirm INT_MAX
 *
 * Tables are hook functions registered like any other; conntrack and NAT (later) register
 * theirs with box_register_hook().
 */
#ifndef ENGINE_BOX_H
#define ENGINE_BOX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"
#include "rules/ext.h"
#include "rules/rules.h"

#define BOX_MAX_IFACES 64
#define BOX_IFNAME_MAX 16
/* The loopback, as an interface index in struct box_hook_state (name "lo"): packets a box sends
 * to one of its own addresses. Not a member of the interface table. */
#define BOX_IFINDEX_LO (-1)

enum box_prio {
	BOX_PRIO_DEFRAG = -400,
	BOX_PRIO_RAW = -300,
	BOX_PRIO_CONNTRACK = -200,
	BOX_PRIO_MANGLE = -150,
	BOX_PRIO_NAT_DST = -100,
	BOX_PRIO_FILTER = 0,
	BOX_PRIO_SECURITY = 50,
	BOX_PRIO_NAT_SRC = 100,
	BOX_PRIO_CONFIRM = 0x7fffffff,
};

/* Why a packet did not make it. Every drop is counted under one of these. */
enum box_drop_kind {
	BOX_DROP_RULE,	    /* a rule's DROP (or REJECT, or a target's drop verdict) */
	BOX_DROP_POLICY,    /* a built-in chain's policy */
	BOX_DROP_HOTDROP,   /* a match asked for it (malformed header seen by tcp match, ...) */
	BOX_DROP_MALFORMED, /* the packet did not parse (pkt_info.bad) */
	BOX_DROP_NOROUTE,   /* no route to the destination */
	BOX_DROP_TTL,	    /* TTL / hop limit expired while forwarding */
	BOX_DROP_NOT_IP,    /* not IPv4/IPv6 */
	BOX_DROP_QUEUE,	    /* NFQUEUE without a handler and without --queue-bypass */
	BOX_DROP_LOOP,	    /* chain traversal deeper than the limit */
	BOX_DROP_HOOK,	    /* a registered hook function */
	BOX_DROP_DEFRAG,    /* defragmentation refused the fragment (box_drop.defrag says why) */
	BOX_DROP_CONNTRACK, /* no conntrack entry could be made (table full of assured ones) */
	BOX_DROP_MTU,	    /* too big for the link and DF set (ICMP "fragmentation needed" sent) */
	BOX_DROP_MAX
};

struct box_drop {
	enum box_drop_kind kind;
	int table;	   /* TABLE_* or -1 */
	unsigned hook;	   /* HOOK_* where it happened */
	const char *chain; /* chain name, NULL if not in a chain */
	unsigned rulenum;  /* 1-based rule number in the chain, 0 for policies */
	enum pkt_bad bad;  /* for BOX_DROP_MALFORMED */
	unsigned defrag;   /* for BOX_DROP_DEFRAG: enum ct_defrag_stat (CT_DEFRAG_ST_MAX: the
			      IPv6 originals no longer line up with their shadow) */
};

const char *box_drop_kind_name(enum box_drop_kind k);

struct box;

/* How the box hands packets and text to whoever drives it (simulator, replay, live mode). */
struct box_ops {
	/* A packet leaves through interface `oif`. Takes ownership. */
	void (*xmit)(void *user, struct box *b, int oif, struct pkt *p);
	/* A packet was delivered to the box itself (after INPUT). Takes ownership. */
	void (*deliver)(void *user, struct box *b, struct pkt *p);
	/* A packet is dropped; called before it is freed. Information only. */
	void (*dropped)(void *user, struct box *b, const struct pkt *p, const struct box_drop *why);
	/* A kernel log line (LOG target), without newline. */
	void (*log)(void *user, struct box *b, int level, const char *line);
	/* A TRACE line, without newline. */
	void (*trace)(void *user, struct box *b, const struct pkt *p, const char *line);
	/* NFQUEUE: return a verdict (EXT_ACCEPT/EXT_DROP/EXT_REPEAT) and optionally change the
	 * mark. NULL: queued packets are dropped unless --queue-bypass. */
	int (*queue)(void *user, struct box *b, unsigned qnum, struct pkt *p, uint32_t *mark);
};

struct box_iface {
	char name[BOX_IFNAME_MAX];
	int index; /* 1-based */
	uint8_t mac[6];
	uint8_t peer_mac[6]; /* next hop's MAC used when the simulator/replay writes frames */
	uint32_t mtu;
	enum pkt_link link; /* how frames on it are framed */
	bool up;
};

struct box_addr {
	int family;
	int ifindex;
	union pt_addr addr;
	int plen;
};

enum box_route_type {
	BOX_RT_UNICAST,
	BOX_RT_LOCAL,
	BOX_RT_BLACKHOLE,
	BOX_RT_UNREACHABLE,
	BOX_RT_PROHIBIT,
};

struct box_route {
	int family;
	union pt_addr net;
	int plen;
	int oif;	  /* 0 for blackhole/unreachable/prohibit */
	union pt_addr gw; /* next hop, all-zero if directly connected */
	uint32_t metric;
	uint32_t mtu; /* 0: the interface's */
	enum box_route_type type;
};

/* Counters the box keeps besides the rule counters. */
struct box_stats {
	uint64_t received, forwarded, delivered, sent_local, xmit;
	uint64_t dropped[BOX_DROP_MAX];
	uint64_t malformed[PKT_BAD_MAX];
	uint64_t queued;
	uint64_t emitted; /* packets made by targets (REJECT) */
};

struct box *box_new(const char *name, const struct box_ops *ops, void *user);
void box_free(struct box *b);
const char *box_name(const struct box *b);

/* ---- configuration ----------------------------------------------------------------------- */

/* Add an interface; returns its index (>= 1) or -EEXIST/-ENOSPC. mac may be NULL (derived
 * deterministically from the box and interface names). */
int box_add_iface(struct box *b, const char *name, const uint8_t mac[6]);
int box_iface_index(const struct box *b, const char *name);	   /* index or -ENOENT */
const struct box_iface *box_iface(const struct box *b, int index); /* NULL if none */
unsigned box_iface_count(const struct box *b);
int box_set_iface_mtu(struct box *b, int index, uint32_t mtu);
int box_set_iface_link(struct box *b, int index, enum pkt_link link);
/* The next hop's MAC written as destination of frames leaving on the interface. 0/-ENOENT. */
int box_set_iface_peer_mac(struct box *b, int index, const uint8_t mac[6]);
/* Up/down: a down interface neither receives nor is used by routes. 0/-ENOENT. */
int box_set_iface_up(struct box *b, int index, bool up);

/* A local address on an interface; also adds the connected route (like `ip addr add`). */
int box_add_addr(struct box *b, int ifindex, int family, const union pt_addr *a, int plen);
int box_del_addr(struct box *b, int ifindex, int family, const union pt_addr *a);
/* Told after box_del_addr removed an address (NAT's MASQUERADE forgets what used it). Call
 * box_del_addr on the data-path thread, between packets. At most BOX_MAX_ADDR_WATCHERS:
 * 0/-ENOSPC; unwatch: 0/-ENOENT. */
#define BOX_MAX_ADDR_WATCHERS 4
typedef void (*box_addr_gone_fn)(void *priv, struct box *b, int ifindex, int family,
				 const union pt_addr *a);
int box_watch_addr_gone(struct box *b, box_addr_gone_fn fn, void *priv);
int box_unwatch_addr_gone(struct box *b, box_addr_gone_fn fn, void *priv);
/* From a hook: send the ICMP / ICMPv6 error `type`/`code` about packet `orig` from the box
 * (the source the box uses for its own errors), if the RFCs allow one for it. */
void box_send_icmp_error(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code);
int box_add_route(struct box *b, const struct box_route *r);
int box_del_route(struct box *b, int family, const union pt_addr *net, int plen);
/* Longest-prefix match; NULL when there is no route. */
const struct box_route *box_route_lookup(const struct box *b, int family, const union pt_addr *dst);
bool box_is_local(const struct box *b, int family, const union pt_addr *a);
/* Iterate: the i-th address/route, NULL past the end. */
const struct box_addr *box_addr_at(const struct box *b, unsigned i);
const struct box_route *box_route_at(const struct box *b, unsigned i);

/* The default box of `pkttables replay`: lan0 (10/8, 172.16/12, 192.168/16, fc00::/7) and
 * wan0 (default routes), no local addresses. */
int box_setup_default_gateway(struct box *b);

/* Forwarding on/off per family (net.ipv4.ip_forward); on by default. */
void box_set_forwarding(struct box *b, int family, bool on);

/* ---- rulesets ---------------------------------------------------------------------------- */

/*
 * Install a ruleset for its family, replacing the current one as a whole: a packet being
 * processed sees either the old or the new one, never a mix. The box takes ownership and
 * frees the old one. rs may be NULL (no rules: all tables absent). A ruleset that needs
 * connection tracking turns it on (box_set_conntrack), on the data-path thread before the
 * next packet (or at the next box_ct / box_set_conntrack / clock call there).
 */
void box_set_ruleset(struct box *b, struct rules_ruleset *rs, int family);
/*
 * How box_set_ruleset compiles the chains of the rulesets it is given from now on (a
 * CLS_MODE_* of classify/ruleset.h: auto, the default, compiles chains of 32 rules or more;
 * compiled, every chain; linear, none). `clock_s`, if not NULL, times the builds for `show
 * classifier` (the simulator leaves it NULL: its output stays the same run after run).
 * A ruleset already loaded keeps its classifiers. -EINVAL for an unknown mode.
 */
int box_set_classifier(struct box *b, int mode, double (*clock_s)(void));
int box_classifier(const struct box *b);
/* The current ruleset of a family (the box keeps ownership), NULL if none. */
struct rules_ruleset *box_ruleset(struct box *b, int family);

/* ---- connection tracking ----------------------------------------------------------------- */

/*
 * Every box owns one conntrack table and one defragmenter (src/ct), made when tracking is
 * first turned on, freed by box_free. Tracking runs only when something needs it, as Linux
 * loads nf_conntrack per namespace: box_set_ruleset turns it on for a ruleset with a rule
 * whose match or target has needs_conntrack; box_set_conntrack turns it on or
 * off explicitly. Once on it stays on, whatever later rulesets hold.
 *
 *   PREROUTING / OUTPUT  BOX_PRIO_DEFRAG     reassembly (ct_defrag_in): held fragments are
 *                                            stolen, refused ones dropped (BOX_DROP_DEFRAG)
 *                        BOX_PRIO_CONNTRACK  ct_in
 *   INPUT / POSTROUTING  BOX_PRIO_CONFIRM    ct_confirm
 *   leaving the box (xmit, deliver, drop)    the packet's reference is dropped; a
 *                                            reassembled IPv4 datagram is cut again to
 *                                            min(mtu, largest fragment); an IPv6 shadow
 *                                            sends its original fragments instead
 *   the clock moves                          expired fragment queues go, a bounded ct_sweep
 *
 * Off, nothing is tracked nor reassembled: a non-first fragment still matches -f.
 */
struct ct_table;
struct ct_stats;
struct ct_defrag;
struct ct_defrag_stats;
struct nat_stats;

/* On: make the table (hash key from box_random) and the defragmenter if needed, register the
 * hooks. Off: unregister, free both (the entries are gone). 0 or -ENOMEM/-ENOSPC. Call from
 * the data-path thread, or while no packet is in flight. */
int box_set_conntrack(struct box *b, bool on);
bool box_conntrack_on(struct box *b);
/* The box's table / defragmenter; NULL while tracking is off. */
struct ct_table *box_ct(struct box *b);
struct ct_defrag *box_defrag(struct box *b);
/* Their counters, NULL while tracking is off (ct_table_stats / ct_defrag_stats). */
const struct ct_stats *box_ct_stats(const struct box *b);
const struct ct_defrag_stats *box_defrag_stats(const struct box *b);
/* NAT's counters (attached with tracking), NULL while tracking is off (nat_table_stats). */
const struct nat_stats *box_nat_stats(const struct box *b);
/* Does a ruleset need tracking (a rule with a needs_conntrack match or target)? */
bool box_ruleset_needs_conntrack(const struct rules_ruleset *rs);
/* Drop the conntrack reference a packet holds. The box does it for every packet it finishes
 * with; a caller that runs hooks itself and keeps the packet (box_hook_packet) does it when
 * done. pkt->ct stays readable while the entry is in the table. Idempotent. */
void box_pkt_release(struct box *b, struct pkt *p);

/* ---- clock ------------------------------------------------------------------------------- */

/* The box's clock, in nanoseconds. It moves only when told: box_set_time / box_advance. */
uint64_t box_now(const struct box *b);
void box_set_time(struct box *b, uint64_t ns);
void box_advance(struct box *b, uint64_t ns);
/* Seed the box's deterministic PRNG (statistic --mode random, hashing). */
void box_seed(struct box *b, uint64_t seed);
/* The next 32 bits of that PRNG (xoshiro256** seeded through splitmix64; a fixed default seed). */
uint32_t box_random(struct box *b);

/* ---- packets ----------------------------------------------------------------------------- */

/* A packet arrives on interface `ifindex`. The box parses it (per the interface's link
 * type), runs it through the hooks and hands it to ops.xmit / ops.deliver / ops.dropped.
 * Takes ownership. Returns the final verdict (EXT_ACCEPT if it went out or was delivered,
 * EXT_DROP, EXT_STOLEN when queued). */
int box_receive(struct box *b, int ifindex, struct pkt *p);
/* A packet made by the box itself (a local socket): OUTPUT, POSTROUTING, xmit. The packet
 * starts at its IP header (a socket writes no link header); the box adds the Ethernet header
 * when the route's interface is Ethernet. To one of the box's own addresses: OUTPUT,
 * POSTROUTING, PREROUTING, INPUT on "lo", then ops.deliver. Takes ownership; same returns. */
int box_output(struct box *b, struct pkt *p);

/* Print a TRACE line per rule for every packet (replay --trace), not only TRACE-marked. */
void box_set_trace_all(struct box *b, bool on);

const struct box_stats *box_stats(const struct box *b);
void box_zero_stats(struct box *b);

/* ---- hooks ------------------------------------------------------------------------------- */

struct box_hook_state {
	struct box *box;
	int family;
	unsigned hook;
	int in, out;	      /* interface indexes, 0 = none */
	struct box_drop drop; /* a hook function returning EXT_DROP fills this */
	uint16_t queue_num;   /* a hook function returning EXT_QUEUE fills these */
	uint16_t queue_flags; /* EXT_QUEUE_* */
};

/* For a hook function that drops outside any chain: fills st->drop (table: TABLE_* or -1) and
 * returns EXT_DROP. */
int box_hook_drop(struct box_hook_state *st, enum box_drop_kind kind, int table);

/* Returns EXT_ACCEPT (go on), EXT_DROP (drop, `st->drop` says why), EXT_STOLEN (taken),
 * EXT_QUEUE (to ops.queue: its ACCEPT goes on with the next function, REPEAT calls this one
 * again, DROP drops; without a handler the packet is dropped unless EXT_QUEUE_BYPASS). */
typedef int (*box_hook_fn)(void *priv, struct box_hook_state *st, struct pkt *p);

/* Register a hook function at `hook` with `priority` for family (0 = both). Functions of equal
 * priority run in registration order. 0 or -ENOSPC. */
int box_register_hook(struct box *b, int family, unsigned hook, int priority, box_hook_fn fn,
		      void *priv);
int box_unregister_hook(struct box *b, int family, unsigned hook, box_hook_fn fn, void *priv);

/*
 * Threading: one data-path thread per box (box_receive/box_output and all their callbacks);
 * box_set_ruleset from any thread registered with liburcu. box_new registers the calling thread
 * (counted per thread, so several boxes on one thread are fine); another thread that calls into
 * a box registers itself with box_thread_register and leaves with box_thread_unregister.
 * Everything else is configured on the data-path thread or while no packet is in flight.
 */
void box_thread_register(void);
void box_thread_unregister(void);

/* The services extensions get (struct ext_env) for this box. */
const struct ext_env *box_ext_env(struct box *b);

/* Emit a kernel log line (used by the LOG target through ext_env). */
void box_log(struct box *b, int level, const char *line);

#endif
