/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the NAT targets (SNAT, DNAT, MASQUERADE, REDIRECT, NETMAP) share: the range syntax of
 * iptables 1.8.9 and pkttables' BEHAVE options.
 *
 *   --to-source / --to-destination  [ADDR[-ADDR]][:PORT[-PORT]]     IPv4
 *                                   [ADDR[-ADDR]]:PORT[-PORT]  or ADDR[-ADDR]   IPv6
 *   --to-ports                      PORT[-PORT]
 *   ports need -p tcp, udp, sctp, dccp or (IPv4) icmp; "!" in front of -p does not matter
 *
 *   --mapping / --filtering endpoint-independent | address-dependent | address-port-dependent
 *   --refresh outbound | both      --hairpin | --no-hairpin        (pkttables only)
 */
#ifndef EXT_NAT_OPT_H
#define EXT_NAT_OPT_H

#include "nat/nat.h"
#include "rules/ext.h"

int nat_opt_parse_range(struct ext_parse_ctx *ctx, struct nat_range *r, const char *arg);
int nat_opt_parse_ports(struct ext_parse_ctx *ctx, struct nat_range *r, const char *arg);
/* --mapping, --filtering, --refresh values; which: 'm', 'f', 'r'. */
int nat_opt_parse_behave(struct ext_parse_ctx *ctx, struct nat_range *r, char which,
			 const char *arg);
/* The options several NAT targets share, by name: random, random-fully, persistent, hairpin,
 * no-hairpin, mapping, filtering, refresh. 0 (stored), -EINVAL, or 1: not one of them. */
int nat_opt_parse_common(struct ext_parse_ctx *ctx, struct nat_range *r, const char *name,
			 const char *arg);
void nat_opt_print_range(struct ext_printer *pr, const char *opt, const struct nat_range *r);
void nat_opt_print_flags(struct ext_printer *pr, const struct nat_range *r, bool persistent);
void nat_opt_print_behave(struct ext_printer *pr, const struct nat_range *r);
/* Store the request for the packet's connection: EXT_ACCEPT (the kernel's NF_ACCEPT). */
int nat_opt_request(struct ext_pkt_ctx *ctx, enum nat_manip m, const struct nat_range *r);

#endif
