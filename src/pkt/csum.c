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
	uint64_t sum;
	uint32_t
	    pos; /* bytes summed so far: its parity says whether the next byte is high or low */
};

/*
 * The bytes as big-endian 16-bit words, summed eight bytes at a time: the one's complement sum does
 * not depend on byte order (RFC 1071 2(B)), so the words are added as the CPU loads them and
 * the folded result is swapped into big-endian order once. A block that starts at an odd
 * position of the stream completes, with its first byte, the word the previous block began.
 */
static uint16_t fold64(uint64_t s)
{
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void sum_block(struct sum_state *st, const uint8_t *d, uint32_t len)
{
	uint64_t s = 0;
	uint32_t i = 0;
	uint16_t folded;

	st->pos += len;
	if ((st->pos - len) & 1) {
		if (!len)
			return;
		st->sum += d[0];
		i = 1;
	}
	/* 64-bit words with end-around carry (2^16 = 1 modulo 0xffff, so a one's complement sum
	 * of wider words folds to the same 16 bits), 32 bytes per step */
	for (; i + 32 <= len; i += 32) {
		uint64_t w0, w1, w2, w3;

		memcpy(&w0, d + i, 8);
		memcpy(&w1, d + i + 8, 8);
		memcpy(&w2, d + i + 16, 8);
		memcpy(&w3, d + i + 24, 8);
		s += w0;
		s += s < w0;
		s += w1;
		s += s < w1;
		s += w2;
		s += s < w2;
		s += w3;
		s += s < w3;
	}
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, d + i, 8);
		s += w;
		s += s < w;
	}
	for (; i + 2 <= len; i += 2) {
		uint16_t h;

		memcpy(&h, d + i, 2);
		s += h;
		s += s < h;
	}
	folded = fold64(s);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	folded = (uint16_t)(folded << 8 | folded >> 8);
#endif
	st->sum += folded;
	if (i < len)
		st->sum += (uint32_t)d[i] << 8;
}

static int sum_cb(const uint8_t *d, uint32_t len, void *arg)
{
	sum_block(arg, d, len);
	return 0;
}

/* Fold 64 bits to 32 with end-around carries, then add `sum` the same way. */
static uint32_t sum_finish(uint64_t s, uint32_t sum)
{
	s += sum;
	while (s >> 32)
		s = (s & 0xffffffff) + (s >> 32);
	return (uint32_t)s;
}

uint32_t pkt_csum_bytes(const void *data, size_t len, uint32_t sum)
{
	struct sum_state st = {0, 0};

	sum_block(&st, data, (uint32_t)len);
	return sum_finish(st.sum, sum);
}

uint32_t pkt_csum_partial(const struct pkt *p, uint32_t off, uint32_t len, uint32_t sum)
{
	struct sum_state st = {0, 0};

	if ((uint64_t)off + len > p->len)
		len = off < p->len ? p->len - off : 0;
	if (pkt_in_seg0(p, off, len))
		sum_block(&st, p->seg[0].data + off, len);
	else if (len)
		pkt_for_each_block(p, off, len, sum_cb, &st);
	return sum_finish(st.sum, sum);
}

uint32_t pkt_csum_pseudo(int family, const union pt_addr *src, const union pt_addr *dst,
			 uint8_t proto, uint32_t len)
{
	unsigned words = family == AF_INET6 ? 16 : 4;
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < words; i += 2) {
		s += (uint32_t)src->b[i] << 8 | src->b[i + 1];
		s += (uint32_t)dst->b[i] << 8 | dst->b[i + 1];
	}
	s += proto;
	s += len >> 16;
	s += len & 0xffff;
	return sum_finish(s, 0);
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

bool pkt_l4_csum_check(struct pkt *p)
{
	if (!p->l4_csum_verified)
		p->l4_csum_verified = pkt_l4_csum_ok(p);
	return p->l4_csum_verified;
}

/*
 * The sum of the len bytes at d, the first at an even position of the summed stream, added
 * to s as 32-bit native words (a 64-bit total cannot overflow below 2^32 words, so no carry is
 * tested); the tail by 2 and 1 bytes. Not folded and not swapped: the caller compares only the
 * folded total with 0xffff, which reads the same in either byte order.
 */
static uint64_t sum_native(const uint8_t *d, uint32_t len, uint64_t s)
{
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, d + i, 8);
		s += (uint32_t)w;
		s += w >> 32;
	}
	if (len - i >= 4) {
		uint32_t w;

		memcpy(&w, d + i, 4);
		s += w;
		i += 4;
	}
	if (len - i >= 2) {
		uint16_t w;

		memcpy(&w, d + i, 2);
		s += w;
		i += 2;
	}
	if (i < len) /* the high byte of a big-endian word whose low byte is 0 */
		s += htons((uint16_t)(d[i] << 8));
	return s;
}

/*
 * whole_sum_ok for a transport segment in the first segment of the packet, under 64 KiB
 * (every packet the data path sees whole): the pseudo-header's addresses as loaded, its
 * protocol and length as the big-endian words they are, and the segment, in one native sum.
 */
static bool whole_sum_ok_flat(const struct pkt *p, const struct pkt_proto *pr)
{
	const struct pkt_info *in = &p->info;
	uint64_t s = 0;

	if (pr->csum_pseudo) {
		if (in->family == AF_INET6)
			for (unsigned i = 0; i < 4; i++)
				s += (uint64_t)in->src.w[i] + in->dst.w[i];
		else
			s = (uint64_t)in->src.w[0] + in->dst.w[0];
		s += htons(in->l4proto);
		s += htons((uint16_t)in->l4len);
	}
	s = sum_native(p->seg[0].data + in->l4off, in->l4len, s);
	return fold64(s) == 0xffff;
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
	if (cover == cover_all && in->l4len >= pr->csum_off + 2u && in->l4len <= 0xffff &&
	    pkt_in_seg0(p, in->l4off, in->l4len)) {
		/* the whole segment in the first buffer: one native pass (whole_sum_ok_flat) */
		const uint8_t *f = p->seg[0].data + in->l4off + pr->csum_off;

		if (pr->csum_none4 && f[0] == 0 && f[1] == 0)
			return in->family == AF_INET; /* RFC 768 vs RFC 8200 8.1 */
		return whole_sum_ok_flat(p, pr);
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
