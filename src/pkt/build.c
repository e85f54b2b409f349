// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packet builder: a struct pkt_spec becomes bytes, laid out as
 *
 *   [Ethernet 14][VLAN tags 4 each][IPv4 20+options | IPv6 40 + extension headers]
 *   [transport header][payload]
 *
 * then parsed back (so p->info is filled) and checksummed with the same code that updates
 * checksums after NAT, so a built packet is exactly what the parser and checksummer expect.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/build.h"

void pkt_spec_init(struct pkt_spec *s)
{
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};

	memset(s, 0, sizeof(*s));
	s->ttl = PKT_SPEC_DEFAULT_TTL;
	s->window = PKT_SPEC_DEFAULT_WINDOW;
	s->gre_proto = 0x0800;
	memcpy(s->eth_src, smac, 6);
	memcpy(s->eth_dst, dmac, 6);
}

/* A byte cursor over the output buffer; the buffer is sized beforehand, so no bound checks. */
struct out {
	uint8_t *d;
	uint32_t pos;
};

static void put8(struct out *o, uint8_t v)
{
	o->d[o->pos++] = v;
}

static void put16(struct out *o, uint16_t v)
{
	put8(o, (uint8_t)(v >> 8));
	put8(o, (uint8_t)v);
}

static void put32(struct out *o, uint32_t v)
{
	put16(o, (uint16_t)(v >> 16));
	put16(o, (uint16_t)v);
}

static void put_bytes(struct out *o, const void *b, uint32_t n)
{
	memcpy(o->d + o->pos, b, n);
	o->pos += n;
}

static void put_zero(struct out *o, uint32_t n)
{
	memset(o->d + o->pos, 0, n);
	o->pos += n;
}

/* ---- sizes ----------------------------------------------------------------------------- */

/* Minimal SCTP chunk sizes (RFC 9260 3.3), indexed by chunk type; 0: unknown type. */
static const uint8_t sctp_chunk_len[256] = {
    [0] = 16, [1] = 20, [2] = 20, [3] = 16, [4] = 4,  [5] = 4,	[6] = 4,
    [7] = 8,  [8] = 4,	[9] = 4,  [10] = 4, [11] = 4, [14] = 4,
};

/* DCCP header length with X=1 for each packet type (RFC 4340 5.1-5.6). */
static const uint8_t dccp_hdr_len[10] = {
    [0] = 20, [1] = 28, [2] = 16, [3] = 24, [4] = 24,
    [5] = 24, [6] = 24, [7] = 28, [8] = 24, [9] = 24,
};

static uint32_t tcp_opts_len(const struct pkt_spec *s)
{
	uint32_t n = s->tcpopt_len;

	if (s->mss)
		n += 4;
	if (s->sack_perm)
		n += 2;
	if (s->has_ts)
		n += 10;
	if (s->has_wscale)
		n += 3;
	return (n + 3) & ~3u;
}

static uint32_t sctp_chunks_len(const struct pkt_spec *s)
{
	uint32_t n = 0;
	unsigned i;

	for (i = 0; i < s->n_chunks; i++)
		n += sctp_chunk_len[s->sctp_chunks[i]] ? sctp_chunk_len[s->sctp_chunks[i]] : 4;
	return n;
}

/* Bytes of transport header the spec asks for (0 for non-first fragments, unknown protos). */
static uint32_t l4_hdr_len(const struct pkt_spec *s)
{
	if (s->frag_off)
		return 0;
	switch (s->proto) {
	case IPPROTO_TCP:
		return 20 + tcp_opts_len(s);
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
	case IPPROTO_ESP:
		return 8;
	case IPPROTO_SCTP:
		return 12 + sctp_chunks_len(s);
	case IPPROTO_DCCP:
		return s->dccp_type < 10 ? dccp_hdr_len[s->dccp_type] : 16;
	case IPPROTO_GRE:
		return s->gre_has_key ? 8 : 4;
	case IPPROTO_AH:
		return 24;
	}
	return 0;
}

static uint32_t ext_len(uint8_t type)
{
	return type == IPPROTO_AH ? 24 : 8;
}

/* ---- layer 3 --------------------------------------------------------------------------- */

static bool v6_has_frag_list(const struct pkt_spec *s)
{
	unsigned i;

	for (i = 0; i < s->n_ext; i++)
		if (s->ext[i] == IPPROTO_FRAGMENT)
			return true;
	return false;
}

/* The extension header list actually emitted: the fragment header is appended when needed. */
static unsigned v6_ext_list(const struct pkt_spec *s, uint8_t *list)
{
	unsigned n = s->n_ext;

	memcpy(list, s->ext, n);
	if ((s->frag || s->mf || s->frag_off) && !v6_has_frag_list(s))
		list[n++] = IPPROTO_FRAGMENT;
	return n;
}

/*
 * Minimal extension headers: hop-by-hop and destination options hold one PadN option,
 * routing is type 0 with no segments left, AH carries a 96-bit zero ICV.
 */
static void put_ext(struct out *o, const struct pkt_spec *s, uint8_t type, uint8_t next)
{
	put8(o, next);
	switch (type) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_DSTOPTS:
		put8(o, 0);
		put8(o, 1); /* PadN */
		put8(o, 4);
		put32(o, 0);
		break;
	case IPPROTO_ROUTING:
		put8(o, 0);
		put8(o, 0); /* type */
		put8(o, 0); /* segments left */
		put32(o, 0);
		break;
	case IPPROTO_FRAGMENT:
		put8(o, 0);
		put16(o, (uint16_t)(s->frag_off << 3 | (s->mf ? 1 : 0)));
		put32(o, s->ip_id);
		break;
	case IPPROTO_AH:
		put8(o, 24 / 4 - 2);
		put16(o, 0);
		put32(o, s->spi);
		put32(o, s->seq);
		put_zero(o, 12);
		break;
	}
}

/* ---- transport ------------------------------------------------------------------------- */

static void put_tcp(struct out *o, const struct pkt_spec *s)
{
	uint32_t opts = tcp_opts_len(s), start;

	put16(o, s->sport);
	put16(o, s->dport);
	put32(o, s->seq);
	put32(o, s->ack);
	put8(o, (uint8_t)((20 + opts) / 4) << 4);
	put8(o, s->tcp_flags);
	put16(o, s->window);
	put16(o, 0);
	put16(o, s->urg);
	start = o->pos;
	if (s->mss) {
		put8(o, 2);
		put8(o, 4);
		put16(o, s->mss);
	}
	if (s->sack_perm) {
		put8(o, 4);
		put8(o, 2);
	}
	if (s->has_ts) {
		put8(o, 8);
		put8(o, 10);
		put32(o, s->ts_val);
		put32(o, s->ts_ecr);
	}
	if (s->has_wscale) {
		put8(o, 3);
		put8(o, 3);
		put8(o, s->wscale);
	}
	put_bytes(o, s->tcpopt, s->tcpopt_len);
	put_zero(o, opts - (o->pos - start)); /* EOL padding */
}

static void put_l4(struct out *o, const struct pkt_spec *s, uint32_t l4len)
{
	unsigned i;

	if (s->frag_off)
		return;
	switch (s->proto) {
	case IPPROTO_TCP:
		put_tcp(o, s);
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		put16(o, s->sport);
		put16(o, s->dport);
		put16(o, s->proto == IPPROTO_UDP ? (uint16_t)l4len : s->udplite_cov);
		/* Non-zero placeholder: pkt_l4_csum_update keeps a UDPv4 "no checksum" zero. */
		put16(o, s->udp_no_csum ? 0 : 0xffff);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		put8(o, s->icmp_type);
		put8(o, s->icmp_code);
		put16(o, 0);
		put32(o, s->icmp_rest);
		break;
	case IPPROTO_ESP:
		put32(o, s->spi);
		put32(o, s->seq);
		break;
	case IPPROTO_AH:
		put8(o, IPPROTO_NONE);
		put8(o, 24 / 4 - 2);
		put16(o, 0);
		put32(o, s->spi);
		put32(o, s->seq);
		put_zero(o, 12);
		break;
	case IPPROTO_GRE:
		put16(o, s->gre_has_key ? 0x2000 : 0);
		put16(o, s->gre_proto);
		if (s->gre_has_key)
			put32(o, s->gre_key);
		break;
	case IPPROTO_SCTP:
		put16(o, s->sport);
		put16(o, s->dport);
		put32(o, s->sctp_vtag);
		put32(o, 0);
		for (i = 0; i < s->n_chunks; i++) {
			uint8_t t = s->sctp_chunks[i];
			uint32_t n = sctp_chunk_len[t] ? sctp_chunk_len[t] : 4;

			put8(o, t);
			put8(o, 0);
			put16(o, (uint16_t)n);
			put_zero(o, n - 4);
		}
		break;
	case IPPROTO_DCCP: {
		uint32_t hl = l4_hdr_len(s), start = o->pos;

		put16(o, s->sport);
		put16(o, s->dport);
		put8(o, (uint8_t)(hl / 4));
		put8(o, 0); /* CCVal 0, CsCov 0: the whole packet */
		put16(o, 0);
		put8(o, (uint8_t)((s->dccp_type & 15) << 1 | 1)); /* X = 1: 48-bit numbers */
		put8(o, 0);
		put16(o, 0);
		put32(o, s->seq);
		if (hl >= 24 && s->dccp_type != 0) {
			put16(o, 0);
			put16(o, 0);
			put32(o, s->ack);
		}
		put_zero(o, hl - (o->pos - start)); /* service code / reset code */
		break;
	}
	}
}

static void put_payload(struct out *o, const struct pkt_spec *s)
{
	if (s->payload) {
		put_bytes(o, s->payload, s->payload_len);
	} else {
		uint32_t n =
		    s->payload_len < PKT_SPEC_PAYLOAD_MAX ? s->payload_len : PKT_SPEC_PAYLOAD_MAX;

		put_bytes(o, s->payload_buf, n);
		put_zero(o, s->payload_len - n);
	}
}

/* Flip the transport checksum so that it is wrong but never the "no checksum" 0 of UDP. */
static void damage_l4_csum(struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint32_t field;
	uint8_t b[2];

	switch (in->l4proto) {
	case IPPROTO_TCP:
		field = 16;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_DCCP:
		field = 6;
		break;
	case IPPROTO_SCTP:
		field = 8;
		break;
	default:
		field = 2;
	}
	if (pkt_copy_out(p, in->l4off + field, b, 2))
		return;
	b[0] ^= 0x5a;
	b[1] ^= 0xa5;
	if (!b[0] && !b[1])
		b[1] = 1;
	pkt_store(p, in->l4off + field, b, 2);
}

static int check_spec(const struct pkt_spec *s)
{
	if (s->family != AF_INET && s->family != AF_INET6)
		return -EINVAL;
	if (s->n_ext > PKT_SPEC_MAX_EXT || s->n_chunks > PKT_SPEC_MAX_CHUNKS || s->n_vlan > 2 ||
	    s->ipopt_len > 40 || s->tcpopt_len > 40 || tcp_opts_len(s) > 40)
		return -EINVAL;
	if (s->family == AF_INET6 && (s->ipopt_len || s->proto == IPPROTO_AH))
		return -EINVAL;
	if (s->family == AF_INET && s->n_ext)
		return -EINVAL;
	if ((s->proto == IPPROTO_ICMP && s->family != AF_INET) ||
	    (s->proto == IPPROTO_ICMPV6 && s->family != AF_INET6))
		return -EINVAL;
	if (s->frag_off > 0x1fff || s->flowlabel > 0xfffff)
		return -EINVAL;
	return 0;
}

struct pkt *pkt_build(const struct pkt_spec *s)
{
	uint8_t ext[PKT_SPEC_MAX_EXT + 1];
	unsigned n_ext = 0, i;
	uint32_t l2, l3, l4, total, optlen = 0, l3off;
	struct out o;
	struct pkt *p;
	bool first_frag;
	int ret = check_spec(s);

	if (ret) {
		errno = -ret;
		return NULL;
	}
	l2 = s->eth ? 14 + 4u * s->n_vlan : 0;
	if (s->family == AF_INET) {
		optlen = (s->ipopt_len + 3u) & ~3u;
		l3 = 20 + optlen;
	} else {
		n_ext = v6_ext_list(s, ext);
		l3 = 40;
		for (i = 0; i < n_ext; i++)
			l3 += ext_len(ext[i]);
	}
	l4 = l4_hdr_len(s) + s->payload_len;
	total = l2 + l3 + l4;
	if ((s->family == AF_INET && l3 + l4 > 65535) ||
	    (s->family == AF_INET6 && l3 + l4 - 40 > 65535) || total > PKT_MAX_LEN) {
		errno = EMSGSIZE;
		return NULL;
	}
	p = pkt_alloc(total);
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	o.d = pkt_linear_data(p);
	o.pos = 0;

	if (s->eth) {
		put_bytes(&o, s->eth_dst, 6);
		put_bytes(&o, s->eth_src, 6);
		for (i = 0; i < s->n_vlan; i++) {
			put16(&o, s->n_vlan == 2 && i == 0 ? 0x88a8 : 0x8100);
			put16(&o, s->vlan[i] & 0x0fff);
		}
		put16(&o, s->family == AF_INET ? 0x0800 : 0x86dd);
	}
	l3off = o.pos;
	if (s->family == AF_INET) {
		put8(&o, (uint8_t)(0x40 | (l3 / 4)));
		put8(&o, s->tos);
		put16(&o, (uint16_t)(l3 + l4));
		put16(&o, (uint16_t)s->ip_id);
		put16(&o, (uint16_t)((s->df ? 0x4000 : 0) | (s->mf ? 0x2000 : 0) | s->frag_off));
		put8(&o, s->ttl);
		put8(&o, s->proto);
		put16(&o, 0);
		put_bytes(&o, s->src.b, 4);
		put_bytes(&o, s->dst.b, 4);
		put_bytes(&o, s->ipopt, s->ipopt_len);
		put_zero(&o, optlen - s->ipopt_len);
	} else {
		put32(&o, 6u << 28 | (uint32_t)s->tos << 20 | s->flowlabel);
		put16(&o, (uint16_t)(l3 - 40 + l4));
		put8(&o, n_ext ? ext[0] : s->proto);
		put8(&o, s->ttl);
		put_bytes(&o, s->src.b, 16);
		put_bytes(&o, s->dst.b, 16);
		for (i = 0; i < n_ext; i++)
			put_ext(&o, s, ext[i], i + 1 < n_ext ? ext[i + 1] : s->proto);
	}
	put_l4(&o, s, l4);
	put_payload(&o, s);

	ret = pkt_parse(p, s->eth ? PKT_LINK_ETHERNET : PKT_LINK_RAW, false);
	if (ret && p->info.bad != PKT_BAD_L4_TRUNC) {
		pkt_free(p);
		errno = EINVAL;
		return NULL;
	}
	/* A first fragment is checksummed as if it were the whole datagram. */
	first_frag = p->info.is_fragment && !p->info.frag_off;
	if (first_frag)
		p->info.is_fragment = false;
	pkt_l4_csum_update(p);
	if (s->udp_no_csum && s->proto == IPPROTO_UDP && p->info.has_l4) {
		static const uint8_t zero[2];

		pkt_store(p, p->info.l4off + 6, zero, 2);
	}
	if (first_frag)
		p->info.is_fragment = true;
	if (s->bad_l4_csum && p->info.has_l4)
		damage_l4_csum(p);
	pkt_ip_csum_update(p);
	if (s->bad_ip_csum && s->family == AF_INET) {
		uint8_t b = o.d[l3off + 11] ^ 0xff;

		pkt_store(p, l3off + 11, &b, 1);
	}
	return p;
}
