/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j DSCP --set-dscp N (0..63) | --set-dscp-class NAME: rewrite the upper six bits of the DS
 * field, keeping ECN; IPv4's header checksum is updated incrementally. mangle table only.
 * Printed as iptables-save does: --set-dscp 0xNN (a class prints as its value).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ext/dsfield.h"
#include "rules/ext.h"

struct dscp_info {
	uint8_t dscp;
};

enum { O_SET_DSCP, O_SET_DSCP_CLASS };

static const struct ext_opt dscp_opts[] = {
	[O_SET_DSCP] = { .name = "set-dscp", .type = EXT_T_CUSTOM,
			 .excl = 1u << O_SET_DSCP_CLASS, .print_as = -1 },
	[O_SET_DSCP_CLASS] = { .name = "set-dscp-class", .type = EXT_T_CUSTOM,
			       .excl = 1u << O_SET_DSCP, .print_as = -1 },
};

static const struct ext_name dscp_classes[] = {
	{ "CS0", 0x00 }, { "CS1", 0x08 }, { "CS2", 0x10 }, { "CS3", 0x18 }, { "CS4", 0x20 },
	{ "CS5", 0x28 }, { "CS6", 0x30 }, { "CS7", 0x38 }, { "BE", 0x00 },  { "AF11", 0x0a },
	{ "AF12", 0x0c }, { "AF13", 0x0e }, { "AF21", 0x12 }, { "AF22", 0x14 }, { "AF23", 0x16 },
	{ "AF31", 0x1a }, { "AF32", 0x1c }, { "AF33", 0x1e }, { "AF41", 0x22 }, { "AF42", 0x24 },
	{ "AF43", 0x26 }, { "EF", 0x2e },   { NULL, 0 },
};

static int dscp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct dscp_info *di = inst->data;
	uint64_t v;

	if (opt == O_SET_DSCP) {
		if (ext_parse_uint(arg, 0, 63, &v) < 0) {
			snprintf(ctx->err, ctx->errlen, "DSCP: bad value for option \"--set-dscp\", "
				 "or out of range (0-63).");
			return -EINVAL;
		}
		di->dscp = (uint8_t)v;
		return 0;
	}
	for (const struct ext_name *n = dscp_classes; n->name; n++) {
		if (strcasecmp(arg, n->name) == 0) {
			di->dscp = (uint8_t)n->value;
			return 0;
		}
	}
	snprintf(ctx->err, ctx->errlen, "Invalid DSCP value `%s'", arg);
	return -EINVAL;
}

static int dscp_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & 3u)) {
		snprintf(ctx->err, ctx->errlen, "DSCP target: Parameter --set-dscp is required");
		return -EINVAL;
	}
	return 0;
}

static void dscp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct dscp_info *di = inst->data;

	fprintf(pr->f, " --set-dscp 0x%02x", di->dscp);
}

static int dscp_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct dscp_info *di = inst->data;
	uint8_t old = ext_dsfield_get(ctx->pkt);

	if (old >> 2 != di->dscp && ext_dsfield_set(ctx->pkt, (uint8_t)((old & 0x03) |
									 di->dscp << 2)) < 0)
		return EXT_DROP;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_DSCP = {
	.name = "DSCP",
	.tables = TABLE_BIT(TABLE_MANGLE),
	.datasize = sizeof(struct dscp_info),
	.opts = dscp_opts,
	.nopts = 2,
	.parse = dscp_parse,
	.check = dscp_check,
	.print = dscp_print,
	.target = dscp_target,
};
