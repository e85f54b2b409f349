// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The conntrack table: a chained hash of both directions' tuples, keyed by SipHash-1-3 with a
 * per-table key (so flows cannot be steered into one bucket by someone who knows the code),
 * the entry lists, reference counting, expiry and eviction.
 *
 *   bucket[h(tuple) & mask] -> ct_thash(dir 0 of e1) -> ct_thash(dir 1 of e7) -> NULL
 *   each entry is in two chains: th[0] (original tuple) and th[1] (reply tuple)
 *
 * Resizing (nf_conntrack_buckets) is incremental: the new array takes over at once and the old
 * one is emptied in index order, a bounded number of nodes per insert and per ct_sweep call, so
 * no packet waits for the whole table to move (a one-shot rehash of 1M entries measured 60-100
 * ms, bench_ct's rehash_oneshot_ms). Each node keeps its hash, so moving it needs no SipHash.
 * Where a tuple's node is follows from its hash alone, so a lookup still reads one chain:
 *
 *   resizing and (hash & old_mask) >= rehash_next:  old_bucket[hash & old_mask]
 *   otherwise:                                       bucket[hash & mask]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_int.h"
#include "ct/tstamp.h"
#include "ct/helper.h"
#include "pkt/hash.h"

/* ---- the tuple's hash: pkt_hash13 (SipHash-1-3) under the table's key ------------------- */

/* ct_hash_tuple (ct_int.h) reads the tuple as words: */
_Static_assert(sizeof(struct ct_tuple) == 5 * sizeof(uint64_t), "a tuple is five words");
_Static_assert(offsetof(struct ct_tuple, l4proto) - offsetof(struct ct_tuple, s) == 7,
	       "ports, zone, family and protocol fill the second word of an IPv4 tuple's hash");

/* ---- hash chains ------------------------------------------------------------------------- */

/* Work per step of a resize: whole old buckets until this many nodes moved or buckets seen. */
#define CT_REHASH_INSERT_NODES	 64
#define CT_REHASH_INSERT_BUCKETS 64
#define CT_REHASH_SWEEP_NODES	 1024 /* ct_sweep: also at most its `buckets` */

/* Move old buckets (whole) to the new array until max_nodes moved or max_buckets emptied. */
static void rehash_step(struct ct_table *t, uint32_t max_buckets, uint32_t max_nodes)
{
	uint32_t moved = 0;

	while (t->old_bucket && max_buckets-- && moved < max_nodes) {
		struct ct_thash *h = t->old_bucket[t->rehash_next];

		t->old_bucket[t->rehash_next++] = NULL;
		while (h) {
			struct ct_thash *next = h->next, **b = &t->bucket[h->hash & t->mask];

			h->next = *b;
			*b = h;
			h = next;
			moved++;
		}
		if (t->rehash_next > t->old_mask) {
			free(t->old_bucket);
			t->old_bucket = NULL;
			t->old_mask = t->rehash_next = 0;
		}
	}
}

void ct_hash_insert(struct ct_table *t, struct ct_entry *e)
{
	for (int d = 0; d < 2; d++)
		e->th[d].hash = (uint32_t)ct_hash_tuple(t, &e->th[d].tuple);
	ct_hash_link(t, e);
}

void ct_hash_link(struct ct_table *t, struct ct_entry *e)
{
	if (t->old_bucket && !t->walking)
		rehash_step(t, CT_REHASH_INSERT_BUCKETS, CT_REHASH_INSERT_NODES);
	for (int d = 0; d < 2; d++) {
		struct ct_thash **b = ct_chain_of(t, e->th[d].hash);

		e->th[d].next = *b;
		*b = &e->th[d];
	}
}

void ct_hash_remove(struct ct_table *t, struct ct_entry *e)
{
	for (int d = 0; d < 2; d++) {
		struct ct_thash **pp = ct_chain_of(t, e->th[d].hash);

		while (*pp && *pp != &e->th[d])
			pp = &(*pp)->next;
		if (*pp)
			*pp = e->th[d].next;
		e->th[d].next = NULL;
	}
}

/* ---- lists ------------------------------------------------------------------------------- */

void ct_list_add_tail(struct ct_table *t, struct ct_entry *e, enum ct_list_id id)
{
	struct ct_list *l = &t->lists[id];

	e->list = id;
	e->next = NULL;
	e->prev = l->tail;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
}

void ct_list_del(struct ct_table *t, struct ct_entry *e)
{
	struct ct_list *l = &t->lists[e->list];

	if (e->list == CT_LIST_NONE)
		return;
	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	e->prev = e->next = NULL;
	if (e->list == CT_LIST_UNCONFIRMED)
		t->stats.unconfirmed--;
	e->list = CT_LIST_NONE;
}

/* ---- lifetime ---------------------------------------------------------------------------- */

/*
 * Not on a line boundary: entries from aligned_alloc(64, ...) made bench_stack's `full` row take
 * 1.8-2.9 times as long per packet on this machine's AMD EPYC (1.30-2.06 Mpps against
 * 3.23-3.85, the same binary otherwise; callgrind's instruction and simulated miss counts say
 * the opposite, so the cause is in the hardware and was not found). docs/performance.md,
 * "hot/cold entry", has the runs.
 */
struct ct_entry *ct_entry_alloc(void)
{
	return calloc(1, sizeof(struct ct_entry));
}

void ct_put_last(struct ct_table *t, struct ct_entry *e)
{
	ct_list_del(t, e);
	ct_expect_entry_free(t, e); /* expectations left (an unconfirmed master), master ref */
	ct_ext_free(e);
	free(e);
}

void ct_deliver_events(struct ct_table *t, struct ct_entry *e, uint32_t events,
		       enum ct_destroy_reason why)
{
	if (!events)
		return;
	for (unsigned i = 0; i < t->nsub; i++)
		t->sub[i].fn(t->sub[i].priv, events, e, why);
}

void ct_kill_reason(struct ct_table *t, struct ct_entry *e, enum ct_destroy_reason why)
{
	if (e->status & CT_S_DYING)
		return;
	e->status |= CT_S_DYING;
	ct_expect_master_gone(t, e); /* its expectations die with it */
	if (!(e->status & CT_S_CONFIRMED))
		return; /* never inserted: freed with the packet's reference, no events */
	ct_hash_remove(t, e);
	ct_list_del(t, e);
	t->stats.count--;
	e->events = 0;
	ct_tstamp_stop(e, t->clock);
	ct_deliver_events(t, e, CT_EV_DESTROY, why);
	ct_put(t, e); /* the table's reference */
}

void ct_kill(struct ct_table *t, struct ct_entry *e)
{
	ct_kill_reason(t, e, CT_GONE_KILLED);
}

struct ct_entry *ct_find_expiring(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now,
				  enum ct_dir *dir)
{
	return ct_find_hashed(t, tuple, (uint32_t)ct_hash_tuple(t, tuple), now, dir);
}

void ct_find_expired(struct ct_table *t, struct ct_entry *e)
{
	t->stats.expired++;
	ct_kill_reason(t, e, CT_GONE_TIMEOUT);
}

struct ct_entry *ct_lookup(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now,
			   enum ct_dir *dir)
{
	return ct_find_expiring(t, tuple, now, dir);
}

unsigned ct_sweep(struct ct_table *t, uint64_t now, unsigned buckets)
{
	unsigned removed = 0;

	t->clock = now;
	if (t->old_bucket)
		rehash_step(t, buckets, CT_REHASH_SWEEP_NODES);
	if (buckets > t->mask + 1)
		buckets = t->mask + 1;
	while (buckets--) {
		struct ct_thash *h = t->bucket[t->sweep_next];

		t->sweep_next = (t->sweep_next + 1) & t->mask;
		while (h) {
			struct ct_thash *next = h->next;
			struct ct_entry *e = ct_thash_entry(h);

			/* the entry's other node may be `next`: skip it in that case */
			if (next && ct_thash_entry(next) == e)
				next = next->next;
			if (ct_expired(e, now)) {
				t->stats.expired++;
				ct_kill_reason(t, e, CT_GONE_TIMEOUT);
				removed++;
			}
			h = next;
		}
	}
	return removed;
}

uint64_t ct_sweep_due(uint64_t *clock, uint64_t now, uint64_t n, uint64_t slice)
{
	uint64_t elapsed, due;

	if (now <= *clock) {
		*clock = now; /* a clock set back: count from there */
		return 0;
	}
	elapsed = now - *clock;
	/* n <= CT_BUCKETS_MAX (2^24) and elapsed < the period here: no overflow */
	due = elapsed >= CT_SWEEP_PERIOD ? n : elapsed * n / CT_SWEEP_PERIOD;
	if (!due)
		return 0; /* less than a bucket's worth: the time is kept for the next move */
	if (due > slice)
		due = slice;
	if (due == n || due == slice)
		*clock = now; /* a backlog is not carried: lookups honour expiry anyway */
	else
		*clock += due * CT_SWEEP_PERIOD / n;
	return due;
}

unsigned ct_sweep_elapsed(struct ct_table *t, uint64_t now)
{
	uint64_t due =
	    ct_sweep_due(&t->sweep_clock, now, (uint64_t)t->mask + 1, CT_SWEEP_SLICE_MAX);

	if (!due)
		return 0;
	ct_sweep(t, now, (unsigned)due);
	t->sweep_visited += due;
	return (unsigned)due;
}

bool ct_early_drop(struct ct_table *t)
{
	struct ct_entry *e = t->lists[CT_LIST_UNASSURED].head;

	if (!e)
		return false;
	t->stats.early_drop++;
	ct_kill_reason(t, e, CT_GONE_EVICTED);
	return true;
}

void ct_flush(struct ct_table *t)
{
	for (enum ct_list_id l = CT_LIST_UNASSURED; l <= CT_LIST_ASSURED; l++)
		while (t->lists[l].head)
			ct_kill_reason(t, t->lists[l].head, CT_GONE_FLUSH);
}

/* ---- the table --------------------------------------------------------------------------- */

/* The power of two at or above n, within CT_BUCKETS_MIN .. CT_BUCKETS_MAX. */
static uint32_t bucket_count(uint32_t n)
{
	if (n < CT_BUCKETS_MIN)
		n = CT_BUCKETS_MIN;
	if (n > CT_BUCKETS_MAX)
		n = CT_BUCKETS_MAX;
	n--;
	n |= n >> 1, n |= n >> 2, n |= n >> 4, n |= n >> 8, n |= n >> 16;
	return n + 1;
}

struct ct_table *ct_table_new(const struct ct_config *c)
{
	struct ct_table *t;
	uint32_t n = c->buckets ? c->buckets : c->max_entries / 2;

	if (c->max_entries == 0 || n > CT_BUCKETS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cfg = *c;
	t->cfg.buckets_set = c->buckets_set || c->buckets;
	n = bucket_count(n);
	t->cfg.buckets = n;
	t->mask = n - 1;
	t->bucket = calloc(n, sizeof(*t->bucket));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	pkt_hash13_init(&t->hkey, t->cfg.seed);
	t->next_id = 1;
	ct_ext_register_core(t);
	return t;
}

void ct_table_rehash_finish(struct ct_table *t)
{
	while (t->old_bucket)
		rehash_step(t, UINT32_MAX, UINT32_MAX);
}

bool ct_table_resizing(const struct ct_table *t)
{
	return t->old_bucket != NULL;
}

int ct_table_resize(struct ct_table *t, uint32_t buckets)
{
	uint32_t n;
	struct ct_thash **nb;

	if (!buckets || buckets > CT_BUCKETS_MAX)
		return -EINVAL;
	n = bucket_count(buckets);
	if (n == t->mask + 1)
		return 0;
	/* a second resize before the first one is done: the first finishes now */
	ct_table_rehash_finish(t);
	nb = calloc(n, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	t->old_bucket = t->bucket;
	t->old_mask = t->mask;
	t->rehash_next = 0;
	t->bucket = nb;
	t->mask = n - 1;
	t->sweep_next &= t->mask;
	t->cfg.buckets = n;
	return 0;
}

void ct_table_free(struct ct_table *t)
{
	if (!t)
		return;
	ct_flush(t);
	/* Unconfirmed entries and dying ones still referenced by packets: the packets must not
	 * be used with this table any more, so their references go with it. */
	while (t->lists[CT_LIST_UNCONFIRMED].head) {
		struct ct_entry *e = t->lists[CT_LIST_UNCONFIRMED].head;

		ct_list_del(t, e);
		ct_expect_entry_free(t, e);
		ct_ext_free(e);
		free(e);
	}
	ct_expect_table_free(t);
	free(t->policies);
	free(t->old_bucket);
	free(t->bucket);
	free(t);
}

const struct ct_config *ct_table_config(const struct ct_table *t)
{
	return &t->cfg;
}

int ct_table_set_config(struct ct_table *t, const struct ct_config *c)
{
	t->cfg.tcp_loose = c->tcp_loose;
	t->cfg.tcp_be_liberal = c->tcp_be_liberal;
	t->cfg.tcp_max_retrans = c->tcp_max_retrans;
	t->cfg.dccp_loose = c->dccp_loose;
	t->cfg.checksum = c->checksum;
	t->cfg.acct = c->acct;
	t->cfg.tstamp = c->tstamp;
	t->cfg.timeouts = c->timeouts;
	if (c->max_entries)
		t->cfg.max_entries = c->max_entries;
	if (c->buckets_set)
		t->cfg.buckets_set =
		    true; /* the admin's choice from now on, even an unchanged size */
	if (c->buckets && c->buckets != t->cfg.buckets) {
		t->cfg.buckets_set = true;
		return ct_table_resize(t, c->buckets);
	}
	/* Automatic size: Linux sizes the hash once (max = buckets since 5.15) and never again;
	 * here a raised max also grows it, keeping max <= 2 * buckets as the defaults have it
	 * (chains of at most ~4 nodes when full). Never shrunk automatically. */
	if (!t->cfg.buckets_set && t->cfg.max_entries / 2 > t->mask + 1)
		return ct_table_resize(t, t->cfg.max_entries / 2);
	return 0;
}

const struct ct_stats *ct_table_stats(const struct ct_table *t)
{
	return &t->stats;
}

uint64_t ct_table_clock(const struct ct_table *t)
{
	return t->clock;
}

int ct_event_subscribe(struct ct_table *t, ct_event_fn fn, void *priv)
{
	if (t->nsub == CT_MAX_SUBSCRIBERS)
		return -ENOSPC;
	t->sub[t->nsub].fn = fn;
	t->sub[t->nsub].priv = priv;
	t->nsub++;
	return 0;
}

int ct_event_unsubscribe(struct ct_table *t, ct_event_fn fn, void *priv)
{
	for (unsigned i = 0; i < t->nsub; i++) {
		if (t->sub[i].fn == fn && t->sub[i].priv == priv) {
			memmove(&t->sub[i], &t->sub[i + 1], (t->nsub - i - 1) * sizeof(t->sub[0]));
			t->nsub--;
			return 0;
		}
	}
	return -ENOENT;
}
