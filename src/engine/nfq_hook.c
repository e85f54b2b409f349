// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * box_hook_packet: one hook of the box's path on its own, for packets the kernel queued to us
 * (pkttables run --nfqueue). Built only from the engine's shared pieces (engine_int.h): the
 * read-side section of one packet and the hook runner, as box_receive uses them.
 */
#include <errno.h>
#include <limits.h>

#include "engine/engine_int.h"
#include "engine/nfq_hook.h"

/* box_drop_pkt without the free: the caller still owes the kernel a verdict on it. */
static void count_drop(struct box *b, const struct pkt *p, const struct box_drop *why)
{
	b->stats.dropped[why->kind < BOX_DROP_MAX ? why->kind : BOX_DROP_HOOK]++;
	if (why->kind == BOX_DROP_MALFORMED && why->bad < PKT_BAD_MAX)
		b->stats.malformed[why->bad]++;
	if (b->ops.dropped)
		b->ops.dropped(b->user, b, p, why);
}

int box_hook_packet(struct box *b, unsigned hook, int in, int out, struct pkt *p,
		    struct box_drop *drop)
{
	struct rules_ruleset *saved[2];
	int v;

	if (hook >= HOOK_MAX || !p)
		return -EINVAL;
	/* What the kernel queues has passed its own header checks; a malformation beyond the IP
	 * header (a truncated TCP header, ...) is left to the matches, as in the kernel. */
	pkt_parse(p, PKT_LINK_RAW, false);
	if (p->info.family != AF_INET && p->info.family != AF_INET6)
		return -EPROTONOSUPPORT;
	if (p->info.l3len && p->info.l3off + p->info.l3len < p->len)
		pkt_trim(p, p->info.l3off + p->info.l3len);
	p->iif = in;
	p->oif = out;
	b->stats.received++;
	box_pkt_begin(b, saved);
	/* The kernel defragmented what it queued: the defragmentation priority is skipped, so no
	 * hook function replaces the packet the caller owes a verdict on. */
	v = box_run_hook_prio(b, p->info.family, hook, in, out, &p, drop, INT_MIN,
			      BOX_PRIO_DEFRAG - 1);
	if (v == EXT_ACCEPT)
		v = box_run_hook_prio(b, p->info.family, hook, in, out, &p, drop,
				      BOX_PRIO_DEFRAG + 1, INT_MAX);
	box_pkt_end(b, saved);
	if (v == EXT_DROP)
		count_drop(b, p, drop);
	return v;
}
