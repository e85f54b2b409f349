// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j NOTRACK and -j CT [--notrack] [--helper NAME] [--zone N], raw table only: what conntrack
 * (which runs after raw) does with the packet. NOTRACK and --notrack mark it UNTRACKED; --helper
 * asks that the packet's new connection gets that helper (the only way one is assigned, as in
 * Linux since 6.0); --zone makes its connection live in zone N (a separate tuple space). Printed
 * as iptables-save 1.8.9 prints them: `-j NOTRACK` stays NOTRACK, `-j CT --notrack --zone 5`,
 * `-j CT --helper ftp`. As xt_CT, --helper needs a protocol (-p) the helper works for.
 * Not yet: --timeout, --ctevents, --expevents, --zone-orig/--zone-reply.
 */
#include <errno.h>
#include <stdio.h>

#include "ct/ct.h"
#include "ct/helper.h"
#include "rules/ext.h"

struct ct_target_info {
	uint16_t zone;
	char helper[16];	   /* as the kernel's xt_ct_target_info.helper */
	const struct ct_helper *h; /* set by check */
};

/* The print order is iptables 1.8.9's: --notrack, --helper, --zone. */
enum { O_NOTRACK, O_HELPER, O_ZONE, O_NUM };

static const struct ext_opt ct_target_opts[] = {
    [O_NOTRACK] = {.name = "notrack", .type = EXT_T_NONE},
    [O_HELPER] = {.name = "helper", .type = EXT_T_STRING,
		  EXT_FIELD(struct ct_target_info, helper)},
    [O_ZONE] = {.name = "zone", .type = EXT_T_U16, EXT_FIELD(struct ct_target_info, zone)},
};

static int ct_target_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct ct_target_info *ci = inst->data;

	if (!(inst->seen & (1u << O_HELPER)))
		return 0;
	if (!ctx->proto || ctx->proto_inverted) {
		snprintf(ctx->err, ctx->errlen, "--helper needs a protocol (-p), not inverted");
		return -EINVAL;
	}
	ci->h = ct_helper_builtin(ci->helper, (uint8_t)ctx->proto, ctx->family);
	if (!ci->h) {
		snprintf(ctx->err, ctx->errlen, "no helper \"%s\" for this protocol and family",
			 ci->helper);
		return -ENOENT;
	}
	return 0;
}

static int ct_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ct_target_info *ci = inst->data;

	if (ctx->pkt->ct)
		return EXT_CONTINUE; /* already tracked (a looped-back packet) */
	if (inst->seen & (1u << O_NOTRACK))
		ct_pkt_set_untracked(ctx->pkt);
	if (inst->seen & (1u << O_ZONE))
		ct_pkt_set_zone(ctx->pkt, ci->zone);
	if (ci->h)
		ct_pkt_set_helper(ctx->pkt, ci->h);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CT = {
    .name = "CT",
    .tables = TABLE_BIT(TABLE_RAW),
    .datasize = sizeof(struct ct_target_info),
    .opts = ct_target_opts,
    .nopts = O_NUM,
    .check = ct_target_check,
    .target = ct_target,
    .needs_conntrack = true,
};

static int notrack_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	if (!ctx->pkt->ct)
		ct_pkt_set_untracked(ctx->pkt);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_NOTRACK = {
    .name = "NOTRACK",
    .tables = TABLE_BIT(TABLE_RAW),
    .target = notrack_target,
    .needs_conntrack = true,
};
