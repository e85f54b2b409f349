// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack in a box: hook functions at the kernel's priorities. The box owns the table and
 * registers these when tracking goes on (src/engine/conntrack.c).
 *
 *   PREROUTING  BOX_PRIO_CONNTRACK  ct_in (from outside: checksums verified)
 *   OUTPUT      BOX_PRIO_CONNTRACK  ct_in (local)
 *   INPUT       300                 ct_helper_run: the entry's helper reads the payload
 *   POSTROUTING 300                 ct_helper_run
 *   INPUT       BOX_PRIO_CONFIRM    ct_confirm
 *   POSTROUTING BOX_PRIO_CONFIRM    ct_confirm
 *
 * The packet keeps its reference until the box is done with it (xmit, deliver, any drop:
 * box_pkt_release), as an skb keeps its nfct; so an entry made for a packet dropped before
 * confirmation is freed at once. A looped-back packet still carries its entry and is not
 * tracked twice. After the release pkt->ct stays readable while the entry is in the table.
 */
#include <errno.h>

#include "ct/ct_attach.h"
#include "ct/ct_int.h"
#include "ct/helper.h"

#define BOX_PRIO_CT_HELPER 300 /* NF_IP_PRI_CONNTRACK_HELPER: after SNAT (100) */

static int hook_in(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_table *t = priv;

	if (ct_in(t, p, st->hook == HOOK_PREROUTING, 0, box_now(st->box)) < 0) {
		return box_hook_drop(st, BOX_DROP_CONNTRACK, -1);
	}
	return EXT_ACCEPT;
}

static int hook_confirm(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct ct_table *t = priv;

	if (ct_confirm(t, p, box_now(st->box)) == -ENOMEM) {
		return box_hook_drop(st, BOX_DROP_CONNTRACK, -1);
	}
	return EXT_ACCEPT;
}

/* The entry's helper reads the payload (nf_conntrack's helper hook, priority 300) */
static int hook_helper(void *priv, struct box_hook_state *st, struct pkt *p)
{
	const char *why;

	if (ct_helper_run(priv, p, box_now(st->box), &why) < 0) {
		return box_hook_drop(st, BOX_DROP_HOOK, -1);
	}
	return EXT_ACCEPT;
}

static const struct {
	unsigned hook;
	int prio;
	box_hook_fn fn;
} ct_hooks[] = {
    {HOOK_PREROUTING, BOX_PRIO_CONNTRACK, hook_in},
    {HOOK_OUTPUT, BOX_PRIO_CONNTRACK, hook_in},
    {HOOK_INPUT, BOX_PRIO_CT_HELPER, hook_helper},
    {HOOK_POSTROUTING, BOX_PRIO_CT_HELPER, hook_helper},
    {HOOK_INPUT, BOX_PRIO_CONFIRM, hook_confirm},
    {HOOK_POSTROUTING, BOX_PRIO_CONFIRM, hook_confirm},
};

int ct_attach(struct box *b, struct ct_table *ct)
{
	for (unsigned i = 0; i < sizeof(ct_hooks) / sizeof(ct_hooks[0]); i++) {
		int r =
		    box_register_hook(b, 0, ct_hooks[i].hook, ct_hooks[i].prio, ct_hooks[i].fn, ct);

		if (r < 0) {
			while (i--)
				box_unregister_hook(b, 0, ct_hooks[i].hook, ct_hooks[i].fn, ct);
			return r;
		}
	}
	return 0;
}

void ct_detach(struct box *b, struct ct_table *ct)
{
	for (unsigned i = 0; i < sizeof(ct_hooks) / sizeof(ct_hooks[0]); i++)
		box_unregister_hook(b, 0, ct_hooks[i].hook, ct_hooks[i].fn, ct);
}
