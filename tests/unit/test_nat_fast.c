// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT rewrite's fast path (nat_rewrite_fast: TCP and UDP with their headers in the first
 * segment) against the general one (nat_rewrite_general) on the same packets: random
 * addresses, ports and checksums, with the corners (checksums 0x0000 and 0xffff, UDP's "no
 * checksum", the address or port already the new one, an IPv4 tuple with bytes after its
 * address), IPv6 with extension headers, IPv4 options, fragments, truncated headers, packets
 * cut into segments and CHECKSUM_PARTIAL ones. Where the fast path says it applies, every
 * byte, the parse result and the flags must be the general path's; where it declines, it must
 * have changed nothing. Then the planned rewrite (rewrite_planned: the sums made once per
 * binding by nat_plan_make from the entry's tuples) against rewrite_fast on the same kind of
 * packets, for an entry whose tuple is the packet's own, one whose address or port on the
 * rewritten side differs from the packet's, and new endpoints equal to the old ones.
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

#include "ct/ct_int.h"
#include "l4_frames.h"
#include "nat/established.h"
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

/* The packet's own endpoint on side m (what conntrack's tuple of its direction holds), or,
 * sometimes, another address or port. */
static void own_side(const struct pkt *p, struct ct_tuple *t)
{
	ct_tuple_zero(t);
	t->family = p->info.family;
	t->l4proto = p->info.l4proto;
	t->src = p->info.src;
	t->dst = p->info.dst;
	t->s.port = p->info.sport;
	t->d.port = p->info.dport;
	switch (rnd() % 8) {
	case 0:
		t->src.b[rnd() % (t->family == AF_INET ? 4 : 16)] ^= (uint8_t)(1 + rnd() % 255);
		break;
	case 1:
		t->dst.b[rnd() % (t->family == AF_INET ? 4 : 16)] ^= (uint8_t)(1 + rnd() % 255);
		break;
	case 2:
		t->s.port ^= (uint16_t)(1 + rnd() % 0xffff);
		break;
	case 3:
		t->d.port ^= (uint16_t)(1 + rnd() % 0xffff);
		break;
	}
}

static void test_planned_equals_fast(void **state)
{
	unsigned planned = 0, declined = 0, mismatch = 0, same_port = 0, v6 = 0, ipcsum_kept = 0;

	(void)state;
	rng_state = 0x5851f42d4c957f2dull;
	for (unsigned round = 0; round < 40000; round++) {
		struct frame f;
		uint32_t chunk = rnd() % 8 == 0 ? 1 + rnd() % 60 : 0;
		struct pkt *g, *q;
		struct ct_entry *e = calloc(1, sizeof(*e));
		struct nat_binding b;
		enum nat_manip m = rnd() & 1 ? NAT_MANIP_SRC : NAT_MANIP_DST;
		enum ct_dir dir = rnd() & 1 ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
		struct ct_tuple *cur = &e->th[dir].tuple, *other = &e->th[!dir].tuple;
		const union pt_addr *nw;
		unsigned s = NAT_PLAN_SLOT(m, dir), act;
		uint16_t np;
		int rp, rf;

		assert_non_null(e);
		make_frame(&f);
		g = packet(&f, chunk);
		q = packet(&f, chunk);
		if (rnd() % 16 == 0)
			g->csum_partial = q->csum_partial = true;
		/* the entry: this direction's tuple the packet's (or not), the other one's the
		 * new endpoint on side m, the rest of it the inverse */
		own_side(g, cur);
		*other = *cur;
		other->src = cur->dst, other->dst = cur->src;
		other->s.port = cur->d.port, other->d.port = cur->s.port;
		if (rnd() % 4 != 0) {
			union pt_addr *a = m == NAT_MANIP_SRC ? &other->dst : &other->src;

			random_addr(f.family, a);
			if (f.family == AF_INET && rnd() % 16 == 0)
				a->b[9] = 1; /* bytes after the IPv4 address */
		}
		if (rnd() % 3 != 0)
			*(m == NAT_MANIP_SRC ? &other->d.port : &other->s.port) = val16();
		/* a binding that changes side m for this direction */
		memset(&b, 0, sizeof(b));
		b.status = (uint8_t)(dir == CT_DIR_ORIGINAL ? 1u << m : 1u << !m);
		nat_plan_make(&b, e);
		act = b.plan.act[s];
		assert_true(act & NAT_DO_REWRITE);
		nw = m == NAT_MANIP_SRC ? &other->dst : &other->src;
		np = m == NAT_MANIP_SRC ? other->d.port : other->s.port;

		rp = act & NAT_DO_RW_PLANNED ? rewrite_planned(q, e, &b.plan, s, act, m, dir) : 1;
		rf = cur->l4proto == IPPROTO_TCP || cur->l4proto == IPPROTO_UDP
			 ? nat_rewrite_fast(g, nw, np, m)
			 : 1;
		if (rp == 1) {
			struct pkt *u = packet(&f, chunk);
			const union pt_addr *old = m == NAT_MANIP_SRC ? &cur->src : &cur->dst;
			uint16_t op = m == NAT_MANIP_SRC ? cur->s.port : cur->d.port;

			u->csum_partial = q->csum_partial;
			assert_same(q, u); /* declined: nothing touched */
			pkt_free(u);
			declined++;
			/* declined where rewrite_fast takes it: only for other bytes than the
			 * plan's */
			if (rf == 0) {
				uint8_t *d = q->seg[0].data;
				uint32_t aoff =
				    q->info.l3off +
				    (f.family == AF_INET ? (m ? 16u : 12u) : (m ? 24u : 8u));

				assert_true(pkt_get16(d + q->info.l4off + (m ? 2 : 0)) != op ||
					    memcmp(d + aoff, old->b, f.family == AF_INET ? 4 : 16));
				mismatch++;
			}
		} else {
			assert_int_equal(rp, 0);
			assert_int_equal(rf, 0);
			assert_same(g, q);
			assert_int_equal(g->written, q->written);
			planned++;
			same_port += b.plan.old_port[s] == b.plan.new_port[s];
			v6 += f.family == AF_INET6;
			ipcsum_kept += f.family == AF_INET && !(act & NAT_DO_RW_IPCSUM);
		}
		pkt_free(g);
		pkt_free(q);
		free(e);
	}
	print_message("planned %u declined %u (bytes not the plan's %u), port kept %u, IPv6 %u, "
		      "IPv4 address kept %u\n",
		      planned, declined, mismatch, same_port, v6, ipcsum_kept);
	assert_true(planned > 12000);
	assert_true(mismatch > 3000);
	assert_true(same_port > 2000);
	assert_true(v6 > 5000);
	assert_true(ipcsum_kept > 500);
}

/* nat_csum_fold2 is pkt_csum_fold for every 32-bit sum: the corners and random ones. */
static void test_fold2(void **state)
{
	static const uint32_t corner[] = {0,	   1,	       0xffff,	   0x10000,   0x1fffe,
					  0x1ffff, 0xfffeffff, 0xffff0000, 0xffffffff};

	(void)state;
	rng_state = 0x2545f4914f6cdd1dull;
	for (unsigned i = 0; i < sizeof(corner) / sizeof(corner[0]); i++)
		assert_int_equal(nat_csum_fold2(corner[i]), pkt_csum_fold(corner[i]));
	for (unsigned i = 0; i < 1000000; i++) {
		uint32_t v = i & 1 ? (uint32_t)rnd() << 16 ^ rnd() : rnd() >> (rnd() % 32);

		assert_int_equal(nat_csum_fold2(v), pkt_csum_fold(v));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_equals_general),
	    cmocka_unit_test(test_planned_equals_fast),
	    cmocka_unit_test(test_fold2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
