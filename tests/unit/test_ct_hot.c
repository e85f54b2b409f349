// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack's per-packet shortcuts against the general code they stand for, on the same
 * random and corner-case inputs (issue 12, the hot/cold entry round):
 *   - ct_node_eq, the chain walk's tuple compare (the last word first, two address words for
 *     IPv4), against ct_tuple_eq (all 40 bytes);
 *   - ct_udp_error, UDP's header check without a stack frame, against ct_udp_check, on random
 *     frames in one segment and cut into pieces, from outside or not, with the checksum
 *     setting on and off and the checksum known good or not: the same answer and the same
 *     "verified" mark left on the packet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "l4_frames.h"
#include "ct/ct_int.h"
#include "ct/proto_udp.h"

/* A tuple as ct_tuple_zero and the tuple builders leave it: IPv4 uses 4 address bytes. */
static void random_tuple(struct ct_tuple *t)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_SCTP};

	ct_tuple_zero(t);
	t->family = rnd() & 1 ? AF_INET : AF_INET6;
	for (unsigned i = 0; i < (t->family == AF_INET ? 1u : 4u); i++) {
		t->src.w[i] = rnd() % 4 ? rnd() : 0;
		t->dst.w[i] = rnd() % 4 ? rnd() : t->src.w[i];
	}
	t->s.all = val16();
	t->d.all = val16();
	t->zone = rnd() % 8 ? 0 : val16();
	t->l4proto = protos[rnd() % 4];
}

/* Change one thing a tuple is made of (or nothing), keeping it a valid tuple. */
static void perturb(struct ct_tuple *t)
{
	switch (rnd() % 9) {
	case 0: /* equal */
		break;
	case 1:
		t->src.w[t->family == AF_INET ? 0 : rnd() % 4] ^= 1u << rnd() % 32;
		break;
	case 2:
		t->dst.w[t->family == AF_INET ? 0 : rnd() % 4] ^= 1u << rnd() % 32;
		break;
	case 3:
		t->s.all ^= (uint16_t)(1u << rnd() % 16);
		break;
	case 4:
		t->d.all ^= (uint16_t)(1u << rnd() % 16);
		break;
	case 5:
		t->zone ^= (uint16_t)(1u << rnd() % 16);
		break;
	case 6:
		t->l4proto ^= (uint8_t)(1u << rnd() % 8);
		break;
	case 7: { /* the other family, same first address words */
		struct ct_tuple o = *t;

		ct_tuple_zero(t);
		t->family = o.family == AF_INET ? AF_INET6 : AF_INET;
		t->src.w[0] = o.src.w[0];
		t->dst.w[0] = o.dst.w[0];
		t->s = o.s;
		t->d = o.d;
		t->zone = o.zone;
		t->l4proto = o.l4proto;
		break;
	}
	default: /* src and dst swapped (a reply with the same ports) */
	{
		union pt_addr a = t->src;

		t->src = t->dst;
		t->dst = a;
		break;
	}
	}
}

static void test_node_eq(void **state)
{
	unsigned equal = 0, n = 200000;

	(void)state;
	rng_state = 0x5eed0c7ull;
	for (unsigned i = 0; i < n; i++) {
		struct ct_tuple a, b;

		random_tuple(&a);
		b = a;
		perturb(&b);
		if (rnd() & 1)
			perturb(&b);
		assert_int_equal(ct_node_eq(&a, &b), ct_tuple_eq(&a, &b));
		assert_int_equal(ct_node_eq(&b, &a), ct_tuple_eq(&b, &a));
		equal += ct_tuple_eq(&a, &b);
	}
	/* both answers came up often */
	assert_true(equal > n / 50 && equal < n / 2);
}

static void test_udp_error_equal(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	unsigned udp = 0, accepted = 0, refused = 0;

	(void)state;
	rng_state = 0x0ddba11ull;
	ct_config_default(&c);
	t = ct_table_new(&c);
	assert_non_null(t);
	for (unsigned i = 0; i < 40000; i++) {
		struct frame f;
		uint32_t chunk = rnd() % 4 ? 0 : 14 + rnd() % 60;
		struct pkt *p, *q;
		bool from_outside = rnd() & 1;
		int a, b;

		make_frame(&f);
		p = packet(&f, chunk);
		if (p->info.l4proto != IPPROTO_UDP || !p->info.has_l4) {
			pkt_free(p);
			continue;
		}
		udp++;
		if (rnd() % 3 == 0) /* a length field that does not fit */
			pkt_store_be16(p, p->info.l4off + 4, val16());
		else if (rnd() & 1) /* a right checksum */
			pkt_l4_csum_update(p);
		p->written = false;
		p->l4_csum_verified = rnd() % 4 == 0; /* the kernel said so */
		q = pkt_clone(p);
		assert_non_null(q);
		q->l4_csum_verified = p->l4_csum_verified;
		c.checksum = rnd() % 4 != 0;
		ct_table_set_config(t, &c);
		a = ct_udp_error(t, p, from_outside);
		b = ct_udp_check(t, q, from_outside, false);
		assert_int_equal(a, b);
		assert_int_equal(p->l4_csum_verified, q->l4_csum_verified);
		/* and the tracker's error() is the same function */
		assert_int_equal(ct_proto_udp.error(t, q, from_outside, 0, 0), b);
		accepted += a == 0;
		refused += a != 0;
		pkt_free(p);
		pkt_free(q);
	}
	assert_true(udp > 10000 && accepted > 1000 && refused > 1000);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_eq),
	    cmocka_unit_test(test_udp_error_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
