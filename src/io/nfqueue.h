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
 * One thread; signals as in live mode (struct live_flags). Described in docs/live.md.
 */
#ifndef IO_NFQUEUE_H
#define IO_NFQUEUE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "io/live.h"

struct nfqueue;

struct nfqueue_opts {
	unsigned queue_num; /* 0..65535 */
	unsigned maxlen;    /* packets the kernel keeps waiting for a verdict; 0: 1024 */
	bool fail_open;	    /* queue full / socket overrun: the kernel accepts, not drops */
	const char *rules;  /* iptables-save file (NULL: none) */
	const char *rules6; /* ip6tables-save file (NULL: none) */
	const char *control; /* control socket: a path or a name (ctl_socket_path); NULL: none */
};

/*
 * Load the rulesets, bind the queue and configure it (copy whole packets, maxlen, flags).
 * Errors are printed to err. 0 and *out, or a negative errno (-EPERM without CAP_NET_ADMIN,
 * -EBUSY when another program serves the queue).
 */
int nfqueue_open(const struct nfqueue_opts *o, FILE *err, struct nfqueue **out);
/* Unbind (the kernel drops what is still waiting: no verdict will come) and free. */
void nfqueue_free(struct nfqueue *q);

/* Serve verdicts until flags->stop. 0, or a negative errno when the socket fails. */
int nfqueue_run(struct nfqueue *q, struct live_flags *flags, const sigset_t *waitmask);

/* Parse the ruleset files again and install them all at once (as live_reload). 0 or -EINVAL. */
int nfqueue_reload(struct nfqueue *q);

/* Rules with counters, box counters, verdict counters and the kernel's queue line. */
void nfqueue_dump(struct nfqueue *q, FILE *f);

#endif
