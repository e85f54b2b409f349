// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT rewrite's fast path (nat_rewrite_fast: TCP and UDP with their headers in the first
 * segment) against the general one (nat_rewrite_general) on the same packets: random
 * addresses, ports and checksums, with the corners (checksums 0x0000 and 0xffff, UDP's "no
 * checksum", the address or port already the new one, an IPv4 tuple with bytes after its
 * address), IPv6 with extension headers, IPv4 options, fragments, truncated headers, packets
 * cut into segments and CHECKSUM_PARTIAL ones. Where the fast path says it applies, every
 * byte, the parse result and the flags must be the general path's; where it declines, it must
 * have changed nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "l4_frames.h"
#include "nat/nat_int.h"

static void random_addr(int family, union pt_addr *a)
{
	memset(a, 0, sizeof(*a));
	for (unsigned i = 0; i < (family == AF_INET ? 4u : 16u); i++)
		a->b[i] = (uint8_t)rnd();
}

static void assert_same(const struct pkt *a, const struct pkt *b)
{
	uint8_t x[256], y[256];

	assert_int_equal(a->len, b->len);
	assert_int_equal(pkt_copy_out(a, 0, x, a->len), 0);
	assert_int_equal(pkt_copy_out(b, 0, y, b->len), 0);
	assert_memory_equal(x, y, a->len);
	assert_memory_equal(&a->info, &b->info, sizeof(a->info));
	assert_int_equal(a->csum_partial, b->csum_partial);
	assert_int_equal(a->l4_csum_verified, b->l4_csum_verified);
}

static void test_fast_equals_general(void **state)
{
	unsigned fast = 0, declined = 0, v6ext = 0, udp_none = 0;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	for (unsigned round = 0; round < 20000; round++) {
		struct frame f;
		uint32_t chunk = rnd() % 8 == 0 ? 1 + rnd() % 60 : 0;
		struct pkt *g, *q;
		struct ct_tuple t;
		enum nat_manip m = rnd() & 1 ? NAT_MANIP_SRC : NAT_MANIP_DST;
		uint16_t port;
		const union pt_addr *a;
		int rg, rf;

		make_frame(&f);
		g = packet(&f, chunk);
		q = packet(&f, chunk);
		if (rnd() % 16 == 0)
			g->csum_partial = q->csum_partial = true;
		ct_tuple_zero(&t);
		t.family = (uint8_t)f.family;
		t.l4proto = f.proto;
		random_addr(f.family, &t.src);
		random_addr(f.family, &t.dst);
		t.s.port = val16();
		t.d.port = val16();
		/* the address or the port the packet already has */
		if (rnd() % 4 == 0)
			t.src = g->info.src, t.dst = g->info.dst;
		if (rnd() % 4 == 0 && g->info.has_ports)
			t.s.port = g->info.sport, t.d.port = g->info.dport;
		/* an IPv4 tuple with bytes after its address (pt_addr_eq compares all 16) */
		if (f.family == AF_INET && rnd() % 16 == 0)
			t.src.b[9] = t.dst.b[9] = 1;
		a = m == NAT_MANIP_SRC ? &t.src : &t.dst;
		port = m == NAT_MANIP_SRC ? t.s.port : t.d.port;

		rf = nat_rewrite_fast(q, a, port, m);
		if (rf == 1) {
			struct pkt *u = packet(&f, chunk);

			u->csum_partial = q->csum_partial;
			assert_same(q, u); /* declined: nothing touched */
			pkt_free(u);
			/* only what the fast path is not for */
			assert_true(
			    !q->info.has_l4 || q->csum_partial ||
			    (q->info.l4proto != IPPROTO_TCP && q->info.l4proto != IPPROTO_UDP) ||
			    q->info.l4off + (q->info.l4proto == IPPROTO_TCP ? 18u : 8u) >
				q->seg[0].len);
			declined++;
		} else {
			uint16_t cs;

			rg = nat_rewrite_general(g, &t, m);
			assert_int_equal(rf, 0);
			assert_int_equal(rg, 0);
			assert_same(g, q);
			fast++;
			if (f.family == AF_INET6 && g->info.n_exthdr)
				v6ext++;
			if (f.family == AF_INET && f.proto == IPPROTO_UDP &&
			    !pkt_load_be16(g, g->info.l4off + 6, &cs) && cs == 0)
				udp_none++;
		}
		pkt_free(g);
		pkt_free(q);
	}
	/* both kinds seen in numbers, the corners too */
	assert_true(fast > 10000);
	assert_true(declined > 1000);
	assert_true(v6ext > 500);
	assert_true(udp_none > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_equals_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
