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

#include "nat/established.h"
#include "nat/nat_int.h"
#include "pkt/proto.h"
#include "rules/ext.h"

#define ICMP_HLEN 8 /* type, code, checksum, 4 bytes of "rest": then the quoted datagram */

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
	int err;

	m = hook == HOOK_PREROUTING || hook == HOOK_OUTPUT ? NAT_MANIP_DST : NAT_MANIP_SRC;
	ci = ct_pkt_ctinfo(p);
	dir = ci >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	error = (ci == CT_RELATED || ci == CT_RELATED_REPLY) && p->info.has_l4 &&
		pkt_icmp_is_error(p->info.l4proto, p->info.icmp_type);
	need = dir == CT_DIR_ORIGINAL ? 1u << m : 1u << !m;
	if (!(b->status & need)) {
		if (!error)
			nat_refresh_timers(n, b, e, dir, m, now);
		return 0;
	}
	if (error)
		return icmp_error(n, p, e, b, dir, m);
	err = nat_rewrite_endpoint(p, e, dir, m);
	if (err)
		return err;
	nat_refresh_timers(n, b, e, dir, m, now);
	return 0;
}

int nat_translate(struct nat_table *n, struct pkt *p, unsigned hook, uint64_t now)
{
	struct ct_entry *e = ct_pkt_entry(p);
	struct nat_binding *b = e ? ct_ext_get(e, CT_EXT_NAT) : NULL;

	return b ? nat_translate_binding(n, p, e, b, hook, now) : 0;
}
