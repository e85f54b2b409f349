/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NFQUEUE mode (`pkttables run --nfqueue N`): a box that gives the kernel verdicts for the
 * packets it queues (src/io/nfqueue.h is the netlink side), with its rulesets loaded from
 * files, reloaded on SIGHUP, and an optional control socket.
 *
 * Queues N..M (--nfqueue N:M, the kernel's --queue-balance N:M), served by `workers` threads
 * around one box (live/workers.h): queue N+i by worker i % workers. Signals as in live mode
 * (struct live_flags), taken by worker 0. Described in docs/live.md.
 */
#ifndef LIVE_NFQUEUE_H
#define LIVE_NFQUEUE_H

#include <signal.h>
#include <stdio.h>

#include "io/nfqueue.h"
#include "live/live.h"

struct live_nfqueue;

struct live_nfqueue_opts {
	struct nfqueue_opts queue; /* queue.queue_num: the first queue */
	unsigned last_queue;	   /* the last queue (N:M); below queue_num: only that one */
	unsigned workers;	   /* threads; 0: one per queue, at most one per CPU */
	const char *rules;	   /* iptables-save file (NULL: none) */
	const char *rules6;	   /* ip6tables-save file (NULL: none) */
	const char *control; /* control socket: a path or a name (ctl_socket_path); NULL: none */
	int classifier;	     /* CLS_MODE_* (classify/ruleset.h): 0 is auto */
};

/*
 * Load the rulesets, then bind the queue (nfqueue_open). Errors are printed to err. 0 and
 * *out, or a negative errno.
 */
int live_nfqueue_open(const struct live_nfqueue_opts *o, FILE *err, struct live_nfqueue **out);
void live_nfqueue_free(struct live_nfqueue *q);

/* Serve verdicts until flags->stop. 0, or a negative errno when the socket fails. */
int live_nfqueue_run(struct live_nfqueue *q, struct live_flags *flags, const sigset_t *waitmask);

/* Parse the ruleset files again and install them all at once (as live_reload). 0 or -EINVAL. */
int live_nfqueue_reload(struct live_nfqueue *q);

/* Rules with counters, box counters, verdict counters and the kernel's queue line. */
void live_nfqueue_dump(struct live_nfqueue *q, FILE *f);

#endif
