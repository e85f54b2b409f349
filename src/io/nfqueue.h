/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NFQUEUE mode (`pkttables run --nfqueue N`): the kernel receives, routes and sends; a rule
 * such as `iptables -A FORWARD -j NFQUEUE --queue-num N` hands each packet to us, the box runs
 * its rules for the hook the packet was queued from, and the kernel gets the verdict, the mark
 * and, when the rules rewrote it, the new packet.
 *
 *   kernel hook H --nfnetlink (recvmmsg, up to 64 a call)--> box_hook_packet(H, in, out)
 *                 <--verdicts (runs of equal verdict+mark as one VERDICT_BATCH, rewritten
 *                     packets as one VERDICT each; all in one sendto per batch)-------
 *
 * This file is the netlink side; the application (rulesets, control socket, signals, the loop)
 * is src/live/nfqueue.h. Described in docs/live.md.
 */
#ifndef IO_NFQUEUE_H
#define IO_NFQUEUE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct box;
struct nfqueue;

struct nfqueue_opts {
	unsigned queue_num; /* 0..65535 */
	unsigned maxlen;    /* packets the kernel keeps waiting for a verdict; 0: 1024 */
	bool fail_open;	    /* queue full / socket overrun: the kernel accepts, not drops */
	/* Several queues on several threads around one box: called with true before the
	 * received messages go through the box and with false after (the netlink receive and
	 * the verdicts' send are outside it). NULL: one thread, no lock. */
	void (*box_lock)(void *arg, bool take);
	void *box_lock_arg;
};

struct nfqueue_stats {
	uint64_t packets, accepted, dropped, stolen, not_ip;
	uint64_t rewritten, remarked;	   /* payload / mark changed by the rules */
	uint64_t verdict_msgs, batch_msgs; /* messages sent */
	uint64_t sends, overruns;	   /* sendto calls; ENOBUFS on receive (packets lost) */
	uint64_t verdict_errors;	   /* the kernel refused a verdict (unknown id, ...) */
	uint64_t unnamed; /* interfaces beyond the box's table: no name for -i/-o */
};

/*
 * Bind the queue and configure it (copy whole packets, maxlen, flags); its packets go through
 * box b (the caller's, which outlives the queue). Errors are printed to err. 0 and *out, or a
 * negative errno (-EPERM without CAP_NET_ADMIN, -EBUSY when another program serves the queue).
 */
int nfqueue_open(const struct nfqueue_opts *o, struct box *b, FILE *err, struct nfqueue **out);
/* Unbind (the kernel drops what is still waiting: no verdict will come) and free. */
void nfqueue_free(struct nfqueue *q);

/*
 * A queue without a socket, for tests: nfqueue_handle takes `n` bytes of netlink messages as
 * if received (packets through box b, answers to requests) and returns the verdict messages
 * they made (*sent bytes, valid until the next call), which a bound queue would have sent.
 * NULL on ENOMEM. Freed with nfqueue_free; nfqueue_fd and nfqueue_drain are not for it.
 */
struct nfqueue *nfqueue_open_unbound(unsigned queue_num, struct box *b);
const void *nfqueue_handle(struct nfqueue *q, const void *msgs, size_t n, size_t *sent);

/* The socket to wait on (POLLIN: packets wait). */
int nfqueue_fd(const struct nfqueue *q);
/*
 * Receive what is waiting (a bounded number of batches), run it through the box and send the
 * verdicts. 0, or a negative errno when the socket fails for good.
 */
int nfqueue_drain(struct nfqueue *q);

/* The counters. Those counted outside the box lock (sends, overruns) are read atomically, so
 * another thread holding the lock may call it. */
void nfqueue_get_stats(const struct nfqueue *q, struct nfqueue_stats *st);
/* The kernel's line for this queue (/proc/net/netfilter/nfnetlink_queue), when it has one. */
void nfqueue_print_kernel_queue(const struct nfqueue *q, FILE *f);

#endif
