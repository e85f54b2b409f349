/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the matches of src/ext (multiport ... ipv4options): reads bounded by the
 * IP datagram, the IPv6 extension-header search, and the range syntax iptables accepts.
 *
 * Offsets given to and returned by these helpers are relative to the first byte of the IP
 * header, as skb offsets are at the netfilter hooks. Every read stays inside the datagram
 * (info->l3len bytes from info->l3off): the kernel's skb ends there, so trailing bytes such
 * as Ethernet padding are never read as headers.
 */
#ifndef EXT_MATCH_UTIL_H
#define EXT_MATCH_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "rules/ext.h"

/* Bytes of the IP datagram (the kernel's skb->len at the hook). */
uint32_t ext_l3_len(const struct ext_pkt_ctx *ctx);

/*
 * `len` bytes at `off` from the start of the IP header: a pointer into the packet or into
 * `buf` (which holds len bytes). NULL when any of them lies beyond the datagram.
 */
const void *ext_l3_header(const struct ext_pkt_ctx *ctx, uint32_t off, uint32_t len, void *buf);

/*
 * The first `len` bytes of the transport header (the kernel's par->thoff). NULL when the
 * parser did not find one or when they lie beyond the datagram.
 */
const void *ext_l4_header(const struct ext_pkt_ctx *ctx, uint32_t len, void *buf);

/* Non-first fragment (the kernel's par->fragoff != 0): no transport header to look at. */
bool ext_is_later_fragment(const struct ext_pkt_ctx *ctx);

/*
 * Find the IPv6 extension header of type `target` the way the kernel's ipv6_find_hdr() does:
 * walking hop-by-hop, routing, fragment, AH and destination options headers; the walk stops
 * at anything else, at "no next header" and at a non-first fragment. 0 with *off (relative to
 * the IP header) set, -ENOENT when the chain has no such header, -EBADMSG when the chain is
 * cut short (the kernel then drops the packet: callers set hotdrop).
 */
int ext_ip6_find_hdr(const struct ext_pkt_ctx *ctx, uint8_t target, uint32_t *off);

/* Extension header lengths as the IPv6 headers encode them (RFC 8200, RFC 4302). */
static inline uint32_t ext_ip6_optlen(uint8_t hdrlen)
{
	return ((uint32_t)hdrlen + 1) << 3;
}

static inline uint32_t ext_ip6_authlen(uint8_t hdrlen)
{
	return ((uint32_t)hdrlen + 2) << 2;
}

/*
 * A range as xtables' "id" and "spi" options take it: "N", "LO:HI", ":HI" (LO 0), "LO:" (HI
 * max), ":" (0:max). LO > HI is accepted, as iptables accepts it (the rule then never
 * matches). Numbers are decimal, 0x hex or 0 octal. 0, -EINVAL or -ERANGE.
 */
int ext_parse_range32(const char *arg, uint32_t max, uint32_t r[2]);

/* Big-endian reads from header bytes. */
static inline uint16_t ext_get_be16(const uint8_t *p)
{
	return pkt_get16(p);
}

static inline uint32_t ext_get_be32(const uint8_t *p)
{
	return pkt_get32(p);
}

/* snprintf into a parse/check context's error buffer. */
void ext_errf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
