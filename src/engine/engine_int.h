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

#include <stdatomic.h>
#include <sys/socket.h>

#include "engine/box.h"

#define BOX_MAX_HOOK_FNS   16
#define BOX_MAX_DEPTH	   64 /* jump stack entries: deeper is a loop (BOX_DROP_LOOP) */
#define BOX_MAX_EMIT_DEPTH 4  /* packets emitted while handling an emitted packet */
#define BOX_MAX_REPEAT	   16 /* NF_REPEAT of one hook function, then the packet is dropped */

struct box_hook_entry {
	int prio;
	box_hook_fn fn;
	void *priv;
};

struct box_hook_list {
	struct box_hook_entry e[BOX_MAX_HOOK_FNS];
	unsigned n;
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
	bool forwarding[2];
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

	uint64_t now;
	uint64_t rng[4]; /* xoshiro256** state */
	uint32_t ip_id;	 /* IPv4 identification of packets the box makes */
	bool trace_all;
	struct box_stats stats;
	struct ext_env env;

	/* Connection tracking (conntrack.c): made at the first turn-on, freed by box_free; also
	 * what ext_env_ops.conntrack hands to extensions (NULL while off). */
	struct ct_table *ct;
	struct ct_defrag *defrag;
	struct nat_table *nat; /* attached while tracking is on (nat_attach), gone before ct */
	bool ct_on;
	atomic_bool ct_wanted;	 /* a ruleset asked for it; applied on the data-path thread */
	struct box_reasm *reasm; /* reassembled packets in flight */

	int cls_mode;		      /* CLS_MODE_* for rulesets loaded from now on */
	double (*cls_clock)(void); /* times builds; NULL in the simulator */
};

/*
 * A packet defragmentation made, while it is in the box: an IPv4 datagram (cut again on
 * transmit to frag_max_size) or an IPv6 shadow with its original fragments (sent instead of
 * it, or freed with it). Found by the packet's address; every way out of the box takes it.
 */
struct box_reasm {
	struct box_reasm *next;
	struct pkt *pkt;
	struct pkt **orig; /* IPv6: the originals in arrival order; NULL for IPv4 */
	unsigned norig;
	uint16_t frag_max_size;
};

static inline int box_fam_index(int family)
{
	return family == AF_INET6 ? 1 : 0;
}

/* "" for 0, "lo" for BOX_IFINDEX_LO, else the interface's name. */
const char *box_ifname(const struct box *b, int index);

/* Enter / leave the read-side section of one packet (snapshots the rulesets). */
void box_pkt_begin(struct box *b, struct rules_ruleset *saved[2]);
void box_pkt_end(struct box *b, struct rules_ruleset *saved[2]);

/* ---- conntrack.c ---- */

/* A ruleset asked for tracking: turn it on now (data-path thread, no packet in flight). */
void box_ct_apply(struct box *b);
/* The clock moved: expire fragment queues, sweep a bounded part of the table. */
void box_ct_clock(struct box *b);
/* Free the table, the defragmenter and what is left of reassembled packets (box_free). */
void box_ct_free(struct box *b);
/* Defragmentation at BOX_PRIO_DEFRAG of `hook`. EXT_ACCEPT: go on with *pp (maybe a new,
 * reassembled packet); EXT_STOLEN: held; EXT_DROP: *drop says why, the caller drops *pp. */
int box_defrag_step(struct box *b, unsigned hook, struct pkt **pp, enum pkt_link link,
		    struct box_drop *drop);
/* Take p's reassembly record out of the list; NULL when p is no such packet. */
struct box_reasm *box_reasm_take(struct box *b, const struct pkt *p);
/* Free a record and the IPv6 originals it still holds (not the packet itself). */
void box_reasm_free(struct box_reasm *r);
/* Release the packet's reference, forget its reassembly record (freeing IPv6 originals),
 * free it: the one way the box frees a packet it was given or made. */
void box_pkt_free(struct box *b, struct pkt *p);

/* Count the drop, tell ops.dropped, free the packet. Returns EXT_DROP. */
int box_drop_pkt(struct box *b, struct pkt *p, const struct box_drop *why);
int box_drop_simple(struct box *b, struct pkt *p, enum box_drop_kind kind, unsigned hook);

/* Run every hook function at (family, hook). EXT_ACCEPT, EXT_DROP (st->drop filled) or
 * EXT_STOLEN. Handles EXT_QUEUE through ops.queue. */
int box_run_hook(struct box *b, int family, unsigned hook, int in, int out, struct pkt *p,
		 struct box_drop *drop);
/* The same for the hook functions with lo <= priority <= hi only. */
int box_run_hook_prio(struct box *b, int family, unsigned hook, int in, int out, struct pkt *p,
		      struct box_drop *drop, int lo, int hi);
/* box_run_hook with defragmentation at BOX_PRIO_DEFRAG (PREROUTING, OUTPUT): *pp may be
 * replaced by the reassembled packet; EXT_STOLEN when the fragment was held. */
int box_run_hook_defrag(struct box *b, int family, unsigned hook, int in, int out, struct pkt **pp,
			enum pkt_link link, struct box_drop *drop);

/* The tables' hook functions (table.c), registered by box_new. */
void box_register_tables(struct box *b);

/* One TRACE line for the rule `rulenum` of `chain` (comment: "rule", "return", "policy"). */
void box_trace(struct box *b, const struct pkt *p, unsigned table, const char *chain,
	       const char *comment, unsigned rulenum, const char *in, const char *out);
/* The kernel log format of a packet ("IN=.. OUT=.. MAC=.. SRC=.. ..."), after `prefix`. */
int box_format_packet(char *buf, size_t len, const char *prefix, const struct pkt *p,
		      const char *in, const char *out);

/* Locally generated packet, with the emit depth counted (env.emit and ICMP errors). */
int box_emit(struct box *b, struct pkt *p);
/* ICMP / ICMPv6 error about `orig` (time exceeded, unreachable), if the box may send one. */
void box_icmp_error(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code);
/* The same with the 32-bit "rest of header" (the next-hop MTU of "fragmentation needed"). */
void box_icmp_error_rest(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code,
			 uint32_t rest);
void box_icmp_source(const struct box *b, const struct pkt *orig, union pt_addr *src);

uint32_t box_env_addr_type(void *box, int family, const union pt_addr *a, const char *limit);
void box_env_init(struct box *b);

#endif
