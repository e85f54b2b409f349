// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GSO segmentation (src/pkt/gso.c): TCP over IPv4 and IPv6 and UDP, sizes that divide the
 * payload and sizes that do not; sequence numbers, lengths, IPv4 ids, flags (FIN and PSH on the
 * last segment only, CWR on the first only), payload bytes, and checksums checked by the plain
 * RFC 1071 sum written out below (not the library's routine), after a partial checksum.
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

#include "pkt/gso.h"
#include "pkt/pkt.h"

#define ETH 14

/* RFC 1071 over a flat buffer, 16-bit big-endian words, odd byte padded. */
static uint32_t sum16(const uint8_t *d, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(d[i] << 8 | d[i + 1]);
	if (n & 1)
		s += (uint32_t)d[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The transport sum with the pseudo-header; 0xffff when the checksum in it is right. */
static uint16_t l4_sum(const uint8_t *ip, int v6, uint8_t proto)
{
	uint32_t s = 0, l4len;
	const uint8_t *l4;

	if (v6) {
		l4len = (uint32_t)(ip[4] << 8 | ip[5]);
		l4 = ip + 40;
		s = sum16(ip + 8, 32, 0);
	} else {
		l4len = (uint32_t)(ip[2] << 8 | ip[3]) - 20u;
		l4 = ip + 20;
		s = sum16(ip + 12, 8, 0);
	}
	s += proto + l4len;
	return fold(sum16(l4, l4len, s));
}

static uint32_t be32(const uint8_t *d)
{
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

/*
 * An Ethernet frame with one TCP (or UDP) packet of `pl` payload bytes (byte i of the payload is
 * i * 7 + 3), the given TCP flags, made a GSO packet of gso_size with a partial checksum.
 */
static struct pkt *gso_pkt(int v6, uint8_t proto, uint32_t pl, uint16_t gso_size, uint8_t flags)
{
	uint32_t ipl = v6 ? 40 : 20, l4h = proto == IPPROTO_TCP ? 20 : 8;
	uint32_t len = ETH + ipl + l4h + pl;
	uint8_t *d = calloc(1, len), *ip = d + ETH, *l4 = ip + ipl;
	struct pkt *p;

	assert_non_null(d);
	d[12] = v6 ? 0x86 : 0x08;
	d[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4h + pl) >> 8);
		ip[5] = (uint8_t)(l4h + pl);
		ip[6] = proto;
		ip[7] = 64;
		ip[8] = 0x20, ip[9] = 0x01, ip[10] = 0x0d, ip[11] = 0xb8, ip[23] = 1;
		ip[24] = 0x20, ip[25] = 0x01, ip[26] = 0x0d, ip[27] = 0xb8, ip[39] = 2;
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((ipl + l4h + pl) >> 8);
		ip[3] = (uint8_t)(ipl + l4h + pl);
		ip[4] = 0xff, ip[5] = 0xfe; /* the id wraps after the second segment */
		ip[6] = 0x40;
		ip[8] = 64;
		ip[9] = proto;
		ip[12] = 10, ip[15] = 1;
		ip[16] = 192, ip[17] = 0, ip[18] = 2, ip[19] = 7;
	}
	l4[0] = 0x9c, l4[1] = 0x40, l4[2] = 0x01, l4[3] = 0xbb;
	if (proto == IPPROTO_TCP) {
		l4[4] = 0xff, l4[5] = 0xff, l4[6] = 0xf0, l4[7] = 0x00; /* seq wraps */
		l4[11] = 1;
		l4[12] = 0x50;
		l4[13] = flags;
		l4[14] = 0xff;
	} else {
		l4[4] = (uint8_t)((8 + pl) >> 8);
		l4[5] = (uint8_t)(8 + pl);
	}
	for (uint32_t i = 0; i < pl; i++)
		l4[l4h + i] = (uint8_t)(i * 7 + 3);
	/* split, so the segmentation reads across segments */
	p = pkt_from_bytes_split(d, len, 3000);
	free(d);
	assert_non_null(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, false), 0);
	pkt_ip_csum_update(p);
	p->gso_size = gso_size;
	p->gso_type = proto == IPPROTO_TCP ? PKT_GSO_TCP | PKT_GSO_ECN : PKT_GSO_UDP_L4;
	pkt_l4_csum_set_partial(p);
	assert_true(p->csum_partial);
	assert_true(pkt_gso_valid(p));
	return p;
}

static void check_segments(int v6, uint8_t proto, uint32_t pl, uint16_t gso_size, uint8_t flags)
{
	struct pkt *p = gso_pkt(v6, proto, pl, gso_size, flags);
	unsigned want = (pl + gso_size - 1) / gso_size, max = want + 4;
	struct pkt **seg = calloc(max, sizeof(*seg));
	uint32_t ipl = v6 ? 40 : 20, l4h = proto == IPPROTO_TCP ? 20 : 8, got = 0;
	int n;

	assert_non_null(seg);
	assert_int_equal(pkt_gso_nsegs(p), want);
	assert_int_equal(pkt_gso_seg_l3len(p), ipl + l4h + (pl < gso_size ? pl : gso_size));
	assert_int_equal(pkt_gso_segment(p, seg, want - 1 ? want - 1 : 0), -E2BIG);
	p->mark = 0x42;
	p->ct = p; /* any pointer: a reference the segments must not copy */
	n = pkt_gso_segment(p, seg, max);
	assert_int_equal(n, (int)want);
	for (int i = 0; i < n; i++) {
		struct pkt *q = seg[i];
		uint8_t *d = pkt_linear_data(q), *ip = d + ETH, *l4 = ip + ipl;
		uint32_t len = pl - got < gso_size ? pl - got : gso_size;

		assert_non_null(d);
		assert_int_equal(q->len, ETH + ipl + l4h + len);
		assert_int_equal(q->gso_size, 0);
		assert_false(q->csum_partial);
		assert_int_equal(q->mark, 0x42);
		assert_null(q->ct);
		if (v6) {
			assert_int_equal(ip[4] << 8 | ip[5], l4h + len);
		} else {
			assert_int_equal(ip[2] << 8 | ip[3], ipl + l4h + len);
			assert_int_equal(ip[4] << 8 | ip[5], (0xfffe + i) & 0xffff);
			assert_int_equal(fold(sum16(ip, 20, 0)), 0xffff);
		}
		assert_int_equal(l4_sum(ip, v6, proto), 0xffff);
		for (uint32_t k = 0; k < len; k++)
			assert_int_equal(l4[l4h + k], (uint8_t)((got + k) * 7 + 3));
		if (proto == IPPROTO_TCP) {
			uint8_t f = flags;

			assert_int_equal(be32(l4 + 4), (uint32_t)(0xfffff000u + got));
			if (i + 1 < n)
				f &= (uint8_t)~0x09;
			if (i > 0)
				f &= (uint8_t)~0x80;
			assert_int_equal(l4[13], f);
		} else {
			assert_int_equal(l4[4] << 8 | l4[5], 8 + len);
		}
		got += len;
		pkt_free(q);
	}
	assert_int_equal(got, pl);
	/* the GSO packet itself is untouched */
	assert_true(p->csum_partial);
	pkt_free(p);
	free(seg);
}

static void test_tcp4_not_dividing(void **state)
{
	(void)state;
	check_segments(0, IPPROTO_TCP, 10000, 1448,
		       0x80 | 0x10 | 0x08 | 0x01); /* CWR ACK PSH FIN */
}

static void test_tcp4_dividing(void **state)
{
	(void)state;
	check_segments(0, IPPROTO_TCP, 4 * 1448, 1448, 0x10 | 0x08);
}

static void test_tcp6(void **state)
{
	(void)state;
	check_segments(1, IPPROTO_TCP, 65000, 1428, 0x80 | 0x10 | 0x08);
	check_segments(1, IPPROTO_TCP, 3 * 1000, 1000, 0x10 | 0x01);
}

static void test_one_segment_and_odd(void **state)
{
	(void)state;
	check_segments(0, IPPROTO_TCP, 700, 1448, 0x10 | 0x08 | 0x01); /* fits in one */
	check_segments(0, IPPROTO_TCP, 1001, 7, 0x10);		       /* odd sizes */
}

static void test_udp_l4(void **state)
{
	(void)state;
	check_segments(0, IPPROTO_UDP, 8000, 1472, 0);
	check_segments(1, IPPROTO_UDP, 3 * 1200, 1200, 0);
}

/* A partial checksum completed in software is the full one; set partial again, the field
 * holds the pseudo-header sum the device adds the rest to. */
static void test_partial_complete(void **state)
{
	struct pkt *p = gso_pkt(0, IPPROTO_TCP, 1000, 1448, 0x10);
	uint8_t buf[ETH + 20 + 20 + 1000];
	uint16_t field;

	(void)state;
	assert_int_equal(pkt_copy_out(p, 0, buf, sizeof(buf)), 0);
	field = (uint16_t)(buf[ETH + 36] << 8 | buf[ETH + 37]);
	/* the device: the sum of the transport bytes, field included, complemented */
	{
		uint16_t full = (uint16_t)~fold(sum16(buf + ETH + 20, 1020, 0));

		pkt_l4_csum_update(p);
		assert_false(p->csum_partial);
		assert_int_equal(pkt_copy_out(p, 0, buf, sizeof(buf)), 0);
		assert_int_equal(buf[ETH + 36] << 8 | buf[ETH + 37], full);
		assert_int_equal(l4_sum(buf + ETH, 0, IPPROTO_TCP), 0xffff);
	}
	pkt_l4_csum_set_partial(p);
	assert_int_equal(pkt_copy_out(p, 0, buf, sizeof(buf)), 0);
	assert_int_equal(buf[ETH + 36] << 8 | buf[ETH + 37], field);
	pkt_free(p);
}

static void test_invalid(void **state)
{
	struct pkt *p = gso_pkt(0, IPPROTO_TCP, 3000, 1448, 0x10), *seg[4];

	(void)state;
	p->gso_type = PKT_GSO_UDP_L4; /* a TCP packet said to be UDP */
	assert_false(pkt_gso_valid(p));
	assert_int_equal(pkt_gso_segment(p, seg, 4), -EINVAL);
	p->gso_type = PKT_GSO_TCP;
	p->gso_size = 0;
	assert_false(pkt_gso_valid(p));
	pkt_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp4_not_dividing),
	    cmocka_unit_test(test_tcp4_dividing),
	    cmocka_unit_test(test_tcp6),
	    cmocka_unit_test(test_one_segment_and_odd),
	    cmocka_unit_test(test_udp_l4),
	    cmocka_unit_test(test_partial_complete),
	    cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
