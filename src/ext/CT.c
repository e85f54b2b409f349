// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j NOTRACK and -j CT [--notrack] [--helper NAME] [--timeout NAME] [--zone N], raw table only:
 * what conntrack (which runs after raw) does with the packet. NOTRACK and --notrack mark it
 * UNTRACKED; --helper asks that the packet's new connection gets that helper (the only way one
 * is assigned, as in Linux since 6.0); --timeout gives the new connection a named timeout
 * policy of the box's table (ct_timeout_policy_set: the simulator's `ct-timeout`, standing in
 * for `nfct timeout add`); --zone makes its connection live in zone N (a separate tuple
 * space). Printed as iptables-save 1.8.9 prints them: `-j NOTRACK` stays NOTRACK, `-j CT
 * --notrack --zone 5`, `-j CT --helper ftp`, `-j CT --timeout NAME`, and `--zone 0` not at all
 * (zone 0 is the default). As xt_CT, --helper and --timeout need a protocol (-p, not inverted).
 *
 * The kernel refuses a rule naming a policy that does not exist. Parsing knows no box, so
 * ext_ct_timeout_check() does that against the box's table when a loader installs a ruleset
 * (the simulator's `rules`, replay --rules, live); in a ruleset installed another way, a
 * policy missing when a packet comes leaves that connection with the table's timeouts.
 * Not yet: --ctevents, --expevents, --zone-orig/--zone-reply.
 */
#include <errno.h>
#include <stdio.h>

#include "ct/ct.h"
#include "ct/helper.h"
#include "ext/ct_timeout.h"
#include "rules/ext.h"
#include "rules/rules.h"

struct ct_target_info {
	uint16_t zone;
	char helper[16];	   /* as the kernel's xt_ct_target_info.helper */
	char timeout[CT_TIMEOUT_NAME_MAX]; /* xt_ct_target_info_v1.timeout */
	const struct ct_helper *h; /* set by check */
};

/* The print order is iptables 1.8.9's: --notrack, --helper, --timeout, --zone. */
enum { O_NOTRACK, O_HELPER, O_TIMEOUT, O_ZONE, O_NUM };

static const struct ext_opt ct_target_opts[] = {
    [O_NOTRACK] = {.name = "notrack", .type = EXT_T_NONE},
    [O_HELPER] = {.name = "helper", .type = EXT_T_STRING,
		  EXT_FIELD(struct ct_target_info, helper)},
    [O_TIMEOUT] = {.name = "timeout", .type = EXT_T_STRING,
		   EXT_FIELD(struct ct_target_info, timeout)},
    [O_ZONE] = {.name = "zone", .type = EXT_T_U16, EXT_FIELD(struct ct_target_info, zone)},
};

static int ct_target_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct ct_target_info *ci = inst->data;

	/* zone 0 is no zone: iptables-save prints `-j CT --zone 0` as `-j CT` */
	if ((inst->seen & (1u << O_ZONE)) && ci->zone == 0)
		inst->seen &= ~(1u << O_ZONE);
	if ((inst->seen & (1u << O_TIMEOUT)) && (!ctx->proto || ctx->proto_inverted)) {
		snprintf(ctx->err, ctx->errlen, "--timeout needs a protocol (-p), not inverted");
		return -EINVAL;
	}
	if ((inst->seen & (1u << O_TIMEOUT)) && !ci->timeout[0]) {
		snprintf(ctx->err, ctx->errlen, "--timeout needs a policy name");
		return -EINVAL;
	}
	if (!(inst->seen & (1u << O_HELPER)))
		return 0;
	if (!ctx->proto || ctx->proto_inverted) {
		snprintf(ctx->err, ctx->errlen, "--helper needs a protocol (-p), not inverted");
		return -EINVAL;
	}
	ci->h = ct_helper_builtin(ci->helper, (uint8_t)ctx->proto, ctx->family);
	if (!ci->h) {
		snprintf(ctx->err, ctx->errlen, "no helper \"%s\" for this protocol and family",
			 ci->helper);
		return -ENOENT;
	}
	return 0;
}

static int ct_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ct_target_info *ci = inst->data;

	if (ctx->pkt->ct)
		return EXT_CONTINUE; /* already tracked (a looped-back packet) */
	if (inst->seen & (1u << O_NOTRACK))
		ct_pkt_set_untracked(ctx->pkt);
	if (inst->seen & (1u << O_ZONE))
		ct_pkt_set_zone(ctx->pkt, ci->zone);
	if (ci->h)
		ct_pkt_set_helper(ctx->pkt, ci->h);
	if ((inst->seen & (1u << O_TIMEOUT)) && ctx->env && ctx->env->ops->conntrack) {
		struct ct_table *t = ctx->env->ops->conntrack(ctx->env->box);
		int id = t ? ct_timeout_policy_find(t, ci->timeout) : -ENOENT;

		ct_pkt_set_timeout(ctx->pkt, id > 0 ? id : 0);
	}
	return EXT_CONTINUE;
}

const struct ext_target ext_target_CT = {
    .name = "CT",
    .tables = TABLE_BIT(TABLE_RAW),
    .datasize = sizeof(struct ct_target_info),
    .opts = ct_target_opts,
    .nopts = O_NUM,
    .check = ct_target_check,
    .target = ct_target,
    .needs_conntrack = true,
};

static int notrack_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	if (!ctx->pkt->ct)
		ct_pkt_set_untracked(ctx->pkt);
	return EXT_CONTINUE;
}

const struct ext_target ext_target_NOTRACK = {
    .name = "NOTRACK",
    .tables = TABLE_BIT(TABLE_RAW),
    .target = notrack_target,
    .needs_conntrack = true,
};

/* As xt_CT refuses at load: no such policy, or one for another protocol than the rule's. */
static int check_rule(const struct rules_rule *r, const struct ct_table *t, char *err,
		      size_t errlen)
{
	const struct ext_instance *inst = &r->target.ext;
	const struct ct_target_info *ci = inst->data;
	const struct ct_timeout_policy *pol;

	if (r->target.kind != RULES_T_EXT || inst->target != &ext_target_CT ||
	    !(inst->seen & (1u << O_TIMEOUT)))
		return 0;
	pol = t ? ct_timeout_policy_get(t, ct_timeout_policy_find(t, ci->timeout)) : NULL;
	if (!pol) {
		snprintf(err, errlen, "line %u: CT: timeout policy \"%s\" not found", r->line,
			 ci->timeout);
		return -ENOENT;
	}
	/* exact: Linux 6.18 refuses even a generic policy on a -p tcp rule */
	if (pol->l4proto != r->ip.proto) {
		snprintf(err, errlen,
			 "line %u: CT: timeout policy \"%s\" is for protocol %u, the rule's is %u",
			 r->line, ci->timeout, pol->l4proto, r->ip.proto);
		return -EINVAL;
	}
	return 0;
}

int ext_ct_timeout_check(const struct rules_ruleset *rs, const struct ct_table *t, char *err,
			 size_t errlen)
{
	const struct rules_table *tb;

	if (!rs)
		return 0;
	tb = &rs->tables[TABLE_RAW];
	for (unsigned c = 0; tb->present && c < tb->nchains; c++)
		for (unsigned i = 0; i < tb->chains[c].nrules; i++) {
			int rc = check_rule(&tb->chains[c].rules[i], t, err, errlen);

			if (rc < 0)
				return rc;
		}
	return 0;
}
