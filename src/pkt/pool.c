// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A pool of packets: struct pkt and one linear buffer in a single block, handed out for a
 * frame copied in and taken back by pkt_free, so a receive loop that copies frames (a capture,
 * a socket) allocates nothing per packet once the pool has warmed up.
 *
 *   block: [ struct pkt (pool = the pool) | buffer of bufsize bytes ]
 *   idle:  a stack of blocks, at most `max`; one more returned is freed (the limit)
 *
 * A lent packet (pkt_pool_lend) is a block whose segment points at memory the caller lends
 * (a frame in an AF_PACKET ring), the block's buffer unused: nothing is copied. pkt_keep
 * copies its bytes into a buffer of its own and takes the block out of the pool (a plain
 * malloc'd packet from then on), so a packet kept past the loan can be freed anywhere.
 *
 * A pool belongs to one thread (a box's data path). Packets may outlive it: pkt_pool_free
 * frees the idle blocks and the pool itself once the last packet out has come back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/pkt.h"

struct pkt_pool {
	struct pkt **idle;
	unsigned nidle, max;
	uint32_t bufsize;
	bool closing; /* pkt_pool_free was called: free each packet as it comes back */
	struct pkt_pool_stats st;
};

struct pkt_pool *pkt_pool_new(unsigned max, uint32_t bufsize)
{
	struct pkt_pool *pp;

	if (bufsize == 0 || bufsize > PKT_MAX_LEN)
		return NULL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return NULL;
	pp->idle = calloc(max ? max : 1, sizeof(*pp->idle));
	if (!pp->idle) {
		free(pp);
		return NULL;
	}
	pp->max = max;
	pp->bufsize = bufsize;
	return pp;
}

static void pool_gone(struct pkt_pool *pp)
{
	free(pp->idle);
	free(pp);
}

void pkt_pool_free(struct pkt_pool *pp)
{
	if (!pp)
		return;
	while (pp->nidle)
		free(pp->idle[--pp->nidle]);
	pp->closing = true;
	if (!pp->st.out)
		pool_gone(pp);
}

/* An idle block or a new one, zeroed, over `data`; NULL on ENOMEM. */
static struct pkt *pool_take(struct pkt_pool *pp, uint8_t *data, uint32_t len)
{
	struct pkt *p;

	pp->st.gets++;
	if (pp->nidle) {
		p = pp->idle[--pp->nidle];
		pp->st.reused++;
	} else {
		p = malloc(sizeof(*p) + pp->bufsize);
		if (!p)
			return NULL;
		pp->st.made++;
	}
	memset(p, 0, sizeof(*p));
	p->pool = pp;
	p->seg[0].data = data ? data : (uint8_t *)(p + 1);
	p->seg[0].len = len;
	p->nsegs = 1;
	p->len = len;
	pp->st.out++;
	return p;
}

struct pkt *pkt_pool_get(struct pkt_pool *pp, const void *data, uint32_t len)
{
	struct pkt *p;

	if (!pp || len > pp->bufsize)
		return pkt_from_bytes(data, len);
	p = pool_take(pp, NULL, len);
	if (p && len)
		memcpy(p->seg[0].data, data, len);
	return p;
}

struct pkt *pkt_pool_lend(struct pkt_pool *pp, uint8_t *data, uint32_t len)
{
	struct pkt *p;

	if (!pp || len > PKT_MAX_LEN)
		return NULL;
	p = pool_take(pp, data, len);
	if (p)
		pp->st.lent++;
	return p;
}

bool pkt_pool_buffer(const struct pkt *p, const uint8_t *data)
{
	return p->pool && data == (const uint8_t *)(p + 1);
}

void pkt_pool_detach(struct pkt *p)
{
	struct pkt_pool *pp = p->pool;

	p->pool = NULL; /* pkt_free: free(p), the whole block */
	pp->st.out--;
	pp->st.kept++;
	if (pp->closing && !pp->st.out)
		pool_gone(pp);
}

/* pkt_free of a packet from the pool (its own buffers, from linearize or splice, released). */
void pkt_pool_put(struct pkt *p)
{
	struct pkt_pool *pp = p->pool;

	pkt_release(p);
	pp->st.out--;
	if (!pp->closing && pp->nidle < pp->max) {
		pp->idle[pp->nidle++] = p;
		return;
	}
	free(p);
	pp->st.freed++;
	if (pp->closing && !pp->st.out)
		pool_gone(pp);
}

void pkt_pool_stats(const struct pkt_pool *pp, struct pkt_pool_stats *st)
{
	*st = pp->st;
	st->idle = pp->nidle;
}
