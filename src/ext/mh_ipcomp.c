// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m mh (ip6t_mh, needs -p mobility-header) and -m ipcomp (xt_ipcomp, needs -p ipcomp).
 *
 *   -m mh [!] --mh-type TYPE[:TYPE]    numbers or the RFC 6275 names (binding-refresh-request
 *                                      brr 0 ... binding-error be 7); printed as numbers, the
 *                                      full range 0:255 not at all
 *   -m ipcomp [!] --ipcompspi N[:M] [--compres]   the CPI (16 bits on the wire) in N..M;
 *                                      iptables' default is 0:0 (printed "--ipcompspi 0");
 *                                      --compres is accepted and printed, as in the kernel
 *                                      never compared
 *
 *   Mobility header: | payload proto | hdr len | MH type | reserved | checksum | ...
 *   IPComp header:   | next header   | flags   | CPI (16)                     |
 *
 * A non-first fragment never matches; a cut-short header, or a mobility header whose payload
 * protocol is not "no next header" (59), drops the packet (hotdrop), as the kernel does.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#ifndef IPPROTO_MH
#define IPPROTO_MH 135
#endif

/* ---- mh ---------------------------------------------------------------------------------- */

struct mh_info {
	uint8_t types[2];
};

static const struct ext_opt mh_opts[] = {
    {.name = "mh-type", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
};

static const struct ext_name mh_names[] = {
    {"binding-refresh-request", 0},
    {"brr", 0},
    {"home-test-init", 1},
    {"hoti", 1},
    {"careof-test-init", 2},
    {"coti", 2},
    {"home-test", 3},
    {"hot", 3},
    {"careof-test", 4},
    {"cot", 4},
    {"binding-update", 5},
    {"bu", 5},
    {"binding-acknowledgement", 6},
    {"ba", 6},
    {"binding-error", 7},
    {"be", 7},
    {NULL, 0},
};

static int mh_one(const char *s, size_t n, unsigned *out)
{
	char buf[32];
	uint64_t v;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	for (const struct ext_name *m = mh_names; m->name; m++)
		if (!strcmp(m->name, buf)) {
			*out = m->value;
			return 0;
		}
	if (ext_parse_uint(buf, 0, 255, &v))
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static void mh_init(struct ext_instance *inst)
{
	((struct mh_info *)inst->data)->types[1] = 255;
}

static int mh_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
		    const char *arg)
{
	struct mh_info *mi = inst->data;
	const char *colon = strchr(arg, ':');
	unsigned lo = 0, hi = 255;

	(void)i;
	if (colon) {
		if ((colon != arg && mh_one(arg, (size_t)(colon - arg), &lo)) ||
		    (colon[1] && mh_one(colon + 1, strlen(colon + 1), &hi)) || lo > hi)
			goto bad;
	} else if (mh_one(arg, strlen(arg), &lo)) {
		goto bad;
	} else {
		hi = lo;
	}
	mi->types[0] = (uint8_t)lo;
	mi->types[1] = (uint8_t)hi;
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "mh: bad --mh-type \"%s\"", arg);
	return -EINVAL;
}

static void mh_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct mh_info *mi = inst->data;

	if (!(inst->seen & 1u) || (mi->types[0] == 0 && mi->types[1] == 255))
		return;
	ext_print_opt(pr, inst, 0);
	if (mi->types[0] == mi->types[1])
		fprintf(pr->f, " %u", mi->types[0]);
	else
		fprintf(pr->f, " %u:%u", mi->types[0], mi->types[1]);
}

static bool mh_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct mh_info *mi = inst->data;
	uint8_t b[6];
	const uint8_t *mh;

	if (ext_is_later_fragment(ctx))
		return false;
	mh = ext_l4_header(ctx, 6, b);
	if (!mh || mh[0] != IPPROTO_NONE) {
		ctx->hotdrop = true;
		return false;
	}
	return (mh[2] >= mi->types[0] && mh[2] <= mi->types[1]) ^ !!(inst->inv & 1u);
}

const struct ext_match ext_match_mh = {
    .name = "mh",
    .family = AF_INET6,
    .proto = IPPROTO_MH,
    .datasize = sizeof(struct mh_info),
    .opts = mh_opts,
    .nopts = 1,
    .init = mh_init,
    .parse = mh_parse,
    .print = mh_print,
    .match = mh_match,
};

/* ---- ipcomp -------------------------------------------------------------------------------- */

struct ipcomp_info {
	uint32_t spis[2];
};

enum { C_SPI, C_RES };

static const struct ext_opt ipcomp_opts[] = {
    [C_SPI] = {.name = "ipcompspi", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [C_RES] = {.name = "compres", .type = EXT_T_NONE},
};

static int ipcomp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			const char *arg)
{
	struct ipcomp_info *ci = inst->data;

	if (i == C_SPI && ext_parse_range32(arg, UINT32_MAX, ci->spis)) {
		ext_errf(ctx->err, ctx->errlen, "ipcomp: bad --ipcompspi \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

static void ipcomp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct ipcomp_info *ci = inst->data;

	if (ci->spis[0] != 0 || ci->spis[1] != UINT32_MAX) {
		ext_print_opt(pr, inst, C_SPI);
		if (ci->spis[0] == ci->spis[1])
			fprintf(pr->f, " %u", ci->spis[0]);
		else
			fprintf(pr->f, " %u:%u", ci->spis[0], ci->spis[1]);
	}
	if (inst->seen & 1u << C_RES)
		fputs(" --compres", pr->f);
}

static bool ipcomp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ipcomp_info *ci = inst->data;
	uint8_t b[4];
	const uint8_t *h;
	unsigned cpi;

	if (ext_is_later_fragment(ctx))
		return false;
	h = ext_l4_header(ctx, 4, b);
	if (!h) {
		ctx->hotdrop = true;
		return false;
	}
	cpi = ext_get_be16(h + 2);
	return (cpi >= ci->spis[0] && cpi <= ci->spis[1]) ^ !!(inst->inv & 1u << C_SPI);
}

const struct ext_match ext_match_ipcomp = {
    .name = "ipcomp",
    .proto = IPPROTO_COMP,
    .datasize = sizeof(struct ipcomp_info),
    .opts = ipcomp_opts,
    .nopts = 2,
    .parse = ipcomp_parse,
    .print = ipcomp_print,
    .match = ipcomp_match,
};
