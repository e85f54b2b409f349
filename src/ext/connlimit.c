// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m connlimit --connlimit-upto N | --connlimit-above N [--connlimit-mask LEN]
 *              [--connlimit-saddr | --connlimit-daddr]
 *
 * How many connections share the packet's source (or destination) address under the mask,
 * as xt_connlimit / nf_conncount count them: every rule remembers the connections that
 * passed it, grouped by key (masked address, zone), and forgets one when it is no longer in
 * the box's conntrack table (expired, killed, flushed, a reused tuple) or is a TCP connection
 * in TIME_WAIT/CLOSE. The packet's own connection counts. above N: matches when the count is
 * > N; upto N: when it is <= N (`! --connlimit-above` is upto and prints so).
 *
 *   per rule:  bucket[hash(key)] -> key -> conns[] = {original tuple, entry id}
 *
 * A packet looks its key up, checks that key's remembered connections against the table
 * (one ct_lookup each: the work per packet is the number of connections of that one key,
 * not of the table) and adds its own. One other bucket is swept per packet, so keys whose
 * connections all died are freed without traffic for them. Memory is bounded
 * (CONNLIMIT_MAX_CONNS per rule); beyond it the packet is dropped, as the kernel hotdrops
 * when it cannot count.
 *
 * Printed as iptables-save 1.8.9 prints it: `--connlimit-above 2 --connlimit-mask 32
 * --connlimit-saddr`, always with the mask and the direction. The mask is a prefix length or
 * (IPv4, IPv6) an address mask; IPv4 takes any 32-bit number and clamps it to 32, a
 * non-contiguous mask counts as the full length (what iptables 1.8.9 stores).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "pkt/hash.h"
#include "rules/ext.h"

#define CONNLIMIT_BUCKETS   1024u
#define CONNLIMIT_MAX_CONNS (1u << 20)

struct connlimit_conn {
	struct ct_tuple tuple;
	uint64_t id; /* the ct entry's id; 0: the packet had no entry */
};

struct connlimit_key {
	struct connlimit_key *next;
	union pt_addr addr; /* masked */
	uint16_t zone;
	uint32_t n, cap;
	struct connlimit_conn *conns;
};

struct connlimit_state {
	struct connlimit_key *bucket[CONNLIMIT_BUCKETS];
	uint32_t sweep_next;
	uint32_t total; /* connections remembered */
	bool keyed;
	uint64_t key[2]; /* pkt_hash key: the box's, taken at the first packet */
};

struct connlimit_info {
	uint32_t limit;
	uint32_t masklen;
	union pt_addr mask;
	bool upto;
	struct connlimit_state *st;
};

enum { O_UPTO, O_ABOVE, O_MASK, O_SADDR, O_DADDR, O_NUM };

static const struct ext_opt connlimit_opts[] = {
    [O_UPTO] = {.name = "connlimit-upto",
		.type = EXT_T_U32,
		.flags = EXT_OPT_INVERT,
		EXT_FIELD(struct connlimit_info, limit),
		.excl = 1u << O_ABOVE},
    [O_ABOVE] = {.name = "connlimit-above",
		 .type = EXT_T_U32,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct connlimit_info, limit),
		 .excl = 1u << O_UPTO},
    [O_MASK] = {.name = "connlimit-mask", .type = EXT_T_CUSTOM, .print_as = -1},
    [O_SADDR] = {.name = "connlimit-saddr", .type = EXT_T_NONE, .excl = 1u << O_DADDR},
    [O_DADDR] = {.name = "connlimit-daddr", .type = EXT_T_NONE, .excl = 1u << O_SADDR},
};

/* LEN, or an address mask of the rule's family; see the header for the odd cases. */
static int parse_mask(int family, const char *arg, uint32_t *len)
{
	union pt_addr m;
	uint64_t v;
	int maxlen = family == AF_INET ? 32 : 128, l;

	if (ext_parse_uint(arg, 0, family == AF_INET ? UINT32_MAX : 128, &v) == 0) {
		*len = v > (uint64_t)maxlen ? (uint32_t)maxlen : (uint32_t)v;
		return 0;
	}
	if (pt_addr_parse(arg, &m) != family)
		return -EINVAL;
	l = pt_mask_len(family, &m);
	*len = l < 0 ? (uint32_t)maxlen : (uint32_t)l;
	return 0;
}

static void connlimit_init(struct ext_instance *inst)
{
	struct connlimit_info *ci = inst->data;

	ci->masklen = UINT32_MAX; /* not given: the family's full length, set by check */
}

static int connlimit_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			   const char *arg)
{
	struct connlimit_info *ci = inst->data;

	if (opt != O_MASK)
		return 0;
	if (parse_mask(ctx->family, arg, &ci->masklen) < 0) {
		snprintf(ctx->err, ctx->errlen, "connlimit: bad mask \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

static int connlimit_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct connlimit_info *ci = inst->data;
	uint32_t maxlen = ctx->family == AF_INET ? 32 : 128;

	if (!(inst->seen & ((1u << O_UPTO) | (1u << O_ABOVE)))) {
		snprintf(
		    ctx->err, ctx->errlen,
		    "connlimit: You must specify \"--connlimit-above\" or \"--connlimit-upto\"");
		return -EINVAL;
	}
	if (ci->masklen > maxlen)
		ci->masklen = maxlen;
	if (pt_mask_from_len(ctx->family, (int)ci->masklen, &ci->mask) < 0)
		return -EINVAL;
	/* upto, or an inverted above; an inverted upto is above */
	ci->upto = (inst->seen & (1u << O_UPTO)) ? !(inst->inv & (1u << O_UPTO))
						 : !!(inst->inv & (1u << O_ABOVE));
	if (!ci->st) {
		ci->st = calloc(1, sizeof(*ci->st));
		if (!ci->st) {
			snprintf(ctx->err, ctx->errlen, "connlimit: out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

static void connlimit_destroy(struct ext_instance *inst)
{
	struct connlimit_info *ci = inst->data;

	if (!ci->st)
		return;
	for (unsigned b = 0; b < CONNLIMIT_BUCKETS; b++) {
		while (ci->st->bucket[b]) {
			struct connlimit_key *k = ci->st->bucket[b];

			ci->st->bucket[b] = k->next;
			free(k->conns);
			free(k);
		}
	}
	free(ci->st);
	ci->st = NULL;
}

static void connlimit_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct connlimit_info *ci = inst->data;
	uint32_t len = ci->masklen;

	if (len == UINT32_MAX || len > (pr->family == AF_INET ? 32u : 128u))
		len = pr->family == AF_INET ? 32 : 128;
	fprintf(pr->f, " --connlimit-%s %u --connlimit-mask %u --connlimit-%s",
		ci->upto ? "upto" : "above", ci->limit, len,
		(inst->seen & (1u << O_DADDR)) ? "daddr" : "saddr");
}

/* Keyed by the box: unkeyed, anyone choosing source addresses could fill one chain. */
static uint32_t key_hash(const struct connlimit_state *st, const union pt_addr *a, uint16_t zone)
{
	struct {
		union pt_addr a;
		uint16_t zone;
	} k;

	memset(&k, 0, sizeof(k));
	k.a = *a;
	k.zone = zone;
	return pkt_hash_bucket(pkt_hash(st->key, &k, sizeof(k)), CONNLIMIT_BUCKETS);
}

static bool conn_alive(struct ct_table *t, const struct connlimit_conn *c, uint64_t now)
{
	struct ct_entry *e;
	enum ct_tcp_state s;

	if (!t || !c->id)
		return false;
	e = ct_lookup(t, &c->tuple, now, NULL);
	if (!e || ct_entry_id(e) != c->id)
		return false;
	s = ct_entry_tcp_state(e);
	return s != CT_TCP_TIME_WAIT && s != CT_TCP_CLOSE;
}

/* Forget the dead connections of k (all but `keep`, whose index is returned, or -1). */
static long key_gc(struct connlimit_state *st, struct connlimit_key *k, struct ct_table *t,
		   const struct ct_tuple *keep, uint64_t now)
{
	long found = -1;

	for (uint32_t i = 0; i < k->n;) {
		struct connlimit_conn *c = &k->conns[i];

		if (keep && ct_tuple_eq(&c->tuple, keep)) {
			found = i++;
			continue;
		}
		if (conn_alive(t, c, now)) {
			i++;
			continue;
		}
		*c = k->conns[--k->n];
		st->total--;
		if (found == (long)k->n)
			found = i;
	}
	return found;
}

/* Sweep one bucket: forget dead connections, free empty keys. */
static void sweep_bucket(struct connlimit_state *st, struct ct_table *t, uint64_t now)
{
	struct connlimit_key **pk = &st->bucket[st->sweep_next];

	st->sweep_next = (st->sweep_next + 1) & (CONNLIMIT_BUCKETS - 1);
	while (*pk) {
		struct connlimit_key *k = *pk;

		key_gc(st, k, t, NULL, now);
		if (k->n) {
			pk = &k->next;
			continue;
		}
		*pk = k->next;
		free(k->conns);
		free(k);
	}
}

/* The number of connections of the key with the packet's own included; -ENOMEM. */
static long count_add(struct connlimit_state *st, struct ct_table *t, const union pt_addr *a,
		      uint16_t zone, const struct ct_tuple *tuple, uint64_t id, bool closed,
		      uint64_t now)
{
	uint32_t h = key_hash(st, a, zone);
	struct connlimit_key *k;
	long at;

	for (k = st->bucket[h]; k; k = k->next)
		if (k->zone == zone && !memcmp(&k->addr, a, sizeof(*a)))
			break;
	if (!k) {
		if (closed)
			return 0;
		k = calloc(1, sizeof(*k));
		if (!k)
			return -ENOMEM;
		k->addr = *a;
		k->zone = zone;
		k->next = st->bucket[h];
		st->bucket[h] = k;
	}
	at = key_gc(st, k, t, tuple, now);
	if (at >= 0) {
		if (closed) {
			k->conns[at] = k->conns[--k->n];
			st->total--;
		} else {
			k->conns[at].id = id; /* a tuple reused by a new connection */
		}
		return k->n;
	}
	if (closed)
		return k->n;
	if (st->total >= CONNLIMIT_MAX_CONNS)
		return -ENOMEM;
	if (k->n == k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : 4;
		struct connlimit_conn *c = realloc(k->conns, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		k->conns = c;
		k->cap = cap;
	}
	k->conns[k->n].tuple = *tuple;
	k->conns[k->n].id = id;
	k->n++;
	st->total++;
	return k->n;
}

static bool connlimit_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	struct connlimit_info *ci = inst->data;
	const struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	const struct ext_env *env = ctx->env;
	struct ct_table *t =
	    env && env->ops && env->ops->conntrack ? env->ops->conntrack(env->box) : NULL;
	struct ct_tuple tuple;
	union pt_addr a;
	uint16_t zone = 0;
	uint64_t id = 0;
	bool closed = false;
	long n;

	if (e) {
		enum ct_tcp_state s = ct_entry_tcp_state(e);

		tuple = *ct_entry_tuple(e, CT_DIR_ORIGINAL);
		zone = ct_entry_zone(e);
		id = ct_entry_id(e);
		closed = s == CT_TCP_TIME_WAIT || s == CT_TCP_CLOSE;
	} else if (ct_tuple_from_pkt(ctx->pkt, 0, &tuple) < 0) {
		ctx->hotdrop = true;
		return false;
	}
	a = (inst->seen & (1u << O_DADDR)) ? ctx->info->dst : ctx->info->src;
	for (unsigned i = 0; i < 4; i++)
		a.w[i] &= ci->mask.w[i];
	if (!ci->st->keyed) {
		ext_env_hash_key(env, ci->st->key);
		ci->st->keyed = true;
	}
	sweep_bucket(ci->st, t, ctx->now_ns);
	n = count_add(ci->st, t, &a, zone, &tuple, id, closed, ctx->now_ns);
	if (n < 0) {
		ctx->hotdrop = true;
		return false;
	}
	return ((uint64_t)n > ci->limit) != ci->upto;
}

const struct ext_match ext_match_connlimit = {
    .name = "connlimit",
    .datasize = sizeof(struct connlimit_info),
    .opts = connlimit_opts,
    .nopts = O_NUM,
    .init = connlimit_init,
    .parse = connlimit_parse,
    .check = connlimit_check,
    .destroy = connlimit_destroy,
    .print = connlimit_print,
    .match = connlimit_match,
    .needs_conntrack = true,
};
