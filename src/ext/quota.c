// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m quota [!] --quota BYTES (xt_quota): matches while the rule's quota lasts. Each packet
 * that fits takes its length (the IP datagram's) from what is left; the first that does not
 * fit empties it, and from then on nothing matches (everything, with "!"). The remainder
 * belongs to the rule: a reload starts it again, as loading the rule does in the kernel.
 * Printed with the quota given, as iptables-save prints it.
 */
#include <errno.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct quota_info {
	uint64_t quota;
	uint64_t left;
	bool started;
};

static const struct ext_opt quota_opts[] = {
    {.name = "quota",
     .type = EXT_T_U64,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct quota_info, quota)},
};

static bool quota_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct quota_info *qi = inst->data;
	uint32_t len = ext_l3_len(ctx);
	bool ret = inst->inv & 1u;

	if (!qi->started) {
		qi->left = qi->quota;
		qi->started = true;
	}
	if (qi->left >= len) {
		qi->left -= len;
		return !ret;
	}
	qi->left = 0; /* no small packets either from now on */
	return ret;
}

const struct ext_match ext_match_quota = {
    .name = "quota",
    .datasize = sizeof(struct quota_info),
    .opts = quota_opts,
    .nopts = 1,
    .match = quota_match,
};
