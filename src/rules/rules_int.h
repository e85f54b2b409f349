/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to src/rules: what the lexer, parser, option parser, checker and printer share.
 * Nothing outside src/rules includes this header.
 */
#ifndef RULES_RULES_INT_H
#define RULES_RULES_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/ext.h"
#include "rules/rules.h"

/* ---- lexer (lexer.c) --------------------------------------------------------------------- */

/*
 * One line split the way iptables-restore splits it:
 *
 *   [12:345] -A INPUT -m comment --comment "say \"hi\"" -j ACCEPT
 *   \______/ \_____________________________________________________/
 *   counters  tokens: "-A" "INPUT" "-m" "comment" "--comment" "say \"hi\"" ...
 *
 * Outside quotes a backslash is an ordinary character; inside double quotes it escapes the
 * next one. A closing quote ends the token. A '#' only starts a comment in column 0.
 */
struct rules_tokens {
	char **tok;
	unsigned n, cap;
	bool has_counters;
	uint64_t pkts, bytes;
};

/* 0, or -EINVAL with msg/token filled (bad counters). An unterminated quote runs to the end
 * of the line, newline included, as in iptables-restore. */
int rules_lex_line(const char *line, size_t len, struct rules_tokens *out, char *msg,
		   size_t msglen, char *token, size_t toklen);
void rules_tokens_free(struct rules_tokens *t);

/* ---- names (names.c) --------------------------------------------------------------------- */

/* -p argument: name (case-insensitive, as iptables lowercases it) or number. 0 or -EINVAL. */
int rules_proto_parse(const char *s, uint16_t *proto);
/* The name iptables-save prints for a protocol number, NULL if it prints the number. */
const char *rules_proto_name(uint16_t proto);
/* A service name (exact case) of protocol "tcp"/"udp"/"sctp"/"dccp", or of any if NULL. */
int rules_service_port(const char *name, const char *proto, uint16_t *out);
/* Built-in chains of a table, as a HOOK_BIT() mask. */
uint32_t rules_table_hooks(unsigned table);
/* Parse a decimal / 0x hex / 0 octal unsigned number with nothing after it. */
int rules_strtou64(const char *s, uint64_t *out);
/* addr[/len|/mask] of `family` into net[0] (masked) and net[1] (mask). 0 or -EINVAL. */
int rules_parse_net(int family, const char *arg, union pt_addr net[2]);

/* ---- extension options (opt.c) ----------------------------------------------------------- */

/* An extension instance's declaration, whichever kind it is. */
struct rules_ext_decl {
	const char *name;
	const struct ext_opt *opts;
	unsigned nopts;
	int (*parse)(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt_index,
		     const char *arg);
};
void rules_ext_decl(const struct ext_instance *inst, struct rules_ext_decl *d);

/* Index of the option named `name` (without "--") in the instance's table, or -1. */
int rules_ext_find_opt(const struct ext_instance *inst, const char *name);
/* Whether option i consumes an argument token, and how many (0, 1 or 2). */
unsigned rules_ext_opt_nargs(const struct ext_instance *inst, unsigned i);
/*
 * Parse option i of inst with argument `arg` (NULL for a flag): repetition and inversion
 * checks, storage by type, then the extension's parse(). 0 or -EINVAL with ctx->err set.
 */
int rules_ext_parse_opt(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			const char *arg);
/* After the last option: mandatory, excl and also. 0 or -EINVAL with err set. */
int rules_ext_finish(const struct ext_instance *inst, char *err, size_t errlen);
/* New instance of a match / target: data allocated and zeroed, init() called. 0 or -ENOMEM. */
int rules_ext_new_match(struct ext_instance *inst, const struct ext_match *m);
int rules_ext_new_target(struct ext_instance *inst, const struct ext_target *t);
/* Deep copy of the data (before check(): no run-time state yet). 0 or -ENOMEM. */
int rules_ext_dup(struct ext_instance *dst, const struct ext_instance *src);
/* Free the data; calls destroy() only if `checked` (check() ran successfully). */
void rules_ext_free(struct ext_instance *inst, bool checked);

/* ---- rules and chains (ruleset.c) -------------------------------------------------------- */

/* A ruleset with no table present (what a parse starts from). NULL on ENOMEM. */
struct rules_ruleset *rules_ruleset_alloc(int family);
/* Reset table t to its built-in chains with policy ACCEPT and no rules; present = true. */
int rules_table_reset(struct rules_table *t, unsigned table, bool checked);
void rules_table_free(struct rules_table *t, bool checked);
void rules_rule_free(struct rules_rule *r, bool checked);
/* Add a user chain at the end; index or -ENOMEM. */
int rules_chain_add(struct rules_table *t, const char *name, unsigned line);
/* Insert a rule (moved in, not copied) at position pos (0-based, nrules = append), with
 * counters ctr (NULL: zero). */
int rules_chain_insert(struct rules_chain *c, unsigned pos, struct rules_rule *r,
		       const struct rules_counter *ctr);
/* Remove rule pos (freed, refs of its jump dropped). */
void rules_chain_remove(struct rules_table *t, struct rules_chain *c, unsigned pos);
/* Remove user chain idx (must have refs == 0); fixes jump indexes above it. */
void rules_chain_delete(struct rules_table *t, unsigned idx);

/* ---- one rule (rule.c) ------------------------------------------------------------------- */

struct rules_rule_ctx {
	bool has_ctr; /* out: the rule had -c PKTS BYTES, in ctr */
	struct rules_counter ctr;
	int family;
	unsigned table;
	const struct rules_table *t;
	const char *chain;               /* the chain the rule goes to (for -i/-o checks) */
	const struct ext_registry *reg;
	char *err, *errtok;              /* message and token on failure */
	size_t errlen, errtoklen;
};

/*
 * Parse argv[0..argc) (everything after "-A CHAIN") into one or more rules (comma lists of
 * -s/-d multiply the rule, as iptables does). *out is malloc()ed with *nout rules; *skip is
 * set when the rule is tagged for the other family (then *nout == 0). 0 or -EINVAL/-ENOMEM.
 */
int rules_rule_parse(struct rules_rule_ctx *ctx, char **argv, unsigned argc,
		     struct rules_rule **out, unsigned *nout, bool *skip);

/* ---- whole-ruleset checks (check.c) ------------------------------------------------------ */

/* Hook masks, loops, then every ext check(). On failure err is filled (line, msg, token) and
 * *nchecked tells how many instances were checked (so they can be destroyed). */
int rules_check_ruleset(struct rules_ruleset *rs, struct rules_error *err);
/* ext_match.chain_prepare for every chain of a checked ruleset (cannot fail the load). */
void rules_prepare_chains(struct rules_ruleset *rs);

/* ---- printing (print.c) ------------------------------------------------------------------ */

/* The rule as a string (malloc()ed), for -D by specification. NULL on ENOMEM. */
char *rules_rule_to_string(const struct rules_ruleset *rs, unsigned table,
			   const struct rules_rule *r);

/* snprintf into a fixed error buffer. */
void rules_errf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
