/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connection tracking: one table per box holding both directions of every connection, for
 * IPv4 and IPv6 alike.
 *
 * Life of an entry (the kernel's model):
 *
 *   ct_in() at PREROUTING/OUTPUT           ct_confirm() at INPUT/POSTROUTING
 *   lookup -> found: update, pkt->ct = e   e unconfirmed? insert both tuples, fire NEW
 *          -> none: create UNCONFIRMED e   (a packet dropped in between: the entry is never
 *             (not in the hash: invisible)  inserted and is freed with the packet reference)
 *
 *   expiry: only from the `now` passed in (box clock, ns). An expired entry is removed when a
 *   lookup meets it, and by ct_sweep() (a bounded number of buckets per call).
 *   full table: the oldest entry not yet ASSURED is evicted (counted); none: the new one fails.
 *
 * The core owns lifetime, hashing, expiry, events and the extension area; per-protocol
 * trackers (proto_*.c, behind struct ct_proto_ops) own the protocol's semantics.
 *
 * pkt->ct and pkt->ctinfo: ct is the entry (NULL: INVALID, or UNTRACKED when the low bits of
 * ctinfo are CT_UNTRACKED); the low 3 bits of ctinfo are the kernel's ctinfo (IP_CT_*), bit
 * CT_INFO_REF says the packet holds a reference that ct_pkt_release() drops, and before
 * tracking the top 16 bits carry the zone set by CT --zone (the kernel's template).
 *
 * Threading: a table belongs to one box and is used from its data-path thread only.
 */
#ifndef CT_CT_H
#define CT_CT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ct/tuple.h"
#include "pkt/pkt.h"

/* ctinfo values, numbered as the kernel numbers enum ip_conntrack_info. */
enum ct_info {
	CT_ESTABLISHED = 0,
	CT_RELATED = 1,
	CT_NEW = 2,
	CT_IS_REPLY = 3,
	CT_ESTABLISHED_REPLY = 3,
	CT_RELATED_REPLY = 4,
	CT_UNTRACKED = 7,
};
#define CT_INFO_MASK	   7u
#define CT_INFO_REF	   (1u << 8) /* the packet holds a reference on pkt->ct */
#define CT_INFO_ZONE_SHIFT 16	     /* before tracking: the zone CT --zone asked for */

enum ct_dir { CT_DIR_ORIGINAL = 0, CT_DIR_REPLY = 1 };

/* The state as the state/conntrack matches name it (bits, as xt_state stores them). */
enum ct_state {
	CT_STATE_INVALID = 1 << 0,
	CT_STATE_ESTABLISHED = 1 << 1,
	CT_STATE_RELATED = 1 << 2,
	CT_STATE_NEW = 1 << 3,
	CT_STATE_UNTRACKED = 1 << 4,
};

/* Status bits, numbered as the kernel's IPS_* so --ctstatus values mean the same. */
enum ct_status {
	CT_S_EXPECTED = 1 << 0,
	CT_S_SEEN_REPLY = 1 << 1,
	CT_S_ASSURED = 1 << 2,
	CT_S_CONFIRMED = 1 << 3,
	CT_S_DYING = 1 << 9,
	CT_S_FIXED_TIMEOUT = 1 << 10, /* packets do not refresh the timeout (conntrack -u) */
};

/* Event bits (what changed), as the kernel's IPCT_*. */
enum ct_event {
	CT_EV_NEW = 1 << 0,
	CT_EV_RELATED = 1 << 1,
	CT_EV_DESTROY = 1 << 2,
	CT_EV_REPLY = 1 << 3, /* first packet in the reply direction */
	CT_EV_ASSURED = 1 << 4,
	CT_EV_PROTOINFO = 1 << 5, /* the tracker's state changed (TCP state) */
	CT_EV_MARK = 1 << 8,
};

/* Why an entry went away (the destroy event says it through ct_destroy_reason()). */
enum ct_destroy_reason {
	CT_GONE_TIMEOUT,
	CT_GONE_EVICTED, /* table full */
	CT_GONE_KILLED,	 /* the tracker ended it (RST before any reply, reopen) or ct_kill() */
	CT_GONE_FLUSH,
};

/* TCP states, in the kernel's order (also the index of the TCP timeouts). */
enum ct_tcp_state {
	CT_TCP_NONE,
	CT_TCP_SYN_SENT,
	CT_TCP_SYN_RECV,
	CT_TCP_ESTABLISHED,
	CT_TCP_FIN_WAIT,
	CT_TCP_CLOSE_WAIT,
	CT_TCP_LAST_ACK,
	CT_TCP_TIME_WAIT,
	CT_TCP_CLOSE,
	CT_TCP_SYN_SENT2,
	CT_TCP_STATE_MAX,
	CT_TCP_RETRANS = CT_TCP_STATE_MAX, /* timeout indexes beyond the states */
	CT_TCP_UNACK,
	CT_TCP_TIMEOUT_MAX
};

/* SCTP states, in the kernel's order (the index of the SCTP timeouts). */
enum ct_sctp_state {
	CT_SCTP_NONE,
	CT_SCTP_CLOSED,
	CT_SCTP_COOKIE_WAIT,
	CT_SCTP_COOKIE_ECHOED,
	CT_SCTP_ESTABLISHED,
	CT_SCTP_SHUTDOWN_SENT,
	CT_SCTP_SHUTDOWN_RECD,
	CT_SCTP_SHUTDOWN_ACK_SENT,
	CT_SCTP_HEARTBEAT_SENT,
	CT_SCTP_STATE_MAX
};

/* DCCP states, in the kernel's order (the index of the DCCP timeouts). */
enum ct_dccp_state {
	CT_DCCP_NONE,
	CT_DCCP_REQUEST,
	CT_DCCP_RESPOND,
	CT_DCCP_PARTOPEN,
	CT_DCCP_OPEN,
	CT_DCCP_CLOSEREQ,
	CT_DCCP_CLOSING,
	CT_DCCP_TIMEWAIT,
	CT_DCCP_STATE_MAX
};

#define CT_SEC 1000000000ull

/* Timeouts in ns; Linux's defaults from ct_config_default(). */
struct ct_timeouts {
	uint64_t tcp[CT_TCP_TIMEOUT_MAX];
	uint64_t udp_unreplied, udp_replied; /* 30 s, 120 s */
	uint64_t icmp, icmpv6;		     /* 30 s each */
	uint64_t generic;		     /* 600 s */
	uint64_t sctp[CT_SCTP_STATE_MAX];    /* established 210 s, heartbeat 30 s, others 3-10 s */
	uint64_t dccp[CT_DCCP_STATE_MAX];    /* open 12 h, request 240 s, closing 64 s, ... */
	uint64_t gre_unreplied, gre_replied; /* 30 s, 180 s */
};

struct ct_config {
	uint32_t max_entries;	 /* nf_conntrack_max; at least 1 */
	uint32_t buckets;	 /* nf_conntrack_buckets, rounded up to a power of two (a table's
				  * config: its size); 0 at ct_table_new: max_entries / 2, and
				  * grown with max_entries until set explicitly */
	bool buckets_set;	 /* buckets was set (ct_config_set, or non-zero at ct_table_new):
				  * no automatic growth any more */
	uint64_t seed[2];	 /* hash key: per instance, random (e.g. from box_random) */
	bool tcp_loose;		 /* nf_conntrack_tcp_loose: pick up connections mid-stream (on) */
	bool tcp_be_liberal;	 /* nf_conntrack_tcp_be_liberal: only RST is window-checked (off) */
	uint8_t tcp_max_retrans; /* nf_conntrack_tcp_max_retrans (3) */
	bool checksum;		 /* nf_conntrack_checksum: verify L4 checksums at PREROUTING (on) */
	bool dccp_loose;	 /* nf_conntrack_dccp_loose: Sync/SyncAck may start an entry (on) */
	bool acct;		 /* nf_conntrack_acct: per-direction counters extension (off) */
	bool tstamp;		 /* nf_conntrack_timestamp: start/stop times (off; ct/tstamp.h) */
	struct ct_timeouts timeouts;
};

struct ct_stats {
	uint64_t found, new, invalid, ignore, insert, insert_failed, drop, early_drop, expired,
	    clash, search_restart;
	uint32_t count;	      /* confirmed entries in the table */
	uint32_t unconfirmed; /* created, not yet confirmed nor released */
};

struct ct_table;
struct ct_entry;

void ct_config_default(struct ct_config *c);
/* A table; NULL on ENOMEM or a bad config (errno EINVAL). */
struct ct_table *ct_table_new(const struct ct_config *c);
/* Frees every entry (destroy events fire, reason CT_GONE_FLUSH). Packets still pointing at
 * entries must not be used with this table afterwards. */
void ct_table_free(struct ct_table *t);
const struct ct_config *ct_table_config(const struct ct_table *t);
/*
 * Change the settings (loose, liberal, retrans, checksum, timeouts, max_entries) and the hash
 * size: c->buckets other than the table's resizes it (ct_table_resize) and stops the automatic
 * growth; a table never sized explicitly grows to max_entries / 2 buckets when max_entries is
 * raised above twice its size. 0, or ct_table_resize's error (the other settings are applied).
 */
int ct_table_set_config(struct ct_table *t, const struct ct_config *c);

#define CT_BUCKETS_MIN 16u
#define CT_BUCKETS_MAX (1u << 30)
/*
 * Give the hash `buckets` buckets (rounded up to a power of two, at least CT_BUCKETS_MIN), with
 * every entry kept. The new array is used at once; entries move from the old one a bounded
 * number at a time, at inserts and at ct_sweep, until it is empty (ct_table_resizing). A resize
 * asked for while one is going on finishes that one first, in one go. 0, -EINVAL (0 or over
 * CT_BUCKETS_MAX), -ENOMEM (the table keeps its size).
 */
int ct_table_resize(struct ct_table *t, uint32_t buckets);
/* True while entries are still moving to the new array of a resize. */
bool ct_table_resizing(const struct ct_table *t);
/* Move the rest of a resize now, in one go (tests, benchmarks). */
void ct_table_rehash_finish(struct ct_table *t);
const struct ct_stats *ct_table_stats(const struct ct_table *t);
/* The latest time (box clock, ns) a lookup, sweep or create brought: when an event that
 * carries no time happened. */
uint64_t ct_table_clock(const struct ct_table *t);

/*
 * Track a packet at PREROUTING (`from_outside` true: checksums verified when configured) or
 * OUTPUT. Sets p->ct/ctinfo. A packet that already carries an entry (a looped-back one) or is
 * marked untracked is left alone. Returns 0 (also for INVALID packets: pkt->ct NULL, the rules
 * decide), -ENOMEM when a new entry could not be made (table full of assured entries: the
 * kernel drops such packets), -EAGAIN never escapes (reopened TCP connections are retried).
 * zone 0: the zone set on the packet by ct_pkt_set_zone (CT --zone), if any.
 */
int ct_in(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone, uint64_t now);
/*
 * The packet leaves through POSTROUTING or INPUT: insert its unconfirmed entry (both tuples),
 * fire the cached events. 0; -EEXIST when the tuple was inserted meanwhile (the packet is
 * attached to that entry instead, counted as a clash).
 */
int ct_confirm(struct ct_table *t, struct pkt *p, uint64_t now);
/* Drop the packet's reference (when it is freed or leaves the box). An unconfirmed entry
 * whose packet is released is freed: a dropped packet leaves no entry. Idempotent. */
void ct_pkt_release(struct ct_table *t, struct pkt *p);
/* Expire entries in at most `buckets` hash buckets, resuming where the last call stopped.
 * Returns the number of entries removed. */
unsigned ct_sweep(struct ct_table *t, uint64_t now, unsigned buckets);
/*
 * Housekeeping by elapsed time (the box's clock hook): ct_sweep over the share of the buckets
 * the time since the last slice is worth, the whole table once per CT_SWEEP_PERIOD of box
 * clock, never more than CT_SWEEP_SLICE_MAX buckets per call (a clock move at every packet
 * costs a bucket now and then, a jump of an hour no full pass). Expiry itself does not wait for
 * it: a lookup or a listing treats an entry past its timeout as gone. Returns the buckets
 * visited.
 */
#define CT_SWEEP_PERIOD	   (1 * CT_SEC)
#define CT_SWEEP_SLICE_MAX 256u
unsigned ct_sweep_elapsed(struct ct_table *t, uint64_t now);
/* The slicing of ct_sweep_elapsed for a table of n buckets whose slices have covered the time
 * up to *clock (moved on here): how many buckets are due now, at most `slice`. */
uint64_t ct_sweep_due(uint64_t *clock, uint64_t now, uint64_t n, uint64_t slice);
/* Remove one entry now (reason CT_GONE_KILLED). */
void ct_kill(struct ct_table *t, struct ct_entry *e);
/* Remove every entry (conntrack -F). */
void ct_flush(struct ct_table *t);

/* Find the entry holding `tuple` in either direction; expired entries are removed and not
 * returned. dir (may be NULL) receives the direction the tuple matched. */
struct ct_entry *ct_lookup(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now,
			   enum ct_dir *dir);

/* ---- reading an entry (for matches, dumps, events) --------------------------------------- */

/* CT_STATE_* of a packet from pkt->ct/ctinfo (inline: every state match asks it). */
static inline unsigned ct_pkt_state(const struct pkt *p)
{
	unsigned ci = p->ctinfo & CT_INFO_MASK;

	if (!p->ct)
		return ci == CT_UNTRACKED ? CT_STATE_UNTRACKED : CT_STATE_INVALID;
	if (ci == CT_NEW)
		return CT_STATE_NEW;
	if (ci == CT_RELATED || ci == CT_RELATED_REPLY)
		return CT_STATE_RELATED;
	return CT_STATE_ESTABLISHED;
}
static inline unsigned ct_pkt_ctinfo(const struct pkt *p)
{
	return p->ctinfo & CT_INFO_MASK;
}
static inline struct ct_entry *ct_pkt_entry(const struct pkt *p)
{
	return (struct ct_entry *)p->ct;
}
/* Mark a packet untracked (NOTRACK, CT --notrack) before ct_in sees it. */
void ct_pkt_set_untracked(struct pkt *p);
/* The zone a not yet tracked packet's connection is looked up in (CT --zone). */
void ct_pkt_set_zone(struct pkt *p, uint16_t zone);

const struct ct_tuple *ct_entry_tuple(const struct ct_entry *e, enum ct_dir dir);
uint32_t ct_entry_status(const struct ct_entry *e);
uint32_t ct_entry_mark(const struct ct_entry *e);
void ct_entry_set_mark(struct ct_entry *e, uint32_t mark); /* caches CT_EV_MARK */
uint16_t ct_entry_zone(const struct ct_entry *e);
uint64_t ct_entry_id(const struct ct_entry *e);
/* Remaining lifetime in ns (0 when expired), as --ctexpire and conntrack -L show it. */
uint64_t ct_entry_expires_in(const struct ct_entry *e, uint64_t now);
/* The tracker's state name ("ESTABLISHED" for TCP), NULL for protocols without states. */
const char *ct_entry_proto_state(const struct ct_entry *e);
enum ct_tcp_state ct_entry_tcp_state(const struct ct_entry *e);
unsigned ct_entry_use(const struct ct_entry *e);
/* Per-direction counters; false when accounting is not on for the entry. */
bool ct_entry_counters(const struct ct_entry *e, enum ct_dir dir, uint64_t *packets,
		       uint64_t *bytes);
/* Both directions' counters back to zero (conntrack -L -z); false without accounting. */
bool ct_entry_zero_counters(struct ct_entry *e);
/* Per-entry "be liberal" TCP window checking (the kernel's IP_CT_TCP_FLAG_BE_LIBERAL). */
void ct_entry_set_tcp_liberal(struct ct_entry *e, bool on);
/* A connection taken over from a failover peer (src/sync): no window is known, so both sides
 * are taken unchecked until a segment of each was seen; then, when the window scale factors
 * are known (wscale: original, reply direction), the windows are checked as for any
 * connection; without them the entry stays liberal, as the kernel keeps such entries. TCP. */
void ct_entry_set_tcp_pickup(struct ct_entry *e, const uint8_t *wscale);
/* Both directions' window scale factors; false for a protocol other than TCP. */
bool ct_entry_tcp_wscale(const struct ct_entry *e, uint8_t wscale[2]);
/* The timeout policy the entry was given by CT --timeout, NULL if none. */
const struct ct_timeout_policy *ct_entry_timeout_policy(const struct ct_entry *e);
/* Size in bytes of an entry without extensions (memory measurements). */
size_t ct_entry_size(void);

/* ---- extensions (ext.c) ------------------------------------------------------------------ */

/*
 * What only some entries need lives outside struct ct_entry, in one block allocated on first
 * use (the kernel's nf_ct_ext); an entry without extensions pays one pointer. An extension's
 * size is registered with the table before it is used: conntrack registers its own when the
 * table is made, a plug-in (NAT's binding) when it attaches to the table.
 */
enum ct_ext_id {
	CT_EXT_ACCT,	/* struct ct_acct: per-direction packets/bytes */
	CT_EXT_HELPER,	/* struct ct_help: the entry's helper and its private data */
	CT_EXT_NAT,	/* NAT's binding (src/nat: struct nat_binding) */
	CT_EXT_TSTAMP,	/* struct ct_tstamp: start/stop timestamps (tstamp.h) */
	CT_EXT_LABELS,	/* struct ct_labels: connlabel bits (labels.h) */
	CT_EXT_TIMEOUT, /* struct ct_timeout_ext: the CT --timeout policy */
	CT_EXT_SEQADJ,	/* struct ct_seqadj: a NAT helper resized the stream (src/nat/seqadj.h) */
	CT_EXT_NUM
};

/* Give extension `id` its size in t (1..4096 bytes). 0; -EINVAL for a bad id or size; -EEXIST
 * when it is registered with another size. Registering the same size again is 0. */
int ct_ext_register(struct ct_table *t, enum ct_ext_id id, size_t size);
/* The size registered for id, 0 when none. */
size_t ct_ext_size(const struct ct_table *t, enum ct_ext_id id);
/* Add extension `id` (zeroed) or return the existing one; NULL on ENOMEM or an id not
 * registered with t. Pointers to an entry's extensions are invalid after the next add. */
void *ct_ext_add(struct ct_table *t, struct ct_entry *e, enum ct_ext_id id);
/* The entry's extension `id`, NULL when it has none. */
void *ct_ext_find(const struct ct_entry *e, enum ct_ext_id id);

/* ---- events ------------------------------------------------------------------------------ */

/*
 * Called with the CT_EV_* bits that changed. NEW comes at confirmation (with the other bits the
 * first packet set), updates when a packet (or ct_entry_set_mark) changed something, DESTROY
 * when the entry leaves the table. The entry may not be kept beyond the call. Messaging
 * (netlink, sync) is the subscriber's business.
 */
typedef void (*ct_event_fn)(void *priv, uint32_t events, const struct ct_entry *e,
			    enum ct_destroy_reason why);
/* 0 or -ENOSPC (a few subscribers per table). */
int ct_event_subscribe(struct ct_table *t, ct_event_fn fn, void *priv);
int ct_event_unsubscribe(struct ct_table *t, ct_event_fn fn, void *priv);

/* ---- listing ----------------------------------------------------------------------------- */

/* The fields of a `conntrack -L` line: from an entry (ct_entry_format) or from an entry decoded
 * off the control socket (ctl_ct_format_flags), so both print through ct_line_format. */
struct ct_line {
	const char *proto;		 /* "tcp", ..., "unknown" */
	const char *state;		 /* "ESTABLISHED"; NULL: the protocol has none */
	const struct ct_tuple *tuple[2]; /* original, reply */
	uint64_t timeout;		 /* seconds left */
	bool counters[2];		 /* packets= bytes= for that direction */
	uint64_t packets[2], bytes[2];
	uint32_t status; /* CT_S_SEEN_REPLY, CT_S_ASSURED */
	uint32_t mark, use, id;
	bool no_mark; /* no mark= (ctnetlink's destroy events of unmarked entries carry none) */
	uint16_t zone;
	const char *helper; /* NULL: none */
};

/* -o extended (family before the line), -o id (id= after it), events (no use=, which ctnetlink
 * events do not carry). */
enum { CT_LINE_FAMILY = 1 << 0, CT_LINE_ID = 1 << 1, CT_LINE_NO_USE = 1 << 2 };

/* The line, without newline, as libnetfilter_conntrack prints it. snprintf-style length. */
int ct_line_format(const struct ct_line *l, unsigned flags, char *buf, size_t len);

/* One line as conntrack -L prints it, without newline. Returns the snprintf-style length. */
int ct_entry_format(const struct ct_entry *e, uint64_t now, char *buf, size_t len);
/* Every confirmed entry, oldest first, one line each. Returns the number of entries. */
unsigned ct_dump(struct ct_table *t, FILE *f, uint64_t now);

/* ---- walking (control socket: dumps and deletes in bounded steps) ------------------------- */

enum ct_walk_action { CT_WALK_NEXT, CT_WALK_KILL };
typedef enum ct_walk_action (*ct_walk_fn)(void *priv, struct ct_entry *e);
/*
 * Visit confirmed, unexpired entries bucket by bucket from *cursor (0 to start), whole buckets
 * until at least `max` were visited; CT_WALK_KILL removes the entry (reason CT_GONE_KILLED).
 * *cursor (opaque: a position in hash order, not a bucket index) is left where the next call
 * goes on. Returns true when the walk reached the end. An entry in the table for the whole
 * walk is visited exactly once, also when the table is resized between calls (walk.c).
 */
bool ct_walk(struct ct_table *t, uint32_t *cursor, unsigned max, uint64_t now, ct_walk_fn fn,
	     void *priv);
/* The entry expires `timeout` ns after now (conntrack -U --timeout). */
void ct_entry_set_timeout(struct ct_entry *e, uint64_t now, uint64_t timeout);

/* ---- settings (the nf_conntrack sysctls, by Linux's names) -------------------------------- */

/*
 * NAME is a sysctl without "net.netfilter.nf_conntrack_" (the prefix is accepted too): max,
 * buckets (also by the module parameter's name, hashsize; 1 .. CT_BUCKETS_MAX, applied by
 * ct_table_set_config), tcp_loose, tcp_be_liberal, tcp_max_retrans, checksum, acct, dccp_loose,
 * and every timeout (tcp_timeout_established, udp_timeout, udp_timeout_stream, icmp_timeout,
 * ...), values in seconds as sysctl takes them. 0; -ENOENT (no such setting), -EINVAL (bad
 * value).
 */
int ct_config_set(struct ct_config *c, const char *name, const char *value);
/* Every setting, "name = value" per line, in ct_config_set's names. */
void ct_config_print(const struct ct_config *c, FILE *f);

/* ---- timeout policies (CT --timeout; nfct timeout add) ------------------------------------ */

#define CT_TIMEOUT_POLICY_MAX 31 /* per table; ids 1..31 fit the packet's ctinfo bits */
#define CT_TIMEOUT_NAME_MAX   32 /* as the kernel's CTNL_TIMEOUT_NAME_MAX, NUL included */

/* A named set of timeouts for one transport protocol. Only that protocol's fields are used;
 * the others hold the table's values at creation. */
struct ct_timeout_policy {
	char name[CT_TIMEOUT_NAME_MAX];
	uint8_t l4proto; /* IPPROTO_*; 255: generic (any protocol without its own tracker) */
	struct ct_timeouts to;
};

/*
 * Add or update the policy `name` from "STATE=SECONDS" words (nfct's state names: tcp
 * syn_sent ... unacknowledged, udp unreplied/replied, icmp/icmpv6/generic timeout, ...);
 * states not named take the table's current values (as the kernel fills them in). proto is
 * tcp, udp, udplite, icmp, icmpv6, sctp, dccp, gre or generic. An existing policy of the same
 * protocol is updated in place (its connections see the new values); of another: -EBUSY.
 * 0, -EINVAL (bad state/value/proto/name, err says which), -ENOSPC, -ENOMEM.
 */
int ct_timeout_policy_set(struct ct_table *t, const char *name, const char *proto, int nargs,
			  char **args, char *err, size_t errlen);
/* The policy's id (1..CT_TIMEOUT_POLICY_MAX), or -ENOENT. */
int ct_timeout_policy_find(const struct ct_table *t, const char *name);
const struct ct_timeout_policy *ct_timeout_policy_get(const struct ct_table *t, int id);
/* Print every policy as the command that makes it ("ct-timeout NAME PROTO STATE=S ..."). */
void ct_timeout_policy_print(const struct ct_table *t, FILE *f);
/* The connection a not yet tracked packet creates gets policy id (CT --timeout); 0: none. */
void ct_pkt_set_timeout(struct pkt *p, int id);

#endif
