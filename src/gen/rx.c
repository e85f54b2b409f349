// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rx.c: the receiver's counters (gen.h draws the signature it looks for).
 *
 * Per flow: the highest sequence seen plus one, how many distinct sequences arrived, and a
 * 256-bit window below the highest one, so a duplicate is told from a late packet:
 *
 *   bit k of win  <=>  sequence (high - 1 - k) arrived,   k < 256
 *
 * A sequence older than the window counts as reordered (it cannot be told from a duplicate
 * any more). Lost = sum over flows of (high - distinct), read at any time: a packet still in
 * flight counts as lost until it arrives (then it is reordered). Latency is the receive time
 * minus the signature's send time, both low 32 bits of CLOCK_REALTIME ns on one machine (the
 * receive time is the kernel's timestamp of the frame),
 * kept in a log-linear histogram (16 steps per power of two) for p50/p99.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

#define WIN_WORDS   4 /* 256 bits */
#define LAT_SUB	    16
#define LAT_BUCKETS (33 * LAT_SUB)

struct rx_flow {
	uint32_t high; /* highest sequence + 1; 0 = nothing yet */
	uint32_t distinct;
	uint64_t win[WIN_WORDS];
};

struct gen_rx {
	unsigned max_flows;
	struct rx_flow *flow;
	struct gen_rx_totals t;
	uint64_t lat[LAT_BUCKETS];
	uint64_t lat_n;
};

struct gen_rx *gen_rx_new(unsigned max_flows)
{
	struct gen_rx *rx = calloc(1, sizeof(*rx));

	if (!rx)
		return NULL;
	rx->max_flows = max_flows ? max_flows : 1;
	rx->flow = calloc(rx->max_flows, sizeof(*rx->flow));
	if (!rx->flow) {
		free(rx);
		return NULL;
	}
	return rx;
}

void gen_rx_free(struct gen_rx *rx)
{
	if (!rx)
		return;
	free(rx->flow);
	free(rx);
}

static inline uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Shift the window up by n sequences (bits move to higher k). */
static void win_shift(uint64_t *w, uint32_t n)
{
	if (n >= 64 * WIN_WORDS) {
		memset(w, 0, sizeof(uint64_t) * WIN_WORDS);
		return;
	}
	unsigned words = n / 64, bits = n % 64;

	for (int i = WIN_WORDS - 1; i >= 0; i--) {
		uint64_t v = i - (int)words >= 0 ? w[i - words] << bits : 0;

		if (bits && i - (int)words - 1 >= 0)
			v |= w[i - words - 1] >> (64 - bits);
		w[i] = v;
	}
}

static unsigned lat_bucket(uint64_t ns)
{
	unsigned e, sub;

	if (ns < LAT_SUB)
		return (unsigned)ns;
	e = 63 - (unsigned)__builtin_clzll(ns); /* ns >= 16: e >= 4 */
	sub = (unsigned)(ns >> (e - 4)) & (LAT_SUB - 1);
	e -= 3;
	if (e >= 33)
		return LAT_BUCKETS - 1;
	return e * LAT_SUB + sub;
}

/* The smallest value of a bucket (the inverse of lat_bucket). */
static uint64_t lat_value(unsigned b)
{
	unsigned e = b / LAT_SUB, sub = b % LAT_SUB;

	if (e == 0)
		return sub;
	return (uint64_t)(LAT_SUB + sub) << (e - 1);
}

static void account(struct gen_rx *rx, uint32_t flow, uint32_t seq, uint32_t sent, uint64_t now_ns)
{
	struct rx_flow *f;
	uint32_t lat = (uint32_t)now_ns - sent;

	rx->t.received++;
	rx->lat[lat_bucket(lat)]++;
	rx->lat_n++;
	if (lat > rx->t.lat_max_ns)
		rx->t.lat_max_ns = lat;
	if (flow >= rx->max_flows) {
		rx->t.unknown_flow++;
		return;
	}
	f = &rx->flow[flow];
	if (!f->high && !f->distinct)
		rx->t.flows_seen++;
	if (seq >= f->high) {
		win_shift(f->win, seq + 1 - f->high);
		f->win[0] |= 1;
		f->high = seq + 1;
		f->distinct++;
		return;
	}
	uint32_t k = f->high - 1 - seq;

	if (k < 64 * WIN_WORDS) {
		uint64_t bit = 1ull << (k % 64);

		if (f->win[k / 64] & bit) {
			rx->t.duplicated++;
			return;
		}
		f->win[k / 64] |= bit;
	}
	rx->t.reordered++;
	f->distinct++;
}

void gen_rx_frame(struct gen_rx *rx, const uint8_t *p, size_t len, bool eth, uint64_t now_ns)
{
	size_t off = 0, l4;
	uint32_t type, proto;

	rx->t.frames++;
	rx->t.bytes += len;
	if (eth) {
		if (len < 14)
			goto unsigned_;
		type = get16(p + 12);
		off = 14;
		while ((type == 0x8100 || type == 0x88a8) && off + 4 <= len) {
			type = get16(p + off + 2);
			off += 4;
		}
	} else {
		type = len && (p[0] >> 4) == 6 ? 0x86dd : 0x0800;
	}
	if (type == 0x0800) {
		if (off + 20 > len || (p[off] >> 4) != 4)
			goto unsigned_;
		if (get16(p + off + 6) & 0x1fff) /* a later fragment */
			goto unsigned_;
		proto = p[off + 9];
		l4 = off + (p[off] & 0x0f) * 4u;
	} else if (type == 0x86dd) {
		if (off + 40 > len || (p[off] >> 4) != 6)
			goto unsigned_;
		proto = p[off + 6];
		l4 = off + 40;
		if (proto == 44) { /* fragment header: only the first fragment is signed */
			if (l4 + 8 > len || (get16(p + l4 + 2) & 0xfff8))
				goto unsigned_;
			proto = p[l4];
			l4 += 8;
		}
	} else {
		goto unsigned_;
	}
	if (proto == 6) {
		if (l4 + 20 > len)
			goto unsigned_;
		l4 += (p[l4 + 12] >> 4) * 4u;
	} else if (proto == 17 || proto == 1 || proto == 58) {
		l4 += 8;
	} else {
		goto unsigned_;
	}
	if (l4 + GEN_SIG_LEN > len || get32(p + l4) != GEN_SIG_MAGIC)
		goto unsigned_;
	account(rx, get32(p + l4 + 4), get32(p + l4 + 8), get32(p + l4 + 12), now_ns);
	return;
unsigned_:
	rx->t.unsigned_++;
}

static uint64_t percentile(const struct gen_rx *rx, double q)
{
	uint64_t want = (uint64_t)((double)rx->lat_n * q), seen = 0;

	if (!rx->lat_n)
		return 0;
	if (want >= rx->lat_n)
		want = rx->lat_n - 1;
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += rx->lat[b];
		if (seen > want)
			return lat_value(b);
	}
	return rx->t.lat_max_ns;
}

void gen_rx_totals(const struct gen_rx *rx, struct gen_rx_totals *t)
{
	uint64_t high = 0, distinct = 0;

	*t = rx->t;
	for (unsigned i = 0; i < rx->max_flows; i++) {
		high += rx->flow[i].high;
		distinct += rx->flow[i].distinct;
	}
	t->lost = high > distinct ? high - distinct : 0;
	t->lat_p50_ns = percentile(rx, 0.50);
	t->lat_p99_ns = percentile(rx, 0.99);
}
