/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The extension interface: what a match or a target declares, and what it is given.
 *
 * An extension is mostly data: a table of options (name, type, flags, where the parsed value
 * is stored in the extension's private struct), plus a per-packet function. The rule-language
 * core (src/rules) parses every option of a declared type, checks inversion, repetition,
 * conflicts and requirements, and prints the canonical iptables-save form. An extension writes
 * a parse or print callback only for syntax that is truly its own.
 *
 *   -m tcp ! --dport 80 --tcp-flags SYN,ACK SYN
 *          |  |      |
 *          |  |      +-- EXT_T_PORT_RANGE value, stored at opts[i].offset in inst->data
 *          |  +--------- opts[i].name == "dport"
 *          +------------ bit i set in inst->inv (allowed because EXT_OPT_INVERT)
 *   inst->seen has bit i set for every option given, in any order.
 *
 * Printing walks opts[] in table order and prints each seen option as `[! ]--name value`, so
 * the table order IS the canonical print order (iptables-save's order).
 *
 * Layering: this header depends on src/pkt only. The box (src/engine) is reached through
 * struct ext_env, a table of callbacks, so extensions never include engine headers.
 */
#ifndef RULES_EXT_H
#define RULES_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"

enum rules_table_id {
	TABLE_RAW,
	TABLE_MANGLE,
	TABLE_NAT,
	TABLE_FILTER,
	TABLE_SECURITY,
	TABLE_MAX
};

enum rules_hook {
	HOOK_PREROUTING,
	HOOK_INPUT,
	HOOK_FORWARD,
	HOOK_OUTPUT,
	HOOK_POSTROUTING,
	HOOK_MAX
};

#define HOOK_BIT(h) (1u << (h))
#define TABLE_BIT(t) (1u << (t))

/* Verdicts, as netfilter numbers them, plus the two traversal-only ones. */
enum ext_verdict {
	EXT_RETURN = -2,   /* leave this chain (standard RETURN) */
	EXT_CONTINUE = -1, /* go on with the next rule (non-terminating targets) */
	EXT_DROP = 0,
	EXT_ACCEPT = 1,
	EXT_STOLEN = 2, /* the target took the packet (e.g. it queued and will reinject) */
	EXT_QUEUE = 3,  /* to the queue numbered ctx->queue_num */
	EXT_REPEAT = 4,
};

/* ---- option declarations ----------------------------------------------------------------- */

enum ext_opt_type {
	EXT_T_NONE,          /* a flag without argument (--syn, --log-uid) */
	EXT_T_U8,            /* unsigned integers: decimal, 0x hex; printed decimal (or hex, */
	EXT_T_U16,           /*   EXT_OPT_HEX); range-checked against min..max when max != 0 */
	EXT_T_U32,
	EXT_T_U64,
	EXT_T_U32_RANGE,     /* lo[:hi] into uint32_t[2]; printed "lo" if lo==hi else "lo:hi" */
	EXT_T_PORT,          /* number or service name into uint16_t, as xtables' generic
				option parser reads it: decimal only, reduced to 16 bits
				(65536 -> 0), names of any protocol, exact case */
	EXT_T_PORT_RANGE,    /* [lo]:[hi] or one port (same syntax), into uint16_t[2]; lo > hi
				is kept as given; printed "lo" or "lo:hi". For tcp's stricter
				syntax use EXT_T_CUSTOM and ext_parse_port() */
	EXT_T_STRING,        /* char[size], NUL-terminated, len < size; printed quoted when it has
				spaces or quotes, as iptables-save does */
	EXT_T_MARKMASK,      /* value[/mask] into uint32_t[2] (mask defaults to 0xffffffff);
				printed "0xV" or "0xV/0xM" */
	EXT_T_HOST,          /* one address of the rule's family into union pt_addr */
	EXT_T_NET,           /* addr[/len|/mask] into union pt_addr[2] (addr, mask) */
	EXT_T_ADDR_RANGE,    /* addr-addr into union pt_addr[2] */
	EXT_T_NAME,          /* one of opts.names (or a number when EXT_OPT_NUMERIC) into uint32_t;
				printed by name (the first entry with that value) */
	EXT_T_NAME_LIST,     /* comma-separated names, OR-ed values into uint32_t */
	EXT_T_CUSTOM,        /* the extension's parse() and print() handle it */
};

enum ext_opt_flags {
	EXT_OPT_INVERT = 1 << 0,    /* accepts a leading "!" */
	EXT_OPT_MANDATORY = 1 << 1, /* the extension is incomplete without it */
	EXT_OPT_MULTI = 1 << 2,     /* may be given more than once (parse() accumulates) */
	EXT_OPT_HEX = 1 << 3,       /* integers print as 0x... */
	EXT_OPT_NUMERIC = 1 << 4,   /* EXT_T_NAME also accepts a plain number */
	EXT_OPT_NOPRINT = 1 << 5,   /* an alias: parsed, never printed (print_as says where) */
	EXT_OPT_NOSTORE = 1 << 6,   /* the core does not store a value; parse() must */
	EXT_OPT_ARGS2 = 1 << 7,     /* takes two argument tokens (--tcp-flags MASK COMP); the
				       core passes them to parse() joined by one space */
};

struct ext_name {
	const char *name;
	uint32_t value;
};

struct ext_opt {
	const char *name;       /* long option name without the leading "--" */
	enum ext_opt_type type;
	uint16_t flags;         /* EXT_OPT_* */
	uint16_t offset;        /* offsetof(struct ext_private, field) */
	uint16_t size;          /* sizeof(field), checked against the type */
	uint64_t min, max;      /* integer range (inclusive); max == 0: the type's full range */
	uint32_t excl;          /* bitmask of option indexes that may not be combined with this */
	uint32_t also;          /* bitmask of option indexes this one requires */
	const struct ext_name *names; /* EXT_T_NAME / EXT_T_NAME_LIST, terminated by {NULL, 0} */
	int8_t print_as;        /* for aliases: index of the option whose seen bit is set instead,
				   -1 if none. Only read when EXT_OPT_NOPRINT is set (so a zero
				   from a designated initializer is harmless elsewhere). excl and
				   also name the primary indexes, never the alias's. */
};

/* Designated-initializer helpers: EXT_FIELD(struct foo, port) -> .offset, .size */
#define EXT_FIELD(type, field) .offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

/* An extension as used in one rule: the declaration plus this rule's values. */
struct ext_instance {
	const struct ext_match *match;   /* exactly one of match/target is set */
	const struct ext_target *target;
	uint32_t seen;                   /* bit i: option i was given */
	uint32_t inv;                    /* bit i: option i was inverted with "!" */
	void *data;                      /* zeroed, `datasize` bytes; owned by the rule */
};

/* ---- contexts ---------------------------------------------------------------------------- */

/* Bits returned by ext_env_ops.addr_type, as the addrtype match names them. */
enum ext_addr_type {
	EXT_RTN_UNSPEC = 1 << 0,
	EXT_RTN_UNICAST = 1 << 1,
	EXT_RTN_LOCAL = 1 << 2,
	EXT_RTN_BROADCAST = 1 << 3,
	EXT_RTN_ANYCAST = 1 << 4,
	EXT_RTN_MULTICAST = 1 << 5,
	EXT_RTN_BLACKHOLE = 1 << 6,
	EXT_RTN_UNREACHABLE = 1 << 7,
	EXT_RTN_PROHIBIT = 1 << 8,
	EXT_RTN_THROW = 1 << 9,
	EXT_RTN_NAT = 1 << 10,
	EXT_RTN_XRESOLVE = 1 << 11,
};

struct ext_pkt_ctx;

/* Services of the box an extension may use at run time (implemented by src/engine). */
struct ext_env_ops {
	/* EXT_RTN_* bits of an address as the box's routing sees it. limit_iface: only
	 * addresses of that interface count as local (NULL: any). */
	uint32_t (*addr_type)(void *box, int family, const union pt_addr *a,
			      const char *limit_iface);
	/* Append one line (no newline) to the box's kernel log, at syslog `level` (0..7). */
	void (*log)(void *box, int level, const char *line);
	/* A packet the target made (REJECT's RST or ICMP error): the box sends it as a locally
	 * generated packet (OUTPUT, POSTROUTING). Takes ownership of p. */
	void (*emit)(void *box, struct pkt *p, const struct ext_pkt_ctx *cause);
	/* Next value of the box's deterministic PRNG (statistic --mode random). */
	uint32_t (*random)(void *box);
	/* The box's hash key (two words for pkt_hash, from its seed): tables of packet-chosen
	 * keys (hashlimit, connlimit) hash with it, so nobody can aim keys at one bucket.
	 * Optional: NULL op = a zero key (tests). */
	const uint64_t *(*hash_key)(void *box);
	/* MTU of an interface by name, 0 if unknown (TCPMSS --clamp-mss-to-pmtu). */
	uint32_t (*iface_mtu)(void *box, const char *ifname);
	/* Route MTU toward an address (TCPMSS --clamp-mss-to-pmtu), 0 if no route. */
	uint32_t (*route_mtu)(void *box, int family, const union pt_addr *dst);
	/* UID of the local socket owning the packet, or -1 (LOG --log-uid). */
	long (*sock_uid)(void *box, const struct pkt *p);
	/* Source address for an ICMP error about `orig`, chosen as Linux chooses it (REJECT). */
	void (*icmp_source)(void *box, const struct pkt *orig, union pt_addr *src);
	/* The box's conntrack table (a struct ct_table *), NULL while tracking is off
	 * (connlimit counts connections in it). Optional: NULL op = no table. */
	void *(*conntrack)(void *box);
	/* What the box's plug-in of that name offers extensions (its ext_data; the "recent"
	 * plug-in: the lists of -m recent), NULL when the box has none or it is off. Optional. */
	void *(*plugin)(void *box, const char *name);
	/* MAC address of an interface by name: 0, or -1 when unknown (pkttype). Optional. */
	int (*iface_mac)(void *box, const char *ifname, uint8_t mac[6]);
	/* The box's route toward dst (rpfilter): its type as EXT_RTN_* (UNICAST, LOCAL for the
	 * box's own addresses, BLACKHOLE, UNREACHABLE, PROHIBIT) and, for UNICAST, the name of
	 * its interface in ifname; 0 when there is no route. Optional. */
	uint32_t (*route_dev)(void *box, int family, const union pt_addr *dst, char ifname[16]);
	/* -j NFLOG: the packet for log group `group` (box_ops.nflog). Optional. */
	void (*nflog)(void *box, unsigned group, const char *prefix, const struct pkt *p);
};

struct ext_env {
	const struct ext_env_ops *ops;
	void *box;
};

/* The env's hash key (ext_env_ops.hash_key), or a zero key when it has none. A table copies it
 * when it takes its first entry and keeps it, so a later `seed` does not misplace entries. */
static inline void ext_env_hash_key(const struct ext_env *env, uint64_t key[2])
{
	const uint64_t *k = env && env->ops && env->ops->hash_key ? env->ops->hash_key(env->box)
								   : NULL;

	key[0] = k ? k[0] : 0;
	key[1] = k ? k[1] : 0;
}

/*
 * What one pass over a packet found for a group of rules compiled together (the string
 * match's chain groups): the engine gives each table traversal one and empties it (owner =
 * NULL) whenever a target ran, since a target may change the packet. The first rule of a
 * group that is evaluated scans and fills it; the group's other rules read their bit.
 */
#define EXT_SCAN_MAX_MEMBERS 1024
struct ext_scan_cache {
	const void *owner; /* the group these results belong to, NULL: none */
	uint64_t hits[EXT_SCAN_MAX_MEMBERS / 64];
};

/* Everything a match or target sees of one packet at one rule. */
struct ext_pkt_ctx {
	struct pkt *pkt;
	const struct pkt_info *info;  /* == &pkt->info */
	int family;                   /* AF_INET or AF_INET6 */
	unsigned hook;                /* HOOK_* */
	unsigned table;               /* TABLE_* */
	const char *in, *out;         /* interface names, "" when none */
	uint64_t now_ns;              /* the box's clock */
	const struct ext_env *env;
	const char *chain;            /* chain name, for LOG/TRACE */
	struct ext_scan_cache *scan;  /* this traversal's one-pass scan results, NULL: none */
	unsigned rulenum;             /* 1-based position in the chain */
	bool hotdrop;                 /* a match sets this to drop the packet at once */
	uint16_t queue_num;           /* set by a target returning EXT_QUEUE */
	uint16_t queue_flags;         /* EXT_QUEUE_BYPASS, ... */
};

enum { EXT_QUEUE_BYPASS = 1 << 0, EXT_QUEUE_FAIL_OPEN = 1 << 1, EXT_QUEUE_CPU_FANOUT = 1 << 2 };

/* What a check callback knows about the rule it is in. */
struct ext_check_ctx {
	int family;
	unsigned table;        /* TABLE_* */
	uint32_t hook_mask;    /* HOOK_BIT()s from which this rule can be reached */
	uint16_t proto;        /* -p value, 0 if none */
	bool proto_inverted;   /* ! -p */
	char *err;             /* write a message here on failure */
	size_t errlen;
};

/* What a parse callback is given. */
struct ext_parse_ctx {
	int family;
	unsigned table;
	uint16_t proto;        /* -p so far */
	bool proto_inverted;
	bool invert;           /* this option had a "!" */
	char *err;             /* write a message here on failure */
	size_t errlen;
};

/* Printing: a callback writes tokens through these. */
struct ext_printer {
	FILE *f;
	int family;
};
/* Print " --name" preceded by " !" when inverted. */
void ext_print_opt(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt_index);
/* Print " " + the value of option `i` with the core's canonical formatter for its type. */
void ext_print_value(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt_index);
/* Print " " + s, quoted as iptables-save quotes strings. */
void ext_print_string(struct ext_printer *pr, const char *s);
/* Core's parse of an integer with range check; 0 or -EINVAL/-ERANGE. For parse callbacks. */
int ext_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Port number or service name (for protocol "tcp"/"udp"...); 0 or -EINVAL. */
int ext_parse_port(const char *s, const char *proto, uint16_t *out);

/* ---- compiled classification (src/classify) ---------------------------------------------- */

/* Packet fields a match may describe its test by. Ports and ICMP type/code exist only for a
 * first fragment (or an unfragmented packet) of a protocol that has them. */
enum ext_cls_field {
	EXT_CLS_SRC,     /* source address */
	EXT_CLS_DST,     /* destination address */
	EXT_CLS_SPORT,   /* transport source port */
	EXT_CLS_DPORT,   /* transport destination port */
	EXT_CLS_ICMP,    /* ICMP or ICMPv6 type << 8 | code */
	EXT_CLS_MARK,    /* pkt->mark */
	EXT_CLS_CTSTATE, /* CT_STATE_* bits of the packet (ext_match.cls_value reads them) */
};

/*
 * One test of a match on one field: the packet's value lies in [lo, hi] (several tests of one
 * field from one call: in any of them); with `invert` (the same on all of them), in none.
 * Addresses in lo/hi whole (network order, as union pt_addr holds them); other fields in
 * lo.w[0] / hi.w[0], host order.
 */
struct ext_cls_test {
	uint8_t field; /* EXT_CLS_* */
	bool invert;
	union pt_addr lo, hi;
};

#define EXT_CLS_MAX_TESTS 32

/* A test of a scalar field on [lo, hi]. */
static inline struct ext_cls_test ext_cls_range(unsigned field, bool invert, uint32_t lo,
						uint32_t hi)
{
	struct ext_cls_test t = {.field = (uint8_t)field, .invert = invert};

	t.lo.w[0] = lo;
	t.hi.w[0] = hi;
	return t;
}

/* Where an instance sits in its chain (ext_match.chain_prepare). */
struct ext_chain_place {
	unsigned rule;	/* index of the rule in the chain */
	unsigned match; /* index among the rule's matches (0: evaluated first) */
};

/* ---- declarations ------------------------------------------------------------------------ */

struct ext_match {
	const char *name;     /* "tcp", as in -m tcp */
	int family;           /* AF_INET, AF_INET6, or 0 for both */
	uint16_t proto;       /* required -p (not inverted), 0 if none */
	uint32_t tables;      /* TABLE_BIT()s allowed, 0 = all */
	uint32_t hooks;       /* HOOK_BIT()s allowed, 0 = all */
	size_t datasize;
	const struct ext_opt *opts;
	unsigned nopts;
	/* Defaults before any option is parsed (data is zeroed first). Optional. */
	void (*init)(struct ext_instance *inst);
	/* EXT_T_CUSTOM options, EXT_OPT_NOSTORE options, and post-processing of any option
	 * (called after the core stored the value). Optional. 0 or -EINVAL with ctx->err set. */
	int (*parse)(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt_index,
		     const char *arg);
	/* Whole-extension check at load time, after all options: mandatory options, values that
	 * depend on each other, allocation of run-time state (hashlimit's table). Optional. */
	int (*check)(const struct ext_check_ctx *ctx, struct ext_instance *inst);
	/* Free what check() allocated. Optional. */
	void (*destroy)(struct ext_instance *inst);
	/* Replaces the core's printer for the whole extension (after " -m name"). Optional. */
	void (*print)(struct ext_printer *pr, const struct ext_instance *inst);
	/* The instance is no test at all and is printed as nothing, not even " -m name" (tcp and
	 * udp with only an inverted full port range, which iptables-nft drops). Optional. */
	bool (*omit)(const struct ext_instance *inst);
	/* Per packet. true = the match matches (before the core applies nothing: inversion of
	 * options is the extension's business, because it knows what "not" means per option). */
	bool (*match)(struct ext_pkt_ctx *ctx, struct ext_instance *inst);
	/* After the whole ruleset is checked: this match's instances of one chain, in rule
	 * order, when the chain has two or more (string compiles their patterns together).
	 * where[i] is instance i's place: its rule's index in the chain and its position among
	 * that rule's matches. Optional. It cannot fail the load: an instance it leaves alone
	 * works on its own; its destroy() releases whatever this shared between them. */
	void (*chain_prepare)(struct ext_instance *const *insts,
			      const struct ext_chain_place *where, unsigned n);
	/* After match() returned false for this instance in rule `ri` of its chain: the index
	 * of the next rule that may still match this packet (> ri), from what the match knows
	 * (string: the following rules of its group whose string test, their first match, just
	 * failed cannot). Optional; without it the traversal goes on with ri + 1. */
	unsigned (*next_candidate)(const struct ext_pkt_ctx *ctx, const struct ext_instance *inst,
				   unsigned ri);
	/* Alternative names accepted by -m (e.g. "icmpv6" for "icmp6"). Optional, NULL-ended. */
	const char *const *aliases;
	/* For compiled classifiers (optional). Only a match without side effects (no state, no
	 * packet change, no hotdrop on a packet whose headers are all there) has it. Writes the
	 * match's field tests (at most EXT_CLS_MAX_TESTS) and returns their number (0: the match
	 * is pure but has no test a classifier can use): a packet that fails one of them never
	 * matches, so a classifier may skip the rule; one that passes them all is still given to
	 * match(). A match without it ends what a classifier reads of a rule. *exact (false
	 * when called) is set when the tests are the whole match: a packet whose headers are
	 * all there passes them exactly when match() returns true. */
	unsigned (*cls_tests)(const struct ext_instance *inst, int family,
			      struct ext_cls_test *out, bool *exact);
	/* The packet's value of a field only this match can read (EXT_CLS_CTSTATE). Optional. */
	uint32_t (*cls_value)(const struct ext_pkt_ctx *ctx, unsigned field);
	/* The match reads connection tracking state (state, conntrack, connmark, connbytes,
	 * connlimit, helper, ...). A box whose ruleset has one such rule turns tracking, and the
	 * defragmentation in front of it, on (and keeps it on), as loading such a rule makes
	 * Linux load nf_conntrack in the namespace. Without any, packets are not tracked and a
	 * non-first fragment still matches -f. */
	bool needs_conntrack;
};

struct ext_target {
	const char *name;     /* "REJECT", as in -j REJECT */
	int family;
	uint16_t proto;
	uint32_t tables;
	uint32_t hooks;
	size_t datasize;
	const struct ext_opt *opts;
	unsigned nopts;
	void (*init)(struct ext_instance *inst);
	int (*parse)(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt_index,
		     const char *arg);
	int (*check)(const struct ext_check_ctx *ctx, struct ext_instance *inst);
	void (*destroy)(struct ext_instance *inst);
	void (*print)(struct ext_printer *pr, const struct ext_instance *inst);
	/* Per packet: an ext_verdict. EXT_CONTINUE for non-terminating targets (LOG, MARK). */
	int (*target)(struct ext_pkt_ctx *ctx, struct ext_instance *inst);
	/* The target uses or sets connection tracking state (CT, NOTRACK, CONNMARK, NAT
	 * targets, ...): as ext_match.needs_conntrack. */
	bool needs_conntrack;
};

/* The set of extensions a parser may use. src/ext provides the default one. */
struct ext_registry {
	const struct ext_match *const *matches;
	unsigned nmatches;
	const struct ext_target *const *targets;
	unsigned ntargets;
};

/* Look up by name (and aliases) for a family; NULL if none. */
const struct ext_match *ext_find_match(const struct ext_registry *r, const char *name, int family);
const struct ext_target *ext_find_target(const struct ext_registry *r, const char *name,
					 int family);

/* The registry of every extension pkttables has (src/ext/registry.c). */
const struct ext_registry *ext_registry_default(void);

#endif
