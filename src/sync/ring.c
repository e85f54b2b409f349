// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The transmit and resend queues (FIFOs of message pointers, grown by doubling up to their
 * limit) and the message slots they hold: chunks of SYNC_SLOT_CHUNK slots of SYNC_SLOT_DATA
 * bytes, kept for reuse by the box, so that sending a message allocates nothing once the
 * queues have reached their working size (a longer message is allocated on its own).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync_int.h"

/* ---- rings ------------------------------------------------------------------------------- */

int sync_ring_push(struct sync_ring *r, struct sync_msg *m)
{
	if (r->len == r->cap) {
		uint32_t ncap = r->cap ? r->cap * 2 : 64;
		struct sync_msg **nv;

		if (r->len >= r->max)
			return -ENOSPC;
		if (ncap > r->max)
			ncap = r->max;
		if (!(nv = malloc(sizeof(*nv) * ncap)))
			return -ENOMEM;
		for (uint32_t i = 0; i < r->len; i++)
			nv[i] = r->v[(r->head + i) % r->cap];
		free(r->v);
		r->v = nv;
		r->head = 0;
		r->cap = ncap;
	}
	r->v[(r->head + r->len) % r->cap] = m;
	r->len++;
	return 0;
}

struct sync_msg *sync_ring_pop(struct sync_ring *r)
{
	struct sync_msg *m;

	if (!r->len)
		return NULL;
	m = r->v[r->head];
	r->head = (r->head + 1) % r->cap;
	r->len--;
	return m;
}

struct sync_msg *sync_ring_at(const struct sync_ring *r, uint32_t i)
{
	return r->v[(r->head + i) % r->cap];
}

void sync_ring_free(struct sync *s, struct sync_ring *r)
{
	struct sync_msg *m;

	while ((m = sync_ring_pop(r)))
		sync_msg_free(s, m);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* ---- message slots: chunks of SYNC_SLOT_CHUNK, kept for reuse --------------------------- */

#define SLOT_SIZE ((sizeof(struct sync_msg) + SYNC_SLOT_DATA + 7) & ~(size_t)7)

struct msg_chunk {
	struct msg_chunk *next;
	_Alignas(8) unsigned char mem[SYNC_SLOT_CHUNK * SLOT_SIZE];
};

struct sync_msg *sync_msg_new(struct sync *s, size_t len)
{
	struct sync_msg *m;

	if (len > SYNC_SLOT_DATA) {
		if ((m = malloc(sizeof(*m) + len)))
			m->pooled = false;
		return m;
	}
	if (!s->msg_free) {
		struct msg_chunk *c = malloc(sizeof(*c));

		if (!c)
			return NULL;
		c->next = s->msg_chunks;
		s->msg_chunks = c;
		s->msg_slots += SYNC_SLOT_CHUNK;
		for (unsigned i = SYNC_SLOT_CHUNK; i-- > 0;) {
			m = (struct sync_msg *)(void *)(c->mem + i * SLOT_SIZE);
			m->free_next = s->msg_free;
			s->msg_free = m;
		}
	}
	m = s->msg_free;
	s->msg_free = m->free_next;
	m->pooled = true;
	return m;
}

void sync_msg_free(struct sync *s, struct sync_msg *m)
{
	if (!m)
		return;
	if (!m->pooled) {
		free(m);
		return;
	}
	m->free_next = s->msg_free;
	s->msg_free = m;
}

void sync_msg_pool_free(struct sync *s)
{
	struct msg_chunk *c, *next;

	for (c = s->msg_chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	s->msg_chunks = NULL;
	s->msg_free = NULL;
	s->msg_slots = 0;
}
