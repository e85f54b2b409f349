// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IPv6 fragments: what a fragment says, the shadow datagram, and carrying the shadow's
 * rewrites back into the originals.
 *
 * A fragment (RFC 8200 4.5) and the shadow made of its datagram:
 *
 *   fragment:  | IPv6 hdr | unfragmentable ext (hop, rt, ...) | frag hdr | fragmentable data |
 *                 plen = this fragment       nh -> 44           | nh | res | off<<3 | M | id |
 *
 *   shadow:    | IPv6 hdr | unfragmentable ext                 | fragmentable part, whole ... |
 *                 plen = unfrag - 40 + len   nh = the offset-0 fragment's frag hdr `next`
 *
 * Only the offset-0 fragment's headers are used (RFC 8200: next header values of the other
 * fragments may differ). The originals are never changed by reassembly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ct/defrag_int.h"

#define IP6_HLEN    40
#define IP6_MAXPLEN 65535

/* The byte naming the fragment header: the IPv6 header's next header or the last ext's. */
static int find_nh_off(const struct pkt *p, uint32_t *nh_off)
{
	const struct pkt_info *in = &p->info;
	uint32_t cur = in->l3off + IP6_HLEN, prev = in->l3off + 6;

	while (cur < in->frag_hdr_off) {
		uint8_t buf[2], type;
		const uint8_t *h;

		if (pkt_copy_out(p, prev, &type, 1))
			return -EBADMSG;
		h = pkt_header(p, cur, 2, buf);
		if (!h)
			return -EBADMSG;
		prev = cur;
		cur += type == IPPROTO_AH ? ((uint32_t)h[1] + 2) * 4 : ((uint32_t)h[1] + 1) * 8;
	}
	if (cur != in->frag_hdr_off)
		return -EBADMSG;
	*nh_off = prev;
	return 0;
}

int defrag6_view(const struct pkt *p, struct defrag_view *v)
{
	const struct pkt_info *in = &p->info;
	uint32_t dlen;

	memset(v, 0, sizeof(*v));
	v->key.src = in->src;
	v->key.dst = in->dst;
	v->key.id = in->frag_id;
	v->key.family = AF_INET6;
	v->off = (uint32_t)in->frag_off * 8;
	v->data = in->frag_hdr_off + 8;
	v->hdrlen = in->frag_hdr_off - in->l3off;
	v->size = (uint16_t)in->l3len;
	v->more = in->more_frags;
	v->ecn = in->tos & 3;
	if (v->data > in->l3off + in->l3len || find_nh_off(p, &v->nh_off))
		return CT_DEFRAG_ST_BAD_LEN;
	dlen = in->l3off + in->l3len - v->data;
	v->end = v->off + dlen;
	/* RFC 7112: the offset-0 fragment holds the whole chain up to the transport header. */
	if (!v->off && (in->bad == PKT_BAD_EXTHDR || in->bad == PKT_BAD_L4_TRUNC ||
			in->bad == PKT_BAD_L4_HLEN))
		return CT_DEFRAG_ST_TINY;
	/* RFC 8200 4.5: every fragment but the last is a multiple of 8 bytes long. */
	if (v->more && (dlen & 7))
		return CT_DEFRAG_ST_BAD_LEN;
	if (v->hdrlen - IP6_HLEN + v->end > IP6_MAXPLEN)
		return CT_DEFRAG_ST_TOO_LONG;
	return 0;
}

struct pkt *defrag6_build(const struct defrag_queue *q, enum pkt_link link,
			  enum ct_defrag_stat *why)
{
	const struct pkt *head = q->frags->pkt;
	uint32_t l3 = head->info.l3off, plen;
	struct defrag_view v;
	struct pkt *np;
	uint8_t *h, next;
	int ecn;

	*why = CT_DEFRAG_ST_BAD_LEN;
	if (defrag6_view(head, &v) || pkt_copy_out(head, head->info.frag_hdr_off, &next, 1))
		return NULL;
	ecn = defrag_ecn(q->ecn_seen, head->info.tos & 3);
	if (ecn < 0) {
		*why = CT_DEFRAG_ST_BAD_ECN;
		return NULL;
	}
	plen = v.hdrlen - IP6_HLEN + q->len;
	if (plen > IP6_MAXPLEN) {
		*why = CT_DEFRAG_ST_TOO_LONG;
		return NULL;
	}
	*why = CT_DEFRAG_ST_NOMEM;
	np = pkt_alloc(l3 + v.hdrlen + q->len);
	if (!np)
		return NULL;
	h = pkt_linear_data(np);
	if (pkt_copy_out(head, 0, h, l3 + v.hdrlen)) {
		pkt_free(np);
		return NULL;
	}
	for (const struct defrag_frag *f = q->frags; f; f = f->next) {
		if (pkt_copy_out(f->pkt, f->data, h + l3 + v.hdrlen + f->off, f->end - f->off)) {
			pkt_free(np);
			return NULL;
		}
	}
	h[v.nh_off] = next;
	h[l3 + 1] = (uint8_t)((h[l3 + 1] & ~0x30u) | (unsigned)ecn << 4);
	h[l3 + 4] = (uint8_t)(plen >> 8);
	h[l3 + 5] = (uint8_t)plen;
	pkt_parse(np, link, false);
	return np;
}

/* Copy [soff, soff+len) of `from` to `to` at toff, across segments of both. */
static int copy_range(const struct pkt *from, uint32_t soff, struct pkt *to, uint32_t toff,
		      uint32_t len)
{
	uint8_t buf[256];

	while (len) {
		uint32_t n = len < sizeof(buf) ? len : (uint32_t)sizeof(buf);

		if (pkt_copy_out(from, soff, buf, n) || pkt_store(to, toff, buf, n))
			return -EFAULT;
		soff += n;
		toff += n;
		len -= n;
	}
	return 0;
}

int ct_defrag6_sync(const struct pkt *shadow, struct pkt *orig)
{
	const struct pkt_info *s = &shadow->info;
	struct pkt_info *o = &orig->info;
	uint32_t unfrag, off, dlen, need;
	uint8_t hdr[IP6_HLEN];

	if (s->family != AF_INET6 || o->family != AF_INET6 || !o->frag_hdr_off ||
	    o->frag_hdr_off + 8 > o->l3off + o->l3len)
		return -EINVAL;
	unfrag = o->frag_hdr_off - o->l3off;
	off = (uint32_t)o->frag_off * 8;
	dlen = o->l3off + o->l3len - (o->frag_hdr_off + 8);
	need = unfrag + off + dlen;
	/* The shadow must still hold this fragment's bytes where they were, and end where the
	 * last fragment ends: a shadow that grew or shrank cannot be cut back. */
	if (s->l3len < need || (!o->more_frags && s->l3len != need))
		return -EINVAL;
	if (pkt_copy_out(shadow, s->l3off, hdr, IP6_HLEN))
		return -EINVAL;
	/* version, traffic class, flow label; hop limit; addresses. Not the lengths. */
	if (pkt_store(orig, o->l3off, hdr, 4) || pkt_store(orig, o->l3off + 7, hdr + 7, 33))
		return -EINVAL;
	if (!off && copy_range(shadow, s->l3off + unfrag, orig, o->frag_hdr_off + 8, dlen))
		return -EINVAL;
	o->src = s->src;
	o->dst = s->dst;
	o->ttl = s->ttl;
	o->tos = s->tos;
	orig->mark = shadow->mark;
	orig->priority = shadow->priority;
	return 0;
}
