// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j DNAT --to-destination [ADDR[-ADDR]][:PORT[-PORT]] [--random] [--persistent]; nat table,
 * PREROUTING and OUTPUT. iptables 1.8.9 has no --random-fully for DNAT. Bindings are per
 * connection (the destination port stays unless a range is given).
 */
#include "ext/nat_opt.h"

enum { O_TO, O_RANDOM, O_PERSISTENT, O_NUM };

static const struct ext_opt dnat_opts[] = {
    [O_TO] = {.name = "to-destination", .type = EXT_T_CUSTOM, .flags = EXT_OPT_MANDATORY},
    [O_RANDOM] = {.name = "random", .type = EXT_T_NONE},
    [O_PERSISTENT] = {.name = "persistent", .type = EXT_T_NONE},
};

static int dnat_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct nat_range *r = inst->data;

	if (opt == O_TO)
		return nat_opt_parse_range(ctx, r, arg);
	r->flags |= opt == O_RANDOM ? NAT_R_RANDOM : NAT_R_PERSISTENT;
	return 0;
}

static void dnat_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	nat_opt_print_range(pr, "to-destination", inst->data);
	nat_opt_print_flags(pr, inst->data, true);
}

static int dnat_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return nat_opt_request(ctx, NAT_MANIP_DST, inst->data);
}

const struct ext_target ext_target_DNAT = {
    .name = "DNAT",
    .tables = TABLE_BIT(TABLE_NAT),
    .hooks = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_OUTPUT),
    .datasize = sizeof(struct nat_range),
    .opts = dnat_opts,
    .nopts = O_NUM,
    .parse = dnat_parse,
    .print = dnat_print,
    .target = dnat_target,
    .needs_conntrack = true,
};
