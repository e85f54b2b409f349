/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The conntrack timestamp extension (the kernel's nf_conntrack_timestamp): when an entry was
 * confirmed and when it left the table, in the box's clock (ns), for conntrack -o ktimestamp,
 * its delta-time and state synchronisation. Only entries made while the table's `timestamp`
 * setting is on carry one (as the kernel's, the extension is added when an entry is made).
 */
#ifndef CT_TSTAMP_H
#define CT_TSTAMP_H

#include <stdbool.h>
#include <stdint.h>

struct ct_table;
struct ct_entry;

struct ct_tstamp {
	uint64_t start; /* confirmed (box clock, ns) */
	uint64_t stop;	/* left the table; 0 while it is in it */
};

/* A new entry of t: the extension when the setting is on (before any other is added). */
void ct_tstamp_new(struct ct_table *t, struct ct_entry *e);
/* The entry was confirmed / left the table at now. */
void ct_tstamp_start(struct ct_entry *e, uint64_t now);
void ct_tstamp_stop(struct ct_entry *e, uint64_t now);
/* The entry's times; false when it has no timestamp. */
bool ct_entry_tstamp(const struct ct_entry *e, uint64_t *start, uint64_t *stop);

#endif
