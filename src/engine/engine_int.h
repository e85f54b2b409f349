/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the box: the struct and what the engine's files share. Not for other layers.
 *
 * Threading (liburcu, memb flavour):
 *   - One data-path thread per box: box_receive / box_output and every callback they make run
 *     on it. It holds urcu_memb_read_lock for the whole of one packet (nested for packets the
 *     box emits while handling another).
 *   - box_set_ruleset may be called from any thread registered with liburcu (box_new registers
 *     the calling thread; others call box_thread_register). It publishes the new ruleset with
 *     rcu_xchg_pointer, waits for a grace period and frees the old one. Called from inside a
 *     read-side section (a callback of the data path), it cannot wait: the old ruleset is parked
 *     and freed when the outermost packet is done.
 *   - Everything else (interfaces, addresses, routes, hooks, clock, stats) is configured from
 *     the data-path thread or while no packet is in flight; it is not RCU-protected.
 */
#ifndef ENGINE_ENGINE_INT_H
#define ENGINE_ENGINE_INT_H

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>

#include "engine/box.h"

#define BOX_MAX_HOOK_FNS   16
#define BOX_MAX_DEPTH	   64 /* jump stack entries: deeper is a loop (BOX_DROP_LOOP) */
#define BOX_MAX_EMIT_DEPTH 4  /* packets emitted while handling an emitted packet */
#define BOX_MAX_REPEAT	   16 /* NF_REPEAT of one hook function, then the packet is dropped */

/* What a vector's entry is (hook.c's hook_vec_build, once per ruleset and registration). */
enum box_hook_kind {
	BOX_HOOK_END,	 /* after a vector's last entry (0: a zeroed vector is empty) */
	BOX_HOOK_FN,	 /* a function, called through fn */
	BOX_HOOK_POLICY, /* an engine table whose chain has no rules: its policy */
	BOX_HOOK_QUICK,	 /* an engine table whose chain quick_walk may take (traverse.c) */
	BOX_HOOK_TABLE,	 /* another engine table's chain: the traversal */
};

struct box_hook_entry {
	int prio;
	/* a table's hook function (TABLE_*): skipped while the table is absent; -1 */
	int16_t table;
	uint8_t kind; /* in a vector: enum box_hook_kind; in a list: BOX_HOOK_FN */
	box_hook_fn fn;
	void *priv;
	/* In a vector (struct box_hook_vec): for the engine's own table functions (traverse.c),
	 * the table's built-in chain at the hook in the vector's ruleset, which run_list enters
	 * without an indirect call (and applies at once while it has no rules); else NULL. */
	struct rules_chain *chain;
};

struct box_hook_list {
	struct box_hook_entry e[BOX_MAX_HOOK_FNS];
	unsigned n;
};

/*
 * What a packet meets at one (family, hook) under one ruleset: the list without the table
 * functions whose table has no chain at the hook there, in the list's order. Built on the
 * data-path thread at the first packet after the list or the ruleset changed (hook.c), not per
 * packet; keyed by the ruleset's serial, never by its address (a freed ruleset's address may
 * come back).
 */
struct box_hook_vec {
	uint64_t rs_serial; /* rules_ruleset.serial it was built for; 0: no ruleset */
	uint64_t gen;	    /* box.hook_gen it was built at */
	unsigned n;
	/* e[0..lead-1]: engine tables whose chain at the hook has no rules (a chain's rules do
	 * not change once published; its policy may), applied at once outside TRACE */
	unsigned lead;
	struct box_hook_entry e[BOX_MAX_HOOK_FNS + 1]; /* e[n]: kind BOX_HOOK_END */
};

#define BOX_MAX_PLUGINS 8

struct box_slot {
	const struct box_plugin_ops *ops;
	void *priv;
	bool on;
	atomic_bool wanted; /* a ruleset asked for it; applied on the data-path thread */
};

struct box {
	char name[64];
	struct box_ops ops;
	void *user;

	struct box_iface ifaces[BOX_MAX_IFACES];
	unsigned nifaces;
	struct box_addr *addrs;
	unsigned naddrs, addrcap;
	struct box_route *routes;
	unsigned nroutes, routecap;
	struct box_fib *fib; /* lookup structure over routes and addrs (fib.c) */
	bool forwarding[2];
	/* Tests: no leaf of the fib is fwd, so every received packet takes the input path's
	 * general code (test_engine_forward compares a box with it and one without). */
	bool fwd_general;
	struct {
		box_addr_gone_fn fn;
		void *priv;
	} addr_watch[BOX_MAX_ADDR_WATCHERS];

	/* Published rulesets (RCU); cur[] is the snapshot the packet in flight uses. */
	struct rules_ruleset *rs[2];
	struct rules_ruleset *cur[2];
	struct rules_ruleset **parked; /* replaced inside a read-side section, freed later */
	unsigned nparked, parkcap;
	unsigned depth;	     /* nesting of packets in flight on the data-path thread */
	unsigned emit_depth; /* nesting of packets the box made while handling one */

	struct box_hook_list hooks[2][HOOK_MAX];
	uint64_t hook_gen; /* changes with every (un)registration in hooks[][] */
	struct box_hook_vec hook_vec[2][HOOK_MAX];
	/* Per family, bit HOOK_x set: nothing to run there (box_hooks_idle), for hook_gen and
	 * the ruleset serial it was found for. */
	struct {
		uint64_t gen, rs_serial;
		unsigned mask;
	} idle[2];
	atomic_uint_fast64_t rs_serial; /* the last rules_ruleset.serial given out */

	uint64_t now;
	uint64_t rng[4];      /* xoshiro256** state */
	uint64_t hash_key[2]; /* key of extensions' hash tables (pkt_hash), from the seed */
	uint32_t ip_id;	      /* IPv4 identification of packets the box makes */
	bool trace_all;
	struct box_stats stats;
	struct ext_env env;

	/* Plug-ins (plugin.c): one slot each, in box_plugin_list's order. */
	struct box_slot slot[BOX_MAX_PLUGINS];
	unsigned nslots;
	atomic_bool plugin_wanted; /* a slot's `wanted` is set: apply before the next packet */
	/* The release functions of the plug-ins that are on (the per-packet path reads only
	 * these). */
	struct box_release {
		void (*fn)(void *priv, struct pkt *p);
		void *priv;
	} release[BOX_MAX_PLUGINS];
	unsigned nrelease;
	/* The prepare_burst functions of the plug-ins that are on (box_receive_burst). */
	struct box_prepare {
		void (*fn)(void *priv, struct pkt *const *pkts, unsigned n);
		void *priv;
	} prepare[BOX_MAX_PLUGINS];
	unsigned nprepare;
	int burst_index;		  /* box_burst_index: -1 outside a prepared burst's loop */
	struct box_hook_list tx_hooks[2]; /* the transmit stage (box_register_tx_hook) */

	struct pkt_pool *pool;	   /* box_pkt_get's packets; made at the first */
	int cls_mode;		   /* CLS_MODE_* for rulesets loaded from now on */
	double (*cls_clock)(void); /* times builds; NULL in the simulator */
};

static inline int box_fam_index(int family)
{
	return family == AF_INET6 ? 1 : 0;
}

/* box_iface, inline for the packet path. */
static inline const struct box_iface *box_iface_at(const struct box *b, int index)
{
	if (index < 1 || (unsigned)index > b->nifaces)
		return NULL;
	return &b->ifaces[index - 1];
}

/*
 * The MTU a packet leaving by route r through interface o (NULL: none) meets, as Linux picks it
 * (ip_dst_mtu_maybe_forward, ip6_dst_mtu_maybe_forward, dst_mtu): the route's mtu when it has
 * one, else the interface's; except ip6_forward's check, which uses the interface's (never less
 * than 1280). The route's mtu still holds for IPv6 on output (ip6_fragment's "too big"), after
 * FORWARD and POSTROUTING: the kernel's error then quotes the packet with its hop limit
 * decremented (tests/diff/live, mtu.case).
 */
static inline uint32_t box_route_mtu_at(const struct box_iface *o, const struct box_route *r,
					bool forwarding)
{
	uint32_t m = o ? o->mtu : 65535;

	if (r->mtu && !(forwarding && r->family == AF_INET6))
		m = r->mtu;
	if (r->family == AF_INET6 && forwarding && m < 1280)
		m = 1280;
	return m;
}

/* box_pkt_unref without a call when no plug-in holds references. */
static inline void box_pkt_unref_fast(struct box *b, struct pkt *p)
{
	if (b->nrelease)
		box_pkt_unref(b, p);
}

/* ---- fib.c: route and local-address lookup ---- */

enum { BOX_ADDR_LOCAL = 1, BOX_ADDR_BCAST = 2 };

/*
 * The lookup structure (built by fib.c from the routes and addresses): per family a 256-way trie
 * whose leaves are groups (a prefix's first route, and for IPv4 the kind of an address's /32
 * leaf), in front of per-length hash tables. Here for the inline lookup of the packet path.
 */
struct fib_group {
	const struct box_route *r; /* the group's first route (routes[order[first]]); NULL: none */
	/* Found when the structure is built, for the input path: r's interface (NULL: none); the
	 * MTUs a packet forwarded by r is checked against and leaves by (box_route_mtu_at). */
	const struct box_iface *ifc;
	uint32_t fwd_mtu, out_mtu;
	uint8_t kind; /* an address's leaf: BOX_ADDR_* of that address */
	/* A packet to a destination of this leaf that is neither multicast nor broadcast is
	 * forwarded by r while its interface is up: r is unicast through ifc, the leaf is none of
	 * the box's addresses, and forwarding is on for the family (box_fib_forward). */
	bool fwd;
};

struct fib_family {
	struct fib_len *lens;
	unsigned nlens;
	uint32_t (*trie)[256]; /* NULL: no trie (no route, or too many nodes) */
	uint32_t ntrie, trie_cap;
	struct fib_group *groups;
	uint32_t ngroups;
	bool kinds; /* the box's addresses are leaves of the trie: no hash probe */
	/* kinds, and the structure is current (box_fib_changed clears it): box_fib_forward may
	 * answer from the trie alone */
	bool ready;
};

/*
 * The trie's leaf for dst: one load per level, until an entry is a leaf (odd). Group 0 is the
 * leaf of what nothing covers (no route, none of the box's addresses); nodes are made at depths
 * 0..3 (IPv4) or 0..15 (IPv6) only, so every entry of the deepest node is a leaf. ff->trie set.
 */
static inline __attribute__((always_inline)) const struct fib_group *
fib_trie_leaf(const struct fib_family *ff, const union pt_addr *dst)
{
	uint32_t e = ff->trie[0][dst->b[0]];
	unsigned d = 0;

	while (!(e & 1))
		e = ff->trie[e >> 1][dst->b[++d]];
	return &ff->groups[e >> 1];
}

struct box_fib {
	bool stale, broken; /* broken: the last build ran out of memory */
	struct fib_family fam[2];
	uint32_t *order;
	struct fib_addr *addrs;
	uint32_t addr_mask;
};

struct box_fib *box_fib_new(void);
void box_fib_free(struct box_fib *f);
/* Routes, addresses, an interface's MTU or the forwarding switch changed, or an interface was
 * added: the next lookup rebuilds. */
void box_fib_changed(struct box *b);
/* Tests: every received packet through the input path's general code (box.fwd_general). */
void box_set_fwd_general(struct box *b, bool on);
/* The route box_route_scan would choose into *out (NULL: none). 0, or -ENOMEM when the
 * structure cannot be built (the caller scans). */
int box_fib_route(const struct box *b, int family, const union pt_addr *dst,
		  const struct box_route **out);
/* BOX_ADDR_* bits of a, or -ENOMEM (as above). */
int box_fib_addr_kind(const struct box *b, int family, const union pt_addr *a);

/* box_route_lookup and box_addr_kind of dst in one call (a packet's input routing). */
const struct box_route *box_route_input_slow(const struct box *b, int family,
					     const union pt_addr *dst, int *kind);

/*
 * box_route_input_slow, inline where the trie answers alone: a current structure, the
 * addresses' kinds in the trie (IPv4), the leaf's route through an interface that is up or none
 * (fib.c's trie_find). Anything else (a build due, IPv6's address probe, a route whose interface
 * is down, which the per-length tables may answer with another) is the call. *ifc: the route's
 * interface (box_iface_at of its oif), NULL for none.
 */
static inline __attribute__((always_inline)) const struct box_route *
box_route_input_at(const struct box *b, int family, const union pt_addr *dst, int *kind,
		   const struct box_iface **ifc)
{
	const struct box_fib *f = b->fib;
	const struct box_route *r;
	const struct fib_family *ff;
	const struct fib_group *g;

	if (!f || f->stale || f->broken)
		goto slow;
	ff = &f->fam[box_fam_index(family)];
	if (!ff->trie || !ff->kinds)
		goto slow;
	g = fib_trie_leaf(ff, dst);
	*ifc = g->r ? box_iface_at(b, g->r->oif) : NULL;
	if (*ifc && !(*ifc)->up)
		goto slow;
	*kind = g->kind;
	return g->r;
slow:
	r = box_route_input_slow(b, family, dst, kind);
	*ifc = r ? box_iface_at(b, r->oif) : NULL;
	return r;
}

/*
 * The trie's leaf for dst when a packet to dst that is neither multicast nor broadcast is
 * forwarded by its route as it is (fib_group.fwd, the route's interface up); NULL when
 * box_route_input_at must decide (a build due, no trie, any other leaf). What the input path's
 * general code decides for such a packet, it decides alone: test_engine_forward compares the two.
 */
static inline __attribute__((always_inline)) const struct fib_group *
box_fib_forward(const struct box *b, int family, const union pt_addr *dst)
{
	const struct fib_family *ff = &b->fib->fam[box_fam_index(family)]; /* box_new made it */
	const struct fib_group *g;

	if (!ff->ready)
		return NULL;
	g = fib_trie_leaf(ff, dst);
	return g->fwd && g->ifc->up ? g : NULL;
}

static inline __attribute__((always_inline)) const struct box_route *
box_route_input(const struct box *b, int family, const union pt_addr *dst, int *kind)
{
	const struct box_iface *ifc;

	return box_route_input_at(b, family, dst, kind, &ifc);
}

/* The linear scan over every route (the reference the fib must agree with). */
const struct box_route *box_route_scan(const struct box *b, int family, const union pt_addr *dst);
/* BOX_ADDR_* bits of a (fib, or a scan of the addresses). */
int box_addr_kind(const struct box *b, int family, const union pt_addr *a);
/* box_is_local with the route to a already looked up (r may be NULL). */
bool box_is_local_route(const struct box *b, int family, const union pt_addr *a,
			const struct box_route *r);

/* "" for 0, "lo" for BOX_IFINDEX_LO, else the interface's name. */
const char *box_ifname(const struct box *b, int index);

/* Enter / leave the read-side section of one packet (snapshots the rulesets). */
void box_pkt_begin(struct box *b, struct rules_ruleset *saved[2]);
void box_pkt_end(struct box *b, struct rules_ruleset *saved[2]);

/* ---- plugin.c ---- */

/* box_new: a slot per plug-in of box_plugin_list; box_free: all off. */
void box_plugins_init(struct box *b);
void box_plugins_free(struct box *b);
/* Turn on what rulesets asked for (data-path thread, no packet in flight). */
void box_plugins_apply(struct box *b);
/* The clock moved: every plug-in's clock. */
void box_plugins_clock(struct box *b);
/* A ruleset was installed: mark the plug-ins it wants (any thread). */
void box_plugins_want(struct box *b, const struct rules_ruleset *rs);
/* Every plug-in's setup verbs after the engine's own: the one named argv[0], NULL if none. */
const struct box_setup_cmd *box_plugins_setup_cmd(const struct box *b, const char *name);
/* What the plug-in named `name` gives extensions (ops->ext_data), NULL while it is off. */
void *box_plugin_ext_data(struct box *b, const char *name);
/* Every plug-in's stats lines. */
void box_plugins_stats(const struct box *b, FILE *f, const char *indent);

/* ---- fragment.c ---- */

/*
 * IPv4 fragmentation on output (ip_fragment): p cut for a link of `mtu` into at most `max`
 * packets in out[] (metadata copied, plug-ins' references not). frag_max_size (the largest
 * fragment of a datagram defragmentation made, 0 for others): its fragments leave cut as they
 * came in, to min(mtu, frag_max_size), even when it would fit whole. Returns the number of
 * packets, -EMSGSIZE (DF and too big), -ENOSPC (more than max), -EINVAL, -ENOMEM.
 */
int box_fragment4(const struct pkt *p, uint32_t mtu, uint16_t frag_max_size, struct pkt **out,
		  unsigned max);

/* Count the drop, tell ops.dropped, free the packet. Returns EXT_DROP. */
int box_drop_pkt(struct box *b, struct pkt *p, const struct box_drop *why);
int box_drop_simple(struct box *b, struct pkt *p, enum box_drop_kind kind, unsigned hook);

/* The hook functions with lo <= priority <= hi at (family, hook) only (box_run_hook). */
int box_run_hook_prio(struct box *b, int family, unsigned hook, int in, int out, struct pkt **pp,
		      struct box_drop *drop, int lo, int hi);

/* Nothing to run at (family index f, hook) for the packet's ruleset: the vector is current and
 * empty (a stale vector is rebuilt by box_run_hook_prio). The common case of plain forwarding,
 * decided here without a call or a hook state. */
static inline bool box_hook_idle(const struct box *b, unsigned f, unsigned hook)
{
	const struct box_hook_vec *v = &b->hook_vec[f][hook];
	const struct rules_ruleset *rs = b->cur[f];

	return v->n == 0 && v->gen == b->hook_gen && v->rs_serial == (rs ? rs->serial : 0);
}

/* box_hooks_idle when the mask is stale: every hook's vector brought up to date. */
unsigned box_hooks_idle_find(struct box *b, unsigned f);

/* Bit HOOK_x set: nothing to run at that hook for family index f and the packet's ruleset. */
static inline unsigned box_hooks_idle(struct box *b, unsigned f)
{
	const struct rules_ruleset *rs = b->cur[f];

	if (b->idle[f].gen == b->hook_gen && b->idle[f].rs_serial == (rs ? rs->serial : 0))
		return b->idle[f].mask;
	return box_hooks_idle_find(b, f);
}

/* A current vector of engine tables of no rules only (lead == n), outside TRACE: their
 * policies, counted, as traversing them would (hook.c). EXT_ACCEPT or EXT_DROP (drop filled). */
int box_hook_policies(struct box *b, const struct box_hook_vec *v, const struct pkt *p,
		      unsigned hook, struct box_drop *drop);

/* box_run_hook_prio for every priority (box_run_hook's call when more than policies is due);
 * v: the vector of (family, hook), current or not. */
int box_run_hook_all(struct box *b, const struct box_hook_vec *v, int family, unsigned hook, int in,
		     int out, struct pkt **pp, struct box_drop *drop);
/* The same for a vector known to be current. */
int box_run_hook_vec(struct box *b, const struct box_hook_vec *v, int family, unsigned hook, int in,
		     int out, struct pkt **pp, struct box_drop *drop);

/* Run every hook function at (family, hook). EXT_ACCEPT, EXT_DROP (st->drop filled) or
 * EXT_STOLEN. Handles EXT_QUEUE through ops.queue. *pp may be replaced by a hook function
 * (box_hook_state.replaced: defragmentation). */
static inline int box_run_hook(struct box *b, int family, unsigned hook, int in, int out,
			       struct pkt **pp, struct box_drop *drop)
{
	const unsigned f = (unsigned)box_fam_index(family);
	const struct box_hook_vec *v = &b->hook_vec[f][hook];
	const struct rules_ruleset *rs = b->cur[f];

	const bool current = v->gen == b->hook_gen && v->rs_serial == (rs ? rs->serial : 0);

	/* current, and only engine tables of no rules there (none: idle) */
	if (v->lead == v->n && current) {
		if (!v->n)
			return EXT_ACCEPT;
		if (!(*pp)->trace && !b->trace_all)
			return box_hook_policies(b, v, *pp, hook, drop);
	}
	if (current)
		return box_run_hook_vec(b, v, family, hook, in, out, pp, drop);
	return box_run_hook_all(b, v, family, hook, in, out, pp, drop);
}
/* The transmit stage toward oif (mtu): EXT_ACCEPT (go on), EXT_STOLEN, EXT_DROP. */
int box_run_tx_hooks(struct box *b, struct pkt *p, int oif, uint32_t mtu, struct box_drop *drop);

/* box_register_hook for the hook function of `table` (TABLE_*): run_list skips it while the
 * packet's ruleset has no chain of that table at the hook. */
int box_register_table_hook(struct box *b, int family, unsigned hook, int priority, box_hook_fn fn,
			    void *priv, int table);

/* The tables' hook functions (traverse.c), registered by box_new. */
void box_register_tables(struct box *b);
/* The engine's table hook function (what box_register_tables registers). */
int box_table_hook(void *priv, struct box_hook_state *st, struct pkt *p);
/* The engine's table function's work for a table known to have a built-in chain at st->hook in
 * the packet's ruleset (a vector's entry e with a chain): the chain traversed, no checks. */
int box_table_enter(struct box_hook_state *st, struct pkt *p, const struct box_hook_entry *e);
/* Whether quick_walk may take a packet (not traced, ...) through chain c of table `table` of
 * rs (the part that holds for the ruleset's life): BOX_HOOK_QUICK. */
bool box_table_quick(const struct rules_ruleset *rs, unsigned table, const struct rules_chain *c);

/* One TRACE line for the rule `rulenum` of `chain` (comment: "rule", "return", "policy"). */
void box_trace(struct box *b, const struct pkt *p, unsigned table, const char *chain,
	       const char *comment, unsigned rulenum, const char *in, const char *out);

/* Locally generated packet, with the emit depth counted (env.emit and ICMP errors). */
int box_emit(struct box *b, struct pkt *p);
void box_icmp_source(const struct box *b, const struct pkt *orig, union pt_addr *src);

uint32_t box_env_addr_type(void *box, int family, const union pt_addr *a, const char *limit);
void box_env_init(struct box *b);

#endif
