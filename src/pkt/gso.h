/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GSO packets: one TCP or UDP packet that stands for several on the wire (what a local sender
 * hands to a device with TSO, or what GRO made of several). Rules and conntrack see it whole,
 * as netfilter sees the kernel's GSO skbs; where it leaves by a path that cannot carry it, it
 * is cut here into the segments it stands for.
 *
 *   GSO packet:  [link][IP][TCP hdr][ payload: gso_size | gso_size | ... | rest ]
 *   segment i:   [link][IP'][TCP'][ payload bytes i*gso_size ... ]
 *                IP': total/payload length of the segment, IPv4 id + i, header checksum
 *                TCP': seq + i*gso_size; FIN and PSH only on the last, CWR only on the first;
 *                full checksum. UDP (UDP_L4): each segment a datagram with its own length.
 *
 * The state sits in struct pkt (gso_size, gso_type, csum_partial; see pkt.h).
 */
#ifndef PKT_GSO_H
#define PKT_GSO_H

#include "pkt/pkt.h"

enum {
	PKT_GSO_TCP = 1,    /* TCP over IPv4 or IPv6, by the packet's family */
	PKT_GSO_UDP_L4 = 2, /* UDP datagrams of gso_size payload bytes each */
	PKT_GSO_ECN = 0x80, /* the TCP segments carry ECN: CWR only on the first */
};

/* A GSO packet whose state agrees with its parsed headers (TCP for PKT_GSO_TCP, UDP for
 * PKT_GSO_UDP_L4, not a fragment, gso_size > 0). */
bool pkt_gso_valid(const struct pkt *p);
/* Bytes before the payload the segments share: link, IP (with extension headers), TCP or UDP. */
uint32_t pkt_gso_hdrlen(const struct pkt *p);
/* How many segments it stands for (at least 1). */
unsigned pkt_gso_nsegs(const struct pkt *p);
/* The IP length of its largest segment: what must fit an MTU (skb_gso_validate_network_len). */
uint32_t pkt_gso_seg_l3len(const struct pkt *p);
/*
 * Cut a valid GSO packet into pkt_gso_nsegs(p) new linear packets in out[] (metadata copied
 * but the conntrack reference, which stays with p; parsed, full checksums, not GSO). p is left as it is. The count, or -EINVAL (not a valid GSO
 * packet), -E2BIG (more than max), -ENOMEM (nothing is left allocated).
 */
int pkt_gso_segment(const struct pkt *p, struct pkt **out, unsigned max);
/*
 * Make the TCP/UDP checksum partial (CHECKSUM_PARTIAL): the field gets the pseudo-header sum of
 * the current addresses and length, csum_partial is set. Others are left as they are.
 */
void pkt_l4_csum_set_partial(struct pkt *p);

#endif
