// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Events waiting to become messages, one record per connection: conntrackd queues the
 * *object*, not the event, and builds the message when it sends it, so several events of one
 * connection between two sends make one message (SYNC-WIRE.md 7.2.3). Here the same, and the
 * notifier does as little as it can (it runs on the data path, several times per connection):
 *
 *   event NEW      -> record (entry pointer), on the "new" list, due after tx_hold (0: at the
 *                     next flush, which in live mode follows every batch)
 *   event UPD      -> merged into the entry's record if there is one (a NEW stays NEW); else
 *                     a record on the "new" list for a handshake's update (the peer needs it
 *                     for a takeover), on the "held" list, due after tx_hold_update, for an
 *                     ASSURED connection's (its close's updates leave together). An update
 *                     leaves out a mark that is 0 and did not change.
 *   event DESTROY  -> if only a NEW was pending, the peer never heard of it: dropped. Else the
 *                     record (or a new one) keeps the original tuple only (what a DEL needs,
 *                     SYNC-WIRE.md 11.1) and moves to the tail of the "new" list, so a DEL
 *                     always leaves before the NEW of a later connection with the same tuple
 *   flush(now)     -> records due, oldest first: a NEW/UPD is built from the entry's state at
 *                     that moment, a DEL from the tuple
 *
 * Records are found by the entry's address (a multiplicative hash, no tuple hashing, no table
 * lookup at flush). That is safe because the table delivers DESTROY before an entry's memory
 * goes, and every DESTROY (also our own commit's and filtered ones) takes the address out.
 * Records come from chunks kept for reuse (no allocation per event). Bounded by tx_max;
 * beyond it an event is sent at once (the caller builds it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "sync/sync_int.h"

struct sync_pend {
	struct sync_pend *hnext;       /* address hash chain (not for a DEL) */
	struct sync_pend *prev, *next; /* its list */
	const struct ct_entry *e;      /* NULL: a DEL of key */
	struct ct_tuple key;
	uint64_t due;
	uint32_t events; /* CT_EV_* since the record was made */
	uint8_t type;
	uint8_t list; /* PEND_NEW, PEND_HELD */
};

#define PEND_CHUNK    256u
#define PEND_HASH_MIN 1024u
#define PEND_HASH_MAX (1u << 20)

struct sync_pend_chunk {
	struct sync_pend_chunk *next;
	struct sync_pend p[PEND_CHUNK];
};

static uint32_t addr_hash(const struct sync *s, const struct ct_entry *e)
{
	uint64_t h = (uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & s->pend_hmask;
}

static struct sync_pend *find(const struct sync *s, const struct ct_entry *e)
{
	struct sync_pend *p;

	if (!s->pend_hash)
		return NULL;
	for (p = s->pend_hash[addr_hash(s, e)]; p && p->e != e; p = p->hnext)
		;
	return p;
}

static void unhash(struct sync *s, struct sync_pend *p)
{
	struct sync_pend **pp = &s->pend_hash[addr_hash(s, p->e)];

	while (*pp != p)
		pp = &(*pp)->hnext;
	*pp = p->hnext;
	p->hnext = NULL;
	p->e = NULL;
}

/* Twice as many buckets when the records outnumber them twice (bounded). 0 or -ENOMEM. */
static int hash_room(struct sync *s)
{
	uint32_t n = s->pend_hash ? (s->pend_hmask + 1) * 2 : PEND_HASH_MIN;
	struct sync_pend **nh;

	if (s->pend_hash && (s->npend < (s->pend_hmask + 1) * 2 || n > PEND_HASH_MAX))
		return 0;
	if (!(nh = calloc(n, sizeof(*nh))))
		return s->pend_hash ? 0 : -ENOMEM;
	if (s->pend_hash) {
		for (uint32_t i = 0; i <= s->pend_hmask; i++) {
			struct sync_pend *p, *next;

			for (p = s->pend_hash[i]; p; p = next) {
				uint64_t h = (uint64_t)(uintptr_t)p->e * 0x9e3779b97f4a7c15ull;

				next = p->hnext;
				p->hnext = nh[(uint32_t)(h >> 32) & (n - 1)];
				nh[(uint32_t)(h >> 32) & (n - 1)] = p;
			}
		}
		free(s->pend_hash);
	}
	s->pend_hash = nh;
	s->pend_hmask = n - 1;
	return 0;
}

static void list_add(struct sync *s, struct sync_pend *p, unsigned list)
{
	struct sync_pend_list *l = &s->pend_q[list];

	p->list = (uint8_t)list;
	p->next = NULL;
	p->prev = l->tail;
	if (l->tail)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
}

static void list_del(struct sync *s, struct sync_pend *p)
{
	struct sync_pend_list *l = &s->pend_q[p->list];

	if (p->prev)
		p->prev->next = p->next;
	else
		l->head = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		l->tail = p->prev;
}

static struct sync_pend *rec_get(struct sync *s)
{
	struct sync_pend *p = s->pend_free;

	if (!p) {
		struct sync_pend_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = s->pend_chunks;
		s->pend_chunks = c;
		for (unsigned i = PEND_CHUNK; i-- > 1;) {
			c->p[i].next = s->pend_free;
			s->pend_free = &c->p[i];
		}
		p = &c->p[0];
	} else {
		s->pend_free = p->next;
	}
	s->npend++;
	return p;
}

static void rec_put(struct sync *s, struct sync_pend *p)
{
	if (p == s->pend_last) {
		s->pend_last = NULL;
		s->pend_last_e = NULL;
		s->pend_last_ev = NULL;
	}
	p->next = s->pend_free;
	s->pend_free = p;
	s->npend--;
}

/* A DEL record of e's tuple at the tail of the "new" list. */
static void make_del(struct sync *s, struct sync_pend *p, const struct ct_entry *e, uint64_t now)
{
	p->key = *ct_entry_tuple(e, CT_DIR_ORIGINAL);
	p->type = SYNC_T_CT_DEL;
	p->due = now + s->cfg.tx_hold;
	list_add(s, p, PEND_NEW);
}

int sync_pend_event(struct sync *s, const struct ct_entry *e, uint8_t type, uint32_t events,
		    uint64_t now)
{
	struct sync_pend *p = s->pend_last;

	if (!p || p->e != e)
		p = find(s, e);
	if (p) {
		p->events |= events;
		s->st.coalesced++;
		if (type != SYNC_T_CT_DEL) {
			s->pend_last = p;
			s->pend_last_e = e;
			s->pend_last_ev = &p->events;
			return 0;
		}
		unhash(s, p);
		list_del(s, p);
		if (p->type == SYNC_T_CT_NEW) {
			rec_put(s, p); /* never sent: nothing to tell */
			return 0;
		}
		s->pend_last = NULL;
		s->pend_last_e = NULL;
		s->pend_last_ev = NULL;
		make_del(s, p, e, now);
		return 0;
	}
	if (s->npend >= s->cfg.tx_max || hash_room(s) < 0 || !(p = rec_get(s)))
		return -ENOSPC;
	if (type == SYNC_T_CT_DEL) {
		p->e = NULL;
		p->hnext = NULL;
		make_del(s, p, e, now);
		return 0;
	}
	p->e = e;
	p->type = type;
	p->events = events;
	if (type == SYNC_T_CT_UPD && (ct_entry_status(e) & CT_S_ASSURED) &&
	    !(events & (CT_EV_REPLY | CT_EV_ASSURED))) {
		p->due = now + s->cfg.tx_hold_update; /* its close, a mark: not urgent */
		list_add(s, p, PEND_HELD);
	} else {
		p->due = now + s->cfg.tx_hold; /* a new connection, its handshake */
		list_add(s, p, PEND_NEW);
	}
	{
		uint32_t h = addr_hash(s, e);

		p->hnext = s->pend_hash[h];
		s->pend_hash[h] = p;
	}
	s->pend_last = p;
	s->pend_last_e = e;
	s->pend_last_ev = &p->events;
	return 0;
}

void sync_pend_forget(struct sync *s, const struct ct_entry *e)
{
	struct sync_pend *p = find(s, e);

	if (p) {
		unhash(s, p);
		list_del(s, p);
		rec_put(s, p);
	}
}

void sync_pend_flush(struct sync *s, uint64_t now, bool all)
{
	for (unsigned l = 0; l < 2; l++) {
		struct sync_pend *p;

		while ((p = s->pend_q[l].head) && (all || p->due <= now)) {
			const struct ct_entry *e = p->e;

			list_del(s, p);
			if (e) {
				struct sync_flow f;

				unhash(s, p);
				sync_flow_from_entry(&f, e, s->cfg.tcp_window_tracking, now);
				/* an update carries no mark that is 0 and did not change: the peer
				 * has it (an UPD is merged attribute by attribute) */
				if (p->type == SYNC_T_CT_UPD && !f.mark &&
				    !(p->events & CT_EV_MARK))
					f.have &= ~(1ull << SA_MARK);
				sync_queue_flow(s, &f, p->type);
			} else {
				struct sync_flow f;

				sync_flow_del(&f, &p->key);
				sync_queue_flow(s, &f, SYNC_T_CT_DEL);
			}
			rec_put(s, p);
		}
	}
}

uint64_t sync_pend_due(const struct sync *s)
{
	uint64_t a = s->pend_q[0].head ? s->pend_q[0].head->due : UINT64_MAX;
	uint64_t b = s->pend_q[1].head ? s->pend_q[1].head->due : UINT64_MAX;

	return a < b ? a : b;
}

void sync_pend_free(struct sync *s)
{
	struct sync_pend_chunk *c, *next;

	for (c = s->pend_chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s->pend_hash);
	s->pend_hash = NULL;
	s->pend_hmask = 0;
	s->pend_chunks = NULL;
	s->pend_free = NULL;
	s->pend_last = NULL;
	s->pend_last_e = NULL;
	s->pend_last_ev = NULL;
	memset(s->pend_q, 0, sizeof(s->pend_q));
	s->npend = 0;
}
