/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lists of -m recent (xt_recent's tables), one set per box: named tables of addresses,
 * each entry with the times it was last seen. The match (ext/recent.c) reaches them through
 * the box's "recent" plug-in (plugins/recent.c); the control socket and the simulator list
 * and edit them as /proc/net/xt_recent/NAME is read and written.
 *
 *   recent_tables  --name-->  recent_table (<= RECENT_MAX_TABLES per box)
 *                               | hash of entries (<= RECENT_LIST_TOT; the least recently
 *                               |   seen one is evicted to make room, and counted)
 *                               | entry: family, address, ttl, stamps[nstamps] (a ring of
 *                               |   the last packet times, ns of the box clock)
 *
 * Bounded: tables per box, entries per table, stamps per entry; every limit hit has a counter.
 * Time is an argument (the box's clock), never read here.
 */
#ifndef EXT_RECENT_TABLE_H
#define EXT_RECENT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"

#define RECENT_NAME_LEN	    200	  /* XT_RECENT_NAME_LEN, with the NUL */
#define RECENT_LIST_TOT	    200	  /* xt_recent's ip_list_tot: entries per table */
#define RECENT_PKT_LIST_TOT 20	  /* ip_pkt_list_tot: stamps kept, rounded up to a power of 2 */
#define RECENT_MAX_NSTAMPS  65536 /* largest --hitcount + 1 */
#define RECENT_FIRST_CAP    32	  /* stamps an entry starts with */
#define RECENT_MAX_TABLES   256	  /* per box (the kernel has no such limit) */
#define RECENT_BUCKETS	    256
#define RECENT_HZ	    250 /* stamps are printed in jiffies of this rate, as /proc does */

struct recent_entry {
	struct recent_entry *hnext;		  /* hash chain */
	struct recent_entry *lru_prev, *lru_next; /* oldest first */
	union pt_addr addr;
	uint8_t family;
	uint8_t ttl;
	uint32_t index;	  /* next stamp slot */
	uint32_t nstamps; /* stamps in use */
	uint32_t cap;	  /* stamps allocated (grows up to the table's nstamps_max) */
	uint64_t *stamps; /* ns */
};

struct recent_stats {
	uint64_t entries_evicted; /* a full table made room for a new address */
	uint64_t alloc_failed;	  /* no memory for an entry: the packet was dropped */
};

struct recent_table {
	char name[RECENT_NAME_LEN];
	unsigned count;
	unsigned nstamps_max; /* power of two */
	struct recent_entry *lru_head, *lru_tail;
	uint64_t key[2]; /* the box's hash key */
	struct recent_entry *bucket[RECENT_BUCKETS];
	struct recent_stats stats;
};

struct recent_tables {
	uint64_t key[2];
	unsigned ntables;
	uint64_t tables_refused; /* a name beyond RECENT_MAX_TABLES */
	struct recent_table *table[RECENT_MAX_TABLES];
};

struct recent_tables *recent_tables_new(const uint64_t key[2]);
void recent_tables_free(struct recent_tables *ts);

/* The table of that name; made (empty, keeping at least `nstamps` stamps per entry) when
 * `create`. NULL when absent (or it cannot be made: counted in tables_refused). */
struct recent_table *recent_table_get(struct recent_tables *ts, const char *name, bool create,
				      unsigned nstamps);
/* Remove a table and its entries. 0 or -ENOENT. */
int recent_table_remove(struct recent_tables *ts, const char *name);

/* The entry of (family, addr) and, when ttl != 0, that TTL; NULL if none. */
struct recent_entry *recent_lookup(struct recent_table *t, int family, const union pt_addr *a,
				   uint8_t ttl);
/* A new entry seen once at `now`; evicts the least recently seen one when the table is full.
 * NULL on ENOMEM. */
struct recent_entry *recent_add(struct recent_table *t, int family, const union pt_addr *a,
				uint8_t ttl, uint64_t now);
/* Seen again at `now`: one more stamp, most recently seen. */
void recent_touch(struct recent_table *t, struct recent_entry *e, uint64_t now);
void recent_remove(struct recent_table *t, struct recent_entry *e);
/* --reap: the least recently seen entry (not `keep`) goes when its last stamp is before
 * `before`. */
void recent_reap(struct recent_table *t, uint64_t before, const struct recent_entry *keep);
void recent_flush(struct recent_table *t);

/* The /proc/net/xt_recent/NAME text: one line per entry, least recently seen first:
 *   src=ADDR ttl: T last_seen: J oldest_pkt: I J1, J2, ...      (J: jiffies of RECENT_HZ) */
void recent_table_print(const struct recent_table *t, FILE *f);
/* A write to /proc/net/xt_recent/NAME: "+ADDR" adds or refreshes, "-ADDR" removes, "/"
 * flushes. 0, or -EINVAL (bad command or address; err says which), -ENOENT ("-" of an
 * address not in the list), -ENOMEM. */
int recent_table_write(struct recent_table *t, const char *cmd, uint64_t now, char *err,
		       size_t errlen);

#endif
