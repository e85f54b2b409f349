/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack internals shared by the core (table.c, ct.c, ext.c, dump.c) and the trackers
 * (proto_*.c). Not for use outside src/ct.
 *
 * Ownership: an entry is freed when its reference count `use` drops to 0. The table holds one
 * reference while the entry is confirmed (in the hash); a packet holds one from ct_in until
 * ct_pkt_release (pkt->ctinfo & CT_INFO_REF). An unconfirmed entry is only the packet's.
 *
 * Lists (each entry on exactly one, by `list`): UNCONFIRMED (created, not in the hash),
 * UNASSURED and ASSURED (confirmed, in confirmation resp. assurance order: the head of
 * UNASSURED is the entry evicted when the table is full), NONE (dying, waiting for its last
 * reference).
 */
#ifndef CT_CT_INT_H
#define CT_CT_INT_H

#include <sys/socket.h>

#include "ct/ct.h"
#include "pkt/hash.h"

/* ---- per-protocol state ------------------------------------------------------------------ */

/* One direction of a TCP connection as the window tracker sees it (Rooij's algorithm). */
struct ct_tcp_dir {
	uint32_t td_end;    /* max of seq + len */
	uint32_t td_maxend; /* max of ack + max(win, 1) */
	uint32_t td_maxwin; /* max(win) */
	uint32_t td_maxack; /* max of ack */
	uint8_t td_scale;   /* window scale factor */
	uint8_t flags;	    /* CT_TCPF_* */
};

enum {
	CT_TCPF_WINDOW_SCALE = 1 << 0,
	CT_TCPF_SACK_PERM = 1 << 1,
	CT_TCPF_CLOSE_INIT = 1 << 2, /* this side sent the first FIN */
	CT_TCPF_BE_LIBERAL = 1 << 3, /* do not check the window of this side */
	CT_TCPF_DATA_UNACKED = 1 << 4,
	CT_TCPF_MAXACK_SET = 1 << 5,
	CT_TCPF_EXP_CHALLENGE_ACK = 1 << 6, /* last_flags only */
	CT_TCPF_SIMULTANEOUS_OPEN = 1 << 7, /* last_flags only */
};

struct ct_tcp {
	struct ct_tcp_dir seen[2];
	uint32_t last_seq, last_ack, last_end; /* the last packet, for retransmission and resync */
	uint16_t last_win;
	uint8_t state; /* enum ct_tcp_state */
	uint8_t last_dir, last_index, last_wscale, last_flags;
	uint8_t retrans;
	uint8_t pickup; /* CT_PICKUP_*: taken over from a peer (ct_entry_set_tcp_pickup) */
};

enum {
	CT_PICKUP_ON = 1 << 0,	       /* liberal until the windows caught up */
	CT_PICKUP_REFUSED = 1 << 1,    /* this segment would have been refused */
	CT_PICKUP_CLEAN_ORIG = 1 << 2, /* a segment of this direction passed unhelped */
	CT_PICKUP_CLEAN_REPLY = 1 << 3,
};

struct ct_udp {
	uint64_t stream_ts; /* replied after this moment: a stream (assured, long timeout) */
};

struct ct_sctp {
	uint32_t vtag[2]; /* verification tag the packets of each direction carry (host order) */
	uint8_t state;	  /* enum ct_sctp_state */
	uint8_t init[2];  /* this direction sent an INIT the association has not completed yet */
	uint8_t last_dir; /* direction of a HEARTBEAT with an unexpected tag */
	uint8_t flags;	  /* CT_SCTPF_* */
};

enum { CT_SCTPF_HEARTBEAT_VTAG_FAILED = 1 << 0 };

struct ct_dccp {
	uint64_t handshake_seq; /* the server's Response, which the client's Ack must name */
	uint8_t state;		/* enum ct_dccp_state */
	uint8_t role[2];	/* per direction: 0 client, 1 server */
	uint8_t last_pkt, last_dir;
};

union ct_proto_state {
	struct ct_tcp tcp;
	struct ct_udp udp;
	struct ct_sctp sctp;
	struct ct_dccp dccp;
};

/* ---- extensions -------------------------------------------------------------------------- */

/*
 * Extension area: one block per entry, allocated at the first ct_ext_add, grown by realloc;
 * off[id] is the byte offset of extension id's data (0: absent; data starts at offset 8 so 0
 * never names real data). Pointers into it are invalid after the next ct_ext_add. The ids and
 * the sizes registered with the table (ct_ext_register) are in ct.h.
 *
 *   e->ext --> +--------------------+------+-----------+-------------+
 *              | off[CT_EXT_NUM] len| pad  | ext A ... | ext B ...   |
 *              +--------------------+------+-----------+-------------+
 */

struct ct_acct {
	struct {
		uint64_t packets, bytes;
	} dir[2];
};

/*
 * Sequence adjustment of one direction's stream (the kernel's nf_ct_seqadj): a NAT helper
 * resized the segment that starts at correction_pos (the sender's sequence number); bytes
 * before it are shifted by offset_before, from it on by offset_after. Written by src/nat
 * (seqadj.c); read here too, because the TCP window check must see the other side's
 * acknowledgements in the sender's numbers (ct_seqadj_ack_offset).
 */
struct ct_seqadj_dir {
	uint32_t correction_pos;
	int32_t offset_before, offset_after;
};
struct ct_seqadj {
	struct ct_seqadj_dir dir[2];
};

/* Points into the table's policy array, which never moves while the table lives. */
struct ct_timeout_ext {
	const struct ct_timeout_policy *policy;
};

struct ct_ext {
	uint16_t off[CT_EXT_NUM];
	uint16_t len; /* bytes used, header included */
	_Alignas(8) unsigned char data[];
};

/* ct_ext_find inline, for the per-packet paths inside src/ct (an entry without extensions
 * costs a test of one pointer). */
static inline void *ct_ext_get(const struct ct_entry *e, enum ct_ext_id id);

void ct_ext_free(struct ct_entry *e);
/* The extensions conntrack itself keeps (accounting, helper, timeout policy, sequence
 * adjustment), registered by ct_table_new. */
void ct_ext_register_core(struct ct_table *t);

/* ---- entries and the table --------------------------------------------------------------- */

/*
 * One direction's place in the hash: the kernel's nf_conntrack_tuple_hash. 64 bytes (a cache
 * line of its own in an entry on a line boundary): a chain walk reads one or two lines per node it
 * visits (the hash is compared before the tuple; both are in the node's line). The last 8
 * bytes belong to the entry (struct ct_entry puts cold fields there); a lookup never reads them.
 */
struct ct_thash {
	struct ct_thash *next;
	struct ct_tuple tuple;
	uint32_t hash; /* ct_hash_tuple's low 32 bits, set by ct_hash_insert */
	uint8_t dir;
	unsigned char entry_use_[11]; /* the entry's (struct ct_entry): not the node's */
};

enum ct_list_id { CT_LIST_NONE, CT_LIST_UNCONFIRMED, CT_LIST_UNASSURED, CT_LIST_ASSURED };

/*
 * An entry: 256 bytes in four 64-byte parts (cache lines when the entry sits on a line boundary,
 * which ct_entry_alloc does not ask for: it says why),
 * laid out by what an established packet touches (docs/performance.md, "hot/cold entry"):
 *
 *   line 0  th[0]: next, tuple, hash, dir (a packet of the original direction)   | id
 *   line 1  th[1]: the same for the reply direction                              | master
 *   line 2  expires, ext, ops, status, use, events, mark | proto's first 24 bytes
 *   line 3  proto's bytes 24..63                                                 | list links
 *
 * An established packet reads its direction's node line and line 2 (UDP's, SCTP's, DCCP's and
 * GRE's whole state are in proto's first 24 bytes), TCP line 3 as well (its window data spans
 * both). What only insert, delete, eviction, sweep, dumps and helpers use (the list links and
 * list id, the id, the master) fills the room the hot parts leave, so that no line is read for
 * it on the way. The static asserts below pin it.
 */
struct ct_entry {
	union {
		struct ct_thash th[2];
		struct {
			unsigned char th0_[offsetof(struct ct_thash, entry_use_) + 3];
			uint64_t id; /* creation order, unique per table */
			unsigned char th1_[offsetof(struct ct_thash, entry_use_) + 3];
			struct ct_entry *master; /* RELATED: the entry that expected it (a ref) */
		};
	};
	/* line 2: the established packet's */
	uint64_t expires; /* absolute, box clock ns */
	struct ct_ext *ext;
	const struct ct_proto_ops *ops;
	uint32_t status; /* CT_S_* */
	uint32_t use;
	uint32_t events; /* CT_EV_* cached, delivered at the next confirmation */
	uint32_t mark;
	union ct_proto_state proto; /* 24 bytes in line 2, the rest (TCP's) in line 3 */
	/* cold, in line 3's rest */
	struct ct_entry *prev, *next; /* on list `list` */
	uint8_t list;		      /* enum ct_list_id */
};

#define CT_LINE 64u
_Static_assert(sizeof(struct ct_thash) == CT_LINE, "a hash node is a cache line");
_Static_assert(offsetof(struct ct_entry, id) == offsetof(struct ct_entry, th[0].entry_use_) + 3 &&
		   offsetof(struct ct_entry, master) ==
		       offsetof(struct ct_entry, th[1].entry_use_) + 3,
	       "id and master fill the nodes' lines, past their dir bytes");
_Static_assert(offsetof(struct ct_entry, expires) == 2 * CT_LINE &&
		   offsetof(struct ct_entry, mark) + sizeof(uint32_t) <=
		       offsetof(struct ct_entry, proto) &&
		   offsetof(struct ct_entry, proto) + sizeof(struct ct_udp) <= 3 * CT_LINE &&
		   offsetof(struct ct_entry, proto) + sizeof(struct ct_sctp) <= 3 * CT_LINE &&
		   offsetof(struct ct_entry, proto) + sizeof(struct ct_dccp) <= 3 * CT_LINE,
	       "the established packet's fields and the small trackers' state in line 2");
_Static_assert(offsetof(struct ct_entry, proto) + sizeof(struct ct_tcp) <= 4 * CT_LINE &&
		   sizeof(struct ct_entry) == 4 * CT_LINE,
	       "TCP's state ends in line 3; the entry is four lines");

/* A zeroed entry on a cache-line boundary (free() frees it); NULL on ENOMEM. */
struct ct_entry *ct_entry_alloc(void);

struct ct_list {
	struct ct_entry *head, *tail;
};

#define CT_MAX_SUBSCRIBERS 4

struct ct_table {
	struct ct_config cfg;
	struct ct_thash **bucket;
	uint32_t mask;		    /* buckets - 1 */
	struct pkt_hash_state hkey; /* cfg.seed loaded into SipHash's state (ct_hash_tuple) */
	/* A resize in progress (table.c): the previous array, emptied bucket by bucket. */
	struct ct_thash **old_bucket; /* NULL: none */
	uint32_t old_mask;
	uint32_t rehash_next; /* old buckets below it are empty (moved) */
	bool walking;	      /* inside ct_walk's callbacks: nothing moves between chains */
	uint32_t sweep_next;
	uint64_t sweep_clock;	 /* ct_sweep_elapsed: the time its slices have covered */
	uint64_t sweep_visited;	 /* ct_sweep_elapsed: buckets visited, for tests */
	struct ct_list lists[4]; /* by enum ct_list_id (NONE unused) */
	uint64_t next_id;
	uint64_t clock; /* the latest time a lookup or sweep brought: a kill's stop timestamp */
	unsigned labels_used; /* users of connection labels (ct/labels.h) */
	struct ct_stats stats;
	struct {
		ct_event_fn fn;
		void *priv;
	} sub[CT_MAX_SUBSCRIBERS];
	unsigned nsub;
	struct ct_helper_state *helpers;    /* helpers and expectations (helper_int.h), lazily */
	struct ct_timeout_policy *policies; /* CT_TIMEOUT_POLICY_MAX slots, on first use */
	unsigned npolicies;
	uint16_t ext_size[CT_EXT_NUM]; /* ct_ext_register: 0 = not registered */
};

static inline void *ct_ext_get(const struct ct_entry *e, enum ct_ext_id id)
{
	if (!e->ext || (unsigned)id >= CT_EXT_NUM || !e->ext->off[id])
		return NULL;
	return (unsigned char *)e->ext + e->ext->off[id];
}

/* ---- trackers ---------------------------------------------------------------------------- */

/* What a tracker's packet() says about a packet of a known connection. */
enum ct_verdict {
	CT_ACCEPT = 0,	/* tracked; the entry was updated */
	CT_INVALID = 1, /* not part of the connection as tracked: the packet is INVALID */
	CT_REPEAT = 2,	/* the tracker killed the entry (reopened connection): look up again */
};

struct ct_proto_ops {
	uint8_t l4proto;
	const char *name; /* conntrack -L name: "tcp", "udp", "icmp", "icmpv6", "unknown" */
	/* The transport part (t->s, t->d) of the header at off (len bytes to the datagram end).
	 * 0, -EINVAL (truncated), -EPROTO (no tuple: ICMP errors). */
	int (*pkt_to_tuple)(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t);
	/* The reply's transport part. 0, or -EINVAL when there is no inverse. */
	int (*invert)(struct ct_tuple *reply, const struct ct_tuple *orig);
	/*
	 * Optional, before the lookup: 0 to go on, 1 when the tracker dealt with the packet
	 * itself (an ICMP error it attached as RELATED, an untracked ND message), -EINVAL when
	 * the packet is INVALID (bad checksum, bad flags, forged error).
	 */
	int (*error)(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		     uint64_t now);
	/* May this packet start a connection? Sets up e->proto. */
	bool (*new_conn)(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now);
	/* A packet of e in direction dir: update the state and the timeout (ct_refresh). */
	enum ct_verdict (*packet)(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				  enum ct_dir dir, uint64_t now);
	/* Name of the tracker's state for listings, NULL if it has none. */
	const char *(*state_name)(const struct ct_entry *e);
	/* The transport part of a tuple as conntrack -L prints it (" sport=1 dport=2"), with a
	 * leading space; snprintf-style return. NULL: nothing to print. */
	int (*print_tuple)(char *buf, size_t len, const struct ct_tuple *t);
};

/* " sport=%u dport=%u": for trackers with ports */
int ct_print_ports(char *buf, size_t len, const struct ct_tuple *t);
/* The port pair of UDP, UDP-Lite, SCTP, DCCP (the first 4 bytes; -EINVAL below 8) and its
 * swap. */
int ct_ports_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t);
int ct_ports_invert(struct ct_tuple *reply, const struct ct_tuple *orig);

extern const struct ct_proto_ops ct_proto_tcp;
extern const struct ct_proto_ops ct_proto_udp;
extern const struct ct_proto_ops ct_proto_icmp;
extern const struct ct_proto_ops ct_proto_icmpv6;
extern const struct ct_proto_ops ct_proto_generic;
extern const struct ct_proto_ops ct_proto_udplite;
extern const struct ct_proto_ops ct_proto_sctp;
extern const struct ct_proto_ops ct_proto_dccp;
extern const struct ct_proto_ops ct_proto_gre;

/* The tracker of a transport protocol (generic for those without one). Never NULL. */
extern const struct ct_proto_ops *const ct_trackers[256]; /* tuple.c; never NULL */
static inline const struct ct_proto_ops *ct_proto_find(uint8_t l4proto)
{
	return ct_trackers[l4proto];
}

/* ---- core services for trackers ---------------------------------------------------------- */

/* The timeouts that apply to e: its CT --timeout policy's, else the table's. */
static inline const struct ct_timeouts *ct_timeouts_of(const struct ct_table *t,
						       const struct ct_entry *e)
{
	const struct ct_timeout_ext *x = ct_ext_get(e, CT_EXT_TIMEOUT);

	return x ? &x->policy->to : &t->cfg.timeouts;
}
/* ctinfo bits 3..7 before tracking: the policy id CT --timeout asked for */
#define CT_INFO_TIMEOUT_SHIFT 3
#define CT_INFO_TIMEOUT_MASK  (0x1fu << CT_INFO_TIMEOUT_SHIFT)

/* A packet of the entry: it lives `timeout` ns from now on, unless its timeout is fixed (set
 * over the control socket: the kernel's IPS_FIXED_TIMEOUT). */
static inline void ct_refresh(struct ct_entry *e, uint64_t now, uint64_t timeout)
{
	if (!(e->status & CT_S_FIXED_TIMEOUT))
		e->expires = now + timeout;
}
/* Set status bits, caching `ev` when any of them was not set yet: the test inline (on an
 * established packet the bits are there already), the change out of line. */
void ct_set_status_change(struct ct_table *t, struct ct_entry *e, uint32_t bits, uint32_t ev);
static inline void ct_set_status(struct ct_table *t, struct ct_entry *e, uint32_t bits, uint32_t ev)
{
	if ((e->status & bits) != bits)
		ct_set_status_change(t, e, bits, ev);
}
/* Queue events for delivery at the next confirmation. */
static inline void ct_event_cache(struct ct_entry *e, uint32_t ev)
{
	e->events |= ev;
}
/* Remove from the table now, with a reason (also used by trackers: RST before any reply). */
void ct_kill_reason(struct ct_table *t, struct ct_entry *e, enum ct_destroy_reason why);
/* Find an entry by tuple; an expired entry met on the way is killed (so the name). No
 * reference taken. */
struct ct_entry *ct_find_expiring(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now,
				  enum ct_dir *dir);
/* Attach e to the packet with ctinfo, taking a reference. */
static inline void ct_pkt_attach(struct pkt *p, struct ct_entry *e, unsigned ctinfo)
{
	e->use++;
	p->ct = e;
	p->ctinfo = ctinfo | CT_INFO_REF;
}

/* table.c */

/*
 * The tuple's hash: SipHash-1-3 under the table's key (its state loaded once, t->hkey). An
 * IPv4 tuple is hashed as two words (the addresses, then ports, zone, family and protocol):
 * its other 24 address bytes are zero in every tuple (ct_tuple_zero), so they add rounds and
 * no information. Equal tuples give equal words; the family byte keeps IPv4 and IPv6 apart.
 * Two 8-byte blocks take 1 + 1 + 1 + 3 SipHash rounds where the whole 40-byte tuple under
 * SipHash-2-4 took 16 (docs/performance.md, "Conntrack"). Inline: one per packet.
 */
static inline __attribute__((always_inline)) uint64_t ct_hash_tuple(const struct ct_table *t,
								    const struct ct_tuple *tuple)
{
	uint64_t w[5];

	if (tuple->family == AF_INET) {
		w[0] = (uint64_t)tuple->src.w[0] | (uint64_t)tuple->dst.w[0] << 32;
		__builtin_memcpy(&w[1], &tuple->s, sizeof(w[1]));
		return pkt_hash13_words_from(&t->hkey, w, 2);
	}
	__builtin_memcpy(w, tuple, sizeof(w));
	return pkt_hash13_words_from(&t->hkey, w, 5);
}

/* The chain a hash's node is in (table.c's header says why during a resize). */
static inline struct ct_thash **ct_chain_of(struct ct_table *t, uint32_t hash)
{
	if (t->old_bucket && (hash & t->old_mask) >= t->rehash_next)
		return &t->old_bucket[hash & t->old_mask];
	return &t->bucket[hash & t->mask];
}

static inline struct ct_entry *ct_thash_entry(struct ct_thash *h)
{
	return (struct ct_entry *)((char *)(h - h->dir) - offsetof(struct ct_entry, th));
}

/* Like nf_ct_is_expired: dead at exactly its timeout. */
static inline bool ct_expired(const struct ct_entry *e, uint64_t now)
{
	return now >= e->expires;
}

/* ct_find_hashed met e expired: counted and killed (out of line: not the common case). */
void ct_find_expired(struct ct_table *t, struct ct_entry *e);

/* The tuple's 64-bit word i (of five), as ct_hash_tuple reads them. */
static inline uint64_t ct_tuple_word(const struct ct_tuple *t, unsigned i)
{
	uint64_t w;

	__builtin_memcpy(&w, (const char *)t + 8 * i, sizeof(w));
	return w;
}

/*
 * ct_tuple_eq for the chain walk, word by word, the last first (ports, zone, family,
 * protocol): equal there, the tuples are of one family, and an IPv4 tuple's address bytes past
 * the first four are zero in every tuple (ct_tuple_zero; ct_hash_tuple relies on it too), so
 * for IPv4 the words with the two addresses decide the rest. tests/unit/test_ct_table.c
 * compares it with ct_tuple_eq.
 */
static inline bool ct_node_eq(const struct ct_tuple *a, const struct ct_tuple *b)
{
	if (ct_tuple_word(a, 4) != ct_tuple_word(b, 4))
		return false;
	if (b->family == AF_INET)
		return ct_tuple_word(a, 0) == ct_tuple_word(b, 0) &&
		       ct_tuple_word(a, 2) == ct_tuple_word(b, 2);
	return ct_tuple_eq(a, b);
}

/* ct_find_expiring with the tuple's hash already computed (ct_hash_tuple's low 32 bits): one
 * hash per packet however often it is looked up. Inline: the chain walk of every packet. */
static inline struct ct_entry *ct_find_hashed(struct ct_table *t, const struct ct_tuple *tuple,
					      uint32_t hash, uint64_t now, enum ct_dir *dir)
{
	t->clock = now;
	for (struct ct_thash *h = *ct_chain_of(t, hash); h; h = h->next) {
		struct ct_entry *e;

		if (h->hash != hash || !ct_node_eq(&h->tuple, tuple))
			continue;
		e = ct_thash_entry(h);
		if (ct_expired(e, now)) {
			ct_find_expired(t, e);
			return NULL; /* a tuple is in the table at most once */
		}
		if (dir)
			*dir = (enum ct_dir)h->dir;
		return e;
	}
	return NULL;
}

/* Hash both tuples (th[d].hash) and link them into their chains. */
void ct_hash_insert(struct ct_table *t, struct ct_entry *e);
/* Link with th[d].hash as they are (the caller computed them). */
void ct_hash_link(struct ct_table *t, struct ct_entry *e);
void ct_hash_remove(struct ct_table *t, struct ct_entry *e);
void ct_list_add_tail(struct ct_table *t, struct ct_entry *e, enum ct_list_id id);
void ct_list_del(struct ct_table *t, struct ct_entry *e);
/* Drop a reference; the last one frees the entry (ct_put_last). */
void ct_put_last(struct ct_table *t, struct ct_entry *e);
static inline void ct_put(struct ct_table *t, struct ct_entry *e)
{
	if (!--e->use)
		ct_put_last(t, e);
}
/* ct_pkt_release inline (the box's release hook runs it for every packet). */
static inline void ct_pkt_put(struct ct_table *t, struct pkt *p)
{
	struct ct_entry *e = p->ct;

	if (!e || !(p->ctinfo & CT_INFO_REF))
		return;
	p->ctinfo &= ~CT_INFO_REF;
	if (e->use == 1)
		p->ct = NULL; /* the last reference: nothing left to point at */
	ct_put(t, e);
}
void ct_deliver_events(struct ct_table *t, struct ct_entry *e, uint32_t events,
		       enum ct_destroy_reason why);
/* Evict the oldest unassured entry. true if one was evicted. */
bool ct_early_drop(struct ct_table *t);

/* 32-bit sequence arithmetic (RFC 1982 style, as TCP uses it) */
static inline bool ct_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}
static inline bool ct_seq_after(uint32_t a, uint32_t b)
{
	return ct_seq_before(b, a);
}

/*
 * What to subtract from an acknowledgement number (or a SACK edge) `ack` of direction dir's
 * stream, as the receiver sent it, to get the sender's numbering: 0 without adjustment.
 */
/*
 * The TCP tracker's packet() in two parts: the established fast path (proto_tcp_fast.c), which
 * returns false having changed nothing when the segment is not its case, and the general
 * path (proto_tcp.c). Apart only so that a test can drive each on the same inputs.
 */
bool ct_tcp_packet_fast(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
			enum ct_dir dir, uint64_t now);
enum ct_verdict ct_tcp_packet_general(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				      enum ct_dir dir, uint64_t now);

static inline int32_t ct_seqadj_ack_offset(const struct ct_entry *e, int dir, uint32_t ack)
{
	const struct ct_seqadj *sa = ct_ext_get(e, CT_EXT_SEQADJ);
	const struct ct_seqadj_dir *d;

	if (!sa)
		return 0;
	d = &sa->dir[dir];
	return ct_seq_after(ack - (uint32_t)d->offset_before, d->correction_pos) ? d->offset_after
										 : d->offset_before;
}

#endif
