// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j NFLOG (xt_NFLOG): hand the packet to a log group. A box writes the kernel's log line for
 * it (pkt_log_format, as LOG does) with the prefix, at level 4, to its log: the simulator's
 * `show log` / `expect log`, replay's output, live mode's log; and hands the packet to the
 * box's group sink (box_ops.nflog): `capture nflog GROUP FILE` in the simulator, `nflog GROUP
 * FILE` in a live config write the IP datagrams of a group to a pcap (LINKTYPE_RAW). Not done:
 * the netlink NFLOG group that ulogd listens on.
 *
 *   --nflog-group N (0..65535)  --nflog-prefix TEXT (1..63 characters)  --nflog-range N
 *   (accepted, not printed, as iptables 1.8.9 drops it)  --nflog-size N  --nflog-threshold N
 */
#include <errno.h>
#include <string.h>

#include "ext/match_util.h"
#include "pkt/log.h"
#include "rules/ext.h"

struct nflog_info {
	char prefix[64];
	uint16_t group;
	uint32_t range, size;
	uint16_t threshold;
};

enum { O_PREFIX, O_GROUP, O_RANGE, O_SIZE, O_THRESHOLD };

static const struct ext_opt nflog_opts[] = {
    [O_PREFIX] = {.name = "nflog-prefix",
		  .type = EXT_T_STRING,
		  EXT_FIELD(struct nflog_info, prefix)},
    [O_GROUP] = {.name = "nflog-group", .type = EXT_T_U16, EXT_FIELD(struct nflog_info, group)},
    [O_RANGE] = {.name = "nflog-range",
		 .type = EXT_T_U32,
		 .flags = EXT_OPT_NOPRINT,
		 .print_as = -1,
		 EXT_FIELD(struct nflog_info, range)},
    [O_SIZE] = {.name = "nflog-size", .type = EXT_T_U32, EXT_FIELD(struct nflog_info, size)},
    [O_THRESHOLD] = {.name = "nflog-threshold",
		     .type = EXT_T_U16,
		     .min = 1,
		     EXT_FIELD(struct nflog_info, threshold)},
};

static int nflog_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
		       const char *arg)
{
	if (i == O_PREFIX && !arg[0]) {
		ext_errf(ctx->err, ctx->errlen, "NFLOG: --nflog-prefix must not be empty");
		return -EINVAL;
	}
	(void)inst;
	return 0;
}

static void nflog_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct nflog_info *ni = inst->data;

	if (inst->seen & 1u << O_PREFIX) {
		fputs(" --nflog-prefix", pr->f);
		ext_print_string(pr, ni->prefix);
	}
	if (ni->group)
		fprintf(pr->f, " --nflog-group %u", ni->group);
	if (inst->seen & 1u << O_SIZE)
		fprintf(pr->f, " --nflog-size %u", ni->size);
	if (inst->seen & 1u << O_THRESHOLD)
		fprintf(pr->f, " --nflog-threshold %u", ni->threshold);
}

static int nflog_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct nflog_info *ni = inst->data;
	struct pkt_log_opts o = {.prefix = ni->prefix, .in = ctx->in, .out = ctx->out, .uid = -1};
	char line[1024];

	if (!ctx->env)
		return EXT_CONTINUE;
	if (ctx->env->ops->log) {
		pkt_log_format(line, sizeof(line), ctx->pkt, &o);
		ctx->env->ops->log(ctx->env->box, 4, line);
	}
	if (ctx->env->ops->nflog)
		ctx->env->ops->nflog(ctx->env->box, ni->group, ni->prefix, ctx->pkt);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_NFLOG = {
    .name = "NFLOG",
    .datasize = sizeof(struct nflog_info),
    .opts = nflog_opts,
    .nopts = sizeof(nflog_opts) / sizeof(nflog_opts[0]),
    .parse = nflog_parse,
    .print = nflog_print,
    .target = nflog_target,
};
