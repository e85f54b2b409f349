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
 * Tables are hook functions registered like any other; plug-ins (conntrack and its
 * defragmentation, NAT with the nat table) register theirs with box_register_hook() and
 * box_register_tx_hook() (see "plug-ins" below).
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
	BOX_DROP_DEFRAG,    /* defragmentation refused the fragment (box_drop.reason says why) */
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
	unsigned reason;   /* the plug-in's own reason (BOX_DROP_DEFRAG: src/ct's defrag one) */
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
	/* A packet the box made itself (REJECT's RST or ICMP error, ...), handed over before the
	 * box's own routing and OUTPUT when another stack routes (NFQUEUE mode: the kernel
	 * sends it). NULL: the box routes it (box_output). Takes ownership. */
	void (*emit)(void *user, struct box *b, struct pkt *p);
	/* -j NFLOG handed a packet to log group `group` (the netlink group ulogd would read):
	 * the simulator's and live mode's captures of a group. Information only. */
	void (*nflog)(void *user, struct box *b, unsigned group, const char *prefix,
		      const struct pkt *p);
};

struct box_iface {
	char name[BOX_IFNAME_MAX];
	int index; /* 1-based */
	uint8_t mac[6];
	uint8_t peer_mac[6];  /* next hop's MAC used when the simulator/replay writes frames */
	uint8_t eth_macs[12]; /* peer_mac then mac: a frame's first 12 bytes out of it (box.c
			       * keeps them with the two) */
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
/* The same with the 32-bit "rest of header" (the next-hop MTU of "fragmentation needed"). */
void box_send_icmp_error_rest(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code,
			      uint32_t rest);
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
 * frees the old one. rs may be NULL (no rules: all tables absent). A plug-in the ruleset needs
 * (box_plugin_ops.wants: conntrack for a rule with needs_conntrack) is turned on, on the
 * data-path thread before the next packet (or at the next box_plugin_data / clock call).
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

/* ---- plug-ins ---------------------------------------------------------------------------- */

/*
 * A plug-in keeps state per box and works through hooks, as the kernel's conntrack and NAT
 * do: conntrack (src/ct), NAT (src/nat), and what comes next (state sync, the classifier,
 * sets). The engine names none of them. box_new gives every box one slot per plug-in of the
 * list box_plugin_list (src/plugins/list.c), each off:
 *
 *   box_plugin_on(b, ops), or a ruleset ops->wants (applied on the data-path thread before
 *   the next packet, clock move or box_plugin_data)
 *        -> ops->init(b, &priv): makes its state, registers its hooks
 *        -> then every plug-in whose `follows` names it (NAT follows conntrack)
 *   box_plugin_off(b, ops), box_free
 *        -> its followers' free first, then ops->free(b, priv): unregisters, frees
 *
 * While on, the engine calls, when the plug-in has them:
 *   release(priv, p)            the box is done with a packet (sent, delivered, dropped)
 *   clock(priv, now)            the box's clock moved
 *   stats(priv, f, indent)      box_print_stats: its counter lines
 * and box_setup_command finds its setup verbs (ops->setup) by their first word, on or off.
 * Hooks a plug-in registers may replace the packet (box_hook_state.replaced) and may sit in
 * the transmit stage (box_register_tx_hook).
 */
struct box_plugin_ops;

/* One setup verb ("conntrack set NAME VALUE"): 0, or -1 with the reason in err. */
typedef int (*box_setup_fn)(struct box *b, int argc, char **argv, char *err, size_t errlen);
struct box_setup_cmd {
	const char *name;  /* the first word */
	box_setup_fn fn;   /* argv[0] is name */
	const char *usage; /* "conntrack set NAME VALUE" */
};

struct box_plugin_ops {
	const char *name;    /* "conntrack", "nat" */
	const char *follows; /* NULL, or on right after and off right before this plug-in */
	/* Does this ruleset need the plug-in on? NULL: only box_plugin_on turns it on. */
	bool (*wants)(const struct rules_ruleset *rs);
	/* Make the state, register hooks: 0 or -errno (then nothing is left behind). */
	int (*init)(struct box *b, void **priv);
	/* Unregister and free everything. */
	void (*free)(struct box *b, void *priv);
	void (*release)(void *priv, struct pkt *p);
	void (*clock)(void *priv, uint64_t now);
	void (*stats)(void *priv, FILE *f, const char *indent);
	const struct box_setup_cmd *setup; /* ends with {NULL}; NULL: no verbs */
	/* What extensions get from it through struct ext_env (the plug-in named "conntrack":
	 * ext_env_ops.conntrack, its struct ct_table *). NULL: priv itself. */
	void *(*ext_data)(void *priv);
	/*
	 * Optional: a burst's packets (box_receive_burst, parsed, n >= 2), before the first
	 * goes its way. It may read its own state, prefetch, and keep per packet what it
	 * computed (a hash) for that packet's own path to find by box_burst_index; it changes
	 * nothing a packet, a rule or a listing could see: every packet still takes its path
	 * one after the other, and what was kept is a hint that path checks before it uses it
	 * (an earlier packet of the burst or a rule may have changed what it was made from).
	 */
	void (*prepare_burst)(void *priv, struct pkt *const *pkts, unsigned n);
};

/* The plug-ins every box gets a slot for, NULL-terminated (src/plugins/list.c). */
extern const struct box_plugin_ops *const box_plugin_list[];

/* Turn a plug-in on (and its followers): 0, -ENOENT (no slot) or init's error. Once on it
 * stays on until box_plugin_off, whatever later rulesets hold. Call from the data-path thread,
 * or while no packet is in flight. */
int box_plugin_on(struct box *b, const struct box_plugin_ops *ops);
/* Off (its followers first): its state is gone. 0 or -ENOENT. */
int box_plugin_off(struct box *b, const struct box_plugin_ops *ops);
/* Is it on? A turn-on a ruleset asked for is applied first (data-path thread). */
bool box_plugin_is_on(struct box *b, const struct box_plugin_ops *ops);
/* Its private data while on, else NULL; a turn-on a ruleset asked for is applied first, as
 * for every packet (call it on the data-path thread). */
void *box_plugin_data(struct box *b, const struct box_plugin_ops *ops);
/* The same without applying anything (for counters and printing). */
void *box_plugin_peek(const struct box *b, const struct box_plugin_ops *ops);

/* The box is done with a packet it was given or made: every plug-in's release, then freed.
 * For hook functions that take a packet (EXT_STOLEN) and end it. */
void box_pkt_free(struct box *b, struct pkt *p);
/* Only the plug-ins' release (their references on the packet go; the packet stays: not
 * pkt_release, which frees a packet's buffers). A caller
 * that runs hooks itself and keeps the packet (box_hook_packet) does it when done.
 * Idempotent. */
void box_pkt_unref(struct box *b, struct pkt *p);

/* ---- clock ------------------------------------------------------------------------------- */

/* The box's clock, in nanoseconds. It moves only when told: box_set_time / box_advance. */
uint64_t box_now(const struct box *b);
void box_set_time(struct box *b, uint64_t ns);
void box_advance(struct box *b, uint64_t ns);
/* Seed the box's deterministic PRNG (statistic --mode random, hashing). */
void box_seed(struct box *b, uint64_t seed);
/* The next 32 bits of that PRNG (xoshiro256** seeded through splitmix64; a fixed default seed). */
uint32_t box_random(struct box *b);
/* The box's 128-bit hash key (pkt_hash), fixed by box_seed: the same seed, the same key. */
const uint64_t *box_hash_key(const struct box *b);

/* ---- packets ----------------------------------------------------------------------------- */

/* A packet arrives on interface `ifindex`. The box parses it (per the interface's link
 * type), runs it through the hooks and hands it to ops.xmit / ops.deliver / ops.dropped.
 * Takes ownership. Returns the final verdict (EXT_ACCEPT if it went out or was delivered,
 * EXT_DROP, EXT_STOLEN when queued). */
int box_receive(struct box *b, int ifindex, struct pkt *p);

/*
 * A packet holding a copy of `len` bytes for the box to receive, from the box's pool: a receive
 * loop that copies frames in (a capture, a socket) then allocates nothing per packet; pkt_free
 * (by whoever ends the packet: ops.xmit's sender, the box on a drop) gives it back. For the
 * box's data-path thread. At most BOX_POOL_IDLE packets are kept idle, each with a buffer of
 * BOX_POOL_BUF bytes; a longer frame gets a packet of its own. NULL on ENOMEM.
 */
#define BOX_POOL_IDLE 1024
#define BOX_POOL_BUF  2048
struct pkt *box_pkt_get(struct box *b, const void *data, uint32_t len);
/* The pool's counters (all zero before the first box_pkt_get). */
void box_pool_stats(const struct box *b, struct pkt_pool_stats *st);

#define BOX_BURST_MAX 256
/*
 * Up to BOX_BURST_MAX packets that arrived on interface `ifindex`, in order: the same as
 * box_receive of each in turn (same verdicts, same callbacks in the same order), with the work
 * around the packets done once (parsing all first, one ruleset snapshot for the burst: a
 * ruleset installed during it applies from the next burst). Takes ownership of every packet.
 * verdicts (NULL: not wanted) gets box_receive's answer per packet. Returns the number of
 * EXT_ACCEPT verdicts, -EINVAL (n too large, a NULL packet: nothing taken) or -ENODEV (the
 * interface is unknown or down: all freed).
 */
int box_receive_burst(struct box *b, int ifindex, struct pkt *const *pkts, unsigned n,
		      int *verdicts);
/* Inside box_receive_burst, for a plug-in's hook function: the index in the burst of the packet
 * whose path is running (a packet the box makes on its way gets the same), after the
 * plug-ins' prepare_burst ran; -1 anywhere else (box_receive, box_output, a burst of one). */
int box_burst_index(const struct box *b);
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
	unsigned hook;	      /* HOOK_*; the transmit stage: HOOK_POSTROUTING */
	int in, out;	      /* interface indexes, 0 = none */
	struct box_drop drop; /* a hook function returning EXT_DROP fills this */
	uint16_t queue_num;   /* a hook function returning EXT_QUEUE fills these */
	uint16_t queue_flags; /* EXT_QUEUE_* */
	/* A hook function that replaces the packet (defragmentation) puts the new one here and
	 * returns EXT_ACCEPT (go on with it) or EXT_DROP (drop it); the old one is then its
	 * business (kept or freed). */
	struct pkt *replaced;
	uint32_t mtu; /* the transmit stage: the link's MTU (IP bytes) */
};

/* For a hook function that drops outside any chain: fills st->drop (table: TABLE_* or -1) and
 * returns EXT_DROP. */
int box_hook_drop(struct box_hook_state *st, enum box_drop_kind kind, int table);

/* Returns EXT_ACCEPT (go on), EXT_DROP (drop, `st->drop` says why), EXT_STOLEN (taken),
 * EXT_QUEUE (to ops.queue: its ACCEPT goes on with the next function, REPEAT calls this one
 * again, DROP drops; without a handler the packet is dropped unless EXT_QUEUE_BYPASS). A
 * function that returns EXT_ACCEPT without replacing the packet writes nothing into st (the
 * next function gets the state as it was, without a reset). */
typedef int (*box_hook_fn)(void *priv, struct box_hook_state *st, struct pkt *p);

/* Register a hook function at `hook` with `priority` for family (0 = both). Functions of equal
 * priority run in registration order. 0 or -ENOSPC. */
int box_register_hook(struct box *b, int family, unsigned hook, int priority, box_hook_fn fn,
		      void *priv);
int box_unregister_hook(struct box *b, int family, unsigned hook, box_hook_fn fn, void *priv);

/*
 * The transmit stage: after POSTROUTING, before the box fits the packet to the link (IPv4
 * fragmentation, the MTU check) and hands it to ops.xmit. A function may take the packet
 * (EXT_STOLEN; it sends what it wants with box_xmit_frame and ends p with box_pkt_free) or
 * drop it (EXT_DROP, st->drop filled); st->out and st->mtu say where it goes. Conntrack sends
 * an IPv6 datagram it reassembled as its original fragments here.
 */
int box_register_tx_hook(struct box *b, int family, int priority, box_hook_fn fn, void *priv);
int box_unregister_tx_hook(struct box *b, int family, box_hook_fn fn, void *priv);
/* Out of interface `oif` as it is (framed for the link, no MTU check, no hooks); takes p. */
void box_xmit_frame(struct box *b, struct pkt *p, int oif);

/*
 * Table traversal for a plug-in's hook function: run `table` of the current ruleset for the
 * packet at st->hook, as the engine's own table hooks do (ipt_do_table). NAT runs the nat
 * table this way, behind its own gate (nf_nat_inet_fn: only a connection's first packet).
 * EXT_ACCEPT when the table is absent or has no chain at the hook.
 */
int box_table_run(struct box_hook_state *st, struct pkt *p, unsigned table);

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
