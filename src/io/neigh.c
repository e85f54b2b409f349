/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Neighbour table: a pool of entries hashed by (interface, family, address), each with a small
 * ring of packets waiting for its MAC. States and bounds are drawn in neigh.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "io/neigh.h"

#define NEIGH_BUCKETS 256 /* power of two */
#define NIL	      UINT32_MAX

enum neigh_state { N_FREE, N_INCOMPLETE, N_REACHABLE, N_STALE };

struct neigh_entry {
	enum neigh_state state;
	int ifindex;
	int family;
	union pt_addr addr;
	uint8_t mac[6];
	uint64_t confirmed;   /* last answer */
	uint64_t next_probe;  /* INCOMPLETE / STALE probing: when to ask again; 0: not probing */
	unsigned probes;      /* asked so far in this round */
	uint32_t next;	      /* hash chain, or free list */
	unsigned qhead, qlen; /* ring of waiting packets: t->queue[idx * queue_len ...] */
};

struct neigh_table {
	struct neigh_params p;
	struct neigh_ops ops;
	void *arg;
	struct neigh_entry *e;
	struct pkt **queue;
	uint32_t bucket[NEIGH_BUCKETS];
	uint32_t free_head;
	struct neigh_stats st;
};

static uint32_t hash(int ifindex, int family, const union pt_addr *a)
{
	uint32_t h = 2166136261u ^ (uint32_t)ifindex ^ ((uint32_t)family << 8);

	for (unsigned i = 0; i < 16; i++)
		h = (h ^ a->b[i]) * 16777619u;
	return h & (NEIGH_BUCKETS - 1);
}

struct neigh_table *neigh_new(const struct neigh_params *params, const struct neigh_ops *ops,
			      void *arg)
{
	struct neigh_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (params)
		t->p = *params;
	if (!t->p.max_entries)
		t->p.max_entries = 1024;
	if (!t->p.queue_len)
		t->p.queue_len = 16;
	if (!t->p.retrans_ns)
		t->p.retrans_ns = 1000000000ull;
	if (!t->p.max_probes)
		t->p.max_probes = 3;
	if (!t->p.reachable_ns)
		t->p.reachable_ns = 30000000000ull;
	if (ops)
		t->ops = *ops;
	t->arg = arg;
	t->e = calloc(t->p.max_entries, sizeof(*t->e));
	t->queue = calloc((size_t)t->p.max_entries * t->p.queue_len, sizeof(*t->queue));
	if (!t->e || !t->queue) {
		neigh_free(t);
		return NULL;
	}
	for (uint32_t i = 0; i < NEIGH_BUCKETS; i++)
		t->bucket[i] = NIL;
	for (uint32_t i = 0; i < t->p.max_entries; i++)
		t->e[i].next = i + 1 < t->p.max_entries ? i + 1 : NIL;
	t->free_head = 0;
	return t;
}

static struct pkt **qslot(struct neigh_table *t, uint32_t idx, unsigned pos)
{
	return &t->queue[(size_t)idx * t->p.queue_len + pos % t->p.queue_len];
}

/* Take the oldest waiting packet off an entry's queue; NULL when empty. */
static struct pkt *dequeue(struct neigh_table *t, uint32_t idx)
{
	struct neigh_entry *n = &t->e[idx];
	struct pkt *p;

	if (!n->qlen)
		return NULL;
	p = *qslot(t, idx, n->qhead);
	n->qhead = (n->qhead + 1) % t->p.queue_len;
	n->qlen--;
	return p;
}

static void drop_pkt(struct neigh_table *t, int ifindex, struct pkt *p, bool unresolved)
{
	t->st.queue_drops++;
	if (t->ops.drop)
		t->ops.drop(t->arg, ifindex, p, unresolved);
	else
		pkt_free(p);
}

void neigh_free(struct neigh_table *t)
{
	if (!t)
		return;
	if (t->e && t->queue)
		for (uint32_t i = 0; i < t->p.max_entries; i++) {
			struct pkt *p;

			while ((p = dequeue(t, i)))
				pkt_free(p);
		}
	free(t->queue);
	free(t->e);
	free(t);
}

static uint32_t find(const struct neigh_table *t, int ifindex, int family, const union pt_addr *a)
{
	for (uint32_t i = t->bucket[hash(ifindex, family, a)]; i != NIL; i = t->e[i].next) {
		const struct neigh_entry *n = &t->e[i];

		if (n->ifindex == ifindex && n->family == family && pt_addr_eq(&n->addr, a))
			return i;
	}
	return NIL;
}

static uint32_t create(struct neigh_table *t, int ifindex, int family, const union pt_addr *a)
{
	uint32_t i = t->free_head, h = hash(ifindex, family, a);
	struct neigh_entry *n;

	if (i == NIL) {
		t->st.table_full++;
		return NIL;
	}
	n = &t->e[i];
	t->free_head = n->next;
	memset(n, 0, sizeof(*n));
	n->ifindex = ifindex;
	n->family = family;
	n->addr = *a;
	n->state = N_INCOMPLETE;
	n->next = t->bucket[h];
	t->bucket[h] = i;
	t->st.entries++;
	return i;
}

static void destroy(struct neigh_table *t, uint32_t idx, bool failed)
{
	struct neigh_entry *n = &t->e[idx];
	uint32_t *pp = &t->bucket[hash(n->ifindex, n->family, &n->addr)];
	struct pkt *p;

	while ((p = dequeue(t, idx)))
		drop_pkt(t, n->ifindex, p, failed);
	if (failed)
		t->st.failed++;
	while (*pp != idx)
		pp = &t->e[*pp].next;
	*pp = n->next;
	n->state = N_FREE;
	n->next = t->free_head;
	t->free_head = idx;
	t->st.entries--;
}

static void probe(struct neigh_table *t, struct neigh_entry *n, bool unicast, uint64_t now)
{
	n->probes++;
	n->next_probe = now + t->p.retrans_ns;
	t->st.probes++;
	if (t->ops.probe)
		t->ops.probe(t->arg, n->ifindex, n->family, &n->addr, unicast ? n->mac : NULL);
}

enum neigh_result neigh_output(struct neigh_table *t, int ifindex, int family,
			       const union pt_addr *addr, struct pkt *p, uint64_t now,
			       uint8_t mac[6])
{
	uint32_t idx = find(t, ifindex, family, addr);
	struct neigh_entry *n;

	if (idx == NIL) {
		idx = create(t, ifindex, family, addr);
		if (idx == NIL) {
			drop_pkt(t, ifindex, p, true);
			return NEIGH_DROPPED;
		}
		probe(t, &t->e[idx], false, now);
	}
	n = &t->e[idx];
	if (n->state == N_INCOMPLETE) {
		/* it waits past the burst: a frame lent by a receive ring is copied now */
		if (pkt_keep(p) < 0) {
			drop_pkt(t, ifindex, p, false);
			return NEIGH_DROPPED;
		}
		if (n->qlen == t->p.queue_len)
			drop_pkt(t, ifindex, dequeue(t, idx), false);
		*qslot(t, idx, n->qhead + n->qlen) = p;
		n->qlen++;
		t->st.queued++;
		return NEIGH_QUEUED;
	}
	if (n->state == N_REACHABLE && now - n->confirmed >= t->p.reachable_ns)
		n->state = N_STALE;
	/* Stale and used: confirm with a unicast probe, keep sending meanwhile (RFC 4861 7.3.3
	 * DELAY/PROBE, folded into one state). */
	if (n->state == N_STALE && !n->next_probe) {
		n->probes = 0;
		probe(t, n, true, now);
	}
	memcpy(mac, n->mac, 6);
	return NEIGH_SEND;
}

void neigh_update(struct neigh_table *t, int ifindex, int family, const union pt_addr *addr,
		  const uint8_t mac[6], bool create_it, uint64_t now)
{
	uint32_t idx = find(t, ifindex, family, addr);
	struct neigh_entry *n;
	struct pkt *p;

	if (idx == NIL) {
		if (!create_it)
			return;
		idx = create(t, ifindex, family, addr);
		if (idx == NIL)
			return;
	}
	n = &t->e[idx];
	if (n->state == N_INCOMPLETE)
		t->st.resolved++;
	memcpy(n->mac, mac, 6);
	n->state = N_REACHABLE;
	n->confirmed = now;
	n->next_probe = 0;
	n->probes = 0;
	while ((p = dequeue(t, idx))) {
		if (t->ops.send)
			t->ops.send(t->arg, ifindex, p, n->mac);
		else
			pkt_free(p);
	}
}

void neigh_tick(struct neigh_table *t, uint64_t now)
{
	for (uint32_t i = 0; i < t->p.max_entries; i++) {
		struct neigh_entry *n = &t->e[i];

		if (n->state == N_FREE)
			continue;
		if (n->state == N_REACHABLE && now - n->confirmed >= t->p.reachable_ns)
			n->state = N_STALE;
		if (n->next_probe && now >= n->next_probe) {
			if (n->probes >= t->p.max_probes) {
				/* INCOMPLETE: resolution failed. STALE: the neighbour went away. */
				destroy(t, i, n->state == N_INCOMPLETE);
				continue;
			}
			probe(t, n, n->state == N_STALE, now);
		}
		/* Stale and unused for long: forget it, as the kernel's gc does. */
		if (n->state == N_STALE && !n->next_probe &&
		    now - n->confirmed >= 2 * t->p.reachable_ns)
			destroy(t, i, false);
	}
}

int neigh_lookup(const struct neigh_table *t, int ifindex, int family, const union pt_addr *addr,
		 uint8_t mac[6])
{
	uint32_t idx = find(t, ifindex, family, addr);

	if (idx == NIL || t->e[idx].state == N_INCOMPLETE)
		return -ENOENT;
	memcpy(mac, t->e[idx].mac, 6);
	return 0;
}

void neigh_get_stats(const struct neigh_table *t, struct neigh_stats *st)
{
	*st = t->st;
}

void neigh_print(const struct neigh_table *t, FILE *f, uint64_t now,
		 const char *(*ifname)(void *arg, int ifindex), void *arg)
{
	static const char *const names[] = {[N_FREE] = "FREE",
					    [N_INCOMPLETE] = "INCOMPLETE",
					    [N_REACHABLE] = "REACHABLE",
					    [N_STALE] = "STALE"};

	for (uint32_t i = 0; i < t->p.max_entries; i++) {
		const struct neigh_entry *n = &t->e[i];
		enum neigh_state s = n->state;
		char a[64];

		if (s == N_FREE)
			continue;
		if (s == N_REACHABLE && now - n->confirmed >= t->p.reachable_ns)
			s = N_STALE;
		fprintf(f, "%s dev %s", pt_addr_str(n->family, &n->addr, a, sizeof(a)),
			ifname ? ifname(arg, n->ifindex) : "?");
		if (s != N_INCOMPLETE)
			fprintf(f, " lladdr %02x:%02x:%02x:%02x:%02x:%02x", n->mac[0], n->mac[1],
				n->mac[2], n->mac[3], n->mac[4], n->mac[5]);
		fprintf(f, " %s", names[s]);
		if (s == N_INCOMPLETE)
			fprintf(f, " (%u queued)\n", n->qlen);
		else
			fprintf(f, " (age %" PRIu64 ".%01" PRIu64 " s)\n",
				(uint64_t)((now - n->confirmed) / 1000000000u),
				(uint64_t)((now - n->confirmed) / 100000000u % 10));
	}
}
