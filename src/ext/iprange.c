// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m iprange: the source and/or destination address inside an inclusive range (xt_iprange
 * revision 1), either family.
 *
 *   -m iprange [!] --src-range 192.0.2.1-192.0.2.10 [!] --dst-range 2001:db8::1-2001:db8::ff
 *
 * A single address is the range from it to itself. A range whose first address is above its
 * last is accepted as iptables accepts it; it contains nothing.
 */
#include <errno.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct iprange_info {
	union pt_addr src[2]; /* first, last */
	union pt_addr dst[2];
};

enum { O_SRC_RANGE, O_DST_RANGE };

static const struct ext_opt iprange_opts[] = {
	[O_SRC_RANGE] = { .name = "src-range", .type = EXT_T_ADDR_RANGE, .flags = EXT_OPT_INVERT,
			  EXT_FIELD(struct iprange_info, src) },
	[O_DST_RANGE] = { .name = "dst-range", .type = EXT_T_ADDR_RANGE, .flags = EXT_OPT_INVERT,
			  EXT_FIELD(struct iprange_info, dst) },
};

static int iprange_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!inst->seen) {
		ext_errf(ctx->err, ctx->errlen, "you must specify --src-range or --dst-range");
		return -EINVAL;
	}
	return 0;
}

static bool iprange_in(const union pt_addr *a, const union pt_addr r[2])
{
	return pt_addr_cmp(a, &r[0]) >= 0 && pt_addr_cmp(a, &r[1]) <= 0;
}

static bool iprange_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct iprange_info *ri = inst->data;

	if ((inst->seen & 1u << O_SRC_RANGE) &&
	    iprange_in(&ctx->info->src, ri->src) == !!(inst->inv & 1u << O_SRC_RANGE))
		return false;
	if ((inst->seen & 1u << O_DST_RANGE) &&
	    iprange_in(&ctx->info->dst, ri->dst) == !!(inst->inv & 1u << O_DST_RANGE))
		return false;
	return true;
}

static unsigned iprange_cls_tests(const struct ext_instance *inst, int family,
				  struct ext_cls_test *out, bool *exact)
{
	const struct iprange_info *ri = inst->data;
	unsigned n = 0;

	*exact = family == AF_INET; /* IPv6 ranges are narrowed word by word, not exactly */
	if (inst->seen & 1u << O_SRC_RANGE)
		out[n++] = (struct ext_cls_test){EXT_CLS_SRC, inst->inv & 1u << O_SRC_RANGE,
						 ri->src[0], ri->src[1]};
	if (inst->seen & 1u << O_DST_RANGE)
		out[n++] = (struct ext_cls_test){EXT_CLS_DST, inst->inv & 1u << O_DST_RANGE,
						 ri->dst[0], ri->dst[1]};
	return n;
}

const struct ext_match ext_match_iprange = {
	.name = "iprange",
	.datasize = sizeof(struct iprange_info),
	.opts = iprange_opts,
	.nopts = sizeof(iprange_opts) / sizeof(iprange_opts[0]),
	.check = iprange_check,
	.match = iprange_match,
	.cls_tests = iprange_cls_tests,
};
