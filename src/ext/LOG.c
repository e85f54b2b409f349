/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j LOG: one kernel log line per packet (pkt_log_format, in the kernel's nf_log format, drawn
 * in pkt/log.h), written through ext_env.log at the rule's syslog level.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pkt/log.h"
#include "rules/ext.h"

#define LOG_PREFIX_MAX 29

enum { O_LEVEL, O_PREFIX, O_TCPSEQ, O_TCPOPT, O_IPOPT, O_UID, O_MACDECODE, O_NUM };

struct log_info {
	uint8_t level;
	char prefix[LOG_PREFIX_MAX + 1];
};

static const struct ext_opt log_opts[] = {
    [O_LEVEL] = {.name = "log-level", .type = EXT_T_CUSTOM, .print_as = -1},
    [O_PREFIX] = {.name = "log-prefix", .type = EXT_T_CUSTOM, .print_as = -1},
    [O_TCPSEQ] = {.name = "log-tcp-sequence", .type = EXT_T_NONE, .print_as = -1},
    [O_TCPOPT] = {.name = "log-tcp-options", .type = EXT_T_NONE, .print_as = -1},
    [O_IPOPT] = {.name = "log-ip-options", .type = EXT_T_NONE, .print_as = -1},
    [O_UID] = {.name = "log-uid", .type = EXT_T_NONE, .print_as = -1},
    [O_MACDECODE] = {.name = "log-macdecode", .type = EXT_T_NONE, .print_as = -1},
};

static const struct ext_name log_levels[] = {
    {"alert", 1}, {"crit", 2},	 {"debug", 7}, {"emerg", 0},   {"error", 3},
    {"info", 6},  {"notice", 5}, {"panic", 0}, {"warning", 4}, {NULL, 0},
};

static void log_init(struct ext_instance *inst)
{
	struct log_info *li = inst->data;

	li->level = 4;
}

static int log_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct log_info *li = inst->data;

	if (opt == O_PREFIX) {
		if (arg[0] == '\0') {
			snprintf(ctx->err, ctx->errlen,
				 "Argument must have a minimum length of 1 characters");
			return -EINVAL;
		}
		/* iptables keeps the first 29 characters without complaint */
		snprintf(li->prefix, sizeof(li->prefix), "%s", arg);
		return 0;
	}
	if (opt == O_LEVEL) {
		if (arg[0] >= '0' && arg[0] <= '7' && arg[1] == '\0') {
			li->level = (uint8_t)(arg[0] - '0');
			return 0;
		}
		for (const struct ext_name *n = log_levels; n->name; n++) {
			if (strcmp(arg, n->name) == 0) { /* case matters: "INFO" is refused */
				li->level = (uint8_t)n->value;
				return 0;
			}
		}
		snprintf(ctx->err, ctx->errlen, "log level \"%s\" unknown", arg);
		return -EINVAL;
	}
	return 0;
}

static void log_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	static const char *const flags[] = {
	    [O_TCPSEQ] = "log-tcp-sequence", [O_TCPOPT] = "log-tcp-options",
	    [O_IPOPT] = "log-ip-options",    [O_UID] = "log-uid",
	    [O_MACDECODE] = "log-macdecode",
	};
	const struct log_info *li = inst->data;

	if (li->prefix[0]) {
		fprintf(pr->f, " --log-prefix");
		ext_print_string(pr, li->prefix);
	}
	if (li->level != 4)
		fprintf(pr->f, " --log-level %u", li->level);
	for (unsigned i = O_TCPSEQ; i < O_NUM; i++)
		if (inst->seen & 1u << i)
			fprintf(pr->f, " --%s", flags[i]);
}

static int log_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	/* --log-* option bits of inst->seen and what they ask of the line */
	static const unsigned flag_of[O_NUM] = {
	    [O_TCPSEQ] = PKT_LOG_TCPSEQ,       [O_TCPOPT] = PKT_LOG_TCPOPT,
	    [O_IPOPT] = PKT_LOG_IPOPT,	       [O_UID] = PKT_LOG_UID,
	    [O_MACDECODE] = PKT_LOG_MACDECODE,
	};
	const struct log_info *li = inst->data;
	struct pkt_log_opts o = {.prefix = li->prefix, .in = ctx->in, .out = ctx->out, .uid = -1};
	char line[1024];

	if (!ctx->env || !ctx->env->ops->log)
		return EXT_CONTINUE;
	for (unsigned i = O_TCPSEQ; i < O_NUM; i++)
		if (inst->seen & 1u << i)
			o.flags |= flag_of[i];
	if ((o.flags & PKT_LOG_UID) && ctx->env->ops->sock_uid)
		o.uid = ctx->env->ops->sock_uid(ctx->env->box, ctx->pkt);
	pkt_log_format(line, sizeof(line), ctx->pkt, &o);
	ctx->env->ops->log(ctx->env->box, li->level, line);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_LOG = {
    .name = "LOG",
    .datasize = sizeof(struct log_info),
    .opts = log_opts,
    .nopts = O_NUM,
    .init = log_init,
    .parse = log_parse,
    .print = log_print,
    .target = log_target,
};
