// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entries made and changed without a packet: `conntrack -I` and `conntrack -U` over the control
 * socket (the kernel's ctnetlink_create_conntrack / ctnetlink_change_conntrack).
 *
 *   ct_entry_create:  tuples (reply: given or the inverse) -> confirmed at once, in the hash,
 *                     NEW delivered; from then on an entry like any other (packets find it,
 *                     the trackers move it on, it times out on the box clock)
 *   ct_entry_change:  mark (under a mask), timeout, the status bits that may only be set;
 *                     UPDATE delivered now, not at the next packet's confirmation
 *
 * Expectations: ct_expect_related, then the lifetime the client asked for.
 *
 * A created TCP entry knows nothing of the windows: it is picked up like a connection seen
 * mid-stream (both sides liberal, the first segment of each side sets its window).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/create.h"
#include "ct/ct_int.h"
#include "ct/helper.h"
#include "ct/helper_int.h"
#include "ct/tstamp.h"

/* What a client may set (the kernel refuses to clear these once set, and to touch the rest). */
#define SETTABLE (CT_S_SEEN_REPLY | CT_S_ASSURED | CT_S_FIXED_TIMEOUT)
#define ONLY_SET (CT_S_SEEN_REPLY | CT_S_ASSURED) /* the others may be cleared too */

static void proto_init(struct ct_entry *e, const struct ct_entry_attrs *a, uint64_t now)
{
	uint8_t st = (a->have & CT_ATTR_PROTO_STATE) ? a->proto_state : 0;

	if (e->ops == &ct_proto_tcp) {
		e->proto.tcp.state = st < CT_TCP_STATE_MAX ? st : CT_TCP_NONE;
		e->proto.tcp.last_index = 5; /* proto_tcp.c's I_NONE: no segment seen yet */
		for (int d = 0; d < 2; d++)
			e->proto.tcp.seen[d].flags = CT_TCPF_SACK_PERM | CT_TCPF_BE_LIBERAL;
	} else if (e->ops == &ct_proto_udp || e->ops == &ct_proto_udplite) {
		e->proto.udp.stream_ts = now; /* a reply from now on makes it a stream */
	} else if (e->ops == &ct_proto_sctp) {
		e->proto.sctp.state = st < CT_SCTP_STATE_MAX ? st : CT_SCTP_NONE;
	} else if (e->ops == &ct_proto_dccp) {
		e->proto.dccp.state = st < CT_DCCP_STATE_MAX ? st : CT_DCCP_NONE;
		e->proto.dccp.role[1] = 1; /* the reply side is the server */
	}
}

int ct_entry_create(struct ct_table *t, const struct ct_entry_attrs *a, uint64_t now,
		    struct ct_entry **out)
{
	struct ct_entry *e;
	struct ct_tuple reply;

	if (a->have & CT_ATTR_REPLY) {
		reply = a->reply;
		if (reply.family != a->orig.family || reply.l4proto != a->orig.l4proto ||
		    reply.zone != a->orig.zone)
			return -EINVAL;
	} else if (ct_tuple_invert(&a->orig, &reply) < 0) {
		return -EINVAL;
	}
	if (ct_find_expiring(t, &a->orig, now, NULL) ||
	    (!a->bind && ct_find_expiring(t, &reply, now, NULL)))
		return -EEXIST;
	if (t->stats.count >= t->cfg.max_entries && !ct_early_drop(t)) {
		t->stats.insert_failed++;
		return -ENOSPC;
	}
	if (!(e = ct_entry_alloc()))
		return -ENOMEM;
	e->th[0].tuple = a->orig;
	e->th[0].dir = CT_DIR_ORIGINAL;
	e->th[1].tuple = reply;
	e->th[1].dir = CT_DIR_REPLY;
	e->ops = ct_proto_find(a->orig.l4proto);
	e->id = t->next_id++;
	if (((a->have & CT_ATTR_LABELS) ? ct_labels_add(t, e) : (ct_labels_new(t, e), 0)) < 0) {
		free(e);
		return -ENOMEM;
	}
	if (a->have & CT_ATTR_LABELS)
		ct_entry_labels_set(e, &a->labels, &a->labels_mask);
	ct_tstamp_new(t, e);
	ct_tstamp_start(e, now);
	if ((a->have & CT_ATTR_HELPER) && ct_entry_set_helper(t, e, a->helper) < 0) {
		ct_ext_free(e);
		free(e);
		return -ENOMEM;
	}
	if (a->bind) {
		/* the reply as the binding made it must be free, as the kernel checks at insert */
		int r = a->bind(a->bind_priv, e, now);

		if (!r && ct_find_expiring(t, &e->th[1].tuple, now, NULL))
			r = -EEXIST;
		if (r < 0) {
			ct_ext_free(e);
			free(e);
			return r;
		}
	}
	e->status = ((a->have & CT_ATTR_STATUS) ? a->status & SETTABLE : 0) | CT_S_CONFIRMED;
	e->mark = (a->have & CT_ATTR_MARK) ? a->mark : 0;
	e->expires = now + ((a->have & CT_ATTR_TIMEOUT) ? a->timeout : 0);
	proto_init(e, a, now);
	e->use = 1; /* the table's */
	ct_hash_insert(t, e);
	ct_list_add_tail(t, e, (e->status & CT_S_ASSURED) ? CT_LIST_ASSURED : CT_LIST_UNASSURED);
	t->stats.count++;
	t->stats.insert++;
	ct_deliver_events(t, e, CT_EV_NEW, CT_GONE_KILLED);
	if (out)
		*out = e;
	return 0;
}

int ct_entry_change(struct ct_table *t, struct ct_entry *e, const struct ct_entry_attrs *a,
		    uint64_t now)
{
	uint32_t ev = 0;
	struct ct_labels have;

	/* checked first: nothing is changed when a part is refused */
	if ((a->have & CT_ATTR_LABELS) && !ct_entry_labels(e, &have))
		return -ENOSPC; /* made without room for labels (the kernel's answer too) */
	if (a->have & CT_ATTR_STATUS) {
		uint32_t want = a->status & SETTABLE;

		if ((e->status & ONLY_SET) & ~want)
			return -EBUSY; /* SEEN_REPLY and ASSURED cannot be taken back */
		e->status =
		    (e->status & ~(uint32_t)CT_S_FIXED_TIMEOUT) | (want & CT_S_FIXED_TIMEOUT);
		if (want & ~e->status & CT_S_SEEN_REPLY)
			ct_set_status(t, e, CT_S_SEEN_REPLY, CT_EV_REPLY);
		if (want & ~e->status & CT_S_ASSURED)
			ct_set_status(t, e, CT_S_ASSURED, CT_EV_ASSURED);
	}
	if (a->have & CT_ATTR_MARK) {
		uint32_t m = (e->mark & ~a->mark_mask) ^ a->mark;

		if (m != e->mark) {
			e->mark = m;
			ct_event_cache(e, CT_EV_MARK);
		}
	}
	if (a->have & CT_ATTR_LABELS)
		ct_entry_labels_set(e, &a->labels, &a->labels_mask);
	if (a->have & CT_ATTR_TIMEOUT)
		ct_entry_set_timeout(e, now, a->timeout);
	if (a->have & CT_ATTR_PROTO_STATE && e->ops == &ct_proto_tcp &&
	    a->proto_state < CT_TCP_STATE_MAX)
		e->proto.tcp.state = a->proto_state;
	/* the kernel reports every change made through ctnetlink as an update, even one that
	 * changed nothing (a new timeout has no event bit of its own) */
	ev = e->events | CT_EV_PROTOINFO;
	e->events = 0;
	ct_deliver_events(t, e, ev, CT_GONE_KILLED);
	return 0;
}

int ct_expect_create(struct ct_table *t, struct ct_entry *master, const struct ct_expect *x,
		     uint64_t timeout, uint64_t now)
{
	int r = ct_expect_related(t, master, x, now);

	if (!r && timeout) /* ct_expect_related put it last */
		t->helpers->newest->expires = now + timeout;
	return r;
}

struct ct_expect *ct_expect_next(struct ct_table *t, const struct ct_expect *x)
{
	if (x)
		return x->next;
	return t->helpers ? t->helpers->oldest : NULL;
}
