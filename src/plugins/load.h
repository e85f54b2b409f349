/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading a ruleset into a box, the one way every loader does it (live and NFQUEUE mode's files,
 * the simulator's `rules` blocks and files, the control socket's replace): parse the text,
 * check what only the box can check (CT --timeout names one of its policies, -m set and -j SET
 * name its sets, as the kernel checks at load), then install every family at once. Nothing is installed unless everything
 * parsed and passed: a failed load changes nothing.
 *
 *   box_load_parse (one text; again for a second file) -> box_load_check -> box_load_install
 *                                                       (any failing)  -> box_load_free
 */
#ifndef PLUGINS_LOAD_H
#define PLUGINS_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"

struct box;

/* Rulesets parsed for one box, not installed yet: [0] IPv4, [1] IPv6. */
struct box_load {
	struct rules_ruleset *rs[2];
	bool set[2];	     /* install this family (a NULL rs empties it) */
	const char *name[2]; /* the text each came from, for errors */
};

/* Why a load failed: a parse error or a set the box lacks (parse: FILE:LINE, message, token),
 * or (refused[0]) a CT --timeout policy it lacks. */
struct box_load_error {
	struct rules_error parse;
	char refused[256];
	const char *name; /* the text refused */
};

/*
 * Parse `buf` (named `name` in errors; the string must outlive l) into l for `family`:
 * AF_INET, AF_INET6, or 0 for IPv4 and, when the text has -6 rules, IPv6 from them. `flags`
 * are rules_parse_buffer's; with RULES_PARSE_NOFLUSH the box's current ruleset is the base.
 * 0, or a negative errno with *e filled (l keeps what parsed before: box_load_free it).
 */
int box_load_parse(struct box *b, struct box_load *l, const char *buf, size_t len, const char *name,
		   int family, unsigned flags, struct box_load_error *e);
/* What only the box can check, IPv4 first: CT --timeout policies (e->refused), then sets
 * (e->parse; binding them, so call it for rulesets about to be installed). 0 or a negative
 * errno. */
int box_load_check(struct box *b, const struct box_load *l, struct box_load_error *e);
/* Install every family l set (box_set_ruleset); l gives up its rulesets. */
void box_load_install(struct box *b, struct box_load *l);
/* Free what l still holds. */
void box_load_free(struct box_load *l);

/* Parse, check and install at once. 0 or a negative errno (nothing changed). */
int box_load_ruleset(struct box *b, const char *buf, size_t len, const char *name, int family,
		     struct box_load_error *e);

/* The error as one line, without a newline: "FILE:LINE: message (near 'token')" or
 * "NAME: why". */
void box_load_error_format(const struct box_load_error *e, char *out, size_t outlen);

#endif
