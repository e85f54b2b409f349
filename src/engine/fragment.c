// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IPv4 fragmentation on output (the kernel's ip_fragment), for packets larger than the link
 * and for datagrams defragmentation made, which leave cut as they came in:
 *
 *   first fragment:  header as it was (options all kept), MF set, offset base
 *   later fragments: options without the copy bit (0x80) turned into NOP, offset base + n*8
 *   every one:       the same DF, MF on all but the last (the last keeps the original's MF,
 *                    so a fragment cut further stays a fragment), header checksum redone
 */
#include <errno.h>
#include <string.h>

#include "engine/engine_int.h"

/* The header of fragments after the first: options without the copy bit (0x80) become NOP. */
static void strip_options(uint8_t *h, uint32_t ihl)
{
	uint32_t i = 20;

	while (i < ihl && h[i] != 0) {
		uint32_t len = h[i] == 1 ? 1 : (i + 1 < ihl ? h[i + 1] : 1);

		if (len < 2 && h[i] != 1)
			len = ihl - i; /* malformed: the parser refused it already; end here */
		if (!(h[i] & 0x80))
			memset(h + i, 1, len > ihl - i ? ihl - i : len);
		i += len;
	}
}

/* What a fragment keeps of the datagram's metadata; plug-ins' references stay with p. */
static void copy_meta(struct pkt *to, const struct pkt *from)
{
	to->mark = from->mark;
	to->priority = from->priority;
	to->iif = from->iif;
	to->oif = from->oif;
	to->tstamp_ns = from->tstamp_ns;
	to->id = from->id;
	to->trace = from->trace;
}

/* Bytes [off, off + len) of p's payload; `base` is p's own offset when p is itself a fragment. */
static struct pkt *one_fragment(const struct pkt *p, const uint8_t *hdr, uint32_t base,
				uint32_t off, uint32_t len, bool more, bool df)
{
	uint32_t l3 = p->info.l3off, ihl = p->info.ihl;
	struct pkt *f = pkt_alloc(l3 + ihl + len);
	uint8_t *b, *h;
	uint16_t fo = (uint16_t)((df ? 0x4000 : 0) | (more ? 0x2000 : 0) | (base + off) / 8), csum;

	if (!f)
		return NULL;
	b = pkt_linear_data(f);
	h = b + l3;
	if (pkt_copy_out(p, 0, b, l3) || pkt_copy_out(p, l3 + ihl + off, h + ihl, len)) {
		pkt_free(f);
		return NULL;
	}
	memcpy(h, hdr, ihl);
	h[2] = (uint8_t)((ihl + len) >> 8);
	h[3] = (uint8_t)(ihl + len);
	h[6] = (uint8_t)(fo >> 8);
	h[7] = (uint8_t)fo;
	h[10] = h[11] = 0;
	csum = pkt_csum_fold(pkt_csum_bytes(h, ihl, 0));
	h[10] = (uint8_t)(csum >> 8);
	h[11] = (uint8_t)csum;
	pkt_parse(f, p->info.l2off == UINT32_MAX ? PKT_LINK_RAW : PKT_LINK_ETHERNET, false);
	copy_meta(f, p);
	return f;
}

int box_fragment4(const struct pkt *p, uint32_t mtu, uint16_t frag_max_size, struct pkt **out,
		  unsigned max)
{
	const struct pkt_info *in = &p->info;
	uint32_t ihl = in->ihl, dlen, chunk, off, base;
	uint8_t hdr[60];
	unsigned n = 0;

	if (in->family != AF_INET || ihl < 20 || pkt_copy_out(p, in->l3off, hdr, ihl))
		return -EINVAL;
	/* A fragment is cut further (a router forwarding it onto a smaller link): its pieces
	 * keep its offset, and its MF on the last one. */
	base = in->is_fragment ? (uint32_t)in->frag_off * 8 : 0;
	/* DF: the sender's fragments (frag_max_size) must fit as they were, else the datagram */
	if (in->dont_frag && (frag_max_size ? frag_max_size : in->l3len) > mtu)
		return -EMSGSIZE;
	if (frag_max_size && frag_max_size < mtu)
		mtu = frag_max_size;
	if (!frag_max_size && in->l3len <= mtu) {
		if (!max)
			return -ENOSPC;
		out[0] = pkt_clone(p);
		if (out[0]) {
			out[0]->ct = NULL;
			out[0]->ctinfo = 0;
		}
		return out[0] ? 1 : -ENOMEM;
	}
	if (mtu < ihl + 8)
		return -EINVAL;
	dlen = in->l3len - ihl;
	chunk = (mtu - ihl) & ~7u;
	if ((dlen + chunk - 1) / chunk > max)
		return -ENOSPC;
	for (off = 0; off < dlen; off += chunk) {
		uint32_t len = dlen - off < chunk ? dlen - off : chunk;

		out[n] = one_fragment(p, hdr, base, off, len, off + len < dlen || in->more_frags,
				      in->dont_frag);
		if (!out[n]) {
			while (n)
				pkt_free(out[--n]);
			return -ENOMEM;
		}
		n++;
		if (!off)
			strip_options(hdr, ihl);
	}
	return (int)n;
}
