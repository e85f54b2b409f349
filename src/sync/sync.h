/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * State replication between firewall boxes on conntrackd's wire protocol (wire.h), so a
 * pkttables box pairs with another one or with Linux + conntrackd 1.4.7, in either role.
 *
 *   ct events (ct_event_subscribe) --> filter --> message --> tx queue --> datagrams --> ops.send
 *   ops.recv'd datagram --> [auth] --> framing/validation --> mode (FTFW/NOTRACK/ALARM)
 *       --> external cache (commit later: sync_commit)  or  straight into the table (direct)
 *
 * One struct sync per box; it holds every piece of state (sequence numbers, queues, caches,
 * counters). Time comes in as `now` (box clock, ns); the caller calls sync_tick() regularly
 * (every few ms in live mode; each step in the simulator) and hands received datagrams to
 * sync_receive(). Not thread-safe: the box's data-path thread (or one thread owning both).
 *
 * Everything is bounded: the resend queue (ResendQueueSize), the transmit queue, the external
 * cache; each refusal is counted (sync_stats).
 */
#ifndef SYNC_SYNC_H
#define SYNC_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sync/wire.h"

struct ct_table;
struct ct_entry;
struct nat_table;

enum sync_mode { SYNC_MODE_FTFW, SYNC_MODE_NOTRACK, SYNC_MODE_ALARM };

#define SYNC_KEY_LEN 32 /* HMAC-SHA-256 key (libsodium crypto_auth_hmacsha256) */

/* What is not replicated (conntrackd's Filter, sending side only). */
struct sync_filter {
	uint32_t proto_ignore[8]; /* bit per IP protocol number */
	struct {
		union pt_addr addr;
		uint8_t family, plen;
	} addr_ignore[16];
	unsigned naddr;
	uint16_t tcp_state_ignore; /* bit per enum ct_tcp_state */
	uint32_t mark_value, mark_mask;
	bool mark_set; /* replicate only connections with (mark & mask) == value */
	/* connections that end on the box itself (a local address as the original destination):
	 * not replicated when set; local_fn says what is local */
	bool no_local;
	bool (*local_fn)(void *priv, int family, const union pt_addr *a);
	void *local_priv;
};

#define SYNC_TX_HOLD_AUTO UINT64_MAX

struct sync_config {
	enum sync_mode mode;
	enum sync_peer_kind peer;
	uint32_t ack_window;	 /* FTFW ACKWindowSize (300) */
	uint32_t resend_max;	 /* FTFW ResendQueueSize, messages (131072) */
	uint32_t tx_max;	 /* messages waiting to be sent at most (262144) */
	uint32_t external_max;	 /* external cache entries at most (262144) */
	uint32_t mtu;		 /* link MTU (1500): datagrams carry at most mtu - 28 bytes */
	uint64_t alive_interval; /* ns between ALIVE/ACK ticks (1 s, as conntrackd's fixed timer) */
	uint64_t refresh_time;	 /* ALARM: every connection re-sent within it (60 s) */
	uint64_t cache_timeout;	 /* ALARM: external entries not refreshed within it go (180 s) */
	uint64_t commit_timeout; /* 0: the received timeout minus the time since it came */
	/* How long a connection's events may wait for more of its events, so they leave as one
	 * message (0: until the next sync_tick, which in live mode follows every batch). */
	uint64_t tx_hold;
	/* At least that long for the updates of an ASSURED connection (its close, a mark): by
	 * default (SYNC_TX_HOLD_AUTO) 500 us, so a close's updates leave as one UPD while a new
	 * connection and its handshake still leave at once; 0 in direct mode (disable_external:
	 * active-active pairs, where the peer may see the connection's next packet any moment). */
	uint64_t tx_hold_update;
	bool disable_external;	  /* DisableExternalCache: received state into the table at once */
	bool tcp_window_tracking; /* send the window scale attributes */
	bool startup_resync;	  /* FTFW: the first message is RESYNC|HELLO */
	bool auth;		  /* pkttables peers only: HMAC-SHA-256 envelope (key below) */
	/* pkttables peers with a NAT table: the NAT mappings are replicated (natmap.c) unless
	 * this is set; map_max bounds what is remembered of them (65536) */
	bool no_nat_mappings;
	uint32_t map_max;
	uint8_t key[SYNC_KEY_LEN];
	struct sync_filter filter;
	/* 0: from `now` at sync_new. Live mode gives the wall clock (conntrackd's time()), so a
	 * restarted box numbers above what it sent before; the box clock is monotonic. */
	uint32_t seq_start;	     /* first sequence number */
	uint64_t auth_counter_start; /* envelope counter (ns) */
};

struct sync_stats {
	/* link */
	uint64_t tx_dgrams, tx_bytes, tx_msgs, tx_errors, rx_dgrams, rx_bytes, rx_msgs;
	/* receive errors, by reason (conntrackd -s network) */
	uint64_t rx_err[SYNC_RX_ERR_MAX];
	uint64_t rx_malformed;		  /* every refused message (conntrackd: Malformed msgs) */
	uint64_t rx_auth_fail, rx_replay; /* pkttables envelope: bad MAC, replayed/too old */
	uint64_t seq_lost, seq_before; /* FTFW: "Packets lost" (as conntrackd counts), "before" */
	/* FTFW control */
	uint64_t tx_ack, tx_nack, tx_resync, tx_alive, rx_ack, rx_nack, rx_resync, rx_hello;
	uint64_t resent; /* messages sent again after a NACK */
	/* queues full: the oldest resend entry, a new message dropped */
	uint64_t rs_dropped, tx_dropped;
	uint64_t coalesced;	 /* events merged into a message already pending */
	uint32_t rs_len, tx_len; /* now */
	/* caches */
	uint64_t ext_new, ext_upd, ext_del, ext_full, ext_expired;
	uint64_t exp_received, exp_full, exp_committed, exp_failed;
	uint32_t exp_count; /* expectations in the external cache */
	uint64_t int_sent_new, int_sent_upd, int_sent_del, filtered;
	uint64_t committed, commit_failed, direct_applied, direct_failed;
	uint32_t ext_count;
	/* NAT mappings (pkttables peers): sent, received, taken in, refused (a conflict, no NAT
	 * table, full), records forgotten (map_max) */
	uint64_t map_tx, map_rx, map_applied, map_refused, map_forgotten;
};

struct sync_ops {
	/* Put one datagram on the sync link. 0, or <0 (counted in tx_errors, FTFW recovers by
	 * NACK). */
	int (*send)(void *priv, const void *buf, size_t len);
};

struct sync;

void sync_config_default(struct sync_config *c);
/* Read a key file: 32 raw bytes, or 64 hex digits (whitespace around them allowed).
 * 0, -errno, -EINVAL (wrong size or not hex). */
int sync_key_load(const char *path, uint8_t key[SYNC_KEY_LEN]);

/*
 * A sync instance for the box whose tables are ct (required) and nat (NULL: no NAT). It
 * subscribes to ct's events. The sequence counter starts at now's seconds (as conntrackd's
 * time()). NULL on ENOMEM, or when the ct table has no subscriber slot (errno).
 */
struct sync *sync_new(const struct sync_config *c, struct ct_table *ct, struct nat_table *nat,
		      const struct sync_ops *ops, void *priv, uint64_t now);
void sync_free(struct sync *s);
const struct sync_config *sync_get_config(const struct sync *s);

/* A datagram from the sync link. Anything wrong in it is counted and dropped; nothing of a
 * refused message is applied. Answers (ACK/NACK/HELLO_BACK, a bulk) are sent before return. */
void sync_receive(struct sync *s, const void *dgram, size_t len, uint64_t now);
/* Timers (ALIVE/ACK, ALARM refresh and expiry) and the transmit queue. Call often. */
void sync_tick(struct sync *s, uint64_t now);
/* The time sync_tick next has something to do (for a poll timeout), absolute ns. */
uint64_t sync_next_timer(const struct sync *s);

/* conntrackd -c: the external cache into the conntrack table (masters first, then related
 * connections). Returns the number committed; failures are counted. */
unsigned sync_commit(struct sync *s, uint64_t now);
/* conntrackd -f: empty the external cache (external true) and/or forget what was sent
 * (internal: the transmit and resend queues). */
void sync_flush(struct sync *s, bool internal, bool external);
/* conntrackd -B: send every connection of the table (masters, expectations, related). */
unsigned sync_bulk(struct sync *s, uint64_t now);
/* conntrackd -n: ask the peer for its whole table (RESYNC). -EOPNOTSUPP in ALARM mode. */
int sync_request_resync(struct sync *s, uint64_t now);

const struct sync_stats *sync_stats(const struct sync *s);
/* conntrackd -s: counters, "name value" per line. */
void sync_stats_print(const struct sync *s, FILE *f);
/* conntrackd -e / -i: one line per connection of the external cache / the table as sent. */
unsigned sync_dump_external(const struct sync *s, FILE *f, uint64_t now);
unsigned sync_dump_internal(struct sync *s, FILE *f, uint64_t now);
/* The external cache's entry for an original tuple (tests, CLIs), NULL if none. */
const struct sync_flow *sync_external_find(const struct sync *s, const struct ct_tuple *orig);

/* A connection of the table as a message carries it (build.c). */
void sync_flow_from_entry(struct sync_flow *f, const struct ct_entry *e, bool wscale, uint64_t now);
/* What a DEL carries: the original tuple (and zone) only, as conntrackd's cache needs. */
void sync_flow_del(struct sync_flow *f, const struct ct_tuple *orig);
/* "tcp 6 ESTABLISHED src=... dst=... sport=... dport=... [SNAT ...] mark=..." */
int sync_flow_format(const struct sync_flow *f, char *buf, size_t len);

#endif
