// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m hl: the hop limit (IPv6) compared with a value (ip6t_hl).
 *
 *   -m hl [!] --hl-eq N | --hl-lt N | --hl-gt N     exactly one; only --hl-eq inverts
 *
 * "--hl N" is the old spelling of --hl-eq.
 */
#include <errno.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct hl_info {
	uint8_t eq, lt, gt;
};

enum { O_EQ, O_LT, O_GT, O_OLD_EQ };

#define HL_ALL (1u << O_EQ | 1u << O_LT | 1u << O_GT)

static const struct ext_opt hl_opts[] = {
	[O_EQ] = { .name = "hl-eq", .type = EXT_T_U8, .flags = EXT_OPT_INVERT,
		   EXT_FIELD(struct hl_info, eq), .excl = HL_ALL & ~(1u << O_EQ) },
	[O_LT] = { .name = "hl-lt", .type = EXT_T_U8, EXT_FIELD(struct hl_info, lt),
		   .excl = HL_ALL & ~(1u << O_LT) },
	[O_GT] = { .name = "hl-gt", .type = EXT_T_U8, EXT_FIELD(struct hl_info, gt),
		   .excl = HL_ALL & ~(1u << O_GT) },
	[O_OLD_EQ] = { .name = "hl", .type = EXT_T_U8, .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		       EXT_FIELD(struct hl_info, eq), .print_as = O_EQ },
};

static int hl_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & HL_ALL)) {
		ext_errf(ctx->err, ctx->errlen, "one of --hl-eq, --hl-lt or --hl-gt is required");
		return -EINVAL;
	}
	return 0;
}

static bool hl_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct hl_info *ti = inst->data;
	uint8_t v = ctx->info->ttl;

	if (inst->seen & 1u << O_EQ)
		return (v == ti->eq) ^ !!(inst->inv & 1u << O_EQ);
	if (inst->seen & 1u << O_LT)
		return v < ti->lt;
	return v > ti->gt;
}

const struct ext_match ext_match_hl = {
	.name = "hl",
	.family = AF_INET6,
	.datasize = sizeof(struct hl_info),
	.opts = hl_opts,
	.nopts = sizeof(hl_opts) / sizeof(hl_opts[0]),
	.check = hl_check,
	.match = hl_match,
};
