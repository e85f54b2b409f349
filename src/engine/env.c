/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What extensions get from the box (struct ext_env): address types, the log, emitting packets,
 * the PRNG, MTUs. The box pointer they are given is the struct box itself.
 *
 * addr_type follows xt_addrtype:
 *   IPv4 (inet_dev_addr_type): 0.0.0.0 UNSPEC; 255.255.255.255 and the subnet broadcast of a
 *        local address BROADCAST; 224/4 MULTICAST; a local address LOCAL; else the type of the
 *        route (BLACKHOLE, UNREACHABLE, PROHIBIT, LOCAL), UNICAST for unicast routes and when
 *        there is no route. One type per address.
 *   IPv6 (match_type6): bits, not one type: :: UNSPEC; ff00::/8 MULTICAST; other addresses
 *        UNICAST, plus LOCAL for a local address, plus UNREACHABLE when the route refuses
 *        (blackhole, unreachable, prohibit: all RTF_REJECT to the kernel) or is missing.
 *   limit_iface (--limit-iface-in/out): an address counts as LOCAL (or its route's type
 *   applies) only on that interface.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_int.h"

static uint32_t route_type_bits(int type)
{
	switch (type) {
	case BOX_RT_LOCAL:
		return EXT_RTN_LOCAL;
	case BOX_RT_BLACKHOLE:
		return EXT_RTN_BLACKHOLE;
	case BOX_RT_UNREACHABLE:
		return EXT_RTN_UNREACHABLE;
	case BOX_RT_PROHIBIT:
		return EXT_RTN_PROHIBIT;
	default:
		return EXT_RTN_UNICAST;
	}
}

static bool local_on(const struct box *b, int fam, const union pt_addr *a, int ifindex)
{
	for (unsigned i = 0; i < b->naddrs; i++)
		if (b->addrs[i].family == fam && pt_addr_eq(&b->addrs[i].addr, a) &&
		    (!ifindex || b->addrs[i].ifindex == ifindex))
			return true;
	return false;
}

static bool v4_subnet_bcast(const struct box *b, const union pt_addr *a, int ifindex)
{
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *x = &b->addrs[i];
		uint32_t m;

		if (x->family != AF_INET || x->plen >= 31 || (ifindex && x->ifindex != ifindex))
			continue;
		m = x->plen ? htonl(~0u << (32 - x->plen)) : 0;
		if ((a->w[0] & m) == (x->addr.w[0] & m) && (a->w[0] | m) == 0xffffffffu)
			return true;
	}
	return false;
}

uint32_t box_env_addr_type(void *box, int family, const union pt_addr *a, const char *limit)
{
	static const union pt_addr zero;
	struct box *b = box;
	int ifindex = 0;
	const struct box_route *r;

	if (limit && limit[0]) {
		ifindex = box_iface_index(b, limit);
		if (ifindex < 0)
			ifindex = -1; /* no such interface: nothing is local to it */
	}
	if (pt_addr_eq(a, &zero))
		return EXT_RTN_UNSPEC;
	if (family == AF_INET) {
		if (a->w[0] == 0xffffffffu)
			return EXT_RTN_BROADCAST;
		if ((a->b[0] & 0xf0) == 0xe0)
			return EXT_RTN_MULTICAST;
		if (local_on(b, AF_INET, a, ifindex))
			return EXT_RTN_LOCAL;
		if (v4_subnet_bcast(b, a, ifindex))
			return EXT_RTN_BROADCAST;
		r = box_route_lookup(b, AF_INET, a);
		if (!r || (ifindex && r->oif != ifindex))
			return EXT_RTN_UNICAST;
		return route_type_bits(r->type);
	}
	if (a->b[0] == 0xff)
		return EXT_RTN_MULTICAST;
	if (local_on(b, AF_INET6, a, ifindex))
		return EXT_RTN_UNICAST | EXT_RTN_LOCAL;
	r = box_route_lookup(b, AF_INET6, a);
	if (!r)
		return EXT_RTN_UNICAST | EXT_RTN_UNREACHABLE;
	if (ifindex && r->oif != ifindex)
		return EXT_RTN_UNICAST;
	if (r->type == BOX_RT_LOCAL)
		return EXT_RTN_UNICAST | EXT_RTN_LOCAL;
	if (r->type != BOX_RT_UNICAST)
		return EXT_RTN_UNICAST | EXT_RTN_UNREACHABLE;
	return EXT_RTN_UNICAST;
}

static void env_log(void *box, int level, const char *line)
{
	box_log(box, level, line);
}

static void env_emit(void *box, struct pkt *p, const struct ext_pkt_ctx *cause)
{
	(void)cause;
	box_emit(box, p);
}

static uint32_t env_random(void *box)
{
	return box_random(box);
}

static const uint64_t *env_hash_key(void *box)
{
	return box_hash_key(box);
}

static uint32_t env_iface_mtu(void *box, const char *ifname)
{
	struct box *b = box;
	int i = box_iface_index(b, ifname);

	return i > 0 ? box_iface(b, i)->mtu : 0;
}

static uint32_t env_route_mtu(void *box, int family, const union pt_addr *dst)
{
	struct box *b = box;
	const struct box_route *r = box_route_lookup(b, family, dst);
	const struct box_iface *o;

	if (!r)
		return 0;
	if (r->mtu)
		return r->mtu;
	o = box_iface(b, r->oif);
	return o ? o->mtu : 0;
}

/* The box has no sockets of its own; in NFQUEUE mode the kernel tells whose a packet is. */
static long env_sock_uid(void *box, const struct pkt *p)
{
	(void)box;
	return p->sk ? (long)p->sk_uid : -1;
}

static void env_icmp_source(void *box, const struct pkt *orig, union pt_addr *src)
{
	box_icmp_source(box, orig, src);
}

/* ext_env_ops.conntrack names its service: the plug-in of that name provides it (turned on
 * first if a ruleset asked for it, as for a packet). */
static void *env_conntrack(void *box)
{
	return box_plugin_ext_data(box, "conntrack");
}

static void *env_plugin(void *box, const char *name)
{
	return box_plugin_ext_data(box, name);
}

static int env_iface_mac(void *box, const char *ifname, uint8_t mac[6])
{
	struct box *b = box;
	int i = box_iface_index(b, ifname);

	if (i <= 0)
		return -1;
	memcpy(mac, box_iface(b, i)->mac, 6);
	return 0;
}

static uint32_t env_route_dev(void *box, int family, const union pt_addr *dst, char ifname[16])
{
	struct box *b = box;
	const struct box_route *r;
	const struct box_iface *o;

	ifname[0] = '\0';
	if (box_is_local(b, family, dst))
		return EXT_RTN_LOCAL;
	r = box_route_lookup(b, family, dst);
	if (!r)
		return 0;
	if (r->type != BOX_RT_UNICAST)
		return route_type_bits(r->type);
	o = box_iface(b, r->oif);
	if (o)
		snprintf(ifname, 16, "%s", o->name);
	return EXT_RTN_UNICAST;
}

static void env_nflog(void *box, unsigned group, const char *prefix, const struct pkt *p)
{
	struct box *b = box;

	if (b->ops.nflog)
		b->ops.nflog(b->user, b, group, prefix, p);
}

static const struct ext_env_ops env_ops = {
    .addr_type = box_env_addr_type,
    .log = env_log,
    .emit = env_emit,
    .random = env_random,
    .hash_key = env_hash_key,
    .iface_mtu = env_iface_mtu,
    .route_mtu = env_route_mtu,
    .sock_uid = env_sock_uid,
    .icmp_source = env_icmp_source,
    .conntrack = env_conntrack,
    .plugin = env_plugin,
    .iface_mac = env_iface_mac,
    .route_dev = env_route_dev,
    .nflog = env_nflog,
};

void box_env_init(struct box *b)
{
	b->env.ops = &env_ops;
	b->env.box = b;
}

const struct ext_env *box_ext_env(struct box *b)
{
	return &b->env;
}
