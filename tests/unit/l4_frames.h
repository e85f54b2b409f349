/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Random frames for the tests that drive a fast path and the general one on the same packets
 * (test_nat_fast, test_ext_l4_info): Ethernet, IPv4 (maybe with options, maybe a first or a
 * later fragment) or IPv6 (maybe with hop-by-hop and destination options headers, maybe a
 * fragment header), TCP, UDP or ICMP (ICMPv6), random contents with the corners of 16-bit
 * values often, sometimes cut short inside the transport header.
 */
#ifndef TESTS_UNIT_L4_FRAMES_H
#define TESTS_UNIT_L4_FRAMES_H

#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pkt/pkt.h"

static uint64_t rng_state; /* seed it before use */

static inline uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static inline void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* A 16-bit value with the corners often: 0, 0xffff, 1, 0xfffe. */
static inline uint16_t val16(void)
{
	static const uint16_t corner[] = {0, 0xffff, 1, 0xfffe};

	return rnd() % 4 == 0 ? corner[rnd() % 4] : (uint16_t)rnd();
}

struct frame {
	uint8_t b[256];
	uint32_t len;
	int family;
	uint8_t proto;
};

/* Ethernet, IPv4 (maybe with options, maybe a fragment) or IPv6 (maybe with a hop-by-hop and
 * a destination options header, maybe a fragment header), TCP or UDP (sometimes another
 * protocol), random contents, sometimes cut short. */
static inline void make_frame(struct frame *f)
{
	uint8_t *ip = f->b + 14, *l4;
	uint32_t l3len, l4len, hl;
	uint8_t proto = rnd() % 8 == 0 ? IPPROTO_ICMP : (rnd() & 1 ? IPPROTO_TCP : IPPROTO_UDP);

	memset(f->b, 0, sizeof(f->b));
	for (unsigned i = 0; i < sizeof(f->b); i++)
		f->b[i] = (uint8_t)rnd();
	f->family = rnd() & 1 ? AF_INET : AF_INET6;
	if (proto == IPPROTO_ICMP && f->family == AF_INET6)
		proto = IPPROTO_ICMPV6;
	f->b[12] = f->family == AF_INET ? 0x08 : 0x86;
	f->b[13] = f->family == AF_INET ? 0x00 : 0xdd;
	l4len = proto == IPPROTO_TCP ? 20 + 4 * (rnd() % 3) : 8;
	l4len += rnd() % 24; /* payload */
	if (f->family == AF_INET) {
		hl = rnd() % 4 == 0 ? 24 : 20;
		ip[0] = (uint8_t)(0x40 | hl / 4);
		if (hl == 24)
			ip[20] = ip[21] = ip[22] = ip[23] = 1; /* NOPs */
		ip[6] = rnd() % 8 == 0 ? 0x20 : 0x40;	       /* MF (a first fragment) or DF */
		ip[7] = 0;
		if (rnd() % 16 == 0)
			ip[7] = 1; /* offset 8: a later fragment */
		ip[9] = proto;
		l3len = hl + l4len;
		put16(ip + 2, (uint16_t)l3len);
		/* a valid header checksum, or a random one (the parser is not asked to verify) */
		put16(ip + 10, 0);
		put16(ip + 10, rnd() & 1 ? pkt_csum_fold(pkt_csum_bytes(ip, hl, 0)) : val16());
	} else {
		uint8_t *nh = ip + 6;

		ip[0] = 0x60;
		hl = 40;
		if (rnd() % 3 == 0) { /* hop-by-hop, 8 bytes */
			*nh = 0;
			nh = ip + hl;
			ip[hl + 1] = 0;
			ip[hl + 2] = 1; /* PadN */
			ip[hl + 3] = 4;
			hl += 8;
		}
		if (rnd() % 4 == 0) { /* destination options, 16 bytes */
			*nh = 60;
			nh = ip + hl;
			ip[hl + 1] = 1;
			ip[hl + 2] = 1;
			ip[hl + 3] = 12;
			hl += 16;
		}
		if (rnd() % 8 == 0) { /* fragment header: first fragment or a later one */
			*nh = 44;
			nh = ip + hl;
			ip[hl + 1] = 0;
			put16(ip + hl + 2, rnd() % 2 ? 0x0001 : 0x0008);
			hl += 8;
		}
		*nh = proto;
		l3len = hl + l4len;
		put16(ip + 4, (uint16_t)(l3len - 40));
	}
	l4 = ip + hl;
	if (proto == IPPROTO_TCP)
		l4[12] = (uint8_t)(((l4len >= 28 ? 28 : 20) / 4) << 4 | (l4[12] & 0x0f));
	if (proto == IPPROTO_UDP)
		put16(l4 + 4, (uint16_t)l4len);
	if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) { /* the usual types often */
		static const uint8_t type[] = {0, 3, 8, 11, 128, 129, 1, 135};

		if (rnd() & 1)
			l4[0] = type[rnd() % 8];
		if (rnd() & 1)
			l4[1] = (uint8_t)(rnd() % 6);
	}
	put16(l4 + (proto == IPPROTO_TCP ? 16 : 6), rnd() % 4 == 0 ? 0 : val16());
	f->len = 14 + l3len;
	f->proto = proto;
	if (rnd() % 16 == 0) { /* cut short inside the transport header */
		f->len = 14 + hl + rnd() % 8;
		if (f->family == AF_INET)
			put16(ip + 2, (uint16_t)(f->len - 14));
		else
			put16(ip + 4, (uint16_t)(f->len - 14 - 40));
	}
}

/* The frame as a parsed packet, in one segment or cut every `chunk` bytes. */
static inline struct pkt *packet(const struct frame *f, uint32_t chunk)
{
	struct pkt *p =
	    chunk ? pkt_from_bytes_split(f->b, f->len, chunk) : pkt_from_bytes(f->b, f->len);

	assert_non_null(p);
	pkt_parse(p, PKT_LINK_ETHERNET, false);
	return p;
}

#endif
