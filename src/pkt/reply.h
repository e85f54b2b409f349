/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Answers to an offending packet, as REJECT sends them: a TCP RST (RFC 9293 3.10.7.1, the
 * "reset generation" rules of RFC 793) or an ICMP / ICMPv6 error quoting the packet (RFC 1812
 * 4.3.2.3: as much as fits in 576 bytes; RFC 4443 2.4(c): as much as fits in 1280 bytes).
 *
 * The offending packet must have been parsed (p->info). The answer is a new packet, parsed,
 * with correct checksums, raw IP unless opts->eth asks for an Ethernet header.
 */
#ifndef PKT_REPLY_H
#define PKT_REPLY_H

#include "pkt/pkt.h"

struct pkt_reply_opts {
	uint8_t ttl;		  /* TTL / hop limit of the answer; 0: 64 */
	const union pt_addr *src; /* source of the answer; NULL: the offending packet's dst */
	bool eth;		  /* Ethernet header with the MACs swapped and VLAN tags kept */
	bool check_csum;	  /* refuse (-EBADMSG) when the offending checksum is wrong */
};

/*
 * A RST for a TCP segment: seq = SEG.ACK if it had ACK, else seq 0 with ACK of
 * SEG.SEQ + SEG.LEN (SYN and FIN count one). 0 and *out set; -EINVAL (not a parsed TCP
 * segment with its header), -EPERM (the segment is itself a RST), -EBADMSG, -ENOMEM.
 * opts may be NULL.
 */
int pkt_reply_tcp_rst(const struct pkt *orig, const struct pkt_reply_opts *opts, struct pkt **out);

/*
 * An ICMP (IPv4) or ICMPv6 (IPv6) error of `type`/`code` in the offending packet's family;
 * `rest` fills header bytes 4..7 (next-hop MTU, pointer, or 0). -EPERM when the RFCs forbid
 * an error: the packet is itself an ICMP error (or ICMPv6 redirect), an IPv4 non-first
 * fragment, addressed to multicast/broadcast (IPv6: except packet-too-big and
 * parameter-problem code 2), or from an unspecified/multicast source. -EINVAL if not IP.
 */
int pkt_reply_icmp(const struct pkt *orig, uint8_t type, uint8_t code, uint32_t rest,
		   const struct pkt_reply_opts *opts, struct pkt **out);

#endif
