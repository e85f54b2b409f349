// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m statistic: match a share of the packets (xt_statistic).
 *
 *   --mode random [!] --probability P     each packet with probability P (0..1), drawn from
 *                                         the box's deterministic PRNG (ctx->env->ops->random)
 *   --mode nth [!] --every N --packet P   packets P, P+N, P+2N, ... (counting from 0) of those
 *                                         that reach this rule
 *
 * P is stored as the kernel stores it, a 31-bit fixed-point number (2^31 == 1.0), so the
 * printed probability is the one iptables-save prints (0.1 -> 0.10000000009). The nth
 * counter is per rule, in the instance data, and starts again when the rule is loaded.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

enum statistic_mode { STAT_RANDOM, STAT_NTH };

#define STAT_ONE 0x80000000u /* probability 1.0 */

struct statistic_info {
	uint32_t mode;	      /* enum statistic_mode */
	uint32_t probability; /* STAT_ONE == 1.0 */
	uint32_t every;	      /* N, as given */
	uint32_t packet;      /* P */
	uint32_t count;	      /* run time: position in the cycle, set by check() */
};

enum { O_MODE, O_PROBABILITY, O_EVERY, O_PACKET };

static const struct ext_name statistic_modes[] = {
	{ "random", STAT_RANDOM },
	{ "nth", STAT_NTH },
	{ NULL, 0 },
};

static const struct ext_opt statistic_opts[] = {
	[O_MODE] = { .name = "mode", .type = EXT_T_NAME, .flags = EXT_OPT_MANDATORY,
		     EXT_FIELD(struct statistic_info, mode), .names = statistic_modes },
	[O_PROBABILITY] = { .name = "probability", .type = EXT_T_CUSTOM,
			    .flags = EXT_OPT_INVERT },
	[O_EVERY] = { .name = "every", .type = EXT_T_U32, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct statistic_info, every), .min = 1, .max = UINT32_MAX },
	[O_PACKET] = { .name = "packet", .type = EXT_T_U32,
		       EXT_FIELD(struct statistic_info, packet) },
};

static int statistic_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			   const char *arg)
{
	struct statistic_info *si = inst->data;
	char *end;
	double p;

	switch (opt) {
	case O_MODE:
		/* the core compares names without case; iptables does not */
		if (strcmp(arg, "random") && strcmp(arg, "nth")) {
			ext_errf(ctx->err, ctx->errlen, "statistic: bad mode \"%s\"", arg);
			return -EINVAL;
		}
		return 0;
	case O_PROBABILITY:
		p = strtod(arg, &end);
		if (end == arg || *end || !(p >= 0.0 && p <= 1.0)) {
			ext_errf(ctx->err, ctx->errlen,
				 "statistic: --probability must be a number from 0 to 1");
			return -EINVAL;
		}
		si->probability = (uint32_t)lround((double)STAT_ONE * p);
		return 0;
	}
	return 0;
}

static int statistic_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct statistic_info *si = inst->data;
	bool prob = inst->seen & 1u << O_PROBABILITY;
	bool every = inst->seen & 1u << O_EVERY, packet = inst->seen & 1u << O_PACKET;

	if (si->mode == STAT_RANDOM && (!prob || every || packet)) {
		ext_errf(ctx->err, ctx->errlen,
			 "--mode random takes --probability and nothing else");
		return -EINVAL;
	}
	if (si->mode == STAT_NTH && (prob || !every || !packet)) {
		ext_errf(ctx->err, ctx->errlen, "--mode nth takes --every and --packet");
		return -EINVAL;
	}
	if (si->mode == STAT_NTH && si->packet > si->every - 1) {
		ext_errf(ctx->err, ctx->errlen, "the --packet p must be 0 <= p <= n-1");
		return -EINVAL;
	}
	/* as the kernel: the first packet to reach the rule is number 0 of the cycle */
	si->count = si->every - 1 - si->packet;
	return 0;
}

static void statistic_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct statistic_info *si = inst->data;

	ext_print_opt(pr, inst, O_MODE);
	ext_print_value(pr, inst, O_MODE);
	if (si->mode == STAT_RANDOM) {
		ext_print_opt(pr, inst, O_PROBABILITY);
		fprintf(pr->f, " %.11f", (double)si->probability / STAT_ONE);
		return;
	}
	ext_print_opt(pr, inst, O_EVERY);
	ext_print_value(pr, inst, O_EVERY);
	ext_print_opt(pr, inst, O_PACKET);
	ext_print_value(pr, inst, O_PACKET);
}

static bool statistic_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct statistic_info *si = inst->data;
	bool hit;

	if (si->mode == STAT_RANDOM) {
		uint32_t r = 0;

		if (ctx->env && ctx->env->ops && ctx->env->ops->random)
			r = ctx->env->ops->random(ctx->env->box);
		hit = (r & 0x7fffffff) < si->probability;
		return hit ^ !!(inst->inv & 1u << O_PROBABILITY);
	}
	/* the counter is shared by every thread that runs this rule */
	uint32_t old = __atomic_load_n(&si->count, __ATOMIC_RELAXED), nv;

	do
		nv = old == si->every - 1 ? 0 : old + 1;
	while (!__atomic_compare_exchange_n(&si->count, &old, nv, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return (nv == 0) ^ !!(inst->inv & 1u << O_EVERY);
}

const struct ext_match ext_match_statistic = {
	.name = "statistic",
	.datasize = sizeof(struct statistic_info),
	.opts = statistic_opts,
	.nopts = sizeof(statistic_opts) / sizeof(statistic_opts[0]),
	.parse = statistic_parse,
	.check = statistic_check,
	.print = statistic_print,
	.match = statistic_match,
};
