/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j CLASSIFY --set-class MAJOR:MINOR (both hex, at most ffff): pkt->priority = MAJOR << 16 |
 * MINOR, the tc class the packet is queued to. OUTPUT, FORWARD, POSTROUTING of any table, as
 * iptables-nft accepts it.
 */
#include <errno.h>
#include <stdio.h>

#include "rules/ext.h"

struct classify_info {
	uint32_t priority;
};

static const struct ext_opt classify_opts[] = {
	{ .name = "set-class", .type = EXT_T_CUSTOM, .flags = EXT_OPT_MANDATORY, .print_as = -1 },
};

static int classify_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			  const char *arg)
{
	struct classify_info *ci = inst->data;
	unsigned major, minor;
	char extra;

	if (sscanf(arg, "%x:%x%c", &major, &minor, &extra) != 2 || arg[0] == '-') {
		snprintf(ctx->err, ctx->errlen, "Bad class value \"%s\"", arg);
		return -EINVAL;
	}
	/* iptables keeps the low 16 bits of each half without complaint (10000:1 is 0:1) */
	ci->priority = (major & 0xffff) << 16 | (minor & 0xffff);
	return 0;
}

static void classify_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct classify_info *ci = inst->data;

	fprintf(pr->f, " --set-class %04x:%04x", ci->priority >> 16, ci->priority & 0xffff);
}

static int classify_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct classify_info *ci = inst->data;

	ctx->pkt->priority = ci->priority;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CLASSIFY = {
	.name = "CLASSIFY",
	.hooks = HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_POSTROUTING),
	.datasize = sizeof(struct classify_info),
	.opts = classify_opts,
	.nopts = 1,
	.parse = classify_parse,
	.print = classify_print,
	.target = classify_target,
};
