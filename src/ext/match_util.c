// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the matches: bounded header reads, the IPv6 extension-header walk,
 * ranges. See match_util.h.
 *
 * The extension header chain as ext_ip6_find_hdr() walks it:
 *
 *   +-----------+ next +--------------+ next +-----------+ next +--------+
 *   | IPv6 (40) |----->| hop-by-hop   |----->| fragment  |----->| TCP    |
 *   +-----------+      | len (n+1)*8  |      | 8 bytes   |      +--------+
 *                      +--------------+      +-----------+
 *   each extension header starts  | next header | hdr ext len | ... ; AH's length is
 *   (n+2)*4 instead. A fragment with a non-zero offset ends the walk: what follows it is
 *   data of an upper header that is not there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"

void ext_errf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

uint32_t ext_l3_len(const struct ext_pkt_ctx *ctx)
{
	const struct pkt_info *info = ctx->info;

	if (info->l3off >= ctx->pkt->len)
		return 0;
	/* l3len never exceeds what is present, but a half-parsed packet may say 0 */
	if (info->l3len > ctx->pkt->len - info->l3off)
		return ctx->pkt->len - info->l3off;
	return info->l3len;
}

const void *ext_l3_header(const struct ext_pkt_ctx *ctx, uint32_t off, uint32_t len, void *buf)
{
	uint32_t dlen = ext_l3_len(ctx);

	if (off > dlen || len > dlen - off)
		return NULL;
	return pkt_header(ctx->pkt, ctx->info->l3off + off, len, buf);
}

const void *ext_l4_header(const struct ext_pkt_ctx *ctx, uint32_t len, void *buf)
{
	const struct pkt_info *info = ctx->info;

	if (info->l4off <= info->l3off)
		return NULL;
	return ext_l3_header(ctx, info->l4off - info->l3off, len, buf);
}

bool ext_is_later_fragment(const struct ext_pkt_ctx *ctx)
{
	return ctx->info->frag_off != 0;
}

static bool ip6_is_exthdr(uint8_t nh)
{
	/* ESP is not one: its contents are encrypted, the chain cannot be followed through it */
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 59 || nh == 60;
}

int ext_ip6_find_hdr(const struct ext_pkt_ctx *ctx, uint8_t target, uint32_t *off)
{
	uint8_t buf[4];
	const uint8_t *h;
	uint32_t start = 40;
	uint8_t nh;

	h = ext_l3_header(ctx, 6, 1, buf);
	if (!h)
		return -EBADMSG;
	nh = h[0];
	/* bounded: each step advances at least 8 bytes of a datagram of at most 64 KiB */
	for (;;) {
		bool found = nh == target;
		uint32_t hdrlen;

		if (!ip6_is_exthdr(nh) || nh == 59) {
			if (found)
				break;
			return -ENOENT;
		}
		h = ext_l3_header(ctx, start, nh == 43 ? 4 : 2, buf);
		if (!h)
			return -EBADMSG;
		if (nh == 44) {
			const uint8_t *fo = ext_l3_header(ctx, start + 2, 2, buf + 2);

			if (!fo)
				return -EBADMSG;
			if (ext_get_be16(fo) & ~7u) {
				if (!found)
					return -ENOENT;
				break;
			}
			hdrlen = 8;
		} else if (nh == 51) {
			hdrlen = ext_ip6_authlen(h[1]);
		} else {
			hdrlen = ext_ip6_optlen(h[1]);
		}
		if (found)
			break;
		nh = h[0];
		start += hdrlen;
	}
	*off = start;
	return 0;
}

int ext_parse_range32(const char *arg, uint32_t max, uint32_t r[2])
{
	const char *colon = strchr(arg, ':');
	uint64_t lo = 0, hi = max;
	char first[32];
	size_t n;
	int ret;

	if (!colon) {
		ret = ext_parse_uint(arg, 0, max, &lo);
		if (ret)
			return ret;
		r[0] = r[1] = (uint32_t)lo;
		return 0;
	}
	n = (size_t)(colon - arg);
	if (n >= sizeof(first) || strchr(colon + 1, ':'))
		return -EINVAL;
	memcpy(first, arg, n);
	first[n] = '\0';
	if (n && (ret = ext_parse_uint(first, 0, max, &lo)))
		return ret;
	if (colon[1] && (ret = ext_parse_uint(colon + 1, 0, max, &hi)))
		return ret;
	r[0] = (uint32_t)lo;
	r[1] = (uint32_t)hi;
	return 0;
}
