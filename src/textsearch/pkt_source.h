/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A range of a packet as a textsearch source: the blocks are the packet's own segments, cut to
 * the range, in place (nothing is copied; empty segments are skipped).
 *
 *   seg[0] [eth|ip|udp|pa]  seg[1] [yload....]  seg[2] []  seg[3] [...]
 *                 |<------- off, len -------------------------->|
 *   blocks:       [ip|udp|pa] [yload....]            [...]
 */
#ifndef TEXTSEARCH_PKT_SOURCE_H
#define TEXTSEARCH_PKT_SOURCE_H

#include "pkt/pkt.h"
#include "textsearch/textsearch.h"

struct ts_pkt_range {
	const struct pkt *p;
	uint32_t off, len;
	unsigned seg; /* segment of the last block, and where it starts in the packet */
	uint32_t seg_start;
};

/* [off, off + len) of p, cut to the packet. r must live as long as the source is used. */
struct ts_source ts_pkt_source(struct ts_pkt_range *r, const struct pkt *p, uint32_t off,
			       uint32_t len);

#endif
