// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m connbytes [!] --connbytes FROM[:TO] --connbytes-dir original|reply|both
 *              --connbytes-mode packets|bytes|avgpkt
 *
 * One match over the connection's 64-bit accounting counters (src/ct CT_EXT_ACCT), as
 * xt_connbytes: the amount (packets, bytes, or bytes/packets; the direction's, or the sum of
 * both) must lie in FROM..TO. "FROM" and "FROM:" mean FROM..2^64-1, ":TO" 0..TO.
 *
 * Inversion is stored the way the kernel's struct stores it, by swapping the bounds:
 * FROM > TO means "below TO or above FROM". So `! --connbytes 10:10` is the same range and
 * prints without "!" (as iptables-save 1.8.9 prints it).
 *
 * A connection without counters never matches: the counters exist only when accounting was
 * on when the connection was created. A connbytes rule turns accounting on for the box's
 * table (ct_config.acct), as the kernel forces nf_conntrack_acct; the kernel does it when
 * the rule is loaded, this match when it first sees a packet (the extension has no table at
 * load time), so connections made in between, that packet's own included, carry no counters
 * (docs/extensions.md).
 * Printed order: --connbytes, --connbytes-mode, --connbytes-dir.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ct/ct.h"
#include "rules/ext.h"

enum connbytes_what { WHAT_PACKETS, WHAT_BYTES, WHAT_AVGPKT };
enum connbytes_dir { DIR_ORIGINAL, DIR_REPLY, DIR_BOTH };

struct connbytes_info {
	uint64_t from, to;
	uint32_t what; /* enum connbytes_what */
	uint32_t dir;  /* enum connbytes_dir */
};

enum { O_CONNBYTES, O_MODE, O_DIR, O_NUM };

static const struct ext_name mode_names[] = {
    {"packets", WHAT_PACKETS}, {"bytes", WHAT_BYTES}, {"avgpkt", WHAT_AVGPKT}, {NULL, 0}};
static const struct ext_name dir_names[] = {
    {"original", DIR_ORIGINAL}, {"reply", DIR_REPLY}, {"both", DIR_BOTH}, {NULL, 0}};

static const struct ext_opt connbytes_opts[] = {
    [O_CONNBYTES] = {.name = "connbytes",
		     .type = EXT_T_CUSTOM,
		     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
		     .print_as = -1},
    [O_MODE] = {.name = "connbytes-mode",
		.type = EXT_T_NAME,
		.flags = EXT_OPT_MANDATORY,
		EXT_FIELD(struct connbytes_info, what),
		.names = mode_names},
    [O_DIR] = {.name = "connbytes-dir",
	       .type = EXT_T_NAME,
	       .flags = EXT_OPT_MANDATORY,
	       EXT_FIELD(struct connbytes_info, dir),
	       .names = dir_names},
};

/* FROM, FROM:, :TO, FROM:TO; FROM > TO refused. */
static int parse_range(const char *arg, uint64_t *from, uint64_t *to)
{
	const char *colon = strchr(arg, ':');
	char lo[32];

	*from = 0;
	*to = UINT64_MAX;
	if (!colon)
		return ext_parse_uint(arg, 0, UINT64_MAX, from);
	if ((size_t)(colon - arg) >= sizeof(lo))
		return -EINVAL;
	memcpy(lo, arg, (size_t)(colon - arg));
	lo[colon - arg] = '\0';
	if (*lo && ext_parse_uint(lo, 0, UINT64_MAX, from) < 0)
		return -EINVAL;
	if (colon[1] && ext_parse_uint(colon + 1, 0, UINT64_MAX, to) < 0)
		return -EINVAL;
	if (!*lo && !colon[1])
		return -EINVAL;
	return *from > *to ? -ERANGE : 0;
}

static int connbytes_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			   const char *arg)
{
	struct connbytes_info *ci = inst->data;

	if (opt == O_MODE || opt == O_DIR) {
		/* the core takes names in any case; libxt_connbytes compares exactly */
		for (const struct ext_name *n = connbytes_opts[opt].names; n->name; n++)
			if (!strcmp(n->name, arg))
				return 0;
		snprintf(ctx->err, ctx->errlen, "connbytes: unknown --%s \"%s\"",
			 connbytes_opts[opt].name, arg);
		return -EINVAL;
	}
	if (parse_range(arg, &ci->from, &ci->to) < 0) {
		snprintf(ctx->err, ctx->errlen, "connbytes: bad range \"%s\"", arg);
		return -EINVAL;
	}
	if (ctx->invert) {
		uint64_t x = ci->from;

		ci->from = ci->to;
		ci->to = x;
	}
	return 0;
}

static void connbytes_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct connbytes_info *ci = inst->data;
	uint64_t from = ci->from, to = ci->to;

	if (from > to) {
		fputs(" !", pr->f);
		from = ci->to, to = ci->from;
	}
	fprintf(pr->f, " --connbytes %llu", (unsigned long long)from);
	if (to && to < UINT64_MAX)
		fprintf(pr->f, ":%llu", (unsigned long long)to);
	ext_print_opt(pr, inst, O_MODE);
	ext_print_value(pr, inst, O_MODE);
	ext_print_opt(pr, inst, O_DIR);
	ext_print_value(pr, inst, O_DIR);
}

static bool connbytes_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct connbytes_info *ci = inst->data;
	const struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	const struct ext_env *env = ctx->env;
	struct ct_table *t =
	    env && env->ops && env->ops->conntrack ? env->ops->conntrack(env->box) : NULL;
	uint64_t pk[2], by[2], pkts, bytes, what = 0;

	if (t && !ct_table_config(t)->acct) {
		/* as xt_connbytes forces nf_conntrack_acct on (the kernel at load time; here
		 * when the rule first sees a packet, see the header) */
		struct ct_config c = *ct_table_config(t);

		c.acct = true;
		ct_table_set_config(t, &c);
	}
	if (!e || !ct_entry_counters(e, CT_DIR_ORIGINAL, &pk[0], &by[0]) ||
	    !ct_entry_counters(e, CT_DIR_REPLY, &pk[1], &by[1]))
		return false;
	if (ci->dir == DIR_BOTH) {
		pkts = pk[0] + pk[1];
		bytes = by[0] + by[1];
	} else {
		pkts = pk[ci->dir];
		bytes = by[ci->dir];
	}
	switch (ci->what) {
	case WHAT_PACKETS:
		what = pkts;
		break;
	case WHAT_BYTES:
		what = bytes;
		break;
	case WHAT_AVGPKT:
		what = pkts ? bytes / pkts : 0;
		break;
	}
	if (ci->to >= ci->from)
		return what >= ci->from && what <= ci->to;
	return what < ci->to || what > ci->from;
}

const struct ext_match ext_match_connbytes = {
    .name = "connbytes",
    .datasize = sizeof(struct connbytes_info),
    .opts = connbytes_opts,
    .nopts = O_NUM,
    .parse = connbytes_parse,
    .print = connbytes_print,
    .match = connbytes_match,
    .needs_conntrack = true,
};
