// SPDX-License-Identifier: GPL-2.0-or-later
/* The protocol table of pkt/proto.h, and the ICMP types (RFC 792, RFC 950, RFC 4443). */
#include <netinet/in.h>

#include "pkt/proto.h"

#define PORTS .ports = true, .tuple_ports = true, .flow_key = true

const struct pkt_proto pkt_protos[256] = {
    [IPPROTO_TCP] = {PORTS, .csum = true, .csum_pseudo = true, .csum_off = 16},
    [IPPROTO_UDP] = {PORTS, .csum = true, .csum_pseudo = true, .csum_nonzero = true,
		     .csum_none4 = true, .csum_off = 6},
    [IPPROTO_UDPLITE] = {PORTS, .csum = true, .csum_pseudo = true, .csum_nonzero = true,
			 .csum_off = 6},
    [IPPROTO_DCCP] = {PORTS, .csum = true, .csum_pseudo = true, .csum_off = 6},
    [IPPROTO_SCTP] = {PORTS},
    [IPPROTO_ICMP] = {.icmp = true, .csum = true, .csum_off = 2},
    [IPPROTO_ICMPV6] = {.icmp = true, .csum = true, .csum_pseudo = true, .csum_off = 2},
    [IPPROTO_GRE] = {.tuple_ports = true, .csum = true, .csum_off = 4},
    [IPPROTO_ESP] = {.flow_key = true, .flow_key_off = 0},
    [IPPROTO_AH] = {.flow_key = true, .flow_key_off = 4},
};

enum { ICMP_OTHER, ICMP_ERROR, ICMP_QUERY };

/* ICMPv4 by type: destination unreachable, source quench, redirect, time exceeded, parameter
 * problem are errors; echo, timestamp, information and address mask requests/replies queries. */
static const uint8_t icmp4_kind[256] = {
    [3] = ICMP_ERROR,  [4] = ICMP_ERROR,  [5] = ICMP_ERROR,  [11] = ICMP_ERROR, [12] = ICMP_ERROR,
    [0] = ICMP_QUERY,  [8] = ICMP_QUERY,  [13] = ICMP_QUERY, [14] = ICMP_QUERY, [15] = ICMP_QUERY,
    [16] = ICMP_QUERY, [17] = ICMP_QUERY, [18] = ICMP_QUERY,
};

static int icmp_kind(uint8_t l4proto, uint8_t type)
{
	if (l4proto == IPPROTO_ICMP)
		return icmp4_kind[type];
	if (l4proto == IPPROTO_ICMPV6) /* RFC 4443 2.1: types below 128 are errors */
		return type < 128		    ? ICMP_ERROR
		       : type == 128 || type == 129 ? ICMP_QUERY
						    : ICMP_OTHER;
	return ICMP_OTHER;
}

bool pkt_icmp_is_error(uint8_t l4proto, uint8_t type)
{
	return icmp_kind(l4proto, type) == ICMP_ERROR;
}

bool pkt_icmp_has_id(uint8_t l4proto, uint8_t type)
{
	return icmp_kind(l4proto, type) == ICMP_QUERY;
}
