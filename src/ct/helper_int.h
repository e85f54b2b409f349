/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-table state of helpers and expectations (expect.c, helper.c only). Allocated on
 * first use: a table whose rules never name a helper pays one pointer.
 *
 *   t->helpers --> policy[id] (registered? max_expected, timeout), NAT hooks
 *                  bucket[hash(dst, dport, proto, family, zone)] -> x -> x   (hnext)
 *                  all: oldest <-> ... <-> newest                           (prev/next)
 */
#ifndef CT_HELPER_INT_H
#define CT_HELPER_INT_H

#include "ct/ct_int.h"
#include "ct/helper.h"

#define CT_EXPECT_BUCKETS     256
#define CT_EXPECT_SUBSCRIBERS 4

struct ct_helper_policy {
	bool unregistered;
	unsigned max_expected;
	uint64_t timeout;
	ct_helper_nat_fn nat;
	void *nat_priv;
};

struct ct_helper_state {
	struct ct_helper_policy policy[CT_HELPER_NUM];
	struct ct_expect *bucket[CT_EXPECT_BUCKETS];
	struct ct_expect *oldest, *newest;
	uint64_t next_id;
	struct ct_expect_stats stats;
	/* ct_expect_sweep_elapsed: the next bucket, the time its slices have covered, buckets
	 * visited (for tests) */
	unsigned sweep_next;
	uint64_t sweep_clock, sweep_visited;
	struct {
		ct_expect_event_fn fn;
		void *priv;
	} sub[CT_EXPECT_SUBSCRIBERS];
	unsigned nsub;
};

/* The table's state, created when missing (NULL on ENOMEM). */
struct ct_helper_state *ct_helper_state(struct ct_table *t);

#endif
