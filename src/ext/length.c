// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m length: the length of the IP datagram as its header states it (xt_length).
 *
 *   IPv4: total length, bytes 2-3 of the header.
 *   IPv6: payload length (bytes 4-5) + 40, the fixed header; extension headers are part of
 *         the payload. A jumbogram (payload length 0) counts as 40, as in the kernel.
 *
 *   -m length [!] --length 40:1500     ":N" is 0:N, "N:" is N:65535, a reversed range is
 *                                      accepted and matches nothing
 */
#include <errno.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct length_info {
	uint32_t range[2];
};

enum { O_LENGTH };

static const struct ext_opt length_opts[] = {
	/* stored by length_parse (reversed ranges allowed), printed by the core */
	[O_LENGTH] = { .name = "length", .type = EXT_T_U32_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY | EXT_OPT_NOSTORE,
		       EXT_FIELD(struct length_info, range) },
};

static int length_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct length_info *li = inst->data;

	if (ext_parse_range32(arg, UINT16_MAX, li->range)) {
		ext_errf(ctx->err, ctx->errlen, "length: invalid length or range \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

static bool length_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct length_info *li = inst->data;
	const uint8_t *h;
	uint8_t buf[2];
	uint32_t len;

	if (ctx->family == AF_INET6) {
		h = ext_l3_header(ctx, 4, 2, buf);
		len = h ? ext_get_be16(h) + 40u : 0;
	} else {
		h = ext_l3_header(ctx, 2, 2, buf);
		len = h ? ext_get_be16(h) : 0;
	}
	if (!h)
		return false;
	return (len >= li->range[0] && len <= li->range[1]) ^ !!inst->inv;
}

const struct ext_match ext_match_length = {
	.name = "length",
	.datasize = sizeof(struct length_info),
	.opts = length_opts,
	.nopts = 1,
	.parse = length_parse,
	.match = length_match,
};
