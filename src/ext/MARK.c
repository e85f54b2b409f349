/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j MARK: every form is stored as xmark (value, mask) and applied as
 *   mark = (mark & ~mask) ^ value
 *
 *   --set-xmark v[/m]  (v, m)          m defaults to 0xffffffff
 *   --set-mark v[/m]   (v, m | v)
 *   --and-mark v       (0, ~v)
 *   --or-mark v        (v, v)
 *   --xor-mark v       (v, 0)
 * and printed as iptables-save prints revision 2: --set-xmark 0xV/0xM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/ext.h"

struct mark_info {
	uint32_t value, mask;
};

enum { O_SET_XMARK, O_SET_MARK, O_AND_MARK, O_OR_MARK, O_XOR_MARK, O_NUM };

#define ALL_BUT(i) (((1u << O_NUM) - 1) & ~(1u << (i)))

static const struct ext_opt mark_opts[] = {
	[O_SET_XMARK] = { .name = "set-xmark", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_SET_XMARK),
			  .print_as = -1 },
	[O_SET_MARK] = { .name = "set-mark", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_SET_MARK),
			 .print_as = -1 },
	[O_AND_MARK] = { .name = "and-mark", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_AND_MARK),
			 .print_as = -1 },
	[O_OR_MARK] = { .name = "or-mark", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_OR_MARK),
			.print_as = -1 },
	[O_XOR_MARK] = { .name = "xor-mark", .type = EXT_T_CUSTOM, .excl = ALL_BUT(O_XOR_MARK),
			 .print_as = -1 },
};

/* "v" or "v/m", each a C integer (decimal, 0x hex, 0 octal) of 32 bits. */
static int mark_parse_pair(const char *s, bool allow_mask, uint32_t *v, uint32_t *m)
{
	unsigned long long x;
	char *end;

	if (*s == '-' || *s == '\0')
		return -EINVAL;
	x = strtoull(s, &end, 0);
	if (x > UINT32_MAX || end == s)
		return -EINVAL;
	*v = (uint32_t)x;
	*m = UINT32_MAX;
	if (*end == '\0')
		return 0;
	if (*end != '/' || !allow_mask || end[1] == '-' || end[1] == '\0')
		return -EINVAL;
	s = end + 1;
	x = strtoull(s, &end, 0);
	if (x > UINT32_MAX || *end != '\0')
		return -EINVAL;
	*m = (uint32_t)x;
	return 0;
}

static int mark_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct mark_info *mi = inst->data;
	uint32_t v, m;

	if (mark_parse_pair(arg, opt <= O_SET_MARK, &v, &m) < 0) {
		snprintf(ctx->err, ctx->errlen, "MARK: bad value for option \"--%s\": \"%s\"",
			 mark_opts[opt].name, arg);
		return -EINVAL;
	}
	switch (opt) {
	case O_SET_XMARK:
		mi->value = v, mi->mask = m;
		break;
	case O_SET_MARK:
		mi->value = v, mi->mask = m | v;
		break;
	case O_AND_MARK:
		mi->value = 0, mi->mask = ~v;
		break;
	case O_OR_MARK:
		mi->value = v, mi->mask = v;
		break;
	case O_XOR_MARK:
		mi->value = v, mi->mask = 0;
		break;
	}
	return 0;
}

static int mark_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & ((1u << O_NUM) - 1))) {
		snprintf(ctx->err, ctx->errlen, "MARK target: Parameter --set/and/or/xor-mark is "
			 "required");
		return -EINVAL;
	}
	return 0;
}

static void mark_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct mark_info *mi = inst->data;

	fprintf(pr->f, " --set-xmark 0x%x/0x%x", mi->value, mi->mask);
}

static int mark_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct mark_info *mi = inst->data;

	ctx->pkt->mark = (ctx->pkt->mark & ~mi->mask) ^ mi->value;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_MARK = {
	.name = "MARK",
	.datasize = sizeof(struct mark_info),
	.opts = mark_opts,
	.nopts = O_NUM,
	.parse = mark_parse,
	.check = mark_check,
	.print = mark_print,
	.target = mark_target,
};
