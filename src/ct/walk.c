// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Walking the table in bounded steps, for dumps and deletes driven from outside the data path
 * (the control socket). The cursor is a position in an order of the hashes that does not
 * depend on the table's size, so a walk survives resizes between its steps.
 *
 * The order: the hash's low 31 bits, bit-reversed (key). A bucket of a table of 2^k buckets
 * holds the hashes whose low k bits are its index, which is the keys whose top k bits are the
 * index reversed: one contiguous range of keys, whatever k is.
 *
 *   8 buckets:   key range  [0  .. 1/8)  [1/8 .. 2/8) [2/8 .. 3/8) ...   (of 2^31)
 *                bucket      0            4            2           6 1 5 3 7
 *   4 buckets:   key range  [0      ..       2/8)     [2/8    ..    4/8)  ...
 *                bucket      0 (= old 0 and 4)         2 (= old 2 and 6)
 *
 * A step takes the range of one bucket of the smaller array (during a resize both arrays are
 * read: the other one's buckets of that range are every (small size)-th from the same index)
 * and visits the original-direction nodes whose key is at or after the cursor; the cursor then
 * moves to the range's end. Visited entries are exactly those with a key below the cursor:
 *
 *   grown since the last step:  the cursor is at the edge of a finer range: nothing is skipped
 *   shrunk:  the cursor may be inside a coarser range: its first part is filtered out by key
 *   resize in progress:  an entry is in the old or the new array by its hash; both are read
 *
 * An entry is visited at its original tuple's node only, so once per walk. An entry present for
 * the whole walk is visited exactly once, resized or not; one inserted or removed meanwhile may
 * or may not be, as in the kernel (a dump is not a snapshot). Nothing moves between chains
 * while the callbacks run (t->walking stops the rehash steps an insert would make).
 */
#include "ct/ct_int.h"

#define KEY_END (1u << 31)

static struct ct_entry *node_entry(struct ct_thash *h)
{
	return (struct ct_entry *)((char *)(h - h->dir) - offsetof(struct ct_entry, th));
}

static uint32_t bitrev32(uint32_t x)
{
	x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
	x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
	x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
	x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
	return x >> 16 | x << 16;
}

/* The walk order of a hash: its low 31 bits reversed (bit 0 on top). */
static inline uint32_t walk_key(uint32_t hash)
{
	return bitrev32(hash) >> 1;
}

struct walk_step {
	struct ct_table *t;
	uint32_t from; /* cursor: keys below it were visited */
	uint64_t now;
	ct_walk_fn fn;
	void *priv;
	unsigned seen;
};

static void walk_chain(struct walk_step *w, struct ct_thash *h)
{
	while (h) {
		struct ct_thash *next = h->next;
		struct ct_entry *e = node_entry(h);

		if (h->dir == CT_DIR_ORIGINAL && walk_key(h->hash) >= w->from &&
		    e->expires > w->now) {
			w->seen++;
			if (w->fn(w->priv, e) == CT_WALK_KILL) {
				/* killing e unlinks both of its nodes: never step onto the other
				 * one. Only then: at e's reply node the next one may be e's
				 * original, which must still be visited. */
				while (next && node_entry(next) == e)
					next = next->next;
				ct_kill(w->t, e);
			}
		}
		h = next;
	}
}

/* Every bucket of `arr` (mask) whose index is `idx` modulo small + 1. */
static void walk_array(struct walk_step *w, struct ct_thash **arr, uint32_t mask, uint32_t small,
		       uint32_t idx)
{
	for (uint64_t j = idx; j <= mask; j += (uint64_t)small + 1)
		walk_chain(w, arr[j]);
}

bool ct_walk(struct ct_table *t, uint32_t *cursor, unsigned max, uint64_t now, ct_walk_fn fn,
	     void *priv)
{
	struct walk_step w = {.t = t, .now = now, .fn = fn, .priv = priv};

	t->walking = true;
	while (*cursor < KEY_END && w.seen < max) {
		uint32_t small = t->old_bucket && t->old_mask < t->mask ? t->old_mask : t->mask;
		uint32_t span = KEY_END / (small + 1); /* keys per bucket of the smaller array */
		uint32_t start = *cursor & ~(span - 1);
		uint32_t idx = bitrev32(start << 1) & small;

		w.from = *cursor;
		walk_array(&w, t->bucket, t->mask, small, idx);
		if (t->old_bucket)
			walk_array(&w, t->old_bucket, t->old_mask, small, idx);
		*cursor = start + span;
	}
	t->walking = false;
	return *cursor >= KEY_END;
}

void ct_entry_set_timeout(struct ct_entry *e, uint64_t now, uint64_t timeout)
{
	e->expires = now + timeout; /* asked for: also when the timeout is fixed */
}
