// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Events waiting to become messages, one per connection: conntrackd queues the *object*, not
 * the event, and builds the message when it sends it, so several events of one connection
 * between two sends make one message (SYNC-WIRE.md 7.2.3). Here the same:
 *
 *   event NEW/UPD  -> pending[tuple] (type NEW if a NEW is pending, else UPD); nothing built
 *   event DESTROY  -> a snapshot is taken now (the entry goes away); if only a NEW was pending
 *                     the peer never heard of it: both are dropped
 *   flush(now)     -> pending connections whose first event is at least tx_hold old, oldest
 *                     first: looked up again and encoded from their state at that moment
 *
 * So a short connection whose handshake and close fall within one flush costs one message
 * (and its DEL when TIME_WAIT ends). Bounded by tx_max; beyond it an event is sent at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "pkt/hash.h"
#include "sync/sync_int.h"

struct sync_pend {
	struct sync_pend *hnext, *next;
	struct ct_tuple key;
	uint64_t since;
	uint8_t type;
	bool snap; /* f holds the state at the DESTROY */
	struct sync_flow f;
};

#define PEND_BUCKETS 4096u

static uint32_t pend_hash(const struct sync *s, const struct ct_tuple *t)
{
	return (uint32_t)pkt_hash(s->seed, t, sizeof(*t)) & (PEND_BUCKETS - 1);
}

static struct sync_pend **pend_slot(struct sync *s, const struct ct_tuple *t)
{
	struct sync_pend **pp = &s->pend_hash[pend_hash(s, t)];

	while (*pp && !ct_tuple_eq(&(*pp)->key, t))
		pp = &(*pp)->hnext;
	return pp;
}

/* Queue the message of one pending connection (built from its state now, or its snapshot). */
static void pend_emit(struct sync *s, struct sync_pend *p, uint64_t now)
{
	struct ct_entry *e;

	if (p->snap) {
		sync_queue_flow(s, &p->f, p->type);
		return;
	}
	e = ct_lookup(s->ct, &p->key, now, NULL);
	if (e)
		sync_queue_entry(s, e, p->type, now);
}

int sync_pend_event(struct sync *s, const struct ct_entry *e, uint8_t type, uint64_t now)
{
	const struct ct_tuple *t = ct_entry_tuple(e, CT_DIR_ORIGINAL);
	struct sync_pend **pp, *p;

	if (!s->pend_hash && !(s->pend_hash = calloc(PEND_BUCKETS, sizeof(*s->pend_hash))))
		return -ENOMEM;
	/* the tuple is compared too: the entry's memory may be another connection's by now */
	if (s->pend_last && s->pend_last_e == e && ct_tuple_eq(&s->pend_last->key, t)) {
		p = s->pend_last;
		pp = NULL;
	} else {
		pp = pend_slot(s, t);
		p = *pp;
	}
	if (p) {
		if (type == SYNC_T_CT_DEL) {
			if (p->type == SYNC_T_CT_NEW) {
				/* never sent: nothing to tell (it leaves the list at flush) */
				p->type = 0xff;
				if (!pp)
					pp = pend_slot(s, t);
				*pp = p->hnext;
				p->hnext = NULL;
				s->pend_last = NULL;
				s->st.coalesced++;
				return 0;
			}
			p->type = SYNC_T_CT_DEL;
			p->snap = true;
			sync_flow_from_entry(&p->f, e, s->cfg.tcp_window_tracking, now);
		}
		s->st.coalesced++;
		s->pend_last = p;
		s->pend_last_e = e;
		return 0;
	}
	if (s->npend >= s->cfg.tx_max)
		return -ENOSPC;
	if (!(p = malloc(sizeof(*p))))
		return -ENOMEM;
	p->key = *t;
	p->since = now;
	p->type = type;
	p->snap = type == SYNC_T_CT_DEL;
	p->hnext = NULL;
	p->next = NULL;
	if (p->snap)
		sync_flow_from_entry(&p->f, e, s->cfg.tcp_window_tracking, now);
	*pp = p;
	*s->pend_tail = p;
	s->pend_tail = &p->next;
	s->npend++;
	s->pend_last = p;
	s->pend_last_e = e;
	return 0;
}

void sync_pend_flush(struct sync *s, uint64_t now, bool all)
{
	struct sync_pend *p;

	while ((p = s->pend_head) && (all || p->since + s->cfg.tx_hold <= now)) {
		if (p == s->pend_last)
			s->pend_last = NULL;
		s->pend_head = p->next;
		if (!s->pend_head)
			s->pend_tail = &s->pend_head;
		if (p->type != 0xff) {
			struct sync_pend **pp = pend_slot(s, &p->key);

			if (*pp == p)
				*pp = p->hnext;
			pend_emit(s, p, now);
		}
		s->npend--;
		free(p);
	}
}

uint64_t sync_pend_due(const struct sync *s)
{
	return s->pend_head ? s->pend_head->since + s->cfg.tx_hold : UINT64_MAX;
}

void sync_pend_free(struct sync *s)
{
	struct sync_pend *p, *next;

	for (p = s->pend_head; p; p = next) {
		next = p->next;
		free(p);
	}
	free(s->pend_hash);
	s->pend_hash = NULL;
	s->pend_last = NULL;
	s->pend_head = NULL;
	s->pend_tail = &s->pend_head;
	s->npend = 0;
}
