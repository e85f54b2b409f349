// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-packet shortcuts of ct_in against what they stand for:
 *
 * - ct_hash_tuple starts from the key's SipHash state loaded once per table (t->hkey); its
 *   value must stay SipHash-1-3 under the table's key of the same message as before (an IPv4
 *   tuple as its two meaningful words, an IPv6 tuple whole), for every tuple: the buckets, and
 *   so the order of a walk (control-socket dumps, sync), do not move.
 * - ct_tuple_from_ports makes a TCP/UDP/UDP-Lite tuple from the parse; the tracker would read
 *   the same ports from the header (ct_tuple_from_l4). On random packets of every protocol and
 *   both families, with the parse's fields disturbed at the corners (no transport header, no
 *   ports, l4len 0..8), it must either decline or give the tracker's tuple byte for byte.
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
#include "pkt_test.h"

#include "test_rng.h"

static void random_tuple(struct ct_tuple *t)
{
	ct_tuple_zero(t);
	t->family = rng() % 2 ? AF_INET : AF_INET6;
	for (int i = 0; i < (t->family == AF_INET ? 1 : 4); i++) {
		t->src.w[i] = rng() % 8 ? rng() : 0;
		t->dst.w[i] = rng() % 8 ? rng() : 0xffffffffu;
	}
	t->s.all = (uint16_t)rng();
	t->d.all = (uint16_t)rng();
	t->zone = (uint16_t)(rng() % 4 ? 0 : rng());
	t->l4proto = (uint8_t)(rng() % 2 ? IPPROTO_TCP : rng());
}

static void test_hash_is_siphash13_of_the_tuple(void **state)
{
	struct ct_config c;
	struct ct_table *t;

	(void)state;
	ct_config_default(&c);
	for (int k = 0; k < 20; k++) {
		c.seed[0] = (uint64_t)rng() << 32 | rng();
		c.seed[1] = k == 0 ? 0 : (uint64_t)rng() << 32 | rng();
		t = ct_table_new(&c);
		assert_non_null(t);
		for (int i = 0; i < 2000; i++) {
			struct ct_tuple tu;
			uint8_t msg[40];
			size_t len;

			random_tuple(&tu);
			if (tu.family == AF_INET) {
				/* little-endian words: the source, the destination, then ports,
				 * zone, family and protocol */
				uint64_t w0 = (uint64_t)tu.src.w[0] | (uint64_t)tu.dst.w[0] << 32;

				memcpy(msg, &w0, 8);
				memcpy(msg + 8, &tu.s, 8);
				len = 16;
			} else {
				memcpy(msg, &tu, sizeof(tu));
				len = sizeof(tu);
			}
			assert_int_equal(ct_hash_tuple(t, &tu), pkt_hash13(c.seed, msg, len));
		}
		ct_table_free(t);
	}
}

static const char *const protos[] = {"tcp", "udp", "udplite", "sctp", "dccp", "icmp", "gre"};

static void test_tuple_from_ports_equals_tracker(void **state)
{
	unsigned took = 0, declined = 0;

	(void)state;
	for (int i = 0; i < 4000; i++) {
		const char *proto = protos[rng() % 7];
		bool v6 = rng() % 2;
		char text[200];
		struct pkt *p;
		struct pkt_info in;
		struct ct_tuple fast, slow;
		uint16_t zone = (uint16_t)(rng() % 4 ? 0 : rng());
		int r;

		if (v6 && !strcmp(proto, "icmp"))
			proto = "icmp6";
		if (!strncmp(proto, "icmp", 4) || !strcmp(proto, "gre"))
			snprintf(text, sizeof(text),
				 v6 ? "%s [2001:db8::%x] > [2001:db8:1::%x]"
				    : "%s 10.0.%u.%u > 192.0.2.%u",
				 proto, rng() % 256, rng() % 256, rng() % 256);
		else if (v6)
			snprintf(text, sizeof(text),
				 "%s [2001:db8::%x]:%u > [2001:db8:1::%x]:%u len=%u", proto,
				 rng() % 65536, rng() % 65536, rng() % 65536, rng() % 65536,
				 rng() % 64);
		else
			snprintf(text, sizeof(text), "%s 10.0.%u.%u:%u > 192.0.2.%u:%u len=%u",
				 proto, rng() % 256, rng() % 256, rng() % 65536, rng() % 256,
				 rng() % 65536, rng() % 64);
		p = pkt_test_build(text);
		assert_non_null(p);
		in = p->info;
		/* the corners of the parse the shortcut tests */
		switch (rng() % 8) {
		case 0:
			in.has_ports = false;
			break;
		case 1:
			in.has_l4 = false;
			break;
		case 2:
			in.l4len = rng() % 9; /* around the 8 bytes a port pair needs */
			break;
		default:
			break;
		}
		memset(&fast, 0xa5, sizeof(fast));
		if (!ct_tuple_from_ports(&in, zone, &fast)) {
			declined++;
			/* declined: the tuple is left alone */
			memset(&slow, 0xa5, sizeof(slow));
			assert_memory_equal(&fast, &slow, sizeof(fast));
			pkt_free(p);
			continue;
		}
		took++;
		assert_true(in.has_l4 && in.has_ports && in.l4len >= 8);
		assert_true(in.l4proto == IPPROTO_TCP || in.l4proto == IPPROTO_UDP ||
			    in.l4proto == IPPROTO_UDPLITE);
		r = ct_tuple_from_l4(p, in.l4off, in.l4len, in.family, in.l4proto, &in.src, &in.dst,
				     zone, &slow);
		assert_int_equal(r, 0);
		assert_memory_equal(&fast, &slow, sizeof(fast));
		/* and ct_tuple_from_pkt, which ct_in falls back to, says the same */
		p->info = in;
		memset(&slow, 0, sizeof(slow));
		assert_int_equal(ct_tuple_from_pkt(p, zone, &slow), 0);
		assert_memory_equal(&fast, &slow, sizeof(fast));
		pkt_free(p);
	}
	/* both ways were taken often enough to mean something */
	assert_true(took > 1000);
	assert_true(declined > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_is_siphash13_of_the_tuple),
	    cmocka_unit_test(test_tuple_from_ports_equals_tracker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
