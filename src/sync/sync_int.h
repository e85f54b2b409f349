/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals shared by the files of src/sync. Not for use outside it.
 *
 *   proto.c   sequence numbers, queues, FTFW/NOTRACK/ALARM, receive, timers, bulk
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
	uint32_t seq;
	uint16_t len;
	bool dead; /* acknowledged while not at the head of the resend queue */
	uint8_t data[];
};

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
	uint8_t *dgram; /* datagram being packed */
	size_t dlen, dcap;
	uint64_t next_alive;
	uint64_t auth_counter; /* envelope counter of the last datagram sent */
	/* bulk in progress: phase 0 masters, 1 expectations, 2 related, 3 done */
	int bulk_phase;
	uint32_t bulk_cursor;
	const void *bulk_exp;
	/* events waiting to become messages, one per connection (pend.c) */
	struct sync_pend **pend_hash;
	struct sync_pend *pend_head, **pend_tail;
	uint32_t npend;
	struct sync_pend *pend_last;	    /* the last one an event went to: the next event is */
	const struct ct_entry *pend_last_e; /* often the same connection's (no hash then) */
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

/* proto.c */
int sync_ring_push(struct sync_ring *r, struct sync_msg *m);
struct sync_msg *sync_ring_pop(struct sync_ring *r);
void sync_ring_free(struct sync_ring *r);
/* Queue a message built in buf (len bytes) for sending. 0 or -ENOSPC/-ENOMEM (counted). */
int sync_queue(struct sync *s, const uint8_t *buf, size_t len);
/* Queue a data message for a connection of the table. */
void sync_queue_entry(struct sync *s, const struct ct_entry *e, uint8_t type, uint64_t now);
bool sync_filter_pass(const struct sync *s, const struct ct_entry *e);
/* Queue a data message for a flow. */
void sync_queue_flow(struct sync *s, const struct sync_flow *f, uint8_t type);

/* pend.c */
struct sync_pend;
/* An event of e: merged into its connection's pending message. 0, or -ENOSPC/-ENOMEM (the
 * caller sends it at once). */
int sync_pend_event(struct sync *s, const struct ct_entry *e, uint8_t type, uint64_t now);
/* Queue the messages of the connections pending at least tx_hold (all: every one). */
void sync_pend_flush(struct sync *s, uint64_t now, bool all);
/* When the oldest pending connection is due, UINT64_MAX when none. */
uint64_t sync_pend_due(const struct sync *s);
void sync_pend_free(struct sync *s);

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
