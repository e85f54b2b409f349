// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m hbh and -m dst (ip6t_hbh): the IPv6 hop-by-hop and destination options headers.
 *
 *   -m hbh [[!] --hbh-len BYTES] [--hbh-opts TYPE[:LEN],...]      (at most 16 options)
 *   -m dst [[!] --dst-len BYTES] [--dst-opts TYPE[:LEN],...]
 *
 *    0        8       16                    (the header; its length is (Hdr Ext Len + 1) * 8)
 *   | Next   | HdrLen | options: Pad1 = one zero byte; others | type | len | len bytes |
 *
 * The packet must carry the header (the chain is walked as ipv6_find_hdr walks it). --*-len is
 * the header's length in bytes. --*-opts lists options that must open the header in this
 * order: each TYPE must be the next option's type and, when LEN is given, its length; TYPE
 * and LEN are kept in 8 bits, as iptables keeps them (256 is 0). Without LEN any length.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define IP6OPTS_MAX 16

struct ip6opts_info {
	uint32_t len;
	uint8_t nopts;
	uint16_t opts[IP6OPTS_MAX]; /* type << 8 | len (0xff: any) */
};

enum { O_LEN, O_OPTS };

#define IP6OPTS_TABLE(PFX)                                                                         \
	{                                                                                          \
		[O_LEN] = {.name = PFX "-len",                                                     \
			   .type = EXT_T_U32,                                                      \
			   .flags = EXT_OPT_INVERT,                                                \
			   EXT_FIELD(struct ip6opts_info, len)},                                   \
		[O_OPTS] = {.name = PFX "-opts", .type = EXT_T_CUSTOM},                            \
	}

static const struct ext_opt hbh_opts[] = IP6OPTS_TABLE("hbh");
static const struct ext_opt dst_opts[] = IP6OPTS_TABLE("dst");

static int ip6opts_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			 const char *arg)
{
	struct ip6opts_info *oi = inst->data;
	const char *s = arg;

	if (i != O_OPTS)
		return 0;
	while (*s) {
		char *end;
		unsigned long type = strtoul(s, &end, 0), len = 0xff;

		if (end == s || oi->nopts == IP6OPTS_MAX)
			goto bad;
		if (*end == ':') {
			const char *l = end + 1;

			len = strtoul(l, &end, 0);
			if (end == l)
				goto bad;
		}
		if (*end && *end != ',')
			goto bad;
		oi->opts[oi->nopts++] = (uint16_t)((type & 0xff) << 8 | (len & 0xff));
		s = end;
		if (*s == ',' && !*++s)
			goto bad;
	}
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "%s: bad option list \"%s\" (at most %d)",
		 inst->match->name, arg, IP6OPTS_MAX);
	return -EINVAL;
}

static void ip6opts_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct ip6opts_info *oi = inst->data;

	if (inst->seen & 1u << O_LEN) {
		ext_print_opt(pr, inst, O_LEN);
		fprintf(pr->f, " %u", oi->len);
	}
	if (inst->seen & 1u << O_OPTS) {
		ext_print_opt(pr, inst, O_OPTS);
		for (unsigned k = 0; k < oi->nopts; k++) {
			fprintf(pr->f, "%s%u", k ? "," : " ", oi->opts[k] >> 8);
			if ((oi->opts[k] & 0xff) != 0xff)
				fprintf(pr->f, ":%u", oi->opts[k] & 0xff);
		}
	}
}

static bool ip6opts_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst, uint8_t which)
{
	const struct ip6opts_info *oi = inst->data;
	uint32_t off, hdrlen, end = ext_l3_len(ctx);
	uint8_t b[2];
	const uint8_t *h;
	bool ret;
	int rc = ext_ip6_find_hdr(ctx, which, &off);
	unsigned k;

	if (rc < 0) {
		if (rc != -ENOENT)
			ctx->hotdrop = true;
		return false;
	}
	h = ext_l3_header(ctx, off, 2, b);
	if (!h) {
		ctx->hotdrop = true;
		return false;
	}
	hdrlen = ext_ip6_optlen(h[1]);
	if (end - off < hdrlen)
		return false;
	ret = !(inst->seen & 1u << O_LEN) || ((oi->len == hdrlen) ^ !!(inst->inv & 1u << O_LEN));
	if (!(inst->seen & 1u << O_OPTS))
		return ret;
	off += 2;
	hdrlen -= 2;
	for (k = 0; k < oi->nopts; k++) {
		const uint8_t *tp, *lp;
		uint32_t optlen;

		if (hdrlen < 1 || !(tp = ext_l3_header(ctx, off, 1, b)) || *tp != oi->opts[k] >> 8)
			break;
		if (*tp) {
			if (hdrlen < 2 || !(lp = ext_l3_header(ctx, off + 1, 1, b + 1)))
				break;
			if ((oi->opts[k] & 0xff) != 0xff && (oi->opts[k] & 0xff) != *lp)
				break;
			optlen = *lp + 2u;
		} else {
			optlen = 1;
		}
		if (optlen > hdrlen)
			break;
		off += optlen;
		hdrlen -= optlen;
	}
	return k == oi->nopts && ret;
}

static bool hbh_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return ip6opts_match(ctx, inst, IPPROTO_HOPOPTS);
}

static bool dst_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return ip6opts_match(ctx, inst, IPPROTO_DSTOPTS);
}

const struct ext_match ext_match_hbh = {
    .name = "hbh",
    .family = AF_INET6,
    .datasize = sizeof(struct ip6opts_info),
    .opts = hbh_opts,
    .nopts = 2,
    .parse = ip6opts_parse,
    .print = ip6opts_print,
    .match = hbh_match,
};

const struct ext_match ext_match_dst = {
    .name = "dst",
    .family = AF_INET6,
    .datasize = sizeof(struct ip6opts_info),
    .opts = dst_opts,
    .nopts = 2,
    .parse = ip6opts_parse,
    .print = ip6opts_print,
    .match = dst_match,
};
