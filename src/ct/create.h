/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Entries and expectations made without a packet: what `conntrack -I` / `-U` / `-I expect`
 * ask for over the control socket (create.c). The kernel's ctnetlink_create_conntrack,
 * ctnetlink_change_conntrack and ctnetlink_create_expect, in behaviour.
 */
#ifndef CT_CREATE_H
#define CT_CREATE_H

#include "ct/ct.h"
#include "ct/expect.h"
#include "ct/labels.h"

enum {
	CT_ATTR_REPLY = 1 << 0,	      /* reply tuple given (else the inverse of orig) */
	CT_ATTR_STATUS = 1 << 1,      /* SEEN_REPLY, ASSURED (set only), FIXED_TIMEOUT */
	CT_ATTR_MARK = 1 << 2,	      /* change: mark = (mark & ~mark_mask) ^ mark */
	CT_ATTR_TIMEOUT = 1 << 3,     /* ns from now */
	CT_ATTR_PROTO_STATE = 1 << 4, /* TCP/SCTP/DCCP state number, the kernel's */
	CT_ATTR_HELPER = 1 << 5,      /* create only: the helper (CTA_HELP) */
	CT_ATTR_LABELS = 1 << 6,      /* labels = (labels & ~labels_mask) | labels_bits */
};
struct ct_helper;
struct ct_entry_attrs {
	uint32_t have; /* CT_ATTR_* */
	struct ct_tuple orig, reply;
	uint32_t status, mark, mark_mask;
	uint64_t timeout;
	uint8_t proto_state;
	const struct ct_helper *helper;
	struct ct_labels labels, labels_mask; /* CT_ATTR_LABELS */
	/* NAT on create (conntrack -I --src-nat/--dst-nat), or NULL: called with the entry made
	 * but not yet confirmed nor in the table, before its reply tuple is checked against the
	 * table, so it may change that tuple (and extensions); its negative return is the
	 * create's, and nothing of the entry stays. Conntrack knows no NAT: the caller names it. */
	int (*bind)(void *priv, struct ct_entry *e, uint64_t now);
	void *bind_priv;
};
/* A confirmed entry from attributes (NEW delivered). 0, -EEXIST (either tuple is in the table),
 * -EINVAL (the reply differs in family/protocol/zone, or orig has no inverse), -ENOSPC (full of
 * assured entries), -ENOMEM, or a->bind's error. *out (may be NULL) gets the entry. */
int ct_entry_create(struct ct_table *t, const struct ct_entry_attrs *a, uint64_t now,
		    struct ct_entry **out);
/* Change mark, timeout, status, TCP state of an entry (UPDATE delivered). 0, or -EBUSY when the
 * status would clear SEEN_REPLY or ASSURED (nothing is changed then). */
int ct_entry_change(struct ct_table *t, struct ct_entry *e, const struct ct_entry_attrs *a,
		    uint64_t now);

/* ct_expect_related with the lifetime given (conntrack -I expect -t; 0: the helper's policy).
 * Same returns; -ESHUTDOWN when the master has no helper (ctnetlink: EOPNOTSUPP). */
int ct_expect_create(struct ct_table *t, struct ct_entry *master, const struct ct_expect *x,
		     uint64_t timeout, uint64_t now);
/* Every registered expectation, oldest first (so in ascending id): NULL gives the first, NULL
 * follows the last. */
struct ct_expect *ct_expect_next(struct ct_table *t, const struct ct_expect *x);

#endif
