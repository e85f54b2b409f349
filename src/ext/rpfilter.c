// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m rpfilter (xt_rpfilter / ip6t_rpfilter): reverse-path filtering against the box's routes,
 * in PREROUTING of the raw and mangle tables.
 *
 *   -m rpfilter [--loose] [--validmark] [--accept-local] [--invert]
 *
 * A packet passes when the box's route back to its source is a unicast route out of the
 * interface it came in on (--loose: out of any interface); a source that is one of the box's
 * own addresses passes only with --accept-local; no route, or a blackhole, unreachable or
 * prohibit route, fails. Always passes: packets that came in on "lo"; IPv4 from 0.0.0.0 to
 * 255.255.255.255 or 224.0.0.0/24 (DHCP, IGMP); IPv6 from :: or from a link-local source (the
 * route to fe80::/10 is on every interface). --invert turns the answer over (the usual rule is
 * `-m rpfilter --invert -j DROP`). --validmark is accepted and printed: the box has no policy
 * routing, so the mark chooses no route.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

enum { O_LOOSE, O_VALIDMARK, O_ACCEPT_LOCAL, O_INVERT };

static const struct ext_opt rpfilter_opts[] = {
    [O_LOOSE] = {.name = "loose", .type = EXT_T_NONE},
    [O_VALIDMARK] = {.name = "validmark", .type = EXT_T_NONE},
    [O_ACCEPT_LOCAL] = {.name = "accept-local", .type = EXT_T_NONE},
    [O_INVERT] = {.name = "invert", .type = EXT_T_NONE},
};

static bool rpfilter_pass(struct ext_pkt_ctx *ctx, uint32_t opts)
{
	const struct pkt_info *in = ctx->info;
	const struct ext_env *env = ctx->env;
	char dev[16];
	uint32_t type;

	if (!strcmp(ctx->in, "lo"))
		return true;
	if (ctx->family == AF_INET) {
		if (in->src.w[0] == 0 &&
		    (in->dst.w[0] == 0xffffffffu ||
		     (in->dst.b[0] == 224 && in->dst.b[1] == 0 && in->dst.b[2] == 0)))
			return true;
	} else {
		static const union pt_addr any;

		if (pt_addr_eq(&in->src, &any) ||
		    (in->src.b[0] == 0xfe && (in->src.b[1] & 0xc0) == 0x80))
			return true;
	}
	if (!env || !env->ops->route_dev)
		return false;
	type = env->ops->route_dev(env->box, ctx->family, &in->src, dev);
	if (type == EXT_RTN_LOCAL)
		return opts & 1u << O_ACCEPT_LOCAL;
	if (type != EXT_RTN_UNICAST)
		return false;
	return (opts & 1u << O_LOOSE) || !strcmp(dev, ctx->in);
}

static bool rpfilter_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return rpfilter_pass(ctx, inst->seen) ^ !!(inst->seen & 1u << O_INVERT);
}

const struct ext_match ext_match_rpfilter = {
    .name = "rpfilter",
    .tables = TABLE_BIT(TABLE_RAW) | TABLE_BIT(TABLE_MANGLE),
    .hooks = HOOK_BIT(HOOK_PREROUTING),
    .opts = rpfilter_opts,
    .nopts = sizeof(rpfilter_opts) / sizeof(rpfilter_opts[0]),
    .match = rpfilter_match,
};
