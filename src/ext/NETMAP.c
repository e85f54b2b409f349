// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j NETMAP --to ADDR[/LEN|/MASK]: map a whole network onto another, host bits kept; the
 * destination in PREROUTING/OUTPUT, the source in POSTROUTING/INPUT. Printed as iptables-save
 * 1.8.9 prints it: the network masked, a prefix length (a mask with holes and IPv4 lengths
 * above 32 print as /32; IPv6 refuses lengths above 128).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/nat_opt.h"

static const struct ext_opt netmap_opts[] = {
    {.name = "to", .type = EXT_T_CUSTOM, .flags = EXT_OPT_MANDATORY},
};

static int netmap_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct nat_range *r = inst->data;
	int max = ctx->family == AF_INET ? 32 : 128, len = max;
	char buf[80], *slash;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (pt_addr_parse(buf, &r->min_addr) != ctx->family)
		goto bad;
	if (slash) {
		union pt_addr m;
		char *end;
		long v = strtol(slash, &end, 10);

		if (*slash && !*end && v >= 0) {
			if (v > max && ctx->family == AF_INET6)
				goto bad;
			len = v > max ? max : (int)v;
		} else if (pt_addr_parse(slash, &m) == ctx->family) {
			len = pt_mask_len(ctx->family, &m);
			if (len < 0)
				len = max; /* holes: iptables keeps the host alone */
		} else {
			goto bad;
		}
	}
	pt_mask_from_len(ctx->family, len, &r->max_addr);
	for (int i = 0; i < 4; i++)
		r->min_addr.w[i] &= r->max_addr.w[i];
	r->family = (uint8_t)ctx->family;
	r->netmap = 1;
	return 0;
bad:
	snprintf(ctx->err, ctx->errlen, "Bad network address \"%s\"", arg);
	return -EINVAL;
}

static void netmap_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nat_range *r = inst->data;
	char a[64];

	fprintf(pr->f, " --to %s/%d", pt_addr_str(r->family, &r->min_addr, a, sizeof(a)),
		pt_mask_len(r->family, &r->max_addr));
}

static int netmap_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct nat_range *net = inst->data;
	enum nat_manip m = ctx->hook == HOOK_PREROUTING || ctx->hook == HOOK_OUTPUT
				   ? NAT_MANIP_DST
				   : NAT_MANIP_SRC;
	const union pt_addr *old = m == NAT_MANIP_DST ? &ctx->info->dst : &ctx->info->src;
	struct nat_range r;

	memset(&r, 0, sizeof(r));
	r.family = net->family;
	r.flags = NAT_R_MAP_IPS;
	for (int i = 0; i < 4; i++)
		r.min_addr.w[i] = (old->w[i] & ~net->max_addr.w[i]) | net->min_addr.w[i];
	r.max_addr = r.min_addr;
	return nat_opt_request(ctx, m, &r);
}

const struct ext_target ext_target_NETMAP = {
    .name = "NETMAP",
    .tables = TABLE_BIT(TABLE_NAT),
    .hooks = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_POSTROUTING) |
	     HOOK_BIT(HOOK_INPUT),
    .datasize = sizeof(struct nat_range),
    .opts = netmap_opts,
    .nopts = 1,
    .parse = netmap_parse,
    .print = netmap_print,
    .target = netmap_target,
    .needs_conntrack = true,
};
