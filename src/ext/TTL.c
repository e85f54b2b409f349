// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j TTL (IPv4, ipt_TTL) and -j HL (IPv6, ip6t_HL): set, decrement or increment the TTL or
 * hop limit. mangle table only.
 *
 *   -j TTL --ttl-set N | --ttl-dec N | --ttl-inc N      exactly one; dec/inc 1..255
 *   -j HL  --hl-set N  | --hl-dec N  | --hl-inc N
 *
 * Decrementing stops at 0 and incrementing at 255, as the kernel's; the IPv4 header checksum
 * is updated incrementally.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct ttl_target_info {
	uint8_t set, dec, inc;
};

enum { O_SET, O_DEC, O_INC };

#define TT_ALL (1u << O_SET | 1u << O_DEC | 1u << O_INC)

#define TTL_TARGET_OPTS(PREFIX)                                                                    \
	{                                                                                          \
		[O_SET] = {.name = PREFIX "-set",                                                  \
			   .type = EXT_T_U8,                                                       \
			   EXT_FIELD(struct ttl_target_info, set),                                 \
			   .excl = TT_ALL & ~(1u << O_SET)},                                       \
		[O_DEC] = {.name = PREFIX "-dec",                                                  \
			   .type = EXT_T_U8,                                                       \
			   .min = 1,                                                               \
			   .max = 255,                                                             \
			   EXT_FIELD(struct ttl_target_info, dec),                                 \
			   .excl = TT_ALL & ~(1u << O_DEC)},                                       \
		[O_INC] = {.name = PREFIX "-inc",                                                  \
			   .type = EXT_T_U8,                                                       \
			   .min = 1,                                                               \
			   .max = 255,                                                             \
			   EXT_FIELD(struct ttl_target_info, inc),                                 \
			   .excl = TT_ALL & ~(1u << O_INC)},                                       \
	}

static const struct ext_opt ttl_target_opts[] = TTL_TARGET_OPTS("ttl");
static const struct ext_opt hl_target_opts[] = TTL_TARGET_OPTS("hl");

static int ttl_target_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct ext_opt *o = inst->target->opts;

	if (!(inst->seen & TT_ALL)) {
		ext_errf(ctx->err, ctx->errlen, "%s: one of --%s, --%s or --%s is required",
			 inst->target->name, o[O_SET].name, o[O_DEC].name, o[O_INC].name);
		return -EINVAL;
	}
	return 0;
}

/*   IPv4: byte 8 TTL, bytes 10-11 checksum (over the word TTL|protocol)
 *   IPv6: byte 7 hop limit, no checksum */
static int ttl_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ttl_target_info *ti = inst->data;
	struct pkt *p = ctx->pkt;
	uint32_t off = p->info.l3off;
	uint8_t old = p->info.ttl, nv = old, b[12];
	const uint8_t *h;

	if (inst->seen & 1u << O_SET)
		nv = ti->set;
	else if (inst->seen & 1u << O_DEC)
		nv = old > ti->dec ? (uint8_t)(old - ti->dec) : 0;
	else
		nv = old + ti->inc > 255 ? 255 : (uint8_t)(old + ti->inc);
	if (nv == old)
		return EXT_CONTINUE;
	if (ctx->family == AF_INET) {
		uint16_t check;

		h = pkt_header(p, off, 12, b);
		if (!h)
			return EXT_CONTINUE;
		check = htons(pkt_csum_replace2(ext_get_be16(h + 10), (uint16_t)(old << 8 | h[9]),
						(uint16_t)(nv << 8 | h[9])));
		if (pkt_store(p, off + 8, &nv, 1) < 0 || pkt_store(p, off + 10, &check, 2) < 0)
			return EXT_CONTINUE;
	} else if (pkt_store(p, off + 7, &nv, 1) < 0) {
		return EXT_CONTINUE;
	}
	p->info.ttl = nv;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_TTL = {
    .name = "TTL",
    .family = AF_INET,
    .tables = TABLE_BIT(TABLE_MANGLE),
    .datasize = sizeof(struct ttl_target_info),
    .opts = ttl_target_opts,
    .nopts = sizeof(ttl_target_opts) / sizeof(ttl_target_opts[0]),
    .check = ttl_target_check,
    .target = ttl_target,
};

const struct ext_target ext_target_HL = {
    .name = "HL",
    .family = AF_INET6,
    .tables = TABLE_BIT(TABLE_MANGLE),
    .datasize = sizeof(struct ttl_target_info),
    .opts = hl_target_opts,
    .nopts = sizeof(hl_target_opts) / sizeof(hl_target_opts[0]),
    .check = ttl_target_check,
    .target = ttl_target,
};
