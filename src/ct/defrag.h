/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Defragmentation in front of connection tracking (nf_defrag_ipv4 / nf_conntrack_reasm).
 *
 * One struct ct_defrag per box; time is the `now` passed in (box clock, ns). Fragments of one
 * datagram are keyed by (family, src, dst, id, and for IPv4 the protocol); the key does not
 * hold the zone nor the interface, so fragments arriving on different links still meet.
 *
 * IPv4: the datagram replaces its fragments. The fragments are consumed; a new packet with
 * the IPv4 header of the offset-0 fragment continues (total length set, MF and offset
 * cleared, DF set when the largest fragment had it, as Linux does, checksum recomputed).
 *
 * IPv6: a SHADOW copy. Conntrack and the rules see the reassembled datagram; the originals
 * are what leaves the box, unchanged but for what the rules rewrote in the shadow:
 *
 *   frag A --> ct_defrag_in --> HELD (kept in the queue)
 *   frag B --> ct_defrag_in --> HELD
 *   frag C --> ct_defrag_in --> DONE: out.pkt  = shadow [IPv6 hdr | unfrag. ext | L4 | data]
 *                                     out.orig = {A, B, C} in arrival order (owned by caller)
 *
 *   shadow --> PREROUTING (rest) --> route -+-> FORWARD --> POSTROUTING --> would be xmit:
 *                                           |                 ct_defrag6_sync(shadow, A..C)
 *                                           |                 ops.xmit(A), (B), (C)
 *                                           |                 free the shadow
 *                                           +-> INPUT --> ops.deliver(shadow), free A..C
 *   shadow dropped anywhere --> A..C freed with it (one drop, counted once).
 *
 * Limits (Invariant "bounded"): bytes held (high/low thresholds, the oldest queues are
 * evicted), fragments per datagram, a timeout per family counted from the first fragment,
 * datagrams longer than 65535 bytes. Overlaps discard the whole datagram (RFC 5722; Linux
 * does the same for IPv4 since 4.19); a fragment lying wholly inside data already held is a
 * duplicate and only it is dropped. A first fragment without the whole transport header
 * (RFC 3128) or, for IPv6, without the whole header chain (RFC 7112) discards the datagram.
 *
 * Threading: an instance belongs to one box and is used from its data-path thread only.
 */
#ifndef CT_DEFRAG_H
#define CT_DEFRAG_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt/pkt.h"

/*
 * Counters, also the reasons of CT_DEFRAG_DROP. Datagram counters count each discarded
 * datagram once, however many fragments it held.
 */
enum ct_defrag_stat {
	CT_DEFRAG_ST_FRAGS,	/* "frags": fragments seen */
	CT_DEFRAG_ST_REASM,	/* "reassembled": datagrams completed */
	CT_DEFRAG_ST_OVERLAP,	/* "overlap": datagrams discarded, overlapping fragment */
	CT_DEFRAG_ST_DUPLICATE, /* "duplicate": fragments dropped, data already held */
	CT_DEFRAG_ST_TIMEOUT,	/* "timeout": datagrams expired incomplete */
	CT_DEFRAG_ST_EVICTED,	/* "evicted": datagrams evicted to get under the low mark */
	CT_DEFRAG_ST_NOMEM,	/* "no-memory": datagrams discarded, above the high mark
				 * with nothing else to evict, or allocation failed */
	CT_DEFRAG_ST_TOO_MANY,	/* "too-many-frags": datagrams with more than max_frags */
	CT_DEFRAG_ST_TINY,	/* "tiny-first": first fragment without the transport header
				 * (IPv4, IPv6) or the whole IPv6 header chain */
	CT_DEFRAG_ST_TOO_LONG,	/* "too-long": datagrams beyond 65535 bytes */
	CT_DEFRAG_ST_BAD_LEN,	/* "bad-length": empty fragment, IPv6 non-last fragment not a
				 * multiple of 8, a second last fragment or data past the end */
	CT_DEFRAG_ST_BAD_ECN,	/* "bad-ecn": ECN-capable and not-ECT fragments mixed */
	CT_DEFRAG_ST_MAX
};

/* "frags", "overlap", ...; "?" for values out of range. */
const char *ct_defrag_stat_name(enum ct_defrag_stat s);

struct ct_defrag_stats {
	uint64_t v4[CT_DEFRAG_ST_MAX], v6[CT_DEFRAG_ST_MAX];
	uint32_t queues; /* datagrams being reassembled now */
	uint64_t mem;	 /* bytes charged now (packet bytes + bookkeeping) */
};

#define CT_DEFRAG_SEC 1000000000ull

struct ct_defrag_config {
	uint64_t timeout4;    /* ns; ipfrag_time: 30 s */
	uint64_t timeout6;    /* ns; nf_conntrack_frag6_timeout: 60 s */
	uint64_t high_thresh; /* bytes; 4 MiB (ipfrag_high_thresh) */
	uint64_t low_thresh;  /* bytes; 3 MiB (ipfrag_low_thresh): evict down to this */
	uint32_t max_frags;   /* per datagram: 128 (Linux has none; bounded here) */
	uint64_t seed[2];     /* hash key, per instance (e.g. from box_random) */
};

void ct_defrag_config_default(struct ct_defrag_config *c);

struct ct_defrag;

/* NULL on ENOMEM or a bad config (errno EINVAL: zero timeout, low > high, max_frags 0). */
struct ct_defrag *ct_defrag_new(const struct ct_defrag_config *c);
/* Frees every held fragment (not counted as timeouts). */
void ct_defrag_free(struct ct_defrag *d);
const struct ct_defrag_stats *ct_defrag_stats(const struct ct_defrag *d);

enum ct_defrag_verdict {
	CT_DEFRAG_PASS, /* not a fragment: go on with the same packet; caller still owns it */
	CT_DEFRAG_HELD, /* taken and held (like EXT_STOLEN): the caller forgets the packet */
	CT_DEFRAG_DONE, /* complete: go on with out.pkt (and for IPv6 out.orig), see above */
	CT_DEFRAG_DROP, /* refused: the caller still owns the packet and drops it; out.reason */
};

struct ct_defrag_out {
	struct pkt *pkt;	    /* DONE: the datagram (IPv4) or the shadow (IPv6), parsed */
	struct pkt **orig;	    /* DONE, IPv6: the original fragments in arrival order */
	unsigned norig;		    /* 0 for IPv4 */
	uint16_t frag_max_size;	    /* largest fragment's IP length (refragment to it, as Linux) */
	enum ct_defrag_stat reason; /* DROP: why */
};

/*
 * Offer a parsed packet (p->info filled by pkt_parse, trailing padding trimmed). An atomic
 * IPv6 fragment (offset 0, M clear) and every non-fragment PASS. `link` is how p is framed,
 * for parsing the reassembled packet (the link header of the offset-0 fragment is kept).
 * On DONE the new packet carries the metadata (mark, iif, id, tstamp, ...) of `p`, the
 * fragment that completed it. Expired queues are removed first. *out is always written.
 */
enum ct_defrag_verdict ct_defrag_in(struct ct_defrag *d, struct pkt *p, enum pkt_link link,
				    uint64_t now, struct ct_defrag_out *out);

/* Free what a DONE result holds (shadow, originals, the array); for dropped shadows. */
void ct_defrag_out_free(struct ct_defrag_out *out);

/* Remove queues older than their timeout (a queue made at t expires at t + timeout).
 * Returns the number removed. ct_defrag_in does this too; call it from an idle timer. */
unsigned ct_defrag_expire(struct ct_defrag *d, uint64_t now);

/*
 * Carry into one IPv6 original fragment what the rules changed in its shadow: traffic class,
 * flow label, hop limit, addresses, mark and priority; for the offset-0 fragment also the
 * bytes of the fragmentable part it holds (transport header rewrites such as NAT ports or
 * TCPMSS, with their checksums, which the shadow has right for the whole datagram). 0, or
 * -EINVAL when the shadow no longer lines up with the fragments (its length or unfragmentable
 * part changed): conntrack's transmit hook then drops the originals.
 */
int ct_defrag6_sync(const struct pkt *shadow, struct pkt *orig);

#endif
