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

/* Every value of the packet's state bits (CT_STATE_*, 5 bits) that shares a bit with the
 * rule's: one test per such value. */
static unsigned state_cls_tests(const struct ext_instance *inst, int family,
				struct ext_cls_test *out, bool *exact)
{
	const struct state_info *si = inst->data;
	unsigned n = 0;

	for (uint32_t v = 0; v < 32 && n < EXT_CLS_MAX_TESTS; v++)
		if (v & si->states)
			out[n++] = ext_cls_range(EXT_CLS_CTSTATE, inst->inv & 1u, v, v);
	if (!n) /* no state bit: matches nothing, or (inverted) everything */
		out[n++] = ext_cls_range(EXT_CLS_CTSTATE, !(inst->inv & 1u), 0, UINT32_MAX);
	*exact = true;
	return n;
}

static uint32_t state_cls_value(const struct ext_pkt_ctx *ctx, unsigned field)
{
	return ct_pkt_state(ctx->pkt);
}

const struct ext_match ext_match_state = {
    .name = "state",
    .datasize = sizeof(struct state_info),
    .opts = state_opts,
    .nopts = 1,
    .match = state_match,
    .cls_tests = state_cls_tests,
    .cls_value = state_cls_value,
    .needs_conntrack = true,
};
