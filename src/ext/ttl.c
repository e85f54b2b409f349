// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m ttl (IPv4, xt_ttl) and -m hl (IPv6, ip6t_hl): the TTL or hop limit compared with a value.
 * pkt_info.ttl holds either, so one check and one match serve both; only the names differ.
 *
 *   -m ttl [!] --ttl-eq N | --ttl-lt N | --ttl-gt N     exactly one; only --ttl-eq inverts
 *   -m hl  [!] --hl-eq N  | --hl-lt N  | --hl-gt N
 *
 * "--ttl N" / "--hl N" are the old spellings of --ttl-eq / --hl-eq.
 */
#include <errno.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct ttl_info {
	uint8_t eq, lt, gt;
};

enum { O_EQ, O_LT, O_GT, O_OLD_EQ };

#define TTL_ALL (1u << O_EQ | 1u << O_LT | 1u << O_GT)

/* One option table per spelling; PREFIX is "ttl" or "hl". */
#define TTL_OPTS(PREFIX)                                                                   \
	{                                                                                  \
		[O_EQ] = { .name = PREFIX "-eq", .type = EXT_T_U8, .flags = EXT_OPT_INVERT, \
			   EXT_FIELD(struct ttl_info, eq), .excl = TTL_ALL & ~(1u << O_EQ) }, \
		[O_LT] = { .name = PREFIX "-lt", .type = EXT_T_U8,                          \
			   EXT_FIELD(struct ttl_info, lt), .excl = TTL_ALL & ~(1u << O_LT) }, \
		[O_GT] = { .name = PREFIX "-gt", .type = EXT_T_U8,                          \
			   EXT_FIELD(struct ttl_info, gt), .excl = TTL_ALL & ~(1u << O_GT) }, \
		[O_OLD_EQ] = { .name = PREFIX, .type = EXT_T_U8,                            \
			       .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,                   \
			       EXT_FIELD(struct ttl_info, eq), .print_as = O_EQ },          \
	}

static const struct ext_opt ttl_opts[] = TTL_OPTS("ttl");
static const struct ext_opt hl_opts[] = TTL_OPTS("hl");

static int ttl_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct ext_opt *o = inst->match->opts;

	if (!(inst->seen & TTL_ALL)) {
		ext_errf(ctx->err, ctx->errlen, "one of --%s, --%s or --%s is required",
			 o[O_EQ].name, o[O_LT].name, o[O_GT].name);
		return -EINVAL;
	}
	return 0;
}

static bool ttl_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ttl_info *ti = inst->data;
	uint8_t v = ctx->info->ttl;

	if (inst->seen & 1u << O_EQ)
		return (v == ti->eq) ^ !!(inst->inv & 1u << O_EQ);
	if (inst->seen & 1u << O_LT)
		return v < ti->lt;
	return v > ti->gt;
}

const struct ext_match ext_match_ttl = {
	.name = "ttl",
	.family = AF_INET,
	.datasize = sizeof(struct ttl_info),
	.opts = ttl_opts,
	.nopts = sizeof(ttl_opts) / sizeof(ttl_opts[0]),
	.check = ttl_check,
	.match = ttl_match,
};

const struct ext_match ext_match_hl = {
	.name = "hl",
	.family = AF_INET6,
	.datasize = sizeof(struct ttl_info),
	.opts = hl_opts,
	.nopts = sizeof(hl_opts) / sizeof(hl_opts[0]),
	.check = ttl_check,
	.match = ttl_match,
};
