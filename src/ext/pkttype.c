// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m pkttype [!] --pkt-type unicast|broadcast|multicast|otherhost (xt_pkttype); "host" is
 * read as unicast, names in any case.
 *
 * The type is the link layer's, as the kernel's skb->pkt_type: a frame that came in on an
 * Ethernet interface is broadcast (ff:ff:ff:ff:ff:ff), multicast (group bit), unicast (to the
 * interface's own address) or otherhost. A packet without a received Ethernet header (made by
 * the box, or a raw-IP link) is typed by its destination address, as the kernel types looped
 * packets: multicast for 224.0.0.0/4 and ff00::/8, broadcast for 255.255.255.255 and a subnet
 * broadcast of the box, unicast otherwise.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

enum { PT_HOST, PT_BROADCAST, PT_MULTICAST, PT_OTHERHOST };

struct pkttype_info {
	uint32_t type;
};

static const struct ext_name pkttype_names[] = {
    {"unicast", PT_HOST},	 {"broadcast", PT_BROADCAST}, {"multicast", PT_MULTICAST},
    {"otherhost", PT_OTHERHOST}, {"host", PT_HOST},	      {NULL, 0},
};

static const struct ext_opt pkttype_opts[] = {
    {.name = "pkt-type",
     .type = EXT_T_NAME,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     EXT_FIELD(struct pkttype_info, type),
     .names = pkttype_names},
};

static uint32_t pkt_type_of(struct ext_pkt_ctx *ctx)
{
	const struct pkt_info *in = ctx->info;
	uint8_t b[6], mac[6];
	const uint8_t *d;

	if (in->l2off != UINT32_MAX && ctx->pkt->iif && ctx->in[0] &&
	    (d = pkt_header(ctx->pkt, in->l2off, 6, b))) {
		static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

		if (!memcmp(d, bcast, 6))
			return PT_BROADCAST;
		if (d[0] & 1)
			return PT_MULTICAST;
		if (!ctx->env || !ctx->env->ops->iface_mac ||
		    ctx->env->ops->iface_mac(ctx->env->box, ctx->in, mac) < 0 || !memcmp(d, mac, 6))
			return PT_HOST;
		return PT_OTHERHOST;
	}
	if ((ctx->family == AF_INET && (in->dst.b[0] & 0xf0) == 0xe0) ||
	    (ctx->family == AF_INET6 && in->dst.b[0] == 0xff))
		return PT_MULTICAST;
	if (ctx->family == AF_INET && ctx->env && ctx->env->ops->addr_type &&
	    (ctx->env->ops->addr_type(ctx->env->box, AF_INET, &in->dst, NULL) & EXT_RTN_BROADCAST))
		return PT_BROADCAST;
	return PT_HOST;
}

static bool pkttype_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct pkttype_info *pi = inst->data;

	return (pkt_type_of(ctx) == pi->type) ^ !!inst->inv;
}

const struct ext_match ext_match_pkttype = {
    .name = "pkttype",
    .datasize = sizeof(struct pkttype_info),
    .opts = pkttype_opts,
    .nopts = 1,
    .match = pkttype_match,
};
