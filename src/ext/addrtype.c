// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m addrtype: the routing type of the source and/or destination address (xt_addrtype
 * revision 1), as the box's routing sees it (ctx->env->ops->addr_type).
 *
 *   -m addrtype [!] --src-type LOCAL,BROADCAST [!] --dst-type UNICAST [--limit-iface-in]
 *
 * A list matches when the address has any of the listed types. --limit-iface-in/out count
 * only the addresses of the incoming/outgoing interface as local; the first is refused in
 * OUTPUT and POSTROUTING, the second in PREROUTING and INPUT, as the kernel refuses them.
 * IPv6 has no BROADCAST, BLACKHOLE, PROHIBIT, THROW, NAT or XRESOLVE routes.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct addrtype_info {
	uint32_t src, dst; /* EXT_RTN_* */
};

enum { O_SRC_TYPE, O_DST_TYPE, O_LIMIT_IN, O_LIMIT_OUT };

/* iptables' names, in bit order: the order iptables-save prints them in */
static const struct ext_name addrtype_names[] = {
	{ "UNSPEC", EXT_RTN_UNSPEC },	    { "UNICAST", EXT_RTN_UNICAST },
	{ "LOCAL", EXT_RTN_LOCAL },	    { "BROADCAST", EXT_RTN_BROADCAST },
	{ "ANYCAST", EXT_RTN_ANYCAST },	    { "MULTICAST", EXT_RTN_MULTICAST },
	{ "BLACKHOLE", EXT_RTN_BLACKHOLE }, { "UNREACHABLE", EXT_RTN_UNREACHABLE },
	{ "PROHIBIT", EXT_RTN_PROHIBIT },   { "THROW", EXT_RTN_THROW },
	{ "NAT", EXT_RTN_NAT },		    { "XRESOLVE", EXT_RTN_XRESOLVE },
	{ NULL, 0 },
};

static const struct ext_opt addrtype_opts[] = {
	[O_SRC_TYPE] = { .name = "src-type", .type = EXT_T_NAME_LIST, .flags = EXT_OPT_INVERT,
			 EXT_FIELD(struct addrtype_info, src), .names = addrtype_names },
	[O_DST_TYPE] = { .name = "dst-type", .type = EXT_T_NAME_LIST, .flags = EXT_OPT_INVERT,
			 EXT_FIELD(struct addrtype_info, dst), .names = addrtype_names },
	[O_LIMIT_IN] = { .name = "limit-iface-in", .type = EXT_T_NONE,
			 .excl = 1u << O_LIMIT_OUT },
	[O_LIMIT_OUT] = { .name = "limit-iface-out", .type = EXT_T_NONE,
			  .excl = 1u << O_LIMIT_IN },
};

/* The core skips empty list elements; iptables refuses "LOCAL,", ",LOCAL" and "A,,B". */
static int addrtype_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			  const char *arg)
{
	size_t n;

	if (opt != O_SRC_TYPE && opt != O_DST_TYPE)
		return 0;
	n = strlen(arg);
	if (!n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,")) {
		ext_errf(ctx->err, ctx->errlen, "addrtype: empty address type in list \"%s\"",
			 arg);
		return -EINVAL;
	}
	return 0;
}

#define ADDRTYPE_NOT_IPV6                                                                   \
	(EXT_RTN_BROADCAST | EXT_RTN_BLACKHOLE | EXT_RTN_PROHIBIT | EXT_RTN_THROW |          \
	 EXT_RTN_NAT | EXT_RTN_XRESOLVE)

static int addrtype_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct addrtype_info *ai = inst->data;

	if (!(inst->seen & (1u << O_SRC_TYPE | 1u << O_DST_TYPE))) {
		ext_errf(ctx->err, ctx->errlen, "you must specify --src-type or --dst-type");
		return -EINVAL;
	}
	if ((inst->seen & 1u << O_LIMIT_OUT) &&
	    (ctx->hook_mask & (HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT)))) {
		ext_errf(ctx->err, ctx->errlen,
			 "output interface limitation not valid in PREROUTING and INPUT");
		return -EINVAL;
	}
	if ((inst->seen & 1u << O_LIMIT_IN) &&
	    (ctx->hook_mask & (HOOK_BIT(HOOK_POSTROUTING) | HOOK_BIT(HOOK_OUTPUT)))) {
		ext_errf(ctx->err, ctx->errlen,
			 "input interface limitation not valid in POSTROUTING and OUTPUT");
		return -EINVAL;
	}
	if (ctx->family == AF_INET6 && ((ai->src | ai->dst) & ADDRTYPE_NOT_IPV6)) {
		ext_errf(ctx->err, ctx->errlen,
			 "ipv6 does not support BROADCAST, BLACKHOLE, PROHIBIT, THROW, NAT or "
			 "XRESOLVE matching");
		return -EINVAL;
	}
	return 0;
}

static bool addrtype_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct addrtype_info *ai = inst->data;
	const char *dev = NULL;
	uint32_t t;

	if (!ctx->env || !ctx->env->ops || !ctx->env->ops->addr_type)
		return false;
	if (inst->seen & 1u << O_LIMIT_IN)
		dev = ctx->in;
	else if (inst->seen & 1u << O_LIMIT_OUT)
		dev = ctx->out;
	if (inst->seen & 1u << O_SRC_TYPE) {
		t = ctx->env->ops->addr_type(ctx->env->box, ctx->family, &ctx->info->src, dev);
		if (!!(t & ai->src) == !!(inst->inv & 1u << O_SRC_TYPE))
			return false;
	}
	if (inst->seen & 1u << O_DST_TYPE) {
		t = ctx->env->ops->addr_type(ctx->env->box, ctx->family, &ctx->info->dst, dev);
		if (!!(t & ai->dst) == !!(inst->inv & 1u << O_DST_TYPE))
			return false;
	}
	return true;
}

const struct ext_match ext_match_addrtype = {
	.name = "addrtype",
	.datasize = sizeof(struct addrtype_info),
	.opts = addrtype_opts,
	.nopts = sizeof(addrtype_opts) / sizeof(addrtype_opts[0]),
	.parse = addrtype_parse,
	.check = addrtype_check,
	.match = addrtype_match,
};
