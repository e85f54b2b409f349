// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m ah: fields of the IPsec Authentication Header (xt_ah for IPv4, ip6t_ah for IPv6).
 *
 *    0               1               2               3
 *   | next header   | payload len   |          reserved             |
 *   |               security parameters index (SPI)                 |
 *   |                    sequence number                            |
 *
 *   --ahspi [!] N[:M]   SPI in range                        both families
 *   --ahlen [!] N       header length in bytes, (payload len + 2) * 4; 0 means any
 *   --ahres             reserved field zero                 (these two: IPv6 only)
 *
 * IPv4 needs -p ah, and AH is the transport header there; a non-first fragment never
 * matches. IPv6 finds AH in the extension header chain, with or without -p.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define AH_HDR_LEN 12

struct ah_info {
	uint32_t spis[2];
	uint32_t len;
};

enum { O_AHSPI, O_AHLEN, O_AHRES };

static const struct ext_opt ah_opts[] = {
	[O_AHSPI] = { .name = "ahspi", .type = EXT_T_U32_RANGE,
		      .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE, EXT_FIELD(struct ah_info, spis) },
	[O_AHLEN] = { .name = "ahlen", .type = EXT_T_U32, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct ah_info, len) },
	[O_AHRES] = { .name = "ahres", .type = EXT_T_NONE },
};

static void ah_init(struct ext_instance *inst)
{
	struct ah_info *ai = inst->data;

	ai->spis[1] = UINT32_MAX;
}

static int ah_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		    const char *arg)
{
	struct ah_info *ai = inst->data;

	if (opt != O_AHSPI && ctx->family != AF_INET6) {
		ext_errf(ctx->err, ctx->errlen, "ah: --%s is IPv6 only", ah_opts[opt].name);
		return -EINVAL;
	}
	if (opt == O_AHSPI && ext_parse_range32(arg, UINT32_MAX, ai->spis)) {
		ext_errf(ctx->err, ctx->errlen, "ah: invalid spi or range \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

static int ah_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (ctx->family == AF_INET && (ctx->proto != 51 || ctx->proto_inverted)) {
		ext_errf(ctx->err, ctx->errlen, "ah requires -p ah");
		return -EINVAL;
	}
	return 0;
}

/* iptables-save's form: the SPI range unless it is 0:4294967295 (even if inverted), the
 * length unless it is 0 and not inverted. */
static void ah_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct ah_info *ai = inst->data;

	if (ai->spis[0] != 0 || ai->spis[1] != UINT32_MAX) {
		ext_print_opt(pr, inst, O_AHSPI);
		ext_print_value(pr, inst, O_AHSPI);
	}
	if ((inst->seen & 1u << O_AHLEN) && (ai->len || (inst->inv & 1u << O_AHLEN))) {
		ext_print_opt(pr, inst, O_AHLEN);
		ext_print_value(pr, inst, O_AHLEN);
	}
	if (inst->seen & 1u << O_AHRES)
		ext_print_opt(pr, inst, O_AHRES);
}

static bool ah_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ah_info *ai = inst->data;
	uint8_t buf[AH_HDR_LEN];
	const uint8_t *ah;
	uint32_t spi, off;
	int err;

	if (ctx->family == AF_INET6) {
		err = ext_ip6_find_hdr(ctx, 51, &off);
		if (err) {
			if (err != -ENOENT)
				ctx->hotdrop = true;
			return false;
		}
		ah = ext_l3_header(ctx, off, AH_HDR_LEN, buf);
	} else {
		if (ext_is_later_fragment(ctx))
			return false;
		ah = ext_l4_header(ctx, AH_HDR_LEN, buf);
	}
	if (!ah) {
		ctx->hotdrop = true;
		return false;
	}
	spi = ext_get_be32(ah + 4);
	if ((spi >= ai->spis[0] && spi <= ai->spis[1]) == !!(inst->inv & 1u << O_AHSPI))
		return false;
	if (ctx->family != AF_INET6)
		return true;
	if (ai->len && (ai->len == ext_ip6_authlen(ah[1])) == !!(inst->inv & 1u << O_AHLEN))
		return false;
	return !((inst->seen & 1u << O_AHRES) && ext_get_be16(ah + 2));
}

const struct ext_match ext_match_ah = {
	.name = "ah",
	.datasize = sizeof(struct ah_info),
	.opts = ah_opts,
	.nopts = sizeof(ah_opts) / sizeof(ah_opts[0]),
	.init = ah_init,
	.parse = ah_parse,
	.check = ah_check,
	.print = ah_print,
	.match = ah_match,
};
