/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live/workers.c: the threads around one box lock. Four workers each add to one counter under
 * the box lock (no count lost), answer the dump's snapshot requests with their own counters
 * (worker 0 waits for every answer, then reads them), and a worker that fails stops the others
 * and its error comes back from live_pool_stop. Built once with -fsanitize=thread too (see
 * docs/live.md): the lock and the snapshot's hand-over must show no data race.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "live/workers.h"

#define NW    4
#define ADDS  20000
#define SNAPS 5

struct shared {
	struct live_pool pool;
	uint64_t under_lock; /* the box's stand-in: touched under box_lock only */
	unsigned fail_at;    /* worker that fails (0: none) */
};

struct worker {
	struct shared *s;
	unsigned id;
	uint64_t mine; /* its own counter, outside the lock */
	uint64_t snap; /* the dump's copy */
};

static int work(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;

	if (w->id == s->fail_at)
		return -EIO;
	for (unsigned i = 0; i < ADDS; i++) {
		live_pool_lock(&s->pool);
		s->under_lock++;
		live_pool_unlock(&s->pool);
		w->mine++;
		if (live_pool_snap_due(&s->pool, w->id)) {
			w->snap = w->mine;
			live_pool_snap_done(&s->pool, w->id);
		}
	}
	/* done: keep answering until told to stop, as a worker's loop does */
	while (!live_pool_stopping(&s->pool)) {
		struct timespec ms = {0, 1000000};

		if (live_pool_snap_due(&s->pool, w->id)) {
			w->snap = w->mine;
			live_pool_snap_done(&s->pool, w->id);
		}
		nanosleep(&ms, NULL);
	}
	return 0;
}

static void run_pool(struct shared *s, struct worker *w)
{
	void *args[NW];

	for (unsigned i = 0; i < NW; i++) {
		w[i] = (struct worker){.s = s, .id = i};
		args[i] = &w[i];
	}
	assert_int_equal(live_pool_init(&s->pool, NW), 0);
	assert_int_equal(live_pool_start(&s->pool, work, args), 0);
}

static void test_lock_and_snapshots(void **state)
{
	struct shared s = {0};
	struct worker w[NW];
	uint64_t last = 0;

	(void)state;
	run_pool(&s, w);
	for (unsigned k = 0; k < SNAPS; k++) {
		uint64_t sum = 0;

		assert_true(live_pool_snap_request(&s.pool, 5000));
		for (unsigned i = 1; i < NW; i++)
			sum += w[i].snap; /* answered: theirs to read now */
		assert_true(sum >= last);
		last = sum;
	}
	/* everyone finishes its adds; a last snapshot sees them all */
	for (unsigned tries = 0; tries < 5000; tries++) {
		uint64_t sum = 0;

		assert_true(live_pool_snap_request(&s.pool, 5000));
		for (unsigned i = 1; i < NW; i++)
			sum += w[i].snap;
		if (sum == (uint64_t)(NW - 1) * ADDS)
			break;
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	assert_int_equal(live_pool_stop(&s.pool), 0);
	assert_int_equal(s.under_lock, (uint64_t)(NW - 1) * ADDS); /* worker 0 is the test */
	for (unsigned i = 1; i < NW; i++)
		assert_int_equal(w[i].snap, ADDS);
	live_pool_destroy(&s.pool);
}

static void test_failure_stops_all(void **state)
{
	struct shared s = {.fail_at = 2};
	struct worker w[NW];

	(void)state;
	run_pool(&s, w);
	/* the failing worker stops the pool; the others see it and leave */
	for (unsigned tries = 0; tries < 5000 && !live_pool_stopping(&s.pool); tries++) {
		struct timespec ms = {0, 1000000};

		nanosleep(&ms, NULL);
	}
	assert_true(live_pool_stopping(&s.pool));
	assert_int_equal(live_pool_stop(&s.pool), -EIO);
	live_pool_destroy(&s.pool);
}

static void test_default(void **state)
{
	unsigned n = live_workers_default();

	(void)state;
	assert_true(n >= 1 && n <= LIVE_MAX_WORKERS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lock_and_snapshots),
	    cmocka_unit_test(test_failure_stops_all),
	    cmocka_unit_test(test_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
