/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the engine's unit tests: a recording box, hand-built rulesets, packets. */
#ifndef TESTS_ENGINE_TEST_H
#define TESTS_ENGINE_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
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

#endif
