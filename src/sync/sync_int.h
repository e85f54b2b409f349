/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals shared by the files of src/sync. Not for use outside it.
 *
 *   proto.c   sequence numbers, queues, FTFW/NOTRACK/ALARM, receive, timers, bulk
 *   ring.c    the queues and the message slots they hold
 *   pend.c    events waiting to become messages
 *   natmap.c  NAT mappings (pkttables peers)
 *   cache.c   external cache, commit, direct apply
 *   build.c   a table entry as a message's flow
 *   wire.c    encoding and strict decoding
 *   auth.c    the pkttables-only authenticated envelope
 */
#ifndef SYNC_SYNC_INT_H
#define SYNC_SYNC_INT_H

#include "sync/sync.h"

/* A message waiting to be sent, or sent and kept for a NACK (FTFW). The header is complete
 * but for the flags and seq, which are set when it is (re)transmitted. */
struct sync_msg {
	struct sync_msg *free_next; /* in the box's pool of slots */
	uint32_t seq;
	uint16_t len;
	bool dead;   /* acknowledged while not at the head of the resend queue */
	bool pooled; /* a slot of the pool (else malloc'd: longer than SYNC_SLOT_DATA) */
	uint8_t data[];
};

/* Message slots: a conntrack message of pkttables is at most about 300 bytes (IPv6 with
 * master, NAT both ways, helper, labels, zone); longer ones are allocated on their own. */
#define SYNC_SLOT_DATA	320
#define SYNC_SLOT_CHUNK 256

struct sync_pend_list {
	struct sync_pend *head, *tail;
};
enum { PEND_NEW, PEND_HELD };

/* FIFO of message pointers, grown by doubling up to a limit. */
struct sync_ring {
	struct sync_msg **v;
	uint32_t head, len, cap, max;
};

struct sync_ext {
	struct sync_ext *hnext;
	struct sync_ext *prev, *next; /* age list: least recently updated first */
	struct sync_flow f;
	uint64_t lastupdate; /* box clock, ns */
	uint64_t since;	     /* first seen */
};

enum hello_state { HELLO_INIT, HELLO_SAY, HELLO_DONE };

struct sync {
	struct sync_config cfg;
	struct ct_table *ct;
	struct nat_table *nat;
	struct sync_ops ops;
	void *priv;
	struct sync_stats st;
	bool applying; /* our own commit/apply: its ct events are not sent */

	/* sending */
	uint32_t seq; /* next sequence number */
	enum hello_state hello;
	bool hello_back; /* set HELLO_BACK on the next message */
	struct sync_ring tx, rs;
	bool tx_direct, tx_direct_sent; /* transmit(): pending connections straight out */
	uint64_t tx_now;
	uint8_t *dgram; /* datagram being packed */
	size_t dlen, dcap;
	uint64_t next_alive;
	uint64_t auth_counter; /* envelope counter of the last datagram sent */
	/* bulk in progress: phase 0 masters, 1 expectations, 2 related, 3 done */
	int bulk_phase;
	uint32_t bulk_cursor;
	uint64_t bulk_exp_id; /* the bulk's expectation walk resumes at this id */
	/* events waiting to become messages, one record per connection (pend.c) */
	struct sync_pend **pend_hash; /* by entry address */
	uint32_t pend_hmask;
	struct sync_pend_list pend_q[2]; /* PEND_NEW, PEND_HELD: each in due order */
	struct sync_pend *pend_free;
	struct sync_pend_chunk *pend_chunks;
	uint32_t npend;
	/* the last record an event went to, and its entry: the next event is often the same
	 * connection's (ct_event then returns at once) */
	struct sync_pend *pend_last;
	const struct ct_entry *pend_last_e;
	uint32_t *pend_last_ev; /* pend_last's events (set and cleared with it) */
	bool filter_on;		/* any filter configured */
	/* message slots (proto.c) */
	struct sync_msg *msg_free;
	void *msg_chunks;
	uint64_t msg_slots; /* slots made */
	/* NAT mappings sent or taken in, by external endpoint (natmap.c) */
	struct sync_maprec **map_hash;
	struct sync_maprec *map_oldest, *map_newest;
	uint32_t map_count;
	uint64_t map_since; /* the export walk's last time */
	bool map_all;	    /* the next walk sends every mapping */
	/* ALARM refresh walk */
	uint32_t refresh_cursor;
	uint64_t refresh_last;

	/* receiving */
	bool have_last;
	uint32_t last_seq;
	bool ack_open;
	uint32_t ack_from, window;
	uint64_t replay_top, replay_bits; /* envelope replay window */
	bool replay_init;

	/* external cache */
	struct sync_ext **bucket;
	uint32_t bmask;
	struct sync_ext *oldest, *newest;
	struct sync_xexp *exps; /* received expectations, newest first (cache.c) */
	uint64_t seed[2];
};

/* ring.c */
int sync_ring_push(struct sync_ring *r, struct sync_msg *m);
struct sync_msg *sync_ring_pop(struct sync_ring *r);
void sync_ring_free(struct sync *s, struct sync_ring *r);
struct sync_msg *sync_ring_at(const struct sync_ring *r, uint32_t i);
/* A message of len bytes (a pool slot when it fits), NULL on ENOMEM. */
struct sync_msg *sync_msg_new(struct sync *s, size_t len);
void sync_msg_free(struct sync *s, struct sync_msg *m);
void sync_msg_pool_free(struct sync *s); /* every slot (none may be in use) */

/* proto.c */
/* Queue a message built in buf (len bytes) for sending. 0 or -ENOSPC/-ENOMEM (counted). */
int sync_queue(struct sync *s, const uint8_t *buf, size_t len);
/* Queue a data message for a connection of the table. */
void sync_queue_entry(struct sync *s, const struct ct_entry *e, uint8_t type, uint64_t now);
/* Queue a data message for a flow (f->have loses TIMEOUT with commit_timeout). */
void sync_queue_flow(struct sync *s, struct sync_flow *f, uint8_t type);

/* build.c: does the filter let the connection be replicated? */
bool sync_filter_pass(const struct sync *s, const struct ct_entry *e);

/* pend.c */
struct sync_pend;
/* An event of e: merged into its connection's pending message. 0, or -ENOSPC/-ENOMEM (the
 * caller sends it at once). */
int sync_pend_event(struct sync *s, const struct ct_entry *e, uint8_t type, uint32_t events,
		    uint64_t now);
/* More events (CT_EV_*) of the connection the last one went to (s->pend_last): inline, as
 * five of a short connection's six events come here. */
static inline void sync_pend_merge(struct sync *s, uint32_t events)
{
	*s->pend_last_ev |= events;
}
/* An entry's DESTROY that is not sent (our own commit, filtered): forget its record. */
void sync_pend_forget(struct sync *s, const struct ct_entry *e);
/* Queue the messages of the connections whose hold is over (all: every one). */
void sync_pend_flush(struct sync *s, uint64_t now, bool all);
/* When the oldest pending connection is due, UINT64_MAX when none. */
uint64_t sync_pend_due(const struct sync *s);
void sync_pend_free(struct sync *s);

/* natmap.c */
void sync_map_tick(struct sync *s, uint64_t now);
void sync_map_all(struct sync *s); /* the next tick sends every mapping */
/* A received SYNC_T_PT_MAP message (msg: the whole message). */
void sync_map_apply(struct sync *s, const uint8_t *msg, size_t len, uint64_t now);
void sync_map_free(struct sync *s);

/* cache.c */
int sync_ext_init(struct sync *s);
void sync_ext_free(struct sync *s);
/* A received, valid conntrack message. */
void sync_apply(struct sync *s, uint8_t type, const struct sync_flow *f, uint64_t now);
void sync_ext_expire(struct sync *s, uint64_t now);
/* A received, valid expectation message. */
void sync_apply_exp(struct sync *s, uint8_t type, const struct sync_exp *x, uint64_t now);

/* auth.c: wrap a packed datagram (room for SYNC_AUTH_OVERHEAD more bytes at the end and
 * SYNC_AUTH_HDR at the start is made by the caller), check and unwrap a received one. */
#define SYNC_AUTH_HDR	   12
#define SYNC_AUTH_MAC	   32
#define SYNC_AUTH_OVERHEAD (SYNC_AUTH_HDR + SYNC_AUTH_MAC)
int sync_auth_init(void); /* 0, or -EIO when libsodium could not start */
size_t sync_auth_seal(struct sync *s, uint8_t *buf, size_t payload_len, uint64_t now);
/* 0 (payload and plen set), or -EBADMSG (bad MAC, counted) / -EALREADY (replay, counted). */
int sync_auth_open(struct sync *s, const uint8_t *buf, size_t len, const uint8_t **payload,
		   size_t *plen);

#endif
