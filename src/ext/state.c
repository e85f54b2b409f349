// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m state [!] --state STATE[,STATE...]: the packet's conntrack state (src/ct), one of
 * INVALID, NEW, RELATED, ESTABLISHED, UNTRACKED. Printed in that order, as iptables-save
 * (1.8.9, nf_tables backend too) prints it: `-m state --state RELATED,UNTRACKED`.
 */
#include "ct/ct.h"
#include "rules/ext.h"

struct state_info {
	uint32_t states; /* CT_STATE_* */
};

static const struct ext_name state_names[] = {
    {"INVALID", CT_STATE_INVALID},     {"NEW", CT_STATE_NEW},
    {"RELATED", CT_STATE_RELATED},     {"ESTABLISHED", CT_STATE_ESTABLISHED},
    {"UNTRACKED", CT_STATE_UNTRACKED}, {NULL, 0},
};

static const struct ext_opt state_opts[] = {
    {.name = "state",
     .type = EXT_T_NAME_LIST,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct state_info, states),
     .names = state_names},
};

static bool state_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct state_info *si = inst->data;

	return !!(ct_pkt_state(ctx->pkt) & si->states) != !!(inst->inv & 1u);
}

const struct ext_match ext_match_state = {
    .name = "state",
    .datasize = sizeof(struct state_info),
    .opts = state_opts,
    .nopts = 1,
    .match = state_match,
    .needs_conntrack = true,
};
