// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Walking the table in bounded steps, for dumps and deletes driven from outside the data path
 * (the control socket). The cursor is a bucket index, as ctnetlink's dump keeps one:
 *
 *   bucket:   0      1      2      3   ...  mask
 *             |      |      |      |
 *             e1o -> e7r    e3o    e7o -> e2r      o: original-direction node (visited)
 *                                                   r: reply-direction node (skipped)
 *   step 1 (max 2): buckets 0..2, visits e1 e3, cursor = 3
 *   step 2        : buckets 3..,  visits e7 ...
 *
 * An entry is visited at its original tuple's node only, so once per walk. Entries do not move
 * between buckets (the hash key is fixed per table), so an entry present for the whole walk is
 * visited exactly once; one inserted or removed meanwhile may or may not be, as in the kernel.
 */
#include "ct/ct_int.h"

static struct ct_entry *node_entry(struct ct_thash *h)
{
	return (struct ct_entry *)((char *)(h - h->dir) - offsetof(struct ct_entry, th));
}

bool ct_walk(struct ct_table *t, uint32_t *cursor, unsigned max, uint64_t now, ct_walk_fn fn,
	     void *priv)
{
	unsigned seen = 0;

	while (*cursor <= t->mask && seen < max) {
		struct ct_thash *h = t->bucket[*cursor];

		while (h) {
			struct ct_thash *next = h->next;
			struct ct_entry *e = node_entry(h);

			if (h->dir == CT_DIR_ORIGINAL && e->expires > now) {
				seen++;
				if (fn(priv, e) == CT_WALK_KILL) {
					/* killing e unlinks both of its nodes: never step onto the
					 * other one. Only then: at e's reply node the next one may
					 * be e's original, which must still be visited. */
					while (next && node_entry(next) == e)
						next = next->next;
					ct_kill(t, e);
				}
			}
			h = next;
		}
		(*cursor)++;
	}
	return *cursor > t->mask;
}

void ct_entry_set_timeout(struct ct_entry *e, uint64_t now, uint64_t timeout)
{
	ct_refresh(e, now, timeout);
}
