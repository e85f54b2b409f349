// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The names of the packet text form: protocols, TCP flags, ICMP and ICMPv6 types (as iptables
 * spells them), SCTP chunks, DCCP packet types, IPv6 extension headers and the canonical IPv4
 * options. Data only; spec.c does the parsing and printing.
 */
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "pkt/spec_names.h"

const struct spec_name spec_protos[] = {
    {"tcp", IPPROTO_TCP},   {"udp", IPPROTO_UDP},	   {"udplite", IPPROTO_UDPLITE},
    {"icmp", IPPROTO_ICMP}, {"icmp6", IPPROTO_ICMPV6},	   {"sctp", IPPROTO_SCTP},
    {"dccp", IPPROTO_DCCP}, {"gre", IPPROTO_GRE},	   {"esp", IPPROTO_ESP},
    {"ah", IPPROTO_AH},	    {"ipv6-icmp", IPPROTO_ICMPV6}, {NULL, 0},
};

/* Bit i of the TCP flags byte. */
const char *const spec_tcp_flags[8] = {"fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr"};

const struct spec_name spec_sctp_chunks[] = {
    {"data", 0},
    {"init", 1},
    {"init-ack", 2},
    {"sack", 3},
    {"heartbeat", 4},
    {"heartbeat-ack", 5},
    {"abort", 6},
    {"shutdown", 7},
    {"shutdown-ack", 8},
    {"error", 9},
    {"cookie-echo", 10},
    {"cookie-ack", 11},
    {"shutdown-complete", 14},
    {NULL, 0},
};

const struct spec_name spec_dccp_types[] = {
    {"request", 0}, {"response", 1}, {"data", 2}, {"ack", 3},	  {"dataack", 4}, {"closereq", 5},
    {"close", 6},   {"reset", 7},    {"sync", 8}, {"syncack", 9}, {NULL, 0},
};

const struct spec_name spec_ext_names[] = {
    {"hop", IPPROTO_HOPOPTS},	{"dst", IPPROTO_DSTOPTS}, {"rt", IPPROTO_ROUTING},
    {"frag", IPPROTO_FRAGMENT}, {"ah", IPPROTO_AH},	  {NULL, 0},
};

/* Names with a code come before the name of their type, so that lookup by (type, code) finds
 * the most specific one first. code -1: the type, any code. */
const struct spec_icmp_name spec_icmp4_names[] = {
    {"echo-reply", 0, -1},
    {"network-unreachable", 3, 0},
    {"host-unreachable", 3, 1},
    {"protocol-unreachable", 3, 2},
    {"port-unreachable", 3, 3},
    {"fragmentation-needed", 3, 4},
    {"source-route-failed", 3, 5},
    {"network-unknown", 3, 6},
    {"host-unknown", 3, 7},
    {"network-prohibited", 3, 9},
    {"host-prohibited", 3, 10},
    {"TOS-network-unreachable", 3, 11},
    {"TOS-host-unreachable", 3, 12},
    {"communication-prohibited", 3, 13},
    {"host-precedence-violation", 3, 14},
    {"precedence-cutoff", 3, 15},
    {"destination-unreachable", 3, -1},
    {"source-quench", 4, -1},
    {"network-redirect", 5, 0},
    {"host-redirect", 5, 1},
    {"TOS-network-redirect", 5, 2},
    {"TOS-host-redirect", 5, 3},
    {"redirect", 5, -1},
    {"echo-request", 8, -1},
    {"router-advertisement", 9, -1},
    {"router-solicitation", 10, -1},
    {"ttl-zero-during-transit", 11, 0},
    {"ttl-zero-during-reassembly", 11, 1},
    {"time-exceeded", 11, -1},
    {"ip-header-bad", 12, 0},
    {"required-option-missing", 12, 1},
    {"parameter-problem", 12, -1},
    {"timestamp-request", 13, -1},
    {"timestamp-reply", 14, -1},
    {"address-mask-request", 17, -1},
    {"address-mask-reply", 18, -1},
    {"ping", 8, -1},
    {"pong", 0, -1},
    {NULL, 0, 0},
};

const struct spec_icmp_name spec_icmp6_names[] = {
    {"no-route", 1, 0},
    {"communication-prohibited", 1, 1},
    {"beyond-scope", 1, 2},
    {"address-unreachable", 1, 3},
    {"port-unreachable", 1, 4},
    {"failed-policy", 1, 5},
    {"reject-route", 1, 6},
    {"destination-unreachable", 1, -1},
    {"packet-too-big", 2, -1},
    {"ttl-zero-during-transit", 3, 0},
    {"ttl-zero-during-reassembly", 3, 1},
    {"time-exceeded", 3, -1},
    {"bad-header", 4, 0},
    {"unknown-header-type", 4, 1},
    {"unknown-option", 4, 2},
    {"parameter-problem", 4, -1},
    {"echo-request", 128, -1},
    {"echo-reply", 129, -1},
    {"router-solicitation", 133, -1},
    {"router-advertisement", 134, -1},
    {"neighbour-solicitation", 135, -1},
    {"neighbour-advertisement", 136, -1},
    {"redirect", 137, -1},
    {"ping", 128, -1},
    {"pong", 129, -1},
    {"neighbor-solicitation", 135, -1},
    {"neighbor-advertisement", 136, -1},
    {NULL, 0, 0},
};

/* The IPv4 options as the builder writes them for a bare name: one empty slot each. */
const struct spec_ipopt spec_ipopts[] = {
    {"eol", 1, {0}},
    {"nop", 1, {1}},
    {"rr", 7, {7, 7, 4, 0, 0, 0, 0}},
    {"ts", 8, {68, 8, 5, 0, 0, 0, 0, 0}},
    {"lsrr", 7, {131, 7, 4, 0, 0, 0, 0}},
    {"ssrr", 7, {137, 7, 4, 0, 0, 0, 0}},
    {"ra", 4, {148, 4, 0, 0}},
    {NULL, 0, {0}},
};

int spec_name_lookup(const struct spec_name *t, const char *name)
{
	for (; t->name; t++)
		if (!strcasecmp(t->name, name))
			return t->value;
	return -1;
}

const char *spec_name_of(const struct spec_name *t, int value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return NULL;
}

const struct spec_icmp_name *spec_icmp_table(int family)
{
	return family == AF_INET6 ? spec_icmp6_names : spec_icmp4_names;
}

const struct spec_icmp_name *spec_icmp_by_name(int family, const char *name)
{
	const struct spec_icmp_name *t;

	for (t = spec_icmp_table(family); t->name; t++)
		if (!strcasecmp(t->name, name))
			return t;
	return NULL;
}

const struct spec_icmp_name *spec_icmp_by_value(int family, uint8_t type, uint8_t code)
{
	const struct spec_icmp_name *t, *any = NULL;

	for (t = spec_icmp_table(family); t->name; t++) {
		if (t->type != type)
			continue;
		if (t->code == code)
			return t;
		if (t->code < 0 && !any)
			any = t;
	}
	return any;
}
