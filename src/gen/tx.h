/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The generator's live sender (tx.c says how): PACKET_TX_RING or sendmmsg on one interface. */
#ifndef GEN_TX_H
#define GEN_TX_H

#include <signal.h>
#include <stdint.h>

#include "gen/gen.h"

enum gen_tx_mode { GEN_TX_AUTO, GEN_TX_RING, GEN_TX_MMSG };

struct gen_tx;

struct gen_tx_stats {
	uint64_t frames, datagrams, bytes; /* handed to the kernel, errors taken off */
	uint64_t errors;		   /* frames the kernel refused */
	uint64_t blocked_ns; /* time spent waiting for the kernel to take frames (backpressure) */
	double seconds;
};

struct gen_tx_opts {
	uint64_t count;		     /* datagrams; 0 = no limit */
	uint64_t duration_ns;	     /* 0 = no limit */
	uint64_t rate_pps, rate_bps; /* 0 both = as fast as possible */
	volatile sig_atomic_t *stop; /* set by a signal handler: stop after this datagram */
	void (*progress)(void *arg, const struct gen_tx_stats *st); /* about once a second */
	void *arg;
};

/*
 * Open a sender on ifname for frames up to max_frame bytes. GEN_TX_AUTO takes the ring and
 * falls back to sendmmsg. 0, or -errno with err for a person (-ENODEV: no such interface,
 * -EPERM: not root).
 */
int gen_tx_open(const char *ifname, enum gen_tx_mode mode, unsigned max_frame, struct gen_tx **out,
		char *err, size_t errlen);
void gen_tx_close(struct gen_tx *t);
enum gen_tx_mode gen_tx_mode(const struct gen_tx *t);

/* Send until the count, the duration or *stop; 0, or -ETIMEDOUT if the kernel stopped
 * taking frames for a second. */
int gen_tx_run(struct gen_tx *t, struct gen *g, const struct gen_tx_opts *o,
	       struct gen_tx_stats *st);

#endif
