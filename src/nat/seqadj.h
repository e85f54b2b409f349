/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sequence adjustment (the kernel's seqadj): when a NAT helper makes a TCP segment longer or
 * shorter (an FTP PORT whose address text changed length), every later byte of that
 * direction moves, so the two ends disagree about sequence numbers unless the box shifts them:
 *
 *   client (sender)                      box        server (receiver)
 *   seq 1011 "PORT 192,168,1,10,19,137"  -->        seq 1011 "PORT 203,0,113,1,19,137"
 *            (26 bytes with \r\n)                           (25 bytes: offset_after = -1)
 *   seq 1037 ...                         seq + off  seq 1036
 *   ack 1037                       <--   ack - off  ack 1036
 *
 * Per direction (struct ct_seqadj_dir in ct/ct_int.h, the CT_EXT_SEQADJ extension):
 * correction_pos is the sender's sequence number of the segment that was resized; a segment
 * starting after it gets offset_after, one starting at or before it (a retransmission of
 * what was sent before the change, or of the resized segment, which the helper resizes the
 * same way again) offset_before. The other direction's acknowledgement numbers and SACK
 * edges are in the receiver's numbering: the offset is subtracted, chosen by whether the
 * number lies after the resized segment's start as the receiver saw it
 * (ct_seqadj_ack_offset). Two resizings in one direction keep only the newer boundary, as
 * the kernel does.
 *
 * Where it runs (src/nat/helper_attach.c): on every TCP packet of a connection that has the
 * extension, at POSTROUTING and INPUT after the conntrack helpers (priority 300), before
 * confirmation: the last hook of either direction, which is where Linux calls
 * nf_ct_seq_adjust (from its confirm hook). There, the helper has already read the segment
 * in the sender's numbering (its "line starts here" bookkeeping and the correction position
 * are the sender's) and NAT has rewritten the addresses, so the packet leaves with all of
 * its changes; conntrack's TCP window check at PREROUTING sees the sender's numbers and,
 * for acknowledgements, subtracts the offset itself (proto_tcp.c).
 */
#ifndef NAT_SEQADJ_H
#define NAT_SEQADJ_H

#include <stdint.h>

#include "ct/ct.h"
#include "pkt/pkt.h"

/*
 * The segment of direction dir starting at seq (the sender's number) changed length by
 * delta bytes. Adds the extension on first use. A resizing at or before the recorded
 * position (the same segment retransmitted) changes nothing. 0 or -ENOMEM.
 */
int nat_seqadj_set(struct ct_table *t, struct ct_entry *e, enum ct_dir dir, uint32_t seq,
		   int32_t delta);
/* The offset of direction dir's sequence number seq (0: none). */
int32_t nat_seqadj_offset(const struct ct_entry *e, enum ct_dir dir, uint32_t seq);
/*
 * Shift the packet's sequence number (its direction's offset), acknowledgement number and
 * SACK edges (the other direction's), TCP checksum updated incrementally. Packets without
 * an entry, without the extension, not TCP, ICMP errors: untouched. 0, -EINVAL (truncated).
 */
int nat_seqadj_apply(struct pkt *p);

#endif
