/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conntrack tuples: what names one direction of a connection, for IPv4 and IPv6 alike.
 *
 *   struct ct_tuple (40 bytes, no padding: compared with memcmp, hashed as 5 words)
 *   +----------------------------+----------------------------+
 *   | src (16: IPv4 in bytes 0-3)| dst (16)                   |
 *   +--------+--------+------+---+-------+
 *   | s (2)  | d (2)  | zone | family l4 |
 *   +--------+--------+------+-----------+
 *   s: source port, or ICMP/ICMPv6 echo identifier (0 for protocols without one)
 *   d: destination port, or ICMP type (high byte) and code (low byte)
 *
 * Ports are host order. A tuple is always fully initialised (ct_tuple_zero) so that the unused
 * address bytes of IPv4 compare and hash equal.
 */
#ifndef CT_TUPLE_H
#define CT_TUPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pkt/pkt.h"

struct ct_tuple {
	union pt_addr src, dst;
	union {
		uint16_t port;
		uint16_t icmp_id;
		uint16_t all;
	} s;
	union {
		uint16_t port;
		struct {
			uint8_t type, code;
		} icmp;
		uint16_t all;
	} d;
	uint16_t zone;
	uint8_t family;
	uint8_t l4proto;
};

_Static_assert(sizeof(struct ct_tuple) == 40, "ct_tuple must have no padding");

struct ct_proto_ops;

static inline void ct_tuple_zero(struct ct_tuple *t)
{
	__builtin_memset(t, 0, sizeof(*t));
}

static inline bool ct_tuple_eq(const struct ct_tuple *a, const struct ct_tuple *b)
{
	return __builtin_memcmp(a, b, sizeof(*a)) == 0;
}

/*
 * The tuple of a parsed packet's own direction: addresses from p->info, the transport part by
 * the protocol's tracker (read at p->info.l4off). 0; -EINVAL when the packet has no transport
 * header to read (fragment, truncated) or -EPROTO when the tracker cannot name it (an ICMP
 * error has no tuple of its own).
 */
int ct_tuple_from_pkt(const struct pkt *p, uint16_t zone, struct ct_tuple *t);

/*
 * ct_tuple_from_pkt's common case, inline for the per-packet path: a TCP, UDP or UDP-Lite
 * packet of either family whose ports the parser read (and NAT keeps up to date), which is what
 * the tracker would read from the header again. true when it made the tuple; false (t
 * untouched): ct_tuple_from_pkt decides. ct_tuple_from_ports_ip for a packet known to be IPv4
 * or IPv6 (ct_in has tested it).
 */
static inline bool ct_tuple_from_ports_ip(const struct pkt_info *in, uint16_t zone,
					  struct ct_tuple *t)
{
	if (!in->has_l4 || !in->has_ports || in->l4len < 8 ||
	    (in->l4proto != IPPROTO_TCP && in->l4proto != IPPROTO_UDP &&
	     in->l4proto != IPPROTO_UDPLITE))
		return false;
	ct_tuple_zero(t);
	if (in->family == AF_INET) {
		t->src.w[0] = in->src.w[0];
		t->dst.w[0] = in->dst.w[0];
	} else {
		t->src = in->src;
		t->dst = in->dst;
	}
	t->s.port = in->sport;
	t->d.port = in->dport;
	t->zone = zone;
	t->family = (uint8_t)in->family;
	t->l4proto = in->l4proto;
	return true;
}
static inline bool ct_tuple_from_ports(const struct pkt_info *in, uint16_t zone, struct ct_tuple *t)
{
	return (in->family == AF_INET || in->family == AF_INET6) &&
	       ct_tuple_from_ports_ip(in, zone, t);
}

/*
 * Tuple of a transport header at `l4off` of protocol `l4proto` carried inside the packet (an
 * ICMP error's quoted datagram), with the given addresses. Same returns.
 */
int ct_tuple_from_l4(const struct pkt *p, uint32_t l4off, uint32_t l4len, int family,
		     uint8_t l4proto, const union pt_addr *src, const union pt_addr *dst,
		     uint16_t zone, struct ct_tuple *t);

/* The reply direction's tuple. 0, or -EINVAL when the protocol has no inverse (ICMP types
 * without a reply type). */
int ct_tuple_invert(const struct ct_tuple *orig, struct ct_tuple *reply);

/* "src=10.0.0.2 dst=192.0.2.1 sport=1234 dport=80" (conntrack -L tuple form, no trailing
 * space). Returns buf. */
const char *ct_tuple_str(const struct ct_tuple *t, char *buf, size_t len);

#endif
