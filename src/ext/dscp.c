// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m dscp: the DiffServ code point, the upper six bits of the IPv4 TOS byte or the IPv6
 * traffic class (xt_dscp).
 *
 *   -m dscp [!] --dscp 0..63 | [!] --dscp-class EF|AF11..AF43|CS0..CS7|BE
 *
 * A class is only another way to write the number: the rule prints as --dscp 0x2e.
 */
#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct dscp_info {
	uint8_t dscp;
};

enum { O_DSCP, O_DSCP_CLASS };

/* RFC 2474 class selectors, RFC 2597 assured forwarding, RFC 3246 expedited forwarding */
static const struct ext_name dscp_classes[] = {
	{ "CS0", 0x00 },  { "CS1", 0x08 },  { "CS2", 0x10 },  { "CS3", 0x18 },	{ "CS4", 0x20 },
	{ "CS5", 0x28 },  { "CS6", 0x30 },  { "CS7", 0x38 },  { "BE", 0x00 },	{ "AF11", 0x0a },
	{ "AF12", 0x0c }, { "AF13", 0x0e }, { "AF21", 0x12 }, { "AF22", 0x14 }, { "AF23", 0x16 },
	{ "AF31", 0x1a }, { "AF32", 0x1c }, { "AF33", 0x1e }, { "AF41", 0x22 }, { "AF42", 0x24 },
	{ "AF43", 0x26 }, { "EF", 0x2e },   { NULL, 0 },
};

static const struct ext_opt dscp_opts[] = {
	[O_DSCP] = { .name = "dscp", .type = EXT_T_U8, .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
		     EXT_FIELD(struct dscp_info, dscp), .max = 63 },
	/* sets --dscp's bit: the two exclude each other through "only one --dscp" */
	[O_DSCP_CLASS] = { .name = "dscp-class", .type = EXT_T_CUSTOM,
			   .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_DSCP },
};

static int dscp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct dscp_info *di = inst->data;

	if (opt != O_DSCP_CLASS)
		return 0;
	for (const struct ext_name *n = dscp_classes; n->name; n++)
		if (!strcasecmp(n->name, arg)) {
			di->dscp = (uint8_t)n->value;
			return 0;
		}
	ext_errf(ctx->err, ctx->errlen, "dscp: unknown DSCP class \"%s\"", arg);
	return -EINVAL;
}

static void dscp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct dscp_info *di = inst->data;

	ext_print_opt(pr, inst, O_DSCP);
	fprintf(pr->f, " 0x%02x", di->dscp);
}

static bool dscp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct dscp_info *di = inst->data;

	return ((ctx->info->tos >> 2) == di->dscp) ^ !!inst->inv;
}

const struct ext_match ext_match_dscp = {
	.name = "dscp",
	.datasize = sizeof(struct dscp_info),
	.opts = dscp_opts,
	.nopts = sizeof(dscp_opts) / sizeof(dscp_opts[0]),
	.parse = dscp_parse,
	.print = dscp_print,
	.match = dscp_match,
};
