// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP RST and ICMP/ICMPv6 errors answering an offending packet, built with pkt_build so the
 * answer has the same layout and checksums as any other built packet.
 *
 *   ICMP error:  [IP: src = offender's dst, dst = offender's src][type|code|csum|rest]
 *                [offender's IP header + options + as much of its datagram as fits]
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "pkt/reply.h"

#define ICMP4_QUOTE_MAX (576 - 20 - 8)	/* RFC 1812 4.3.2.3 */
#define ICMP6_QUOTE_MAX (1280 - 40 - 8) /* RFC 4443 2.4(c) */

/* Addresses swapped, TTL, link layer: what every answer shares. */
static int reply_base(const struct pkt *orig, const struct pkt_reply_opts *o, struct pkt_spec *s)
{
	const struct pkt_info *in = &orig->info;

	pkt_spec_init(s);
	s->family = in->family;
	s->src = o && o->src ? *o->src : in->dst;
	s->dst = in->src;
	s->ttl = o && o->ttl ? o->ttl : 64;
	if (o && o->eth && in->l2off == 0) {
		uint8_t h[14], t[4];
		uint32_t off = 14;

		if (pkt_copy_out(orig, 0, h, 14))
			return -EINVAL;
		memcpy(s->eth_dst, h + 6, 6);
		memcpy(s->eth_src, h, 6);
		s->eth = true;
		while (s->n_vlan < 2 &&
		       ((h[12] == 0x81 && h[13] == 0x00) || (h[12] == 0x88 && h[13] == 0xa8)) &&
		       !pkt_copy_out(orig, off, t, 4)) {
			s->vlan[s->n_vlan++] = (uint16_t)((t[0] << 8 | t[1]) & 0x0fff);
			memcpy(h + 12, t + 2, 2);
			off += 4;
		}
	}
	return 0;
}

static bool csum_refused(const struct pkt *orig, const struct pkt_reply_opts *o)
{
	const struct pkt_info *in = &orig->info;

	return o && o->check_csum && in->has_l4 && !in->is_fragment && !pkt_l4_csum_ok(orig);
}

int pkt_reply_tcp_rst(const struct pkt *orig, const struct pkt_reply_opts *opts, struct pkt **out)
{
	const struct pkt_info *in = &orig->info;
	struct pkt_spec *s;
	uint8_t buf[20];
	const uint8_t *th;
	uint32_t seglen;
	int ret;

	*out = NULL;
	if (!in->family || in->bad || !in->has_l4 || in->l4proto != IPPROTO_TCP)
		return -EINVAL;
	th = pkt_header(orig, in->l4off, 20, buf);
	if (!th)
		return -EINVAL;
	if (in->tcp_flags & 0x04)
		return -EPERM; /* never answer a RST */
	if (csum_refused(orig, opts))
		return -EBADMSG;
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	ret = reply_base(orig, opts, s);
	if (ret)
		goto out;
	s->proto = IPPROTO_TCP;
	s->sport = in->dport;
	s->dport = in->sport;
	s->window = 0;
	if (in->family == AF_INET)
		s->df = true;
	else
		s->tos = in->tos;
	if (in->tcp_flags & 0x10) {
		s->tcp_flags = 0x04;
		s->seq = pkt_get32(th + 8);
	} else {
		seglen = in->l3off + in->l3len - in->payload_off;
		seglen += (in->tcp_flags & 0x02) ? 1 : 0;
		seglen += (in->tcp_flags & 0x01) ? 1 : 0;
		s->tcp_flags = 0x14;
		s->ack = pkt_get32(th + 4) + seglen;
	}
	*out = pkt_build(s);
	ret = *out ? 0 : -errno;
out:
	free(s);
	return ret;
}

static bool v4_is_multicast_or_bcast(const union pt_addr *a)
{
	return (a->b[0] & 0xf0) == 0xe0 || pkt_get32(a->b) == 0xffffffff;
}

/* RFC 1122 3.2.2 / RFC 1812 4.3.2.7: when an ICMPv4 error must not be sent. */
static int icmp4_allowed(const struct pkt *orig)
{
	const struct pkt_info *in = &orig->info;

	if (in->frag_off)
		return -EPERM;
	if (v4_is_multicast_or_bcast(&in->dst) || v4_is_multicast_or_bcast(&in->src) ||
	    pkt_get32(in->src.b) == 0)
		return -EPERM;
	if (in->l4proto == IPPROTO_ICMP) {
		if (!in->has_l4)
			return -EPERM; /* cannot tell whether it is an error */
		switch (in->icmp_type) {
		case 3:
		case 4:
		case 5:
		case 11:
		case 12:
			return -EPERM;
		}
	}
	return 0;
}

/* RFC 4443 2.4(e). */
static int icmp6_allowed(const struct pkt *orig, uint8_t type, uint8_t code)
{
	const struct pkt_info *in = &orig->info;
	static const union pt_addr unspec;

	if (in->dst.b[0] == 0xff && !(type == 2 || (type == 4 && code == 2)))
		return -EPERM;
	if (in->src.b[0] == 0xff || pt_addr_eq(&in->src, &unspec))
		return -EPERM;
	if (in->l4proto == IPPROTO_ICMPV6 && !in->frag_off) {
		if (!in->has_l4)
			return -EPERM;
		if (in->icmp_type < 128 || in->icmp_type == 137)
			return -EPERM;
	}
	return 0;
}

int pkt_reply_icmp(const struct pkt *orig, uint8_t type, uint8_t code, uint32_t rest,
		   const struct pkt_reply_opts *opts, struct pkt **out)
{
	const struct pkt_info *in = &orig->info;
	uint32_t quote, max;
	struct pkt_spec *s;
	uint8_t *q;
	int ret;

	*out = NULL;
	if (in->family != AF_INET && in->family != AF_INET6)
		return -EINVAL;
	if (in->l3len == 0 || (uint64_t)in->l3off + in->l3len > orig->len)
		return -EINVAL; /* the IP header itself did not parse: nothing sane to quote */
	ret = in->family == AF_INET ? icmp4_allowed(orig) : icmp6_allowed(orig, type, code);
	if (ret)
		return ret;
	if (csum_refused(orig, opts))
		return -EBADMSG;
	max = in->family == AF_INET ? ICMP4_QUOTE_MAX : ICMP6_QUOTE_MAX;
	quote = in->l3len < max ? in->l3len : max;
	s = malloc(sizeof(*s));
	q = malloc(quote ? quote : 1);
	if (!s || !q) {
		ret = -ENOMEM;
		goto out;
	}
	ret = reply_base(orig, opts, s);
	if (ret)
		goto out;
	if (pkt_copy_out(orig, in->l3off, q, quote)) {
		ret = -EINVAL;
		goto out;
	}
	if (in->family == AF_INET) {
		s->proto = IPPROTO_ICMP;
		s->tos = (uint8_t)((in->tos & 0x1e) | 0xc0); /* precedence: internetwork control */
	} else {
		s->proto = IPPROTO_ICMPV6;
	}
	s->icmp_type = type;
	s->icmp_code = code;
	s->icmp_rest = rest;
	s->payload = q;
	s->payload_len = quote;
	*out = pkt_build(s);
	ret = *out ? 0 : -errno;
out:
	free(q);
	free(s);
	return ret;
}
