/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -j REJECT: drop the packet and answer it, as the kernel's nf_reject does.
 *
 *   ICMP error (IPv4, RFC 792)          ICMPv6 error (RFC 4443)
 *   +--------+--------+--------+        +------+------+----------+
 *   | type 3 | code   | csum   |        | 1    | code | csum     |
 *   | unused (0)               |        | unused (0)             |
 *   | offending IP datagram... |        | offending packet ...   |
 *   total at most 576 bytes             total at most 1280 bytes
 *
 *   TCP RST (RFC 793, "Reset Generation"): ports swapped, data offset 5, window 0;
 *     the offending segment has ACK:  seq = its ack, no ACK flag;
 *     otherwise:                      seq = 0, ACK set, ack = its seq + SYN + FIN + data len.
 *   IPv4 RST: TOS 0, ID 0, DF, TTL 64; ICMP: TOS = (tos & 0x1e) | 0xc0, TTL 64.
 *
 * Nothing is sent for a non-first fragment, an RST, an ICMP/ICMPv6 error, a bad transport
 * checksum, or a packet to a multicast/broadcast address or from a non-unicast one. The reply
 * is built by src/pkt/reply.h and goes to ext_env.emit as a locally generated packet (raw
 * IP), from the offending packet's destination address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pkt/proto.h"
#include "pkt/reply.h"
#include "rules/ext.h"

#define REJECT_TCP_RESET 0xff

struct reject_info {
	uint8_t with; /* an ICMP/ICMPv6 code, or REJECT_TCP_RESET */
};

struct reject_name {
	const char *name, *alias;
	uint8_t code;
};

/* In iptables' order: a unique case-insensitive prefix of a name or alias is taken too, the
 * first in this order winning ("icmp" is icmp-net-unreachable). */
static const struct reject_name reject4_names[] = {
	{ "icmp-net-unreachable", "net-unreach", 0 },
	{ "icmp-host-unreachable", "host-unreach", 1 },
	{ "icmp-proto-unreachable", "proto-unreach", 2 },
	{ "icmp-port-unreachable", "port-unreach", 3 },
	{ "icmp-net-prohibited", "net-prohib", 9 },
	{ "icmp-host-prohibited", "host-prohib", 10 },
	{ "tcp-reset", "tcp-rst", REJECT_TCP_RESET },
	{ "icmp-admin-prohibited", "admin-prohib", 13 },
	{ NULL, NULL, 0 },
};

static const struct reject_name reject6_names[] = {
	{ "icmp6-no-route", "no-route", 0 },
	{ "icmp6-adm-prohibited", "adm-prohibited", 1 },
	{ "icmp6-addr-unreachable", "addr-unreach", 3 },
	{ "icmp6-port-unreachable", "port-unreach", 4 },
	{ "tcp-reset", "tcp-reset", REJECT_TCP_RESET },
	{ "icmp6-policy-fail", "policy-fail", 5 },
	{ "icmp6-reject-route", "reject-route", 6 },
	{ NULL, NULL, 0 },
};

static const struct ext_opt reject_opts[] = {
	{ .name = "reject-with", .type = EXT_T_CUSTOM, .print_as = -1 },
};

static const struct reject_name *reject_table(int family)
{
	return family == AF_INET6 ? reject6_names : reject4_names;
}

static void reject4_init(struct ext_instance *inst)
{
	((struct reject_info *)inst->data)->with = 3;
}

static void reject6_init(struct ext_instance *inst)
{
	((struct reject_info *)inst->data)->with = 4;
}

static int reject_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			const char *arg)
{
	struct reject_info *ri = inst->data;
	size_t n = strlen(arg);

	for (const struct reject_name *r = reject_table(ctx->family); r->name; r++) {
		if (strncasecmp(r->name, arg, n) == 0 || strncasecmp(r->alias, arg, n) == 0) {
			ri->with = r->code;
			return 0;
		}
	}
	snprintf(ctx->err, ctx->errlen, "unknown reject type \"%s\"", arg);
	return -EINVAL;
}

static int reject_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct reject_info *ri = inst->data;

	if (ri->with == REJECT_TCP_RESET && (ctx->proto != IPPROTO_TCP || ctx->proto_inverted)) {
		snprintf(ctx->err, ctx->errlen, "REJECT: TCP_RESET invalid for non-tcp");
		return -EINVAL;
	}
	return 0;
}

static void reject_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct reject_info *ri = inst->data;

	for (const struct reject_name *r = reject_table(pr->family); r->name; r++) {
		if (r->code == ri->with) {
			fprintf(pr->f, " --reject-with %s", r->name);
			return;
		}
	}
}

/* Multicast or broadcast destination, or a source that is not unicast: no answer. */
static bool reject_bad_addrs(const struct ext_pkt_ctx *ctx)
{
	const struct pkt_info *in = ctx->info;
	const struct ext_env_ops *ops = ctx->env->ops;
	const uint32_t bad = EXT_RTN_BROADCAST | EXT_RTN_MULTICAST;
	static const union pt_addr zero;

	if (ctx->family == AF_INET) {
		if ((in->dst.b[0] & 0xf0) == 0xe0 || (in->src.b[0] & 0xf0) == 0xe0 ||
		    in->dst.w[0] == 0xffffffffu || in->src.w[0] == 0xffffffffu ||
		    in->src.w[0] == 0)
			return true;
	} else if (in->dst.b[0] == 0xff || in->src.b[0] == 0xff || pt_addr_eq(&in->src, &zero)) {
		return true;
	}
	if (ops->addr_type && ((ops->addr_type(ctx->env->box, ctx->family, &in->dst, NULL) & bad) ||
			       (ops->addr_type(ctx->env->box, ctx->family, &in->src, NULL) & bad)))
		return true;
	return false;
}

/* The transport checksum of what we answer must be right (nf_reject verifies TCP and UDP). */
static bool reject_csum_ok(const struct ext_pkt_ctx *ctx)
{
	const struct pkt_info *in = ctx->info;

	if (in->is_fragment)
		return true;
	if (in->l4proto != IPPROTO_TCP && in->l4proto != IPPROTO_UDP)
		return true;
	return pkt_l4_csum_ok(ctx->pkt);
}

static int reject_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct reject_info *ri = inst->data;
	const struct pkt_info *in = ctx->info;
	struct pkt *reply = NULL;

	if (in->is_fragment && in->frag_off != 0)
		return EXT_DROP;
	if (!ctx->env || !ctx->env->ops->emit || reject_bad_addrs(ctx))
		return EXT_DROP;
	if (ri->with == REJECT_TCP_RESET) {
		struct pkt_reply_opts o = { .check_csum = true };

		if (in->l4proto == IPPROTO_TCP && in->has_l4)
			pkt_reply_tcp_rst(ctx->pkt, &o, &reply);
	} else if (!pkt_icmp_is_error(in->l4proto, in->icmp_type) && reject_csum_ok(ctx)) {
		struct pkt_reply_opts o = { 0 };
		union pt_addr src;

		if (ctx->env->ops->icmp_source) {
			ctx->env->ops->icmp_source(ctx->env->box, ctx->pkt, &src);
			o.src = &src;
		}
		pkt_reply_icmp(ctx->pkt, ctx->family == AF_INET ? 3 : 1, ri->with, 0, &o, &reply);
	}
	if (reply)
		ctx->env->ops->emit(ctx->env->box, reply, ctx);
	return EXT_DROP;
}

#define REJECT_COMMON                                                                       \
	.name = "REJECT", .tables = TABLE_BIT(TABLE_FILTER),                                 \
	.hooks = HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_OUTPUT),       \
	.datasize = sizeof(struct reject_info), .opts = reject_opts, .nopts = 1,             \
	.parse = reject_parse, .check = reject_check, .print = reject_print,                 \
	.target = reject_target

const struct ext_target ext_target_REJECT4 = {
	REJECT_COMMON,
	.family = AF_INET,
	.init = reject4_init,
};

const struct ext_target ext_target_REJECT6 = {
	REJECT_COMMON,
	.family = AF_INET6,
	.init = reject6_init,
};
