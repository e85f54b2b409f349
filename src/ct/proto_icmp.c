// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ICMP and ICMPv6 tracking (one file: the two differ only in their type tables).
 *
 *    0      7 8     15 16            31
 *   +--------+--------+----------------+
 *   |  type  |  code  |    checksum    |
 *   +--------+--------+----------------+
 *   |   identifier    |    sequence    |   query/reply pairs (echo, timestamp, ...)
 *   +-----------------+----------------+
 *   | errors: the offending datagram's IP header + at least 8 bytes of its payload
 *
 * Queries start connections (tuple: id, type, code; the reply tuple has the reply type);
 * replies without a query are INVALID. An error is RELATED to the connection its quoted
 * datagram names, in the direction opposite to that datagram; an error naming no connection,
 * quoting another error, or not addressed to the quoted datagram's sender is INVALID.
 * ICMPv6 neighbour discovery and MLD are never tracked (UNTRACKED), as in Linux.
 */
#include <errno.h>
#include <stdio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_int.h"

struct icmp_kind {
	uint8_t inverse[256]; /* reply type + 1, 0: none */
	bool starts[256];     /* may begin a connection */
	bool error[256];
	bool untracked[256];
};

/* clang-format off */
static const struct icmp_kind icmp4_kind = {
	.inverse = { [8] = 0 + 1, [0] = 8 + 1, [13] = 14 + 1, [14] = 13 + 1, [15] = 16 + 1,
		     [16] = 15 + 1, [17] = 18 + 1, [18] = 17 + 1 },
	.starts = { [8] = true, [13] = true, [15] = true, [17] = true },
	.error = { [3] = true, [4] = true, [5] = true, [11] = true, [12] = true },
};

static const struct icmp_kind icmp6_kind = {
	.inverse = { [128] = 129 + 1, [129] = 128 + 1, [139] = 140 + 1, [140] = 139 + 1 },
	.starts = { [128] = true, [139] = true },
	.error = { [1] = true, [2] = true, [3] = true, [4] = true },
	.untracked = { [130] = true, [131] = true, [132] = true, [133] = true, [134] = true,
		       [135] = true, [136] = true, [143] = true },
};
/* clang-format on */

static const struct icmp_kind *kind_of(uint8_t l4proto)
{
	return l4proto == IPPROTO_ICMPV6 ? &icmp6_kind : &icmp4_kind;
}

static int icmp_pkt_to_tuple(const struct pkt *p, uint32_t off, uint32_t len, struct ct_tuple *t)
{
	uint8_t buf[8];
	const uint8_t *h;

	if (len < 8 || !(h = pkt_header(p, off, 8, buf)))
		return -EINVAL;
	t->d.icmp.type = h[0];
	t->d.icmp.code = h[1];
	t->s.icmp_id = (uint16_t)(h[4] << 8 | h[5]);
	return 0;
}

static int icmp_invert(struct ct_tuple *reply, const struct ct_tuple *orig)
{
	uint8_t inv = kind_of(orig->l4proto)->inverse[orig->d.icmp.type];

	if (!inv)
		return -EINVAL;
	reply->d.icmp.type = (uint8_t)(inv - 1);
	reply->d.icmp.code = orig->d.icmp.code;
	reply->s.icmp_id = orig->s.icmp_id;
	return 0;
}

/*
 * The quoted datagram of an error at `off` (datagram end at `end`): its addresses, protocol and
 * transport header offset. 0 or -EINVAL.
 */
static int inner_ip(const struct pkt *p, int family, uint32_t off, uint32_t end, union pt_addr *src,
		    union pt_addr *dst, uint8_t *proto, uint32_t *l4off)
{
	uint8_t buf[40];
	const uint8_t *h;

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (family == AF_INET) {
		unsigned ihl;

		if (off + 20 > end || !(h = pkt_header(p, off, 20, buf)) || h[0] >> 4 != 4)
			return -EINVAL;
		ihl = (h[0] & 15u) * 4;
		if (ihl < 20 || (((h[6] & 0x1f) << 8) | h[7]) != 0) /* a non-first fragment */
			return -EINVAL;
		memcpy(src->b, h + 12, 4);
		memcpy(dst->b, h + 16, 4);
		*proto = h[9];
		*l4off = off + ihl;
	} else {
		uint8_t nh;
		uint32_t o = off + 40;

		if (off + 40 > end || !(h = pkt_header(p, off, 40, buf)) || h[0] >> 4 != 6)
			return -EINVAL;
		memcpy(src->b, h + 8, 16);
		memcpy(dst->b, h + 24, 16);
		nh = h[6];
		/* skip extension headers; bounded by the 8-header parser limit */
		for (int i = 0; i < 8; i++) {
			uint8_t eh[8];
			const uint8_t *x;

			if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
			    nh != IPPROTO_DSTOPTS && nh != IPPROTO_FRAGMENT && nh != IPPROTO_AH)
				break;
			if (o + 8 > end || !(x = pkt_header(p, o, 8, eh)))
				return -EINVAL;
			if (nh == IPPROTO_FRAGMENT) {
				if (((x[2] << 8 | x[3]) & ~7) != 0)
					return -EINVAL;
				o += 8;
			} else if (nh == IPPROTO_AH) {
				o += (x[1] + 2u) * 4;
			} else {
				o += (x[1] + 1u) * 8;
			}
			nh = x[0];
		}
		*proto = nh;
		*l4off = o;
	}
	return *l4off <= end ? 0 : -EINVAL;
}

static int icmp_error_related(struct ct_table *t, struct pkt *p, uint16_t zone, uint64_t now)
{
	const struct pkt_info *in = &p->info;
	uint32_t end = in->l4off + in->l4len, l4off;
	union pt_addr isrc, idst;
	struct ct_tuple inner, want;
	struct ct_entry *e;
	enum ct_dir dir;
	uint8_t proto;

	if (inner_ip(p, in->family, in->l4off + 8, end, &isrc, &idst, &proto, &l4off) < 0)
		return -EINVAL;
	/* the quoted datagram went from isrc to idst; the error must go back to its sender */
	if (!pt_addr_eq(&in->dst, &isrc))
		return -EINVAL;
	if (ct_tuple_from_l4(p, l4off, end - l4off, in->family, proto, &isrc, &idst, zone, &inner) <
	    0)
		return -EINVAL;
	if (ct_tuple_invert(&inner, &want) < 0) /* an error about an error, or a reply type */
		return -EINVAL;
	e = ct_find_expiring(t, &want, now, &dir);
	if (!e)
		return -EINVAL;
	ct_pkt_attach(p, e, dir == CT_DIR_REPLY ? CT_RELATED_REPLY : CT_RELATED);
	return 1;
}

static int icmp_error(struct ct_table *t, struct pkt *p, bool from_outside, uint16_t zone,
		      uint64_t now)
{
	const struct pkt_info *in = &p->info;
	const struct icmp_kind *k = kind_of(in->l4proto);

	if (!in->has_l4 || in->l4len < 8)
		return -EINVAL;
	if (in->l4proto == IPPROTO_ICMP && in->family != AF_INET)
		return -EINVAL; /* ICMPv4 over IPv6: nothing to track */
	if (from_outside && t->cfg.checksum && !pkt_l4_csum_check(p))
		return -EINVAL;
	if (k->untracked[in->icmp_type]) {
		ct_pkt_set_untracked(p);
		return 1;
	}
	if (k->error[in->icmp_type])
		return icmp_error_related(t, p, zone, now);
	return 0;
}

static bool icmp_new(struct ct_table *t, struct ct_entry *e, const struct pkt *p, uint64_t now)
{
	return kind_of(e->th[0].tuple.l4proto)->starts[e->th[0].tuple.d.icmp.type];
}

static enum ct_verdict icmp_packet(struct ct_table *t, struct ct_entry *e, const struct pkt *p,
				   enum ct_dir dir, uint64_t now)
{
	ct_refresh(e, now,
		   e->th[0].tuple.l4proto == IPPROTO_ICMPV6 ? ct_timeouts_of(t, e)->icmpv6
							    : ct_timeouts_of(t, e)->icmp);
	return CT_ACCEPT;
}

static int icmp_print_tuple(char *buf, size_t len, const struct ct_tuple *t)
{
	return snprintf(buf, len, " type=%u code=%u id=%u", t->d.icmp.type, t->d.icmp.code,
			t->s.icmp_id);
}

const struct ct_proto_ops ct_proto_icmp = {
    .l4proto = IPPROTO_ICMP,
    .name = "icmp",
    .pkt_to_tuple = icmp_pkt_to_tuple,
    .invert = icmp_invert,
    .error = icmp_error,
    .new_conn = icmp_new,
    .packet = icmp_packet,
    .print_tuple = icmp_print_tuple,
};

const struct ct_proto_ops ct_proto_icmpv6 = {
    .l4proto = IPPROTO_ICMPV6,
    .name = "icmpv6",
    .pkt_to_tuple = icmp_pkt_to_tuple,
    .invert = icmp_invert,
    .error = icmp_error,
    .new_conn = icmp_new,
    .packet = icmp_packet,
    .print_tuple = icmp_print_tuple,
};
