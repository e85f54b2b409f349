/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j TOS: the DS field becomes (tos & ~mask) ^ value, as xt_TOS revision 1 does.
 *
 *   --set-tos v[/m]    (v, m), m defaults to 0xff
 *   --set-tos NAME     (v, 0x3f): Minimize-Delay 0x10, Maximize-Throughput 0x08,
 *                      Maximize-Reliability 0x04, Minimize-Cost 0x02, Normal-Service 0x00
 *   --and-tos v        (0, ~v)     --or-tos v   (v, v)     --xor-tos v   (v, 0)
 * printed as iptables-save: --set-tos 0xVV/0xMM. mangle table only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "ext/dsfield.h"
#include "rules/ext.h"

struct tos_info {
	uint8_t value, mask;
};

enum { O_SET_TOS, O_AND_TOS, O_OR_TOS, O_XOR_TOS, O_NUM };

#define ALL_BUT(i) (((1u << O_NUM) - 1) & ~(1u << (i)))

static const struct ext_opt tos_opts[] = {
	[O_SET_TOS] = { .name = "set-tos", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_SET_TOS),
			.print_as = -1 },
	[O_AND_TOS] = { .name = "and-tos", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_AND_TOS),
			.print_as = -1 },
	[O_OR_TOS] = { .name = "or-tos", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_OR_TOS),
		       .print_as = -1 },
	[O_XOR_TOS] = { .name = "xor-tos", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_XOR_TOS),
			.print_as = -1 },
};

static const struct ext_name tos_names[] = {
	{ "Minimize-Delay", 0x10 }, { "Maximize-Throughput", 0x08 },
	{ "Maximize-Reliability", 0x04 }, { "Minimize-Cost", 0x02 }, { "Normal-Service", 0x00 },
	{ NULL, 0 },
};

static int tos_number(const char *s, char **end, uint8_t *out)
{
	unsigned long v;

	if (*s == '-' || *s == '\0')
		return -EINVAL;
	v = strtoul(s, end, 0);
	if (*end == s || v > 0xff)
		return -EINVAL;
	*out = (uint8_t)v;
	return 0;
}

static int tos_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct tos_info *ti = inst->data;
	uint8_t v, m = 0xff;
	char *end;

	if (tos_number(arg, &end, &v) < 0 || (*end != '\0' && *end != '/')) {
		if (opt == O_SET_TOS) {
			for (const struct ext_name *n = tos_names; n->name; n++) {
				if (strcasecmp(arg, n->name) == 0) {
					ti->value = (uint8_t)n->value;
					ti->mask = 0x3f;
					return 0;
				}
			}
			snprintf(ctx->err, ctx->errlen, "Symbolic name \"%s\" is unknown", arg);
		} else {
			snprintf(ctx->err, ctx->errlen, "Illegal value: \"%s\"", arg);
		}
		return -EINVAL;
	}
	if (*end == '/') {
		const char *ms = end + 1;

		if (opt != O_SET_TOS || tos_number(ms, &end, &m) < 0 || *end != '\0') {
			snprintf(ctx->err, ctx->errlen, "Illegal value: \"%s\"", arg);
			return -EINVAL;
		}
	}
	switch (opt) {
	case O_SET_TOS:
		ti->value = v, ti->mask = m;
		break;
	case O_AND_TOS:
		ti->value = 0, ti->mask = (uint8_t)~v;
		break;
	case O_OR_TOS:
		ti->value = v, ti->mask = v;
		break;
	case O_XOR_TOS:
		ti->value = v, ti->mask = 0;
		break;
	}
	return 0;
}

static int tos_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & ((1u << O_NUM) - 1))) {
		snprintf(ctx->err, ctx->errlen, "TOS: An action is required");
		return -EINVAL;
	}
	return 0;
}

static void tos_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct tos_info *ti = inst->data;

	fprintf(pr->f, " --set-tos 0x%02x/0x%02x", ti->value, ti->mask);
}

static int tos_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tos_info *ti = inst->data;
	uint8_t old = ext_dsfield_get(ctx->pkt);
	uint8_t nv = (uint8_t)((old & ~ti->mask) ^ ti->value);

	if (nv != old && ext_dsfield_set(ctx->pkt, nv) < 0)
		return EXT_DROP;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_TOS = {
	.name = "TOS",
	.tables = TABLE_BIT(TABLE_MANGLE),
	.datasize = sizeof(struct tos_info),
	.opts = tos_opts,
	.nopts = O_NUM,
	.parse = tos_parse,
	.check = tos_check,
	.print = tos_print,
	.target = tos_target,
};
