/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Packet paths through the box, in the kernel's order:
 *
 *   box_receive -> parse -> PREROUTING -> routing decision -+-> INPUT -> ops.deliver
 *                                                           +-> TTL check/decrement -> FORWARD
 *                                                                 -> POSTROUTING -> ops.xmit
 *   box_output -> parse -> route -> OUTPUT -> POSTROUTING -> ops.xmit
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
 *                     a rule with -p hotdrops                       hotdrop (table.c)
 *   L4_TRUNC, L4_HLEN netfilter runs; matches find no header and    traverses; has_l4 false,
 *                     hotdrop (tcp, udp, ...); TCP/UDP drop later   ext matches hotdrop
 *
 * Trailing bytes after the IP datagram (Ethernet padding) are trimmed as ip_rcv_core does, so
 * forwarded frames and counters see the datagram only.
 */
#include <errno.h>
#include <string.h>

#include "engine/engine_int.h"

#define ETH_HLEN	14
#define ICMP_ERR_MAX_V4 576  /* RFC 1812 4.3.2.3: the error datagram is at most 576 bytes */
#define ICMP_ERR_MAX_V6 1280 /* RFC 4443 2.4 (c): at most the minimum IPv6 MTU */

int box_drop_pkt(struct box *b, struct pkt *p, const struct box_drop *why)
{
	b->stats.dropped[why->kind < BOX_DROP_MAX ? why->kind : BOX_DROP_HOOK]++;
	if (why->kind == BOX_DROP_MALFORMED && why->bad < PKT_BAD_MAX)
		b->stats.malformed[why->bad]++;
	if (b->ops.dropped)
		b->ops.dropped(b->user, b, p, why);
	pkt_free(p);
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
	if (a->w[0] == 0xffffffffu)
		return true;
	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *x = &b->addrs[i];
		union pt_addr m;

		if (x->family != AF_INET || x->plen >= 31)
			continue;
		pt_mask_from_len(AF_INET, x->plen, &m);
		if ((a->w[0] & m.w[0]) == (x->addr.w[0] & m.w[0]) &&
		    (a->w[0] | m.w[0]) == 0xffffffffu)
			return true;
	}
	return false;
}

/* Delivered locally: our addresses, LOCAL routes, broadcasts, multicast (no mrouting). */
static bool input_is_local(const struct box *b, int fam, const union pt_addr *dst)
{
	if (box_is_local(b, fam, dst))
		return true;
	if (fam == AF_INET)
		return is_v4_mcast(dst) || is_v4_bcast(b, dst);
	return dst->b[0] == 0xff;
}

/* A copy of the datagram with the link header the interface wants. NULL on ENOMEM. */
static struct pkt *reframe(struct pkt *p, const struct box_iface *o)
{
	bool eth = o->link == PKT_LINK_ETHERNET;
	uint32_t hl = eth ? ETH_HLEN : 0, dlen = p->len - p->info.l3off;
	struct pkt *np = pkt_alloc(hl + dlen);
	uint8_t *d;

	if (!np)
		return NULL;
	d = pkt_linear_data(np);
	if (eth) {
		memcpy(d, o->peer_mac, 6);
		memcpy(d + 6, o->mac, 6);
		d[12] = p->info.family == AF_INET6 ? 0x86 : 0x08;
		d[13] = p->info.family == AF_INET6 ? 0xdd : 0x00;
	}
	if (pkt_copy_out(p, p->info.l3off, d + hl, dlen)) {
		pkt_free(np);
		return NULL;
	}
	np->mark = p->mark;
	np->priority = p->priority;
	np->iif = p->iif;
	np->oif = p->oif;
	np->tstamp_ns = p->tstamp_ns;
	np->id = p->id;
	np->trace = p->trace;
	np->ct = p->ct;
	np->ctinfo = p->ctinfo;
	pkt_parse(np, o->link, false);
	return np;
}

static int xmit(struct box *b, struct pkt *p, int oif)
{
	const struct box_iface *o = box_iface(b, oif);
	bool has_eth = p->info.l2off == 0;

	if (!o)
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_POSTROUTING);
	if (has_eth != (o->link == PKT_LINK_ETHERNET)) {
		struct pkt *np = reframe(p, o);

		if (!np)
			return box_drop_simple(b, p, BOX_DROP_HOOK, HOOK_POSTROUTING);
		pkt_free(p);
		p = np;
	} else if (has_eth) {
		/* The next hop's MAC as destination, ours as source (neighbour output). */
		pkt_store(p, 0, o->peer_mac, 6);
		pkt_store(p, 6, o->mac, 6);
	}
	b->stats.xmit++;
	if (b->ops.xmit)
		b->ops.xmit(b->user, b, oif, p);
	else
		pkt_free(p);
	return EXT_ACCEPT;
}

static int local_in(struct box *b, struct pkt *p, int fam, int iif)
{
	struct box_drop drop;
	int v = box_run_hook(b, fam, HOOK_INPUT, iif, 0, p, &drop);

	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	b->stats.delivered++;
	if (b->ops.deliver)
		b->ops.deliver(b->user, b, p);
	else
		pkt_free(p);
	return EXT_ACCEPT;
}

static int post_and_xmit(struct box *b, struct pkt *p, int fam, int iif, int oif)
{
	struct box_drop drop;
	int v = box_run_hook(b, fam, HOOK_POSTROUTING, iif, oif, p, &drop);

	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	return xmit(b, p, oif);
}

/* ip_decrease_ttl / hop_limit--, with the IPv4 header checksum updated incrementally. */
static void decrease_ttl(struct pkt *p)
{
	uint32_t off = p->info.l3off;
	uint8_t buf[12];
	const uint8_t *h;

	if (p->info.family == AF_INET6) {
		uint8_t hl = (uint8_t)(p->info.ttl - 1);

		pkt_store(p, off + 7, &hl, 1);
	} else {
		uint16_t old, new_, sum;
		uint8_t w[3];

		h = pkt_header(p, off, 12, buf);
		if (!h)
			return;
		old = (uint16_t)(h[8] << 8 | h[9]);
		new_ = (uint16_t)(old - 0x0100);
		sum = pkt_csum_replace2((uint16_t)(h[10] << 8 | h[11]), old, new_);
		w[0] = (uint8_t)(new_ >> 8);
		w[1] = (uint8_t)(sum >> 8);
		w[2] = (uint8_t)sum;
		pkt_store(p, off + 8, &w[0], 1);
		pkt_store(p, off + 10, &w[1], 2);
	}
	p->info.ttl--;
}

/* Route types that refuse: the ICMP the kernel sends (ip_error / ip6_pkt_discard). */
static void refuse_icmp(struct box *b, struct pkt *p, int fam, int rt)
{
	if (rt == BOX_RT_BLACKHOLE)
		return;
	if (fam == AF_INET)
		box_icmp_error(b, p, 3,
			       rt == BOX_RT_PROHIBIT	  ? 13
			       : rt == BOX_RT_UNREACHABLE ? 1
							  : 0);
	else
		box_icmp_error(b, p, 1, rt == BOX_RT_PROHIBIT ? 1 : 0);
}

static int route_input(struct box *b, struct pkt *p, int fam, int iif)
{
	const struct box_route *r;
	struct box_drop drop;
	int v;

	if (input_is_local(b, fam, &p->info.dst))
		return local_in(b, p, fam, iif);
	if (!b->forwarding[box_fam_index(fam)])
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_PREROUTING);
	r = box_route_lookup(b, fam, &p->info.dst);
	if (r && r->type == BOX_RT_LOCAL)
		return local_in(b, p, fam, iif);
	if (!r || r->type != BOX_RT_UNICAST) {
		refuse_icmp(b, p, fam, r ? (int)r->type : -1);
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_PREROUTING);
	}
	/* ip_forward / ip6_forward: the TTL is checked and decremented before FORWARD. */
	if (p->info.ttl <= 1) {
		box_icmp_error(b, p, fam == AF_INET ? 11 : 3, 0);
		return box_drop_simple(b, p, BOX_DROP_TTL, HOOK_FORWARD);
	}
	decrease_ttl(p);
	p->oif = r->oif;
	v = box_run_hook(b, fam, HOOK_FORWARD, iif, r->oif, p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	b->stats.forwarded++;
	return post_and_xmit(b, p, fam, iif, r->oif);
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

static int receive(struct box *b, const struct box_iface *ifc, struct pkt *p)
{
	struct box_drop drop;
	int fam, v;

	if (pkt_parse(p, ifc->link, true)) {
		if (p->info.bad == PKT_BAD_L2_PROTO)
			return box_drop_simple(b, p, BOX_DROP_NOT_IP, HOOK_PREROUTING);
		if (dropped_before_hooks(p))
			return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_PREROUTING);
	}
	fam = p->info.family;
	if (p->info.l3len && p->info.l3off + p->info.l3len < p->len)
		pkt_trim(p, p->info.l3off + p->info.l3len);
	v = box_run_hook(b, fam, HOOK_PREROUTING, ifc->index, 0, p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	if (p->info.bad == PKT_BAD_IP_OPTIONS)
		return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_PREROUTING);
	return route_input(b, p, fam, ifc->index);
}

int box_receive(struct box *b, int ifindex, struct pkt *p)
{
	const struct box_iface *ifc = box_iface(b, ifindex);
	struct rules_ruleset *saved[2];
	int v;

	if (!p)
		return -EINVAL;
	if (!ifc || !ifc->up) {
		pkt_free(p);
		return -ENODEV;
	}
	b->stats.received++;
	p->iif = ifindex;
	p->oif = 0;
	box_pkt_begin(b, saved);
	v = receive(b, ifc, p);
	box_pkt_end(b, saved);
	return v;
}

static int output(struct box *b, struct pkt *p)
{
	const struct box_route *r;
	struct box_drop drop;
	int fam, oif, v;

	p->iif = 0;
	if (pkt_parse(p, PKT_LINK_RAW, false)) {
		if (p->info.bad == PKT_BAD_L2_PROTO)
			return box_drop_simple(b, p, BOX_DROP_NOT_IP, HOOK_OUTPUT);
		if (dropped_before_hooks(p))
			return box_drop_simple(b, p, BOX_DROP_MALFORMED, HOOK_OUTPUT);
	}
	fam = p->info.family;
	r = box_route_lookup(b, fam, &p->info.dst);
	if (box_is_local(b, fam, &p->info.dst) || (r && r->type == BOX_RT_LOCAL))
		oif = BOX_IFINDEX_LO;
	else if (r && r->type == BOX_RT_UNICAST)
		oif = r->oif;
	else
		return box_drop_simple(b, p, BOX_DROP_NOROUTE, HOOK_OUTPUT);
	p->oif = oif;
	v = box_run_hook(b, fam, HOOK_OUTPUT, 0, oif, p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	if (oif != BOX_IFINDEX_LO)
		return post_and_xmit(b, p, fam, 0, oif);
	/* Loopback: out through POSTROUTING, back in through PREROUTING and INPUT. */
	v = box_run_hook(b, fam, HOOK_POSTROUTING, 0, oif, p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	p->iif = BOX_IFINDEX_LO;
	p->oif = 0;
	v = box_run_hook(b, fam, HOOK_PREROUTING, BOX_IFINDEX_LO, 0, p, &drop);
	if (v != EXT_ACCEPT)
		return finish(b, p, v, &drop);
	return local_in(b, p, fam, BOX_IFINDEX_LO);
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
	b->emit_depth++;
	b->stats.emitted++;
	box_pkt_begin(b, saved);
	v = output(b, p);
	box_pkt_end(b, saved);
	b->emit_depth--;
	return v;
}

/* ---- ICMP errors the box itself sends ---------------------------------------------------- */

/* The source of an error toward `to`: an address on the interface the reply leaves by, else any
 * address of the family (inet_select_addr / ipv6_dev_get_saddr, simplified). */
static bool pick_source(const struct box *b, int fam, const union pt_addr *to, union pt_addr *src)
{
	const struct box_route *r = box_route_lookup(b, fam, to);
	const struct box_addr *any = NULL;

	for (unsigned i = 0; i < b->naddrs; i++) {
		const struct box_addr *a = &b->addrs[i];

		if (a->family != fam)
			continue;
		if (r && a->ifindex == r->oif) {
			*src = a->addr;
			return true;
		}
		if (!any)
			any = a;
	}
	if (any)
		*src = any->addr;
	return any != NULL;
}

/* RFC 1812 4.3.2.7 / RFC 4443 2.4 (e): no error about an error, a non-first fragment, a
 * multicast or broadcast, or from an unspecified / multicast source. */
static bool may_send_error(const struct box *b, const struct pkt_info *in)
{
	static const union pt_addr zero;

	if (in->frag_off || pt_addr_eq(&in->src, &zero))
		return false;
	if (in->family == AF_INET) {
		if (in->l4proto == 1 &&
		    (!in->has_l4 || in->icmp_type == 3 || in->icmp_type == 4 ||
		     in->icmp_type == 5 || in->icmp_type == 11 || in->icmp_type == 12))
			return false;
		return !is_v4_mcast(&in->dst) && !is_v4_bcast(b, &in->dst) &&
		       !is_v4_mcast(&in->src) && in->src.w[0] != 0xffffffffu;
	}
	if (in->l4proto == 58 && (!in->has_l4 || in->icmp_type < 128))
		return false;
	return in->dst.b[0] != 0xff && in->src.b[0] != 0xff;
}

void box_icmp_error(struct box *b, const struct pkt *orig, uint8_t type, uint8_t code)
{
	const struct pkt_info *in = &orig->info;
	bool v6 = in->family == AF_INET6;
	uint32_t hl = v6 ? 40 : 20, max = v6 ? ICMP_ERR_MAX_V6 : ICMP_ERR_MAX_V4;
	uint32_t quote = orig->len - in->l3off, icmplen;
	union pt_addr src;
	struct pkt *np;
	uint8_t *d, *ic;
	uint16_t sum;

	if (!may_send_error(b, in) || !pick_source(b, in->family, &in->src, &src))
		return;
	if (quote > max - hl - 8)
		quote = max - hl - 8;
	icmplen = 8 + quote;
	np = pkt_alloc(hl + icmplen);
	if (!np)
		return;
	d = pkt_linear_data(np);
	ic = d + hl;
	if (v6) {
		d[0] = 0x60;
		d[4] = (uint8_t)(icmplen >> 8);
		d[5] = (uint8_t)icmplen;
		d[6] = 58;
		d[7] = 64;
		memcpy(d + 8, src.b, 16);
		memcpy(d + 24, in->src.b, 16);
	} else {
		uint16_t id = (uint16_t)b->ip_id++;

		d[0] = 0x45;
		d[1] = (uint8_t)((in->tos & 0x1e) | 0xc0); /* precedence: internetwork control */
		d[2] = (uint8_t)((hl + icmplen) >> 8);
		d[3] = (uint8_t)(hl + icmplen);
		d[4] = (uint8_t)(id >> 8);
		d[5] = (uint8_t)id;
		d[8] = 64;
		d[9] = 1;
		memcpy(d + 12, src.b, 4);
		memcpy(d + 16, in->src.b, 4);
		sum = pkt_csum_fold(pkt_csum_bytes(d, 20, 0));
		d[10] = (uint8_t)(sum >> 8);
		d[11] = (uint8_t)sum;
	}
	ic[0] = type;
	ic[1] = code;
	pkt_copy_out(orig, in->l3off, ic + 8, quote);
	sum = pkt_csum_fold(pkt_csum_bytes(
	    ic, icmplen, v6 ? pkt_csum_pseudo(AF_INET6, &src, &in->src, 58, icmplen) : 0));
	ic[2] = (uint8_t)(sum >> 8);
	ic[3] = (uint8_t)sum;
	box_emit(b, np);
}
