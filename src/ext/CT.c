// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j NOTRACK and -j CT [--notrack] [--zone N], raw table only: what conntrack (which runs
 * after raw) does with the packet. NOTRACK and --notrack mark it UNTRACKED; --zone makes its
 * connection live in zone N (a separate tuple space). Printed as iptables-save 1.8.9 prints
 * them: `-j NOTRACK` stays NOTRACK, `-j CT --notrack --zone 5`.
 * Not yet: --helper, --timeout, --ctevents, --expevents, --zone-orig/--zone-reply.
 */
#include "ct/ct.h"
#include "rules/ext.h"

struct ct_target_info {
	uint16_t zone;
};

enum { O_NOTRACK, O_ZONE, O_NUM };

static const struct ext_opt ct_target_opts[] = {
    [O_NOTRACK] = {.name = "notrack", .type = EXT_T_NONE},
    [O_ZONE] = {.name = "zone", .type = EXT_T_U16, EXT_FIELD(struct ct_target_info, zone)},
};

static int ct_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ct_target_info *ci = inst->data;

	if (ctx->pkt->ct)
		return EXT_CONTINUE; /* already tracked (a looped-back packet) */
	if (inst->seen & (1u << O_NOTRACK))
		ct_pkt_set_untracked(ctx->pkt);
	if (inst->seen & (1u << O_ZONE))
		ct_pkt_set_zone(ctx->pkt, ci->zone);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CT = {
    .name = "CT",
    .tables = TABLE_BIT(TABLE_RAW),
    .datasize = sizeof(struct ct_target_info),
    .opts = ct_target_opts,
    .nopts = O_NUM,
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
