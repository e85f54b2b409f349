// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m connlabel [!] --label NAME|BIT [--set] (xt_connlabel): one of the 128 label bits of the
 * packet's connection (src/ct/labels.h).
 *
 * NAME is looked up in connlabel.conf ("BIT NAME" lines: $PKTTABLES_CONNLABEL_CONF, else
 * /etc/xtables/connlabel.conf, as conntrack and iptables read it); BIT is 0..127 (decimal or
 * hex). Printed quoted, by name when the file names the bit, else the number, as iptables-save
 * 1.8.9 prints it.
 *
 * Per packet: no connection, or one without room for labels: the answer is "!"'s. The bit set:
 * match. Not set: with --set it is set now (and the match holds), else no match. A connection
 * has room for labels when it was made while labels were in use: the kernel counts a rule as a
 * user from its load; a box only knows its table once a packet meets the rule, so from then
 * on new connections get the room (and keep getting it after the rule goes), and the
 * connection of that first packet gets it then, being not yet confirmed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "ct/labels.h"
#include "ext/match_util.h"
#include "rules/ext.h"

struct connlabel_info {
	uint32_t bit;
	bool counted; /* this rule told the table labels are in use */
};

enum { O_LABEL, O_SET };

static const struct ext_opt connlabel_opts[] = {
    [O_LABEL] = {.name = "label",
		 .type = EXT_T_CUSTOM,
		 .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY},
    [O_SET] = {.name = "set", .type = EXT_T_NONE},
};

/* Name of bit `bit` (want_bit < 0: the bit of `name`) from connlabel.conf. */
static int labelmap(const char *name, int want_bit, char *out, size_t outlen)
{
	const char *path = getenv("PKTTABLES_CONNLABEL_CONF");
	char line[256];
	FILE *f = fopen(path && *path ? path : "/etc/xtables/connlabel.conf", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char n[64];
		unsigned b;

		if (sscanf(line, "%u %63s", &b, n) != 2 || b >= 128 || n[0] == '#')
			continue;
		if (want_bit >= 0 && (int)b == want_bit) {
			snprintf(out, outlen, "%s", n);
			found = (int)b;
		} else if (want_bit < 0 && !strcmp(n, name)) {
			found = (int)b;
		}
	}
	fclose(f);
	return found;
}

static int connlabel_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			   const char *arg)
{
	struct connlabel_info *ci = inst->data;
	uint64_t v;
	int b;

	if (i != O_LABEL)
		return 0;
	if (!ext_parse_uint(arg, 0, 127, &v)) {
		ci->bit = (uint32_t)v;
		return 0;
	}
	b = labelmap(arg, -1, NULL, 0);
	if (b < 0) {
		ext_errf(ctx->err, ctx->errlen,
			 "connlabel: label \"%s\" not found in connlabel.conf", arg);
		return -EINVAL;
	}
	ci->bit = (uint32_t)b;
	return 0;
}

static void connlabel_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct connlabel_info *ci = inst->data;
	char name[64];

	ext_print_opt(pr, inst, O_LABEL);
	if (labelmap(NULL, (int)ci->bit, name, sizeof(name)) >= 0)
		fprintf(pr->f, " \"%s\"", name);
	else
		fprintf(pr->f, " \"%u\"", ci->bit);
	if (inst->seen & 1u << O_SET)
		fputs(" --set", pr->f);
}

static bool connlabel_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct connlabel_info *ci = inst->data;
	const struct ext_env *env = ctx->env;
	bool inv = inst->inv & 1u << O_LABEL;
	struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	struct ct_labels l, bit = {{0}};

	struct ct_table *t = env && env->ops->conntrack ? env->ops->conntrack(env->box) : NULL;

	if (!ci->counted && t) {
		ct_labels_use(t, 1);
		ci->counted = true;
	}
	/* the connection this packet is making, made before the rule was first met: room now,
	 * as an entry gets its extensions until it is confirmed */
	if (e && t && !ct_entry_labels(e, &l) && !(ct_entry_status(e) & CT_S_CONFIRMED))
		ct_labels_add(t, e);
	if (!e || !ct_entry_labels(e, &l))
		return inv;
	bit.words[ci->bit / 32] = 1u << (ci->bit % 32);
	if (l.words[ci->bit / 32] & bit.words[ci->bit / 32])
		return !inv;
	if ((inst->seen & 1u << O_SET) && ct_entry_labels_set(e, &bit, &bit) >= 0)
		return !inv;
	return inv;
}

const struct ext_match ext_match_connlabel = {
    .name = "connlabel",
    .datasize = sizeof(struct connlabel_info),
    .opts = connlabel_opts,
    .nopts = sizeof(connlabel_opts) / sizeof(connlabel_opts[0]),
    .parse = connlabel_parse,
    .print = connlabel_print,
    .match = connlabel_match,
    .needs_conntrack = true,
};
