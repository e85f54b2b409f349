// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NAT helpers and sequence adjustment hooked into a box (with plugin.c, the files of
 * src/nat that know the engine). The NAT plug-in's init calls nat_helpers_attach:
 *
 *   ct_helper_set_nat(ftp, tftp, irc)  the conntrack helpers hand their findings to NAT
 *   POSTROUTING, INPUT  301        nat_seqadj_apply: after the conntrack helpers (300, which
 *                                  may resize the segment and record it), before confirm
 *                                  (INT_MAX); the last hook either direction passes
 *                                  (seqadj.h says why there)
 */
#include <errno.h>

#include "ct/ct_int.h"
#include "nat/helper.h"
#include "nat/nat_plugin.h"
#include "nat/seqadj.h"

#define NAT_PRIO_SEQADJ 301 /* NF_IP_PRI_CONNTRACK_HELPER (300) + 1 */

static int seqadj_hook(void *priv, struct box_hook_state *st, struct pkt *p)
{
	const struct ct_entry *e = ct_pkt_entry(p);

	(void)priv;
	/* nat_seqadj_apply's own first test, without the call: nearly no entry has the extension */
	if (!e || !ct_ext_get(e, CT_EXT_SEQADJ))
		return EXT_ACCEPT;
	if (nat_seqadj_apply(p) < 0)
		return box_hook_drop(st, BOX_DROP_HOOK, -1);
	return EXT_ACCEPT;
}

static const unsigned seqadj_hooks[] = {HOOK_POSTROUTING, HOOK_INPUT};

int nat_helpers_attach(struct box *b, struct nat_table *n, struct ct_table *ct)
{
	int r;

	for (unsigned i = 0; i < sizeof(seqadj_hooks) / sizeof(seqadj_hooks[0]); i++) {
		r = box_register_hook(b, 0, seqadj_hooks[i], NAT_PRIO_SEQADJ, seqadj_hook, n);
		if (r < 0)
			goto fail;
	}
	r = ct_helper_set_nat(ct, CT_HELPER_FTP, nat_helper_ftp, n);
	if (!r)
		r = ct_helper_set_nat(ct, CT_HELPER_TFTP, nat_helper_tftp, n);
	if (!r)
		r = ct_helper_set_nat(ct, CT_HELPER_IRC, nat_helper_irc, n);
	if (!r)
		return 0;
fail:
	nat_helpers_detach(b, n, ct);
	return r;
}

void nat_helpers_detach(struct box *b, struct nat_table *n, struct ct_table *ct)
{
	if (!n || !ct)
		return;
	ct_helper_set_nat(ct, CT_HELPER_FTP, NULL, NULL);
	ct_helper_set_nat(ct, CT_HELPER_TFTP, NULL, NULL);
	ct_helper_set_nat(ct, CT_HELPER_IRC, NULL, NULL);
	for (unsigned i = 0; i < sizeof(seqadj_hooks) / sizeof(seqadj_hooks[0]); i++)
		box_unregister_hook(b, 0, seqadj_hooks[i], seqadj_hook, n);
}
