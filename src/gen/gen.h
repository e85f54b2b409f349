/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen: the packet generator's frame builder and the receiver's counters.
 *
 * A generator holds one template per flow, built once: Ethernet (+ 802.1Q), IPv4 or IPv6, and
 * UDP, TCP or ICMP/ICMPv6 headers, with the ones' complement sums of their constant words kept
 * beside them. Each frame copies the template's headers, writes the per-packet fields (lengths,
 * IPv4 id, TCP sequence, ICMP sequence, the signature) and finishes both checksums from the
 * kept sums plus the words that changed, so the cost does not depend on the frame size. The
 * payload is zero past the signature.
 *
 *   frame:  [dst mac|src mac|(8100 tci)|type][IPv4/IPv6][UDP/TCP/ICMP][signature|0 0 0 ...]
 *
 *   signature (16 bytes, network order), the first payload bytes of every data packet:
 *   +------------------+------------------+------------------+------------------+
 *   | magic 'PTG1'     | flow index       | sequence in flow | send time, ns    |
 *   |                  |                  | (from 0)         | (low 32 bits)    |
 *   +------------------+------------------+------------------+------------------+
 *
 * The receiver finds the signature in what arrives (after NAT, too: it does not use the
 * addresses) and counts per flow: received, lost, reordered, duplicated, latency.
 *
 * Sizes are frame sizes on the wire including the 4-byte FCS, as "64-byte frames" means: a
 * 64-byte frame is 60 bytes handed to the interface. Everything is seeded: the same
 * configuration writes the same bytes. Time is an argument; this file never reads a clock.
 */
#ifndef GEN_GEN_H
#define GEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt/pkt.h"

#define GEN_MAX_FLOWS (1u << 22)
#define GEN_MAX_FRAME 9018 /* with FCS: a 9000-byte jumbo MTU */
#define GEN_MIN_FRAME 64
#define GEN_FCS	      4
#define GEN_SIG_LEN   16
#define GEN_SIG_MAGIC 0x50544731u /* "PTG1" */
#define GEN_MAX_FRAGS 64

enum gen_proto { GEN_UDP, GEN_TCP, GEN_ICMP };
enum gen_tcp_mode { GEN_TCP_DATA, GEN_TCP_HANDSHAKE };
enum gen_dist { GEN_DIST_SEQ, GEN_DIST_RANDOM, GEN_DIST_ZIPF };
enum gen_sizes { GEN_SIZE_FIXED, GEN_SIZE_RANGE, GEN_SIZE_IMIX };

struct gen_config {
	unsigned flows;	    /* 1 .. GEN_MAX_FLOWS */
	enum gen_dist dist; /* which flow sends next */
	double zipf_s;	    /* Zipf exponent (> 0) */
	int family;	    /* 4, 6, or 46: even flows IPv4, odd flows IPv6 */
	enum gen_proto proto;
	enum gen_tcp_mode tcp_mode;
	enum gen_sizes sizes;
	unsigned size_min, size_max; /* frame bytes with FCS; equal for FIXED */
	int vlan;		     /* 802.1Q id 0..4095, or -1 for untagged */
	unsigned frag;		     /* 0, or the largest IP payload per fragment (multiple of 8) */
	uint64_t seed;
	uint8_t src_mac[6], dst_mac[6];
	union pt_addr src4, dst4, src6, dst6; /* flow i's source is src + i % 250 */
	uint16_t sport, dport;		      /* flow i's source port is sport + i / 250 */
	uint8_t ttl;
};

/* Defaults: 1 flow, UDP, IPv4 198.18.0.1 -> 198.19.0.1 (RFC 2544's range), 64-byte frames. */
void gen_config_init(struct gen_config *c);

/*
 * Check a configuration: 0, or -EINVAL with err saying what is wrong for a person (a size
 * below the headers and the signature, a fragment size that is not a multiple of 8, ...).
 */
int gen_config_check(const struct gen_config *c, char *err, size_t errlen);

/* Smallest frame (with FCS) that holds the headers and the signature for this family. */
unsigned gen_min_frame(const struct gen_config *c, int family);

struct gen;

/* Build the flow templates. NULL with err filled on a bad configuration or no memory. */
struct gen *gen_new(const struct gen_config *c, char *err, size_t errlen);
void gen_free(struct gen *g);

/*
 * Write the next frame into buf (at least GEN_MAX_FRAME bytes); return its length (without
 * FCS). now_ns goes into the signature. A fragmented datagram comes out as several frames in
 * a row; gen_datagrams() counts datagrams, gen_frames() frames.
 */
size_t gen_next(struct gen *g, uint8_t *buf, uint64_t now_ns);

/*
 * Like gen_next, but the caller promises buf already holds zeros past the headers of any
 * frame written there before (a reused ring slot): only the headers and the signature are
 * written, not the payload.
 */
size_t gen_next_reuse(struct gen *g, uint8_t *buf, uint64_t now_ns);

uint64_t gen_datagrams(const struct gen *g);
uint64_t gen_frames(const struct gen *g);
/* True when the next gen_next continues a fragmented datagram. */
bool gen_in_datagram(const struct gen *g);
/* The flow that sent packet number n of a run, for tests of the distribution. */
unsigned gen_flow_count(const struct gen *g, unsigned flow);

/* ---- receiver ---- */

struct gen_rx;

struct gen_rx_totals {
	uint64_t frames;       /* every frame seen */
	uint64_t bytes;	       /* their bytes (without FCS) */
	uint64_t unsigned_;    /* frames without a signature (other traffic, later fragments) */
	uint64_t received;     /* signed packets, duplicates included */
	uint64_t duplicated;   /* a sequence number seen before (within the window) */
	uint64_t reordered;    /* arrived after a higher sequence number of its flow */
	uint64_t lost;	       /* sequence numbers below a flow's highest never seen */
	uint64_t unknown_flow; /* a flow index over the receiver's limit */
	unsigned flows_seen;
	uint64_t lat_p50_ns, lat_p99_ns, lat_max_ns; /* 0 when nothing was received */
};

/* A receiver for flow indexes below max_flows. NULL when out of memory. */
struct gen_rx *gen_rx_new(unsigned max_flows);
void gen_rx_free(struct gen_rx *rx);
/* Account one received frame (Ethernet, VLAN tags allowed; raw IP when eth is false). */
void gen_rx_frame(struct gen_rx *rx, const uint8_t *frame, size_t len, bool eth, uint64_t now_ns);
void gen_rx_totals(const struct gen_rx *rx, struct gen_rx_totals *t);

#endif
