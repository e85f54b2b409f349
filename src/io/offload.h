/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offloads between the kernel's packet socket and the box: what a frame's virtio_net_hdr says
 * (AF_PACKET with PACKET_VNET_HDR) put on the packet (gso_size, gso_type, csum_partial, the
 * checksum-verified flag), and back into the header when it leaves; and for a port that cannot
 * carry a GSO packet or a partial checksum (AF_XDP, a kernel without PACKET_VNET_HDR) the
 * segments cut and the checksum completed here.
 *
 *   struct virtio_net_hdr (before each frame, little-endian):
 *   flags (NEEDS_CSUM, DATA_VALID) | gso_type (TCPV4, TCPV6, UDP_L4, | ECN) | hdr_len |
 *   gso_size | csum_start (from the frame's first byte) | csum_offset (from csum_start)
 */
#ifndef IO_OFFLOAD_H
#define IO_OFFLOAD_H

#include "io/afpacket.h"
#include "pkt/pkt.h"

/*
 * A received frame's offload state onto p (p holds the frame's bytes, not yet parsed). A GSO
 * frame is kept whole with a partial checksum (verified: the sender's own, or GRO's); a partial
 * checksum of one frame is completed now. 0, or -EBADMSG: the GSO state does not agree with
 * the headers (drop it).
 */
int io_offload_rx(struct pkt *p, const struct afpacket_frame *f);
/* The header for p leaving by a port with offloads (a GSO packet's checksum is made partial). */
void io_offload_tx(struct pkt *p, struct afpacket_offload *o);
/*
 * p for a port without offloads: a GSO packet's segments handed to emit one by one (p freed),
 * a partial checksum completed; else p itself. Returns how many were handed over (0: p could
 * not be cut and was freed).
 */
unsigned io_offload_fit(struct pkt *p, void (*emit)(void *arg, struct pkt *q), void *arg);

/*
 * A received frame as a packet over the ring's bytes (f->lend: zero-copy receive), one of pool
 * pp (pkt_pool_lend), valid until the port gives the ring's blocks back (io_port_rx_release;
 * whoever keeps it longer calls pkt_keep). The 802.1Q tag the kernel took off (f->vlan_tci) is
 * put back in front of the ethertype: the MAC addresses move 4 bytes into the room before the
 * frame. NULL: not lent (the port lends nothing, no room for the tag, pp NULL, ENOMEM).
 */
struct pkt *io_frame_lend(struct pkt_pool *pp, const struct afpacket_frame *f);
/* A copy of a frame the kernel took an 802.1Q tag off (vlan_tci >= 0, len >= 12), the tag put
 * back. NULL on ENOMEM. */
struct pkt *io_frame_copy_tagged(const struct afpacket_frame *f);

#endif
