// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j CHECKSUM --checksum-fill (xt_CHECKSUM), mangle table only: fill in the transport
 * checksum of a packet that leaves it to be filled.
 *
 * The kernel fills only packets whose checksum is still to be computed (CHECKSUM_PARTIAL: made
 * by a local guest or container with offload, the reason the target exists: DHCP answers to
 * old clients). A box sees such a packet on the wire as one with a wrong (partial) checksum, so
 * pkttables fills the TCP, UDP, UDP-Lite, SCTP, DCCP, ICMP checksum of a packet when it is
 * wrong and leaves a right one alone. Fragments are never touched (the checksum covers the
 * whole datagram).
 */
#include <errno.h>

#include "ext/match_util.h"
#include "rules/ext.h"

enum { O_FILL };

static const struct ext_opt checksum_opts[] = {
    [O_FILL] = {.name = "checksum-fill", .type = EXT_T_NONE, .flags = EXT_OPT_MANDATORY},
};

static int checksum_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	(void)inst;
	if (ctx->info->has_l4 && !ctx->info->is_fragment && !pkt_l4_csum_ok(ctx->pkt))
		pkt_l4_csum_update(ctx->pkt);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CHECKSUM = {
    .name = "CHECKSUM",
    .tables = TABLE_BIT(TABLE_MANGLE),
    .opts = checksum_opts,
    .nopts = 1,
    .target = checksum_target,
};
