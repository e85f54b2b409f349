// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Header parsers: Ethernet II (+ 802.1Q / 802.1ad tags), IPv4 (+ options), IPv6 (+ extension
 * header chain) and the transport headers matches look at. Every read goes through
 * pkt_header(), bounded by the end of the IP datagram, so a malformed or truncated packet only
 * ever sets info.bad.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/parse_common.h"
#include "pkt/pkt.h"

#define ETH_P_IP       0x0800
#define ETH_P_IPV6     0x86dd
#define ETH_P_8021Q    0x8100
#define ETH_P_8021AD   0x88a8
#define ETH_P_QINQ_OLD 0x9100 /* pre-standard outer tag, still seen */
#define MAX_VLAN_TAGS  8
#define MAX_EXTHDRS    64 /* bound on the chain walk; each header is >= 8 bytes anyway */

static const char *const bad_names[PKT_BAD_MAX] = {
    [PKT_OK] = "ok",
    [PKT_BAD_L2_TRUNC] = "l2-trunc",
    [PKT_BAD_L2_PROTO] = "l2-proto",
    [PKT_BAD_IP_TRUNC] = "ip-trunc",
    [PKT_BAD_IP_VERSION] = "ip-version",
    [PKT_BAD_IP_HLEN] = "ip-hlen",
    [PKT_BAD_IP_LEN] = "ip-len",
    [PKT_BAD_IP_CSUM] = "ip-csum",
    [PKT_BAD_IP_OPTIONS] = "ip-options",
    [PKT_BAD_EXTHDR] = "exthdr",
    [PKT_BAD_L4_TRUNC] = "l4-trunc",
    [PKT_BAD_L4_HLEN] = "l4-hlen",
};

const char *pkt_bad_name(enum pkt_bad why)
{
	if ((unsigned)why >= PKT_BAD_MAX || !bad_names[why])
		return "unknown";
	return bad_names[why];
}

static int fail(struct pkt_info *in, enum pkt_bad why)
{
	in->bad = why;
	return why == PKT_BAD_L2_PROTO ? -EPROTONOSUPPORT : -EBADMSG;
}

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* `len` bytes at `off`, or NULL when they are not all inside [0, end) of the packet. */
static const uint8_t *hdr_in(const struct pkt *p, uint32_t off, uint32_t len, uint32_t end,
			     void *buf)
{
	if ((uint64_t)off + len > end)
		return NULL;
	return pkt_header(p, off, len, buf);
}

/* ---- transport ------------------------------------------------------------------------- */

/*
 * Each transport parser gets the first `min` bytes of its header (already known to be inside
 * the datagram) and sets the header length; the table replaces a switch over protocol numbers.
 */
struct l4_parser {
	uint8_t min;
	bool ports;
	int (*parse)(struct pkt_info *in, const uint8_t *h, uint32_t end);
};

/*
 *  0                   1                   2                   3
 *  | source port                   | destination port              |
 *  | sequence number                                               |
 *  | acknowledgment number                                         |
 *  | doff  | rsvd  |C|E|U|A|P|R|S|F| window                        |
 *  | checksum                      | urgent pointer                |
 *  | options (doff*4 - 20 bytes) ...
 */
static int parse_tcp(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	uint32_t doff = (uint32_t)(h[12] >> 4) * 4;

	if (doff < 20 || (uint64_t)in->l4off + doff > end)
		return fail(in, PKT_BAD_L4_HLEN);
	in->tcp_flags = h[13];
	in->tcp_doff = (uint8_t)doff;
	in->payload_off = in->l4off + doff;
	return 0;
}

static int parse_fixed8(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	(void)h;
	(void)end;
	in->payload_off = in->l4off + 8;
	return 0;
}

static int parse_icmp(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	(void)end;
	in->icmp_type = h[0];
	in->icmp_code = h[1];
	in->icmp_id = get16(h + 4);
	in->payload_off = in->l4off + 8;
	return 0;
}

static int parse_sctp(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	(void)h;
	(void)end;
	in->payload_off = in->l4off + 12; /* the first chunk */
	return 0;
}

/*
 * DCCP generic header: ports, data offset (4-byte units), CCVal|CsCov, checksum, then
 * res|type|X and a 24-bit sequence number (X=0) or reserved byte and 48 bits (X=1).
 */
static int parse_dccp(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	uint32_t doff = (uint32_t)h[4] * 4;
	uint32_t need = (h[8] & 1) ? 16 : 12;

	if (doff < need || (uint64_t)in->l4off + doff > end)
		return fail(in, PKT_BAD_L4_HLEN);
	in->payload_off = in->l4off + doff;
	return 0;
}

/*
 * GRE (RFC 2784/2890, PPTP's version 1 of RFC 2637):
 *   |C|R|K|S|s|Recur|A| flags | ver | protocol type |
 *   [checksum | reserved]  (C or R)   [key]  (K)   [sequence]  (S)   [ack]  (A, version 1)
 */
static int parse_gre(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	uint16_t flags = get16(h);
	uint32_t hlen = 4;

	if (flags & 0xc000)
		hlen += 4;
	if (flags & 0x2000)
		hlen += 4;
	if (flags & 0x1000)
		hlen += 4;
	if ((flags & 7) == 1 && (flags & 0x0080))
		hlen += 4;
	if ((uint64_t)in->l4off + hlen > end)
		return fail(in, PKT_BAD_L4_TRUNC);
	in->payload_off = in->l4off + hlen;
	return 0;
}

/* AH over IPv4 (RFC 4302): next header, payload length in 4-byte units minus 2, SPI, seq, ICV. */
static int parse_ah(struct pkt_info *in, const uint8_t *h, uint32_t end)
{
	uint32_t hlen = ((uint32_t)h[1] + 2) * 4;

	if (hlen < 12 || (uint64_t)in->l4off + hlen > end)
		return fail(in, PKT_BAD_L4_HLEN);
	in->payload_off = in->l4off + hlen;
	return 0;
}

static const struct l4_parser l4_parsers[256] = {
    [IPPROTO_TCP] = {.min = 20, .ports = true, .parse = parse_tcp},
    [IPPROTO_UDP] = {.min = 8, .ports = true, .parse = parse_fixed8},
    [IPPROTO_UDPLITE] = {.min = 8, .ports = true, .parse = parse_fixed8},
    [IPPROTO_ICMP] = {.min = 8, .parse = parse_icmp},
    [IPPROTO_ICMPV6] = {.min = 8, .parse = parse_icmp},
    [IPPROTO_SCTP] = {.min = 12, .ports = true, .parse = parse_sctp},
    [IPPROTO_DCCP] = {.min = 12, .ports = true, .parse = parse_dccp},
    [IPPROTO_GRE] = {.min = 4, .parse = parse_gre},
    [IPPROTO_ESP] = {.min = 8, .parse = parse_fixed8},
};

static int parse_l4(const struct pkt *p, struct pkt_info *in, uint32_t end)
{
	const struct l4_parser *lp = &l4_parsers[in->l4proto];
	uint8_t buf[20];
	const uint8_t *h;
	int ret;

	/* AH is a transport header over IPv4 only; over IPv6 the chain walk skips it. */
	if (in->family == AF_INET && in->l4proto == IPPROTO_AH) {
		static const struct l4_parser ah4 = {.min = 12, .parse = parse_ah};

		lp = &ah4;
	}
	in->l4len = end - in->l4off;
	in->payload_off = in->l4off;
	if (!lp->parse) {
		in->has_l4 = true; /* unknown protocol: no header we know of */
		return 0;
	}
	h = hdr_in(p, in->l4off, lp->min, end, buf);
	if (!h)
		return fail(in, PKT_BAD_L4_TRUNC);
	ret = lp->parse(in, h, end);
	if (ret)
		return ret;
	in->has_l4 = true;
	if (lp->ports) {
		in->has_ports = true;
		in->sport = get16(h);
		in->dport = get16(h + 2);
	}
	return 0;
}

/* ---- IPv4 ------------------------------------------------------------------------------ */

/*
 * IPv4 options: a list of EOL (0), NOP (1) and type-length-value entries, length counting the
 * type and length bytes. The pointer of the route-recording and timestamp options is 1-based
 * from the start of the option and must not point into the option's own header.
 */
static bool ip_options_ok(const uint8_t *o, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint8_t type = o[i], len;

		if (type == 0)
			break;
		if (type == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n)
			return false;
		len = o[i + 1];
		if (len < 2 || i + len > n)
			return false;
		switch (type) {
		case 7:	  /* record route */
		case 131: /* loose source route */
		case 137: /* strict source route */
			if (len < 3 || o[i + 2] < 4)
				return false;
			break;
		case 68: /* timestamp */
			if (len < 4 || o[i + 2] < 5)
				return false;
			break;
		case 148: /* router alert */
			if (len != 4)
				return false;
			break;
		}
		i += len;
	}
	return true;
}

/*
 *  |ver=4| IHL |    TOS    |         total length          |
 *  |      identification   |flags|   fragment offset       |
 *  |   TTL     | protocol  |       header checksum         |
 *  |                  source address                       |
 *  |                destination address                    |
 *  |                options (IHL*4 - 20 bytes)             |
 */
static int parse_ipv4(struct pkt *p, struct pkt_info *in, uint32_t off, bool verify_csum)
{
	uint8_t buf[60];
	const uint8_t *h;
	uint32_t ihl, tot;
	uint16_t frag;

	h = pkt_header(p, off, 20, buf);
	if (!h)
		return fail(in, PKT_BAD_IP_TRUNC);
	if (h[0] >> 4 != 4)
		return fail(in, PKT_BAD_IP_VERSION);
	in->family = AF_INET;
	in->l3off = off;
	in->tos = h[1];
	in->ttl = h[8];
	in->l4proto = h[9];
	memcpy(in->src.b, h + 12, 4);
	memcpy(in->dst.b, h + 16, 4);
	frag = get16(h + 6);
	in->frag_id = get16(h + 4);
	in->dont_frag = frag & 0x4000;
	in->more_frags = frag & 0x2000;
	in->frag_off = frag & 0x1fff;
	in->is_fragment = in->more_frags || in->frag_off;

	ihl = (uint32_t)(h[0] & 15) * 4;
	tot = get16(h + 2);
	if (ihl < 20 || (uint64_t)off + ihl > p->len)
		return fail(in, PKT_BAD_IP_HLEN);
	in->ihl = (uint8_t)ihl;
	if (tot < ihl || (uint64_t)off + tot > p->len)
		return fail(in, PKT_BAD_IP_LEN);
	in->l3len = tot;
	h = pkt_header(p, off, ihl, buf);
	if (!h)
		return fail(in, PKT_BAD_IP_TRUNC);
	if (verify_csum && pkt_csum_fold(pkt_csum_bytes(h, ihl, 0)) != 0)
		return fail(in, PKT_BAD_IP_CSUM);
	if (!ip_options_ok(h + 20, ihl - 20))
		return fail(in, PKT_BAD_IP_OPTIONS);

	in->l4off = off + ihl;
	in->l4len = tot - ihl;
	in->payload_off = in->l4off;
	if (in->frag_off)
		return 0; /* not the first fragment: no transport header here */
	return parse_l4(p, in, off + tot);
}

/* ---- IPv6 ------------------------------------------------------------------------------ */

static void exthdr_note(struct pkt_info *in, uint8_t type, uint16_t bit, uint32_t off)
{
	in->ip6_exthdrs |= bit;
	if (in->n_exthdr < sizeof(in->exthdr_type)) {
		in->exthdr_type[in->n_exthdr] = type;
		in->exthdr_off[in->n_exthdr] = off;
		in->n_exthdr++;
	}
}

/*
 * The extension header chain (RFC 8200 4, RFC 4302 for AH):
 *   hop-by-hop (0, first only), routing (43), destination options (60):
 *       | next | hdr ext len (8-byte units, not counting the first 8) | ...
 *   fragment (44): | next | res | offset(13) res(2) M | identification(32) |
 *   AH (51):       | next | payload len (4-byte units minus 2) | res | SPI | seq | ICV |
 *   ESP (50) ends the walk (the rest is encrypted); 59 says nothing follows.
 */
static int parse_ip6_chain(struct pkt *p, struct pkt_info *in, uint8_t nh, uint32_t cur,
			   uint32_t end)
{
	unsigned n;

	for (n = 0; n < MAX_EXTHDRS; n++) {
		uint8_t buf[8];
		const uint8_t *h;
		uint32_t size;
		uint16_t bit;

		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (nh == IPPROTO_HOPOPTS && n != 0)
				return fail(in, PKT_BAD_EXTHDR);
			h = hdr_in(p, cur, 2, end, buf);
			if (!h)
				return fail(in, PKT_BAD_EXTHDR);
			size = ((uint32_t)h[1] + 1) * 8;
			bit = nh == IPPROTO_HOPOPTS   ? PKT_EH_HOPOPTS
			      : nh == IPPROTO_ROUTING ? PKT_EH_ROUTING
						      : PKT_EH_DSTOPTS;
			break;
		case IPPROTO_AH:
			h = hdr_in(p, cur, 2, end, buf);
			if (!h)
				return fail(in, PKT_BAD_EXTHDR);
			size = ((uint32_t)h[1] + 2) * 4;
			if (size < 12)
				return fail(in, PKT_BAD_EXTHDR);
			bit = PKT_EH_AUTH;
			break;
		case IPPROTO_FRAGMENT:
			h = hdr_in(p, cur, 8, end, buf);
			if (!h)
				return fail(in, PKT_BAD_EXTHDR);
			size = 8;
			bit = PKT_EH_FRAG;
			break;
		case IPPROTO_NONE:
			exthdr_note(in, nh, PKT_EH_NONE, cur);
			in->l4proto = nh;
			in->l4off = cur;
			in->l4len = end - cur;
			in->payload_off = cur;
			return 0;
		case IPPROTO_ESP:
			exthdr_note(in, nh, PKT_EH_ESP, cur);
			in->l4proto = nh;
			in->l4off = cur;
			return parse_l4(p, in, end);
		default:
			in->ip6_exthdrs |= PKT_EH_PROTO;
			in->l4proto = nh;
			in->l4off = cur;
			return parse_l4(p, in, end);
		}
		if ((uint64_t)cur + size > end)
			return fail(in, PKT_BAD_EXTHDR);
		exthdr_note(in, nh, bit, cur);
		if (nh == IPPROTO_FRAGMENT) {
			uint16_t fo = get16(h + 2);

			in->frag_hdr_off = cur;
			in->frag_off = fo >> 3;
			in->more_frags = fo & 1;
			in->frag_id = get32(h + 4);
			in->is_fragment = in->more_frags || in->frag_off;
			if (in->frag_off) {
				/* The rest is fragment data, not headers. */
				in->l4proto = h[0];
				in->l4off = cur + 8;
				in->l4len = end - in->l4off;
				in->payload_off = in->l4off;
				return 0;
			}
		}
		nh = h[0];
		cur += size;
	}
	return fail(in, PKT_BAD_EXTHDR);
}

/*
 *  |ver=6| traffic class |           flow label                  |
 *  |        payload length         | next header  | hop limit    |
 *  |                 source address (16 bytes)                   |
 *  |              destination address (16 bytes)                 |
 */
static int parse_ipv6(struct pkt *p, struct pkt_info *in, uint32_t off)
{
	uint8_t buf[40];
	const uint8_t *h;
	uint32_t plen;

	h = pkt_header(p, off, 40, buf);
	if (!h)
		return fail(in, PKT_BAD_IP_TRUNC);
	if (h[0] >> 4 != 6)
		return fail(in, PKT_BAD_IP_VERSION);
	in->family = AF_INET6;
	in->l3off = off;
	in->tos = (uint8_t)((h[0] & 15) << 4 | h[1] >> 4);
	in->ttl = h[7];
	memcpy(in->src.b, h + 8, 16);
	memcpy(in->dst.b, h + 24, 16);
	plen = get16(h + 4);
	if ((uint64_t)off + 40 + plen > p->len)
		return fail(in, PKT_BAD_IP_LEN);
	in->l3len = 40 + plen;
	return parse_ip6_chain(p, in, h[6], off + 40, off + 40 + plen);
}

/* ---- link layer ------------------------------------------------------------------------ */

/*
 *  | dst MAC (6) | src MAC (6) | type (2) |  [ 0x8100/0x88a8 | PCP DEI VID(12) ]... | type |
 */
static int parse_eth(struct pkt *p, struct pkt_info *in, uint32_t *l3off)
{
	uint8_t buf[14];
	const uint8_t *h;
	uint32_t off = 14;
	uint16_t type;
	unsigned tags;

	in->l2off = 0;
	h = pkt_header(p, 0, 14, buf);
	if (!h)
		return fail(in, PKT_BAD_L2_TRUNC);
	type = get16(h + 12);
	for (tags = 0; type == ETH_P_8021Q || type == ETH_P_8021AD || type == ETH_P_QINQ_OLD;
	     tags++) {
		if (tags == MAX_VLAN_TAGS)
			return fail(in, PKT_BAD_L2_PROTO);
		h = pkt_header(p, off, 4, buf);
		if (!h)
			return fail(in, PKT_BAD_L2_TRUNC);
		if (tags == 0)
			in->vlan = get16(h) & 0x0fff;
		type = get16(h + 2);
		off += 4;
	}
	in->l2proto = type;
	if (type != ETH_P_IP && type != ETH_P_IPV6)
		return fail(in, PKT_BAD_L2_PROTO);
	*l3off = off;
	return 0;
}

/* Every frame the common path does not take. */
__attribute__((noinline)) int pkt_parse_general(struct pkt *p, enum pkt_link link, bool verify_csum)
{
	struct pkt_info *in = &p->info;
	uint32_t off = 0;
	uint8_t buf[1];
	const uint8_t *v;
	int ret;

	memset(in, 0, sizeof(*in));
	in->vlan = 0xffff;
	if (link == PKT_LINK_ETHERNET) {
		ret = parse_eth(p, in, &off);
		if (ret)
			return ret;
	} else {
		in->l2off = UINT32_MAX;
		v = pkt_header(p, 0, 1, buf);
		if (!v)
			return fail(in, PKT_BAD_IP_TRUNC);
		if (v[0] >> 4 != 4 && v[0] >> 4 != 6)
			return fail(in, PKT_BAD_IP_VERSION);
		in->l2proto = 0;
		return v[0] >> 4 == 4 ? parse_ipv4(p, in, 0, verify_csum) : parse_ipv6(p, in, 0);
	}
	if (in->l2proto == ETH_P_IP)
		return parse_ipv4(p, in, off, verify_csum);
	return parse_ipv6(p, in, off);
}

int pkt_parse(struct pkt *p, enum pkt_link link, bool verify_csum)
{
	return pkt_parse_inline(p, link, verify_csum);
}
