/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the engine's unit tests: a recording box, hand-built rulesets, packets. */
#ifndef TESTS_ENGINE_TEST_H
#define TESTS_ENGINE_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "engine/box.h"
#include "pkt/build.h"
#include "pkt_test.h"
#include "rules/rules.h"

#define REC_MAX 16

struct rec {
	unsigned nxmit, ndeliver, ndrop, ntrace, nqueue;
	int xmit_oif[REC_MAX];
	struct pkt *xmit[REC_MAX]; /* kept until rec_free */
	struct pkt *deliver[REC_MAX];
	struct box_drop drop[REC_MAX];
	char trace[32][512];
	int queue_verdict;
	uint32_t queue_mark;
	unsigned queue_num;
};

static inline void rec_xmit(void *u, struct box *b, int oif, struct pkt *p)
{
	struct rec *r = u;

	if (r->nxmit < REC_MAX) {
		r->xmit_oif[r->nxmit] = oif;
		r->xmit[r->nxmit++] = p;
	} else {
		pkt_free(p);
	}
}

static inline void rec_deliver(void *u, struct box *b, struct pkt *p)
{
	struct rec *r = u;

	if (r->ndeliver < REC_MAX)
		r->deliver[r->ndeliver++] = p;
	else
		pkt_free(p);
}

static inline void rec_dropped(void *u, struct box *b, const struct pkt *p,
			       const struct box_drop *why)
{
	struct rec *r = u;

	if (r->ndrop < REC_MAX)
		r->drop[r->ndrop++] = *why;
}

static inline void rec_trace(void *u, struct box *b, const struct pkt *p, const char *line)
{
	struct rec *r = u;

	if (r->ntrace < 32)
		snprintf(r->trace[r->ntrace++], sizeof(r->trace[0]), "%s", line);
}

static inline int rec_queue(void *u, struct box *b, unsigned qnum, struct pkt *p, uint32_t *mark)
{
	struct rec *r = u;

	r->nqueue++;
	r->queue_num = qnum;
	*mark = r->queue_mark;
	return r->queue_verdict;
}

static inline void rec_free(struct rec *r)
{
	for (unsigned i = 0; i < r->nxmit; i++)
		pkt_free(r->xmit[i]);
	for (unsigned i = 0; i < r->ndeliver; i++)
		pkt_free(r->deliver[i]);
	memset(r, 0, sizeof(*r));
}

static const struct box_ops rec_ops __attribute__((unused)) = {
    .xmit = rec_xmit,
    .deliver = rec_deliver,
    .dropped = rec_dropped,
    .trace = rec_trace,
};

/* The replay default box (lan0 = 1, wan0 = 2), recording into r. */
static struct box *gw_box(struct rec *r, const struct box_ops *ops)
{
	struct box *b = box_new("gw", ops ? ops : &rec_ops, r);

	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	return b;
}

static struct pkt *mk(const char *spec)
{
	return pkt_test_build(spec);
}

/* A user chain; its index. */
static inline unsigned add_chain(struct rules_ruleset *rs, unsigned table, const char *name)
{
	struct rules_table *t = &rs->tables[table];
	struct rules_chain *c;

	t->chains = realloc(t->chains, (t->nchains + 1) * sizeof(*t->chains));
	assert_non_null(t->chains);
	c = &t->chains[t->nchains];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->hook = -1;
	c->policy = EXT_ACCEPT;
	return t->nchains++;
}

static inline unsigned builtin(struct rules_ruleset *rs, unsigned table, unsigned hook)
{
	assert_true(rs->tables[table].builtin[hook] >= 0);
	return (unsigned)rs->tables[table].builtin[hook];
}

/* Append a copy of r to the chain; a pointer to it (valid until the next append there). */
static struct rules_rule *add_rule(struct rules_ruleset *rs, unsigned table, unsigned chain,
				   const struct rules_rule *r)
{
	struct rules_chain *c = &rs->tables[table].chains[chain];

	c->rules = realloc(c->rules, (c->nrules + 1) * sizeof(*c->rules));
	assert_non_null(c->rules);
	c->ctr = realloc(c->ctr, (c->nrules + 1) * sizeof(*c->ctr));
	assert_non_null(c->ctr);
	c->cap = c->nrules + 1;
	c->rules[c->nrules] = *r;
	c->ctr[c->nrules] = (struct rules_counter){0, 0};
	return &c->rules[c->nrules++];
}

/* The counters of rule i (0-based) of a chain. */
static inline struct rules_counter *rule_ctr(struct rules_ruleset *rs, unsigned table,
					     unsigned chain, unsigned i)
{
	assert_true(i < rs->tables[table].chains[chain].nrules);
	return &rs->tables[table].chains[chain].ctr[i];
}

static inline struct rules_rule *add_target(struct rules_ruleset *rs, unsigned table,
					    unsigned chain, enum rules_target_kind kind,
					    unsigned to)
{
	struct rules_rule r;

	memset(&r, 0, sizeof(r));
	r.target.kind = kind;
	r.target.chain = to;
	return add_rule(rs, table, chain, &r);
}

/* Rule with an extension target (data NULL). */
static inline struct rules_rule *add_ext_target(struct rules_ruleset *rs, unsigned table,
						unsigned chain, const struct ext_target *t)
{
	struct rules_rule r;

	memset(&r, 0, sizeof(r));
	r.target.kind = RULES_T_EXT;
	r.target.ext.target = t;
	return add_rule(rs, table, chain, &r);
}

static inline void addr(const char *s, union pt_addr *a)
{
	memset(a, 0, sizeof(*a));
	assert_true(pt_addr_parse(s, a) != 0);
}

/* gw_box with wan0's addresses (192.0.2.1/24, 2001:db8:ffff::1/64), tracing every packet
 * (box_set_trace_all) or not. */
static inline struct box *gw_box_wan(struct rec *r, bool traced)
{
	struct box *b = gw_box(r, NULL);
	union pt_addr a;

	addr("192.0.2.1", &a);
	assert_int_equal(box_add_addr(b, 2, AF_INET, &a, 24) >= 0, true);
	addr("2001:db8:ffff::1", &a);
	assert_int_equal(box_add_addr(b, 2, AF_INET6, &a, 64) >= 0, true);
	box_set_trace_all(b, traced);
	return b;
}

/* One step of the random tests' seeded xorshift64 (each side of a comparison keeps a copy of
 * the seed, so both get the same sequence). */
static inline uint64_t xorshift_step(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A random packet of the gateway box's traffic from seed s: one of the first `kinds` (8 or 12)
 * of the specs below, from one of `ports` source ports from 1024 (few: flows repeat), any
 * size. Forwarded either way, for the box, or the box's own (*local_out: box_output, else
 * box_receive from *ifindex).
 */
static inline struct pkt *gw_random_packet(uint64_t *s, unsigned kinds, unsigned ports,
					   bool *local_out, int *ifindex)
{
	static const char *const specs[] = {
	    "udp 10.0.0.2:%u > 198.51.100.7:53 eth len=%u",
	    "tcp 198.51.100.7:443 > 10.0.0.2:%u eth ack len=%u",
	    "udp 10.0.0.2:%u > 192.0.2.1:53 eth len=%u",
	    "udp 192.0.2.1:%u > 198.51.100.7:53 len=%u",
	    "udp [fd00::2]:%u > [2001:db8::7]:53 eth len=%u",
	    "tcp [2001:db8::7]:443 > [fd00::2]:%u eth ack len=%u",
	    "udp [fd00::2]:%u > [2001:db8:ffff::1]:53 eth len=%u",
	    "udp [2001:db8:ffff::1]:%u > [2001:db8::7]:53 len=%u",
	    "tcp 10.0.0.2:%u > 198.51.100.7:443 eth syn len=%u",
	    "udp 198.51.100.7:53 > 10.0.0.2:%u eth len=%u",
	    "tcp [fd00::2]:%u > [2001:db8::7]:443 eth syn len=%u",
	    "udp [2001:db8::7]:53 > [fd00::2]:%u eth len=%u",
	};
	unsigned k = (unsigned)(xorshift_step(s) % kinds);
	char spec[160];

	snprintf(spec, sizeof(spec), specs[k], (unsigned)(xorshift_step(s) % ports + 1024),
		 (unsigned)(xorshift_step(s) % 1400));
	*local_out = k < 8 && k % 4 == 3;
	*ifindex = (k < 8 && k % 4 == 1) || k == 9 || k == 11 ? 2 : 1;
	return mk(spec);
}

/* Two boxes that were fed the same: every chain's policy counters and every rule's counters of
 * the family's rulesets equal (both without a ruleset, or the same chains). */
static inline void box_compare_counters(struct box *a, struct box *b, int fam)
{
	const struct rules_ruleset *x = box_ruleset(a, fam), *y = box_ruleset(b, fam);

	assert_int_equal(!x, !y);
	if (!x)
		return;
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		assert_int_equal(x->tables[t].nchains, y->tables[t].nchains);
		for (unsigned c = 0; c < x->tables[t].nchains; c++) {
			const struct rules_chain *cx = &x->tables[t].chains[c];
			const struct rules_chain *cy = &y->tables[t].chains[c];

			assert_int_equal(cx->pkts, cy->pkts);
			assert_int_equal(cx->bytes, cy->bytes);
			for (unsigned i = 0; i < cx->nrules; i++) {
				assert_int_equal(cx->ctr[i].pkts, cy->ctr[i].pkts);
				assert_int_equal(cx->ctr[i].bytes, cy->ctr[i].bytes);
			}
		}
	}
}

/* A hook function a plug-in might have: it counts, and drops every k-th packet (0: never). */
struct fn_state {
	unsigned calls, every;
};

static inline int plugin_fn(void *priv, struct box_hook_state *st, struct pkt *p)
{
	struct fn_state *f = priv;

	(void)p;
	f->calls++;
	if (f->every && f->calls % f->every == 0)
		return box_hook_drop(st, BOX_DROP_HOOK, -1);
	return EXT_ACCEPT;
}

/* The packets two recordings kept: length, mark and priority equal. */
static inline void rec_compare_pkts(struct pkt *const *x, struct pkt *const *y, unsigned n)
{
	for (unsigned i = 0; i < n && i < REC_MAX; i++) {
		assert_int_equal(x[i]->len, y[i]->len);
		assert_int_equal(x[i]->mark, y[i]->mark);
		assert_int_equal(x[i]->priority, y[i]->priority);
	}
}

/* Two recordings of the same packets: what left (interface, packet), what was delivered, every
 * drop record's fields. */
static inline void rec_compare(const struct rec *x, const struct rec *y)
{
	assert_int_equal(x->nxmit, y->nxmit);
	assert_int_equal(x->ndeliver, y->ndeliver);
	assert_int_equal(x->ndrop, y->ndrop);
	for (unsigned i = 0; i < x->nxmit && i < REC_MAX; i++)
		assert_int_equal(x->xmit_oif[i], y->xmit_oif[i]);
	rec_compare_pkts(x->xmit, y->xmit, x->nxmit);
	rec_compare_pkts(x->deliver, y->deliver, x->ndeliver);
	for (unsigned i = 0; i < x->ndrop && i < REC_MAX; i++) {
		const struct box_drop *d = &x->drop[i], *e = &y->drop[i];

		assert_int_equal(d->kind, e->kind);
		assert_int_equal(d->table, e->table);
		assert_int_equal(d->hook, e->hook);
		assert_int_equal(d->rulenum, e->rulenum);
		assert_int_equal(d->bad, e->bad);
		assert_int_equal(d->reason, e->reason);
		assert_int_equal(!d->chain, !e->chain);
		if (d->chain)
			assert_string_equal(d->chain, e->chain);
	}
}

#endif
