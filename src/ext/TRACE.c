/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j TRACE: mark the packet so that the box prints every rule it traverses from here on.
 * The kernel's xt_TRACE is for the raw table only, but iptables-nft (the reference) turns it
 * into "meta nftrace set 1", which any table takes; pkttables follows iptables-nft.
 */
#include "rules/ext.h"

static int trace_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	ctx->pkt->trace = true;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_TRACE = {
	.name = "TRACE",
	.target = trace_target,
};
