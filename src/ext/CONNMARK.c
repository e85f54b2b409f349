// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j CONNMARK (revision 2): the connection's mark, set from a value or saved from / restored
 * to the packet's mark, as xt_CONNMARK does it:
 *
 *   set      ctmark = ((ctmark & ~ctmask) ^ value) << >> shift
 *   save     ctmark = (ctmark & ~ctmask) ^ ((nfmark & nfmask) << >> shift)
 *   restore  nfmark = (nfmark & ~nfmask) ^ ((ctmark & ctmask) << >> shift)
 *
 * Options are applied in the order given, as libxt_CONNMARK does (the last word on ctmask
 * wins: `--ctmask 0xff --set-xmark 1/0xf` keeps 0xf, `--set-mark 1 --mask 0xff` takes 0xff):
 *
 *   --set-xmark v[/m]  value v, ctmask m (default 0xffffffff)
 *   --set-mark v[/m]   value v, ctmask m | v
 *   --and-mark v       value 0, ctmask ~v;  --or-mark v: v, v;  --xor-mark v: v, 0
 *   --save-mark, --restore-mark   (nfmask and ctmask start as 0xffffffff)
 *   --mask m           nfmask = ctmask = m;  --nfmask m, --ctmask m: one of them
 *   --left-shift-mark n, --right-shift-mark n (0..31)
 *
 * Printed as iptables-save 1.8.9 prints it: `--set-xmark 0xV/0xM`, `--save-mark --nfmask 0xN
 * --ctmask 0xC` (likewise restore), then the shift when it is not 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ct/ct.h"
#include "rules/ext.h"

enum connmark_mode { MODE_SET, MODE_SAVE, MODE_RESTORE };

struct connmark_tg_info {
	uint32_t ctmark, ctmask, nfmask;
	uint8_t mode;  /* enum connmark_mode */
	uint8_t shift; /* bits */
	bool right;    /* shift to the right */
};

enum {
	O_SET_XMARK,
	O_SET_MARK,
	O_AND_MARK,
	O_OR_MARK,
	O_XOR_MARK,
	O_SAVE_MARK,
	O_RESTORE_MARK,
	O_MASK,
	O_NFMASK,
	O_CTMASK,
	O_LEFT_SHIFT,
	O_RIGHT_SHIFT,
	O_NUM
};

#define OPS                                                                                        \
	((1u << O_SET_XMARK) | (1u << O_SET_MARK) | (1u << O_AND_MARK) | (1u << O_OR_MARK) |       \
	 (1u << O_XOR_MARK) | (1u << O_SAVE_MARK) | (1u << O_RESTORE_MARK))
#define OP_OPT(n, i)                                                                               \
	{                                                                                          \
		.name = n, .type = EXT_T_CUSTOM, .excl = OPS & ~(1u << (i)), .print_as = -1        \
	}
#define MASKS  ((1u << O_NFMASK) | (1u << O_CTMASK))

static const struct ext_opt connmark_tg_opts[] = {
    [O_SET_XMARK] = OP_OPT("set-xmark", O_SET_XMARK),
    [O_SET_MARK] = OP_OPT("set-mark", O_SET_MARK),
    [O_AND_MARK] = OP_OPT("and-mark", O_AND_MARK),
    [O_OR_MARK] = OP_OPT("or-mark", O_OR_MARK),
    [O_XOR_MARK] = OP_OPT("xor-mark", O_XOR_MARK),
    [O_SAVE_MARK] = {.name = "save-mark", .type = EXT_T_NONE, .excl = OPS & ~(1u << O_SAVE_MARK)},
    [O_RESTORE_MARK] = {.name = "restore-mark",
			.type = EXT_T_NONE,
			.excl = OPS & ~(1u << O_RESTORE_MARK)},
    [O_MASK] = {.name = "mask", .type = EXT_T_CUSTOM, .excl = MASKS, .print_as = -1},
    [O_NFMASK] = {.name = "nfmask", .type = EXT_T_CUSTOM, .excl = 1u << O_MASK, .print_as = -1},
    [O_CTMASK] = {.name = "ctmask", .type = EXT_T_CUSTOM, .excl = 1u << O_MASK, .print_as = -1},
    [O_LEFT_SHIFT] = {.name = "left-shift-mark",
		      .type = EXT_T_CUSTOM,
		      .excl = 1u << O_RIGHT_SHIFT,
		      .print_as = -1},
    [O_RIGHT_SHIFT] = {.name = "right-shift-mark",
		       .type = EXT_T_CUSTOM,
		       .excl = 1u << O_LEFT_SHIFT,
		       .print_as = -1},
};

static void connmark_tg_init(struct ext_instance *inst)
{
	struct connmark_tg_info *ci = inst->data;

	ci->ctmask = UINT32_MAX;
	ci->nfmask = UINT32_MAX;
}

/* "v" or "v/m" (when allowed), each a C integer (decimal, 0x hex, 0 octal) of 32 bits. */
static int parse_pair(const char *s, bool allow_mask, uint32_t *v, uint32_t *m)
{
	unsigned long long x;
	char *end;

	if (*s == '-' || *s == '+' || *s == '\0')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || x > UINT32_MAX || end == s)
		return -EINVAL;
	*v = (uint32_t)x;
	*m = UINT32_MAX;
	if (*end == '\0')
		return 0;
	if (*end != '/' || !allow_mask || end[1] == '-' || end[1] == '+' || end[1] == '\0')
		return -EINVAL;
	s = end + 1;
	x = strtoull(s, &end, 0);
	if (errno || x > UINT32_MAX || *end != '\0')
		return -EINVAL;
	*m = (uint32_t)x;
	return 0;
}

static int connmark_tg_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			     const char *arg)
{
	struct connmark_tg_info *ci = inst->data;
	uint64_t n;
	uint32_t v, m;

	if (opt == O_SAVE_MARK || opt == O_RESTORE_MARK) {
		ci->mode = opt == O_SAVE_MARK ? MODE_SAVE : MODE_RESTORE;
		return 0;
	}
	if (opt == O_LEFT_SHIFT || opt == O_RIGHT_SHIFT) {
		if (ext_parse_uint(arg, 0, 31, &n) < 0)
			goto bad;
		ci->shift = (uint8_t)n;
		ci->right = opt == O_RIGHT_SHIFT;
		return 0;
	}
	if (parse_pair(arg, opt == O_SET_XMARK || opt == O_SET_MARK, &v, &m) < 0)
		goto bad;
	switch (opt) {
	case O_SET_XMARK:
		ci->ctmark = v, ci->ctmask = m;
		break;
	case O_SET_MARK:
		ci->ctmark = v, ci->ctmask = v | m;
		break;
	case O_AND_MARK:
		ci->ctmark = 0, ci->ctmask = ~v;
		break;
	case O_OR_MARK:
		ci->ctmark = v, ci->ctmask = v;
		break;
	case O_XOR_MARK:
		ci->ctmark = v, ci->ctmask = 0;
		break;
	case O_MASK:
		ci->nfmask = ci->ctmask = v;
		return 0;
	case O_NFMASK:
		ci->nfmask = v;
		return 0;
	case O_CTMASK:
		ci->ctmask = v;
		return 0;
	}
	ci->mode = MODE_SET;
	return 0;
bad:
	snprintf(ctx->err, ctx->errlen, "CONNMARK: bad value for option \"--%s\": \"%s\"",
		 connmark_tg_opts[opt].name, arg);
	return -EINVAL;
}

static int connmark_tg_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & OPS)) {
		snprintf(ctx->err, ctx->errlen,
			 "CONNMARK target: No operation specified (--set-xmark, --save-mark, "
			 "--restore-mark)");
		return -EINVAL;
	}
	return 0;
}

static void connmark_tg_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct connmark_tg_info *ci = inst->data;

	switch (ci->mode) {
	case MODE_SET:
		fprintf(pr->f, " --set-xmark 0x%x/0x%x", ci->ctmark, ci->ctmask);
		break;
	case MODE_SAVE:
	case MODE_RESTORE:
		fprintf(pr->f, " --%s-mark --nfmask 0x%x --ctmask 0x%x",
			ci->mode == MODE_SAVE ? "save" : "restore", ci->nfmask, ci->ctmask);
		break;
	}
	if (ci->shift)
		fprintf(pr->f, " --%s-shift-mark %u", ci->right ? "right" : "left", ci->shift);
}

static uint32_t shifted(const struct connmark_tg_info *ci, uint32_t v)
{
	return ci->right ? v >> ci->shift : v << ci->shift;
}

static int connmark_tg_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct connmark_tg_info *ci = inst->data;
	struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	uint32_t ctmark;

	if (!e)
		return EXT_CONTINUE;
	ctmark = ct_entry_mark(e);
	switch (ci->mode) {
	case MODE_SET:
		ct_entry_set_mark(e, shifted(ci, (ctmark & ~ci->ctmask) ^ ci->ctmark));
		break;
	case MODE_SAVE:
		ct_entry_set_mark(e, (ctmark & ~ci->ctmask) ^
					 shifted(ci, ctx->pkt->mark & ci->nfmask));
		break;
	case MODE_RESTORE:
		ctx->pkt->mark = (ctx->pkt->mark & ~ci->nfmask) ^ shifted(ci, ctmark & ci->ctmask);
		break;
	}
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CONNMARK = {
    .name = "CONNMARK",
    .datasize = sizeof(struct connmark_tg_info),
    .opts = connmark_tg_opts,
    .nopts = O_NUM,
    .init = connmark_tg_init,
    .parse = connmark_tg_parse,
    .check = connmark_tg_check,
    .print = connmark_tg_print,
    .target = connmark_tg_target,
    .needs_conntrack = true,
};
