// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m connmark [!] --mark VALUE[/MASK]: the connection's mark (src/ct), as xt_connmark:
 *
 *   (ct mark & MASK) == VALUE     MASK defaults to 0xffffffff; VALUE is not masked, so
 *                                 `--mark 0x10/0x0` never matches (iptables keeps it as given)
 *
 * A packet without a connection (INVALID, UNTRACKED) never matches, inverted or not.
 * Printed as iptables-save 1.8.9 prints it: hex, `/0xffffffff` dropped.
 */
#include "ct/ct.h"
#include "rules/ext.h"

struct connmark_info {
	uint32_t mark[2]; /* value, mask */
};

static const struct ext_opt connmark_opts[] = {
    {.name = "mark",
     .type = EXT_T_MARKMASK,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct connmark_info, mark)},
};

static bool connmark_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct connmark_info *ci = inst->data;
	const struct ct_entry *e = ct_pkt_entry(ctx->pkt);

	if (!e)
		return false;
	return ((ct_entry_mark(e) & ci->mark[1]) == ci->mark[0]) != !!(inst->inv & 1u);
}

const struct ext_match ext_match_connmark = {
    .name = "connmark",
    .datasize = sizeof(struct connmark_info),
    .opts = connmark_opts,
    .nopts = 1,
    .match = connmark_match,
    .needs_conntrack = true,
};
