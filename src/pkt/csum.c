// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checksums: the Internet checksum (RFC 1071) over segmented data, pseudo-headers, SCTP's
 * CRC32c (RFC 9260 appendix A) and incremental updates (RFC 1624).
 *
 * Pseudo-headers summed in front of TCP, UDP, UDP-Lite, DCCP and ICMPv6:
 *   IPv4: | src (4) | dst (4) | 0 | proto | length (2) |
 *   IPv6: | src (16) | dst (16) | length (4) | 0 0 0 | next header |
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/pkt.h"
#include "pkt/proto.h"

struct sum_state {
	uint64_t sum; /* folded block sums, in the CPU's byte order */
	uint32_t
	    pos; /* bytes summed so far: its parity says whether the next byte is high or low */
};

/*
 * The one's complement sum does not depend on byte order (RFC 1071 2(B)): the bytes are added
 * as the CPU loads them, eight at a time, and a folded sum is swapped into big-endian order
 * once. Nor on word width: 2^16 = 1 modulo 0xffff, so a sum of 64-bit words with the carry
 * out of bit 63 added back in (end-around carry) folds to the same 16 bits.
 */
static inline uint64_t add_ec(uint64_t s, uint64_t w)
{
	s += w;
	return s + (s < w);
}

static inline uint64_t load64(const uint8_t *d)
{
	uint64_t w;

	memcpy(&w, d, 8);
	return w;
}

/* Eight 64-bit words added to s with end-around carry: on x86-64 one add-with-carry chain (the
 * C form elsewhere, or built with -DPKT_CSUM_PORTABLE to test it). */
static inline uint64_t sum_64bytes(const uint8_t *d, uint64_t s)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(PKT_CSUM_PORTABLE)
	__asm__("addq 0(%[d]), %[s]\n\t"
		"adcq 8(%[d]), %[s]\n\t"
		"adcq 16(%[d]), %[s]\n\t"
		"adcq 24(%[d]), %[s]\n\t"
		"adcq 32(%[d]), %[s]\n\t"
		"adcq 40(%[d]), %[s]\n\t"
		"adcq 48(%[d]), %[s]\n\t"
		"adcq 56(%[d]), %[s]\n\t"
		"adcq $0, %[s]"
		: [s] "+r"(s)
		: [d] "r"(d), "m"(*(const uint8_t(*)[64])d)
		: "cc");
#else
	for (unsigned i = 0; i < 64; i += 8)
		s = add_ec(s, load64(d + i));
#endif
	return s;
}

/*
 * The len bytes at d as 16-bit words in the CPU's byte order, the first byte at an even
 * position (an odd last byte is the high byte of a big-endian word whose low byte is 0),
 * added to s. Not folded: 64 bytes a step, then the remainder by its bits, no loop.
 */
static inline uint64_t sum_native(const uint8_t *d, size_t len, uint64_t s)
{
	for (; len >= 64; d += 64, len -= 64)
		s = sum_64bytes(d, s);
	if (len & 32) {
		s = add_ec(s, load64(d));
		s = add_ec(s, load64(d + 8));
		s = add_ec(s, load64(d + 16));
		s = add_ec(s, load64(d + 24));
		d += 32;
	}
	if (len & 16) {
		s = add_ec(s, load64(d));
		s = add_ec(s, load64(d + 8));
		d += 16;
	}
	if (len & 8) {
		s = add_ec(s, load64(d));
		d += 8;
	}
	if (len & 4) {
		uint32_t w;

		memcpy(&w, d, 4);
		s = add_ec(s, w);
		d += 4;
	}
	if (len & 2) {
		uint16_t w;

		memcpy(&w, d, 2);
		s = add_ec(s, w);
		d += 2;
	}
	if (len & 1)
		s = add_ec(s, ntohs((uint16_t)(d[0] << 8)));
	return s;
}

/*
 * 64 bits folded to 16 with end-around carries: x plus x rotated by half its width carries the
 * sum of both halves, carry included, in its upper half.
 */
static inline uint16_t fold64(uint64_t s)
{
	uint32_t x;

	s += s >> 32 | s << 32;
	x = (uint32_t)(s >> 32);
	x += x >> 16 | x << 16;
	return (uint16_t)(x >> 16);
}

static inline uint16_t swap16(uint16_t v)
{
	return (uint16_t)(v << 8 | v >> 8);
}

/* A 16-bit sum in the CPU's byte order as the big-endian number it stands for. */
static inline uint16_t native_to_be(uint16_t v)
{
	return ntohs(v);
}

/*
 * The pseudo-header's sum in the CPU's byte order, without building it: the addresses as
 * loaded, the length and protocol as the big-endian 32-bit words of the IPv6 layout (for IPv4
 * the same 16-bit words, zero words aside: | 0 | proto | and | length |).
 */
static inline uint64_t pseudo_native(int family, const union pt_addr *src, const union pt_addr *dst,
				     uint8_t proto, uint32_t len)
{
	uint64_t s = (uint64_t)htonl(len) + htonl(proto);

	if (family == AF_INET6)
		return s + src->w[0] + src->w[1] + src->w[2] + src->w[3] + dst->w[0] + dst->w[1] +
		       dst->w[2] + dst->w[3];
	return s + src->w[0] + dst->w[0];
}

/*
 * One block of a segmented stream: summed as if it began at an even position, then, when it
 * begins at an odd one, byte-swapped (every byte of it is in the other half of its word).
 */
static void sum_block(struct sum_state *st, const uint8_t *d, uint32_t len)
{
	uint16_t f = fold64(sum_native(d, len, 0));

	if (st->pos & 1)
		f = swap16(f);
	st->pos += len;
	st->sum += f;
}

static int sum_cb(const uint8_t *d, uint32_t len, void *arg)
{
	sum_block(arg, d, len);
	return 0;
}

/* The native block sums as a big-endian sum, plus `sum`, folded to 32 bits with end-around
 * carries. */
static uint32_t sum_finish(const struct sum_state *st, uint32_t sum)
{
	uint64_t s = (uint64_t)native_to_be(fold64(st->sum)) + sum;

	return (uint32_t)s + (uint32_t)(s >> 32);
}

uint32_t pkt_csum_bytes(const void *data, size_t len, uint32_t sum)
{
	struct sum_state st = {fold64(sum_native(data, len, 0)), 0};

	return sum_finish(&st, sum);
}

uint32_t pkt_csum_partial(const struct pkt *p, uint32_t off, uint32_t len, uint32_t sum)
{
	struct sum_state st = {0, 0};

	if ((uint64_t)off + len > p->len)
		len = off < p->len ? p->len - off : 0;
	if (pkt_in_seg0(p, off, len))
		st.sum = fold64(sum_native(p->seg[0].data + off, len, 0));
	else if (len)
		pkt_for_each_block(p, off, len, sum_cb, &st);
	return sum_finish(&st, sum);
}

uint32_t pkt_csum_pseudo(int family, const union pt_addr *src, const union pt_addr *dst,
			 uint8_t proto, uint32_t len)
{
	return native_to_be(fold64(pseudo_native(family, src, dst, proto, len)));
}

/* CRC32c, reflected polynomial 0x82F63B78, four bits at a time. */
static const uint32_t crc32c_nibble[16] = {
    0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1, 0x417b1dbc, 0x5125dad3, 0x61c69362, 0x7198540d,
    0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9, 0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

static int crc_cb(const uint8_t *d, uint32_t len, void *arg)
{
	uint32_t *crc = arg, c = *crc, i;

	for (i = 0; i < len; i++) {
		c ^= d[i];
		c = (c >> 4) ^ crc32c_nibble[c & 15];
		c = (c >> 4) ^ crc32c_nibble[c & 15];
	}
	*crc = c;
	return 0;
}

uint32_t pkt_crc32c(const struct pkt *p, uint32_t off, uint32_t len)
{
	uint32_t crc = 0xffffffff;

	pkt_for_each_block(p, off, len, crc_cb, &crc);
	return ~crc;
}

/* The SCTP checksum of a parsed packet: CRC32c with the checksum field taken as zero. */
static uint32_t sctp_crc(const struct pkt *p)
{
	static const uint8_t zero[4];
	const struct pkt_info *in = &p->info;
	uint32_t crc = 0xffffffff;

	pkt_for_each_block(p, in->l4off, 8, crc_cb, &crc);
	crc_cb(zero, 4, &crc);
	pkt_for_each_block(p, in->l4off + 12, in->l4len - 12, crc_cb, &crc);
	return ~crc;
}

/*
 * How many transport bytes each protocol's checksum covers (where the checksum is and whether
 * it takes a pseudo-header: pkt/proto.h). -1 when the coverage field is invalid, -2 when the
 * packet carries no checksum.
 */
typedef long csum_cover_fn(const struct pkt *p);

static long cover_all(const struct pkt *p)
{
	return p->info.l4len;
}

static uint16_t read16(const struct pkt *p, uint32_t off)
{
	uint8_t b[2] = {0, 0};

	pkt_copy_out(p, off, b, 2);
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* UDP-Lite (RFC 3828): the length field is the checksum coverage, 0 meaning everything. */
static long cover_udplite(const struct pkt *p)
{
	uint16_t cov = read16(p, p->info.l4off + 4);

	if (cov == 0)
		return p->info.l4len;
	if (cov < 8 || cov > p->info.l4len)
		return -1;
	return cov;
}

/* DCCP (RFC 4340 9.2): CsCov 0 covers everything, else the header and (CsCov-1)*4 data bytes. */
static long cover_dccp(const struct pkt *p)
{
	uint8_t b[2] = {0, 0};
	uint32_t cov;

	pkt_copy_out(p, p->info.l4off + 4, b, 2);
	if ((b[1] & 15) == 0)
		return p->info.l4len;
	cov = (uint32_t)b[0] * 4 + ((uint32_t)(b[1] & 15) - 1) * 4;
	if (cov > p->info.l4len)
		return -1;
	return cov;
}

/* GRE carries a checksum only when its C bit is set. */
static long cover_gre(const struct pkt *p)
{
	return (read16(p, p->info.l4off) & 0x8000) ? (long)p->info.l4len : -2;
}

static csum_cover_fn *const csum_cover[256] = {
    [IPPROTO_TCP] = cover_all,	[IPPROTO_UDP] = cover_all,    [IPPROTO_UDPLITE] = cover_udplite,
    [IPPROTO_ICMP] = cover_all, [IPPROTO_ICMPV6] = cover_all, [IPPROTO_DCCP] = cover_dccp,
    [IPPROTO_GRE] = cover_gre,
};
/* The packet has a complete transport header whose checksum we can compute. */
static bool l4_checkable(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;

	return in->has_l4 && !in->is_fragment && (uint64_t)in->l4off + in->l4len <= p->len;
}

/*
 * The one's complement sum over the covered bytes with the checksum field left out, plus
 * the pseudo-header. -1 when the coverage is invalid, -2 when there is no checksum.
 */
static long l4_sum(const struct pkt *p, const struct pkt_proto *pr, csum_cover_fn *cover)
{
	const struct pkt_info *in = &p->info;
	long cov = cover(p);
	uint32_t sum = 0;

	if (cov < 0)
		return cov;
	if (cov < pr->csum_off + 2)
		return -1;
	if (pr->csum_pseudo)
		sum = pkt_csum_pseudo(in->family, &in->src, &in->dst, in->l4proto, in->l4len);
	sum = pkt_csum_partial(p, in->l4off, pr->csum_off, sum);
	sum = pkt_csum_partial(p, in->l4off + pr->csum_off + 2, (uint32_t)cov - pr->csum_off - 2,
			       sum);
	return (long)pkt_csum_fold(sum);
}

static void store16(struct pkt *p, uint32_t off, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	pkt_store(p, off, b, 2);
}

void pkt_ip_csum_update(struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint32_t sum;

	if (in->family != AF_INET || in->ihl < 20)
		return;
	store16(p, in->l3off + 10, 0);
	sum = pkt_csum_partial(p, in->l3off, in->ihl, 0);
	store16(p, in->l3off + 10, pkt_csum_fold(sum));
}

void pkt_l4_csum_update(struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	const struct pkt_proto *pr = pkt_proto(in->l4proto);
	csum_cover_fn *cover = csum_cover[in->l4proto];
	long c;

	if (!l4_checkable(p))
		return;
	if (in->l4proto == IPPROTO_SCTP) {
		uint32_t crc = sctp_crc(p);
		uint8_t b[4] = {(uint8_t)crc, (uint8_t)(crc >> 8), (uint8_t)(crc >> 16),
				(uint8_t)(crc >> 24)}; /* stored little-endian */

		pkt_store(p, in->l4off + 8, b, 4);
		return;
	}
	if (!cover)
		return;
	/* "no checksum" stays so; a partial checksum's field holds a sum, never "none" */
	if (pr->csum_none4 && in->family == AF_INET && !p->csum_partial &&
	    read16(p, in->l4off + pr->csum_off) == 0)
		return;
	c = l4_sum(p, pr, cover);
	if (c < 0)
		return;
	if (c == 0 && pr->csum_nonzero)
		c = 0xffff;
	store16(p, in->l4off + pr->csum_off, (uint16_t)c);
	p->csum_partial = false; /* complete now */
}

/*
 * The sum over pseudo-header (when the protocol has one) and the whole transport segment,
 * checksum field included, held in the packet's first buffer: one native pass. 0xffff when
 * the field is right (RFC 1071: 0 and 0xffff are the same number; the pseudo-header's nonzero
 * protocol keeps the total off 0), in either byte order.
 */
static inline bool flat_sum_ok(const struct pkt_info *in, const uint8_t *seg, bool pseudo)
{
	uint64_t s = 0;

	if (pseudo)
		s = pseudo_native(in->family, &in->src, &in->dst, in->l4proto, in->l4len);
	return fold64(sum_native(seg, in->l4len, s)) == 0xffff;
}

/*
 * pkt_l4_csum_ok for TCP and UDP, what conntrack's check meets on nearly every packet, without
 * the protocol tables: 1 right, 0 wrong, -1 not decided here (another protocol, a fragment, a
 * segment beyond the first buffer or too short for its checksum field).
 */
static inline int tcp_udp_flat_ok(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint32_t field;
	const uint8_t *seg;

	if (in->l4proto == IPPROTO_TCP)
		field = 16;
	else if (in->l4proto == IPPROTO_UDP)
		field = 6;
	else
		return -1;
	if (!in->has_l4 || in->is_fragment || in->l4len < field + 2 ||
	    (uint64_t)in->l4off + in->l4len > p->seg[0].len)
		return -1;
	seg = p->seg[0].data + in->l4off;
	if (field == 6 && seg[6] == 0 && seg[7] == 0)
		return in->family == AF_INET; /* no checksum: RFC 768 vs RFC 8200 8.1 */
	return flat_sum_ok(in, seg, true);
}

bool pkt_l4_csum_check(struct pkt *p)
{
	int r;

	if (p->l4_csum_verified)
		return true;
	r = tcp_udp_flat_ok(p);
	if (r < 0)
		r = pkt_l4_csum_ok(p);
	p->l4_csum_verified = r;
	return r;
}

/*
 * A protocol whose checksum covers the whole segment (TCP, UDP, ICMP, ICMPv6): the sum over
 * the pseudo-header and every byte, checksum field included, is 0xffff when the field is
 * right (RFC 1071: 0 and 0xffff are the same number). One pass.
 */
static bool whole_sum_ok(const struct pkt *p, const struct pkt_proto *pr)
{
	const struct pkt_info *in = &p->info;
	uint32_t sum = 0;

	if (in->l4len < pr->csum_off + 2u)
		return false;
	if (pr->csum_pseudo)
		sum = pkt_csum_pseudo(in->family, &in->src, &in->dst, in->l4proto, in->l4len);
	return pkt_csum_fold(pkt_csum_partial(p, in->l4off, in->l4len, sum)) == 0;
}

bool pkt_l4_csum_ok(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	const struct pkt_proto *pr = pkt_proto(in->l4proto);
	csum_cover_fn *cover = csum_cover[in->l4proto];
	uint16_t stored;
	long c;

	if (!l4_checkable(p))
		return false;
	if (in->l4proto == IPPROTO_SCTP) {
		uint8_t b[4];

		pkt_copy_out(p, in->l4off + 8, b, 4);
		return sctp_crc(p) == ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
				       (uint32_t)b[3] << 24);
	}
	if (!cover)
		return true; /* ESP, AH, unknown: nothing to check */
	if (cover == cover_all && in->l4len >= pr->csum_off + 2u &&
	    pkt_in_seg0(p, in->l4off, in->l4len)) {
		/* the whole segment in the first buffer: one native pass (flat_sum_ok) */
		const uint8_t *f = p->seg[0].data + in->l4off + pr->csum_off;

		if (pr->csum_none4 && f[0] == 0 && f[1] == 0)
			return in->family == AF_INET; /* RFC 768 vs RFC 8200 8.1 */
		return flat_sum_ok(in, p->seg[0].data + in->l4off, pr->csum_pseudo);
	}
	stored = read16(p, in->l4off + pr->csum_off);
	if (pr->csum_none4 && stored == 0)
		return in->family == AF_INET; /* RFC 768 vs RFC 8200 8.1 */
	if (cover == cover_all)
		return whole_sum_ok(p, pr);
	c = l4_sum(p, pr, cover);
	if (c == -2)
		return true;
	if (c < 0)
		return false;
	/* 0 and 0xffff are the same number in one's complement. */
	return stored == c || ((stored == 0 || stored == 0xffff) && (c == 0 || c == 0xffff));
}
