// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m string: a byte pattern somewhere in the packet (xt_string).
 *
 *   -m string --algo bm|kmp [!] --string TEXT | [!] --hex-string "GET |2f|"
 *             [--from N] [--to N] [--icase]
 *
 *   IP header                                              end of the datagram
 *   |<-- from -->|<========= searched ==========>|<-- past to -->|
 *                 the whole occurrence lies in [from, to); from and to count from the first
 *                 byte of the network header (to: 0..65535, default 65535)
 *
 * As Linux 6.18 decides it (measured with xt_string in a namespace): the text searched runs
 * from `from` to the end of the IP datagram and an occurrence counts only when it ends at or
 * before `to` (kernels before 6.7 let an occurrence start before `to` and run past it). A
 * `from` beyond the datagram never matches. --icase folds as Linux's toupper (Latin-1 too).
 * The packet is searched segment by segment (textsearch), never copied; unlike Linux's bm,
 * both algorithms find an occurrence split across segments.
 *
 * --hex-string: text with |..| blocks of hex byte pairs (a space may follow a pair; spaces
 * after the opening bar are skipped), a backslash outside a block takes the next character
 * as it is; the character right after a closing bar is always taken as it is. At most 128
 * bytes. Printed back as iptables-save does: --string "..." (with \" and \\) when every byte
 * is printable ASCII and the last is no backslash, else --hex-string "|..|" in lower case.
 *
 * Many string rules in one chain are compiled together at load (chain_prepare): the first of
 * them a packet reaches scans it once for all (textsearch/multi.h) and leaves which of them
 * matched in the traversal's ext_scan_cache; the others read their bit, and when a rule fails
 * on it the traversal is told which following rules cannot match either (next_candidate), so
 * a long run of string rules costs one scan, not one visit each. Each rule keeps its own
 * search for callers without a cache.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"
#include "textsearch/multi.h"
#include "textsearch/pkt_source.h"
#include "textsearch/textsearch.h"

#define STRING_MAX_PATTERN 128

struct string_group;

struct string_info {
	uint8_t pattern[STRING_MAX_PATTERN];
	uint32_t patlen;
	uint32_t algo; /* index in algos[] */
	uint16_t from, to;
	struct ts_config *conf;	    /* from check() */
	struct string_group *group; /* from chain_prepare, NULL when alone */
	unsigned member;	    /* this rule's index in the group */
};

/* Rules of one chain compiled together; the last member's destroy() frees it. */
struct string_group {
	struct ts_multi *multi;
	unsigned refs;
	uint16_t from, to; /* the union of the members' windows */
	unsigned n;
	struct string_member {
		uint16_t from, to;
		uint32_t len;
		unsigned rule; /* the rule's index in the chain */
		bool first;    /* the rule's first match: if it fails, so does the rule */
		bool inv;      /* ! --string */
	} m[];
};

static const char *const algos[] = {"bm", "kmp"};

enum { O_STRING, O_HEX_STRING, O_ALGO, O_FROM, O_TO, O_ICASE };

static const struct ext_opt string_opts[] = {
    [O_STRING] = {.name = "string",
		  .type = EXT_T_CUSTOM,
		  .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE,
		  .excl = 1u << O_HEX_STRING},
    [O_HEX_STRING] = {.name = "hex-string",
		      .type = EXT_T_CUSTOM,
		      .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE,
		      .excl = 1u << O_STRING},
    [O_ALGO] = {.name = "algo", .type = EXT_T_CUSTOM, .flags = EXT_OPT_MANDATORY | EXT_OPT_NOSTORE},
    [O_FROM] = {.name = "from", .type = EXT_T_U16, EXT_FIELD(struct string_info, from)},
    [O_TO] = {.name = "to", .type = EXT_T_U16, EXT_FIELD(struct string_info, to)},
    [O_ICASE] = {.name = "icase", .type = EXT_T_NONE},
};

static void string_init(struct ext_instance *inst)
{
	struct string_info *si = inst->data;

	si->to = UINT16_MAX;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* --hex-string syntax (see the top of the file) into si->pattern. 0, or -EINVAL with err. */
static int parse_hex_string(const char *s, struct string_info *si, char *err, size_t errlen)
{
	size_t len = strlen(s), i = 0;
	bool in_hex = false;
	uint32_t n = 0;

	if (!len) {
		ext_errf(err, errlen, "string: --hex-string must have at least one byte");
		return -EINVAL;
	}
	while (i < len) {
		int hi, lo;

		if (n >= STRING_MAX_PATTERN) {
			ext_errf(err, errlen, "string: pattern longer than %d bytes \"%s\"",
				 STRING_MAX_PATTERN, s);
			return -EINVAL;
		}
		if (s[i] == '\\' && in_hex) {
			ext_errf(err, errlen, "string: a backslash inside a |hex| block \"%s\"", s);
			return -EINVAL;
		}
		if (s[i] == '\\') {
			if (i + 1 >= len) {
				ext_errf(err, errlen, "string: backslash at the end of \"%s\"", s);
				return -EINVAL;
			}
			si->pattern[n++] = (uint8_t)s[i + 1];
			i += 2;
			continue;
		}
		if (s[i] == '|') {
			in_hex = !in_hex;
			while (in_hex && s[i + 1] == ' ')
				i++;
			if (i + 1 >= len)
				break;
			i++; /* the next character is read below, whatever it is */
		}
		if (!in_hex) {
			/* a plain byte; right after a closing bar, whatever it is */
			si->pattern[n++] = (uint8_t)s[i++];
			continue;
		}
		if (i + 2 >= len) {
			ext_errf(err, errlen, "string: unterminated or odd |hex| block in \"%s\"",
				 s);
			return -EINVAL;
		}
		hi = hex_digit(s[i]);
		lo = hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0) {
			ext_errf(err, errlen, "string: invalid hex character in \"%s\"", s);
			return -EINVAL;
		}
		si->pattern[n++] = (uint8_t)(hi << 4 | lo);
		i += s[i + 2] == ' ' ? 3 : 2;
	}
	si->patlen = n;
	return 0;
}

static int string_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct string_info *si = inst->data;
	size_t len;

	switch (opt) {
	case O_STRING:
		len = strlen(arg);
		if (len > STRING_MAX_PATTERN) {
			ext_errf(ctx->err, ctx->errlen,
				 "string: pattern longer than %d bytes \"%s\"", STRING_MAX_PATTERN,
				 arg);
			return -EINVAL;
		}
		memcpy(si->pattern, arg, len);
		si->patlen = (uint32_t)len;
		return 0;
	case O_HEX_STRING:
		return parse_hex_string(arg, si, ctx->err, ctx->errlen);
	case O_ALGO:
		for (uint32_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++)
			if (!strcmp(arg, algos[i])) {
				si->algo = i;
				return 0;
			}
		ext_errf(ctx->err, ctx->errlen, "string: unknown --algo \"%s\" (bm or kmp)", arg);
		return -EINVAL;
	}
	return 0;
}

static int string_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct string_info *si = inst->data;
	int ret;

	if (!(inst->seen & (1u << O_STRING | 1u << O_HEX_STRING))) {
		ext_errf(ctx->err, ctx->errlen, "you must specify --string or --hex-string");
		return -EINVAL;
	}
	if (!si->patlen) {
		ext_errf(ctx->err, ctx->errlen, "the pattern is empty");
		return -EINVAL;
	}
	if (si->from > si->to) {
		ext_errf(ctx->err, ctx->errlen, "--from %u is beyond --to %u", si->from, si->to);
		return -EINVAL;
	}
	ret = ts_prepare(algos[si->algo], si->pattern, si->patlen,
			 (inst->seen & 1u << O_ICASE) ? TS_IGNORECASE : 0, &si->conf);
	if (ret) {
		ext_errf(ctx->err, ctx->errlen, "cannot prepare the search (%s)", strerror(-ret));
		return ret;
	}
	return 0;
}

static void string_destroy(struct ext_instance *inst)
{
	struct string_info *si = inst->data;

	ts_destroy(si->conf);
	si->conf = NULL;
	if (si->group && --si->group->refs == 0) {
		ts_multi_free(si->group->multi);
		free(si->group);
	}
	si->group = NULL;
}

/* printable as iptables-save's --string: isprint() in the C locale, no trailing backslash */
static bool printable(const struct string_info *si)
{
	for (uint32_t i = 0; i < si->patlen; i++)
		if (si->pattern[i] < 0x20 || si->pattern[i] > 0x7e)
			return false;
	return si->pattern[si->patlen - 1] != '\\';
}

static void string_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct string_info *si = inst->data;
	bool hex = !printable(si);

	fprintf(pr->f, "%s --%s \"%s", inst->inv ? " !" : "", hex ? "hex-string" : "string",
		hex ? "|" : "");
	for (uint32_t i = 0; i < si->patlen; i++) {
		uint8_t c = si->pattern[i];

		if (hex)
			fprintf(pr->f, "%02x", c);
		else if (c == '"' || c == '\\')
			fprintf(pr->f, "\\%c", c);
		else
			fputc(c, pr->f);
	}
	fprintf(pr->f, "%s\" --algo %s", hex ? "|" : "", algos[si->algo]);
	if (si->from)
		fprintf(pr->f, " --from %u", si->from);
	if (si->to != UINT16_MAX)
		fprintf(pr->f, " --to %u", si->to);
	if (inst->seen & 1u << O_ICASE)
		fputs(" --icase", pr->f);
}

/* ---- one rule ---------------------------------------------------------------------------- */

static bool search_one(const struct ext_pkt_ctx *ctx, const struct string_info *si)
{
	uint32_t l3len = ext_l3_len(ctx), at;
	struct ts_pkt_range r;
	struct ts_source src;
	struct ts_state st;

	if (si->from >= l3len)
		return false;
	src = ts_pkt_source(&r, ctx->pkt, ctx->info->l3off + si->from, l3len - si->from);
	at = ts_find(si->conf, &st, &src);
	return at != TS_NOMATCH && (uint64_t)at + si->patlen <= (uint32_t)(si->to - si->from);
}

/* ---- rules compiled together ------------------------------------------------------------- */

struct group_scan {
	const struct string_group *g;
	uint64_t *hits;
};

static int group_hit(void *arg, unsigned id, uint32_t end)
{
	struct group_scan *gs = arg;
	const struct string_member *m = &gs->g->m[id];
	uint32_t at_end = gs->g->from + end; /* from the IP header */

	if (at_end - m->len >= m->from && at_end <= m->to)
		gs->hits[id / 64] |= 1ull << (id % 64);
	return 0;
}

static bool group_lookup(struct ext_pkt_ctx *ctx, const struct string_info *si)
{
	struct ext_scan_cache *sc = ctx->scan;
	const struct string_group *g = si->group;

	if (sc->owner != g) {
		uint32_t l3len = ext_l3_len(ctx);
		struct group_scan gs = {.g = g, .hits = sc->hits};
		struct ts_pkt_range r;
		struct ts_source src;

		memset(sc->hits, 0, (g->n + 63) / 64 * sizeof(sc->hits[0]));
		if (g->from < l3len) {
			uint32_t end = g->to < l3len ? g->to : l3len;

			src =
			    ts_pkt_source(&r, ctx->pkt, ctx->info->l3off + g->from, end - g->from);
			if (ts_multi_scan(si->group->multi, &src, group_hit, &gs) < 0)
				return search_one(ctx, si); /* no scratch: alone, uncached */
		}
		sc->owner = g;
	}
	return sc->hits[si->member / 64] >> (si->member % 64) & 1;
}

static void build_group(struct ext_instance *const *insts, const struct ext_chain_place *where,
			unsigned n)
{
	struct ts_multi_pattern *pats = calloc(n, sizeof(*pats));
	struct string_group *g = calloc(1, sizeof(*g) + n * sizeof(g->m[0]));

	if (!pats || !g)
		goto fail;
	g->n = n;
	g->from = UINT16_MAX;
	for (unsigned i = 0; i < n; i++) {
		const struct string_info *si = insts[i]->data;

		pats[i] = (struct ts_multi_pattern){
		    .data = si->pattern,
		    .len = si->patlen,
		    .flags = (insts[i]->seen & 1u << O_ICASE) ? TS_IGNORECASE : 0,
		};
		g->m[i] = (struct string_member){
		    .from = si->from,
		    .to = si->to,
		    .len = si->patlen,
		    .rule = where[i].rule,
		    .first = where[i].match == 0,
		    .inv = insts[i]->inv & (1u << O_STRING | 1u << O_HEX_STRING),
		};
		g->from = si->from < g->from ? si->from : g->from;
		g->to = si->to > g->to ? si->to : g->to;
	}
	if (ts_multi_build(pats, n, TS_MULTI_AUTO, &g->multi))
		goto fail; /* too big for one automaton: every rule searches alone */
	for (unsigned i = 0; i < n; i++) {
		struct string_info *si = insts[i]->data;

		si->group = g;
		si->member = i;
	}
	g->refs = n;
	free(pats);
	return;
fail:
	free(pats);
	free(g);
}

static void string_chain_prepare(struct ext_instance *const *insts,
				 const struct ext_chain_place *where, unsigned n)
{
	for (unsigned i = 0; i < n; i += EXT_SCAN_MAX_MEMBERS)
		if (n - i >= 2)
			build_group(insts + i, where + i,
				    n - i < EXT_SCAN_MAX_MEMBERS ? n - i : EXT_SCAN_MAX_MEMBERS);
}

/*
 * Rule ri failed at this match. When this packet's scan of the group is in the memo, the
 * rules right after ri whose first match is a member of the group that failed too cannot
 * match: the traversal may go on after them (as it would, one failed rule at a time, since a
 * rule stops at its first failed match and nothing before it ran). Not for a packet whose
 * IPv6 extension headers are broken: there the standard part of a rule with -p may drop it
 * (hotdrop) before any match, so every rule must be looked at.
 */
static unsigned string_next_candidate(const struct ext_pkt_ctx *ctx,
				      const struct ext_instance *inst, unsigned ri)
{
	const struct string_info *si = inst->data;
	const struct string_group *g = si->group;
	unsigned r = ri + 1, j;

	if (!g || !ctx->scan || ctx->scan->owner != g || ctx->info->bad == PKT_BAD_EXTHDR)
		return r;
	for (j = si->member + 1; j < g->n && g->m[j].rule < r; j++)
		;
	while (j < g->n && g->m[j].rule == r && g->m[j].first &&
	       !((ctx->scan->hits[j / 64] >> (j % 64) & 1) ^ g->m[j].inv)) {
		r++;
		while (j < g->n && g->m[j].rule < r)
			j++;
	}
	return r;
}

static bool string_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct string_info *si = inst->data;
	bool found;

	if (si->group && ctx->scan)
		found = group_lookup(ctx, si);
	else
		found = search_one(ctx, si);
	return found ^ !!(inst->inv & (1u << O_STRING | 1u << O_HEX_STRING));
}

const struct ext_match ext_match_string = {
    .name = "string",
    .datasize = sizeof(struct string_info),
    .opts = string_opts,
    .nopts = sizeof(string_opts) / sizeof(string_opts[0]),
    .init = string_init,
    .parse = string_parse,
    .check = string_check,
    .destroy = string_destroy,
    .print = string_print,
    .match = string_match,
    .chain_prepare = string_chain_prepare,
    .next_candidate = string_next_candidate,
};
