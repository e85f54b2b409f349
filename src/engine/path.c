/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet paths through the box, in the kernel's order:
 *
 *   box_receive -> parse -> PREROUTING -> routing decision -+-> INPUT -> ops.deliver
 *                                                           +-> TTL check, MTU check (IPv4 DF,
 *                                                               IPv6), TTL decrement -> FORWARD
 *                                                                 -> POSTROUTING -> ops.xmit
 *   box_output -> parse -> route -> OUTPUT -> POSTROUTING -> ops.xmit
 *   ops.xmit gets packets that fit the route's MTU: IPv4 larger is fragmented there
 *                                          (to a local address: POSTROUTING, PREROUTING and
 *                                           INPUT on "lo", then ops.deliver)
 *
 * Malformed packets, as Linux treats them (pkt_parse's reason -> where it is dropped):
 *
 *   reason            Linux                                         here
 *   L2_TRUNC          runt frame, dropped by the driver             MALFORMED, before hooks
 *   L2_PROTO          ARP etc. never reach iptables                 NOT_IP, before hooks
 *   IP_TRUNC          ip_rcv_core / ipv6_rcv: header not there      MALFORMED, before hooks
 *   IP_VERSION        ip_rcv_core / ipv6_rcv: wrong version         MALFORMED, before hooks
 *   IP_HLEN           ip_rcv_core: ihl < 5 or beyond the data       MALFORMED, before hooks
 *   IP_LEN            ip_rcv_core / ipv6_rcv: length > data         MALFORMED, before hooks
 *   IP_CSUM           ip_rcv_core: header checksum                  MALFORMED, before hooks
 *   IP_OPTIONS        ip_rcv_finish -> ip_options_compile, i.e.     PREROUTING runs, then
 *                     after PREROUTING                              MALFORMED
 *   EXTHDR, in the    ipv6_rcv -> ipv6_parse_hopopts, before        MALFORMED, before hooks
 *   hop-by-hop header PREROUTING
 *   EXTHDR, later     ip6tables sees it: ipv6_find_hdr fails, so    traverses; -p rules
 *                     a rule with -p hotdrops                       hotdrop (traverse.c)
 *   L4_TRUNC, L4_HLEN netfilter runs; matches find no header and    traverses; has_l4 false,
 *                     hotdrop (tcp, udp, ...); TCP/UDP drop later   ext matches hotdrop
 *
 * Trailing bytes after the IP datagram (Ethernet padding) are trimmed as ip_rcv_core does, so
 * forwarded frames and counters see the datagram only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* liburcu's read lock inline (engine/section.h) */
#define _LGPL_SOURCE
#include "engine/engine_int.h"
#include "engine/section.h"
#include "pkt/gso.h"
#include "pkt/parse_common.h"
#include "pkt/reply.h"

#define ETH_HLEN 14

/* The packet path is written as one function per burst (receive_burst): the common case inline
 * (PT_HOT), what a forwarded packet rarely meets out of line (PT_COLD), so that the path of
 * plain forwarding makes no call of its own between the parse and ops.xmit. */
#define PT_HOT	static inline __attribute__((always_inline))
#define PT_COLD static __attribute__((noinline, cold))

int box_drop_pkt(struct box *b, struct pkt *p, const struct box_drop *why)
{
	b->stats.dropped[why->kind < BOX_DROP_MAX ? why->kind : BOX_DROP_HOOK]++;
	if (why->kind == BOX_DROP_MALFORMED && why->bad < PKT_BAD_MAX)
		b->stats.malformed[why->bad]++;
	if (b->ops.dropped)
		b->ops.dropped(b->user, b, p, why);
	box_pkt_free(b, p);
	return EXT_DROP;
}

int box_drop_simple(struct box *b, struct pkt *p, enum box_drop_kind kind, unsigned hook)
{
	struct box_drop d = {.kind = kind, .table = -1, .hook = hook, .bad = p->info.bad};

	return box_drop_pkt(b, p, &d);
}

/* After a hook: EXT_ACCEPT goes on; a drop is counted; a stolen packet is not ours any more. */
static int finish(struct box *b, struct pkt *p, int v, const struct box_drop *drop)
{
	if (v == EXT_DROP)
		return box_drop_pkt(b, p, drop);
	return v;
}

static bool is_v4_mcast(const union pt_addr *a)
{
	return (a->b[0] & 0xf0) == 0xe0;
}

static bool is_v4_bcast(const struct box *b, const union pt_addr *a)
{
	return a->w[0] == 0xffffffffu || (box_addr_kind(b, AF_INET, a) & BOX_ADDR_BCAST);
}

/* Delivered locally: our addresses, LOCAL routes (r: the route to dst), broadcasts, multicast
 * (no mrouting). */
static bool input_is_local(int fam, const union pt_addr *dst, const struct box_route *r, int kind)
{
	if (fam == AF_INET)
		return (kind & (BOX_ADDR_LOCAL | BOX_ADDR_BCAST)) ||
		       (r && r->type == BOX_RT_LOCAL) || is_v4_mcast(dst) ||
		       dst->w[0] == 0xffffffffu;
	return (kind & BOX_ADDR_LOCAL) || (r && r->type == BOX_RT_LOCAL) || dst->b[0] == 0xff;
}

/* The framed packet to ops.xmit. */
PT_HOT int xmit_frame(struct box *b, struct pkt *p, int oif)
{
	b->stats.xmit++;
	if (b->ops.xmit)
		b->ops.xmit(b->user, b, oif, p);
	else
		pkt_free(p);
	return EXT_ACCEPT;
}

/* A copy of p framed for o's kind of link (Ethernet to raw IP or back) goes out. */
PT_COLD int xmit_reframed(struct box *b, struct pkt *p, int oif, const struct box_iface *o)
{
	bool has_eth = p->info.l2off == 0;
	struct pkt *np = pkt_reframe(p, has_eth ? PKT_LINK_ETHERNET : PKT_LINK_RAW, o->link, o->mac,
				     o->peer_mac);

	if (!np)
		return box_drop_simple(b, p, BOX_DROP_HOOK, HOOK_POSTROUTING);
	pkt_free(p);
	return xmit_frame(b, np, oif);
}

/*
 * One packet out of `oif`, whose interface is o (box_iface_at; NULL: none), framed for it. The
 * packet leaves the box: plug-ins' references go. Interfaces are never removed, so an
 * interface found earlier in the packet's path is still the one at oif.
 */
PT_HOT int xmit_at(struct box *b, struct pkt *p, int oif, const struct box_iface *o)
{
	bool has_eth = p->info.l2off == 0;

	box_pkt_unref_fast(b, p);
	if (!o)
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_POSTROUTING);
	if (has_eth != (o->link == PKT_LINK_ETHERNET))
		return xmit_reframed(b, p, oif, o);
	if (has_eth) {
		/* The next hop's MAC as destination, ours as source (neighbour output). */
		if (pkt_in_seg0(p, 0, 12)) {
			p->written = true;
			memcpy(p->seg[0].data, o->eth_macs, 12);
		} else {
			pkt_store(p, 0, o->peer_mac, 6);
			pkt_store(p, 6, o->mac, 6);
		}
	}
	return xmit_frame(b, p, oif);
}

static int xmit_one(struct box *b, struct pkt *p, int oif)
{
	return xmit_at(b, p, oif, box_iface_at(b, oif));
}

void box_xmit_frame(struct box *b, struct pkt *p, int oif)
{
	xmit_one(b, p, oif);
}

/*
 * An IPv4 datagram cut for a link of `mtu` (ip_fragment): one the box reassembled leaves cut
 * as it came in (to min(mtu, frag_max_size)), any other only when larger than the mtu.
 */
static int xmit_fragment(struct box *b, struct pkt *p, int oif, uint32_t mtu,
			 uint16_t frag_max_size)
{
	uint32_t m, per, max;
	struct pkt **frags;
	int n;

	if (!box_iface_at(b, oif))
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_POSTROUTING);
	m = frag_max_size && frag_max_size < mtu ? frag_max_size : mtu;
	per = m > p->info.ihl + 8u ? (m - p->info.ihl) & ~7u : 8u;
	max = p->info.l3len / per + 2;
	frags = calloc(max, sizeof(*frags));
	if (!frags)
		return box_drop_simple(b, p, BOX_DROP_HOOK, HOOK_POSTROUTING);
	n = box_fragment4(p, mtu, frag_max_size, frags, max);
	if (n < 0) {
		free(frags);
		if (n != -EMSGSIZE)
			return box_drop_simple(b, p, BOX_DROP_HOOK, HOOK_POSTROUTING);
		/* DF and too big (route_input checked forwarded packets before FORWARD; this one
		 * grew after): "fragmentation needed" with the next-hop MTU. A packet of the
		 * box's own gets no ICMP: Linux tells the socket. */
		if (p->iif)
			box_send_icmp_error_rest(b, p, 3, 4, mtu);
		return box_drop_simple(b, p, BOX_DROP_MTU, HOOK_POSTROUTING);
	}
	box_pkt_free(b, p);
	for (int i = 0; i < n; i++) {
		frags[i]->oif = oif;
		xmit_one(b, frags[i], oif);
	}
	free(frags);
	return EXT_ACCEPT;
}

static int xmit_sized(struct box *b, struct pkt *p, int oif, uint32_t mtu);

/*
 * A GSO packet larger than the link: whole when its segments fit (the kernel or the device cuts
 * it), else cut here and each segment sent as any packet (ip_finish_output_gso: an IPv4 segment
 * still too big is fragmented, or refused with DF).
 */
static int xmit_gso(struct box *b, struct pkt *p, int oif, uint32_t mtu)
{
	unsigned max = pkt_gso_nsegs(p);
	struct pkt **segs;
	int n;

	if (pkt_gso_seg_l3len(p) <= mtu)
		return xmit_one(b, p, oif);
	segs = calloc(max, sizeof(*segs));
	n = segs ? pkt_gso_segment(p, segs, max) : -ENOMEM;
	if (n < 0) {
		free(segs);
		return box_drop_simple(b, p, BOX_DROP_HOOK, HOOK_POSTROUTING);
	}
	for (int i = 0; i < n; i++) {
		segs[i]->oif = oif;
		xmit_sized(b, segs[i], oif, mtu);
	}
	free(segs);
	box_pkt_free(b, p);
	return EXT_ACCEPT;
}

/*
 * Out of `oif` toward a link of `mtu` IP bytes: the transmit stage first (conntrack sends an
 * IPv6 datagram it reassembled as its original fragments), then IPv4 is fragmented to fit (DF:
 * refused; one defragmentation made leaves cut as it came in), IPv6 larger than the link is
 * dropped (only its source may fragment it).
 */
static __attribute__((noinline)) int xmit(struct box *b, struct pkt *p, int oif, uint32_t mtu)
{
	if (b->tx_hooks[box_fam_index(p->info.family)].n) {
		struct box_drop drop;
		int v = box_run_tx_hooks(b, p, oif, mtu, &drop);

		if (v != EXT_ACCEPT)
			return v == EXT_DROP ? box_drop_pkt(b, p, &drop) : v;
	}
	return xmit_sized(b, p, oif, mtu);
}

/* After the transmit stage: whole, cut (GSO), fragmented or refused for the link's mtu. */
static __attribute__((noinline)) int xmit_sized(struct box *b, struct pkt *p, int oif, uint32_t mtu)
{
	if (p->info.family == AF_INET && p->frag_max_size)
		return xmit_fragment(b, p, oif, mtu, p->frag_max_size);
	if (p->info.l3len <= mtu)
		return xmit_one(b, p, oif);
	if (p->gso_size)
		return xmit_gso(b, p, oif, mtu);
	if (p->info.family == AF_INET)
		return xmit_fragment(b, p, oif, mtu, 0);
	if (p->iif)
		box_send_icmp_error_rest(b, p, 2, 0, mtu);
	return box_drop_simple(b, p, BOX_DROP_MTU, HOOK_POSTROUTING);
}

/* xmit toward interface o of oif (xmit_at): a packet with no transmit stage to meet that fits
 * the link whole goes straight out, the rest as xmit sends it. */
PT_HOT int xmit_via(struct box *b, struct pkt *p, int fam, int oif, uint32_t mtu,
		    const struct box_iface *o)
{
	if (b->tx_hooks[box_fam_index(fam)].n || (fam == AF_INET && p->frag_max_size) ||
	    p->info.l3len > mtu)
		return xmit(b, p, oif, mtu);
	return xmit_at(b, p, oif, o);
}

/* Delivered: plug-ins' references go (the originals of an IPv6 datagram conntrack reassembled
 * are not needed any more). */
static void deliver(struct box *b, struct pkt *p)
{
	box_pkt_unref(b, p);
	b->stats.delivered++;
	if (b->ops.deliver)
		b->ops.deliver(b->user, b, p);
	else
		pkt_free(p);
}

/*
 * What a received packet's path knows of its hooks from the start: bit HOOK_x of mask set,
 * nothing to run there for the packet's family and ruleset, as long as no function was
 * registered since (gen: the box's hook_gen then; a plug-in turned on during the packet).
 */
struct hooks_known {
	unsigned mask;
	uint64_t gen;
};

/* The hooks a forwarded packet meets: all three with nothing to run (quiet) lets the path
 * skip them without a look, as nothing on its way there can register a function. */
#define FORWARD_HOOKS (1u << HOOK_PREROUTING | 1u << HOOK_FORWARD | 1u << HOOK_POSTROUTING)

/* quiet: a compile-time constant of the inline copy (receive's); true only for FORWARD_HOOKS
 * when known said all three are idle. */
PT_HOT int run_hook(struct box *b, const struct hooks_known *k, bool quiet, int fam, unsigned hook,
		    int in, int out, struct pkt **pp, struct box_drop *drop)
{
	struct pkt *q;
	int v;

	if (quiet)
		return EXT_ACCEPT;
	if (k && (k->mask & 1u << hook) && k->gen == b->hook_gen)
		return EXT_ACCEPT;
	/* the caller's packet pointer is written back, not handed out: inline, it stays in a
	 * register */
	q = *pp;
	v = box_run_hook(b, fam, hook, in, out, &q, drop);
	*pp = q;
	return v;
}

static __attribute__((noinline)) int local_in(struct box *b, struct pkt *p, int fam, int iif,
					      const struct hooks_known *known)
{
	struct box_drop drop;
	int v = run_hook(b, known, false, fam, HOOK_INPUT, iif, 0, &p, &drop);

	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	deliver(b, p);
	return EXT_ACCEPT;
}

/* POSTROUTING, then out of oif (its interface o) toward a link of mtu. */
PT_HOT int post_and_xmit_via(struct box *b, struct pkt *p, int fam, int iif, int oif, uint32_t mtu,
			     const struct hooks_known *known, const struct box_iface *o, bool quiet)
{
	struct box_drop drop;
	int v = run_hook(b, known, quiet, fam, HOOK_POSTROUTING, iif, oif, &p, &drop);

	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	return xmit_via(b, p, fam, oif, mtu, o);
}

static int post_and_xmit(struct box *b, struct pkt *p, int fam, int iif, int oif, uint32_t mtu,
			 const struct hooks_known *known)
{
	return post_and_xmit_via(b, p, fam, iif, oif, mtu, known, box_iface_at(b, oif), false);
}

/* box_route_mtu_at of the route's interface. */
static uint32_t route_mtu(const struct box *b, const struct box_route *r, bool forwarding)
{
	return box_route_mtu_at(box_iface_at(b, r->oif), r, forwarding);
}

/*
 * ip_exceeds_mtu / ip6_pkt_too_big: a forwarded packet the next link cannot take whole and the
 * router may not cut: IPv4 with DF (a reassembled one: when its largest fragment does not fit,
 * it leaves cut as it came in otherwise), IPv6 always (a reassembled one: its largest fragment).
 */
PT_HOT bool forward_too_big(const struct pkt *p, int fam, uint32_t mtu)
{
	if (p->info.l3len <= mtu)
		return false;
	if (p->gso_size && pkt_gso_seg_l3len(p) <= mtu)
		return false; /* GSO: its segments fit (skb_gso_validate_network_len) */
	if (fam == AF_INET && !p->info.dont_frag)
		return false;
	return !p->frag_max_size || p->frag_max_size > mtu;
}

/*
 * The new header checksum of an IPv4 header h (12 bytes or more) whose TTL goes down by one:
 * pkt_csum_replace2 (RFC 1624 eqn. 3) of the TTL/protocol word, written out. Of its sum ~check +
 * ~old + new, ~old + new is 0xffff - 0x100 = 0xfeff (0x1feff when the TTL byte was 0 and
 * wrapped); the sum is below 0x30000, so two folds leave 16 bits, as the fold's loop would.
 */
PT_HOT uint16_t ttl4_sum(const uint8_t *h)
{
	uint32_t s = (uint32_t)(uint16_t) ~(h[10] << 8 | h[11]) + (h[8] ? 0xfeffu : 0x1feffu);

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* decrease_ttl of a header that is not all in the first segment. */
PT_COLD void decrease_ttl_rest(struct pkt *p)
{
	uint32_t off = p->info.l3off;
	uint8_t buf[12];
	const uint8_t *h;

	if (p->info.family == AF_INET6) {
		uint8_t hl = (uint8_t)(p->info.ttl - 1);

		pkt_store(p, off + 7, &hl, 1);
	} else {
		uint16_t sum;
		uint8_t w[3];

		h = pkt_header(p, off, 12, buf);
		if (!h)
			return;
		sum = ttl4_sum(h);
		w[0] = (uint8_t)(h[8] - 1);
		w[1] = (uint8_t)(sum >> 8);
		w[2] = (uint8_t)sum;
		pkt_store(p, off + 8, &w[0], 1);
		pkt_store(p, off + 10, &w[1], 2);
	}
	p->info.ttl--;
}

/* ip_decrease_ttl / hop_limit--, with the IPv4 header checksum updated incrementally (fam:
 * p->info.family). */
PT_HOT void decrease_ttl(struct pkt *p, int fam)
{
	uint32_t off = p->info.l3off;
	uint16_t sum;
	uint8_t *h;

	if (!pkt_in_seg0(p, off, fam == AF_INET6 ? 8 : 12)) {
		decrease_ttl_rest(p);
		return;
	}
	h = p->seg[0].data + off; /* written where it was read */
	p->written = true;
	if (fam == AF_INET6) { /* as decrease_ttl_rest: the parse's hop limit, less one */
		h[7] = (uint8_t)(p->info.ttl - 1);
		p->info.ttl--;
		return;
	}
	sum = ttl4_sum(h);
	h[8]--;
	h[10] = (uint8_t)(sum >> 8);
	h[11] = (uint8_t)sum;
	p->info.ttl--;
}

/* Route types that refuse: the ICMP the kernel sends (ip_error / ip6_pkt_discard). */
static void refuse_icmp(struct box *b, struct pkt *p, int fam, int rt)
{
	if (rt == BOX_RT_BLACKHOLE)
		return;
	if (fam == AF_INET)
		box_send_icmp_error(b, p, 3,
				    rt == BOX_RT_PROHIBIT      ? 13
				    : rt == BOX_RT_UNREACHABLE ? 1
							       : 0);
	else
		box_send_icmp_error(b, p, 1, rt == BOX_RT_PROHIBIT ? 1 : 0);
}

/* A packet not for the box that is not forwarded: forwarding off, no route or one that
 * refuses, or its TTL runs out here (ip_forward / ip6_forward: the TTL is checked before FORWARD,
 * the error quoting the packet as it came, TTL not yet decremented). */
PT_COLD int forward_refused(struct box *b, struct pkt *p, int fam, const struct box_route *r)
{
	if (!b->forwarding[box_fam_index(fam)])
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_PREROUTING);
	if (!r || r->type != BOX_RT_UNICAST) {
		refuse_icmp(b, p, fam, r ? (int)r->type : -1);
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_PREROUTING);
	}
	box_send_icmp_error(b, p, fam == AF_INET ? 11 : 3, 0);
	return box_drop_simple(b, p, BOX_DROP_TTL, HOOK_FORWARD);
}

/* Too big for the next link and not to be cut (after the TTL check, before FORWARD). */
PT_COLD int forward_too_big_drop(struct box *b, struct pkt *p, int fam, uint32_t mtu)
{
	box_send_icmp_error_rest(b, p, fam == AF_INET ? 3 : 2, fam == AF_INET ? 4 : 0, mtu);
	return box_drop_simple(b, p, BOX_DROP_MTU, HOOK_FORWARD);
}

/* A packet that passed the checks before FORWARD, forwarded by route r through interface o:
 * TTL decremented, FORWARD, POSTROUTING, out toward a link of out_mtu. */
PT_HOT int forward(struct box *b, struct pkt *p, int fam, int iif, const struct box_route *r,
		   const struct box_iface *o, uint32_t out_mtu, const struct hooks_known *known,
		   bool quiet)
{
	struct box_drop drop;
	int oif = r->oif, v;

	decrease_ttl(p, fam);
	p->oif = oif;
	v = run_hook(b, known, quiet, fam, HOOK_FORWARD, iif, oif, &p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	b->stats.forwarded++;
	return post_and_xmit_via(b, p, fam, iif, oif, out_mtu, known, o, quiet);
}

/* The input path's decision, each case as Linux makes it: delivered, refused, too big, or
 * forwarded. */
static __attribute__((noinline)) int route_input_general(struct box *b, struct pkt *p, int fam,
							 int iif, const struct hooks_known *known)
{
	const struct box_iface *o;
	const struct box_route *r;
	uint32_t mtu;
	int kind;

	/* once: local or forwarded; the route's interface with it, for the MTU and transmit */
	r = box_route_input_at(b, fam, &p->info.dst, &kind, &o);
	if (input_is_local(fam, &p->info.dst, r, kind))
		return local_in(b, p, fam, iif, known);
	if (!b->forwarding[box_fam_index(fam)] || !r || r->type != BOX_RT_UNICAST ||
	    p->info.ttl <= 1)
		return forward_refused(b, p, fam, r);
	mtu = box_route_mtu_at(o, r, true);
	if (forward_too_big(p, fam, mtu))
		return forward_too_big_drop(b, p, fam, mtu);
	return forward(b, p, fam, iif, r, o, box_route_mtu_at(o, r, false), known, false);
}

/* Multicast or broadcast (input_is_local's tests of the address alone). */
static inline bool dst_multi(int fam, const union pt_addr *dst)
{
	if (fam == AF_INET)
		return is_v4_mcast(dst) || dst->w[0] == 0xffffffffu;
	return dst->b[0] == 0xff;
}

/*
 * Routing a received packet. The common case, decided from the fib's leaf alone (box_fib_forward:
 * unicast, forwarding on, an interface that is up, none of the box's addresses, its MTUs found
 * at the build): not multicast or broadcast, a TTL to decrement, fits the link. The leaf's
 * fields are read before any hook runs (one may change what the fib is built from).
 */
PT_HOT int route_input(struct box *b, struct pkt *p, int fam, int iif,
		       const struct hooks_known *known, bool quiet)
{
	const struct fib_group *g = box_fib_forward(b, fam, &p->info.dst);

	if (g && !dst_multi(fam, &p->info.dst) && p->info.ttl > 1 && p->info.l3len <= g->fwd_mtu)
		return forward(b, p, fam, iif, g->r, g->ifc, g->out_mtu, known, quiet);
	return route_input_general(b, p, fam, iif, known);
}

/* The IPv6 header says hop-by-hop follows and not even that one parsed. */
static bool bad_hopopts(const struct pkt *p)
{
	uint8_t buf[8];
	const uint8_t *h = pkt_header(p, p->info.l3off, 8, buf);

	return h && h[6] == 0 && p->info.n_exthdr == 0;
}

static bool dropped_before_hooks(const struct pkt *p)
{
	switch (p->info.bad) {
	case PKT_OK:
	case PKT_BAD_IP_OPTIONS:
	case PKT_BAD_L4_TRUNC:
	case PKT_BAD_L4_HLEN:
		return false;
	case PKT_BAD_EXTHDR:
		return bad_hopopts(p);
	default:
		return true;
	}
}

/* A packet the parse refused: dropped before the hooks (EXT_DROP), or EXT_ACCEPT when it still
 * goes through them. */
PT_COLD int receive_malformed(struct box *b, struct pkt *p)
{
	if (p->info.bad == PKT_BAD_L2_PROTO)
		return box_drop_simple(b, p, BOX_DROP_NOT_IP, HOOK_PREROUTING);
	if (dropped_before_hooks(p))
		return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_PREROUTING);
	return EXT_ACCEPT;
}

/* p arrived on ifc and was parsed (parse_rc: pkt_parse's answer); fam is p->info.family; known:
 * current for it; quiet: FORWARD_HOOKS all idle in known. */
PT_HOT int receive(struct box *b, const struct box_iface *ifc, struct pkt *p, int parse_rc, int fam,
		   const struct hooks_known *known, bool quiet)
{
	struct box_drop drop;
	int v;

	if (parse_rc && (v = receive_malformed(b, p)) != EXT_ACCEPT)
		return v;
	if (p->info.l3len && p->info.l3off + p->info.l3len < p->len)
		pkt_trim(p, p->info.l3off + p->info.l3len);
	v = run_hook(b, known, quiet, fam, HOOK_PREROUTING, ifc->index, 0, &p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	/* quiet: p is the packet parsed, which parsed (parse_rc 0) is PKT_OK */
	if ((!quiet || parse_rc) && p->info.bad == PKT_BAD_IP_OPTIONS)
		return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_PREROUTING);
	return route_input(b, p, fam, ifc->index, known, quiet);
}

/* receive, with which hooks have nothing to run found again for the packet's family when a
 * function was registered since; a copy of it for the quiet case. */
PT_HOT int receive_known(struct box *b, const struct box_iface *ifc, struct pkt *p, int parse_rc,
			 int fam, struct hooks_known known_fam[2])
{
	struct hooks_known *known = &known_fam[box_fam_index(fam)];

	if (known->gen != b->hook_gen) {
		known->mask = box_hooks_idle(b, (unsigned)box_fam_index(fam));
		known->gen = b->hook_gen;
	}
	if ((known->mask & FORWARD_HOOKS) == FORWARD_HOOKS)
		return receive(b, ifc, p, parse_rc, fam, known, true);
	return receive(b, ifc, p, parse_rc, fam, known, false);
}

/* A packet that arrived on interface ifindex (ifc) parsed: 0 or -EBADMSG. */
PT_HOT int receive_parse(struct pkt *p, int ifindex, const struct box_iface *ifc)
{
	p->iif = ifindex;
	p->oif = 0;
	return pkt_parse_inline(p, ifc->link, true) ? -EBADMSG : 0;
}

/* receive_known for the packet's family; IPv4, the common case, compiled with its family
 * known. */
PT_HOT int receive_one(struct box *b, const struct box_iface *ifc, struct pkt *p, int parse_rc,
		       struct hooks_known known[2])
{
	if (p->info.family == AF_INET)
		return receive_known(b, ifc, p, parse_rc, AF_INET, known);
	return receive_known(b, ifc, p, parse_rc, p->info.family, known);
}

/*
 * A burst: every packet parsed first (the headers of the next packets are read while none of
 * them has gone anywhere yet), then the plug-ins' prepare_burst over the whole vector (which
 * changes nothing: conntrack hashes every tuple and prefetches its chain), then each packet, in
 * order, through the path of a single packet. Whatever a packet meets (hooks, conntrack, an
 * ICMP error, a queue, a drop) happens in the order one packet after the other would make it:
 * no stage runs across packets, as rules with recent, limit, quota or nth would see another
 * order. What is shared is the work around the packets: one read-side section and one ruleset
 * snapshot for the burst, one interface lookup, plug-ins applied before it, and which hooks
 * have nothing to run, found once per family. box_receive is a burst of one.
 */
static inline __attribute__((always_inline)) int
receive_burst(struct box *b, int ifindex, struct pkt *const *pkts, unsigned n, int *verdicts)
{
	const struct box_iface *ifc = box_iface_at(b, ifindex);
	struct rules_ruleset *saved[2];
	struct hooks_known known[2]; /* per family, for the burst (the ruleset snapshot is one) */
	int8_t parsed[BOX_BURST_MAX];
	unsigned sent = 0;
	bool prepared;
	int outer;

	if (n > BOX_BURST_MAX || (n && !pkts))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!pkts[i])
			return -EINVAL;
	if (!ifc || !ifc->up) {
		for (unsigned i = 0; i < n; i++) {
			box_pkt_free(b, pkts[i]);
			if (verdicts)
				verdicts[i] = -ENODEV;
		}
		return -ENODEV;
	}
	b->stats.received += n;
	for (unsigned i = 0; i < n; i++)
		parsed[i] = (int8_t)(receive_parse(pkts[i], ifindex, ifc) != 0);
	box_section_enter(b, saved);
	/* not found yet: a gen other than the box's (hook_gen only grows) */
	known[0].gen = known[1].gen = b->hook_gen - 1;
	prepared = n >= 2 && b->nprepare;
	outer = b->burst_index; /* -1, unless a hook receives a burst inside a burst */
	for (unsigned j = 0; prepared && j < b->nprepare; j++)
		b->prepare[j].fn(b->prepare[j].priv, pkts, n);
	for (unsigned i = 0; i < n; i++) {
		int v;

		if (prepared)
			b->burst_index = (int)i;
		v = receive_one(b, ifc, pkts[i], parsed[i] ? -EBADMSG : 0, known);
		sent += v == EXT_ACCEPT;
		if (verdicts)
			verdicts[i] = v;
	}
	b->burst_index = outer;
	box_section_leave(b, saved);
	return (int)sent;
}

int box_burst_index(const struct box *b)
{
	return b->burst_index;
}

int box_receive_burst(struct box *b, int ifindex, struct pkt *const *pkts, unsigned n,
		      int *verdicts)
{
	return receive_burst(b, ifindex, pkts, n, verdicts);
}

/* A burst of one, without the burst's arrays and loops. */
int box_receive(struct box *b, int ifindex, struct pkt *p)
{
	const struct box_iface *ifc = box_iface_at(b, ifindex);
	struct rules_ruleset *saved[2];
	struct hooks_known known[2];
	int rc, v;

	if (!p)
		return -EINVAL;
	if (!ifc || !ifc->up) {
		box_pkt_free(b, p);
		return -ENODEV;
	}
	b->stats.received++;
	rc = receive_parse(p, ifindex, ifc);
	box_section_enter(b, saved);
	known[0].gen = known[1].gen = b->hook_gen - 1;
	v = receive_one(b, ifc, p, rc, known);
	box_section_leave(b, saved);
	return v;
}

/* The interface a packet of the box's own to `dst` leaves by (BOX_IFINDEX_LO: a local
 * address), 0 when there is no route. */
static int output_route(const struct box *b, int fam, const union pt_addr *dst,
			const struct box_route **rp)
{
	const struct box_route *r = box_route_lookup(b, fam, dst);

	*rp = r;
	if (box_is_local(b, fam, dst) || (r && r->type == BOX_RT_LOCAL))
		return BOX_IFINDEX_LO;
	return r && r->type == BOX_RT_UNICAST ? r->oif : 0;
}

static int output(struct box *b, struct pkt *p)
{
	const struct box_route *r;
	struct box_drop drop;
	union pt_addr dst;
	int fam, oif, v;

	p->iif = 0;
	if (pkt_parse(p, PKT_LINK_RAW, false)) {
		if (p->info.bad == PKT_BAD_L2_PROTO)
			return box_drop_simple(b, p, BOX_DROP_NOT_IP, HOOK_OUTPUT);
		if (dropped_before_hooks(p))
			return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_OUTPUT);
	}
	fam = p->info.family;
	dst = p->info.dst;
	oif = output_route(b, fam, &dst, &r);
	if (!oif)
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_OUTPUT);
	p->oif = oif;
	v = box_run_hook(b, fam, HOOK_OUTPUT, 0, oif, &p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	/* ip_route_me_harder: a DNAT at OUTPUT moved the destination, so route again. */
	if (!pt_addr_eq(&dst, &p->info.dst)) {
		oif = output_route(b, fam, &p->info.dst, &r);
		if (!oif)
			return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_OUTPUT);
		p->oif = oif;
	}
	if (oif != BOX_IFINDEX_LO)
		return post_and_xmit(b, p, fam, 0, oif, route_mtu(b, r, false), NULL);
	/* Loopback: out through POSTROUTING, back in through PREROUTING and INPUT. */
	v = box_run_hook(b, fam, HOOK_POSTROUTING, 0, oif, &p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	p->iif = BOX_IFINDEX_LO;
	p->oif = 0;
	v = box_run_hook(b, fam, HOOK_PREROUTING, BOX_IFINDEX_LO, 0, &p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	return local_in(b, p, fam, BOX_IFINDEX_LO, NULL);
}

int box_output(struct box *b, struct pkt *p)
{
	struct rules_ruleset *saved[2];
	int v;

	if (!p)
		return -EINVAL;
	b->stats.sent_local++;
	box_pkt_begin(b, saved);
	v = output(b, p);
	box_pkt_end(b, saved);
	return v;
}

int box_emit(struct box *b, struct pkt *p)
{
	struct rules_ruleset *saved[2];
	int v;

	if (b->emit_depth >= BOX_MAX_EMIT_DEPTH)
		return box_drop_simple(b, p, BOX_DROP_LOOP, HOOK_OUTPUT);
	b->stats.emitted++;
	if (b->ops.emit) { /* another stack routes what the box makes */
		b->ops.emit(b->user, b, p);
		return EXT_ACCEPT;
	}
	b->emit_depth++;
	box_pkt_begin(b, saved);
	v = output(b, p);
	box_pkt_end(b, saved);
	b->emit_depth--;
	return v;
}

/* ---- ICMP errors the box itself sends ---------------------------------------------------- */

/* The source of an error toward `to`: an address on the interface the reply leaves by, else any
 * address of the family (inet_select_addr / ipv6_dev_get_saddr, simplified). */
/*
 * The source address of an ICMP error the box sends, chosen as Linux's icmp_send() and
 * icmp6_send() end up choosing it: the offending packet's destination when that is one of the
 * box's own addresses; else an address on the interface the error leaves by; else any address
 * of the family; else, with no address at all, what Linux falls back to: 192.0.0.8 (the
 * RFC 7600 dummy address) for IPv4 and ::1 (from lo) for IPv6. tests/diff/README.md shows the
 * kernel doing exactly that.
 */
void box_icmp_source(const struct box *b, const struct pkt *orig, union pt_addr *src)
{
	const struct pkt_info *in = &orig->info;
	const struct box_route *r = box_route_lookup(b, in->family, &in->src);
	const struct box_addr *any = NULL;

	if (box_is_local(b, in->family, &in->dst)) {
		*src = in->dst;
		return;
	}
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *a = &b->addrs[i];

		if (a->family != in->family)
			continue;
		if (r && a->ifindex == r->oif) {
			*src = a->addr;
			return;
		}
		if (!any)
			any = a;
	}
	if (any) {
		*src = any->addr;
		return;
	}
	memset(src, 0, sizeof(*src));
	if (in->family == AF_INET) {
		src->b[0] = 192;
		src->b[3] = 8;
	} else {
		src->b[15] = 1;
	}
}

/* An ICMP error about `orig`, sent as a locally generated packet. pkt_reply_icmp refuses
 * what RFC 1812 4.3.2.7 / RFC 4443 2.4 (e) forbid (errors about errors, non-first
 * fragments, multicast, ...); a broadcast destination of this box is refused here. */
void box_send_icmp_error_rest(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code,
			      uint32_t rest)
{
	struct pkt_reply_opts o = {0};
	union pt_addr src;
	struct pkt *np = NULL;

	if (orig->info.family == AF_INET && is_v4_bcast(b, &orig->info.dst))
		return;
	box_icmp_source(b, orig, &src);
	o.src = &src;
	if (pkt_reply_icmp(orig, type, code, rest, &o, &np) == 0 && np)
		box_emit(b, np);
}
