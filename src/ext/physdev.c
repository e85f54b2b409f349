// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m physdev (xt_physdev): the bridge ports a bridged packet came in or goes out on.
 *
 *   [!] --physdev-in NAME  [!] --physdev-out NAME  [!] --physdev-is-in  [!] --physdev-is-out
 *   [!] --physdev-is-bridged                        (NAME may end in "+": any suffix)
 *
 * A box has no bridge yet, so no packet is bridged: as the kernel decides for a packet without
 * bridge information, the match holds exactly when every option given is inverted
 * (`! --physdev-is-bridged` matches everything, `--physdev-in eth0` nothing). Accepted and
 * printed as iptables-save prints it, so rulesets written for bridging hosts load; what it
 * matches changes when bridge mode exists. --physdev-out and --physdev-is-out are refused in
 * OUTPUT unless --physdev-is-bridged is given, as the kernel refuses them.
 */
#include <errno.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct physdev_info {
	char in[16], out[16];
};

enum { O_IN, O_OUT, O_IS_IN, O_IS_OUT, O_BRIDGED };

static const struct ext_opt physdev_opts[] = {
    [O_IN] = {.name = "physdev-in",
	      .type = EXT_T_STRING,
	      .flags = EXT_OPT_INVERT,
	      EXT_FIELD(struct physdev_info, in)},
    [O_OUT] = {.name = "physdev-out",
	       .type = EXT_T_STRING,
	       .flags = EXT_OPT_INVERT,
	       EXT_FIELD(struct physdev_info, out)},
    [O_IS_IN] = {.name = "physdev-is-in", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [O_IS_OUT] = {.name = "physdev-is-out", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [O_BRIDGED] = {.name = "physdev-is-bridged", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
};

static int physdev_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!inst->seen) {
		ext_errf(ctx->err, ctx->errlen, "physdev: at least one option is required");
		return -EINVAL;
	}
	if ((inst->seen & (1u << O_OUT | 1u << O_IS_OUT)) &&
	    (!(inst->seen & 1u << O_BRIDGED) || (inst->inv & 1u << O_BRIDGED)) &&
	    (ctx->hook_mask & HOOK_BIT(HOOK_OUTPUT))) {
		ext_errf(ctx->err, ctx->errlen,
			 "physdev: --physdev-out and --physdev-is-out only supported in the "
			 "FORWARD and POSTROUTING chains with bridged traffic");
		return -EINVAL;
	}
	return 0;
}

/* Interface names print as they are (iptables-save does not quote "eth+"). */
static void physdev_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct physdev_info *pi = inst->data;

	for (unsigned i = O_IN; i <= O_BRIDGED; i++) {
		if (!(inst->seen & 1u << i))
			continue;
		ext_print_opt(pr, inst, i);
		if (i == O_IN || i == O_OUT)
			fprintf(pr->f, " %s", i == O_IN ? pi->in : pi->out);
	}
}

static bool physdev_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	(void)ctx;
	return (inst->seen & ~inst->inv) == 0; /* nothing is bridged */
}

const struct ext_match ext_match_physdev = {
    .name = "physdev",
    .datasize = sizeof(struct physdev_info),
    .opts = physdev_opts,
    .nopts = sizeof(physdev_opts) / sizeof(physdev_opts[0]),
    .check = physdev_check,
    .print = physdev_print,
    .match = physdev_match,
};
