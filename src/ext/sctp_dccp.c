// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m sctp (xt_sctp) and -m dccp (xt_dccp): ports, SCTP chunk types and flags, DCCP packet
 * types and options. Loaded by -p sctp / -p dccp with their options, or by -m.
 *
 *   -m sctp [!] --sport P[:P] [!] --dport P[:P] [!] --chunk-types any|all|only TYPE[:FLAGS],...
 *       any: some chunk of the packet is listed; all: every listed type is in the packet;
 *       only: every chunk of the packet is listed. FLAGS (DATA: I U B E, ABORT and
 *       SHUTDOWN_COMPLETE: T): upper case set, lower case clear, others not compared.
 *   -m dccp [!] --sport P[:P] [!] --dport P[:P] [!] --dccp-types TYPE,...  [!] --dccp-option N
 *
 *   SCTP: common header (12 bytes: ports, vtag, checksum), then chunks
 *         | type | flags | length (with header, not padding) | value, padded to 4 bytes |
 *   DCCP: | sport | dport | doff | ccval,cscov | checksum | res:3 type:4 X:1 | ... |
 *         options from the end of the type's header to doff * 4
 *
 * A non-first fragment never matches; a header cut short drops the packet (hotdrop).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ext/match_util.h"
#include "rules/ext.h"

/* ---- sctp ------------------------------------------------------------------------------- */

struct sctp_chunk_name {
	const char *name;
	uint8_t type;
	const char *flags; /* letters, highest bit first, of the flags that can be compared */
};

static const struct sctp_chunk_name sctp_chunks[] = {
    {"DATA", 0, "IUBE"},
    {"INIT", 1, ""},
    {"INIT_ACK", 2, ""},
    {"SACK", 3, ""},
    {"HEARTBEAT", 4, ""},
    {"HEARTBEAT_ACK", 5, ""},
    {"ABORT", 6, "T"},
    {"SHUTDOWN", 7, ""},
    {"SHUTDOWN_ACK", 8, ""},
    {"ERROR", 9, ""},
    {"COOKIE_ECHO", 10, ""},
    {"COOKIE_ACK", 11, ""},
    {"ECN_ECNE", 12, ""},
    {"ECN_CWR", 13, ""},
    {"SHUTDOWN_COMPLETE", 14, "T"},
    {"I_DATA", 64, ""},
    {"ASCONF_ACK", 128, ""},
    {"RE_CONFIG", 130, ""},
    {"PAD", 132, ""},
    {"FORWARD_TSN", 192, ""},
    {"ASCONF", 193, ""},
    {"I_FORWARD_TSN", 194, ""},
};

#define N_CHUNKS	  (sizeof(sctp_chunks) / sizeof(sctp_chunks[0]))
#define SCTP_MAX_FLAGINFO 4

enum { SCTP_ANY = 1, SCTP_ALL, SCTP_ONLY };

struct sctp_info {
	uint16_t spts[2], dpts[2];
	uint32_t map[8]; /* bit t: chunk type t listed */
	uint8_t mode;
	uint8_t nflags;
	struct {
		uint8_t type, flag, mask;
	} flags[SCTP_MAX_FLAGINFO];
};

enum { S_SPORT, S_DPORT, S_CHUNKS, S_SPORT_ALIAS, S_DPORT_ALIAS };

static const struct ext_opt sctp_opts[] = {
    [S_SPORT] = {.name = "sport",
		 .type = EXT_T_PORT_RANGE,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct sctp_info, spts)},
    [S_DPORT] = {.name = "dport",
		 .type = EXT_T_PORT_RANGE,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct sctp_info, dpts)},
    [S_CHUNKS] = {.name = "chunk-types",
		  .type = EXT_T_CUSTOM,
		  .flags = EXT_OPT_INVERT | EXT_OPT_ARGS2},
    [S_SPORT_ALIAS] = {.name = "source-port",
		       .type = EXT_T_PORT_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		       .print_as = S_SPORT,
		       EXT_FIELD(struct sctp_info, spts)},
    [S_DPORT_ALIAS] = {.name = "destination-port",
		       .type = EXT_T_PORT_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		       .print_as = S_DPORT,
		       EXT_FIELD(struct sctp_info, dpts)},
};

static void ports_init(struct ext_instance *inst)
{
	uint16_t *p = inst->data; /* spts, dpts first in both structs */

	p[1] = p[3] = 0xffff;
}

static const struct sctp_chunk_name *chunk_by_type(unsigned t)
{
	for (size_t i = 0; i < N_CHUNKS; i++)
		if (sctp_chunks[i].type == t)
			return &sctp_chunks[i];
	return NULL;
}

/* "MODE TYPE[:FLAGS],..." (the core joins the two words with one space) */
static int sctp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
		      const char *arg)
{
	struct sctp_info *si = inst->data;
	const char *s = strchr(arg, ' ');

	if (i != S_CHUNKS)
		return 0;
	if (!s)
		goto bad;
	if (!strncasecmp(arg, "any ", 4))
		si->mode = SCTP_ANY;
	else if (!strncasecmp(arg, "all ", 4))
		si->mode = SCTP_ALL;
	else if (!strncasecmp(arg, "only ", 5))
		si->mode = SCTP_ONLY;
	else
		goto bad;
	for (s++; *s;) {
		size_t n = strcspn(s, ","), nl = strcspn(s, ",:");
		const struct sctp_chunk_name *c = NULL;

		for (size_t k = 0; k < N_CHUNKS && !c; k++)
			if (strlen(sctp_chunks[k].name) == nl &&
			    !strncasecmp(s, sctp_chunks[k].name, nl))
				c = &sctp_chunks[k];
		if (!c)
			goto bad;
		si->map[c->type / 32] |= 1u << (c->type % 32);
		if (nl < n) { /* :FLAGS */
			uint8_t flag = 0, mask = 0;

			if (si->nflags == SCTP_MAX_FLAGINFO)
				goto bad;
			for (size_t k = nl + 1; k < n; k++) {
				const char *l = strchr(c->flags, s[k] & ~0x20);
				unsigned bit;

				if (!c->flags[0] || !l || !*l)
					goto bad;
				bit = 1u << (strlen(c->flags) - 1 - (size_t)(l - c->flags));
				mask |= (uint8_t)bit;
				if (s[k] >= 'A' && s[k] <= 'Z')
					flag |= (uint8_t)bit;
			}
			si->flags[si->nflags].type = c->type;
			si->flags[si->nflags].flag = flag;
			si->flags[si->nflags].mask = mask;
			si->nflags++;
		}
		s += n;
		if (*s == ',' && !*++s)
			goto bad;
	}
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "sctp: bad --chunk-types \"%s\"", arg);
	return -EINVAL;
}

static void print_range(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt,
			const uint16_t r[2])
{
	if (!(inst->seen & 1u << opt))
		return;
	ext_print_opt(pr, inst, opt);
	if (r[0] == r[1])
		fprintf(pr->f, " %u", r[0]);
	else
		fprintf(pr->f, " %u:%u", r[0], r[1]);
}

static void sctp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct sctp_info *si = inst->data;
	static const char *const modes[] = {"", "any", "all", "only"};
	const char *sep = " ";

	print_range(pr, inst, S_SPORT, si->spts);
	print_range(pr, inst, S_DPORT, si->dpts);
	if (!(inst->seen & 1u << S_CHUNKS))
		return;
	ext_print_opt(pr, inst, S_CHUNKS);
	fprintf(pr->f, " %s", modes[si->mode]);
	for (unsigned t = 0; t < 256; t++) {
		const struct sctp_chunk_name *c;

		if (!(si->map[t / 32] & 1u << (t % 32)) || !(c = chunk_by_type(t)))
			continue;
		fprintf(pr->f, "%s%s", sep, c->name);
		sep = ",";
		for (unsigned k = 0; k < si->nflags; k++) {
			size_t nf = strlen(c->flags);

			if (si->flags[k].type != t)
				continue;
			fputc(':', pr->f);
			for (size_t b = 0; b < nf; b++) {
				unsigned bit = 1u << (nf - 1 - b);

				if (si->flags[k].mask & bit)
					fputc(si->flags[k].flag & bit ? c->flags[b]
								      : c->flags[b] | 0x20,
					      pr->f);
			}
		}
	}
}

static bool sctp_flags_ok(const struct sctp_info *si, uint8_t type, uint8_t flags)
{
	for (unsigned k = 0; k < si->nflags; k++)
		if (si->flags[k].type == type)
			return (flags & si->flags[k].mask) == si->flags[k].flag;
	return true;
}

/* The chunk test; *drop on a chunk header cut short. */
static bool sctp_chunks_match(struct ext_pkt_ctx *ctx, const struct sctp_info *si, bool *drop)
{
	uint32_t need[8], len = ctx->info->l4len;

	memcpy(need, si->map, sizeof(need));
	for (uint32_t off = 12; off < len;) {
		uint8_t b[4];
		uint8_t t, fl;
		uint16_t clen;

		if (pkt_copy_out(ctx->pkt, ctx->info->l4off + off, b, 4) < 0 || off + 4 > len) {
			*drop = true;
			return false;
		}
		t = b[0];
		fl = b[1];
		clen = ext_get_be16(b + 2);
		if (si->map[t / 32] & 1u << (t % 32)) {
			bool ok = sctp_flags_ok(si, t, fl);

			if (si->mode == SCTP_ANY && ok)
				return true;
			if (si->mode == SCTP_ALL && ok)
				need[t / 32] &= ~(1u << (t % 32));
			if (si->mode == SCTP_ONLY && !ok)
				return false;
		} else if (si->mode == SCTP_ONLY) {
			return false;
		}
		if (clen < 4) { /* a chunk that does not move on: malformed */
			*drop = true;
			return false;
		}
		off += (clen + 3u) & ~3u;
	}
	if (si->mode == SCTP_ALL) {
		for (int i = 0; i < 8; i++)
			if (need[i])
				return false;
		return true;
	}
	return si->mode == SCTP_ONLY;
}

static bool in_range(uint16_t p, const uint16_t r[2])
{
	return p >= r[0] && p <= r[1];
}

/* An option given: its test, turned over by "!"; an option not given holds. */
#define CHECK(inst, opt, cond)                                                                     \
	(!((inst)->seen & 1u << (opt)) || (!!((inst)->inv & 1u << (opt)) ^ (cond)))

static bool sctp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct sctp_info *si = inst->data;
	uint8_t b[12];
	const uint8_t *sh;
	bool drop = false, chunks;

	if (ext_is_later_fragment(ctx))
		return false;
	sh = ext_l4_header(ctx, 12, b);
	if (!sh) {
		ctx->hotdrop = true;
		return false;
	}
	if (!CHECK(inst, S_SPORT, in_range(ext_get_be16(sh), si->spts)) ||
	    !CHECK(inst, S_DPORT, in_range(ext_get_be16(sh + 2), si->dpts)))
		return false;
	if (!(inst->seen & 1u << S_CHUNKS))
		return true;
	chunks = sctp_chunks_match(ctx, si, &drop);
	if (drop) {
		ctx->hotdrop = true;
		return false;
	}
	return CHECK(inst, S_CHUNKS, chunks);
}

const struct ext_match ext_match_sctp = {
    .name = "sctp",
    .proto = IPPROTO_SCTP,
    .datasize = sizeof(struct sctp_info),
    .opts = sctp_opts,
    .nopts = sizeof(sctp_opts) / sizeof(sctp_opts[0]),
    .init = ports_init,
    .parse = sctp_parse,
    .print = sctp_print,
    .match = sctp_match,
};

/* ---- dccp ------------------------------------------------------------------------------- */

struct dccp_info {
	uint16_t spts[2], dpts[2];
	uint32_t types; /* bit t: DCCP packet type t */
	uint8_t option;
};

enum { D_SPORT, D_DPORT, D_TYPES, D_OPTION, D_SPORT_ALIAS, D_DPORT_ALIAS };

static const struct ext_name dccp_type_names[] = {
    {"REQUEST", 1u << 0}, {"RESPONSE", 1u << 1}, {"DATA", 1u << 2},	{"ACK", 1u << 3},
    {"DATAACK", 1u << 4}, {"CLOSEREQ", 1u << 5}, {"CLOSE", 1u << 6},	{"RESET", 1u << 7},
    {"SYNC", 1u << 8},	  {"SYNCACK", 1u << 9},	 {"INVALID", 1u << 10}, {NULL, 0},
};

static const struct ext_opt dccp_opts[] = {
    [D_SPORT] = {.name = "sport",
		 .type = EXT_T_PORT_RANGE,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct dccp_info, spts)},
    [D_DPORT] = {.name = "dport",
		 .type = EXT_T_PORT_RANGE,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct dccp_info, dpts)},
    [D_TYPES] = {.name = "dccp-types",
		 .type = EXT_T_NAME_LIST,
		 .flags = EXT_OPT_INVERT,
		 EXT_FIELD(struct dccp_info, types),
		 .names = dccp_type_names},
    [D_OPTION] = {.name = "dccp-option",
		  .type = EXT_T_U8,
		  .flags = EXT_OPT_INVERT,
		  EXT_FIELD(struct dccp_info, option)},
    [D_SPORT_ALIAS] = {.name = "source-port",
		       .type = EXT_T_PORT_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		       .print_as = D_SPORT,
		       EXT_FIELD(struct dccp_info, spts)},
    [D_DPORT_ALIAS] = {.name = "destination-port",
		       .type = EXT_T_PORT_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		       .print_as = D_DPORT,
		       EXT_FIELD(struct dccp_info, dpts)},
};

static void dccp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct dccp_info *di = inst->data;

	print_range(pr, inst, D_SPORT, di->spts);
	print_range(pr, inst, D_DPORT, di->dpts);
	if (inst->seen & 1u << D_TYPES) {
		const char *sep = " ";

		ext_print_opt(pr, inst, D_TYPES);
		for (const struct ext_name *n = dccp_type_names; n->name; n++)
			if (di->types & n->value) {
				fprintf(pr->f, "%s%s", sep, n->name);
				sep = ",";
			}
	}
	if (inst->seen & 1u << D_OPTION) {
		ext_print_opt(pr, inst, D_OPTION);
		fprintf(pr->f, " %u", di->option);
	}
}

/* Bytes of a DCCP packet type's header after the generic one (RFC 4340 5.2-5.6). */
static unsigned dccp_type_hdr_len(unsigned type)
{
	switch (type) {
	case 0: /* REQUEST: service code */
		return 4;
	case 1: /* RESPONSE: acknowledgement, service code */
	case 7: /* RESET: acknowledgement, reset code and data */
		return 12;
	case 2: /* DATA */
		return 0;
	default: /* acknowledgement subheader */
		return 8;
	}
}

/* Is option `opt` in the options area? *drop when doff is shorter than the headers. */
static bool dccp_has_option(struct ext_pkt_ctx *ctx, const uint8_t *dh, uint8_t opt, bool *drop)
{
	unsigned hlen = (dh[8] & 1 ? 16u : 12u) + dccp_type_hdr_len((dh[8] >> 1) & 0x0f);
	unsigned total = dh[4] * 4u, optlen;
	uint8_t op[1024];

	if (total < hlen) {
		*drop = true;
		return false;
	}
	optlen = total - hlen;
	if (!optlen)
		return false;
	if (total > ctx->info->l4len ||
	    pkt_copy_out(ctx->pkt, ctx->info->l4off + hlen, op, optlen) < 0) {
		*drop = true;
		return false;
	}
	for (unsigned i = 0; i < optlen;) {
		if (op[i] == opt)
			return true;
		if (op[i] < 2)
			i++;
		else
			i += i + 1 < optlen && op[i + 1] ? op[i + 1] : 1u;
	}
	return false;
}

static bool dccp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct dccp_info *di = inst->data;
	uint8_t b[12];
	const uint8_t *dh;
	bool drop = false, has;

	if (ext_is_later_fragment(ctx))
		return false;
	dh = ext_l4_header(ctx, 12, b);
	if (!dh) {
		ctx->hotdrop = true;
		return false;
	}
	if (!CHECK(inst, D_SPORT, in_range(ext_get_be16(dh), di->spts)) ||
	    !CHECK(inst, D_DPORT, in_range(ext_get_be16(dh + 2), di->dpts)) ||
	    !CHECK(inst, D_TYPES, (di->types >> ((dh[8] >> 1) & 0x0f)) & 1))
		return false;
	if (!(inst->seen & 1u << D_OPTION))
		return true;
	has = dccp_has_option(ctx, dh, di->option, &drop);
	if (drop) {
		ctx->hotdrop = true;
		return false;
	}
	return CHECK(inst, D_OPTION, has);
}

const struct ext_match ext_match_dccp = {
    .name = "dccp",
    .proto = IPPROTO_DCCP,
    .datasize = sizeof(struct dccp_info),
    .opts = dccp_opts,
    .nopts = sizeof(dccp_opts) / sizeof(dccp_opts[0]),
    .init = ports_init,
    .print = dccp_print,
    .match = dccp_match,
};
