// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j AUDIT --type accept|drop|reject (xt_AUDIT): the kernel writes an audit record and goes
 * on with the next rule. A box has no audit subsystem that anything reads, so the target is
 * accepted, printed, and does nothing but continue.
 */
#include "rules/ext.h"

struct audit_info {
	uint32_t type;
};

static const struct ext_name audit_types[] = {
    {"accept", 0},
    {"drop", 1},
    {"reject", 2},
    {NULL, 0},
};

static const struct ext_opt audit_opts[] = {
    {.name = "type",
     .type = EXT_T_NAME,
     .flags = EXT_OPT_MANDATORY,
     EXT_FIELD(struct audit_info, type),
     .names = audit_types},
};

static int audit_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	(void)ctx;
	(void)inst;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_AUDIT = {
    .name = "AUDIT",
    .datasize = sizeof(struct audit_info),
    .opts = audit_opts,
    .nopts = 1,
    .target = audit_target,
};
