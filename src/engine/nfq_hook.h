/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One hook for one packet: what a program serving an NFQUEUE needs from a box. The kernel has
 * already received, routed and defragmented the packet and stopped it at one hook; the box runs
 * the hook functions registered there (the tables, in priority order, and whatever else
 * registered at that hook) and says what became of it. Nothing else of the box's path runs: no
 * routing, no TTL, no ops.xmit or ops.deliver.
 *
 *   kernel hook H --NFQA payload (raw IP), mark, in/out dev-->  box_hook_packet(H)
 *                 <--verdict, mark, rewritten payload--------   EXT_ACCEPT / EXT_DROP
 */
#ifndef ENGINE_NFQ_HOOK_H
#define ENGINE_NFQ_HOOK_H

#include "engine/box.h"

/*
 * Run `p` through every hook function at `hook` for its family, in the kernel's order. `p`
 * starts at its IP header (PKT_LINK_RAW) and is parsed here (no IPv4 header checksum check:
 * the kernel has done it); p->mark is the mark the rules see and may change. `in` and `out`
 * are box interface indexes (0 = none), whose names -i and -o match.
 *
 * Unlike box_receive, the caller keeps the packet on every return but EXT_STOLEN, so that it
 * can compare the bytes and hand them back. A drop is counted and told to ops.dropped as any
 * other, but the packet is not freed.
 *
 * Returns EXT_ACCEPT; EXT_DROP with *drop saying why; EXT_STOLEN when a hook function took the
 * packet (the caller must neither touch nor free it); -EPROTONOSUPPORT when it is not IPv4 or
 * IPv6 (nothing ran); -EINVAL for a hook out of range.
 */
int box_hook_packet(struct box *b, unsigned hook, int in, int out, struct pkt *p,
		    struct box_drop *drop);

#endif
