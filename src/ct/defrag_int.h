/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the defragmenter: what defrag.c (queues, limits, IPv4) and defrag6.c (IPv6 shadow)
 * share. Not for other layers.
 */
#ifndef CT_DEFRAG_INT_H
#define CT_DEFRAG_INT_H

#include "ct/defrag.h"

/* Hashed whole, so it is zeroed before it is filled (no stray padding bytes). */
struct defrag_key {
	union pt_addr src, dst;
	uint32_t id;
	uint8_t family; /* AF_INET, AF_INET6 */
	uint8_t proto;	/* IPv4 only; IPv6 fragments of one datagram share no protocol field */
	uint8_t pad[2];
};

/*
 * What one fragment says about itself. Offsets `data`, `nh_off` are absolute in the packet;
 * off/end count bytes of the fragmentable part (IPv4: after the header, IPv6: after the
 * fragment header).
 */
struct defrag_view {
	struct defrag_key key;
	uint32_t off, end;
	uint32_t data;
	uint32_t hdrlen; /* IPv4: ihl; IPv6: the unfragmentable part (IPv6 header + ext) */
	uint32_t nh_off; /* IPv6: the next-header byte that names the fragment header */
	uint16_t size;	 /* this fragment's IP length */
	bool more, df;
	uint8_t ecn; /* ECN codepoint, 0..3 */
};

struct defrag_frag {
	struct defrag_frag *next; /* by offset */
	struct pkt *pkt;
	uint32_t off, end, data;
	uint32_t seq; /* arrival order within the queue */
	uint32_t truesize;
};

struct defrag_queue {
	struct defrag_queue *hnext;	    /* hash chain */
	struct defrag_queue *older, *newer; /* its family's list, by creation time */
	struct defrag_key key;
	uint64_t created;
	struct defrag_frag *frags;
	unsigned nfrags;
	uint32_t len;  /* the datagram's fragmentable length as far as known */
	uint32_t meat; /* bytes held (fragments never overlap, so complete when meat == len) */
	uint32_t seq;
	bool last_in;
	uint16_t max_size, max_df_size;
	uint8_t ecn_seen; /* 1 << codepoint for every fragment */
	uint64_t mem;
};

/* 0, or the reason to drop the fragment (and discard its datagram). */
int defrag6_view(const struct pkt *p, struct defrag_view *v);
/* The shadow datagram of a complete queue, NULL with *why set. */
struct pkt *defrag6_build(const struct defrag_queue *q, enum pkt_link link,
			  enum ct_defrag_stat *why);
/* The reassembled ECN codepoint for the fragments seen (as Linux combines them), -1 when
 * ECN-capable and not-ECT fragments were mixed, or `head` when nothing is to change. */
int defrag_ecn(uint8_t seen, uint8_t head);
/* Copy the metadata that travels with a packet (mark, iif, id, ...); ct is not copied. */
void defrag_copy_meta(struct pkt *to, const struct pkt *from);

#endif
