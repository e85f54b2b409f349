// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Checksums: known answers (computed offline with an independent Python implementation of
 * RFC 1071 and CRC32c), equality across segment layouts, and RFC 1624 incremental updates
 * against a full recompute.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "pkt/pkt.h"

/* tcp4: checksum 0x4d92 */
static const uint8_t tcp4[] = {
    0x45, 0x00, 0x00, 0x2c, 0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x43, 0x3e, 0xc0, 0xa8, 0x01,
    0x0a, 0x5d, 0xb8, 0xd8, 0x22, 0x9c, 0x40, 0x00, 0x50, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00,
    0x00, 0x00, 0x60, 0x02, 0x72, 0x10, 0x4d, 0x92, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4,
};
/* udp6: checksum 0x4b6f */
static const uint8_t udp6[] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x14, 0xe9,
    0x00, 0x35, 0x00, 0x0d, 0x4b, 0x6f, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
};
/* icmp4: checksum 0x5435 */
static const uint8_t icmp4[] = {
    0x45, 0x00, 0x00, 0x24, 0x00, 0x01, 0x40, 0x00, 0x40, 0x01, 0x26, 0xd6,
    0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0x08, 0x00, 0x54, 0x35,
    0x12, 0x34, 0x00, 0x01, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
};
/* icmp6: checksum 0x8faa */
static const uint8_t icmp6[] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x3a, 0x40, 0xfe, 0x80, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x80, 0x00, 0x8f, 0xaa, 0x00, 0x07, 0x00, 0x09, 0x78, 0x79, 0x7a,
};
/* sctp4: crc32c 0xdbe7a1fb */
static const uint8_t sctp4[] = {
    0x45, 0x00, 0x00, 0x34, 0x00, 0x01, 0x40, 0x00, 0x40, 0x84, 0x23, 0x40, 0x0a,
    0x01, 0x01, 0x01, 0x0a, 0x02, 0x02, 0x02, 0x13, 0x88, 0x17, 0x70, 0x00, 0x00,
    0x00, 0x00, 0xfb, 0xa1, 0xe7, 0xdb, 0x01, 0x00, 0x00, 0x14, 0xde, 0xad, 0xbe,
    0xef, 0x00, 0x00, 0xff, 0xff, 0x00, 0x0a, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x01,
};

/* The IPv4 header example of RFC 1071 style walkthroughs (checksum field zeroed): 0xb861. */
static const uint8_t ip_hdr_zero_csum[] = {
    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
    0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

struct vector {
	const char *name;
	const uint8_t *bytes;
	uint32_t len;
	uint32_t field; /* offset of the checksum from the transport header */
	uint32_t csum;
};

static const struct vector vectors[] = {
    {"tcp4", tcp4, sizeof(tcp4), 16, 0x4d92},	    {"udp6", udp6, sizeof(udp6), 6, 0x4b6f},
    {"icmp4", icmp4, sizeof(icmp4), 2, 0x5435},	    {"icmp6", icmp6, sizeof(icmp6), 2, 0x8faa},
    {"sctp4", sctp4, sizeof(sctp4), 8, 0xdbe7a1fb},
};

static uint16_t rd16(const struct pkt *p, uint32_t off)
{
	uint8_t b[2];

	assert_int_equal(pkt_copy_out(p, off, b, 2), 0);
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void wr16(struct pkt *p, uint32_t off, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	assert_int_equal(pkt_store(p, off, b, 2), 0);
}

static void test_ip_header_known_answer(void **state)
{
	uint32_t chunk;

	(void)state;
	assert_int_equal(pkt_csum_fold(pkt_csum_bytes(ip_hdr_zero_csum, 20, 0)), 0xb861);
	for (chunk = 1; chunk <= 7; chunk++) {
		struct pkt *p = pkt_from_bytes_split(ip_hdr_zero_csum, 20, chunk);

		assert_non_null(p);
		assert_int_equal(pkt_csum_fold(pkt_csum_partial(p, 0, 20, 0)), 0xb861);
		pkt_free(p);
	}
}

static void test_crc32c_known_answers(void **state)
{
	uint8_t zeros[32], ones[32];
	struct pkt *p;

	(void)state;
	memset(zeros, 0, sizeof(zeros));
	memset(ones, 0xff, sizeof(ones));
	p = pkt_from_bytes_split("123456789", 9, 2);
	assert_int_equal(pkt_crc32c(p, 0, 9), 0xe3069283);
	pkt_free(p);
	/* RFC 3720 B.4 */
	p = pkt_from_bytes_split(zeros, 32, 5);
	assert_int_equal(pkt_crc32c(p, 0, 32), 0x8a9136aa);
	pkt_free(p);
	p = pkt_from_bytes(ones, 32);
	assert_int_equal(pkt_crc32c(p, 0, 32), 0x62a8ab43);
	pkt_free(p);
}

/* Each vector verifies, recomputes to the known value in every segment layout, and a flipped
 * payload bit is caught. */
static void test_l4_known_answers(void **state)
{
	size_t i;
	uint32_t chunk;

	(void)state;
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];

		for (chunk = 1; chunk <= 8; chunk++) {
			struct pkt *p = pkt_from_bytes_split(v->bytes, v->len, chunk);
			uint8_t zero[4] = {0}, b;
			uint32_t f;

			assert_non_null(p);
			assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
			assert_true(pkt_l4_csum_ok(p));
			f = p->info.l4off + v->field;
			assert_int_equal(pkt_store(p, f, zero, v->field == 8 ? 4 : 2), 0);
			assert_false(pkt_l4_csum_ok(p));
			pkt_l4_csum_update(p);
			if (v->field == 8) {
				uint8_t c[4];

				pkt_copy_out(p, f, c, 4);
				assert_int_equal((uint32_t)c[0] | (uint32_t)c[1] << 8 |
						     (uint32_t)c[2] << 16 | (uint32_t)c[3] << 24,
						 v->csum);
			} else {
				assert_int_equal(rd16(p, f), v->csum);
			}
			assert_true(pkt_l4_csum_ok(p));
			/* flip one bit of the last byte */
			pkt_copy_out(p, p->len - 1, &b, 1);
			b ^= 0x01;
			pkt_store(p, p->len - 1, &b, 1);
			assert_false(pkt_l4_csum_ok(p));
			pkt_free(p);
		}
	}
}

/* Sums starting at odd offsets and across odd-length segments equal the flat sum. */
static void test_partial_odd_offsets(void **state)
{
	uint32_t off, len, chunk;

	(void)state;
	for (chunk = 1; chunk <= 7; chunk++) {
		struct pkt *p = pkt_from_bytes_split(tcp4, sizeof(tcp4), chunk);

		for (off = 0; off < sizeof(tcp4); off++)
			for (len = 0; off + len <= sizeof(tcp4); len += 3)
				assert_int_equal(pkt_csum_fold(pkt_csum_partial(p, off, len, 0)),
						 pkt_csum_fold(pkt_csum_bytes(tcp4 + off, len, 0)));
		pkt_free(p);
	}
}

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
	rng_state = rng_state * 1103515245 + 12345;
	return rng_state >> 1 ^ rng_state << 7;
}

/* RFC 1071 as written: big-endian 16-bit words, one at a time, folded and complemented. */
static uint16_t csum_reference(const uint8_t *d, uint32_t len)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < len; i += 2)
		s += (uint32_t)d[i] << 8 | (i + 1 < len ? d[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* The eight-bytes-at-a-time sum equals the reference on random data, all-zero and all-one
 * bytes, every length to 300, from odd and even offsets, flat and split into odd segments. */
static void test_sum_equals_reference(void **state)
{
	uint8_t data[320];

	(void)state;
	for (int pattern = 0; pattern < 3; pattern++) {
		for (uint32_t i = 0; i < sizeof(data); i++)
			data[i] = pattern == 0 ? (uint8_t)rng() : pattern == 1 ? 0 : 0xff;
		for (uint32_t len = 0; len <= 300; len++) {
			uint32_t off = rng() % 16;
			struct pkt *p = pkt_from_bytes_split(data, len + off, 1 + rng() % 13);

			assert_non_null(p);
			assert_int_equal(pkt_csum_fold(pkt_csum_bytes(data + off, len, 0)),
					 csum_reference(data + off, len));
			assert_int_equal(pkt_csum_fold(pkt_csum_partial(p, off, len, 0)),
					 csum_reference(data + off, len));
			pkt_free(p);
		}
	}
}

/* SNAT-style rewrite of the IPv4 source and the TCP source port: the incremental result must
 * equal the checksums recomputed from scratch. */
static void test_incremental_v4_equals_full(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		struct pkt *p = pkt_from_bytes(tcp4, sizeof(tcp4));
		uint32_t oldaddr, newaddr = rng();
		uint16_t oldport, newport = (uint16_t)rng(), ipc, tcpc, full_ip, full_tcp;
		uint8_t a[4];

		pkt_parse(p, PKT_LINK_RAW, true);
		pkt_copy_out(p, 12, a, 4);
		oldaddr = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		oldport = rd16(p, 20);
		ipc = pkt_csum_replace4(rd16(p, 10), oldaddr, newaddr);
		tcpc = pkt_csum_replace4(rd16(p, 36), oldaddr, newaddr);
		tcpc = pkt_csum_replace2(tcpc, oldport, newport);
		wr16(p, 12, (uint16_t)(newaddr >> 16));
		wr16(p, 14, (uint16_t)newaddr);
		wr16(p, 20, newport);
		pkt_parse(p, PKT_LINK_RAW, false);
		pkt_ip_csum_update(p);
		pkt_l4_csum_update(p);
		full_ip = rd16(p, 10);
		full_tcp = rd16(p, 36);
		assert_int_equal(ipc, full_ip);
		assert_int_equal(tcpc, full_tcp);
		assert_true(pkt_l4_csum_ok(p));
		pkt_free(p);
	}
}

static void test_incremental_v6_equals_full(void **state)
{
	int i, j;

	(void)state;
	for (i = 0; i < 500; i++) {
		struct pkt *p = pkt_from_bytes(udp6, sizeof(udp6));
		union pt_addr oldaddr, newaddr;
		uint16_t c;

		pkt_parse(p, PKT_LINK_RAW, false);
		oldaddr = p->info.dst;
		for (j = 0; j < 16; j++)
			newaddr.b[j] = (uint8_t)rng();
		c = pkt_csum_replace16(rd16(p, 46), &oldaddr, &newaddr);
		pkt_store(p, 24, newaddr.b, 16);
		pkt_parse(p, PKT_LINK_RAW, false);
		assert_int_not_equal(c, 0); /* UDP never carries a computed 0 */
		pkt_l4_csum_update(p);
		assert_int_equal(c, rd16(p, 46));
		pkt_free(p);
	}
}

/*
 * The one-pass check (checksum field summed in) against the checksum the field-skipping sum
 * computes, for every vector with every single bit of its transport bytes flipped; and
 * pkt_l4_csum_check: a verified flag is trusted as the kernel trusts CHECKSUM_UNNECESSARY, a
 * software check that passes is remembered, one that fails is not.
 */
static void test_csum_check_one_pass_and_flag(void **state)
{
	(void)state;
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		struct pkt *p = pkt_from_bytes(vectors[v].bytes, vectors[v].len);
		uint32_t l4;

		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
		l4 = p->info.l4off;
		assert_true(pkt_l4_csum_ok(p));
		assert_false(p->l4_csum_verified);
		assert_true(pkt_l4_csum_check(p));
		assert_true(p->l4_csum_verified);
		for (uint32_t bit = 0; bit < (vectors[v].len - l4) * 8; bit++) {
			uint8_t b, have[4], want[4];
			struct pkt *c = pkt_from_bytes(vectors[v].bytes, vectors[v].len);
			struct pkt *fixed;

			pkt_copy_out(c, l4 + bit / 8, &b, 1);
			b ^= (uint8_t)(1u << (bit % 8));
			pkt_store(c, l4 + bit / 8, &b, 1);
			if (pkt_parse(c, PKT_LINK_RAW, false)) { /* a header field broke */
				pkt_free(c);
				continue;
			}
			fixed = pkt_clone(c);
			pkt_l4_csum_update(fixed); /* the right checksum for the flipped bytes */
			/* the field as it is against the right one (SCTP: 4 bytes of CRC32c) */
			pkt_copy_out(c, l4 + vectors[v].field, have, 4);
			pkt_copy_out(fixed, l4 + vectors[v].field, want, 4);
			assert_int_equal(pkt_l4_csum_ok(c),
					 !memcmp(have, want, vectors[v].field == 8 ? 4 : 2));
			assert_false(pkt_l4_csum_ok(c)); /* one bit: always caught */
			assert_false(pkt_l4_csum_check(c));
			assert_false(c->l4_csum_verified);
			c->l4_csum_verified = true; /* the kernel said so: trusted */
			assert_true(pkt_l4_csum_check(c));
			pkt_free(fixed);
			pkt_free(c);
		}
		pkt_free(p);
	}
}

/*
 * Over random bytes: the IP header (IPv4 without options, or IPv6 without extension headers)
 * of a datagram with an l4len-byte transport segment, and the transport fields the parse
 * reads: TCP's data offset (20 bytes), UDP's length. The rest stays as it was.
 */
static void put_headers(uint8_t *buf, int v6, uint8_t proto, uint32_t l4len)
{
	uint32_t l3 = v6 ? 40 : 20, len = l3 + l4len;

	if (v6) {
		buf[0] = 0x60;
		buf[4] = (uint8_t)(l4len >> 8);
		buf[5] = (uint8_t)l4len;
		buf[6] = proto;
		buf[7] = 64;
	} else {
		memset(buf, 0, 12);
		buf[0] = 0x45;
		buf[2] = (uint8_t)(len >> 8);
		buf[3] = (uint8_t)len;
		buf[8] = 64;
		buf[9] = proto;
	}
	if (proto == 6)
		buf[l3 + 12] = 5 << 4; /* data offset 20 */
	if (proto == 17) {
		buf[l3 + 4] = (uint8_t)(l4len >> 8);
		buf[l3 + 5] = (uint8_t)l4len;
	}
}

/*
 * The check of a transport segment held in the packet's first segment (one native sum,
 * flat_sum_ok) against the same bytes split into segments of 1 to 13 bytes (the
 * segment walk) and against RFC 1071 byte by byte over pseudo-header and segment: TCP, UDP,
 * ICMP over IPv4 and IPv6 (ICMPv6), every payload length 0 to 80, checksum field right,
 * off by one bit, random, 0 and 0xffff; payloads random, all zero and all ones.
 */
static void test_flat_check_equals_split(void **state)
{
	static const uint8_t protos[2][3] = {{6, 17, 1}, {6, 17, 58}};
	static const uint8_t hdrlen[256] = {[6] = 20, [17] = 8, [1] = 8, [58] = 8};
	static const uint8_t field[256] = {[6] = 16, [17] = 6, [1] = 2, [58] = 2};
	uint8_t buf[40 + 20 + 80], ref[40 + 20 + 80];
	unsigned checked = 0, good = 0;

	(void)state;
	for (int v6 = 0; v6 < 2; v6++)
		for (int k = 0; k < 3; k++)
			for (uint32_t plen = 0; plen <= 80; plen++)
				for (int how = 0; how < 6; how++) {
					uint8_t proto = protos[v6][k];
					uint32_t l3 = v6 ? 40 : 20, l4len = hdrlen[proto] + plen;
					uint32_t len = l3 + l4len, rl = 0, c;
					uint8_t fill = (uint8_t)(how == 4   ? 0
								 : how == 5 ? 0xff
									    : 1);
					struct pkt *flat, *split;
					bool ok;

					for (uint32_t i = 0; i < len; i++)
						buf[i] = fill == 1 ? (uint8_t)rng() : fill;
					put_headers(buf, v6, proto, l4len);
					flat = pkt_from_bytes(buf, len);
					assert_non_null(flat);
					if (pkt_parse(flat, PKT_LINK_RAW, false) ||
					    !flat->info.has_l4) {
						pkt_free(flat);
						continue;
					}
					if (how <= 1) { /* the right checksum, or one bit off */
						pkt_l4_csum_update(flat);
						if (how == 1)
							buf[l3 + field[proto] + rng() % 2] ^=
							    (uint8_t)(1u << rng() % 8);
						else
							pkt_copy_out(flat, l3 + field[proto],
								     buf + l3 + field[proto], 2);
					} else if (how == 3) {
						buf[l3 + field[proto]] =
						    buf[l3 + field[proto] + 1] =
							rng() % 2 ? 0xff : 0;
					}
					pkt_free(flat);
					flat = pkt_from_bytes(buf, len);
					split = pkt_from_bytes_split(buf, len, 1 + rng() % 13);
					assert_int_equal(pkt_parse(flat, PKT_LINK_RAW, false), 0);
					assert_int_equal(pkt_parse(split, PKT_LINK_RAW, false), 0);
					/* the reference: pseudo-header (if any), then the segment
					 */
					if (proto != 1) {
						uint32_t alen = v6 ? 16 : 4, so = v6 ? 8 : 12;

						memcpy(ref, buf + so, 2 * alen);
						rl = 2 * alen;
						memset(ref + rl, 0, 4);
						ref[rl + 1] = (uint8_t)(l4len >> 16);
						ref[rl + 2] = (uint8_t)(l4len >> 8);
						ref[rl + 3] = (uint8_t)l4len;
						ref[rl + 4] = 0;
						ref[rl + 5] = 0;
						ref[rl + 6] = 0;
						ref[rl + 7] = proto;
						rl += 8;
					}
					memcpy(ref + rl, buf + l3, l4len);
					rl += l4len;
					c = (uint32_t)buf[l3 + field[proto]] << 8 |
					    buf[l3 + field[proto] + 1];
					ok = csum_reference(ref, rl) == 0;
					if (proto == 17 && !v6 && c == 0)
						ok = true; /* no checksum (RFC 768) */
					assert_int_equal(pkt_l4_csum_ok(flat), ok);
					assert_int_equal(pkt_l4_csum_ok(split), ok);
					checked++;
					good += ok;
					pkt_free(flat);
					pkt_free(split);
				}
	assert_true(checked > 2500);
	assert_true(good > 400 && good < checked - 400); /* both answers were asked for */
}

/* RFC 1071 as written, not complemented: the folded 16-bit sum of len bytes plus `start`. */
static uint16_t sum_reference(const uint8_t *d, uint32_t len, uint32_t start)
{
	uint64_t s = start;

	for (uint32_t i = 0; i < len; i += 2)
		s += (uint32_t)d[i] << 8 | (i + 1 < len ? d[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Up to PKT_MAX_SEGS - 1 random ascending cuts strictly inside (0, len); how many. */
static unsigned random_cuts(uint32_t len, uint32_t *cuts)
{
	unsigned want = rng() % PKT_MAX_SEGS, n = 0;

	for (unsigned i = 0; i < want && len > 1; i++) {
		uint32_t c = 1 + rng() % (len - 1);
		unsigned j = n;

		while (j > 0 && cuts[j - 1] > c)
			j--;
		if (j > 0 && cuts[j - 1] == c)
			continue;
		memmove(cuts + j + 1, cuts + j, (n - j) * sizeof(*cuts));
		cuts[j] = c;
		n++;
	}
	return n;
}

/*
 * The sum (pkt_csum_bytes, pkt_csum_partial) against the plain 16-bit reference on lengths 0 to
 * 2000: random bytes, all zeros, all ones and runs that make the 64-bit sum carry; from every
 * alignment 0..15 of the buffer; starting sums 0, random and 0xffffffff; as one buffer and cut
 * at up to 15 random places (odd and even segment boundaries, one-byte segments).
 */
static void test_sum_long_random_cuts(void **state)
{
	static uint8_t data[2000 + 16];
	uint32_t cuts[PKT_MAX_SEGS];
	unsigned runs = 0;

	(void)state;
	for (int pattern = 0; pattern < 4; pattern++) {
		for (uint32_t i = 0; i < sizeof(data); i++)
			data[i] = pattern == 0	 ? (uint8_t)rng()
				  : pattern == 1 ? 0
				  : pattern == 2 ? 0xff
						 : (uint8_t)(rng() % 8 ? 0xff : rng());
		for (uint32_t len = 0; len <= 2000; len += pattern == 0 ? 1 : 7) {
			uint32_t off = rng() % 16, total = off + len;
			uint32_t start = rng() % 3 == 0 ? 0 : rng() % 2 ? rng() : 0xffffffffu;
			uint16_t want = sum_reference(data + off, len, start);
			unsigned n = random_cuts(total, cuts);
			struct pkt *p = pkt_from_bytes_cuts(data, total, cuts, n);

			assert_non_null(p);
			assert_int_equal(pkt_csum_fold(pkt_csum_bytes(data + off, len, start)),
					 (uint16_t)~want);
			assert_int_equal(pkt_csum_fold(pkt_csum_partial(p, off, len, start)),
					 (uint16_t)~want);
			/* a part of it, from an odd and an even place */
			if (len > 2) {
				uint32_t o2 = off + rng() % (len - 1),
					 l2 = rng() % (total - o2 + 1);

				assert_int_equal(pkt_csum_fold(pkt_csum_partial(p, o2, l2, 0)),
						 (uint16_t)~sum_reference(data + o2, l2, 0));
			}
			pkt_free(p);
			runs++;
		}
	}
	assert_true(runs > 2800);
}

/* The pseudo-header summed in place equals the sum of the bytes of RFC 793 / RFC 8200 8.1's
 * layout: random addresses, protocols and lengths (IPv6 to 2^32 - 1). */
static void test_pseudo_equals_layout(void **state)
{
	(void)state;
	for (int i = 0; i < 20000; i++) {
		int v6 = i & 1;
		union pt_addr src, dst;
		uint8_t ref[40];
		uint32_t alen = v6 ? 16 : 4, len = v6 ? rng() : rng() % 0x10000, rl;
		uint8_t proto = (uint8_t)rng();

		memset(&src, 0, sizeof(src));
		memset(&dst, 0, sizeof(dst));
		for (uint32_t k = 0; k < alen; k++) {
			src.b[k] = (uint8_t)(i % 7 == 0 ? 0xff : rng());
			dst.b[k] = (uint8_t)(i % 7 == 0 ? 0xff : rng());
		}
		memcpy(ref, src.b, alen);
		memcpy(ref + alen, dst.b, alen);
		rl = 2 * alen;
		if (v6) {
			ref[rl++] = (uint8_t)(len >> 24);
			ref[rl++] = (uint8_t)(len >> 16);
			ref[rl++] = (uint8_t)(len >> 8);
			ref[rl++] = (uint8_t)len;
			ref[rl++] = 0;
			ref[rl++] = 0;
			ref[rl++] = 0;
			ref[rl++] = proto;
		} else {
			ref[rl++] = 0;
			ref[rl++] = proto;
			ref[rl++] = (uint8_t)(len >> 8);
			ref[rl++] = (uint8_t)len;
		}
		assert_int_equal(
		    pkt_csum_fold(pkt_csum_pseudo(v6 ? AF_INET6 : AF_INET, &src, &dst, proto, len)),
		    (uint16_t)~sum_reference(ref, rl, 0));
	}
}

/*
 * The transport check of long TCP and UDP segments (0 to 1960 payload bytes, IPv4 and IPv6):
 * pkt_l4_csum_check (its TCP/UDP path over the first buffer), pkt_l4_csum_ok, and both on the
 * same bytes cut at random places, against RFC 1071 byte by byte; checksum right, one bit off
 * in the field or in the payload, 0 and 0xffff.
 */
static void test_long_check_equals_reference(void **state)
{
	static uint8_t buf[40 + 20 + 1960], ref[40 + 20 + 1960];
	uint32_t cuts[PKT_MAX_SEGS];
	unsigned checked = 0, good = 0;

	(void)state;
	for (int i = 0; i < 1500; i++) {
		int v6 = rng() % 2, how = rng() % 5;
		uint8_t proto = rng() % 2 ? 6 : 17;
		uint32_t l3 = v6 ? 40 : 20, hl = proto == 6 ? 20 : 8, field = proto == 6 ? 16 : 6;
		uint32_t plen = i < 40 ? (uint32_t)i : rng() % 1961, l4len = hl + plen;
		uint32_t len = l3 + l4len, rl, alen = v6 ? 16 : 4, so = v6 ? 8 : 12, c;
		struct pkt *p, *cut;
		unsigned n;
		bool ok;

		for (uint32_t k = 0; k < len; k++)
			buf[k] = (uint8_t)(i % 5 == 0 ? 0xff : rng());
		put_headers(buf, v6, proto, l4len);
		p = pkt_from_bytes(buf, len);
		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
		if (how <= 2) { /* right, then maybe one bit off in the field or the payload */
			pkt_l4_csum_update(p);
			pkt_copy_out(p, l3 + field, buf + l3 + field, 2);
			if (how == 1)
				buf[l3 + field + rng() % 2] ^= (uint8_t)(1u << rng() % 8);
			if (how == 2 && plen)
				buf[l3 + hl + rng() % plen] ^= (uint8_t)(1u << rng() % 8);
		} else {
			buf[l3 + field] = buf[l3 + field + 1] = how == 3 ? 0 : 0xff;
		}
		pkt_free(p);
		memcpy(ref, buf + so, 2 * alen);
		rl = 2 * alen;
		memset(ref + rl, 0, 8);
		ref[rl + 2] = (uint8_t)(l4len >> 8);
		ref[rl + 3] = (uint8_t)l4len;
		ref[rl + 7] = proto;
		rl += 8;
		memcpy(ref + rl, buf + l3, l4len);
		rl += l4len;
		c = (uint32_t)buf[l3 + field] << 8 | buf[l3 + field + 1];
		ok = csum_reference(ref, rl) == 0 || (proto == 17 && !v6 && c == 0);

		p = pkt_from_bytes(buf, len);
		n = random_cuts(len, cuts);
		cut = pkt_from_bytes_cuts(buf, len, cuts, n);
		assert_non_null(cut);
		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
		assert_int_equal(pkt_parse(cut, PKT_LINK_RAW, false), 0);
		assert_int_equal(pkt_l4_csum_ok(p), ok);
		assert_int_equal(pkt_l4_csum_ok(cut), ok);
		assert_int_equal(pkt_l4_csum_check(cut), ok);
		assert_int_equal(cut->l4_csum_verified, ok);
		assert_int_equal(pkt_l4_csum_check(p), ok);
		assert_int_equal(p->l4_csum_verified, ok);
		checked++;
		good += ok;
		pkt_free(p);
		pkt_free(cut);
	}
	assert_true(good > 300 && good < checked - 300);
}

/* RFC 1624's own example: HC 0xdd2f, m 0x5555 -> 0x3285 gives HC' 0x0000 under eqn. 3. */
static void test_rfc1624_example(void **state)
{
	(void)state;
	assert_int_equal(pkt_csum_replace2(0xdd2f, 0x5555, 0x3285), 0x0000);
}

static void test_udp_zero_checksum(void **state)
{
	static const uint8_t udp4[] = {
	    0x45, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x00, 0x00, 10,	  0,	0,
	    1,	  10,	0,    0,    2,	  0x04, 0xd2, 0x00, 0x35, 0x00, 0x09, 0x00, 0x00, 0x41,
	};
	struct pkt *p = pkt_from_bytes(udp4, sizeof(udp4));
	uint8_t b[sizeof(udp6)];

	(void)state;
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
	assert_true(pkt_l4_csum_ok(p)); /* no checksum over IPv4 */
	pkt_l4_csum_update(p);
	assert_int_equal(rd16(p, 26), 0); /* and it stays "none" */
	pkt_free(p);

	memcpy(b, udp6, sizeof(b));
	b[46] = b[47] = 0;
	p = pkt_from_bytes(b, sizeof(b));
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
	assert_false(pkt_l4_csum_ok(p)); /* mandatory over IPv6 */
	pkt_l4_csum_update(p);
	assert_int_equal(rd16(p, 46), 0x4b6f);
	pkt_free(p);
}

static void test_ip_csum_verify(void **state)
{
	uint8_t b[sizeof(tcp4)];
	struct pkt *p;

	(void)state;
	memcpy(b, tcp4, sizeof(b));
	b[11] ^= 1;
	p = pkt_from_bytes(b, sizeof(b));
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), -EBADMSG);
	assert_int_equal(p->info.bad, PKT_BAD_IP_CSUM);
	pkt_ip_csum_update(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(rd16(p, 10), 0x433e);
	pkt_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ip_header_known_answer),
	    cmocka_unit_test(test_crc32c_known_answers),
	    cmocka_unit_test(test_l4_known_answers),
	    cmocka_unit_test(test_partial_odd_offsets),
	    cmocka_unit_test(test_sum_equals_reference),
	    cmocka_unit_test(test_sum_long_random_cuts),
	    cmocka_unit_test(test_pseudo_equals_layout),
	    cmocka_unit_test(test_long_check_equals_reference),
	    cmocka_unit_test(test_csum_check_one_pass_and_flag),
	    cmocka_unit_test(test_flat_check_equals_split),
	    cmocka_unit_test(test_incremental_v4_equals_full),
	    cmocka_unit_test(test_incremental_v6_equals_full),
	    cmocka_unit_test(test_rfc1624_example),
	    cmocka_unit_test(test_udp_zero_checksum),
	    cmocka_unit_test(test_ip_csum_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
