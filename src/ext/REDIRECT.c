// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j REDIRECT [--to-ports PORT[-PORT]] [--random]; nat table, PREROUTING and OUTPUT. The
 * destination becomes the incoming interface's address (loopback for OUTPUT), filled in by
 * the NAT hook (NAT_R_REDIRECT).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ext/nat_opt.h"

enum { O_PORTS, O_RANDOM, O_NUM };

static const struct ext_opt redirect_opts[] = {
    [O_PORTS] = {.name = "to-ports", .type = EXT_T_CUSTOM},
    [O_RANDOM] = {.name = "random", .type = EXT_T_NONE},
};

static void redirect_init(struct ext_instance *inst)
{
	((struct nat_range *)inst->data)->flags = NAT_R_REDIRECT;
}

static int redirect_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			  const char *arg)
{
	struct nat_range *r = inst->data;

	if (opt == O_PORTS && strchr(arg, '/')) {
		snprintf(ctx->err, ctx->errlen, "REDIRECT: no port shift (\"%s\")", arg);
		return -EINVAL;
	}
	if (opt == O_PORTS)
		return nat_opt_parse_ports(ctx, r, arg);
	r->flags |= NAT_R_RANDOM;
	return 0;
}

static void redirect_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nat_range *r = inst->data;

	if (r->flags & NAT_R_PROTO) {
		fprintf(pr->f, " --to-ports %u", r->min_port);
		if (r->max_port != r->min_port)
			fprintf(pr->f, "-%u", r->max_port);
	}
	nat_opt_print_flags(pr, r, false);
}

static int redirect_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct nat_range r = *(const struct nat_range *)inst->data;

	r.family = (uint8_t)ctx->family;
	return nat_opt_request(ctx, NAT_MANIP_DST, &r);
}

const struct ext_target ext_target_REDIRECT = {
    .name = "REDIRECT",
    .tables = TABLE_BIT(TABLE_NAT),
    .hooks = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_OUTPUT),
    .datasize = sizeof(struct nat_range),
    .opts = redirect_opts,
    .nopts = O_NUM,
    .init = redirect_init,
    .parse = redirect_parse,
    .print = redirect_print,
    .target = redirect_target,
    .needs_conntrack = true,
};
