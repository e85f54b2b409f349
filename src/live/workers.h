/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Several data-path threads around one box (`workers N`; run --nfqueue N:M).
 *
 *   worker 0 (the caller's thread)    worker 1..N-1 (threads of their own)
 *     signals, control socket, sync,    their own receive sockets (a fanout member,
 *     neighbour timers, the dump         an AF_XDP queue, an NFQUEUE queue)
 *     its own receive sockets
 *            \                          /
 *             +---- box_lock: the box ---+  (rulesets, conntrack, NAT, neighbours,
 *                                            counters: one box, as with one worker)
 *
 * What runs without the lock: the kernel's side (reading rings, recvmmsg, copying frames into
 * packets, sendmmsg, verdicts), each worker on its own sockets. What runs under it: every call
 * into the box, in bursts (one lock per received batch). So a connection and its reply, NATed
 * or not, see one conntrack table whichever worker the kernel hands them to, and a ruleset
 * swapped under the lock is swapped for all workers at once.
 *
 * Lock order: box_lock, then a port's transmit lock (io/port.c); never the other way.
 *
 * Packets are allocated outside the lock (each worker copies its frames into new packets) and
 * freed by the worker that sends them, which need not be the one that made them: whatever
 * allocates struct pkt (malloc today; a packet pool later) must be safe across threads, or be
 * per worker with frees returned to their owner.
 *
 * Counters a worker keeps outside the lock are read by the dump through a snapshot: worker 0
 * asks (live_pool_snap_request), each worker copies its own counters when it next wakes (at
 * most LIVE_WAIT_MS later) and says so, worker 0 waits for all of them (bounded) and prints.
 */
#ifndef LIVE_WORKERS_H
#define LIVE_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIVE_MAX_WORKERS 64

struct live_pool;

struct live_pool_slot {
	struct live_pool *pool;
	unsigned i;
};

struct live_pool {
	pthread_mutex_t box_lock;
	unsigned n; /* workers, 1..LIVE_MAX_WORKERS */
	pthread_t thread[LIVE_MAX_WORKERS];
	bool started[LIVE_MAX_WORKERS];
	int (*fn)(void *arg);
	void *arg[LIVE_MAX_WORKERS];
	int rc[LIVE_MAX_WORKERS];
	struct live_pool_slot slot[LIVE_MAX_WORKERS];
	int stop; /* atomic: worker 0 is leaving, or a worker failed */
	/* the dump's snapshot: generation asked, generation each worker has copied */
	pthread_mutex_t snap_lock;
	pthread_cond_t snap_cond;
	unsigned long snap_gen; /* atomic */
	unsigned long snap_seen[LIVE_MAX_WORKERS];
};

/* The default `workers`: the CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned live_workers_default(void);

/* 0, or -errno from pthread's initialisers. */
int live_pool_init(struct live_pool *p, unsigned n);
void live_pool_destroy(struct live_pool *p);
/*
 * Start workers 1..n-1 as threads running fn(args[i]) (registered with liburcu for the box's
 * rulesets); worker 0 is the caller. A worker whose fn returns an error stops them all. 0 or
 * -errno (then the ones started are stopped and joined).
 */
int live_pool_start(struct live_pool *p, int (*fn)(void *arg), void *const *args);
/* Tell every worker to stop and wait for the threads: 0, or the first worker's error. */
int live_pool_stop(struct live_pool *p);
bool live_pool_stopping(struct live_pool *p);
void live_pool_fail(struct live_pool *p); /* a worker failed for good: all stop */

void live_pool_lock(struct live_pool *p);
void live_pool_unlock(struct live_pool *p);

/* Worker w: a snapshot is asked for and w has not made it yet. */
bool live_pool_snap_due(struct live_pool *p, unsigned w);
/* Worker w made its snapshot. */
void live_pool_snap_done(struct live_pool *p, unsigned w);
/* Worker 0: ask every worker for a snapshot (worker 0's own is the caller's to make) and wait
 * up to timeout_ms for the others. true when all answered. */
bool live_pool_snap_request(struct live_pool *p, unsigned timeout_ms);

/* sum[k] += x[k] for a struct of counters, all uint64_t: n = sizeof(struct) / 8. */
static inline void live_counters_add(void *sum, const void *x, size_t size)
{
	uint64_t *d = sum;
	const uint64_t *s = x;

	for (size_t k = 0; k < size / sizeof(uint64_t); k++)
		d[k] += s[k];
}

#endif
