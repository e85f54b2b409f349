/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -m limit: a token bucket per rule, with xt_limit's integer arithmetic so that a packet at a
 * given box time gets the kernel's answer.
 *
 *   --limit N[/second|/minute|/hour|/day]  (any prefix of the unit: /s /min /h /d)
 *   avg   = LIMIT_SCALE * unit_seconds / N     (the rule stores a period, not a rate)
 *   cost  = credits(avg)                       credits per packet
 *   cap   = credits(avg * burst)               the bucket, full when the rule is loaded
 *   every jiffy adds LIMIT_CPJ credits, never above cap.
 *
 * Time: the kernel counts jiffies (HZ 250 on the reference kernel); a jiffy here is 4 ms of
 * the box clock, so refill happens in the same steps as on the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ext/rate.h"
#include "rules/ext.h"

#define LIMIT_BURST_DEFAULT 5

struct limit_info {
	uint32_t avg;   /* period per packet, LIMIT_SCALE units per second */
	uint32_t burst;
	/* run-time state, set at the first packet (the bucket starts full, as at load) */
	bool started;
	uint64_t prev;  /* jiffies */
	uint64_t credit, credit_cap, cost;
};

enum { O_LIMIT, O_BURST };

static const struct ext_opt limit_opts[] = {
	[O_LIMIT] = { .name = "limit", .type = EXT_T_CUSTOM, .print_as = -1 },
	[O_BURST] = { .name = "limit-burst", .type = EXT_T_U32, EXT_FIELD(struct limit_info, burst),
		      .min = 0, .max = 10000, .print_as = -1 },
};

/* Like the kernel's user2credits(): avoid the overflow by dividing first for big periods. */
static uint64_t limit_credits(uint64_t user)
{
	if (user > UINT32_MAX / (EXT_RATE_HZ * LIMIT_CPJ))
		return (user / LIMIT_SCALE) * EXT_RATE_HZ * LIMIT_CPJ;
	return (user * EXT_RATE_HZ * LIMIT_CPJ) / LIMIT_SCALE;
}

static void limit_init(struct ext_instance *inst)
{
	struct limit_info *l = inst->data;

	l->avg = LIMIT_SCALE * 3600 / 3; /* 3/hour */
	l->burst = LIMIT_BURST_DEFAULT;
}

static int limit_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		       const char *arg)
{
	struct limit_info *l = inst->data;
	uint64_t period;
	unsigned mult;

	if (ctx->invert) {
		snprintf(ctx->err, ctx->errlen, "limit: option \"--%s\" cannot be inverted.",
			 limit_opts[opt].name);
		return -EINVAL;
	}
	if (opt != O_LIMIT)
		return 0;
	if (ext_rate_parse(arg, &mult, &period, LIMIT_SCALE) < 0) {
		snprintf(ctx->err, ctx->errlen, "bad rate \"%s\"'", arg);
		return -EINVAL;
	}
	if (period == 0) {
		snprintf(ctx->err, ctx->errlen, "Rate too fast \"%s\"", arg);
		return -EINVAL;
	}
	l->avg = (uint32_t)period;
	return 0;
}

static int limit_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct limit_info *l = inst->data;

	/* iptables-nft takes --limit-burst 0 and stores the default */
	if (l->burst == 0)
		l->burst = LIMIT_BURST_DEFAULT;
	return 0;
}

static void limit_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct limit_info *l = inst->data;

	fprintf(pr->f, " --limit ");
	ext_rate_print(pr->f, l->avg, LIMIT_SCALE);
	if (l->burst != LIMIT_BURST_DEFAULT)
		fprintf(pr->f, " --limit-burst %u", l->burst);
}

static bool limit_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct limit_info *l = inst->data;
	uint64_t now = ext_rate_jiffies(ctx->now_ns);

	if (!l->started) {
		l->started = true;
		l->prev = now;
		l->credit = limit_credits((uint64_t)l->avg * l->burst);
		l->credit_cap = l->credit;
		l->cost = limit_credits(l->avg);
	}
	l->credit += (now - l->prev) * LIMIT_CPJ;
	l->prev = now;
	if (l->credit > l->credit_cap)
		l->credit = l->credit_cap;
	if (l->credit >= l->cost) {
		l->credit -= l->cost;
		return true;
	}
	return false;
}

const struct ext_match ext_match_limit = {
	.name = "limit",
	.datasize = sizeof(struct limit_info),
	.opts = limit_opts,
	.nopts = sizeof(limit_opts) / sizeof(limit_opts[0]),
	.init = limit_init,
	.parse = limit_parse,
	.check = limit_check,
	.print = limit_print,
	.match = limit_match,
};
