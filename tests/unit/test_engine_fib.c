// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The route and local-address lookup (engine/fib.c) against the linear scans it replaced: on
 * random route tables (both families, every prefix length, equal prefixes with different
 * metrics, routes through interfaces that are down, blackholes and local routes) the hash
 * lookup picks the very route the scan picks, for random destinations and for destinations
 * inside, at the edges of and just outside every route's prefix; after routes and addresses
 * are removed too. Local addresses and IPv4 directed broadcasts likewise.
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

#include "engine/engine_int.h"

#include "test_rng.h"

static void random_addr(int family, union pt_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->w[0] = rng();
	if (family == AF_INET6)
		for (int i = 1; i < 4; i++)
			a->w[i] = rng();
	/* a few networks only, so prefixes nest and collide */
	a->b[0] = family == AF_INET ? (uint8_t)(10 + rng() % 3) : (uint8_t)(0x20 + rng() % 2);
}

/* BOX_ADDR_* as the scans decided: equal to an address, or its network's IPv4 broadcast. */
static int kind_by_scan(struct box *b, int family, const union pt_addr *a)
{
	int k = 0;

	for (unsigned i = 0; box_addr_at(b, i); i++) {
		const struct box_addr *x = box_addr_at(b, i);
		union pt_addr m;

		if (x->family != family)
			continue;
		if (pt_addr_eq(&x->addr, a))
			k |= BOX_ADDR_LOCAL;
		if (family == AF_INET && x->plen < 31) {
			pt_mask_from_len(AF_INET, x->plen, &m);
			if ((a->w[0] & m.w[0]) == (x->addr.w[0] & m.w[0]) &&
			    (a->w[0] | m.w[0]) == 0xffffffffu)
				k |= BOX_ADDR_BCAST;
		}
	}
	return k;
}

static void check_dst(struct box *b, int family, const union pt_addr *d)
{
	int kind = -1;

	assert_ptr_equal(box_route_lookup(b, family, d), box_route_scan(b, family, d));
	assert_int_equal(box_addr_kind(b, family, d), kind_by_scan(b, family, d));
	/* the input path's lookup of both at once */
	assert_ptr_equal(box_route_input(b, family, d, &kind), box_route_scan(b, family, d));
	assert_int_equal(kind, kind_by_scan(b, family, d));
}

/* Destinations around route r's prefix: its network, its last address, one beyond. */
static void check_around(struct box *b, const struct box_route *r)
{
	union pt_addr d = r->net, m;
	int words = r->family == AF_INET ? 1 : 4;

	check_dst(b, r->family, &d);
	pt_mask_from_len(r->family, r->plen, &m);
	for (int i = 0; i < words; i++)
		d.w[i] |= ~m.w[i];
	check_dst(b, r->family, &d);
	/* the next address after the prefix (big-endian increment) */
	for (int i = (r->family == AF_INET ? 3 : 15); i >= 0 && ++d.b[i] == 0; i--)
		;
	check_dst(b, r->family, &d);
}

static void check_all(struct box *b)
{
	for (unsigned i = 0; box_route_at(b, i); i++)
		check_around(b, box_route_at(b, i));
	for (unsigned i = 0; box_addr_at(b, i); i++) {
		const struct box_addr *x = box_addr_at(b, i);
		union pt_addr m, bc = x->addr;

		check_dst(b, x->family, &x->addr);
		if (x->family == AF_INET) { /* its network's broadcast */
			pt_mask_from_len(AF_INET, x->plen, &m);
			bc.w[0] |= ~m.w[0];
			check_dst(b, AF_INET, &bc);
		}
	}
	for (int n = 0; n < 2000; n++) {
		int family = n & 1 ? AF_INET6 : AF_INET;
		union pt_addr d;

		random_addr(family, &d);
		check_dst(b, family, &d);
	}
}

static void test_fib_equals_scan(void **state)
{
	(void)state;
	for (int round = 0; round < 20; round++) {
		struct box *b = box_new("fib", NULL, NULL);
		int ifs[4];

		assert_non_null(b);
		for (int i = 0; i < 4; i++) {
			char name[8] = {'e', 't', 'h', (char)('0' + i), 0};

			ifs[i] = box_add_iface(b, name, NULL);
			assert_true(ifs[i] > 0);
		}
		for (int n = 0; n < 10 + round * 10; n++) {
			int family = rng() % 3 ? AF_INET : AF_INET6;
			struct box_route r;

			memset(&r, 0, sizeof(r));
			r.family = family;
			random_addr(family, &r.net);
			r.plen = (int)(rng() % (family == AF_INET ? 33 : 129));
			if (rng() % 3 == 0) /* short prefixes: nesting and the default route */
				r.plen = (int)(rng() % 9);
			r.metric = rng() % 3;
			r.type = rng() % 8 == 0	  ? BOX_RT_BLACKHOLE
				 : rng() % 8 == 0 ? BOX_RT_LOCAL
						  : BOX_RT_UNICAST;
			r.oif = r.type == BOX_RT_BLACKHOLE ? 0 : ifs[rng() % 4];
			box_add_route(b, &r); /* -EEXIST for a repeated (prefix, metric): fine */
			if (rng() % 4 == 0) {
				union pt_addr a;

				random_addr(family, &a);
				box_add_addr(b, ifs[rng() % 4], family, &a,
					     (int)(rng() % (family == AF_INET ? 33 : 129)));
			}
		}
		check_all(b);
		box_set_iface_up(b, ifs[rng() % 4], false);
		box_set_iface_up(b, ifs[rng() % 4], false);
		check_all(b);
		/* removals: about half the routes, every address */
		for (unsigned i = 0; box_route_at(b, i); i += 2) {
			struct box_route r = *box_route_at(b, i);

			assert_int_equal(box_del_route(b, r.family, &r.net, r.plen), 0);
		}
		for (unsigned i = 0; box_addr_at(b, i); i++) {
			struct box_addr a = *box_addr_at(b, i);

			assert_int_equal(box_del_addr(b, a.ifindex, a.family, &a.addr), 0);
		}
		check_all(b);
		box_free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fib_equals_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
