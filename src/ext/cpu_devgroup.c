// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m cpu (xt_cpu) and -m devgroup (xt_devgroup): what a box has one of.
 *
 *   -m cpu [!] --cpu N            the CPU handling the packet: a box runs each packet on one
 *                                 worker, number 0 (the simulator, replay, and live mode with
 *                                 one worker), so --cpu 0 matches everything
 *   -m devgroup [!] --src-group G[/M]  [!] --dst-group G[/M]
 *                                 the interface group of the input / output interface; a box's
 *                                 interfaces are all in group 0 ("default"), as a new Linux
 *                                 interface is. G and M are numbers or "default"; printed in
 *                                 hex, 0 as "default", as iptables-save prints them.
 *                                 --src-group in PREROUTING, INPUT, FORWARD; --dst-group in
 *                                 FORWARD, OUTPUT, POSTROUTING.
 */
#include <errno.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

/* ---- cpu -------------------------------------------------------------------------------- */

struct cpu_info {
	uint32_t cpu;
};

static const struct ext_opt cpu_opts[] = {
    {.name = "cpu",
     .type = EXT_T_U32,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct cpu_info, cpu)},
};

static bool cpu_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct cpu_info *ci = inst->data;

	(void)ctx;
	return (ci->cpu == 0) ^ !!inst->inv;
}

const struct ext_match ext_match_cpu = {
    .name = "cpu",
    .datasize = sizeof(struct cpu_info),
    .opts = cpu_opts,
    .nopts = 1,
    .match = cpu_match,
};

/* ---- devgroup ----------------------------------------------------------------------------- */

struct devgroup_info {
	uint32_t src[2], dst[2]; /* group, mask */
};

enum { D_SRC, D_DST };

static const struct ext_opt devgroup_opts[] = {
    [D_SRC] = {.name = "src-group", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [D_DST] = {.name = "dst-group", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
};

static int one_group(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!strcmp(s, "default")) {
		*out = 0;
		return 0;
	}
	if (ext_parse_uint(s, 0, UINT32_MAX, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int devgroup_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			  const char *arg)
{
	struct devgroup_info *di = inst->data;
	uint32_t *g = i == D_SRC ? di->src : di->dst;
	char buf[64];
	char *slash;

	snprintf(buf, sizeof(buf), "%s", arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	g[1] = UINT32_MAX;
	if (one_group(buf, &g[0]) || (slash && one_group(slash, &g[1]))) {
		ext_errf(ctx->err, ctx->errlen, "devgroup: bad group \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

static int devgroup_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!inst->seen) {
		ext_errf(ctx->err, ctx->errlen, "devgroup: --src-group or --dst-group is required");
		return -EINVAL;
	}
	if ((inst->seen & 1u << D_SRC) &&
	    (ctx->hook_mask & (HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_POSTROUTING)))) {
		ext_errf(ctx->err, ctx->errlen, "devgroup: --src-group not in OUTPUT/POSTROUTING");
		return -EINVAL;
	}
	if ((inst->seen & 1u << D_DST) &&
	    (ctx->hook_mask & (HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT)))) {
		ext_errf(ctx->err, ctx->errlen, "devgroup: --dst-group not in PREROUTING/INPUT");
		return -EINVAL;
	}
	return 0;
}

static void print_group(struct ext_printer *pr, const struct ext_instance *inst, unsigned i,
			const uint32_t g[2])
{
	ext_print_opt(pr, inst, i);
	if (g[0] == 0 && g[1] == UINT32_MAX)
		fputs(" default", pr->f);
	else if (g[1] == UINT32_MAX)
		fprintf(pr->f, " 0x%x", g[0]);
	else
		fprintf(pr->f, " 0x%x/0x%x", g[0], g[1]);
}

static void devgroup_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct devgroup_info *di = inst->data;

	if (inst->seen & 1u << D_SRC)
		print_group(pr, inst, D_SRC, di->src);
	if (inst->seen & 1u << D_DST)
		print_group(pr, inst, D_DST, di->dst);
}

static bool devgroup_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct devgroup_info *di = inst->data;

	(void)ctx; /* every interface of a box is in group 0 */
	if ((inst->seen & 1u << D_SRC) &&
	    ((0 & di->src[1]) == di->src[0]) == !!(inst->inv & 1u << D_SRC))
		return false;
	if ((inst->seen & 1u << D_DST) &&
	    ((0 & di->dst[1]) == di->dst[0]) == !!(inst->inv & 1u << D_DST))
		return false;
	return true;
}

const struct ext_match ext_match_devgroup = {
    .name = "devgroup",
    .datasize = sizeof(struct devgroup_info),
    .opts = devgroup_opts,
    .nopts = sizeof(devgroup_opts) / sizeof(devgroup_opts[0]),
    .parse = devgroup_parse,
    .check = devgroup_check,
    .print = devgroup_print,
    .match = devgroup_match,
};
