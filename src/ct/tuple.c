// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tuples from packets, inversion, and the tracker table (one ops struct per protocol).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

#include "ct/ct_int.h"

/* clang-format off */
/* Every protocol has an entry (generic for those without a tracker of their own), so that
 * ct_proto_find is one load. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const struct ct_proto_ops *const ct_trackers[256] = {
    [0 ... 255] = &ct_proto_generic,
    [IPPROTO_TCP] = &ct_proto_tcp,
    [IPPROTO_UDP] = &ct_proto_udp,
    [IPPROTO_ICMP] = &ct_proto_icmp,
    [IPPROTO_ICMPV6] = &ct_proto_icmpv6,
    [IPPROTO_UDPLITE] = &ct_proto_udplite,
    [IPPROTO_SCTP] = &ct_proto_sctp,
    [IPPROTO_DCCP] = &ct_proto_dccp,
    [IPPROTO_GRE] = &ct_proto_gre,
};
#pragma GCC diagnostic pop
/* clang-format on */

/* The tuple's network part; the transport part zero. */
static void tuple_l3(int family, uint8_t l4proto, const union pt_addr *src,
		     const union pt_addr *dst, uint16_t zone, struct ct_tuple *t)
{
	ct_tuple_zero(t);
	t->family = (uint8_t)family;
	t->l4proto = l4proto;
	t->zone = zone;
	if (family == AF_INET) {
		t->src.w[0] = src->w[0];
		t->dst.w[0] = dst->w[0];
	} else {
		t->src = *src;
		t->dst = *dst;
	}
}

int ct_tuple_from_l4(const struct pkt *p, uint32_t l4off, uint32_t l4len, int family,
		     uint8_t l4proto, const union pt_addr *src, const union pt_addr *dst,
		     uint16_t zone, struct ct_tuple *t)
{
	tuple_l3(family, l4proto, src, dst, zone, t);
	return ct_proto_find(l4proto)->pkt_to_tuple(p, l4off, l4len, t);
}

int ct_tuple_from_pkt(const struct pkt *p, uint16_t zone, struct ct_tuple *t)
{
	const struct pkt_info *in = &p->info;

	if (in->family != AF_INET && in->family != AF_INET6)
		return -EINVAL;
	if (ct_tuple_from_ports(in, zone, t))
		return 0;
	return ct_tuple_from_l4(p, in->l4off, in->has_l4 ? in->l4len : 0, in->family, in->l4proto,
				&in->src, &in->dst, zone, t);
}

int ct_tuple_invert(const struct ct_tuple *orig, struct ct_tuple *reply)
{
	ct_tuple_zero(reply);
	reply->src = orig->dst;
	reply->dst = orig->src;
	reply->family = orig->family;
	reply->l4proto = orig->l4proto;
	reply->zone = orig->zone;
	return ct_proto_find(orig->l4proto)->invert(reply, orig);
}

const char *ct_tuple_str(const struct ct_tuple *t, char *buf, size_t len)
{
	char s[64], d[64];
	int n;

	pt_addr_str(t->family, &t->src, s, sizeof(s));
	pt_addr_str(t->family, &t->dst, d, sizeof(d));
	n = snprintf(buf, len, "src=%s dst=%s", s, d);
	if (n < 0 || (size_t)n >= len)
		return buf;
	if (ct_proto_find(t->l4proto)->print_tuple)
		ct_proto_find(t->l4proto)->print_tuple(buf + n, len - (size_t)n, t);
	return buf;
}

int ct_print_ports(char *buf, size_t len, const struct ct_tuple *t)
{
	return snprintf(buf, len, " sport=%u dport=%u", t->s.port, t->d.port);
}

int ct_ports_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	uint8_t buf[4];
	const uint8_t *h;

	if (len < 8 || !(h = pkt_header(p, off, 4, buf)))
		return -EINVAL;
	t->s.port = (uint16_t)(h[0] << 8 | h[1]);
	t->d.port = (uint16_t)(h[2] << 8 | h[3]);
	return 0;
}

int ct_ports_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	reply->s.port = orig->d.port;
	reply->d.port = orig->s.port;
	return 0;
}
