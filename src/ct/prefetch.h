/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack's part of a burst (the box's prepare_burst, engine/box.h): before the first packet
 * of a burst goes its way, every packet's tuple is hashed and its chain prefetched, so that
 * the lookups of the packets after it find their bucket and first node in the cache. The hash
 * is kept as a hint for that packet's own ct_in:
 *
 *   ct_burst_prepare   pass 1: tuple (zone as the packet carries it now), hash, prefetch the
 *                      bucket; pass 2: prefetch the chain's first node
 *   ct_in_hinted       the tuple made again; equal to the hint's: the hint's hash, else hashed
 *
 * Nothing is changed by the prepare: no entry, no counter of the table, no packet. The hint is
 * only taken for the same packet and an equal tuple: a raw-table CT --zone, NOTRACK, a packet
 * reassembled or rewritten before conntrack, or an earlier packet of the burst cannot make it
 * wrong, as the hash is a function of the tuple and the table's key alone (fixed for the
 * table's life; a resize moves chains, never hashes). Not for use outside src/ct.
 */
#ifndef CT_PREFETCH_H
#define CT_PREFETCH_H

#include "ct/ct_int.h"

#define CT_BURST_MAX 256 /* BOX_BURST_MAX (plugin.c checks) */

struct ct_hint {
	const struct pkt *pkt; /* the packet it was made for; NULL: none (not a TCP/UDP one) */
	struct ct_tuple tuple; /* its tuple at the prepare */
	uint32_t hash;	       /* ct_hash_tuple(t, &tuple), low 32 bits */
};

/* One box's hints, for the burst prepared last. */
struct ct_burst {
	unsigned n; /* hint[0..n-1] are that burst's */
	/* counters: hints made; taken by ct_in; refused (another packet or tuple) */
	uint64_t prepared, used, refused;
	struct ct_hint hint[CT_BURST_MAX];
};

/* Hash the tuples of pkts[0..n-1] into cb's hints and prefetch their chains. */
void ct_burst_prepare(struct ct_table *t, struct ct_burst *cb, struct pkt *const *pkts, unsigned n);

/*
 * The hash of p's tuple for its lookup: hint idx's (box_burst_index) when it was made for p and
 * the same tuple, else computed. cb NULL or idx out of range: computed.
 */
static inline uint32_t ct_burst_hash(const struct ct_table *t, struct ct_burst *cb, int idx,
				     const struct pkt *p, const struct ct_tuple *tuple)
{
	if (cb && (unsigned)idx < cb->n && cb->hint[idx].pkt == p) {
		const struct ct_hint *h = &cb->hint[idx];

		if (ct_tuple_eq(&h->tuple, tuple)) {
			cb->used++;
			return h->hash;
		}
		cb->refused++;
	}
	return (uint32_t)ct_hash_tuple(t, tuple);
}

/* The box's hints and their counters (plugin.c), NULL while tracking is off or before the
 * first prepared burst: for tests. */
struct box;
const struct ct_burst *ct_box_burst(const struct box *b);

/* ct_in with a burst's hints (ct_burst_hash): the same answers. */
int ct_in_hinted(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone, uint64_t now,
		 struct ct_burst *cb, int idx);

#endif
