/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real world's time and randomness for the live front ends (AF_PACKET and NFQUEUE).
 * Core code never calls these: a box gets its time from box_set_time and its PRNG seed from
 * box_seed, so the simulator stays deterministic.
 */
#ifndef IO_CLOCK_H
#define IO_CLOCK_H

#include <stdint.h>

struct box;

/* CLOCK_MONOTONIC in ns. */
uint64_t io_monotonic_ns(void);
/* CLOCK_MONOTONIC in seconds: what a box times classifier builds with (box_set_classifier). */
double io_monotonic_s(void);
/* CLOCK_REALTIME in ns: the clock of the kernel's packet timestamps (afpacket_frame.tstamp_ns). */
uint64_t io_realtime_ns(void);
/*
 * Seed the box PRNG from getrandom (monotonic clock ^ pid if that fails): NAT ports, the
 * --random key and the conntrack hash key must not be the same sequence at every start
 * (RFC 6056), as the fixed default seed would give.
 */
void io_seed_box(struct box *b);

#endif
