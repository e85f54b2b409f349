/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compiled classifiers for a whole ruleset: one per chain that pays, built when the ruleset
 * loads (before it is published) and freed with it.
 *
 *   rule  ->  standard part (-s -d -i -o -p -f, with '!')      -> constraints
 *             then each match in -m order that has cls_tests   -> constraints
 *             up to the first match without it (its side effects must happen as in the
 *             linear scan, so nothing after it may decide to skip the rule)
 *   packet ->  key (cls_key): addresses, protocol, ports or ICMP type/code of a first
 *             fragment, interface names' first four bytes, mark, conntrack state (ct.h's
 *             inline ct_pkt_state, what every match's cls_value reads), -f
 *
 * The engine asks cls_chain_next for the next rule worth evaluating and evaluates it whole;
 * a rule the classifier cannot describe at all is simply a candidate for every packet.
 */
#ifndef CLASSIFY_RULESET_H
#define CLASSIFY_RULESET_H

#include "classify/classify.h"
#include "rules/rules.h"

enum cls_mode {
	CLS_MODE_AUTO,	   /* compile chains of CLS_AUTO_MIN_RULES rules or more */
	CLS_MODE_LINEAR,   /* never compile */
	CLS_MODE_COMPILED, /* compile every chain that has a rule */
};

#define CLS_AUTO_MIN_RULES 32 /* docs/classifier.md: where a tree starts to pay */

/* "auto", "linear", "compiled" -> CLS_MODE_*, or -1. */
int cls_mode_parse(const char *s);
const char *cls_mode_name(enum cls_mode m);

/* One chain's compiled form and what `show classifier` says of it. */
struct cls_chain {
	struct classifier *cls; /* NULL: the chain is scanned linearly */
	const char *why;	/* why linear: "mode linear", "few rules", "over budget", ... */
	unsigned nrules;
	unsigned partial;	/* rules with matches evaluated on candidates only */
	unsigned first_partial; /* 1-based number of the first such rule, 0 if none */
	double build_s;		/* -1: not measured (no clock given) */
	size_t bytes;
	unsigned updated; /* > 0: made from the previous ruleset's classifier of the chain with
			     this many rules changed (cls_update), not built anew */
	/* per rule, 1: its constraints say exactly what its standard part (-s -d -i -o -p -f)
	 * tests, so a candidate (whose constraints the classifier checked) passes that part;
	 * NULL: none is known to */
	uint8_t *std_exact;
};

struct cls_ruleset {
	enum cls_mode mode;
	uint32_t dims; /* bit per CLS_* dimension some compiled rule constrains */
	struct cls_chain *chains[TABLE_MAX]; /* [table][chain index] */
	unsigned nchains[TABLE_MAX];
};

/*
 * Compile the chains of rs as `mode` says, each within lim's budget (NULL: defaults), and
 * attach the result to rs (rs->compiled, freed by rules_ruleset_free). Call before rs is
 * published. A chain that fails (budget, memory) stays linear and says why; 0, or -ENOMEM
 * when not even the bookkeeping could be allocated (rs then stays wholly linear).
 * `now_s` measures build times (the caller's clock).
 */
int cls_ruleset_compile(struct rules_ruleset *rs, enum cls_mode mode, const struct cls_limits *lim,
			double (*now_s)(void));
/*
 * The same, where prev (the ruleset rs replaces; NULL: none) has a compiled chain of the same
 * table and name: a chain that differs from it in a few rules is made from a copy of it with
 * those rules deleted and inserted (cls_update), not built anew; prev is only read.
 */
int cls_ruleset_compile_from(struct rules_ruleset *rs, const struct rules_ruleset *prev,
			     enum cls_mode mode, const struct cls_limits *lim,
			     double (*now_s)(void));

/* The compiled chain `chain` of `table`, or NULL when it is scanned linearly. */
static inline const struct classifier *cls_ruleset_chain(const struct cls_ruleset *cr,
							 unsigned table, unsigned chain)
{
	if (!cr || chain >= cr->nchains[table])
		return NULL;
	return cr->chains[table][chain].cls;
}

/* Does candidate `rule` of compiled chain `chain` pass its standard part without a test? */
static inline bool cls_ruleset_std_exact(const struct cls_ruleset *cr, unsigned table,
					 unsigned chain, unsigned rule)
{
	const uint8_t *e = cr->chains[table][chain].std_exact;

	return e && e[rule];
}

/*
 * The packet's key; false when the packet must take the linear scan (headers missing or
 * malformed: a match would drop it at once, and that must happen where the scan has it).
 * Only the dimensions in cr->dims are written (no tree or rule of cr reads the others).
 */
bool cls_key(const struct cls_ruleset *cr, const struct ext_pkt_ctx *ctx, uint32_t key[CLS_NDIMS]);

/* One line of `show classifier` ("ipv4 filter FORWARD: compiled, ..."); the control socket's
 * client prints what the box sends with it. */
void cls_chain_print(FILE *f, const char *fam, const char *table, const char *chain, bool compiled,
		     const struct cls_chain *cc);
/* Print `show classifier`: one line per chain of every present table. */
void cls_ruleset_print(const struct rules_ruleset *rs, FILE *f);

#endif
