// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m tos: the IPv4 TOS byte or the IPv6 traffic class under a mask (xt_tos revision 1).
 *
 *   -m tos [!] --tos VALUE[/MASK]      mask defaults to 0xff
 *   -m tos [!] --tos Minimize-Delay    an RFC 1349 name: its bit under the mask 0x3f
 *
 * Matches when (tos & mask) == value. Printed as iptables-save prints it: --tos 0x10/0x3f.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct tos_info {
	uint8_t value, mask;
};

enum { O_TOS };

static const struct ext_opt tos_opts[] = {
	[O_TOS] = { .name = "tos", .type = EXT_T_CUSTOM,
		    .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

/* The RFC 1349 names, with the mask the old revision-0 match implied for them. */
static const struct ext_name tos_names[] = {
	{ "Minimize-Delay", 0x10 },	  { "Maximize-Throughput", 0x08 },
	{ "Maximize-Reliability", 0x04 }, { "Minimize-Cost", 0x02 },
	{ "Normal-Service", 0x00 },	  { NULL, 0 },
};

#define TOS_NAME_MASK 0x3f

static int tos_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct tos_info *ti = inst->data;
	const char *slash = strchr(arg, '/');
	char v[32];
	uint64_t val, mask = 0xff;
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);

	for (const struct ext_name *nm = tos_names; nm->name; nm++)
		if (!strcasecmp(nm->name, arg)) {
			ti->value = (uint8_t)nm->value;
			ti->mask = TOS_NAME_MASK;
			return 0;
		}
	if (n >= sizeof(v))
		goto bad;
	memcpy(v, arg, n);
	v[n] = '\0';
	if (ext_parse_uint(v, 0, 0xff, &val))
		goto bad;
	if (slash && ext_parse_uint(slash + 1, 0, 0xff, &mask))
		goto bad;
	ti->value = (uint8_t)val;
	ti->mask = (uint8_t)mask;
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "tos: bad value \"%s\" (0..255[/0..255] or a name)", arg);
	return -EINVAL;
}

static void tos_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct tos_info *ti = inst->data;

	ext_print_opt(pr, inst, O_TOS);
	fprintf(pr->f, " 0x%02x/0x%02x", ti->value, ti->mask);
}

static bool tos_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tos_info *ti = inst->data;

	return ((ctx->info->tos & ti->mask) == ti->value) ^ !!inst->inv;
}

const struct ext_match ext_match_tos = {
	.name = "tos",
	.datasize = sizeof(struct tos_info),
	.opts = tos_opts,
	.nopts = 1,
	.parse = tos_parse,
	.print = tos_print,
	.match = tos_match,
};
