// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/io/offload.c without a kernel: what a frame's virtio_net_hdr says put on the packet
 * (GSO kept whole with a partial checksum, one frame's partial checksum completed, a GSO type
 * that disagrees with the headers refused), the header written back for sending, and a GSO
 * packet cut for a port without offloads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <linux/virtio_net.h>

#include "io/offload.h"
#include "pkt/build.h"
#include "pkt/gso.h"
#include "pkt_test.h"

/* A frame from a spec (Ethernet), as the ring would hand it: bytes and offload state. */
static struct pkt *frame(const char *spec, struct afpacket_frame *f)
{
	struct pkt *p = pkt_test_build(spec);

	assert_int_equal(pkt_linearize(p), 0);
	memset(f, 0, sizeof(*f));
	f->data = pkt_linear_data(p);
	f->len = p->len;
	f->vlan_tci = -1;
	return p;
}

/* The packet as live mode makes it from the frame: its bytes, nothing parsed. */
static struct pkt *rx(const struct afpacket_frame *f)
{
	struct pkt *p = pkt_from_bytes(f->data, f->len);

	assert_non_null(p);
	return p;
}

static uint16_t field(const struct pkt *p, uint32_t off)
{
	uint16_t v = 0;

	assert_int_equal(pkt_load_be16(p, p->info.l4off + off, &v), 0);
	return v;
}

static void test_gso_rx_tx(void **state)
{
	struct afpacket_frame f;
	struct pkt *src = frame("tcp 10.0.0.2:1000 > 198.51.100.7:80 ack len=9000 df eth", &f);
	struct afpacket_offload o;
	struct pkt *p;
	uint16_t sum;

	(void)state;
	f.csum_partial = true;
	f.off = (struct afpacket_offload){.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
					  .gso_size = 1448,
					  .needs_csum = true,
					  .csum_start = 14 + 20,
					  .csum_offset = 16};
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), 0);
	assert_int_equal(p->gso_size, 1448);
	assert_int_equal(p->gso_type, PKT_GSO_TCP);
	assert_true(p->csum_partial);
	assert_true(p->l4_csum_verified);
	/* the field was a full checksum in these bytes: the rx trusted csum_start/offset and kept
	 * it; the tx writes the pseudo-header sum whatever the field holds */
	io_offload_tx(p, &o);
	assert_int_equal(o.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(o.gso_size, 1448);
	assert_int_equal(o.hdr_len, 14 + 20 + 20);
	assert_true(o.needs_csum);
	assert_int_equal(o.csum_start, 34);
	assert_int_equal(o.csum_offset, 16);
	sum = field(p, 16);
	pkt_l4_csum_set_partial(p);
	assert_int_equal(field(p, 16), sum);
	pkt_free(p);

	/* a GSO type of the other family: refused */
	f.off.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), -EBADMSG);
	pkt_free(p);
	/* UFO: not ours to cut */
	f.off.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), -EBADMSG);
	pkt_free(p);
	/* GRO'd (no partial checksum): made partial, verified */
	f.off.gso_type = VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN;
	f.off.needs_csum = false;
	f.csum_partial = false;
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), 0);
	assert_int_equal(p->gso_type, PKT_GSO_TCP | PKT_GSO_ECN);
	assert_true(p->csum_partial);
	assert_true(p->l4_csum_verified);
	io_offload_tx(p, &o);
	assert_int_equal(o.gso_type, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN);
	pkt_free(p);
	pkt_free(src);
}

/* One frame with a partial checksum: completed on arrival, no GSO, no header flags on tx. */
static void test_single_partial(void **state)
{
	struct afpacket_frame f;
	struct pkt *src = frame("udp [2001:db8::1]:5000 > [2001:db8::2]:53 len=100 eth", &f), *p;
	struct afpacket_offload o;
	uint8_t *d = (uint8_t *)f.data;

	(void)state;
	assert_int_equal(pkt_parse(src, PKT_LINK_ETHERNET, false), 0);
	d[src->info.l4off + 6] ^= 0x5a; /* the sender's field is not the checksum */
	f.csum_partial = true;
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), 0);
	assert_false(p->csum_partial);
	assert_int_equal(p->gso_size, 0);
	assert_true(pkt_l4_csum_ok(p));
	io_offload_tx(p, &o);
	assert_false(o.needs_csum);
	assert_int_equal(o.gso_type, 0);
	pkt_free(p);
	/* checksum verified by the kernel (DATA_VALID): kept as the packet's flag */
	f.csum_partial = false;
	f.csum_valid = true;
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), 0);
	assert_true(p->l4_csum_verified);
	pkt_free(p);
	pkt_free(src);
}

struct sink {
	struct pkt *p[16];
	unsigned n;
};

static void collect(void *arg, struct pkt *q)
{
	struct sink *s = arg;

	assert_true(s->n < 16);
	s->p[s->n++] = q;
}

/* For AF_XDP: the segments, each with a right checksum. */
static void test_fit(void **state)
{
	struct afpacket_frame f;
	struct pkt *src = frame("tcp [2001:db8::1]:1000 > [2001:db8::2]:80 ack len=5000 eth", &f),
		   *p;
	struct sink s = {.n = 0};

	(void)state;
	f.csum_partial = true;
	f.off = (struct afpacket_offload){.gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
					  .gso_size = 1200,
					  .needs_csum = true,
					  .csum_start = 14 + 40,
					  .csum_offset = 16};
	p = rx(&f);
	assert_int_equal(io_offload_rx(p, &f), 0);
	pkt_l4_csum_set_partial(p);
	assert_int_equal(io_offload_fit(p, collect, &s), 5);
	for (unsigned i = 0; i < s.n; i++) {
		assert_int_equal(pkt_parse(s.p[i], PKT_LINK_ETHERNET, true), 0);
		assert_int_equal(s.p[i]->info.l4len, 20 + (i < 4 ? 1200 : 200));
		assert_true(pkt_l4_csum_ok(s.p[i]));
		pkt_free(s.p[i]);
	}
	pkt_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gso_rx_tx),
	    cmocka_unit_test(test_single_partial),
	    cmocka_unit_test(test_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
