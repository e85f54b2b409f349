// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m recent (xt_recent): remember the addresses that hit a rule, in a list named --name, and
 * test later packets against it.
 *
 *   -m recent [!] --set | --rcheck | --update | --remove    exactly one
 *             [--seconds S [--reap]] [--hitcount N] [--rttl]  (only with --rcheck/--update)
 *             [--name NAME] [--mask MASK] [--rsource | --rdest]
 *
 * Per packet (address = source or destination, AND the mask; the TTL as the packet had it
 * before this box decremented it, when it is forwarded):
 *
 *   not in the list     --set: add it, match; the others: no match
 *   in the list         --set: match, one more stamp
 *                       --remove: remove it, match
 *                       --rcheck/--update: match when at least N (--hitcount, else 1) of its
 *                         stamps are within the last S seconds (--seconds, else any);
 *                         --update adds a stamp when it matched; --reap then removes the
 *                         least recently seen address if its last stamp is older than S
 *   "!" turns the result over (and so also when --update adds its stamp).
 *
 * The lists belong to the box (its "recent" plug-in, ext/recent_table.h): rules naming the
 * same list share it, and it outlives a ruleset reload, as the kernel keeps a table while
 * some rule still names it. Unlike the kernel, a list stays when its last rule goes (bounded
 * by RECENT_MAX_TABLES); `recent NAME /` over the control socket empties it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "ext/recent_table.h"
#include "rules/ext.h"

struct recent_info {
	uint32_t seconds;
	uint32_t hitcount;
	char name[RECENT_NAME_LEN];
	union pt_addr mask;
	bool dest;
};

enum {
	O_SET,
	O_RCHECK,
	O_UPDATE,
	O_REMOVE,
	O_SECONDS,
	O_REAP,
	O_HITCOUNT,
	O_RTTL,
	O_NAME,
	O_MASK,
	O_RSOURCE,
	O_RDEST,
};

#define RC_CMDS	   (1u << O_SET | 1u << O_RCHECK | 1u << O_UPDATE | 1u << O_REMOVE)
#define RC_EXCL(o) (RC_CMDS & ~(1u << (o)))
#define RCF(f)	   EXT_FIELD(struct recent_info, f)

static const struct ext_opt recent_opts[] = {
    [O_SET] = {.name = "set",
	       .type = EXT_T_NONE,
	       .flags = EXT_OPT_INVERT,
	       .excl = RC_EXCL(O_SET) | 1u << O_SECONDS | 1u << O_HITCOUNT | 1u << O_RTTL |
		       1u << O_REAP},
    [O_RCHECK] = {.name = "rcheck",
		  .type = EXT_T_NONE,
		  .flags = EXT_OPT_INVERT,
		  .excl = RC_EXCL(O_RCHECK)},
    [O_UPDATE] = {.name = "update",
		  .type = EXT_T_NONE,
		  .flags = EXT_OPT_INVERT,
		  .excl = RC_EXCL(O_UPDATE)},
    [O_REMOVE] = {.name = "remove",
		  .type = EXT_T_NONE,
		  .flags = EXT_OPT_INVERT,
		  .excl = RC_EXCL(O_REMOVE) | 1u << O_SECONDS | 1u << O_HITCOUNT | 1u << O_RTTL |
			  1u << O_REAP},
    [O_SECONDS] = {.name = "seconds", .type = EXT_T_U32, RCF(seconds), .min = 1, .max = UINT32_MAX},
    [O_REAP] = {.name = "reap", .type = EXT_T_NONE, .also = 1u << O_SECONDS},
    [O_HITCOUNT] = {.name = "hitcount",
		    .type = EXT_T_U32,
		    RCF(hitcount),
		    .max = RECENT_MAX_NSTAMPS - 1},
    [O_RTTL] = {.name = "rttl", .type = EXT_T_NONE},
    [O_NAME] = {.name = "name", .type = EXT_T_CUSTOM},
    [O_MASK] = {.name = "mask", .type = EXT_T_CUSTOM},
    [O_RSOURCE] = {.name = "rsource", .type = EXT_T_NONE, .flags = EXT_OPT_MULTI},
    [O_RDEST] = {.name = "rdest", .type = EXT_T_NONE, .flags = EXT_OPT_MULTI},
};

static void recent_init(struct ext_instance *inst)
{
	struct recent_info *ri = inst->data;

	strcpy(ri->name, "DEFAULT");
	memset(&ri->mask, 0xff, sizeof(ri->mask));
}

static int recent_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			const char *arg)
{
	struct recent_info *ri = inst->data;
	struct in_addr a4;

	switch (i) {
	case O_NAME:
		/* iptables keeps the first 199 characters of a longer name */
		if (!arg[0] || strchr(arg, '/') || !strcmp(arg, ".") || !strcmp(arg, "..")) {
			ext_errf(ctx->err, ctx->errlen, "recent: bad --name \"%s\"", arg);
			return -EINVAL;
		}
		snprintf(ri->name, sizeof(ri->name), "%s", arg);
		return 0;
	case O_MASK:
		/* read as inet_aton/inet_pton read it: "24" is 0.0.0.24, not a prefix length */
		memset(&ri->mask, 0, sizeof(ri->mask));
		if (ctx->family == AF_INET && inet_aton(arg, &a4)) {
			memcpy(ri->mask.b, &a4, 4);
			return 0;
		}
		if (ctx->family == AF_INET6 && inet_pton(AF_INET6, arg, ri->mask.b) == 1)
			return 0;
		ext_errf(ctx->err, ctx->errlen, "recent: bad --mask \"%s\"", arg);
		return -EINVAL;
	case O_RSOURCE:
	case O_RDEST:
		ri->dest = i == O_RDEST; /* the last one given counts */
		return 0;
	}
	return 0;
}

static int recent_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct recent_info *ri = inst->data;

	if (!(inst->seen & RC_CMDS)) {
		ext_errf(ctx->err, ctx->errlen,
			 "recent: one of --set, --rcheck, --update or --remove is required");
		return -EINVAL;
	}
	if (ctx->family == AF_INET) /* the rest of the union stays zero for IPv4 */
		memset(ri->mask.b + 4, 0, 12);
	return 0;
}

static void recent_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct recent_info *ri = inst->data;
	char buf[64];

	for (unsigned i = O_SET; i <= O_REMOVE; i++)
		if (inst->seen & 1u << i)
			ext_print_opt(pr, inst, i);
	if (inst->seen & 1u << O_SECONDS)
		fprintf(pr->f, " --seconds %d", (int)ri->seconds); /* iptables prints it signed */
	if (inst->seen & 1u << O_REAP)
		fputs(" --reap", pr->f);
	if (ri->hitcount)
		fprintf(pr->f, " --hitcount %u", ri->hitcount);
	if (inst->seen & 1u << O_RTTL)
		fputs(" --rttl", pr->f);
	fprintf(pr->f, " --name %s --mask %s %s", ri->name,
		pt_addr_str(pr->family, &ri->mask, buf, sizeof(buf)),
		ri->dest ? "--rdest" : "--rsource");
}

static bool recent_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct recent_info *ri = inst->data;
	const struct ext_env *env = ctx->env;
	struct recent_tables *ts =
	    env && env->ops->plugin ? env->ops->plugin(env->box, "recent") : NULL;
	bool ret = inst->inv & RC_CMDS;
	struct recent_table *t;
	struct recent_entry *e;
	union pt_addr a = ri->dest ? ctx->info->dst : ctx->info->src;
	uint8_t ttl = ctx->info->ttl;

	if (!ts)
		return ret;
	t = recent_table_get(ts, ri->name, true, ri->hitcount);
	if (!t) { /* no room for another list: as the kernel's failed allocation */
		ctx->hotdrop = true;
		return false;
	}
	for (int i = 0; i < 4; i++)
		a.w[i] &= ri->mask.w[i];
	/* the TTL as the sender set it: a forwarded packet has lost one here already */
	if (ctx->out[0] && ctx->in[0])
		ttl++;
	e = recent_lookup(t, ctx->family, &a, inst->seen & 1u << O_RTTL ? ttl : 0);
	if (!e) {
		if (!(inst->seen & 1u << O_SET))
			return ret;
		if (!recent_add(t, ctx->family, &a, ttl, ctx->now_ns)) {
			ctx->hotdrop = true;
			return false;
		}
		return !ret;
	}
	if (inst->seen & 1u << O_SET) {
		ret = !ret;
	} else if (inst->seen & 1u << O_REMOVE) {
		recent_remove(t, e);
		return !ret;
	} else {
		uint64_t window = (uint64_t)ri->seconds * 1000000000ull;
		uint64_t since = ctx->now_ns > window ? ctx->now_ns - window : 0;
		unsigned hits = 0;

		for (unsigned i = 0; i < e->nstamps; i++) {
			if (ri->seconds && e->stamps[i] < since)
				continue;
			if (!ri->hitcount || ++hits >= ri->hitcount) {
				ret = !ret;
				break;
			}
		}
		if (inst->seen & 1u << O_REAP)
			recent_reap(t, since, e);
	}
	if ((inst->seen & 1u << O_SET) || ((inst->seen & 1u << O_UPDATE) && ret)) {
		recent_touch(t, e, ctx->now_ns);
		e->ttl = ttl;
	}
	return ret;
}

const struct ext_match ext_match_recent = {
    .name = "recent",
    .datasize = sizeof(struct recent_info),
    .opts = recent_opts,
    .nopts = sizeof(recent_opts) / sizeof(recent_opts[0]),
    .init = recent_init,
    .parse = recent_parse,
    .check = recent_check,
    .print = recent_print,
    .match = recent_match,
};
