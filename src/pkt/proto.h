/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the code needs to know about an IP protocol, once: whether it carries ports, where its
 * checksum is and what it covers, whether it is ICMP, and for ICMP which types are errors and
 * which queries (with an identifier). One const table by protocol number (pkt/proto.c); the
 * checksum code, NAT, the control protocol, the packet specs and the matches read it.
 *
 *   transport header      ports        checksum (offset, pseudo-header)   flow key (hashlimit)
 *   TCP                   0, 2         16, yes                            ports at 0
 *   UDP, UDP-Lite         0, 2         6, yes; 0 is sent as 0xffff        ports at 0
 *   DCCP                  0, 2         6, yes                             ports at 0
 *   SCTP                  0, 2         CRC32c at 8 (not one's complement) ports at 0
 *   ICMP                  -            2, no                              -
 *   ICMPv6                -            2, yes                             -
 *   GRE                   (key)        4 when the C bit is set, no        -
 *   ESP / AH              -            -                                  SPI at 0 / 4
 *
 *   ICMP query:  type | code | checksum | identifier | sequence        (the id at offset 4)
 */
#ifndef PKT_PROTO_H
#define PKT_PROTO_H

#include <stdbool.h>
#include <stdint.h>

struct pkt_proto {
	bool ports;	   /* 16-bit source and destination ports at offsets 0 and 2 */
	bool tuple_ports;  /* conntrack's tuple has 16-bit ports: `ports`, or GRE's keys */
	bool icmp;	   /* ICMP or ICMPv6: type, code; a query's identifier at 4 */
	bool csum;	   /* a 16-bit one's complement checksum at csum_off */
	bool csum_pseudo;  /* ... which covers the pseudo-header (addresses, protocol, length) */
	bool csum_nonzero; /* ... a computed 0 is sent as 0xffff: 0 means "none" (UDP, UDP-Lite) */
	bool csum_none4;   /* over IPv4 a stored 0 means the sender made none (UDP, RFC 768) */
	bool flow_key;	   /* 32 bits that name a flow at flow_key_off: ports, or an SPI */
	uint8_t csum_off;  /* offset of the checksum in the transport header */
	uint8_t flow_key_off;
};

extern const struct pkt_proto pkt_protos[256];

static inline const struct pkt_proto *pkt_proto(uint8_t l4proto)
{
	return &pkt_protos[l4proto];
}

/* The identifier of an ICMP query, at this offset of the ICMP header. */
#define PKT_ICMP_ID_OFF 4

/* An ICMP (l4proto 1) or ICMPv6 (58) error: it quotes the datagram it answers. */
bool pkt_icmp_is_error(uint8_t l4proto, uint8_t type);
/* An ICMP or ICMPv6 query or its answer (echo, timestamp, information, address mask):
 * it carries an identifier at PKT_ICMP_ID_OFF. */
bool pkt_icmp_has_id(uint8_t l4proto, uint8_t type);

#endif
