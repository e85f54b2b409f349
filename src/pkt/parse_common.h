/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkt_parse's common case, inline for the packet path (engine/path.c) and pkt_parse itself:
 * what nearly every forwarded frame is, parsed without a call. Everything else is
 * pkt_parse_general's (parse.c).
 */
#ifndef PKT_PARSE_COMMON_H
#define PKT_PARSE_COMMON_H

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/pkt.h"

/* pkt_parse without its common case: every frame pkt_parse_common does not take. */
int pkt_parse_general(struct pkt *p, enum pkt_link link, bool verify_csum);

/* Four bytes as one native-order word, and the word bytes a, b, c, d in memory read as. */
static inline uint32_t pkt_load32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PKT_NATIVE4(a, b, c, d)                                                                    \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#else
#define PKT_NATIVE4(a, b, c, d)                                                                    \
	((uint32_t)(d) | (uint32_t)(c) << 8 | (uint32_t)(b) << 16 | (uint32_t)(a) << 24)
#endif

/*
 * The end-around-carry sum of a 20-byte IPv4 header is all ones (its checksum is right).
 * Folding with end-around carry keeps a sum's remainder modulo 0xffff (2^16 = 1 there) and
 * gives 0 only for a zero sum, so the folded sum is all ones exactly when the plain sum of the
 * header's words is a nonzero multiple of 0xffff (a sum of the words in 16 bits, if folded to
 * the end, comes to 0xffff; folded part way, to any nonzero multiple of it). The words are read as
 * native-order 32-bit ones: a word's bytes swapped multiply its remainder by 256, which 0xffff and
 * 256 having no common factor keeps at zero or away from it (RFC 1071 2(B)).
 */
static inline bool pkt_ip4_hdr20_sum_ok(const uint8_t *h)
{
	uint64_t s = 0;
	uint32_t w;

	memcpy(&w, h, 4);
	s += w;
	memcpy(&w, h + 4, 4);
	s += w;
	memcpy(&w, h + 8, 4);
	s += w;
	memcpy(&w, h + 12, 4);
	s += w;
	memcpy(&w, h + 16, 4);
	s += w;
	/* s < 5 * 2^32: two folds keep the remainder and leave at most 0x1ffff, where the nonzero
	 * multiples of 0xffff are 0xffff and 0x1fffe */
	s = (s & 0xffffffffu) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff || s == 0x1fffe;
}

/*
 * *in cleared: nine 16-byte stores (a memset of this size is a string instruction, one step
 * per 8 bytes, and the compiler turns a loop of stores back into that memset).
 */
static inline void pkt_info_clear(struct pkt_info *in)
{
	typedef uint64_t zero16 __attribute__((vector_size(16), may_alias, aligned(1)));
	char *c = (char *)in;

	_Static_assert(sizeof(*in) == 9 * 16,
		       "pkt_info_clear clears 144 bytes: change it with pkt_info");
	*(zero16 *)(c + 0) = (zero16){0, 0};
	*(zero16 *)(c + 16) = (zero16){0, 0};
	*(zero16 *)(c + 32) = (zero16){0, 0};
	*(zero16 *)(c + 48) = (zero16){0, 0};
	*(zero16 *)(c + 64) = (zero16){0, 0};
	*(zero16 *)(c + 80) = (zero16){0, 0};
	*(zero16 *)(c + 96) = (zero16){0, 0};
	*(zero16 *)(c + 112) = (zero16){0, 0};
	*(zero16 *)(c + 128) = (zero16){0, 0};
}

/*
 * The transport header of a common-case frame at l4off (l4: its bytes; the first segment ends at
 * seg, the datagram at end): its length (UDP 8, TCP its data offset), or 0 when the general
 * parser must look (a TCP header not all in the first segment or the datagram, a data offset
 * below 20 or beyond the datagram). The caller knows UDP's 8 bytes are there.
 */
static inline __attribute__((always_inline)) uint32_t
pkt_common_l4hlen(const uint8_t *l4, uint8_t proto, uint32_t l4off, uint32_t seg, uint32_t end)
{
	uint32_t doff;

	if (proto != IPPROTO_TCP)
		return 8;
	if (l4off + 20 > seg || l4off + 20 > end)
		return 0;
	doff = (uint32_t)(l4[12] >> 4) * 4;
	if (doff < 20 || l4off + doff > end)
		return 0;
	return doff;
}

/* *in's transport fields for a common-case frame (hlen: pkt_common_l4hlen's), as parse_l4 and
 * parse_tcp fill them. */
static inline __attribute__((always_inline)) void pkt_common_l4_fill(struct pkt_info *in,
								     const uint8_t *l4,
								     uint8_t proto, uint32_t l4off,
								     uint32_t hlen)
{
	in->has_l4 = true;
	in->has_ports = true;
	in->sport = pkt_get16(l4);
	in->dport = pkt_get16(l4 + 2);
	if (proto == IPPROTO_TCP) {
		in->tcp_flags = l4[13];
		in->tcp_doff = (uint8_t)hlen;
	}
	in->payload_off = l4off + hlen;
}

/*
 * pkt_parse_common's IPv6 case: an untagged Ethernet frame with an IPv6 header whose next header
 * is TCP or UDP (no extension header), every header in the first segment and intact. Fills *in
 * exactly as the general parser does and returns 0; 1 for anything else.
 *
 *   | Ethernet (14) | IPv6 (40) | TCP (20 + options) or UDP (8) | ...
 */
static inline __attribute__((always_inline)) int pkt_parse_common6(const struct pkt *p,
								   struct pkt_info *in)
{
	const uint8_t *f = p->seg[0].data, *ip = f + 14, *l4 = f + 54;
	uint32_t seg = p->seg[0].len, plen, hlen;
	uint8_t nh;

	/* type 0x86dd, version 6 */
	if (seg < 14 + 40 + 8 || (pkt_load32(f + 12) & PKT_NATIVE4(0xff, 0xff, 0xf0, 0)) !=
				     PKT_NATIVE4(0x86, 0xdd, 0x60, 0))
		return 1;
	nh = ip[6];
	plen = pkt_get16(ip + 4);
	if ((nh != IPPROTO_TCP && nh != IPPROTO_UDP) || 54 + plen > p->len || plen < 8)
		return 1;
	hlen = pkt_common_l4hlen(l4, nh, 54, seg, 54 + plen);
	if (!hlen)
		return 1;
	pkt_info_clear(in);
	in->vlan = 0xffff;
	in->l2proto = 0x86dd; /* ETH_P_IPV6 */
	in->family = AF_INET6;
	in->l3off = 14;
	in->tos = (uint8_t)((ip[0] & 15) << 4 | ip[1] >> 4);
	in->ttl = ip[7];
	memcpy(in->src.b, ip + 8, 16);
	memcpy(in->dst.b, ip + 24, 16);
	in->l3len = 40 + plen;
	in->ip6_exthdrs = PKT_EH_PROTO;
	in->l4proto = nh;
	in->l4off = 54;
	in->l4len = plen;
	pkt_common_l4_fill(in, l4, nh, 54, hlen);
	return 0;
}

/*
 * An untagged Ethernet frame with an IPv4 header of 20 bytes, not a fragment, carrying TCP or
 * UDP, every header in the first segment and intact: what nearly every forwarded packet is (or
 * pkt_parse_common6's IPv6 frame). Fills *in exactly as the general parser does and returns 0; 1
 * for anything else (the general parser then starts again, and says what is wrong when something
 * is).
 *
 *   | Ethernet (14) | IPv4 (20) | TCP (20 + options) or UDP (8) | ...
 */
static inline __attribute__((always_inline)) int
pkt_parse_common(const struct pkt *p, struct pkt_info *in, bool verify_csum)
{
	const uint8_t *f = p->seg[0].data, *ip, *l4;
	uint32_t seg = p->seg[0].len, tot, end, hlen;
	uint8_t proto;

	/* type 0x0800, version 4 and a 20-byte header; MF and the fragment offset zero */
	if (seg < 14 + 20 + 8 ||
	    (pkt_load32(f + 12) & PKT_NATIVE4(0xff, 0xff, 0xff, 0)) !=
		PKT_NATIVE4(0x08, 0, 0x45, 0) ||
	    pkt_load32(f + 14 + 6) & PKT_NATIVE4(0x3f, 0xff, 0, 0))
		return pkt_parse_common6(p, in);
	ip = f + 14;
	l4 = ip + 20;
	proto = ip[9];
	tot = pkt_get16(ip + 2);
	end = 14 + tot;
	if ((proto != IPPROTO_TCP && proto != IPPROTO_UDP) || end > p->len || tot < 20 + 8)
		return 1;
	hlen = pkt_common_l4hlen(l4, proto, 34, seg, end);
	if (!hlen)
		return 1;
	if (verify_csum && !pkt_ip4_hdr20_sum_ok(ip))
		return 1;
	pkt_info_clear(in);
	in->vlan = 0xffff;
	in->l2proto = 0x0800; /* ETH_P_IP */
	in->family = AF_INET;
	in->l3off = 14;
	in->tos = ip[1];
	in->ttl = ip[8];
	in->l4proto = proto;
	memcpy(in->src.b, ip + 12, 4);
	memcpy(in->dst.b, ip + 16, 4);
	in->frag_id = pkt_get16(ip + 4);
	in->dont_frag = ip[6] & 0x40;
	in->ihl = 20;
	in->l3len = tot;
	in->l4off = 34;
	in->l4len = tot - 20;
	pkt_common_l4_fill(in, l4, proto, 34, hlen);
	return 0;
}

/* pkt_parse, its common case inline. */
static inline __attribute__((always_inline)) int pkt_parse_inline(struct pkt *p, enum pkt_link link,
								  bool verify_csum)
{
	if (link == PKT_LINK_ETHERNET && p->nsegs &&
	    pkt_parse_common(p, &p->info, verify_csum) == 0)
		return 0;
	return pkt_parse_general(p, link, verify_csum);
}

#endif
