/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rule language: an iptables-save / iptables-restore file in memory.
 *
 *   *filter                               -> struct rules_table (TABLE_FILTER)
 *   :INPUT DROP [12:3400]                 -> struct rules_chain, builtin, policy + counters
 *   :LAN_IN - [0:0]                       -> struct rules_chain, user-defined
 *   [5:300] -A INPUT -4 -i lan0 -j LAN_IN -> struct rules_rule (counters, ip part, target)
 *   COMMIT
 *
 * A ruleset holds one family (AF_INET for iptables, AF_INET6 for ip6tables). A unified file
 * (rules tagged -4 / -6) is parsed once per family; a rule tagged for the other family is
 * skipped, as iptables-restore skips it.
 *
 * Parsing is all or nothing: on any error the caller gets the error (file:line, message,
 * token) and no ruleset.
 */
#ifndef RULES_RULES_H
#define RULES_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"
#include "rules/ext.h"

#define RULES_CHAIN_NAME_MAX 29 /* XT_EXTENSION_MAXNAMELEN - 1, as iptables limits it */
#define RULES_IFNAME_MAX 16

/* invflags of the standard part, as iptables names them */
enum {
	RULES_INV_SRC = 1 << 0,
	RULES_INV_DST = 1 << 1,
	RULES_INV_IN = 1 << 2,
	RULES_INV_OUT = 1 << 3,
	RULES_INV_PROTO = 1 << 4,
	RULES_INV_FRAG = 1 << 5,
};

/* The standard part of a rule: -s -d -i -o -p -f. */
struct rules_ipmatch {
	union pt_addr src, smsk, dst, dmsk; /* mask all-zero = any */
	char in[RULES_IFNAME_MAX], out[RULES_IFNAME_MAX];
	uint8_t in_len, out_len;   /* bytes to compare: strlen, or the prefix before '+' */
	bool in_wild, out_wild;    /* name ended in '+' */
	uint16_t proto;            /* 0 = any */
	bool frag;                 /* -f (IPv4 only) */
	uint8_t inv;               /* RULES_INV_* */
	uint8_t family_tag;        /* 4 or 6 if the rule carried -4 / -6, else 0 */
};

enum rules_target_kind {
	RULES_T_NONE,   /* no -j: the rule only counts */
	RULES_T_ACCEPT,
	RULES_T_DROP,
	RULES_T_RETURN,
	RULES_T_JUMP,   /* -j USERCHAIN */
	RULES_T_GOTO,   /* -g USERCHAIN */
	RULES_T_EXT,    /* -j EXTENSION */
};

struct rules_target {
	enum rules_target_kind kind;
	unsigned chain;                 /* JUMP/GOTO: index into the table's chains */
	struct ext_instance ext;        /* EXT: the target instance */
};

struct rules_rule {
	struct rules_ipmatch ip;
	struct ext_instance *matches;   /* in the order given (-m order) */
	unsigned nmatches;
	struct rules_target target;
	unsigned line;                  /* line in the source file */
};

/* A rule's counters ([p:b] before -A), in struct rules_chain.ctr beside the rules: the engine
 * writes these and reads the rules, so the lines it reads are not the lines it dirties. */
struct rules_counter {
	uint64_t pkts, bytes;
};

/* The chain's rules as the traversal tests their standard part first (rules/plain.h): made by
 * rules_ruleset_prepare when a box publishes the ruleset; rows NULL: not made. */
struct rules_plain_exact;
struct rules_plain {
	uint64_t *rows;                  /* a row of (value, mask) words per rule */
	struct rules_plain_exact *exact; /* per rule: what the row leaves out */
	unsigned nrules;                 /* rules it was made for (the chain's nrules then) */
	unsigned open;                   /* the rules before this one test nothing */
};

struct rules_chain {
	char name[RULES_CHAIN_NAME_MAX + 1];
	bool builtin;
	int hook;                       /* HOOK_* for built-in chains, -1 for user chains */
	int policy;                     /* EXT_ACCEPT or EXT_DROP (built-in chains only) */
	uint64_t pkts, bytes;           /* policy counters ([p:b] on the chain line) */
	uint32_t hook_mask;             /* hooks from which the chain is reachable (computed) */
	unsigned refs;                  /* jumps/gotos to it */
	struct rules_rule *rules;
	struct rules_counter *ctr;      /* ctr[i]: rule i's counters (room for cap, like rules) */
	unsigned nrules, cap;
	unsigned line;
	struct rules_plain plain;
};

struct rules_table {
	bool present;                   /* the file had a *table section (or the box made it) */
	struct rules_chain *chains;     /* built-ins first, in hook order, then user chains */
	unsigned nchains;
	/* Index of the built-in chain per hook, -1 if the table has none there. */
	int builtin[HOOK_MAX];
};

struct cls_ruleset;

struct rules_ruleset {
	int family;                     /* AF_INET or AF_INET6 */
	struct rules_table tables[TABLE_MAX];
	/* Compiled classifiers of the chains (src/classify), made before the ruleset is
	 * published and freed with it; NULL: every chain is scanned linearly. */
	struct cls_ruleset *compiled;
	void (*compiled_free)(struct cls_ruleset *);
	/* Given by the box that publishes it (box_set_ruleset), unique within that box, never 0:
	 * what the box's per-hook function vectors are keyed by. */
	uint64_t serial;
};

struct rules_error {
	char file[256];
	unsigned line;
	char msg[256];
	char token[128];                /* the token the parser stopped at, may be empty */
};

/* Print "FILE:LINE: message (near 'token')" and a newline. */
void rules_error_print(const struct rules_error *e, FILE *f);

enum {
	RULES_PARSE_NOFLUSH = 1 << 0, /* iptables-restore --noflush: tables not in the file kept */
	/* Skip ext_match.chain_prepare: a chain's string rules are not compiled together and
	 * each searches alone (benchmarks measure what the one pass saves with it). */
	RULES_PARSE_SEPARATE = 1 << 1,
};

/*
 * Parse a whole file in iptables-save format for `family`. On success *out is a new ruleset
 * and 0 is returned. On failure, -EINVAL (or -ENOMEM / -errno of fopen) with *err filled and
 * *out NULL: nothing of the file is applied anywhere.
 * `base`, if not NULL, supplies the tables the file does not mention (RULES_PARSE_NOFLUSH).
 */
int rules_parse_file(const char *path, int family, const struct ext_registry *reg,
		     const struct rules_ruleset *base, unsigned flags,
		     struct rules_ruleset **out, struct rules_error *err);
int rules_parse_buffer(const char *buf, size_t len, const char *name, int family,
		       const struct ext_registry *reg, const struct rules_ruleset *base,
		       unsigned flags, struct rules_ruleset **out, struct rules_error *err);

/* True if any rule in the buffer carries -6 (or -4): the file is a unified one. */
bool rules_buffer_has_family_tag(const char *buf, size_t len, int tag);

/* A ruleset with the given tables present and empty, all policies ACCEPT. */
struct rules_ruleset *rules_ruleset_new(int family);
void rules_ruleset_free(struct rules_ruleset *rs);

enum {
	RULES_PRINT_COUNTERS = 1 << 0, /* iptables-save -c: "[p:b] -A ..." */
	RULES_PRINT_HEADER = 1 << 1,   /* "# Generated by pkttables" / "# Completed" comments */
};

/* Print in canonical iptables-save form (tables in iptables-save's order). */
int rules_print(const struct rules_ruleset *rs, FILE *f, unsigned flags);
/* Print one rule after "-A CHAIN" (the text iptables-save prints after the chain name,
 * without a leading space), e.g. "-p tcp -m tcp --dport 80 -j ACCEPT". */
int rules_print_rule(const struct rules_ruleset *rs, unsigned table, const struct rules_rule *r,
		     FILE *f);

const char *rules_table_name(unsigned table);
int rules_table_by_name(const char *name); /* TABLE_* or -1 */
const char *rules_hook_name(unsigned hook); /* "PREROUTING" ... */
/* Look up a chain by name in a table; index or -1. */
int rules_chain_find(const struct rules_table *t, const char *name);

/* Zero all rule and policy counters. */
void rules_zero_counters(struct rules_ruleset *rs);
/* Zero the policy counters of a chain and the counters of its rules (iptables -Z CHAIN). */
void rules_chain_zero_counters(struct rules_chain *c);

#endif
