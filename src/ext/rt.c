// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m rt: fields of the IPv6 routing header (ip6t_rt).
 *
 *    0               1               2               3
 *   | next header   | hdr ext len   | routing type  | segments left |
 *   |                   reserved (type 0)                           |
 *   |                   address[0..n] (type 0), 16 bytes each       |
 *
 *   --rt-type [!] N          routing type          --rt-segsleft [!] N[:M]  segments left
 *   --rt-len [!] N           header length in bytes, (hdr ext len + 1) * 8
 *   --rt-0-res               reserved field zero   (these three need --rt-type 0 first)
 *   --rt-0-addrs A,B,...     the header's addresses, in order: exactly these (strict), or
 *   --rt-0-not-strict        with it, these appearing in this order among others
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define RT_ADDRS_MAX 16

struct rt_info {
	uint32_t type;
	uint32_t segsleft[2];
	uint32_t len;
	union pt_addr addrs[RT_ADDRS_MAX];
	uint8_t naddrs;
};

enum { O_RT_TYPE, O_RT_SEGSLEFT, O_RT_LEN, O_RT_0_RES, O_RT_0_ADDRS, O_RT_0_NOT_STRICT };

static const struct ext_opt rt_opts[] = {
	[O_RT_TYPE] = { .name = "rt-type", .type = EXT_T_U32, .flags = EXT_OPT_INVERT,
			EXT_FIELD(struct rt_info, type) },
	[O_RT_SEGSLEFT] = { .name = "rt-segsleft", .type = EXT_T_U32_RANGE,
			    .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE,
			    EXT_FIELD(struct rt_info, segsleft) },
	[O_RT_LEN] = { .name = "rt-len", .type = EXT_T_U32, .flags = EXT_OPT_INVERT,
		       EXT_FIELD(struct rt_info, len) },
	[O_RT_0_RES] = { .name = "rt-0-res", .type = EXT_T_NONE },
	[O_RT_0_ADDRS] = { .name = "rt-0-addrs", .type = EXT_T_CUSTOM },
	[O_RT_0_NOT_STRICT] = { .name = "rt-0-not-strict", .type = EXT_T_NONE },
};

static void rt_init(struct ext_instance *inst)
{
	struct rt_info *ri = inst->data;

	ri->segsleft[1] = UINT32_MAX;
}

static int rt_parse_addrs(struct ext_parse_ctx *ctx, struct rt_info *ri, const char *arg)
{
	const char *p = arg;

	ri->naddrs = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		char a[64];

		if (!n || n >= sizeof(a) || ri->naddrs >= RT_ADDRS_MAX)
			goto bad;
		memcpy(a, p, n);
		a[n] = '\0';
		if (pt_addr_parse(a, &ri->addrs[ri->naddrs]) != AF_INET6)
			goto bad;
		ri->naddrs++;
		if (!p[n])
			return 0;
		p += n + 1;
	}
bad:
	ext_errf(ctx->err, ctx->errlen, "rt: bad address list \"%s\" (at most %d addresses)", arg,
		 RT_ADDRS_MAX);
	return -EINVAL;
}

/* As libip6t_rt: the type-0 options need a non-inverted --rt-type 0 given before them. */
static int rt_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		    const char *arg)
{
	struct rt_info *ri = inst->data;

	switch (opt) {
	case O_RT_SEGSLEFT:
		if (ext_parse_range32(arg, UINT32_MAX, ri->segsleft)) {
			ext_errf(ctx->err, ctx->errlen, "rt: invalid segsleft \"%s\"", arg);
			return -EINVAL;
		}
		return 0;
	case O_RT_0_RES:
	case O_RT_0_ADDRS:
		if (!(inst->seen & 1u << O_RT_TYPE) || ri->type != 0 ||
		    (inst->inv & 1u << O_RT_TYPE)) {
			ext_errf(ctx->err, ctx->errlen, "rt: `--rt-type 0' required before `--%s'",
				 rt_opts[opt].name);
			return -EINVAL;
		}
		return opt == O_RT_0_ADDRS ? rt_parse_addrs(ctx, ri, arg) : 0;
	case O_RT_0_NOT_STRICT:
		if (!(inst->seen & 1u << O_RT_0_ADDRS)) {
			ext_errf(ctx->err, ctx->errlen,
				 "rt: `--rt-0-addrs ...' required before `--rt-0-not-strict'");
			return -EINVAL;
		}
		return 0;
	}
	return 0;
}

static void rt_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct rt_info *ri = inst->data;
	char buf[64];

	for (unsigned i = O_RT_TYPE; i <= O_RT_0_NOT_STRICT; i++) {
		if (i == O_RT_SEGSLEFT ? ri->segsleft[0] == 0 && ri->segsleft[1] == UINT32_MAX
				       : !(inst->seen & 1u << i))
			continue;
		ext_print_opt(pr, inst, i);
		if (i != O_RT_0_ADDRS) {
			ext_print_value(pr, inst, i);
			continue;
		}
		for (unsigned k = 0; k < ri->naddrs; k++)
			fprintf(pr->f, "%c%s", k ? ',' : ' ',
				pt_addr_str(AF_INET6, &ri->addrs[k], buf, sizeof(buf)));
	}
}

/* The listed addresses against the header's n addresses at `off`; -1: cut short (drop). */
static int rt_addrs_match(struct ext_pkt_ctx *ctx, const struct rt_info *ri, uint32_t off,
			  unsigned n, bool strict)
{
	union pt_addr buf;
	unsigned want = 0;

	if (ri->naddrs > n)
		return 0;
	for (unsigned k = 0; k < (strict ? ri->naddrs : n) && want < ri->naddrs; k++) {
		const void *a = ext_l3_header(ctx, off + 8 + 16 * k, 16, &buf);

		if (!a)
			return -1;
		if (!memcmp(a, &ri->addrs[want], 16))
			want++;
		else if (strict)
			return 0;
	}
	return want == ri->naddrs && (!strict || n == ri->naddrs);
}

static bool rt_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct rt_info *ri = inst->data;
	uint8_t buf[4];
	const uint8_t *rh;
	uint32_t off, hdrlen;
	int err;

	err = ext_ip6_find_hdr(ctx, 43, &off);
	if (err) {
		if (err != -ENOENT)
			ctx->hotdrop = true;
		return false;
	}
	rh = ext_l3_header(ctx, off, 4, buf);
	if (!rh) {
		ctx->hotdrop = true;
		return false;
	}
	hdrlen = ext_ip6_optlen(rh[1]);
	if (ext_l3_len(ctx) - off < hdrlen)
		return false;
	if ((rh[3] >= ri->segsleft[0] && rh[3] <= ri->segsleft[1]) ==
	    !!(inst->inv & 1u << O_RT_SEGSLEFT))
		return false;
	if ((inst->seen & 1u << O_RT_LEN) &&
	    (ri->len == hdrlen) == !!(inst->inv & 1u << O_RT_LEN))
		return false;
	if ((inst->seen & 1u << O_RT_TYPE) &&
	    (ri->type == rh[2]) == !!(inst->inv & 1u << O_RT_TYPE))
		return false;
	if (inst->seen & 1u << O_RT_0_RES) {
		const uint8_t *res = ext_l3_header(ctx, off + 4, 4, buf);

		if (!res || ext_get_be32(res))
			return false;
	}
	if (inst->seen & 1u << O_RT_0_ADDRS) {
		err = rt_addrs_match(ctx, ri, off, (hdrlen - 8) / 16,
				     !(inst->seen & 1u << O_RT_0_NOT_STRICT));
		if (err < 0)
			ctx->hotdrop = true;
		return err > 0;
	}
	return true;
}

const struct ext_match ext_match_rt = {
	.name = "rt",
	.family = AF_INET6,
	.datasize = sizeof(struct rt_info),
	.opts = rt_opts,
	.nopts = sizeof(rt_opts) / sizeof(rt_opts[0]),
	.init = rt_init,
	.parse = rt_parse,
	.print = rt_print,
	.match = rt_match,
};
