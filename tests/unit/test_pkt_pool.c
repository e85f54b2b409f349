// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packet pool: packets come back and are handed out again, no more than `max` stay idle,
 * a packet a splice grew (an owned buffer of its own) gives that buffer up when it comes back,
 * a frame longer than the pool's buffers gets a packet of its own, and packets may outlive the
 * pool (under ASan a block freed twice or never would show).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pkt/pkt.h"

static void test_reuse_and_limit(void **state)
{
	struct pkt_pool *pp = pkt_pool_new(2, 128);
	uint8_t data[128];
	struct pkt *p[4];
	struct pkt_pool_stats st;

	(void)state;
	assert_non_null(pp);
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	for (unsigned i = 0; i < 4; i++) {
		p[i] = pkt_pool_get(pp, data, 60 + i);
		assert_non_null(p[i]);
		assert_int_equal(p[i]->len, 60 + i);
		assert_int_equal(p[i]->nsegs, 1);
		assert_memory_equal(p[i]->seg[0].data, data, 60 + i);
		p[i]->mark = 7; /* gone when it is handed out again */
	}
	for (unsigned i = 0; i < 4; i++)
		pkt_free(p[i]);
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.made, 4);
	assert_int_equal(st.freed, 2); /* only two stay idle */
	assert_int_equal(st.idle, 2);
	assert_int_equal(st.out, 0);
	p[0] = pkt_pool_get(pp, data, 10);
	assert_int_equal(p[0]->mark, 0);
	assert_int_equal(p[0]->len, 10);
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.reused, 1);
	assert_int_equal(st.made, 4);
	/* a splice makes the data an owned buffer; the pool's block stays the pool's */
	assert_int_equal(pkt_splice(p[0], 2, 2, data, 100), 0);
	assert_int_equal(p[0]->len, 108);
	pkt_free(p[0]);
	p[0] = pkt_pool_get(pp, data, 128);
	assert_memory_equal(pkt_linear_data(p[0]), data, 128);
	/* longer than the buffers: a packet of its own */
	p[1] = pkt_pool_get(pp, data, 100);
	p[2] = pkt_from_bytes(data, 128);
	assert_non_null(p[2]);
	pkt_free(p[2]);
	/* the pool goes first; its packets free themselves and the pool with the last */
	pkt_pool_free(pp);
	pkt_free(p[0]);
	pkt_free(p[1]);
}

static void test_oversize_and_none(void **state)
{
	struct pkt_pool *pp = pkt_pool_new(4, 64);
	uint8_t data[200] = {1, 2, 3};
	struct pkt *p;
	struct pkt_pool_stats st;

	(void)state;
	p = pkt_pool_get(pp, data, 200);
	assert_non_null(p);
	assert_null(p->pool);
	assert_int_equal(p->len, 200);
	pkt_free(p);
	p = pkt_pool_get(NULL, data, 3);
	assert_non_null(p);
	assert_null(p->pool);
	pkt_free(p);
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.gets, 0);
	assert_null(pkt_pool_new(4, 0));
	pkt_pool_free(pp);
	pkt_pool_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reuse_and_limit),
	    cmocka_unit_test(test_oversize_and_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
