/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ARP (RFC 826) and IPv6 neighbour solicitation / advertisement (RFC 4861 4.3, 4.4) frames:
 * what live mode needs to answer for its own addresses and to resolve next hops.
 *
 *   ARP over Ethernet (28 bytes after the Ethernet header, padded to a 60-byte frame):
 *   +--------+--------+----+----+------+---------+--------+---------+--------+
 *   | htype 1| ptype  |hlen|plen| op   | sha (6) | spa (4)| tha (6) | tpa (4)|
 *   | 0x0001 | 0x0800 | 6  | 4  | 1/2  |         |        |         |        |
 *   +--------+--------+----+----+------+---------+--------+---------+--------+
 *
 *   NS / NA: IPv6 (hop limit 255) + ICMPv6 type 135 / 136, code 0:
 *   +------+------+----------+---------------------------+------------------------+
 *   | type | code | checksum | reserved (NA: R S O flags) | target address (16)    |
 *   +------+------+----------+---------------------------+------------------------+
 *   | option 1 (source link-layer, NS) / 2 (target link-layer, NA): 1 | len 1 | MAC |
 *   +------------------------------------------------------------------------------+
 */
#ifndef IO_NDISC_H
#define IO_NDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt/pkt.h"

#define NDISC_FRAME_MAX 96 /* the largest frame built here */

enum ndisc_op { NDISC_REQUEST, NDISC_REPLY }; /* ARP request / NS, ARP reply / NA */

struct ndisc_msg {
	int family; /* AF_INET: ARP, AF_INET6: NS/NA */
	enum ndisc_op op;
	union pt_addr sender; /* ARP spa; IPv6 source address */
	union pt_addr target; /* ARP tpa; the ND target */
	union pt_addr dst;    /* IPv6 destination address (zero for ARP) */
	uint8_t lladdr[6];    /* ARP sha; NS source / NA target link-layer option */
	bool has_lladdr;      /* always for ARP; for ND when the option was there */
	uint8_t eth_src[6];
	bool solicited; /* NA S flag */
	bool override;	/* NA O flag */
};

/*
 * Recognise an ARP or NS/NA frame (Ethernet, untagged). 0 and *m filled; -ENOENT when the frame
 * is something else (hand it to the box); -EBADMSG when it is ARP/ND but invalid (RFC 4861
 * 7.1: hop limit, checksum, code, length, multicast target): drop it.
 */
int ndisc_parse(const uint8_t *frame, uint32_t len, struct ndisc_msg *m);

/*
 * Build an ARP frame into buf (NDISC_FRAME_MAX bytes). dmac NULL: broadcast (a request), and
 * tha zero. Returns the frame length.
 */
size_t ndisc_build_arp(uint8_t *buf, enum ndisc_op op, const uint8_t smac[6],
		       const union pt_addr *sip, const uint8_t *dmac, const union pt_addr *tip);

/* A neighbour solicitation for `target` from src/smac; dmac NULL: to the solicited-node
 * multicast group, else unicast to target at dmac. Returns the frame length. */
size_t ndisc_build_ns(uint8_t *buf, const uint8_t smac[6], const union pt_addr *src,
		      const union pt_addr *target, const uint8_t *dmac);

/* A neighbour advertisement for `target` (also the source address) to dst at dmac, with the
 * target link-layer option; router, solicited and override flags. Returns the frame length. */
size_t ndisc_build_na(uint8_t *buf, const uint8_t smac[6], const union pt_addr *target,
		      const union pt_addr *dst, const uint8_t dmac[6], bool router, bool solicited);

/* The Ethernet multicast address of an IPv6 multicast address (33:33 + low 32 bits). */
void ndisc_ipv6_mcast_mac(const union pt_addr *a, uint8_t mac[6]);

#endif
