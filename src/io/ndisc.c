/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ARP and IPv6 NS/NA frames: recognise, validate, build. Formats are drawn in ndisc.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "io/ndisc.h"

#define ETH_HLEN      14
#define ETH_P_IP      0x0800
#define ETH_P_ARP     0x0806
#define ETH_P_IPV6    0x86dd
#define ARP_LEN	      28
#define IP6_HLEN      40
#define ND_HLEN	      24 /* type, code, checksum, reserved/flags, target */
#define ND_OPT_SLLA   1
#define ND_OPT_TLLA   2
#define NA_F_ROUTER   0x80
#define NA_F_SOLICIT  0x40
#define NA_F_OVERRIDE 0x20
#define MIN_FRAME     60

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int parse_arp(const uint8_t *a, uint32_t len, struct ndisc_msg *m)
{
	uint16_t op;

	if (len < ARP_LEN)
		return -EBADMSG;
	if (rd16(a) != 1 || rd16(a + 2) != ETH_P_IP || a[4] != 6 || a[5] != 4)
		return -ENOENT; /* ARP for something else than IPv4 over Ethernet */
	op = rd16(a + 6);
	if (op != 1 && op != 2)
		return -EBADMSG;
	m->family = AF_INET;
	m->op = op == 1 ? NDISC_REQUEST : NDISC_REPLY;
	memcpy(m->lladdr, a + 8, 6);
	m->has_lladdr = true;
	memcpy(m->sender.b, a + 14, 4);
	memcpy(m->target.b, a + 24, 4);
	return 0;
}

static uint16_t icmp6_sum(const union pt_addr *src, const union pt_addr *dst, const uint8_t *icmp,
			  uint32_t len)
{
	uint32_t sum = pkt_csum_pseudo(AF_INET6, src, dst, 58, len);

	return pkt_csum_fold(pkt_csum_bytes(icmp, len, sum));
}

static int parse_nd(const uint8_t *ip, uint32_t len, struct ndisc_msg *m)
{
	const uint8_t *icmp = ip + IP6_HLEN, *opt;
	uint32_t plen, olen;
	uint8_t type;

	if (len < IP6_HLEN + 1 || (ip[0] >> 4) != 6 || ip[6] != 58)
		return -ENOENT; /* not ICMPv6 right after the header: not ND */
	type = icmp[0];
	if (type != 135 && type != 136)
		return -ENOENT;
	plen = rd16(ip + 4);
	if (plen < ND_HLEN || IP6_HLEN + plen > len)
		return -EBADMSG;
	memcpy(m->sender.b, ip + 8, 16);
	memcpy(m->dst.b, ip + 24, 16);
	/* RFC 4861 7.1.1 / 7.1.2: only from the link itself, intact. */
	if (ip[7] != 255 || icmp[1] != 0 || icmp6_sum(&m->sender, &m->dst, icmp, plen) != 0)
		return -EBADMSG;
	memcpy(m->target.b, icmp + 8, 16);
	if (m->target.b[0] == 0xff)
		return -EBADMSG;
	m->family = AF_INET6;
	m->op = type == 135 ? NDISC_REQUEST : NDISC_REPLY;
	m->solicited = type == 136 && (icmp[4] & NA_F_SOLICIT);
	m->override = type == 136 && (icmp[4] & NA_F_OVERRIDE);
	for (opt = icmp + ND_HLEN, olen = plen - ND_HLEN; olen >= 2;) {
		uint32_t ol = (uint32_t)opt[1] * 8;

		if (ol == 0 || ol > olen)
			return -EBADMSG;
		if (ol >= 8 && opt[0] == (type == 135 ? ND_OPT_SLLA : ND_OPT_TLLA)) {
			memcpy(m->lladdr, opt + 2, 6);
			m->has_lladdr = true;
		}
		opt += ol;
		olen -= ol;
	}
	return 0;
}

int ndisc_parse(const uint8_t *frame, uint32_t len, struct ndisc_msg *m)
{
	uint16_t type;

	if (len < ETH_HLEN)
		return -ENOENT;
	memset(m, 0, sizeof(*m));
	memcpy(m->eth_src, frame + 6, 6);
	type = rd16(frame + 12);
	if (type == ETH_P_ARP)
		return parse_arp(frame + ETH_HLEN, len - ETH_HLEN, m);
	if (type == ETH_P_IPV6)
		return parse_nd(frame + ETH_HLEN, len - ETH_HLEN, m);
	return -ENOENT;
}

static uint8_t *eth_header(uint8_t *buf, const uint8_t *dmac, const uint8_t smac[6], uint16_t type)
{
	if (dmac)
		memcpy(buf, dmac, 6);
	else
		memset(buf, 0xff, 6);
	memcpy(buf + 6, smac, 6);
	wr16(buf + 12, type);
	return buf + ETH_HLEN;
}

size_t ndisc_build_arp(uint8_t *buf, enum ndisc_op op, const uint8_t smac[6],
		       const union pt_addr *sip, const uint8_t *dmac, const union pt_addr *tip)
{
	uint8_t *a;

	memset(buf, 0, MIN_FRAME);
	a = eth_header(buf, dmac, smac, ETH_P_ARP);
	wr16(a, 1);
	wr16(a + 2, ETH_P_IP);
	a[4] = 6;
	a[5] = 4;
	wr16(a + 6, op == NDISC_REQUEST ? 1 : 2);
	memcpy(a + 8, smac, 6);
	memcpy(a + 14, sip->b, 4);
	if (dmac && op == NDISC_REPLY)
		memcpy(a + 18, dmac, 6);
	memcpy(a + 24, tip->b, 4);
	return MIN_FRAME;
}

void ndisc_ipv6_mcast_mac(const union pt_addr *a, uint8_t mac[6])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, a->b + 12, 4);
}

/* IPv6 + ICMPv6 ND message with one link-layer option; returns the frame length. */
static size_t build_nd(uint8_t *buf, const uint8_t dmac[6], const uint8_t smac[6],
		       const union pt_addr *src, const union pt_addr *dst, uint8_t type,
		       uint8_t flags, const union pt_addr *target)
{
	uint8_t *ip = eth_header(buf, dmac, smac, ETH_P_IPV6), *icmp = ip + IP6_HLEN;
	const uint32_t plen = ND_HLEN + 8;

	memset(ip, 0, IP6_HLEN + plen);
	ip[0] = 0x60;
	wr16(ip + 4, (uint16_t)plen);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src->b, 16);
	memcpy(ip + 24, dst->b, 16);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target->b, 16);
	icmp[ND_HLEN] = type == 135 ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[ND_HLEN + 1] = 1;
	memcpy(icmp + ND_HLEN + 2, smac, 6);
	wr16(icmp + 2, icmp6_sum(src, dst, icmp, plen));
	return ETH_HLEN + IP6_HLEN + plen;
}

size_t ndisc_build_ns(uint8_t *buf, const uint8_t smac[6], const union pt_addr *src,
		      const union pt_addr *target, const uint8_t *dmac)
{
	union pt_addr dst;
	uint8_t mmac[6];

	if (dmac) {
		dst = *target;
	} else {
		/* Solicited-node multicast: ff02::1:ff00:0/104 + the target's low 24 bits. */
		memset(&dst, 0, sizeof(dst));
		dst.b[0] = 0xff;
		dst.b[1] = 0x02;
		dst.b[11] = 0x01;
		dst.b[12] = 0xff;
		memcpy(dst.b + 13, target->b + 13, 3);
		ndisc_ipv6_mcast_mac(&dst, mmac);
		dmac = mmac;
	}
	return build_nd(buf, dmac, smac, src, &dst, 135, 0, target);
}

size_t ndisc_build_na(uint8_t *buf, const uint8_t smac[6], const union pt_addr *target,
		      const union pt_addr *dst, const uint8_t dmac[6], bool router, bool solicited)
{
	uint8_t flags = NA_F_OVERRIDE;

	if (router)
		flags |= NA_F_ROUTER;
	if (solicited)
		flags |= NA_F_SOLICIT;
	return build_nd(buf, dmac, smac, target, dst, 136, flags, target);
}
