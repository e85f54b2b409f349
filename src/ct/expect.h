/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Expectations: a connection a helper has read about in its master's payload (the FTP data
 * connection a PORT command announces) and that is RELATED to the master when it arrives.
 *
 *   master (FTP control)           expectation                      new entry
 *   10.0.0.2:40000 > 192.0.2.1:21  tuple  src=192.0.2.1 sport=*      192.0.2.1:20 > 10.0.0.2:5001
 *   "PORT 10,0,0,2,19,137\r\n" --> dst=10.0.0.2 dport=5001    --> ctinfo RELATED, master linked,
 *                                  mask   src addr /32, sport 0      the expectation consumed
 *
 * The mask covers only the source half (address and port), as the kernel's does: the
 * destination and protocol of an expected connection are always known. That half is what
 * the expectations are hashed by.
 *
 * Lifetime: an expectation lives until it is consumed (unless PERMANENT), its timeout passes
 * (box clock), its master dies, or its master's helper makes one too many (the oldest of the
 * master's in that class is evicted, as the kernel does). Limits: per master and class
 * (the helper's max_expected) and per table (ct_expect_set_max, counted when refused).
 *
 * Use from a helper (or NAT, which may change the tuple before registering it):
 *
 *   struct ct_expect x;
 *   ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, family, &src, &dst, IPPROTO_TCP, NULL, port);
 *   r = ct_expect_related(t, master, &x, now);   // copies x; 0, -EBUSY, -EMFILE, ...
 */
#ifndef CT_EXPECT_H
#define CT_EXPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ct/ct.h"

#define CT_EXPECT_CLASS_DEFAULT 0
#define CT_EXPECT_CLASS_MAX	4

enum ct_expect_flags {
	CT_EXPECT_PERMANENT = 1 << 0, /* not consumed by the connection it matches */
	CT_EXPECT_INACTIVE = 1 << 1,  /* registered but not matched yet */
};

struct ct_helper;
struct ct_expect;

/* Called for the new entry an expectation matched, before it is attached to the packet (NAT
 * binds the data connection to the master's translation here). */
typedef void (*ct_expectfn)(struct ct_table *t, struct ct_entry *child, const struct ct_expect *x,
			    uint64_t now);

struct ct_expect {
	/* what the new connection's original tuple must be, under mask */
	struct ct_tuple tuple;
	union pt_addr mask_src; /* compared bits of tuple.src */
	uint16_t mask_sport;	/* compared bits of tuple.s (0: any source port) */
	uint8_t class;
	uint8_t flags; /* CT_EXPECT_* */
	/* helper the new connection gets (NULL: none, as FTP/TFTP/IRC data connections) */
	const struct ct_helper *helper;
	ct_expectfn expectfn;
	/* for NAT: the master's direction and the address/port the payload named before NAT
	 * rewrote it (the kernel's saved_addr/saved_proto/dir), opaque to the core */
	union pt_addr saved_addr;
	uint16_t saved_port;
	uint8_t dir;

	/* managed by the table: not to be set by callers */
	struct ct_entry *master;
	uint64_t expires; /* absolute, box clock ns */
	uint64_t id;
	struct ct_expect *hnext;       /* hash chain */
	struct ct_expect *prev, *next; /* all expectations, oldest first */
};

/*
 * Fill x for a connection of l4proto from src (NULL: any address) and sport (NULL: any port)
 * to dst:dport, family AF_INET/AF_INET6. Ports in host order. Zone, master and timeout are
 * set by ct_expect_related.
 */
void ct_expect_init(struct ct_expect *x, unsigned class, int family, const union pt_addr *src,
		    const union pt_addr *dst, uint8_t l4proto, const uint16_t *sport,
		    uint16_t dport);

/*
 * Register a copy of x for `master` (which must have a helper: -ESHUTDOWN otherwise; the
 * policy, max_expected and timeout, is that helper's in this table). An identical
 * expectation of the same master is replaced (its timer restarts); one that would match the
 * same connections for another master gives -EBUSY; the master's oldest of the class is
 * evicted beyond max_expected; -EMFILE when the table's limit is reached (counted), -ENOMEM.
 */
int ct_expect_related(struct ct_table *t, struct ct_entry *master, const struct ct_expect *x,
		      uint64_t now);

/* Remove one registered expectation (as found by ct_expect_find). */
void ct_expect_remove(struct ct_table *t, struct ct_expect *x);
/* The active expectation a connection with original tuple `tuple` would consume; NULL. */
struct ct_expect *ct_expect_find(struct ct_table *t, const struct ct_tuple *tuple, uint64_t now);
/* Remove expired expectations (all of them: a full pass). Returns how many. */
unsigned ct_expect_sweep(struct ct_table *t, uint64_t now);
/*
 * Housekeeping by elapsed time (the box's clock hook, beside ct_sweep_elapsed): the expired
 * expectations of the share of the buckets the time since the last slice is worth, all of them
 * once per CT_SWEEP_PERIOD of box clock, at most CT_EXPECT_SWEEP_SLICE buckets a call. Expiry
 * does not wait for it: a lookup and a registration treat an expectation past its time as gone,
 * a listing sweeps first. Returns the buckets visited.
 */
#define CT_EXPECT_SWEEP_SLICE 64u
unsigned ct_expect_sweep_elapsed(struct ct_table *t, uint64_t now);
/* Buckets ct_expect_sweep_elapsed has visited in this table (for tests). */
uint64_t ct_expect_sweep_visited(const struct ct_table *t);

struct ct_expect_stats {
	uint64_t created, consumed, expired, evicted, refused_full, refused_clash;
	uint32_t count; /* registered now */
	uint32_t max;	/* the table's limit */
};
/* Zeros when no expectation was ever made. */
void ct_expect_stats(const struct ct_table *t, struct ct_expect_stats *s);
/* The table's limit (the kernel's nf_conntrack_expect_max; default 4 per 256 hash buckets of
 * the connection table, at least 4). 0 or -ENOMEM. */
int ct_expect_set_max(struct ct_table *t, uint32_t max);

/* The master of a RELATED entry (NULL if it was not expected). */
struct ct_entry *ct_entry_master(const struct ct_entry *e);

/* ---- listing and events ------------------------------------------------------------------ */

/*
 * One expectation as `conntrack -L expect` prints it, without newline:
 * "297 proto=6 src=192.0.2.1 dst=10.0.0.2 sport=0 dport=5001 mask-src=255.255.255.255
 *  mask-dst=255.255.255.255 sport=0 dport=65535 master-src=10.0.0.2 master-dst=192.0.2.1
 *  sport=40000 dport=21 class=0 helper=ftp". snprintf-style return.
 */
int ct_expect_format(const struct ct_expect *x, uint64_t now, char *buf, size_t len);
/* Every expectation, oldest first. Returns the number printed. */
unsigned ct_expect_dump(struct ct_table *t, FILE *f, uint64_t now);

enum ct_expect_event { CT_EXP_EV_NEW = 1 << 0, CT_EXP_EV_DESTROY = 1 << 2 };

/* The expectation notifier (the kernel's nf_exp_event_notifier): separate from the entry
 * notifier because the object is not an entry. `x` may not be kept beyond the call. */
typedef void (*ct_expect_event_fn)(void *priv, unsigned events, const struct ct_expect *x);
/* 0, -ENOSPC (a few per table) or -ENOMEM. */
int ct_expect_subscribe(struct ct_table *t, ct_expect_event_fn fn, void *priv);
int ct_expect_unsubscribe(struct ct_table *t, ct_expect_event_fn fn, void *priv);

#endif
