/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -m hashlimit's run-time table, as far as the box (stats) and tests look at it.
 */
#ifndef EXT_HASHLIMIT_H
#define EXT_HASHLIMIT_H

#include <stdint.h>

#include "rules/ext.h"

struct ext_hashlimit_stats {
	uint32_t entries;    /* buckets in use now */
	uint32_t max;	     /* the table's bound (--hashlimit-htable-max or 8 * size) */
	uint64_t full_drops; /* packets dropped (hotdrop) because a new bucket did not fit */
	uint64_t expired;    /* buckets removed by garbage collection */
	uint64_t gc_buckets; /* hash buckets visited by collection slices (at most 64 a packet) */
};

/* Statistics of one hashlimit instance; zeroes before check() or the first packet. */
void ext_hashlimit_stats(const struct ext_instance *inst, struct ext_hashlimit_stats *st);

#endif
