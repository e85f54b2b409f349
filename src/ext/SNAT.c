// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j SNAT --to-source [ADDR[-ADDR]][:PORT[-PORT]] [--random] [--random-fully] [--persistent]
 * and pkttables' BEHAVE options (--mapping, --filtering, --refresh, --hairpin/--no-hairpin,
 * docs/nat.md). nat table, POSTROUTING and INPUT. The rule asks; src/nat decides the binding
 * after the table (nat_request, nat_setup).
 */
#include "ext/nat_opt.h"

enum {
	O_TO,
	O_RANDOM,
	O_RANDOM_FULLY,
	O_PERSISTENT,
	O_MAPPING,
	O_FILTERING,
	O_REFRESH,
	O_HAIRPIN,
	O_NO_HAIRPIN,
	O_NUM
};

static const struct ext_opt snat_opts[] = {
    [O_TO] = {.name = "to-source", .type = EXT_T_CUSTOM, .flags = EXT_OPT_MANDATORY},
    [O_RANDOM] = {.name = "random", .type = EXT_T_NONE},
    [O_RANDOM_FULLY] = {.name = "random-fully", .type = EXT_T_NONE},
    [O_PERSISTENT] = {.name = "persistent", .type = EXT_T_NONE},
    [O_MAPPING] = {.name = "mapping", .type = EXT_T_CUSTOM},
    [O_FILTERING] = {.name = "filtering", .type = EXT_T_CUSTOM},
    [O_REFRESH] = {.name = "refresh", .type = EXT_T_CUSTOM},
    [O_HAIRPIN] = {.name = "hairpin", .type = EXT_T_NONE, .excl = 1u << O_NO_HAIRPIN},
    [O_NO_HAIRPIN] = {.name = "no-hairpin", .type = EXT_T_NONE, .excl = 1u << O_HAIRPIN},
};

static int snat_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct nat_range *r = inst->data;
	int rc;

	if (opt == O_TO) {
		rc = nat_opt_parse_range(ctx, r, arg);
		r->base_port = 0; /* iptables keeps a shift's flag for SNAT, not its base */
		return rc;
	}
	rc = nat_opt_parse_common(ctx, r, inst->target->opts[opt].name, arg);
	return rc < 0 ? rc : 0;
}

static void snat_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nat_range *r = inst->data;

	nat_opt_print_range(pr, "to-source", r);
	nat_opt_print_flags(pr, r, true);
	nat_opt_print_behave(pr, r);
}

static int snat_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return nat_opt_request(ctx, NAT_MANIP_SRC, inst->data);
}

const struct ext_target ext_target_SNAT = {
    .name = "SNAT",
    .tables = TABLE_BIT(TABLE_NAT),
    .hooks = HOOK_BIT(HOOK_POSTROUTING) | HOOK_BIT(HOOK_INPUT),
    .datasize = sizeof(struct nat_range),
    .opts = snat_opts,
    .nopts = O_NUM,
    .parse = snat_parse,
    .print = snat_print,
    .target = snat_target,
    .needs_conntrack = true,
};
