/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sync links in the simulator (sync_link.c: the link, time, kill/restart; sync_cmd.c: the
 * `sync` command, its settings, expectations and `show sync`). Not for other layers.
 *
 *   box A: ct events --> struct sync --ops.send--> link queue (loss, dup, reorder, delay)
 *                                                       | due on the simulation's clock
 *   box B: struct sync <--sync_receive------------------+
 *
 * Every box of a link has one struct sim_sync (its end): the sync instance, the config it
 * (re)starts with, and what it received by class (`expect sync-order`). The link's losses come
 * from a pattern (`drop next N`) or a seeded generator: never from the wall clock. Timers run
 * on the box clock: the simulation steps its clock to every time a sync instance or a datagram
 * is due (sim_sync_advance), so `time +10s` runs every ALIVE, ACK and resend on the way.
 */
#ifndef SIM_SYNC_LINK_H
#define SIM_SYNC_LINK_H

#include "sim/internal.h"
#include "sync/sync.h"

#define SIM_SYNC_MAX_MEMBERS 8
#define SIM_SYNC_HIST	     16		  /* datagrams kept per link for `replay` */
#define SIM_SYNC_ORDER_MAX   32		  /* runs of message classes kept per box */
#define SIM_SYNC_ALARM_TICK  100000000ull /* ALARM refreshes on ticks: one every 100 ms */
#define SIM_SYNC_QUEUE_MAX   1000000	  /* datagrams in flight per link at most (counted) */

/* What a received data message is, for `expect sync-order`. */
enum sim_sync_class { SIM_SYNC_CONN, SIM_SYNC_EXPECT, SIM_SYNC_RELATED };

struct sim_sync_link;

struct sim_sync {
	struct sim_sync_link *link;
	struct sim_box *sb;
	struct sync *sync;	/* NULL while the box is dead */
	struct sync_config cfg; /* what it starts with (mode from the link) */
	uint8_t order[SIM_SYNC_ORDER_MAX];
	unsigned norder;
	bool order_overflow;
};

struct sim_sync_dgram {
	struct sim_sync_dgram *next;
	struct sim_box *to;
	uint64_t due, seq;
	size_t len;
	uint8_t d[];
};

/* A datagram pattern: the next N datagrams (of one sender, or of any when from is NULL). */
struct sim_sync_next {
	unsigned n;
	struct sim_box *from;
};

struct sim_sync_link {
	char name[32];
	enum sync_mode mode;
	struct sim_box *member[SIM_SYNC_MAX_MEMBERS];
	unsigned n;
	uint64_t delay;
	unsigned loss_pct, dup_pct; /* of every datagram, from rng */
	uint64_t rng;
	bool down;
	struct sim_sync_next drop, dup, reorder;
	struct {
		struct sim_box *from;
		size_t len;
		uint8_t *d;
	} held;			  /* a datagram the reorder holds until its sender's next one */
	struct sim_sync_dgram *q; /* in flight, by due time then sending order */
	unsigned nq;
	uint64_t seq;
	struct {
		struct sim_box *from;
		size_t len;
		uint8_t *d;
	} hist[SIM_SYNC_HIST]; /* the last datagrams sent, newest at hpos - 1 */
	unsigned hpos;
	/* counters (expect sync-link, show sync) */
	uint64_t sent, lost, duplicated, reordered, delivered, replayed, to_dead;
};

/* sync_link.c */
struct sim_sync_link *sim_sync_link_find(struct sim *s, const char *name);
/* A new link between boxes (each in no other link): their sync instances start now. */
int sim_sync_link_new(struct sim *s, const char *name, struct sim_box **boxes, unsigned n,
		      enum sync_mode mode);
/* Put a datagram from `from` on the link (the pattern, loss, duplication and delay apply). */
void sim_sync_link_put(struct sim_sync_link *l, struct sim_box *from, const uint8_t *d, size_t len,
		       bool replay);
/* Everything in flight arrives now (deliver) or is lost (flush). */
void sim_sync_link_drain(struct sim *s, struct sim_sync_link *l, bool deliver);
/* The box is dead (its sync and conntrack state gone, it takes no packets) / starts again. */
int sim_sync_kill(struct sim *s, struct sim_box *sb);
int sim_sync_restart(struct sim *s, struct sim_box *sb);

#endif
