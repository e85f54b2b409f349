// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workers.c: the threads, the box lock and the dump's snapshot (workers.h).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "engine/box.h"
#include "live/workers.h"

unsigned live_workers_default(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > LIVE_MAX_WORKERS ? LIVE_MAX_WORKERS : (unsigned)n;
}

int live_pool_init(struct live_pool *p, unsigned n)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->n = n < 1 ? 1 : n > LIVE_MAX_WORKERS ? LIVE_MAX_WORKERS : n;
	if ((r = pthread_mutex_init(&p->box_lock, NULL)))
		return -r;
	if ((r = pthread_mutex_init(&p->snap_lock, NULL))) {
		pthread_mutex_destroy(&p->box_lock);
		return -r;
	}
	if ((r = pthread_cond_init(&p->snap_cond, NULL))) {
		pthread_mutex_destroy(&p->snap_lock);
		pthread_mutex_destroy(&p->box_lock);
		return -r;
	}
	return 0;
}

void live_pool_destroy(struct live_pool *p)
{
	pthread_cond_destroy(&p->snap_cond);
	pthread_mutex_destroy(&p->snap_lock);
	pthread_mutex_destroy(&p->box_lock);
}

static void *worker_main(void *arg)
{
	struct live_pool_slot *s = arg;
	struct live_pool *p = s->pool;

	box_thread_register(); /* liburcu: this thread reads the box's rulesets */
	p->rc[s->i] = p->fn(p->arg[s->i]);
	if (p->rc[s->i] < 0)
		live_pool_fail(p);
	box_thread_unregister();
	return NULL;
}

int live_pool_start(struct live_pool *p, int (*fn)(void *arg), void *const *args)
{
	p->fn = fn;
	for (unsigned i = 1; i < p->n; i++) {
		int r;

		p->arg[i] = args[i];
		p->slot[i] = (struct live_pool_slot){p, i};
		r = pthread_create(&p->thread[i], NULL, worker_main, &p->slot[i]);

		if (r) {
			live_pool_stop(p);
			return -r;
		}
		p->started[i] = true;
	}
	return 0;
}

int live_pool_stop(struct live_pool *p)
{
	int rc = 0;

	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 1; i < p->n; i++) {
		if (p->started[i]) {
			pthread_join(p->thread[i], NULL);
			rc = rc ? rc : p->rc[i];
		}
		p->started[i] = false;
	}
	return rc;
}

bool live_pool_stopping(struct live_pool *p)
{
	return __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) != 0;
}

void live_pool_fail(struct live_pool *p)
{
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
}

void live_pool_lock(struct live_pool *p)
{
	pthread_mutex_lock(&p->box_lock);
}

void live_pool_unlock(struct live_pool *p)
{
	pthread_mutex_unlock(&p->box_lock);
}

bool live_pool_snap_due(struct live_pool *p, unsigned w)
{
	/* snap_seen[w] is written by w only (under snap_lock, read by worker 0 under it) */
	return __atomic_load_n(&p->snap_gen, __ATOMIC_ACQUIRE) != p->snap_seen[w];
}

void live_pool_snap_done(struct live_pool *p, unsigned w)
{
	pthread_mutex_lock(&p->snap_lock);
	p->snap_seen[w] = __atomic_load_n(&p->snap_gen, __ATOMIC_ACQUIRE);
	pthread_cond_broadcast(&p->snap_cond);
	pthread_mutex_unlock(&p->snap_lock);
}

static bool all_seen(const struct live_pool *p, unsigned long gen)
{
	for (unsigned i = 1; i < p->n; i++)
		if (p->started[i] && p->snap_seen[i] != gen)
			return false;
	return true;
}

bool live_pool_snap_request(struct live_pool *p, unsigned timeout_ms)
{
	unsigned long gen;
	struct timespec until;
	bool done;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->snap_lock);
	gen = __atomic_add_fetch(&p->snap_gen, 1, __ATOMIC_ACQ_REL);
	p->snap_seen[0] = gen;
	while (!(done = all_seen(p, gen)))
		if (pthread_cond_timedwait(&p->snap_cond, &p->snap_lock, &until) == ETIMEDOUT) {
			done = all_seen(p, gen);
			break;
		}
	pthread_mutex_unlock(&p->snap_lock);
	return done;
}
