// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j MASQUERADE [--to-ports PORT[-PORT]] [--random] [--random-fully] and the BEHAVE options of
 * SNAT (docs/nat.md); nat table, POSTROUTING only. The address is the outgoing interface's,
 * filled in by the NAT hook (NAT_R_MASQUERADE).
 */
#include "ext/nat_opt.h"

enum {
	O_PORTS,
	O_RANDOM,
	O_RANDOM_FULLY,
	O_MAPPING,
	O_FILTERING,
	O_REFRESH,
	O_HAIRPIN,
	O_NO_HAIRPIN,
	O_NUM
};

static const struct ext_opt masq_opts[] = {
    [O_PORTS] = {.name = "to-ports", .type = EXT_T_CUSTOM},
    [O_RANDOM] = {.name = "random", .type = EXT_T_NONE},
    [O_RANDOM_FULLY] = {.name = "random-fully", .type = EXT_T_NONE},
    [O_MAPPING] = {.name = "mapping", .type = EXT_T_CUSTOM},
    [O_FILTERING] = {.name = "filtering", .type = EXT_T_CUSTOM},
    [O_REFRESH] = {.name = "refresh", .type = EXT_T_CUSTOM},
    [O_HAIRPIN] = {.name = "hairpin", .type = EXT_T_NONE, .excl = 1u << O_NO_HAIRPIN},
    [O_NO_HAIRPIN] = {.name = "no-hairpin", .type = EXT_T_NONE, .excl = 1u << O_HAIRPIN},
};

static void masq_init(struct ext_instance *inst)
{
	((struct nat_range *)inst->data)->flags = NAT_R_MASQUERADE;
}

static int masq_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct nat_range *r = inst->data;
	int rc;

	r->family = (uint8_t)ctx->family;
	if (opt == O_PORTS) {
		rc = nat_opt_parse_ports(ctx, r, arg);
		r->base_port = 0; /* as SNAT: the shift's flag without its base */
		return rc;
	}
	rc = nat_opt_parse_common(ctx, r, inst->target->opts[opt].name, arg);
	return rc < 0 ? rc : 0;
}

static void masq_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nat_range *r = inst->data;

	if (r->flags & NAT_R_PROTO) {
		fprintf(pr->f, " --to-ports %u", r->min_port);
		if (r->max_port != r->min_port)
			fprintf(pr->f, "-%u", r->max_port);
		if (r->flags & NAT_R_PROTO_OFFSET)
			fprintf(pr->f, "/%u", r->base_port);
	}
	nat_opt_print_flags(pr, r, false);
	nat_opt_print_behave(pr, r);
}

static int masq_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct nat_range r = *(const struct nat_range *)inst->data;

	r.family = (uint8_t)ctx->family;
	return nat_opt_request(ctx, NAT_MANIP_SRC, &r);
}

const struct ext_target ext_target_MASQUERADE = {
    .name = "MASQUERADE",
    .tables = TABLE_BIT(TABLE_NAT),
    .hooks = HOOK_BIT(HOOK_POSTROUTING),
    .datasize = sizeof(struct nat_range),
    .opts = masq_opts,
    .nopts = O_NUM,
    .init = masq_init,
    .parse = masq_parse,
    .print = masq_print,
    .target = masq_target,
    .needs_conntrack = true,
};
