/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read-side section of a packet (or a burst), inline: box_pkt_begin and box_pkt_end (box.c)
 * are these, for callers outside the packet path. Include only from a file that defines
 * _LGPL_SOURCE before any liburcu header, so that the read lock is liburcu's inline code and
 * not a call into the library per packet.
 */
#ifndef ENGINE_SECTION_H
#define ENGINE_SECTION_H

#ifndef _LGPL_SOURCE
#error "engine/section.h needs _LGPL_SOURCE defined before any liburcu header"
#endif
#include <urcu/pointer.h>
#include <urcu/urcu-memb.h>

#include "engine/engine_int.h"

/* Rulesets replaced inside a read-side section, freed once none is ongoing (box.c). */
void box_free_parked(struct box *b);

static inline void box_section_enter(struct box *b, struct rules_ruleset *saved[2])
{
	/* between packets on the data-path thread: hooks may change */
	if (b->depth == 0 && atomic_load_explicit(&b->plugin_wanted, memory_order_relaxed))
		box_plugins_apply(b);
	urcu_memb_read_lock();
	for (unsigned i = 0; i < 2; i++) {
		saved[i] = b->cur[i];
		b->cur[i] = rcu_dereference(b->rs[i]);
	}
	b->depth++;
}

static inline void box_section_leave(struct box *b, struct rules_ruleset *saved[2])
{
	b->cur[0] = saved[0];
	b->cur[1] = saved[1];
	b->depth--;
	urcu_memb_read_unlock();
	if (b->depth == 0 && b->nparked)
		box_free_parked(b);
}

#endif
