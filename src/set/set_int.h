/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside src/set: the set and element layout (set.h draws it), shared by the storage
 * (store.c), the table (table.c), packets (pkt.c) and text (text.c, restore.c).
 *
 *   struct set_elem  | next | expires | flags | data: [counters 16][skbinfo 16][comment 8][key] |
 *
 * Only the extensions the set was created with take room; the key is packed (set.h).
 */
#ifndef SET_SET_INT_H
#define SET_SET_INT_H

#include "set/set.h"

#define SET_NS_PER_S  1000000000ull
#define SET_KEY_MAX   48 /* 16 + 1 + 3 + 16 + 1 ... the longest packed key */
#define SET_HASH_MIN  64u
#define SET_HASH_MAX  (1u << 24)
#define SET_CHAIN_AVG 1u /* a hash doubles its buckets beyond one element per bucket on average */

enum { SET_EF_NOMATCH = 1 << 0 };

struct set_elem {
	struct set_elem *next;
	uint64_t expires; /* box ns, 0 = never */
	uint8_t flags;	  /* SET_EF_* */
	unsigned char data[] __attribute__((aligned(8)));
};

struct set_counters {
	uint64_t packets, bytes;
};

struct set_skbinfo {
	uint32_t mark, mask, prio;
	uint16_t queue;
};

struct set {
	struct set_create c; /* type, family and options as created (hashsize: the current) */
	uint32_t count;
	size_t mem;	 /* bytes of elements and arrays */
	uint8_t alen;	 /* address bytes: 4 or 16 */
	uint16_t keylen; /* packed key bytes */
	uint16_t off_cnt, off_skb, off_comment, off_key, elem_size;
	int netdim;	 /* index of the SET_D_NET dimension, -1 if none */
	uint64_t key[2]; /* the box's key with initval mixed in */
	/* hash */
	struct set_elem **bucket;
	uint32_t nbuckets;
	uint32_t netcount[129]; /* elements per prefix length of the net dimension */
	uint8_t cidrs[129];	/* prefix lengths present, longest first */
	uint8_t ncidrs;
	/* bitmap: one slot per value; list: members in order */
	struct set_elem **slot;
	uint32_t nslot, nmember;
	uint32_t sweep_pos;
};

/* A slot holds the name and the rules' references; its set may move (swap). */
struct set_table {
	uint64_t key[2];
	struct set *slot[SET_MAX_SETS];
	char name[SET_MAX_SETS][SET_NAME_MAX];
	unsigned rule_refs[2][SET_MAX_SETS]; /* per family: the installed IPv4, IPv6 rulesets */
	unsigned nslots;		     /* highest used + 1 */
	unsigned sweep_set;
	/* counters: adds refused by a full hash, elements forceadd pushed out, expired freed */
	uint64_t stat_full, stat_forced, stat_expired;
};

/* store.c */
struct set *set_alloc(const struct set_create *c, const uint64_t key[2]);
struct set *set_clone(const struct set *s);
/* How many list:set sets hold set `id`. */
unsigned set_list_refs(const struct set_table *t, int id);
void set_free_elems(struct set_table *t, struct set *s);
void set_free(struct set_table *t, struct set *s);
void set_key_pack(const struct set *s, const struct set_key *k, uint8_t *out);
void set_key_unpack(const struct set *s, const uint8_t *in, struct set_key *k);
bool set_elem_live(const struct set_elem *e, uint64_t now);
struct set_elem *set_lookup(struct set *s, const struct set_key *k, uint64_t now);
/* Is exactly this key in s (nomatch or not)? 1, 0, or -SET_E_RANGE. Not for list:set. */
int set_has(struct set *s, const struct set_key *k, uint64_t now);
void set_sweep_one(struct set_table *t, struct set *s, uint64_t now, unsigned budget);
/* Every live element (hash, bitmap or list order) to fn. */
void set_walk(const struct set *s, uint64_t now, void (*fn)(void *arg, const struct set_elem *e),
	      void *arg);

static inline struct set_counters *set_elem_counters(const struct set *s, struct set_elem *e)
{
	return s->c.counters ? (struct set_counters *)(void *)(e->data + s->off_cnt) : NULL;
}

static inline struct set_skbinfo *set_elem_skbinfo(const struct set *s, struct set_elem *e)
{
	return s->c.skbinfo ? (struct set_skbinfo *)(void *)(e->data + s->off_skb) : NULL;
}

static inline char **set_elem_comment(const struct set *s, struct set_elem *e)
{
	return s->c.comment ? (char **)(void *)(e->data + s->off_comment) : NULL;
}

#endif
