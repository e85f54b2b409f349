// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packet generator: every frame it builds parses cleanly with correct checksums (the
 * project's parser as the judge), has the size asked for, carries its signature; the flow
 * distributions have the shape they claim; the same seed writes the same bytes and another
 * seed other bytes; reused buffers give the same frames as fresh ones; bad configurations are
 * refused with a reason; and the receiver counts loss, reordering, duplicates and latency.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "gen/gen.h"
#include "pkt/pkt.h"

static uint8_t buf[GEN_MAX_FRAME + 64];

/* Parse a frame as the box would, verifying checksums; return the packet's info. */
static struct pkt_info parse(const uint8_t *frame, size_t len)
{
	struct pkt *p = pkt_from_bytes(frame, (uint32_t)len);
	struct pkt_info info;

	assert_non_null(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, true), 0);
	info = p->info;
	assert_int_equal(info.bad, PKT_OK);
	if (!info.is_fragment)
		assert_true(pkt_l4_csum_ok(p));
	pkt_free(p);
	return info;
}

static int family_of_flow_test(int family, unsigned flow)
{
	if (family == 46)
		family = (flow & 1) ? 6 : 4;
	return family == 6 ? AF_INET6 : AF_INET;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void every_kind_parses(void **state)
{
	static const enum gen_proto protos[] = {GEN_UDP, GEN_TCP, GEN_ICMP};
	static const int families[] = {4, 6, 46};
	char err[200];

	(void)state;
	for (unsigned pi = 0; pi < 3; pi++)
		for (unsigned fi = 0; fi < 3; fi++)
			for (int vlan = -1; vlan <= 7; vlan += 8) {
				struct gen_config c;
				struct gen *g;

				gen_config_init(&c);
				c.proto = protos[pi];
				c.family = families[fi];
				c.vlan = vlan;
				c.flows = 7;
				c.sizes = GEN_SIZE_RANGE;
				c.size_min = gen_min_frame(&c, 6);
				c.size_max = 1518;
				g = gen_new(&c, err, sizeof(err));
				assert_non_null(g);
				for (int i = 0; i < 50; i++) {
					size_t len = gen_next(g, buf, 1000 + i);
					struct pkt_info in = parse(buf, len);

					assert_true(len + GEN_FCS >= c.size_min);
					assert_true(len + GEN_FCS <= c.size_max);
					assert_int_equal(in.family, family_of_flow_test(
									c.family, (unsigned)i % 7));
					assert_int_equal(in.vlan, vlan < 0 ? 0xffff : vlan);
					assert_int_equal(get32(buf + in.payload_off),
							 GEN_SIG_MAGIC);
					assert_int_equal(get32(buf + in.payload_off + 4),
							 (unsigned)i % 7);
					assert_int_equal(get32(buf + in.payload_off + 8),
							 (unsigned)i / 7);
					assert_int_equal(get32(buf + in.payload_off + 12),
							 1000 + i);
					/* the IP datagram fills the frame: nothing but the FCS is
					 * left out */
					assert_int_equal(in.l3off + in.l3len, len);
				}
				gen_free(g);
			}
}

static void fixed_sizes_are_exact(void **state)
{
	static const unsigned sizes[] = {64, 65, 128, 594, 1500, 1518, 9018};
	char err[200];

	(void)state;
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct gen_config c;
		struct gen *g;
		size_t len;

		gen_config_init(&c);
		c.size_min = c.size_max = sizes[i];
		g = gen_new(&c, err, sizeof(err));
		assert_non_null(g);
		len = gen_next(g, buf, 0);
		assert_int_equal(len, sizes[i] - GEN_FCS);
		parse(buf, len);
		gen_free(g);
	}
}

static void imix_mix(void **state)
{
	struct gen_config c;
	struct gen *g;
	char err[200];
	unsigned n64 = 0, n594 = 0, n1518 = 0;

	(void)state;
	gen_config_init(&c);
	c.sizes = GEN_SIZE_IMIX;
	c.size_max = 1518;
	g = gen_new(&c, err, sizeof(err));
	assert_non_null(g);
	for (int i = 0; i < 12000; i++) {
		size_t len = gen_next(g, buf, 0) + GEN_FCS;

		n64 += len == 64;
		n594 += len == 594;
		n1518 += len == 1518;
	}
	assert_int_equal(n64 + n594 + n1518, 12000);
	/* 7:4:1 of 12000 = 7000:4000:1000, within 5 % */
	assert_true(n64 > 6650 && n64 < 7350);
	assert_true(n594 > 3800 && n594 < 4200);
	assert_true(n1518 > 950 && n1518 < 1050);
	gen_free(g);
}

static void distributions(void **state)
{
	struct gen_config c;
	struct gen *g;
	char err[200];

	(void)state;
	/* seq: round robin, exactly even */
	gen_config_init(&c);
	c.flows = 100;
	g = gen_new(&c, err, sizeof(err));
	for (int i = 0; i < 1000; i++)
		gen_next(g, buf, 0);
	for (unsigned f = 0; f < 100; f++)
		assert_int_equal(gen_flow_count(g, f), 10);
	gen_free(g);

	/* random: every flow between half and twice its share */
	c.dist = GEN_DIST_RANDOM;
	g = gen_new(&c, err, sizeof(err));
	for (int i = 0; i < 20000; i++)
		gen_next(g, buf, 0);
	for (unsigned f = 0; f < 100; f++) {
		assert_true(gen_flow_count(g, f) > 100);
		assert_true(gen_flow_count(g, f) < 400);
	}
	gen_free(g);

	/* Zipf s=1: flow k's share is (1/(k+1)) / H(100) (H = 5.187); check ranks 0, 1, 9 */
	c.dist = GEN_DIST_ZIPF;
	c.zipf_s = 1.0;
	g = gen_new(&c, err, sizeof(err));
	for (int i = 0; i < 60000; i++)
		gen_next(g, buf, 0);
	assert_true(abs((int)gen_flow_count(g, 0) - 11567) < 600);
	assert_true(abs((int)gen_flow_count(g, 1) - 5784) < 450);
	assert_true(abs((int)gen_flow_count(g, 9) - 1157) < 200);
	assert_true(gen_flow_count(g, 0) > gen_flow_count(g, 50));
	gen_free(g);
}

/* Write n frames of config c into one flat buffer; return its length. */
static size_t run(const struct gen_config *c, unsigned n, uint8_t *out, bool reuse)
{
	char err[200];
	struct gen *g = gen_new(c, err, sizeof(err));
	size_t total = 0;
	static uint8_t slot[GEN_MAX_FRAME + 64];

	assert_non_null(g);
	memset(slot, 0, sizeof(slot));
	for (unsigned i = 0; i < n; i++) {
		size_t len = reuse ? gen_next_reuse(g, slot, i) : gen_next(g, slot, i);

		memcpy(out + total, slot, len);
		total += len;
	}
	gen_free(g);
	return total;
}

static void seeded_and_reusable(void **state)
{
	struct gen_config c;
	size_t cap = 400 * 1600;
	uint8_t *a = malloc(cap), *b = malloc(cap);
	size_t la, lb;

	(void)state;
	gen_config_init(&c);
	c.flows = 50;
	c.family = 46;
	c.dist = GEN_DIST_RANDOM;
	c.sizes = GEN_SIZE_RANGE;
	c.size_min = 82;
	c.size_max = 1518;
	la = run(&c, 400, a, false);
	lb = run(&c, 400, b, false);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	/* a reused slot (only headers rewritten) gives the same frames */
	lb = run(&c, 400, b, true);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	/* another seed: other flows and sizes */
	c.seed = 2;
	lb = run(&c, 400, b, false);
	assert_true(la != lb || memcmp(a, b, la) != 0);
	/* TCP with the handshake: the same too */
	c.seed = 1;
	c.proto = GEN_TCP;
	c.tcp_mode = GEN_TCP_HANDSHAKE;
	c.size_min = 94;
	la = run(&c, 400, a, false);
	lb = run(&c, 400, b, true);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
}

static void tcp_handshake(void **state)
{
	struct gen_config c;
	struct gen *g;
	char err[200];
	struct pkt_info in[4];
	uint32_t seq[4], ack[4];

	(void)state;
	gen_config_init(&c);
	c.proto = GEN_TCP;
	c.tcp_mode = GEN_TCP_HANDSHAKE;
	c.size_min = c.size_max = 200;
	g = gen_new(&c, err, sizeof(err));
	for (int i = 0; i < 4; i++) {
		size_t len = gen_next(g, buf, 0);

		in[i] = parse(buf, len);
		seq[i] = get32(buf + in[i].l4off + 4);
		ack[i] = get32(buf + in[i].l4off + 8);
	}
	assert_int_equal(in[0].tcp_flags, 0x02);
	assert_int_equal(in[1].tcp_flags, 0x12);
	assert_int_equal(in[2].tcp_flags, 0x10);
	assert_int_equal(in[3].tcp_flags, 0x18);
	assert_int_equal(ack[1], seq[0] + 1);
	assert_int_equal(seq[2], seq[0] + 1);
	assert_int_equal(ack[2], seq[1] + 1);
	assert_int_equal(seq[3], seq[0] + 1);
	/* the SYN-ACK comes back: addresses and ports swapped */
	assert_memory_equal(in[1].src.b, in[0].dst.b, 4);
	assert_int_equal(in[1].sport, in[0].dport);
	/* the next data segment follows the first one's bytes */
	size_t len = gen_next(g, buf, 0);
	struct pkt_info d = parse(buf, len);

	assert_int_equal(get32(buf + d.l4off + 4), seq[3] + (in[3].l3len - 20 - 20));
	gen_free(g);
}

static void fragments_reassemble(void **state)
{
	struct gen_config c;
	struct gen *g;
	char err[200];

	(void)state;
	for (int fam = 4; fam <= 6; fam += 2) {
		unsigned frames = 0, bytes = 0;
		bool more = true;

		gen_config_init(&c);
		c.family = fam;
		c.size_min = c.size_max = 1518;
		c.frag = 504;
		g = gen_new(&c, err, sizeof(err));
		assert_non_null(g);
		while (more) {
			size_t len = gen_next(g, buf, 0);
			struct pkt_info in = parse(buf, len);

			assert_true(in.is_fragment);
			assert_int_equal(in.frag_off * 8, bytes);
			bytes += in.l3len - (fam == 4 ? 20 : 48);
			more = in.more_frags;
			frames++;
			assert_true(frames < 10);
		}
		/* IP payload of a 1518-byte frame: 1500 - IP header */
		assert_int_equal(bytes, fam == 4 ? 1480 : 1460);
		assert_int_equal(frames, 3);
		assert_int_equal(gen_datagrams(g), 1);
		assert_false(gen_in_datagram(g));
		gen_free(g);
	}
}

static void bad_configs(void **state)
{
	struct gen_config c;
	char err[200];

	(void)state;
	gen_config_init(&c);
	c.family = 6;
	c.size_min = c.size_max = 64;
	assert_int_equal(gen_config_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "smallest is 82"));
	gen_config_init(&c);
	c.frag = 100;
	assert_int_equal(gen_config_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "multiple of 8"));
	gen_config_init(&c);
	c.flows = 0;
	assert_null(gen_new(&c, err, sizeof(err)));
	gen_config_init(&c);
	c.size_min = 200;
	c.size_max = 100;
	assert_int_equal(gen_config_check(&c, err, sizeof(err)), -EINVAL);
	gen_config_init(&c);
	c.size_min = c.size_max = 20000;
	assert_int_equal(gen_config_check(&c, err, sizeof(err)), -EINVAL);
	gen_config_init(&c);
	assert_int_equal(gen_config_check(&c, err, sizeof(err)), 0);
}

static void receiver_counts(void **state)
{
	struct gen_config c;
	struct gen *g;
	struct gen_rx *rx = gen_rx_new(10);
	struct gen_rx_totals t;
	char err[200];
	static uint8_t frames[40][200];
	size_t lens[40];

	(void)state;
	gen_config_init(&c);
	c.flows = 2;
	g = gen_new(&c, err, sizeof(err));
	for (int i = 0; i < 40; i++) {
		lens[i] = gen_next(g, frames[i], 1000);
		assert_true(lens[i] <= sizeof(frames[i]));
	}
	/* flow 0 sends packets 0,2,4..38 (seq 0..19), flow 1 the odd ones */
	for (int i = 0; i < 40; i++) {
		if (i == 4 || i == 6) /* flow 0 seq 2 and 3 lost */
			continue;
		if (i == 9) /* flow 1 seq 4: late, after seq 5 */
			continue;
		gen_rx_frame(rx, frames[i], lens[i], true, 1000 + 500 * (unsigned)i);
		if (i == 11)
			gen_rx_frame(rx, frames[9], lens[9], true, 1000 + 500 * 11);
		if (i == 20) /* a duplicate */
			gen_rx_frame(rx, frames[20], lens[20], true, 1000 + 500 * 20);
	}
	gen_rx_frame(rx, (const uint8_t *)"\x01\x02", 2, true, 0); /* garbage: unsigned */
	gen_rx_totals(rx, &t);
	assert_int_equal(t.received, 39);
	assert_int_equal(t.duplicated, 1);
	assert_int_equal(t.reordered, 1);
	assert_int_equal(t.lost, 2);
	assert_int_equal(t.flows_seen, 2);
	assert_int_equal(t.unsigned_, 1);
	/* latencies 0 .. 19500 ns: the median near 10 us, p99 near 19.5 us (log-linear buckets
	 * are 1/16 of a power of two wide: within 7 %) */
	assert_true(t.lat_p50_ns > 8500 && t.lat_p50_ns < 10500);
	assert_true(t.lat_p99_ns > 17000 && t.lat_p99_ns <= 19500);
	assert_int_equal(t.lat_max_ns, 19500);
	gen_free(g);
	gen_rx_free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_kind_parses),
	    cmocka_unit_test(fixed_sizes_are_exact),
	    cmocka_unit_test(imix_mix),
	    cmocka_unit_test(distributions),
	    cmocka_unit_test(seeded_and_reusable),
	    cmocka_unit_test(tcp_handshake),
	    cmocka_unit_test(fragments_reassemble),
	    cmocka_unit_test(bad_configs),
	    cmocka_unit_test(receiver_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
