// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rewriting packets as their connection's binding says, checksums updated incrementally
 * (RFC 1624): the IPv4 header checksum for the address, the transport checksum for the
 * pseudo-header address (TCP, UDP, UDP-Lite, DCCP, ICMPv6) and the port or ICMP query id.
 * A UDP-over-IPv4 zero checksum ("none") stays zero; SCTP's CRC32c is recomputed.
 *
 * Which manip a hook applies (the kernel's rule): PREROUTING/OUTPUT the destination,
 * POSTROUTING/INPUT the source. A packet of the original direction gets the manips of its own
 * kind; a reply gets the other kind undone: the new tuple is always the inverse of the other
 * direction's tuple.
 *
 * ICMP errors (RFC 5508 REQ-3, REQ-4): RELATED to the connection their quoted datagram
 * belongs to. The quoted datagram went the other way, so it gets the opposite manip towards
 * the other direction's tuple (its IPv4 header checksum and transport checksum, when quoted,
 * updated incrementally); the outer header gets the addresses; the ICMP checksum, which
 * covers the quoted bytes, is recomputed.
 *
 *   outer IP | ICMP type code csum unused | quoted IP | quoted ports/id [csum] ...
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat_int.h"
#include "pkt/proto.h"
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
#define ICMP_HLEN     8 /* type, code, checksum, 4 bytes of "rest": then the quoted datagram */

/*
 * The checksum NAT keeps right incrementally, -1 none: one that covers what NAT rewrites (the
 * pseudo-header's addresses, ports, an ICMP query id). GRE's covers neither, SCTP's CRC32c is
 * computed again whole.
 */
static int csum_offset(const struct pkt_proto *pr)
{
	return pr->csum && (pr->csum_pseudo || pr->ports || pr->icmp) ? pr->csum_off : -1;
}

/*
 * Rewrite the side m of one datagram (header at l3, transport at l4 with l4avail bytes there)
 * to tuple t. addr_only: the outer header of an ICMP error (its checksum is recomputed).
 */
static int manip(struct pkt *p, int family, uint32_t l3, uint32_t l4, uint32_t l4avail,
		 uint8_t proto, uint8_t icmp_type, const struct ct_tuple *t, enum nat_manip m,
		 bool addr_only)
{
	const struct pkt_proto *pr = pkt_proto(proto);
	union pt_addr old, nw = m == NAT_MANIP_SRC ? t->src : t->dst;
	uint32_t alen = family == AF_INET ? 4 : 16;
	uint32_t aoff = l3 + (family == AF_INET ? (m == NAT_MANIP_SRC ? IP4_SRC_OFF : IP4_DST_OFF)
						: (m == NAT_MANIP_SRC ? IP6_SRC_OFF : IP6_DST_OFF));
	int cso = addr_only ? -1 : csum_offset(pr);
	bool have_csum = cso >= 0 && l4avail >= (uint32_t)cso + 2;
	/* CHECKSUM_PARTIAL (a GSO packet): the field holds the pseudo-header sum itself, which
	 * follows the addresses; the ports are summed by whoever completes it */
	bool partial = have_csum && p->csum_partial && l4 == p->info.l4off;
	uint16_t check = 0, oldcheck = 0;

	memset(&old, 0, sizeof(old));
	if (pkt_copy_out(p, aoff, &old, alen))
		return -EINVAL;
	if (have_csum && pkt_load_be16(p, l4 + (uint32_t)cso, &check))
		return -EINVAL;
	oldcheck = check;
	if (partial)
		check = (uint16_t)~check; /* updated as a checksum, then back to a sum */
	if (have_csum && pr->csum_pseudo) {
		if (family == AF_INET)
			check = pkt_csum_replace4(check, __builtin_bswap32(old.w[0]),
						  __builtin_bswap32(nw.w[0]));
		else
			check = pkt_csum_replace16(check, &old, &nw);
	}
	if (partial)
		check = (uint16_t)~check;
	if (!addr_only && pr->ports && l4avail >= 4) {
		uint32_t poff = l4 + (m == NAT_MANIP_SRC ? 0 : 2);
		uint16_t op, np = m == NAT_MANIP_SRC ? t->s.port : t->d.port;

		if (pkt_load_be16(p, poff, &op))
			return -EINVAL;
		if (op != np) {
			if (!partial)
				check = pkt_csum_replace2(check, op, np);
			pkt_store_be16(p, poff, np);
		}
	} else if (!addr_only && pr->icmp && pkt_icmp_has_id(proto, icmp_type) &&
		   l4avail >= PKT_ICMP_ID_OFF + 2) {
		/* the query id is the "port" of both directions: s.icmp_id of the target */
		uint16_t oid;

		if (pkt_load_be16(p, l4 + PKT_ICMP_ID_OFF, &oid))
			return -EINVAL;
		if (oid != t->s.icmp_id) {
			check = pkt_csum_replace2(check, oid, t->s.icmp_id);
			pkt_store_be16(p, l4 + PKT_ICMP_ID_OFF, t->s.icmp_id);
		}
	}
	if (partial) {
		pkt_store_be16(p, l4 + (uint32_t)cso, check);
	} else if (have_csum && !(pr->csum_none4 && family == AF_INET && oldcheck == 0)) {
		if (pr->csum_nonzero && check == 0)
			check = 0xffff; /* 0 means "no checksum" to UDP */
		pkt_store_be16(p, l4 + (uint32_t)cso, check);
	}
	if (family == AF_INET && !pt_addr_eq(&old, &nw)) {
		uint16_t ipc;

		if (pkt_load_be16(p, l3 + IP4_CSUM_OFF, &ipc))
			return -EINVAL;
		pkt_store_be16(p, l3 + IP4_CSUM_OFF,
			       pkt_csum_replace4(ipc, __builtin_bswap32(old.w[0]),
						 __builtin_bswap32(nw.w[0])));
	}
	return pkt_store(p, aoff, &nw, alen);
}

/* The info the rules of later hooks read follows the rewrite. */
static void info_update(struct pkt *p, const struct ct_tuple *t, enum nat_manip m)
{
	struct pkt_info *in = &p->info;

	if (m == NAT_MANIP_SRC) {
		in->src = t->src;
		if (in->has_ports)
			in->sport = t->s.port;
	} else {
		in->dst = t->dst;
		if (in->has_ports)
			in->dport = t->d.port;
	}
	/* manip rewrote a query's identifier as the port of both directions */
	if (in->has_l4 && pkt_proto(in->l4proto)->icmp &&
	    pkt_icmp_has_id(in->l4proto, in->icmp_type))
		in->icmp_id = t->s.icmp_id;
}

static inline uint16_t be16_at(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void be16_put(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/*
 * manip() for what nearly every translated packet is: TCP or UDP, its headers up to the
 * transport checksum in the first segment, the checksum complete (not CHECKSUM_PARTIAL).
 * The same steps on the same bytes as manip() (pkt_csum_replace4/16, then the port's
 * replace2, UDP's zero rules, the IPv4 header checksum when the address changes), with
 * pointers instead of bounded copies; info follows as info_update() has it. 1 when p is not
 * such a packet (the caller takes manip()). test_nat_fast drives both on the same packets.
 */
static inline int rewrite_fast(struct pkt *p, const union pt_addr *nw, uint16_t np,
			       enum nat_manip m)
{
	struct pkt_info *in = &p->info;
	uint8_t proto = in->l4proto, *d, *l4, *a;
	uint32_t cso = proto == IPPROTO_TCP ? 16 : 6;
	uint16_t check, oldcheck, op;
	bool v4 = in->family == AF_INET;

	if (!in->has_l4 || p->csum_partial || (proto != IPPROTO_TCP && proto != IPPROTO_UDP) ||
	    in->l4len < cso + 2 || in->l4off < in->l3off + (v4 ? IP4_HLEN : IP6_HLEN) ||
	    (uint64_t)in->l4off + cso + 2 > p->seg[0].len || (!v4 && in->family != AF_INET6))
		return 1;
	d = p->seg[0].data;
	p->written = true; /* written through d, not pkt_store: NFQUEUE's mark */
	l4 = d + in->l4off;
	oldcheck = check = be16_at(l4 + cso);
	if (v4) {
		uint32_t old4, new4;

		a = d + in->l3off + (m == NAT_MANIP_SRC ? IP4_SRC_OFF : IP4_DST_OFF);
		old4 = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		new4 = (uint32_t)nw->b[0] << 24 | (uint32_t)nw->b[1] << 16 |
		       (uint32_t)nw->b[2] << 8 | nw->b[3];
		check = pkt_csum_replace4(check, old4, new4);
		/* pt_addr_eq of the 4 bytes read (zeros after them) and the 16 of the tuple */
		if (old4 != new4 || nw->w[1] || nw->w[2] || nw->w[3]) {
			uint8_t *ipc = d + in->l3off + IP4_CSUM_OFF;

			be16_put(ipc, pkt_csum_replace4(be16_at(ipc), old4, new4));
		}
	} else {
		a = d + in->l3off + (m == NAT_MANIP_SRC ? IP6_SRC_OFF : IP6_DST_OFF);
		check = pkt_csum_replace16_bytes(check, a, nw->b);
	}
	l4 += m == NAT_MANIP_SRC ? 0 : 2;
	op = be16_at(l4);
	if (op != np) {
		check = pkt_csum_replace2(check, op, np);
		be16_put(l4, np);
	}
	if (proto == IPPROTO_TCP) {
		be16_put(d + in->l4off + cso, check);
	} else if (!(v4 && oldcheck == 0)) {
		be16_put(d + in->l4off + cso, check ? check : 0xffff);
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

int nat_rewrite_fast(struct pkt *p, const union pt_addr *nw, uint16_t np, enum nat_manip m)
{
	return rewrite_fast(p, nw, np, m);
}

/* The quoted datagram of an ICMP error: header offset, transport offset and protocol. */
static int quoted(const struct pkt *p, uint32_t *l3, uint32_t *l4, uint8_t *proto, uint32_t *end)
{
	const struct pkt_info *in = &p->info;
	uint8_t b[IP6_HLEN];

	*l3 = in->l4off + ICMP_HLEN;
	*end = in->l3off + in->l3len;
	if (in->family == AF_INET) {
		if (pkt_copy_out(p, *l3, b, IP4_HLEN) || (b[0] >> 4) != 4)
			return -EINVAL;
		*l4 = *l3 + (uint32_t)(b[0] & 15) * 4;
		*proto = b[IP4_PROTO_OFF];
	} else {
		uint8_t nh;
		uint32_t off = *l3 + IP6_HLEN;

		if (pkt_copy_out(p, *l3, b, IP6_HLEN) || (b[0] >> 4) != 6)
			return -EINVAL;
		nh = b[IP6_NEXT_OFF];
		/* hop-by-hop, routing, destination options: skip to the transport header */
		for (int i = 0; i < 8 && (nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING ||
					  nh == IPPROTO_DSTOPTS);
		     i++) {
			if (pkt_copy_out(p, off, b, 2))
				return -EINVAL;
			nh = b[0];
			off += (uint32_t)(b[1] + 1) * 8;
		}
		*l4 = off;
		*proto = nh;
	}
	return *l4 <= *end ? 0 : -EINVAL;
}

/*
 * RFC 5508 REQ-3a: an error whose quoted IPv4 header fails its checksum is dropped silently
 * (a corrupted quote names who knows which connection). Connections through a mapping only
 * (the default mode): Linux translates it all the same, and so does its compatible mode.
 */
static bool quoted_header_ok(const struct pkt *p, const struct nat_binding *b, uint32_t l3,
			     uint32_t l4)
{
	if (p->info.family != AF_INET || (!b->map && !b->inmap))
		return true;
	return pkt_csum_fold(pkt_csum_partial(p, l3, l4 - l3, 0)) == 0;
}

static int icmp_error(struct nat_table *n, struct pkt *p, const struct ct_entry *e,
		      const struct nat_binding *b, enum ct_dir dir, enum nat_manip m)
{
	const struct ct_tuple *other = &e->th[!dir].tuple;
	struct ct_tuple target;
	uint32_t l3, l4, end;
	uint8_t proto, itype = 0;
	int family = p->info.family, err;

	if (quoted(p, &l3, &l4, &proto, &end))
		return -EINVAL;
	if (!quoted_header_ok(p, b, l3, l4)) {
		n->stats.icmp_bad_quoted++;
		return -EBADMSG;
	}
	if (pkt_proto(proto)->icmp && end > l4)
		pkt_copy_out(p, l4, &itype, 1);
	err = manip(p, family, l3, l4, end - l4, proto, itype, other,
		    m == NAT_MANIP_SRC ? NAT_MANIP_DST : NAT_MANIP_SRC, false);
	if (err)
		return err;
	if (ct_tuple_invert(other, &target))
		return -EINVAL;
	err = manip(p, family, p->info.l3off, p->info.l4off, p->info.l4len, p->info.l4proto, 0,
		    &target, m, true);
	if (err)
		return err;
	if (m == NAT_MANIP_SRC)
		p->info.src = target.src;
	else
		p->info.dst = target.dst;
	pkt_l4_csum_update(p); /* ICMP (ICMPv6: with the new pseudo-header) */
	n->stats.icmp_errors++;
	return 0;
}

/* The mapping timers a packet keeps running (RFC 4787 REQ-6, RFC 5382 REQ-5): outbound packets
 * always, inbound ones with refresh "both". */
static inline void refresh(struct nat_table *n, struct nat_binding *b, const struct ct_entry *e,
			   enum ct_dir dir, enum nat_manip m, uint64_t now)
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

int nat_rewrite_general(struct pkt *p, const struct ct_tuple *t, enum nat_manip m)
{
	int err = manip(p, p->info.family, p->info.l3off, p->info.l4off,
			p->info.has_l4 ? p->info.l4len : 0, p->info.l4proto, p->info.icmp_type, t,
			m, false);

	if (err)
		return err;
	info_update(p, t, m);
	if (p->info.l4proto == IPPROTO_SCTP && p->info.has_l4)
		pkt_l4_csum_update(p); /* CRC32c: not incremental */
	return 0;
}

int nat_translate_binding(struct nat_table *n, struct pkt *p, const struct ct_entry *e,
			  struct nat_binding *b, unsigned hook, uint64_t now)
{
	enum nat_manip m;
	enum ct_dir dir;
	unsigned ci, need;
	bool error;
	const struct ct_tuple *other;
	struct ct_tuple target;
	int err;

	m = hook == HOOK_PREROUTING || hook == HOOK_OUTPUT ? NAT_MANIP_DST : NAT_MANIP_SRC;
	ci = ct_pkt_ctinfo(p);
	dir = ci >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	error = (ci == CT_RELATED || ci == CT_RELATED_REPLY) && p->info.has_l4 &&
		pkt_icmp_is_error(p->info.l4proto, p->info.icmp_type);
	need = dir == CT_DIR_ORIGINAL ? 1u << m : 1u << !m;
	if (!(b->status & need)) {
		if (!error)
			refresh(n, b, e, dir, m, now);
		return 0;
	}
	if (error)
		return icmp_error(n, p, e, b, dir, m);
	other = &e->th[!dir].tuple;
	/* TCP and UDP: the new endpoint is the other direction's, swapped (ct_ports_invert) */
	err = other->l4proto == p->info.l4proto &&
		      (other->l4proto == IPPROTO_TCP || other->l4proto == IPPROTO_UDP)
		  ? rewrite_fast(p, m == NAT_MANIP_SRC ? &other->dst : &other->src,
				 m == NAT_MANIP_SRC ? other->d.port : other->s.port, m)
		  : 1;
	if (err > 0) {
		if (ct_tuple_invert(other, &target))
			return -EINVAL;
		err = nat_rewrite_general(p, &target, m);
	}
	if (err)
		return err;
	refresh(n, b, e, dir, m, now);
	return 0;
}

int nat_established(struct nat_table *n, struct pkt *p, struct ct_entry *e, struct nat_binding *b,
		    unsigned hook, uint64_t now)
{
	enum nat_manip m =
	    hook == HOOK_PREROUTING || hook == HOOK_OUTPUT ? NAT_MANIP_DST : NAT_MANIP_SRC;
	enum ct_dir dir = ct_pkt_ctinfo(p) == CT_ESTABLISHED_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;

	if (b->status & (dir == CT_DIR_ORIGINAL ? 1u << m : 1u << !m)) {
		const struct ct_tuple *other = &e->th[!dir].tuple;
		int err = other->l4proto == p->info.l4proto &&
				  (other->l4proto == IPPROTO_TCP || other->l4proto == IPPROTO_UDP)
			      ? rewrite_fast(p, m == NAT_MANIP_SRC ? &other->dst : &other->src,
					     m == NAT_MANIP_SRC ? other->d.port : other->s.port, m)
			      : 1;

		if (err > 0) {
			struct ct_tuple target;

			if (ct_tuple_invert(other, &target))
				return -EINVAL;
			err = nat_rewrite_general(p, &target, m);
		}
		if (err)
			return err;
	}
	if (b->map || b->inmap) {
		refresh(n, b, e, dir, m, now);
		nat_hold_entry(n, e, now);
	}
	return 0;
}

int nat_translate(struct nat_table *n, struct pkt *p, unsigned hook, uint64_t now)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b = e ? ct_ext_get(e, CT_EXT_NAT) : NULL;

	return b ? nat_translate_binding(n, p, e, b, hook, now) : 0;
}
