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

const struct ext_match ext_match_mark = {
	.name = "mark",
	.datasize = sizeof(struct mark_data),
	.opts = mark_opts,
	.nopts = 1,
	.match = mark_match,
};
