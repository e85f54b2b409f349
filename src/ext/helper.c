// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m helper [!] --helper NAME: the packet's connection was expected by a connection whose
 * helper is NAME (the FTP data connection of a control connection with CT --helper ftp).
 * As xt_helper: only connections with a master match (not the control connection itself);
 * the helper's name is compared over its own length, so "ftp" also matches --helper
 * ftp-2121; an empty NAME matches any helper; without a master (or untracked) the result is
 * the inversion flag. Printed as iptables-save 1.8.9 prints it: `-m helper --helper ftp`,
 * `--helper ""`.
 */
#include <string.h>

#include "ct/ct.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "rules/ext.h"

struct helper_info {
	char name[30]; /* as the kernel's xt_helper_info.name */
};

static const struct ext_opt helper_opts[] = {
    {.name = "helper",
     .type = EXT_T_STRING,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct helper_info, name)},
};

static bool helper_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct helper_info *hi = inst->data;
	const struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	bool inv = inst->inv & 1u;
	const struct ct_helper *h;
	const struct ct_entry *m;

	if (!e || !(m = ct_entry_master(e)) || !(h = ct_entry_helper(m)))
		return inv;
	if (!hi->name[0])
		return !inv;
	return !strncmp(h->name, hi->name, strlen(h->name)) != inv;
}

const struct ext_match ext_match_helper = {
    .name = "helper",
    .datasize = sizeof(struct helper_info),
    .opts = helper_opts,
    .nopts = 1,
    .match = helper_match,
    .needs_conntrack = true,
};
