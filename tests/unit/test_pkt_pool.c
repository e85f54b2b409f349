// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packet pool: packets come back and are handed out again, no more than `max` stay idle,
 * a packet a splice grew (an owned buffer of its own) gives that buffer up when it comes back,
 * a frame longer than the pool's buffers gets a packet of its own, and packets may outlive the
 * pool (under ASan a block freed twice or never would show). A lent packet (pkt_pool_lend, the
 * zero-copy receive's) points at the lender's bytes until pkt_keep copies them and takes the
 * block out of the pool; the lender's memory is then poisoned and freed, so a kept packet that
 * still pointed into it would read the poison (or, under ASan, freed memory).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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

/* A stand-in for a ring's block: malloc'd so that ASan sees a read after it is given back. */
static uint8_t *block_new(const uint8_t *frame, uint32_t len, uint32_t off)
{
	uint8_t *b = malloc(off + len);

	assert_non_null(b);
	memset(b, 0x11, off);
	memcpy(b + off, frame, len);
	return b;
}

/* The block given back: poisoned (what the kernel's next frames would do), then freed. */
static void block_return(uint8_t *b, uint32_t size)
{
	memset(b, 0xee, size);
	free(b);
}

static void test_lend_and_keep(void **state)
{
	struct pkt_pool *pp = pkt_pool_new(4, 64);
	struct pkt_pool_stats st;
	uint8_t frame[300], *blk;
	struct pkt *p, *q;

	(void)state;
	for (unsigned i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7 + 3);
	/* lent: the pool's block over the lender's bytes, nothing copied, longer than the
	 * pool's buffers is no matter */
	blk = block_new(frame, sizeof(frame), 40);
	p = pkt_pool_lend(pp, blk + 40, sizeof(frame));
	assert_non_null(p);
	assert_ptr_equal(p->seg[0].data, blk + 40);
	assert_int_equal(p->len, sizeof(frame));
	assert_true(pkt_lent(p));
	/* not kept: back to the pool, the lender's bytes untouched */
	pkt_free(p);
	assert_memory_equal(blk + 40, frame, sizeof(frame));
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.lent, 1);
	assert_int_equal(st.kept, 0);
	assert_int_equal(st.out, 0);
	assert_int_equal(st.idle, 1);
	/* kept: the same struct, its own linear copy, out of the pool */
	p = pkt_pool_lend(pp, blk + 40, sizeof(frame));
	p->mark = 9;
	assert_int_equal(pkt_keep(p), 0);
	assert_false(pkt_lent(p));
	assert_null(p->pool);
	assert_int_equal(p->nsegs, 1);
	assert_ptr_not_equal(p->seg[0].data, blk + 40);
	assert_int_equal(p->mark, 9);
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.kept, 1);
	assert_int_equal(st.out, 0);
	block_return(blk, 40 + sizeof(frame));
	assert_int_equal(p->len, sizeof(frame));
	assert_memory_equal(pkt_linear_data(p), frame, sizeof(frame));
	assert_int_equal(pkt_keep(p), 0); /* owned: nothing to do */
	pkt_free(p);			  /* a plain packet now: the whole block freed */
	/* packets that own their bytes are left as they are */
	p = pkt_pool_get(pp, frame, 60);
	q = pkt_from_bytes(frame, 100);
	assert_false(pkt_lent(p));
	assert_false(pkt_lent(q));
	assert_int_equal(pkt_keep(p), 0);
	assert_int_equal(pkt_keep(q), 0);
	assert_ptr_equal(p->pool, pp);
	assert_ptr_equal(p->seg[0].data, (uint8_t *)(p + 1));
	pkt_free(p);
	pkt_free(q);
	/* a pool closed while a lent packet is out goes with the packet's keep */
	blk = block_new(frame, 80, 0);
	p = pkt_pool_lend(pp, blk, 80);
	pkt_pool_free(pp);
	assert_int_equal(pkt_keep(p), 0);
	block_return(blk, 80);
	assert_memory_equal(pkt_linear_data(p), frame, 80);
	pkt_free(p);
	assert_null(pkt_pool_lend(NULL, frame, 10));
}

/* pkt_init_segs over two lent pieces: pkt_keep makes one owned buffer, pkt_release frees it. */
static void test_keep_init_segs(void **state)
{
	uint8_t frame[100], *a, *b;
	struct pkt_seg segs[2];
	struct pkt p;

	(void)state;
	for (unsigned i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(255 - i);
	a = block_new(frame, 30, 0);
	b = block_new(frame + 30, 70, 0);
	segs[0] = (struct pkt_seg){a, 30};
	segs[1] = (struct pkt_seg){b, 70};
	assert_int_equal(pkt_init_segs(&p, segs, 2), 0);
	assert_true(pkt_lent(&p));
	assert_int_equal(pkt_keep(&p), 0);
	assert_false(pkt_lent(&p));
	block_return(a, 30);
	block_return(b, 70);
	assert_int_equal(p.nsegs, 1);
	assert_memory_equal(pkt_linear_data(&p), frame, sizeof(frame));
	pkt_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reuse_and_limit),
	    cmocka_unit_test(test_oversize_and_none),
	    cmocka_unit_test(test_lend_and_keep),
	    cmocka_unit_test(test_keep_init_segs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
