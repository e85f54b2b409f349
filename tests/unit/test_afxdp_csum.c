// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * afxdp_csum_partial (src/io/afxdp.c): how `io afxdp` tells a local sender's partial checksum
 * with no word from the kernel. Random frames (untagged, one or two VLAN tags; IPv4 with
 * options and fragment bits, IPv6 with and without an extension header; TCP, UDP, ICMP; the
 * field partial, complete or random) against a reference that knows what each frame was made
 * of and sums the pseudo-header with pkt_csum_pseudo. Every prefix of a frame is looked at in
 * a buffer of exactly that size (ASan finds a read past it). And the claim the docs make: a
 * complete, correct checksum that happens to equal the pseudo-header sum is taken for a
 * partial one, and finishing it writes the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "io/afxdp.h"
#include "pkt/pkt.h"
#include "test_rng.h"

#define FRAME_MAX 1600

struct made {
	uint8_t b[FRAME_MAX];
	uint32_t len;	/* frame length (may be cut short of the datagram) */
	uint32_t l4off; /* transport header, from the frame's start */
	uint32_t l4len; /* transport header + payload */
	uint32_t field; /* checksum field offset in the transport header, 0: none */
	int family;	/* AF_INET, AF_INET6 */
	uint8_t proto;	/* the transport protocol */
	bool in_scope;	/* a frame the function is documented to look at */
	union pt_addr src, dst;
};

static uint32_t rnd(uint32_t n)
{
	return n ? rng() % n : 0;
}

static void put16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint32_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* The pseudo-header sum as a partial checksum field holds it: folded, not complemented. */
static uint32_t partial_value(const struct made *m)
{
	return fold(pkt_csum_pseudo(m->family, &m->src, &m->dst, m->proto, m->l4len));
}

/* The complete checksum of m's transport part, through the packet code. */
static uint32_t complete_value(const struct made *m)
{
	struct pkt *p = pkt_from_bytes(m->b, m->len);
	uint16_t v = 0;

	assert_non_null(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, false), 0);
	pkt_l4_csum_update(p);
	assert_int_equal(pkt_load_be16(p, m->l4off + m->field, &v), 0);
	pkt_free(p);
	return v;
}

/* A random frame; the datagram always fits (cut later where a test wants). */
static void make(struct made *m)
{
	uint32_t tags = rnd(8) == 0 ? 2 : rnd(3) == 0 ? 1 : 0, l3, pay = rnd(200), ext = 0;
	uint8_t *d = m->b;
	bool frag = false;

	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < 12; i++)
		d[i] = (uint8_t)rnd(256);
	l3 = 12;
	for (uint32_t t = 0; t < tags; t++, l3 += 4) {
		put16(d + l3, t == 0 && rnd(2) ? 0x88a8 : 0x8100);
		put16(d + l3 + 2, rnd(4096));
	}
	m->family = rnd(2) ? AF_INET : AF_INET6;
	m->proto = rnd(6) == 0 ? IPPROTO_ICMP : rnd(2) ? IPPROTO_TCP : IPPROTO_UDP;
	put16(d + l3, m->family == AF_INET ? 0x0800 : 0x86dd);
	l3 += 2;
	if (m->family == AF_INET) {
		uint32_t ihl = 5 + (rnd(4) == 0 ? rnd(3) : 0), frag_bits = 0;

		if (rnd(6) == 0) {
			frag = true;
			frag_bits = rnd(2) ? 0x2000 : 1 + rnd(0x1fff); /* MF, or an offset */
		} else if (rnd(2)) {
			frag_bits = 0x4000; /* DF only: not a fragment */
		}
		m->l4off = l3 + ihl * 4;
		d[l3] = (uint8_t)(0x40 | ihl);
		put16(d + l3 + 6, frag_bits);
		d[l3 + 8] = 64;
		d[l3 + 9] = m->proto;
		for (unsigned i = 0; i < 4; i++) {
			m->src.b[i] = d[l3 + 12 + i] = (uint8_t)rnd(256);
			m->dst.b[i] = d[l3 + 16 + i] = (uint8_t)rnd(256);
		}
		for (uint32_t i = 20; i < ihl * 4; i++)
			d[l3 + i] = 1; /* NOP options */
	} else {
		ext = rnd(5) == 0; /* a hop-by-hop header first: out of scope */
		d[l3] = 0x60;
		d[l3 + 6] = ext ? 0 : m->proto;
		d[l3 + 7] = 64;
		for (unsigned i = 0; i < 16; i++) {
			m->src.b[i] = d[l3 + 8 + i] = (uint8_t)rnd(256);
			m->dst.b[i] = d[l3 + 24 + i] = (uint8_t)rnd(256);
		}
		m->l4off = l3 + 40;
		if (ext) {
			d[m->l4off] = m->proto; /* next header, length 0: 8 bytes of PadN */
			d[m->l4off + 2] = 1;
			d[m->l4off + 3] = 4;
			m->l4off += 8;
		}
	}
	m->field = m->proto == IPPROTO_TCP ? 16 : m->proto == IPPROTO_UDP ? 6 : 2;
	m->l4len = (m->proto == IPPROTO_TCP ? 20 : 8) + pay;
	for (uint32_t i = 0; i < m->l4len; i++)
		d[m->l4off + i] = (uint8_t)rnd(256);
	if (m->proto == IPPROTO_TCP)
		d[m->l4off + 12] = 0x50; /* data offset 5 */
	if (m->proto == IPPROTO_UDP)
		put16(d + m->l4off + 4, m->l4len);
	if (m->family == AF_INET) {
		uint32_t ihl = (d[l3] & 0xfu) * 4u;

		put16(d + l3 + 2, ihl + m->l4len);
	} else {
		put16(d + l3 + 4, m->l4len + (ext ? 8 : 0));
	}
	m->len = m->l4off + m->l4len;
	m->in_scope = tags <= 1 && !frag && !ext && m->proto != IPPROTO_ICMP;
	/* the field: partial, complete, or anything */
	switch (rnd(3)) {
	case 0:
		put16(d + m->l4off + m->field, partial_value(m));
		break;
	case 1:
		if (m->proto != IPPROTO_ICMP && !frag)
			put16(d + m->l4off + m->field, complete_value(m));
		break;
	default:
		break;
	}
}

static bool expected(const struct made *m)
{
	const uint8_t *f = m->b + m->l4off + m->field;

	return m->in_scope && (uint32_t)(f[0] << 8 | f[1]) == partial_value(m);
}

/* The function against the reference on random frames, whole. */
static void test_random_frames(void **state)
{
	unsigned yes = 0, no = 0;

	(void)state;
	for (unsigned n = 0; n < 200000; n++) {
		struct afpacket_offload off = {0};
		struct made m;
		bool got;

		make(&m);
		got = afxdp_csum_partial(m.b, m.len, &off);
		assert_int_equal(got, expected(&m));
		if (got) {
			assert_int_equal(off.csum_start, m.l4off);
			assert_int_equal(off.csum_offset, m.field);
			yes++;
		} else {
			no++;
		}
	}
	/* both answers came up often: the generator reaches both sides */
	assert_true(yes > 20000);
	assert_true(no > 20000);
}

/* Every prefix in a buffer of its own size: no read past it; cut datagrams are not taken. */
static void test_prefixes(void **state)
{
	(void)state;
	for (unsigned n = 0; n < 400; n++) {
		struct made m;

		make(&m);
		for (uint32_t len = 0; len <= m.len; len++) {
			struct afpacket_offload off = {0};
			uint8_t *copy = malloc(len ? len : 1);
			bool got;

			assert_non_null(copy);
			memcpy(copy, m.b, len);
			got = afxdp_csum_partial(copy, len, &off);
			free(copy);
			if (len < m.len)
				assert_false(got); /* the datagram does not fit */
			else
				assert_int_equal(got, expected(&m));
		}
	}
}

/*
 * A complete, correct checksum equal to the pseudo-header sum (one frame in 65,536): two
 * payload bytes chosen so that it is. Taken for partial; finishing it changes no byte.
 */
static void test_complete_that_looks_partial(void **state)
{
	unsigned done = 0;

	(void)state;
	while (done < 2000) {
		struct afpacket_offload off = {0};
		struct made m;
		struct pkt *p;
		uint32_t P, w, s;
		uint8_t *t;

		make(&m);
		if (!m.in_scope || m.l4len < (m.proto == IPPROTO_TCP ? 22u : 10u))
			continue;
		t = m.b + m.l4off;
		P = partial_value(&m);
		put16(t + m.field, P);
		w = m.proto == IPPROTO_TCP ? 20 : 8; /* the payload's first two bytes */
		put16(t + w, 0);
		s = pkt_csum_bytes(t, m.l4len,
				   pkt_csum_pseudo(m.family, &m.src, &m.dst, m.proto, m.l4len));
		put16(t + w, 0xffff - fold(s));
		/* the frame verifies as it is, and its field holds the pseudo-header sum */
		assert_int_equal(
		    fold(pkt_csum_bytes(
			t, m.l4len, pkt_csum_pseudo(m.family, &m.src, &m.dst, m.proto, m.l4len))),
		    0xffff);
		assert_true(afxdp_csum_partial(m.b, m.len, &off));
		p = pkt_from_bytes(m.b, m.len);
		assert_non_null(p);
		assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, false), 0);
		pkt_l4_csum_update(p);
		{
			uint8_t after[FRAME_MAX];

			assert_int_equal(p->len, m.len);
			assert_int_equal(pkt_copy_out_across(p, 0, after, m.len), 0);
			assert_memory_equal(after, m.b, m.len);
		}
		pkt_free(p);
		done++;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_frames),
	    cmocka_unit_test(test_prefixes),
	    cmocka_unit_test(test_complete_that_looks_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
