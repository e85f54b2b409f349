/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT's way for a packet of an ESTABLISHED connection, inline so the NAT hook (plugin.c) runs
 * it without a call: the in-place rewrite of a TCP or UDP header (rewrite_fast), the mapping
 * timers a packet keeps running and the entry's hold. translate.c's general path uses the same
 * pieces. Not for use outside src/nat.
 *
 *   IPv4:  ... | csum | ... | saddr | daddr |     TCP: sport dport ... csum(16)
 *                 10           12      16         UDP: sport dport len csum(6)
 *   IPv6:  ... | saddr (8) | daddr (24) |
 */
#ifndef NAT_ESTABLISHED_H
#define NAT_ESTABLISHED_H

#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat_int.h"
#include "rules/ext.h"

/* Where the fields NAT rewrites sit in the IP headers (RFC 791, RFC 8200). */
#define IP4_HLEN      sizeof(struct iphdr)
#define IP4_PROTO_OFF offsetof(struct iphdr, protocol)
#define IP4_CSUM_OFF  offsetof(struct iphdr, check)
#define IP4_SRC_OFF   offsetof(struct iphdr, saddr)
#define IP4_DST_OFF   offsetof(struct iphdr, daddr)
#define IP6_HLEN      sizeof(struct ip6_hdr)
#define IP6_NEXT_OFF  offsetof(struct ip6_hdr, ip6_nxt)
#define IP6_SRC_OFF   offsetof(struct ip6_hdr, ip6_src)
#define IP6_DST_OFF   offsetof(struct ip6_hdr, ip6_dst)

/* The ones' complement sum of replacing address bytes old by new (RFC 1624 eqn. 3's ~m + m'
 * for each 16-bit word), unfolded. */
static inline uint32_t nat_addr_delta(const uint8_t *old, const uint8_t *new_, unsigned len)
{
	uint32_t s = 0;

	for (unsigned i = 0; i < len; i += 2) {
		s += (uint16_t) ~((unsigned)old[i] << 8 | old[i + 1]);
		s += (unsigned)new_[i] << 8 | new_[i + 1];
	}
	return s;
}

/*
 * The general rewrite's (translate.c, manip) for what nearly every translated packet is: TCP or
 * UDP, its headers up to the transport checksum in the first segment, the checksum complete
 * (not CHECKSUM_PARTIAL). The same sums on the same bytes as manip() (the address's
 * replace4/16, the port's replace2, UDP's zero rules, the IPv4 header checksum when the
 * address changes), added up before one fold instead of folded after each (ones' complement
 * addition is associative: the folds give the same 16 bits, 0x0000 and 0xffff included), with
 * pointers instead of bounded copies; info follows as manip's caller has it. 1 when p is not
 * such a packet (the caller takes the general path). test_nat_fast drives both on the same
 * packets.
 */
static inline int rewrite_fast(struct pkt *p, const union pt_addr *nw, uint16_t np,
			       enum nat_manip m)
{
	struct pkt_info *in = &p->info;
	uint8_t proto = in->l4proto, *d, *l4, *a, *csum;
	uint32_t cso = proto == IPPROTO_TCP ? 16 : 6, delta;
	uint16_t oldcheck, op;
	bool v4 = in->family == AF_INET;

	if (!in->has_l4 || p->csum_partial || (proto != IPPROTO_TCP && proto != IPPROTO_UDP) ||
	    in->l4len < cso + 2 || in->l4off < in->l3off + (v4 ? IP4_HLEN : IP6_HLEN) ||
	    (uint64_t)in->l4off + cso + 2 > p->seg[0].len || (!v4 && in->family != AF_INET6))
		return 1;
	d = p->seg[0].data;
	p->written = true; /* written through d, not pkt_store: NFQUEUE's mark */
	l4 = d + in->l4off;
	csum = l4 + cso;
	oldcheck = pkt_get16(csum);
	if (v4) {
		uint32_t o4, n4;

		a = d + in->l3off + (m == NAT_MANIP_SRC ? IP4_SRC_OFF : IP4_DST_OFF);
		memcpy(&o4, a, 4);
		memcpy(&n4, nw->b, 4);
		o4 = __builtin_bswap32(o4);
		n4 = __builtin_bswap32(n4);
		/* nat_addr_delta of the 4 bytes, from two loads */
		delta =
		    (uint32_t)(uint16_t) ~(o4 >> 16) + (uint16_t)~o4 + (n4 >> 16) + (n4 & 0xffff);
		/* pt_addr_eq of the 4 bytes read (zeros after them) and the 16 of the tuple */
		if (o4 != n4 || nw->w[1] || nw->w[2] || nw->w[3]) {
			uint8_t *ipc = d + in->l3off + IP4_CSUM_OFF;

			pkt_put16(ipc, pkt_csum_fold((uint16_t)~pkt_get16(ipc) + delta));
		}
	} else {
		a = d + in->l3off + (m == NAT_MANIP_SRC ? IP6_SRC_OFF : IP6_DST_OFF);
		delta = nat_addr_delta(a, nw->b, 16);
	}
	l4 += m == NAT_MANIP_SRC ? 0 : 2;
	op = pkt_get16(l4);
	if (op != np) {
		delta += (uint16_t)~op + (uint32_t)np;
		pkt_put16(l4, np);
	}
	if (proto == IPPROTO_TCP) {
		pkt_put16(csum, pkt_csum_fold((uint16_t)~oldcheck + delta));
	} else if (!(v4 && oldcheck == 0)) {
		uint16_t check = pkt_csum_fold((uint16_t)~oldcheck + delta);

		pkt_put16(csum, check ? check : 0xffff);
	}
	if (v4) /* two fixed sizes: moves, not a call */
		memcpy(a, nw->b, 4);
	else
		memcpy(a, nw->b, 16);
	if (m == NAT_MANIP_SRC) {
		in->src = *nw;
		if (in->has_ports)
			in->sport = np;
	} else {
		in->dst = *nw;
		if (in->has_ports)
			in->dport = np;
	}
	return 0;
}

/* Rewrite side m of p (direction dir of e) to the endpoint the other direction's tuple gives
 * (its destination for SNAT, its source for DNAT, as ct_tuple_invert has it): rewrite_fast
 * where it applies, else the general path. 0 or -EINVAL. */
static inline int nat_rewrite_endpoint(struct pkt *p, const struct ct_entry *e, enum ct_dir dir,
				       enum nat_manip m)
{
	const struct ct_tuple *other = &e->th[!dir].tuple;
	struct ct_tuple target;
	int err = other->l4proto == p->info.l4proto &&
			  (other->l4proto == IPPROTO_TCP || other->l4proto == IPPROTO_UDP)
		      ? rewrite_fast(p, m == NAT_MANIP_SRC ? &other->dst : &other->src,
				     m == NAT_MANIP_SRC ? other->d.port : other->s.port, m)
		      : 1;

	if (err <= 0)
		return err;
	if (ct_tuple_invert(other, &target))
		return -EINVAL;
	return nat_rewrite_general(p, &target, m);
}

/* The mapping timers a packet keeps running (RFC 4787 REQ-6, RFC 5382 REQ-5): outbound packets
 * always, inbound ones with refresh "both"; an outbound one also notes its peer. */
static inline void nat_refresh_timers(struct nat_table *n, struct nat_binding *b,
				      const struct ct_entry *e, enum ct_dir dir, enum nat_manip m,
				      uint64_t now)
{
	const struct ct_tuple *rt = &e->th[CT_DIR_REPLY].tuple;
	const struct ct_tuple *ot = &e->th[CT_DIR_ORIGINAL].tuple;

	/* outbound = leaving through the source manip's hook towards the remote side */
	if (b->map) {
		if (m == NAT_MANIP_SRC && dir == CT_DIR_ORIGINAL) {
			nat_mapping_refresh(n, b->map, now);
			nat_mapping_peer(b->map, &rt->src, rt->s.port, now);
		} else if (m == NAT_MANIP_DST && dir == CT_DIR_REPLY &&
			   b->map->refresh == NAT_REFRESH_BOTH) {
			nat_mapping_refresh(n, b->map, now);
		}
	}
	if (b->inmap) {
		if (m == NAT_MANIP_SRC && dir == CT_DIR_REPLY) {
			nat_mapping_refresh(n, b->inmap, now);
			nat_mapping_peer(b->inmap, &ot->src, ot->s.port, now);
		} else if (m == NAT_MANIP_DST && dir == CT_DIR_ORIGINAL &&
			   b->inmap->refresh == NAT_REFRESH_BOTH) {
			nat_mapping_refresh(n, b->inmap, now);
		}
	}
}

/*
 * nat_translate_binding then nat_hold_binding for a packet of an ESTABLISHED connection
 * (ctinfo CT_ESTABLISHED or CT_ESTABLISHED_REPLY: not an ICMP error, not RELATED), which is
 * nearly every packet: decided once, rewritten in place, the mapping refreshed and the entry
 * held, all inline. The same answers, bytes and timers as the general pair
 * (test_nat_established).
 */
static inline int nat_established(struct nat_table *n, struct pkt *p, struct ct_entry *e,
				  struct nat_binding *b, unsigned hook, uint64_t now)
{
	enum nat_manip m =
	    hook == HOOK_PREROUTING || hook == HOOK_OUTPUT ? NAT_MANIP_DST : NAT_MANIP_SRC;
	enum ct_dir dir = ct_pkt_ctinfo(p) == CT_ESTABLISHED_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;

	if (b->status & (dir == CT_DIR_ORIGINAL ? 1u << m : 1u << !m)) {
		int err = nat_rewrite_endpoint(p, e, dir, m);

		if (err)
			return err;
	}
	if (b->map || b->inmap) {
		nat_refresh_timers(n, b, e, dir, m, now);
		nat_hold_entry(n, e, now);
	}
	return 0;
}

#endif
