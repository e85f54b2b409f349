// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gso.c: GSO packets cut into their segments, and partial checksums (gso.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "pkt/gso.h"

#define TCP_SEQ_OFF   4
#define TCP_FLAGS_OFF 13
#define TCP_CSUM_OFF  16
#define UDP_LEN_OFF   4
#define UDP_CSUM_OFF  6
#define UDP_HLEN      8
#define TCP_FIN	      0x01
#define TCP_PSH	      0x08
#define TCP_CWR	      0x80

bool pkt_gso_valid(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint8_t t = p->gso_type & (uint8_t)~PKT_GSO_ECN;

	if (!p->gso_size || !in->has_l4 || in->is_fragment ||
	    (in->family != AF_INET && in->family != AF_INET6))
		return false;
	if (t == PKT_GSO_TCP)
		return in->l4proto == IPPROTO_TCP && in->tcp_doff >= 20 &&
		       in->l4len >= in->tcp_doff;
	if (t == PKT_GSO_UDP_L4)
		return in->l4proto == IPPROTO_UDP && in->l4len >= UDP_HLEN;
	return false;
}

uint32_t pkt_gso_hdrlen(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;

	return in->l4off + (in->l4proto == IPPROTO_TCP ? in->tcp_doff : UDP_HLEN);
}

static uint32_t payload_len(const struct pkt *p)
{
	return p->info.l3off + p->info.l3len - pkt_gso_hdrlen(p);
}

unsigned pkt_gso_nsegs(const struct pkt *p)
{
	uint32_t n = p->gso_size ? (payload_len(p) + p->gso_size - 1u) / p->gso_size : 1u;

	return n ? n : 1u;
}

uint32_t pkt_gso_seg_l3len(const struct pkt *p)
{
	uint32_t pl = payload_len(p);

	return pkt_gso_hdrlen(p) - p->info.l3off + (pl < p->gso_size ? pl : p->gso_size);
}

static void put16(uint8_t *d, uint16_t v)
{
	d[0] = (uint8_t)(v >> 8);
	d[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *d)
{
	return (uint16_t)(d[0] << 8 | d[1]);
}

/* Segment i of n, hdr bytes of headers then len payload bytes from off: lengths, id, seq,
 * flags set in the copied headers; checksums after the parse. */
static struct pkt *one_segment(const struct pkt *p, uint32_t hdr, uint32_t off, uint32_t len,
			       unsigned i, unsigned n, enum pkt_link link)
{
	const struct pkt_info *in = &p->info;
	struct pkt *q = pkt_alloc(hdr + len);
	uint8_t *d, *l3, *l4;

	if (!q)
		return NULL;
	d = pkt_linear_data(q);
	if (pkt_copy_out(p, 0, d, hdr) || pkt_copy_out(p, off, d + hdr, len)) {
		pkt_free(q);
		return NULL;
	}
	l3 = d + in->l3off;
	l4 = d + in->l4off;
	if (in->family == AF_INET) {
		put16(l3 + 2, (uint16_t)(hdr - in->l3off + len));
		put16(l3 + 4, (uint16_t)(get16(l3 + 4) + i));
	} else {
		put16(l3 + 4, (uint16_t)(hdr - in->l3off - 40 + len));
	}
	if (in->l4proto == IPPROTO_TCP) {
		uint32_t seq = (uint32_t)l4[TCP_SEQ_OFF] << 24 |
			       (uint32_t)l4[TCP_SEQ_OFF + 1] << 16 |
			       (uint32_t)l4[TCP_SEQ_OFF + 2] << 8 | l4[TCP_SEQ_OFF + 3];

		seq += (uint32_t)i * p->gso_size;
		l4[TCP_SEQ_OFF] = (uint8_t)(seq >> 24);
		l4[TCP_SEQ_OFF + 1] = (uint8_t)(seq >> 16);
		l4[TCP_SEQ_OFF + 2] = (uint8_t)(seq >> 8);
		l4[TCP_SEQ_OFF + 3] = (uint8_t)seq;
		if (i + 1 < n)
			l4[TCP_FLAGS_OFF] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
		if (i > 0)
			l4[TCP_FLAGS_OFF] &= (uint8_t)~TCP_CWR;
	} else {
		put16(l4 + UDP_LEN_OFF, (uint16_t)(hdr - in->l4off + len));
	}
	q->meta = p->meta;
	q->ct = NULL; /* plug-ins' references stay with p */
	q->ctinfo = 0;
	if (pkt_parse(q, link, false)) {
		pkt_free(q);
		return NULL;
	}
	q->csum_partial = true; /* whatever the field holds: computed whole now */
	pkt_ip_csum_update(q);
	pkt_l4_csum_update(q);
	return q;
}

int pkt_gso_segment(const struct pkt *p, struct pkt **out, unsigned max)
{
	enum pkt_link link = p->info.l2off == UINT32_MAX ? PKT_LINK_RAW : PKT_LINK_ETHERNET;
	uint32_t hdr, pl;
	unsigned n;

	if (!pkt_gso_valid(p))
		return -EINVAL;
	hdr = pkt_gso_hdrlen(p);
	pl = payload_len(p);
	n = pkt_gso_nsegs(p);
	if (n > max)
		return -E2BIG;
	for (unsigned i = 0; i < n; i++) {
		uint32_t off = i * (uint32_t)p->gso_size;
		uint32_t len = pl - off < p->gso_size ? pl - off : p->gso_size;

		out[i] = one_segment(p, hdr, hdr + off, len, i, n, link);
		if (!out[i]) {
			while (i--)
				pkt_free(out[i]);
			return -ENOMEM;
		}
	}
	return (int)n;
}

void pkt_l4_csum_set_partial(struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint32_t off;
	uint8_t b[2];

	if (!in->has_l4 || in->is_fragment)
		return;
	if (in->l4proto == IPPROTO_TCP)
		off = in->l4off + TCP_CSUM_OFF;
	else if (in->l4proto == IPPROTO_UDP)
		off = in->l4off + UDP_CSUM_OFF;
	else
		return;
	/* folded and not complemented: the complement of what pkt_csum_fold gives */
	put16(b, (uint16_t)~pkt_csum_fold(
		     pkt_csum_pseudo(in->family, &in->src, &in->dst, in->l4proto, in->l4len)));
	if (pkt_store(p, off, b, 2) == 0)
		p->csum_partial = true;
}
