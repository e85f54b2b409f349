// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lists of -m recent (ext/recent_table.h): named tables, each a hash of addresses with an
 * LRU order and a ring of packet times per address, as xt_recent keeps them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/recent_table.h"
#include "pkt/hash.h"

struct recent_tables *recent_tables_new(const uint64_t key[2])
{
	struct recent_tables *ts = calloc(1, sizeof(*ts));

	if (ts) {
		ts->key[0] = key[0];
		ts->key[1] = key[1];
	}
	return ts;
}

static void table_free(struct recent_table *t)
{
	recent_flush(t);
	free(t);
}

void recent_tables_free(struct recent_tables *ts)
{
	if (!ts)
		return;
	for (unsigned i = 0; i < ts->ntables; i++)
		table_free(ts->table[i]);
	free(ts);
}

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

struct recent_table *recent_table_get(struct recent_tables *ts, const char *name, bool create,
				      unsigned nstamps)
{
	struct recent_table *t;
	unsigned want =
	    pow2_at_least(nstamps > RECENT_PKT_LIST_TOT ? nstamps : RECENT_PKT_LIST_TOT);

	for (unsigned i = 0; i < ts->ntables; i++) {
		t = ts->table[i];
		if (!strcmp(t->name, name)) {
			/* a rule with a larger --hitcount than the table was made for: later
			 * entries keep more stamps, older ones grow when next seen */
			if (create && want > t->nstamps_max && want <= RECENT_MAX_NSTAMPS)
				t->nstamps_max = want;
			return t;
		}
	}
	if (!create || strlen(name) >= RECENT_NAME_LEN)
		return NULL;
	if (ts->ntables == RECENT_MAX_TABLES) {
		ts->tables_refused++;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		ts->tables_refused++;
		return NULL;
	}
	strcpy(t->name, name);
	t->key[0] = ts->key[0];
	t->key[1] = ts->key[1];
	t->nstamps_max = want > RECENT_MAX_NSTAMPS ? RECENT_MAX_NSTAMPS : want;
	ts->table[ts->ntables++] = t;
	return t;
}

int recent_table_remove(struct recent_tables *ts, const char *name)
{
	for (unsigned i = 0; i < ts->ntables; i++)
		if (!strcmp(ts->table[i]->name, name)) {
			table_free(ts->table[i]);
			memmove(&ts->table[i], &ts->table[i + 1],
				(ts->ntables - i - 1) * sizeof(ts->table[0]));
			ts->ntables--;
			return 0;
		}
	return -ENOENT;
}

/* Under the box's key (copied into each table), so no sender aims addresses at one bucket. */
static unsigned bucket_of(const struct recent_table *t, int family, const union pt_addr *a)
{
	uint8_t k[17];

	memcpy(k, a, 16);
	k[16] = (uint8_t)family;
	return (unsigned)(pkt_hash(t->key, k, sizeof(k)) % RECENT_BUCKETS);
}

struct recent_entry *recent_lookup(struct recent_table *t, int family, const union pt_addr *a,
				   uint8_t ttl)
{
	for (struct recent_entry *e = t->bucket[bucket_of(t, family, a)]; e; e = e->hnext)
		if (e->family == family && pt_addr_eq(&e->addr, a) && (!ttl || e->ttl == ttl))
			return e;
	return NULL;
}

static void lru_unlink(struct recent_table *t, struct recent_entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		t->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		t->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void lru_append(struct recent_table *t, struct recent_entry *e)
{
	e->lru_prev = t->lru_tail;
	e->lru_next = NULL;
	if (t->lru_tail)
		t->lru_tail->lru_next = e;
	else
		t->lru_head = e;
	t->lru_tail = e;
}

void recent_remove(struct recent_table *t, struct recent_entry *e)
{
	struct recent_entry **pp = &t->bucket[bucket_of(t, e->family, &e->addr)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	lru_unlink(t, e);
	t->count--;
	free(e->stamps);
	free(e);
}

struct recent_entry *recent_add(struct recent_table *t, int family, const union pt_addr *a,
				uint8_t ttl, uint64_t now)
{
	struct recent_entry *e;
	unsigned b, cap;

	if (t->count >= RECENT_LIST_TOT && t->lru_head) {
		recent_remove(t, t->lru_head);
		t->stats.entries_evicted++;
	}
	e = calloc(1, sizeof(*e));
	cap = t->nstamps_max < RECENT_FIRST_CAP ? t->nstamps_max : RECENT_FIRST_CAP;
	if (e)
		e->stamps = calloc(cap, sizeof(*e->stamps));
	if (!e || !e->stamps) {
		free(e);
		t->stats.alloc_failed++;
		return NULL;
	}
	e->cap = cap;
	e->family = (uint8_t)family;
	e->addr = *a;
	e->ttl = ttl;
	e->stamps[0] = now;
	e->nstamps = 1;
	e->index = 1;
	b = bucket_of(t, family, a);
	e->hnext = t->bucket[b];
	t->bucket[b] = e;
	lru_append(t, e);
	t->count++;
	return e;
}

/* A ring that is full and may hold more grows (doubling, up to the table's nstamps_max; the
 * table's may have grown since): the stamps are kept oldest first. */
static void grow(struct recent_table *t, struct recent_entry *e)
{
	unsigned ncap = e->cap * 2u < t->nstamps_max ? e->cap * 2u : t->nstamps_max;
	uint64_t *n = calloc(ncap, sizeof(*n));
	unsigned k = 0;

	if (!n)
		return; /* keeps the ring it has */
	for (unsigned i = 0; i < e->nstamps; i++)
		n[k++] = e->stamps[(e->index + e->cap - e->nstamps + i) % e->cap];
	free(e->stamps);
	e->stamps = n;
	e->cap = ncap;
	e->index = (uint32_t)k;
}

void recent_touch(struct recent_table *t, struct recent_entry *e, uint64_t now)
{
	if (e->nstamps == e->cap && e->cap < t->nstamps_max)
		grow(t, e);
	e->index %= e->cap;
	e->stamps[e->index++] = now;
	if (e->index > e->nstamps)
		e->nstamps = e->index;
	lru_unlink(t, e);
	lru_append(t, e);
}

static uint64_t last_stamp(const struct recent_entry *e)
{
	return e->stamps[(e->index + e->cap - 1) % e->cap];
}

void recent_reap(struct recent_table *t, uint64_t before, const struct recent_entry *keep)
{
	struct recent_entry *old = t->lru_head;

	if (old && old != keep && last_stamp(old) < before)
		recent_remove(t, old);
}

void recent_flush(struct recent_table *t)
{
	while (t->lru_head)
		recent_remove(t, t->lru_head);
}

static unsigned long long jiffies(uint64_t ns)
{
	return (unsigned long long)(ns / (1000000000ull / RECENT_HZ));
}

void recent_table_print(const struct recent_table *t, FILE *f)
{
	char buf[64];

	for (const struct recent_entry *e = t->lru_head; e; e = e->lru_next) {
		fprintf(f, "src=%s ttl: %u last_seen: %llu oldest_pkt: %u",
			pt_addr_str(e->family, &e->addr, buf, sizeof(buf)), e->ttl,
			jiffies(last_stamp(e)), e->index);
		for (unsigned i = 0; i < e->nstamps; i++)
			fprintf(f, "%s %llu", i ? "," : "", jiffies(e->stamps[i]));
		fputc('\n', f);
	}
}

int recent_table_write(struct recent_table *t, const char *cmd, uint64_t now, char *err,
		       size_t errlen)
{
	union pt_addr a;
	struct recent_entry *e;
	int family;

	if (!strcmp(cmd, "/") || !strcmp(cmd, "clear")) {
		recent_flush(t);
		return 0;
	}
	if (cmd[0] != '+' && cmd[0] != '-') {
		snprintf(err, errlen, "need +ADDRESS, -ADDRESS or /, not '%s'", cmd);
		return -EINVAL;
	}
	family = pt_addr_parse(cmd + 1, &a);
	if (family != AF_INET && family != AF_INET6) {
		snprintf(err, errlen, "'%s' is not an address", cmd + 1);
		return -EINVAL;
	}
	e = recent_lookup(t, family, &a, 0);
	if (cmd[0] == '-') {
		if (e)
			recent_remove(t, e);
		return 0;
	}
	if (e) {
		recent_touch(t, e, now);
		return 0;
	}
	if (!recent_add(t, family, &a, 0, now)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}
