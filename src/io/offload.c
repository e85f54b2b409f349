// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * offload.c: virtio_net_hdr state onto packets and back, and received frames as packets, lent
 * or copied (offload.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/virtio_net.h>

#include "io/offload.h"
#include "pkt/gso.h"

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5 /* Linux 4.18; older headers lack it */
#endif

#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6

static uint16_t csum_field(const struct pkt *p)
{
	return p->info.l4proto == IPPROTO_TCP ? TCP_CSUM_OFF : UDP_CSUM_OFF;
}

/* The kernel's GSO type for the packet's headers: TCPV4 only over IPv4, and so on. */
static int gso_type_rx(const struct pkt *p, uint8_t vtype)
{
	uint8_t ecn = vtype & VIRTIO_NET_HDR_GSO_ECN ? PKT_GSO_ECN : 0;

	switch (vtype & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return p->info.family == AF_INET ? PKT_GSO_TCP | ecn : -1;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return p->info.family == AF_INET6 ? PKT_GSO_TCP | ecn : -1;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		return PKT_GSO_UDP_L4;
	default:
		return -1; /* UFO (fragments) and anything newer: not ours to cut */
	}
}

int io_offload_rx(struct pkt *p, const struct afpacket_frame *f)
{
	int t;

	p->l4_csum_verified = f->csum_valid;
	if (!f->off.gso_type && !f->csum_partial)
		return 0;
	if (pkt_parse(p, PKT_LINK_ETHERNET, false))
		return f->off.gso_type ? -EBADMSG : 0;
	if (!f->off.gso_type) {
		/* one frame: the next hop gets it whole, and the box's rewrites stay simple */
		pkt_l4_csum_update(p);
		p->l4_csum_verified = true;
		return 0;
	}
	t = gso_type_rx(p, f->off.gso_type);
	if (t < 0)
		return -EBADMSG;
	p->gso_type = (uint8_t)t;
	p->gso_size = f->off.gso_size;
	if (!pkt_gso_valid(p)) {
		p->gso_size = 0;
		p->gso_type = 0;
		return -EBADMSG;
	}
	/* the sender's partial checksum (trusted, as the kernel's CHECKSUM_PARTIAL), or a GRO'd
	 * packet's (verified per segment; the field is its first segment's): a sum from now on */
	if (!f->csum_partial || f->off.csum_start != p->info.l4off ||
	    f->off.csum_offset != csum_field(p))
		pkt_l4_csum_set_partial(p);
	else
		p->csum_partial = true;
	p->l4_csum_verified = true;
	return 0;
}

void io_offload_tx(struct pkt *p, struct afpacket_offload *o)
{
	*o = (struct afpacket_offload){0};
	if (p->gso_size) {
		bool tcp = p->info.l4proto == IPPROTO_TCP;

		o->gso_type = !tcp			   ? VIRTIO_NET_HDR_GSO_UDP_L4
			      : p->info.family == AF_INET6 ? VIRTIO_NET_HDR_GSO_TCPV6
							   : VIRTIO_NET_HDR_GSO_TCPV4;
		if (tcp && (p->gso_type & PKT_GSO_ECN))
			o->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		o->gso_size = p->gso_size;
		o->hdr_len = (uint16_t)pkt_gso_hdrlen(p);
		/* whatever the rewrites on the way did to the field: the sum of the headers as
		 * they leave, the kernel adds the rest */
		pkt_l4_csum_set_partial(p);
	}
	if (p->csum_partial) {
		o->needs_csum = true;
		o->csum_start = (uint16_t)p->info.l4off;
		o->csum_offset = csum_field(p);
	}
}

unsigned io_offload_fit(struct pkt *p, void (*emit)(void *arg, struct pkt *q), void *arg)
{
	struct pkt **segs;
	unsigned max;
	int n;

	if (!p->gso_size) {
		if (p->csum_partial)
			pkt_l4_csum_update(p);
		emit(arg, p);
		return 1;
	}
	max = pkt_gso_nsegs(p);
	segs = calloc(max, sizeof(*segs));
	n = segs ? pkt_gso_segment(p, segs, max) : -ENOMEM;
	pkt_free(p);
	if (n < 0) {
		free(segs);
		return 0;
	}
	for (int i = 0; i < n; i++)
		emit(arg, segs[i]);
	free(segs);
	return (unsigned)n;
}

/* The tag before the ethertype at d + 12 (the MAC addresses in d[0..11]). */
static void put_tag(uint8_t *d, int tci)
{
	d[12] = 0x81;
	d[13] = 0x00;
	d[14] = (uint8_t)(tci >> 8);
	d[15] = (uint8_t)tci;
}

struct pkt *io_frame_lend(struct pkt_pool *pp, const struct afpacket_frame *f)
{
	uint8_t *d = f->lend;
	uint32_t len = f->len;

	if (!d || !pp)
		return NULL;
	if (f->vlan_tci >= 0 && f->len >= 12) {
		if (f->headroom < 4)
			return NULL;
		memmove(d - 4, d, 12);
		d -= 4;
		put_tag(d, f->vlan_tci);
		len += 4;
	}
	return pkt_pool_lend(pp, d, len);
}

struct pkt *io_frame_copy_tagged(const struct afpacket_frame *f)
{
	struct pkt *p = pkt_alloc(f->len + 4);
	uint8_t *d;

	if (!p)
		return NULL;
	d = pkt_linear_data(p);
	memcpy(d, f->data, 12);
	put_tag(d, f->vlan_tci);
	memcpy(d + 16, f->data + 12, f->len - 12);
	return p;
}
