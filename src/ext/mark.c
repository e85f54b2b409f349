// SPDX-License-Identifier: GPL-2.0-or-later
/* -m mark [!] --mark VALUE[/MASK]: (packet mark & MASK) == VALUE. */
#include <stdio.h>

#include "rules/ext.h"

struct mark_data {
	uint32_t mark[2]; /* value, mask */
};

static const struct ext_opt mark_opts[] = {
	{ .name = "mark", .type = EXT_T_MARKMASK, .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
	  EXT_FIELD(struct mark_data, mark) },
};

static bool mark_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct mark_data *d = inst->data;

	return ((ctx->pkt->mark & d->mark[1]) == d->mark[0]) != !!(inst->inv & 1u);
}

/* A plain value (mask all ones), or a mask of leading ones: a range of marks. */
static unsigned mark_cls_tests(const struct ext_instance *inst, int family,
			       struct ext_cls_test *out, bool *exact)
{
	const struct mark_data *d = inst->data;
	uint32_t m = d->mark[1];

	if (~m & (~m + 1)) /* the zero bits of the mask are not a run at the bottom */
		return 0;
	if (d->mark[0] & ~m) { /* no mark can match; inverted, every mark does */
		if (inst->inv & 1u)
			return 0;
		out[0] = ext_cls_range(EXT_CLS_MARK, false, 1, 0);
		return 1;
	}
	out[0] = ext_cls_range(EXT_CLS_MARK, inst->inv & 1u, d->mark[0], d->mark[0] | ~m);
	*exact = true;
	return 1;
}

const struct ext_match ext_match_mark = {
	.name = "mark",
	.datasize = sizeof(struct mark_data),
	.opts = mark_opts,
	.nopts = 1,
	.match = mark_match,
	.cls_tests = mark_cls_tests,
};
