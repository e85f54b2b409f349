// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack's prepare of a burst: hash every tuple, prefetch every chain (prefetch.h says why
 * it changes nothing).
 */
#include "ct/prefetch.h"

/* The tuple ct_in would make for p now, when it is the common kind (ct_tuple_from_ports). */
static bool hint_tuple(const struct pkt *p, struct ct_tuple *tuple)
{
	const struct pkt_info *in = &p->info;

	if (p->ct || (p->ctinfo & CT_INFO_MASK) == CT_UNTRACKED || in->bad != PKT_OK ||
	    in->is_fragment)
		return false;
	return ct_tuple_from_ports(in, (uint16_t)(p->ctinfo >> CT_INFO_ZONE_SHIFT), tuple);
}

/* ct_chain_of, with the table's array and mask read once per pass (resizing: the general
 * answer). */
static inline struct ct_thash **slot_of(struct ct_table *t, bool resizing, struct ct_thash **arr,
					uint32_t mask, uint32_t hash)
{
	return resizing ? ct_chain_of(t, hash) : &arr[hash & mask];
}

void ct_burst_prepare(struct ct_table *t, struct ct_burst *cb, struct pkt *const *pkts, unsigned n)
{
	struct ct_thash **arr = t->bucket;
	bool resizing = t->old_bucket != NULL;
	uint32_t mask = t->mask;

	if (n > CT_BURST_MAX)
		n = CT_BURST_MAX;
	/* the hashes, and their buckets prefetched */
	for (unsigned i = 0; i < n; i++) {
		struct ct_hint *h = &cb->hint[i];

		h->pkt = NULL;
		if (!hint_tuple(pkts[i], &h->tuple))
			continue;
		h->pkt = pkts[i];
		h->hash = (uint32_t)ct_hash_tuple(t, &h->tuple);
		__builtin_prefetch(slot_of(t, resizing, arr, mask, h->hash));
		cb->prepared++;
	}
	cb->n = n;
	/* the first node of each chain (its bucket is in the cache by now, or on its way) */
	for (unsigned i = 0; i < n; i++) {
		const struct ct_hint *h = &cb->hint[i];
		struct ct_thash *node;

		if (!h->pkt)
			continue;
		node = *slot_of(t, resizing, arr, mask, h->hash);
		if (node)
			__builtin_prefetch(node);
	}
}
