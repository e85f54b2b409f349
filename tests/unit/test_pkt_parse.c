// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parser: field values on hand-made frames, identical results for every segment layout,
 * every truncation and every malformation class failing cleanly (run under ASan: segments
 * are separate allocations of exactly their length), and IPv6 extension header chains.
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

#include "pkt/build.h"
#include "pkt/pkt.h"

/* Packets covering every parser path; built from the text form. */
static const char *const corpus[] = {
    "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn mss=1460 sackok ts=1:2 wscale=7 len=5",
    "tcp [2001:db8::2]:1234 > [2001:db8::1]:80 ack len=3 ext=hop,dst,rt,frag,ah",
    "udp 10.0.0.2:5000 > 192.0.2.1:53 len=7 ipopt=rr,ts,ra vlan=5,7",
    "udplite [2001:db8::2]:1 > [2001:db8::1]:2 cov=8 len=9 eth",
    "icmp 10.0.0.2 > 192.0.2.1 echo-request id=1 seq=2 len=4",
    "icmp6 2001:db8::2 > 2001:db8::1 echo-reply len=4 ext=dst",
    "sctp 10.0.0.2:1 > 10.0.0.3:2 init,data",
    "dccp [2001:db8::2]:1 > [2001:db8::1]:2 response",
    "gre 10.0.0.2 > 10.0.0.3 key=9 len=6",
    "esp [2001:db8::2] > [2001:db8::1] spi=3 len=8 ext=hop",
    "ah 10.0.0.2 > 10.0.0.3 spi=4 len=2",
    "proto=99 10.0.0.2 > 10.0.0.3 len=5",
    "udp 10.0.0.2:1 > 10.0.0.3:2 frag=off:0,mf id=9 len=16",
    "tcp 10.0.0.2:1 > 10.0.0.3:2 frag=off:3 len=16 eth",
    "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:7,mf id=5 len=8",
};

#define NCORPUS (sizeof(corpus) / sizeof(corpus[0]))

/* Build a corpus packet and copy its bytes out; returns the length. */
static uint32_t corpus_bytes(size_t i, uint8_t *out, size_t max, enum pkt_link *link)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[128];
	struct pkt *p;
	uint32_t len;

	assert_non_null(s);
	if (pkt_spec_parse(corpus[i], s, err, sizeof(err)))
		fail_msg("corpus %zu: %s", i, err);
	p = pkt_build(s);
	assert_non_null(p);
	*link = s->eth ? PKT_LINK_ETHERNET : PKT_LINK_RAW;
	len = p->len;
	assert_true(len <= max);
	assert_int_equal(pkt_copy_out(p, 0, out, len), 0);
	pkt_free(p);
	free(s);
	return len;
}

static void parse_bytes(const uint8_t *b, uint32_t len, enum pkt_link link, struct pkt_info *in,
			int *ret)
{
	struct pkt *p = pkt_from_bytes(b, len);

	assert_non_null(p);
	*ret = pkt_parse(p, link, true);
	memcpy(in, &p->info, sizeof(*in));
	pkt_free(p);
}

static void assert_same_parse(struct pkt *p, enum pkt_link link, const struct pkt_info *want,
			      int want_ret, const char *what)
{
	int ret = pkt_parse(p, link, true);

	if (ret != want_ret || memcmp(&p->info, want, sizeof(*want)))
		fail_msg("%s: parse differs from the linear packet", what);
}

/* Split at every chunk size 1..7, at every single offset and every pair of offsets. */
static void test_segment_layouts_parse_identically(void **state)
{
	uint8_t b[512];
	size_t i;

	(void)state;
	for (i = 0; i < NCORPUS; i++) {
		enum pkt_link link;
		uint32_t len = corpus_bytes(i, b, sizeof(b), &link), c[2], chunk;
		struct pkt_info want;
		int want_ret;
		char what[160];

		parse_bytes(b, len, link, &want, &want_ret);
		assert_int_equal(want_ret, 0);
		assert_int_equal(want.bad, PKT_OK);
		for (chunk = 1; chunk <= 7; chunk++) {
			struct pkt *p = pkt_from_bytes_split(b, len, chunk);

			snprintf(what, sizeof(what), "%s chunk %u", corpus[i], chunk);
			assert_same_parse(p, link, &want, 0, what);
			pkt_free(p);
		}
		for (c[0] = 1; c[0] < len; c[0]++) {
			struct pkt *p = pkt_from_bytes_cuts(b, len, c, 1);

			snprintf(what, sizeof(what), "%s cut %u", corpus[i], c[0]);
			assert_same_parse(p, link, &want, 0, what);
			pkt_free(p);
			for (c[1] = c[0] + 1; c[1] < len && c[0] < 90; c[1]++) {
				p = pkt_from_bytes_cuts(b, len, c, 2);
				snprintf(what, sizeof(what), "%s cuts %u,%u", corpus[i], c[0],
					 c[1]);
				assert_same_parse(p, link, &want, 0, what);
				pkt_free(p);
			}
		}
	}
}

/*
 * Every truncation of every corpus packet fails (the IP length field no longer fits), never
 * reads out of bounds, and names the layer where the cut is.
 */
static void test_every_truncation_fails_cleanly(void **state)
{
	uint8_t b[512];
	size_t i;

	(void)state;
	for (i = 0; i < NCORPUS; i++) {
		enum pkt_link link;
		uint32_t len = corpus_bytes(i, b, sizeof(b), &link), cut, l3off;
		struct pkt_info full, in;
		int ret;

		parse_bytes(b, len, link, &full, &ret);
		l3off = full.l3off;
		for (cut = 0; cut < len; cut++) {
			struct pkt *p;

			parse_bytes(b, cut, link, &in, &ret);
			assert_int_equal(ret, -EBADMSG);
			if (link == PKT_LINK_ETHERNET && cut < l3off)
				assert_int_equal(in.bad, PKT_BAD_L2_TRUNC);
			else if (cut < l3off + (full.family == AF_INET ? 20u : 40u))
				assert_int_equal(in.bad, PKT_BAD_IP_TRUNC);
			else if (full.family == AF_INET && cut < l3off + full.ihl)
				assert_int_equal(in.bad, PKT_BAD_IP_HLEN);
			else
				assert_int_equal(in.bad, PKT_BAD_IP_LEN);
			/* the same through a segmented packet */
			p = pkt_from_bytes_split(b, cut, 3);
			assert_int_equal(pkt_parse(p, link, true), -EBADMSG);
			assert_int_equal(p->info.bad, in.bad);
			pkt_free(p);
		}
	}
}

/* Hand-made: Ethernet, 802.1ad 100, 802.1Q 200, IPv4 with a NOP+RA option, TCP with doff 6. */
static const uint8_t qinq_tcp[] = {
    0x02, 0,	0,    0,    0,	  0x02, 0x02, 0,    0,	  0,	0,    0x01, /* MACs */
    0x88, 0xa8, 0x00, 0x64, 0x81, 0x00, 0x00, 0xc8, 0x08, 0x00,		    /* tags, IPv4 */
    0x46, 0x10, 0x00, 0x30, 0x12, 0x34, 0x20, 0x00, 0x05, 0x06, 0x00, 0x00, /* MF, ttl 5 */
    192,  0,	2,    1,    198,  51,	100,  7,    148,  4,	0,    0,    /* RA option */
    0x04, 0xd2, 0x00, 0x50, 0,	  0,	0,    1,    0,	  0,	0,    0,
    0x60, 0x12, 0xff, 0xff, 0,	  0,	0,    0,    1,	  1,	1,    0, /* NOP NOP NOP EOL */
    0xaa, 0xbb, 0xcc, 0xdd,						 /* payload */
    0xee, 0xee, /* Ethernet padding beyond the IP datagram */
};

static void test_fields_qinq_ipv4_tcp(void **state)
{
	struct pkt *p = pkt_from_bytes(qinq_tcp, sizeof(qinq_tcp));
	const struct pkt_info *in = &p->info;

	(void)state;
	pkt_ip_csum_update(p); /* needs l3off: parse without verification first */
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, false), 0);
	pkt_ip_csum_update(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, true), 0);
	assert_int_equal(in->l2off, 0);
	assert_int_equal(in->vlan, 100);
	assert_int_equal(in->l2proto, 0x0800);
	assert_int_equal(in->l3off, 22);
	assert_int_equal(in->family, AF_INET);
	assert_int_equal(in->ihl, 24);
	assert_int_equal(in->l3len, 48);
	assert_int_equal(in->tos, 0x10);
	assert_int_equal(in->ttl, 5);
	assert_true(in->is_fragment && in->more_frags && !in->dont_frag);
	assert_int_equal(in->frag_off, 0);
	assert_int_equal(in->frag_id, 0x1234);
	assert_int_equal(in->src.b[0], 192);
	assert_int_equal(in->dst.b[3], 7);
	assert_true(in->has_l4 && in->has_ports);
	assert_int_equal(in->l4proto, IPPROTO_TCP);
	assert_int_equal(in->l4off, 46);
	assert_int_equal(in->l4len, 24);
	assert_int_equal(in->sport, 1234);
	assert_int_equal(in->dport, 80);
	assert_int_equal(in->tcp_flags, 0x12);
	assert_int_equal(in->tcp_doff, 24);
	assert_int_equal(in->payload_off, 70);
	assert_int_equal(in->bad, PKT_OK);
	pkt_free(p);
}

/* Apply `edit` to the qinq frame's bytes, parse, expect `bad`. */
static void expect_bad(const char *what, void (*edit)(uint8_t *b, uint32_t *len),
		       enum pkt_link link, enum pkt_bad bad, int ret)
{
	uint8_t b[sizeof(qinq_tcp) + 64];
	uint32_t len = sizeof(qinq_tcp);
	struct pkt *p;

	memcpy(b, qinq_tcp, len);
	edit(b, &len);
	p = pkt_from_bytes_split(b, len, 5);
	if (pkt_parse(p, link, false) != ret || p->info.bad != bad)
		fail_msg("%s: got %s", what, pkt_bad_name(p->info.bad));
	pkt_free(p);
}

static void e_arp(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[20] = 0x08;
	b[21] = 0x06;
}
static void e_tag_cut(uint8_t *b, uint32_t *l)
{
	(void)b;
	*l = 16;
}
static void e_version(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[22] = 0x66;
}
static void e_ihl4(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[22] = 0x44;
}
static void e_ihl_beyond(uint8_t *b, uint32_t *l)
{
	b[22] = 0x4f;
	*l = 22 + 40;
}
static void e_tot_small(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[24] = 0;
	b[25] = 20;
}
static void e_tot_big(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[24] = 0x01;
	b[25] = 0x00;
}
static void e_opt_len0(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[43] = 0;
}
static void e_opt_len_beyond(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[43] = 9;
}
static void e_opt_rr_ptr(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[42] = 7;
	b[43] = 4;
	b[44] = 3;
}
static void e_doff4(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[58] = 0x40;
}
static void e_doff_beyond(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[58] = 0xf0;
}
static void e_l4_cut(uint8_t *b, uint32_t *l)
{
	(void)l;
	b[24] = 0;
	b[25] = 24 + 10;
}

static void test_malformation_classes(void **state)
{
	(void)state;
	expect_bad("arp", e_arp, PKT_LINK_ETHERNET, PKT_BAD_L2_PROTO, -EPROTONOSUPPORT);
	expect_bad("tag cut", e_tag_cut, PKT_LINK_ETHERNET, PKT_BAD_L2_TRUNC, -EBADMSG);
	expect_bad("version", e_version, PKT_LINK_ETHERNET, PKT_BAD_IP_VERSION, -EBADMSG);
	expect_bad("ihl 4", e_ihl4, PKT_LINK_ETHERNET, PKT_BAD_IP_HLEN, -EBADMSG);
	expect_bad("ihl beyond", e_ihl_beyond, PKT_LINK_ETHERNET, PKT_BAD_IP_HLEN, -EBADMSG);
	expect_bad("total < ihl", e_tot_small, PKT_LINK_ETHERNET, PKT_BAD_IP_LEN, -EBADMSG);
	expect_bad("total > data", e_tot_big, PKT_LINK_ETHERNET, PKT_BAD_IP_LEN, -EBADMSG);
	expect_bad("option len 0", e_opt_len0, PKT_LINK_ETHERNET, PKT_BAD_IP_OPTIONS, -EBADMSG);
	expect_bad("option len", e_opt_len_beyond, PKT_LINK_ETHERNET, PKT_BAD_IP_OPTIONS, -EBADMSG);
	expect_bad("rr pointer", e_opt_rr_ptr, PKT_LINK_ETHERNET, PKT_BAD_IP_OPTIONS, -EBADMSG);
	expect_bad("doff 4", e_doff4, PKT_LINK_ETHERNET, PKT_BAD_L4_HLEN, -EBADMSG);
	expect_bad("doff beyond", e_doff_beyond, PKT_LINK_ETHERNET, PKT_BAD_L4_HLEN, -EBADMSG);
	expect_bad("tcp cut by ip len", e_l4_cut, PKT_LINK_ETHERNET, PKT_BAD_L4_TRUNC, -EBADMSG);
}

static void test_raw_version_and_empty(void **state)
{
	static const uint8_t v5[20] = {0x55};
	struct pkt *p = pkt_from_bytes(v5, sizeof(v5));

	(void)state;
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), -EBADMSG);
	assert_int_equal(p->info.bad, PKT_BAD_IP_VERSION);
	assert_int_equal(p->info.l2off, UINT32_MAX);
	pkt_free(p);
	p = pkt_from_bytes(NULL, 0);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), -EBADMSG);
	assert_int_equal(p->info.bad, PKT_BAD_IP_TRUNC);
	assert_int_equal(pkt_parse(p, PKT_LINK_ETHERNET, false), -EBADMSG);
	assert_int_equal(p->info.bad, PKT_BAD_L2_TRUNC);
	pkt_free(p);
	assert_string_equal(pkt_bad_name(PKT_BAD_EXTHDR), "exthdr");
	assert_string_equal(pkt_bad_name(PKT_BAD_MAX), "unknown");
}

static struct pkt *build(const char *text)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[128];
	struct pkt *p;

	if (pkt_spec_parse(text, s, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	p = pkt_build(s);
	free(s);
	assert_non_null(p);
	return p;
}

static void test_ipv6_full_chain(void **state)
{
	struct pkt *p = build("tcp [2001:db8::2]:1 > [2001:db8::1]:2 syn ext=hop,rt,frag,ah,dst");
	const struct pkt_info *in = &p->info;
	static const uint8_t types[] = {0, 43, 44, 51, 60};
	static const uint32_t offs[] = {40, 48, 56, 64, 88};

	(void)state;
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(in->n_exthdr, 5);
	assert_memory_equal(in->exthdr_type, types, 5);
	assert_memory_equal(in->exthdr_off, offs, sizeof(offs));
	assert_int_equal(in->ip6_exthdrs, PKT_EH_HOPOPTS | PKT_EH_ROUTING | PKT_EH_FRAG |
					      PKT_EH_AUTH | PKT_EH_DSTOPTS | PKT_EH_PROTO);
	assert_int_equal(in->frag_hdr_off, 56);
	assert_false(in->is_fragment); /* atomic fragment: offset 0, no MF */
	assert_int_equal(in->l4off, 96);
	assert_true(in->has_l4);
	assert_int_equal(in->l4proto, IPPROTO_TCP);
	assert_int_equal(in->tcp_flags, 0x02);
	assert_true(pkt_l4_csum_ok(p));
	pkt_free(p);
}

static void test_ipv6_non_first_fragment(void **state)
{
	struct pkt *p = build("udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=dst frag=off:10,mf id=77 "
			      "len=24");
	const struct pkt_info *in = &p->info;

	(void)state;
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_false(in->has_l4);
	assert_false(in->has_ports);
	assert_int_equal(in->l4proto, IPPROTO_UDP);
	assert_true(in->is_fragment && in->more_frags);
	assert_int_equal(in->frag_off, 10);
	assert_int_equal(in->frag_id, 77);
	assert_int_equal(in->frag_hdr_off, 48);
	assert_int_equal(in->l4off, 56);
	assert_int_equal(in->l4len, 24);
	assert_int_equal(in->ip6_exthdrs, PKT_EH_DSTOPTS | PKT_EH_FRAG);
	pkt_free(p);
}

static void test_ipv4_fragments(void **state)
{
	struct pkt *p = build("tcp 10.0.0.1:1 > 10.0.0.2:2 frag=off:2 len=16");

	(void)state;
	assert_false(p->info.has_l4);
	assert_int_equal(p->info.l4proto, IPPROTO_TCP);
	assert_int_equal(p->info.frag_off, 2);
	assert_false(pkt_l4_csum_ok(p)); /* cannot be verified */
	pkt_free(p);
	p = build("tcp 10.0.0.1:1 > 10.0.0.2:2 syn frag=mf len=16");
	assert_true(p->info.has_l4 && p->info.is_fragment);
	assert_int_equal(p->info.dport, 2);
	pkt_free(p);
}

/* Edit a built IPv6 packet's bytes at `off` and expect the chain walk to fail. */
static void expect_exthdr_bad(const char *text, uint32_t off, uint8_t val, enum pkt_bad bad)
{
	struct pkt *p = build(text);
	uint8_t v = val;

	pkt_store(p, off, &v, 1);
	if (pkt_parse(p, PKT_LINK_RAW, false) != -EBADMSG || p->info.bad != bad)
		fail_msg("%s [%u]=%u: got %s", text, off, val, pkt_bad_name(p->info.bad));
	pkt_free(p);
}

static void test_ipv6_chain_malformations(void **state)
{
	(void)state;
	/* hop-by-hop length running past the datagram */
	expect_exthdr_bad("udp [::1]:1 > [::2]:2 ext=hop len=4", 41, 3, PKT_BAD_EXTHDR);
	/* hop-by-hop anywhere but first */
	expect_exthdr_bad("udp [::1]:1 > [::2]:2 ext=dst,rt len=4", 48, 0, PKT_BAD_EXTHDR);
	/* AH with payload length 0 (8 bytes: less than its fixed part) */
	expect_exthdr_bad("udp [::1]:1 > [::2]:2 ext=ah len=40", 41, 0, PKT_BAD_EXTHDR);
	/* AH length in 4-byte units + 2 beyond the end */
	expect_exthdr_bad("udp [::1]:1 > [::2]:2 ext=ah len=0", 41, 20, PKT_BAD_EXTHDR);
	/* fragment header cut: payload length 4 */
	expect_exthdr_bad("udp [::1]:1 > [::2]:2 frag=mf len=0", 5, 4, PKT_BAD_EXTHDR);
	/* transport cut by the payload length */
	expect_exthdr_bad("tcp [::1]:1 > [::2]:2 syn", 5, 12, PKT_BAD_L4_TRUNC);
}

static void test_ipv6_esp_none_and_long_chains(void **state)
{
	struct pkt *p = build("esp [::1] > [::2] spi=5 ext=hop,dst len=32");
	uint8_t nh = IPPROTO_NONE;

	(void)state;
	assert_int_equal(p->info.l4proto, IPPROTO_ESP);
	assert_true(p->info.has_l4);
	assert_int_equal(p->info.ip6_exthdrs, PKT_EH_HOPOPTS | PKT_EH_DSTOPTS | PKT_EH_ESP);
	assert_int_equal(p->info.payload_off, 56 + 8);
	pkt_free(p);

	/* no next header: rewrite the dst header's next-header to 59 */
	p = build("udp [::1]:1 > [::2]:2 ext=dst len=4");
	pkt_store(p, 40, &nh, 1);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
	assert_int_equal(p->info.l4proto, IPPROTO_NONE);
	assert_false(p->info.has_l4);
	assert_true(p->info.ip6_exthdrs & PKT_EH_NONE);
	pkt_free(p);

	/* nine extension headers: eight are recorded, the transport header is still found */
	p = build("tcp [::1]:1 > [::2]:2 fin ext=hop,dst,dst,dst,dst,dst,dst,dst");
	assert_int_equal(p->info.n_exthdr, 8);
	assert_int_equal(p->info.l4off, 40 + 8 * 8);
	assert_int_equal(p->info.tcp_flags, 0x01);
	pkt_free(p);
}

static void test_transport_variants(void **state)
{
	struct pkt *p = build("gre 10.0.0.1 > 10.0.0.2 key=7 len=3");

	(void)state;
	assert_int_equal(p->info.payload_off, 20 + 8);
	assert_false(p->info.has_ports);
	pkt_free(p);
	p = build("dccp 10.0.0.1:5 > 10.0.0.2:6 request");
	assert_int_equal(p->info.payload_off, 20 + 20);
	assert_int_equal(p->info.sport, 5);
	pkt_free(p);
	p = build("ah 10.0.0.1 > 10.0.0.2 spi=1 len=4");
	assert_int_equal(p->info.payload_off, 20 + 24);
	pkt_free(p);
	p = build("icmp6 ::1 > ::2 packet-too-big mtu=1280");
	assert_int_equal(p->info.icmp_type, 2);
	assert_int_equal(p->info.icmp_code, 0);
	pkt_free(p);
	p = build("icmp 10.0.0.1 > 10.0.0.2 echo-request id=4660 seq=9");
	assert_int_equal(p->info.icmp_id, 4660);
	pkt_free(p);
	p = build("icmp6 ::1 > ::2 echo-reply id=77 seq=1");
	assert_int_equal(p->info.icmp_id, 77);
	pkt_free(p);
	/* a DCCP data offset below the generic header */
	p = build("dccp 10.0.0.1:5 > 10.0.0.2:6 data len=8");
	{
		uint8_t doff = 2;

		pkt_store(p, 24, &doff, 1);
		assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), -EBADMSG);
		assert_int_equal(p->info.bad, PKT_BAD_L4_HLEN);
	}
	pkt_free(p);
}

/*
 * The common case (untagged Ethernet, 20-byte IPv4 or IPv6 without extension headers, TCP or
 * UDP, headers in the first segment) is parsed by a path of its own. Its result must be the general
 * parser's, byte for byte, and whatever it does not take must fall through: plain frames with every
 * header byte and the length set at random, parsed linear (the common path may take them) and with
 * a first segment of one byte (it never can), with and without the header checksum check.
 */
static void test_common_path_matches_general(void **state)
{
	static const char *const base[] = {
	    "tcp 10.0.0.2:1234 > 192.0.2.1:80 ack len=5 eth",
	    "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn mss=1460 wscale=7 eth",
	    "udp 10.0.0.2:5000 > 192.0.2.1:53 len=7 eth",
	    "udp 10.0.0.2:5000 > 192.0.2.1:53 eth",
	    "icmp 10.0.0.2 > 192.0.2.1 echo-request id=1 seq=2 len=4 eth",
	    "tcp [fd00::2]:1234 > [2001:db8::1]:80 ack len=5 eth",
	    "tcp [fd00::2]:1234 > [2001:db8::1]:80 syn mss=1440 wscale=7 eth",
	    "udp [fd00::2]:5000 > [2001:db8::1]:53 len=7 eth",
	    "udp [fd00::2]:5000 > [2001:db8::1]:53 eth",
	    "udp [fd00::2]:5000 > [2001:db8::1]:53 len=3 ext=dst eth",
	    "icmp6 fd00::2 > 2001:db8::1 echo-request id=1 seq=2 len=4 eth",
	};
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		struct pkt_spec *s = malloc(sizeof(*s));
		uint8_t b[256], m[256];
		struct pkt *p;
		uint32_t len, ip;

		assert_non_null(s);
		assert_int_equal(pkt_spec_parse(base[i], s, NULL, 0), 0);
		p = pkt_build(s);
		assert_non_null(p);
		len = p->len;
		assert_true(len <= sizeof(b));
		assert_int_equal(pkt_copy_out(p, 0, b, len), 0);
		ip = p->info.family == AF_INET ? 20 : 40;
		pkt_free(p);
		free(s);
		/* frames ending inside the transport header, the IP length saying so (a short
		 * first segment must never be read past; ASan watches the exact allocation) */
		for (uint32_t cut = 14 + ip; cut < len && cut < 14 + ip + 20; cut++) {
			for (int verify = 0; verify < 2; verify++) {
				struct pkt *lin, *seg;
				uint32_t one = 1, l = ip == 20 ? cut - 14 : cut - 14 - 40;

				memcpy(m, b, cut);
				m[ip == 20 ? 16 : 18] = (uint8_t)(l >> 8);
				m[ip == 20 ? 17 : 19] = (uint8_t)l;
				lin = pkt_from_bytes(m, cut);
				seg = pkt_from_bytes_cuts(m, cut, &one, 1);
				assert_non_null(lin);
				assert_non_null(seg);
				assert_int_equal(pkt_parse(lin, PKT_LINK_ETHERNET, verify),
						 pkt_parse(seg, PKT_LINK_ETHERNET, verify));
				assert_memory_equal(&lin->info, &seg->info, sizeof(lin->info));
				pkt_free(lin);
				pkt_free(seg);
			}
		}
		for (unsigned round = 0; round < 4000; round++) {
			uint32_t cut = 1, mlen = len;
			bool verify = round & 1;
			struct pkt_info want;
			int want_ret, ret;

			memcpy(m, b, len);
			for (unsigned k = 0; k < 1 + round % 3; k++) {
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				m[(rng >> 33) % (14 + ip + 28) % len] ^=
				    (uint8_t)(1u << (rng >> 40) % 8);
			}
			if (round % 5 == 0)
				mlen = (uint32_t)(rng >> 20) % (len + 1);
			p = pkt_from_bytes_cuts(m, mlen, &cut, mlen > 1 ? 1 : 0);
			assert_non_null(p);
			want_ret = pkt_parse(p, PKT_LINK_ETHERNET, verify);
			memcpy(&want, &p->info, sizeof(want));
			pkt_free(p);
			p = pkt_from_bytes(m, mlen);
			assert_non_null(p);
			ret = pkt_parse(p, PKT_LINK_ETHERNET, verify);
			if (ret != want_ret || memcmp(&p->info, &want, sizeof(want)))
				fail_msg("%s, round %u: the common path differs", base[i], round);
			pkt_free(p);
		}
	}
}

/*
 * The common path's IPv4 header check (a remainder modulo 0xffff) against the general parser's
 * (pkt_csum_bytes folded): random 20-byte headers of a plain UDP frame with the checksum field
 * right, right in its other form (0x0000 and 0xffff are both zero in one's complement), off by
 * one either way and at random; headers of all-ones and near-zero bytes too. The general
 * parser runs on a copy whose first segment is one byte (the common path never takes it).
 */
static void test_common_path_header_checksum(void **state)
{
	uint64_t rng = 0x2545f4914f6cdd1dull;
	unsigned ok = 0, bad = 0;

	(void)state;
	for (unsigned round = 0; round < 60000; round++) {
		uint8_t f[14 + 20 + 8] = {0};
		uint16_t c, want_c;
		struct pkt *lin, *seg;
		uint32_t one = 1;
		int rl, rs;

		f[12] = 0x08;
		for (unsigned k = 15; k < 34; k++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			f[k] = round % 7 == 0	? 0xff
			       : round % 7 == 1 ? (uint8_t)(rng >> 62)
						: (uint8_t)(rng >> 33);
		}
		f[14] = 0x45;
		f[16] = 0;
		f[17] = 28;	   /* total length: header and UDP */
		f[20] = f[21] = 0; /* not a fragment */
		f[23] = IPPROTO_UDP;
		f[24] = f[25] = 0;
		want_c = pkt_csum_fold(pkt_csum_bytes(f + 14, 20, 0));
		switch (round % 5) {
		case 0:
			c = want_c;
			break;
		case 1:
			c = want_c == 0 ? 0xffff : want_c == 0xffff ? 0 : want_c;
			break;
		case 2:
			c = (uint16_t)(want_c + 1);
			break;
		case 3:
			c = (uint16_t)(want_c - 1);
			break;
		default:
			c = (uint16_t)(rng >> 17);
			break;
		}
		f[24] = (uint8_t)(c >> 8);
		f[25] = (uint8_t)c;
		lin = pkt_from_bytes(f, sizeof(f));
		seg = pkt_from_bytes_cuts(f, sizeof(f), &one, 1);
		assert_non_null(lin);
		assert_non_null(seg);
		rl = pkt_parse(lin, PKT_LINK_ETHERNET, true);
		rs = pkt_parse(seg, PKT_LINK_ETHERNET, true);
		if (rl != rs || memcmp(&lin->info, &seg->info, sizeof(lin->info)))
			fail_msg("round %u: checksum %04x, the common path differs", round, c);
		if (rs == 0)
			ok++;
		else
			bad++;
		pkt_free(lin);
		pkt_free(seg);
	}
	/* both outcomes were met many times */
	assert_true(ok > 10000);
	assert_true(bad > 10000);

	/* Headers whose native-order words add up to k * 0xffffffff (right checksums all): the
	 * common path's two folds end at 0x1fffe for these, not 0xffff. The destination address is
	 * what makes the sum. */
	for (unsigned round = 0, made = 0; made < 400 && round < 100000; round++) {
		uint8_t f[14 + 20 + 8] = {0};
		uint64_t target = (uint64_t)(1 + round % 4) * 0xffffffffu, sum = 0;
		struct pkt *lin, *seg;
		uint32_t one = 1, w;

		f[12] = 0x08;
		for (unsigned k = 15; k < 30; k++) {
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			f[k] = (uint8_t)(rng >> 33);
		}
		f[14] = 0x45;
		f[16] = 0;
		f[17] = 28;
		f[20] = f[21] = 0;
		f[23] = IPPROTO_UDP;
		for (unsigned k = 0; k < 16; k += 4) {
			memcpy(&w, f + 14 + k, 4);
			sum += w;
		}
		if (sum > target || target - sum > 0xffffffffu)
			continue;
		w = (uint32_t)(target - sum);
		memcpy(f + 30, &w, 4);
		made++;
		lin = pkt_from_bytes(f, sizeof(f));
		seg = pkt_from_bytes_cuts(f, sizeof(f), &one, 1);
		assert_non_null(lin);
		assert_non_null(seg);
		assert_int_equal(pkt_parse(seg, PKT_LINK_ETHERNET, true), 0);
		assert_int_equal(pkt_parse(lin, PKT_LINK_ETHERNET, true), 0);
		assert_memory_equal(&lin->info, &seg->info, sizeof(lin->info));
		pkt_free(lin);
		pkt_free(seg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_segment_layouts_parse_identically),
	    cmocka_unit_test(test_every_truncation_fails_cleanly),
	    cmocka_unit_test(test_fields_qinq_ipv4_tcp),
	    cmocka_unit_test(test_malformation_classes),
	    cmocka_unit_test(test_raw_version_and_empty),
	    cmocka_unit_test(test_ipv6_full_chain),
	    cmocka_unit_test(test_ipv6_non_first_fragment),
	    cmocka_unit_test(test_ipv4_fragments),
	    cmocka_unit_test(test_ipv6_chain_malformations),
	    cmocka_unit_test(test_ipv6_esp_none_and_long_chains),
	    cmocka_unit_test(test_transport_variants),
	    cmocka_unit_test(test_common_path_matches_general),
	    cmocka_unit_test(test_common_path_header_checksum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
