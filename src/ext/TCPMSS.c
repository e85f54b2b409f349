/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j TCPMSS --set-mss N | --clamp-mss-to-pmtu (requires -p tcp; the last of the two wins).
 *
 *   TCP header, options from byte 20:   ... | kind 2 | len 4 | MSS (16 bits) | ...
 *
 * As xt_TCPMSS: the MSS is only ever lowered; clamping uses min(route MTU toward the
 * destination, route MTU back toward the source) minus the IP and TCP header sizes (40 for
 * IPv4, 60 for IPv6). A SYN without an MSS option and without payload gets one inserted right
 * after the fixed header, with at most the protocol's default MSS (536 / 1220). Checksums are
 * updated incrementally. The kernel's "only with a SYN match" check is skipped by iptables-nft
 * (the reference), so it is not required here either.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "rules/ext.h"

#define TCPMSS_CLAMP 0xffff

struct tcpmss_info {
	uint16_t mss;
};

enum { O_SET_MSS, O_CLAMP };

static const struct ext_opt tcpmss_opts[] = {
	[O_SET_MSS] = { .name = "set-mss", .type = EXT_T_CUSTOM, .print_as = -1 },
	[O_CLAMP] = { .name = "clamp-mss-to-pmtu", .type = EXT_T_NONE, .print_as = -1 },
};

static int tcpmss_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct tcpmss_info *ti = inst->data;
	uint64_t max = 65535 - (ctx->family == AF_INET6 ? 40 : 20), v;

	if (opt == O_CLAMP) {
		ti->mss = TCPMSS_CLAMP;
		return 0;
	}
	if (ext_parse_uint(arg, 0, max, &v) < 0) {
		snprintf(ctx->err, ctx->errlen,
			 "TCPMSS: bad value for option \"--set-mss\", or out of range (0-%llu).",
			 (unsigned long long)max);
		return -EINVAL;
	}
	ti->mss = (uint16_t)v;
	return 0;
}

static int tcpmss_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct tcpmss_info *ti = inst->data;
	const uint32_t ok = HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_OUTPUT) |
			    HOOK_BIT(HOOK_POSTROUTING);

	if (!(inst->seen & 3u)) {
		snprintf(ctx->err, ctx->errlen, "TCPMSS target: At least one parameter is required");
		return -EINVAL;
	}
	if (ti->mss == TCPMSS_CLAMP && (ctx->hook_mask & ~ok)) {
		snprintf(ctx->err, ctx->errlen, "TCPMSS: path-MTU clamping only supported in "
			 "FORWARD, OUTPUT and POSTROUTING hooks");
		return -EINVAL;
	}
	return 0;
}

static void tcpmss_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct tcpmss_info *ti = inst->data;

	if (ti->mss == TCPMSS_CLAMP)
		fprintf(pr->f, " --clamp-mss-to-pmtu");
	else
		fprintf(pr->f, " --set-mss %u", ti->mss);
}

static uint32_t tcpmss_path_mtu(const struct ext_pkt_ctx *ctx)
{
	const struct ext_env_ops *ops = ctx->env->ops;
	uint32_t out = 0, back = UINT32_MAX;

	if (ops->route_mtu)
		out = ops->route_mtu(ctx->env->box, ctx->family, &ctx->info->dst);
	if (!out && ops->iface_mtu && ctx->out && ctx->out[0])
		out = ops->iface_mtu(ctx->env->box, ctx->out);
	if (ops->route_mtu) {
		uint32_t m = ops->route_mtu(ctx->env->box, ctx->family, &ctx->info->src);

		if (m)
			back = m;
	}
	return out < back ? out : back;
}

/* Offset of the next option; 1 for EOL/NOP and for a zero length, as the kernel steps. */
static unsigned tcpmss_optlen(const uint8_t *opt, unsigned i)
{
	if (opt[i] <= 1 || opt[i + 1] == 0)
		return 1;
	return opt[i + 1];
}

static int tcpmss_reparse(struct pkt *p)
{
	enum pkt_link link = p->info.l2off == UINT32_MAX ? PKT_LINK_RAW : PKT_LINK_ETHERNET;

	return pkt_parse(p, link, false);
}

/* Grow the datagram's length field by 4 after the option was inserted. */
static int tcpmss_grow_ip(struct pkt *p, int family)
{
	uint32_t off = p->info.l3off;
	uint8_t b[12];
	const uint8_t *h = pkt_header(p, off, 12, b);
	uint16_t len, nlen, check;

	if (!h)
		return -EFAULT;
	if (family == AF_INET) {
		len = (uint16_t)(h[2] << 8 | h[3]);
		nlen = (uint16_t)(len + 4);
		check = htons(pkt_csum_replace2((uint16_t)(h[10] << 8 | h[11]), len, nlen));
		nlen = htons(nlen);
		if (pkt_store(p, off + 2, &nlen, 2) < 0 || pkt_store(p, off + 10, &check, 2) < 0)
			return -EFAULT;
		return 0;
	}
	len = (uint16_t)(h[4] << 8 | h[5]);
	nlen = htons((uint16_t)(len + 4));
	return pkt_store(p, off + 4, &nlen, 2);
}

static int tcpmss_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tcpmss_info *ti = inst->data;
	struct pkt *p = ctx->pkt;
	const struct pkt_info *in = ctx->info;
	unsigned minlen = ctx->family == AF_INET6 ? 60 : 40;
	uint8_t th[60], ins[4];
	uint32_t len, hlen, newmss;
	uint16_t check;

	if (in->is_fragment && in->frag_off != 0)
		return EXT_CONTINUE;
	if (!in->has_l4 || in->l4proto != IPPROTO_TCP)
		return EXT_DROP;
	len = in->l4len;
	if (len < 20 || pkt_copy_out(p, in->l4off, th, 20) < 0)
		return EXT_DROP;
	hlen = (uint32_t)(th[12] >> 4) * 4;
	if (len < hlen || hlen < 20 || pkt_copy_out(p, in->l4off, th, hlen) < 0)
		return EXT_DROP;

	if (ti->mss == TCPMSS_CLAMP) {
		uint32_t mtu = tcpmss_path_mtu(ctx);

		if (mtu <= minlen)
			return EXT_DROP; /* unknown or invalid path MTU */
		newmss = mtu - minlen;
	} else {
		newmss = ti->mss;
	}
	check = (uint16_t)(th[16] << 8 | th[17]);

	for (unsigned i = 20; i + 4 <= hlen; i += tcpmss_optlen(th, i)) {
		if (th[i] == 2 && th[i + 1] == 4) {
			uint16_t old = (uint16_t)(th[i + 2] << 8 | th[i + 3]), nm;

			if (old <= newmss)
				return EXT_CONTINUE; /* never raise it */
			nm = htons((uint16_t)newmss);
			check = htons(pkt_csum_replace2(check, old, (uint16_t)newmss));
			if (pkt_store(p, in->l4off + i + 2, &nm, 2) < 0 ||
			    pkt_store(p, in->l4off + 16, &check, 2) < 0)
				return EXT_DROP;
			return EXT_CONTINUE;
		}
	}
	/* No MSS option. Data after the header, or no room for one more word: leave it. */
	if (len > hlen || hlen >= 60)
		return EXT_CONTINUE;
	if (newmss > (ctx->family == AF_INET ? 536u : 1220u))
		newmss = ctx->family == AF_INET ? 536u : 1220u;
	ins[0] = 2;
	ins[1] = 4;
	ins[2] = (uint8_t)(newmss >> 8);
	ins[3] = (uint8_t)newmss;
	{
		uint32_t l4off = in->l4off;
		uint16_t oldw = (uint16_t)(th[12] << 8 | th[13]);
		uint16_t neww = (uint16_t)(oldw + (1u << 12)); /* data offset + 1 word */
		uint32_t optw = (uint32_t)ins[0] << 24 | (uint32_t)ins[1] << 16 | newmss;
		uint8_t nw[2] = { (uint8_t)(neww >> 8), (uint8_t)neww };

		/* the pseudo-header length, the new option word, the data offset */
		check = pkt_csum_replace2(check, (uint16_t)len, (uint16_t)(len + 4));
		check = pkt_csum_replace4(check, 0, optw);
		check = htons(pkt_csum_replace2(check, oldw, neww));
		if (pkt_splice(p, l4off + 20, 0, ins, 4) < 0 ||
		    pkt_store(p, l4off + 12, nw, 2) < 0 || pkt_store(p, l4off + 16, &check, 2) < 0 ||
		    tcpmss_grow_ip(p, ctx->family) < 0)
			return EXT_DROP;
		tcpmss_reparse(p);
	}
	return EXT_CONTINUE;
}

const struct ext_target ext_target_TCPMSS = {
	.name = "TCPMSS",
	.proto = IPPROTO_TCP,
	.datasize = sizeof(struct tcpmss_info),
	.opts = tcpmss_opts,
	.nopts = 2,
	.parse = tcpmss_parse,
	.check = tcpmss_check,
	.print = tcpmss_print,
	.target = tcpmss_target,
};
