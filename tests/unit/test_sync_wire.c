// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/sync/wire.c against the bytes conntrackd 1.4.7 put on the wire (SYNC-WIRE.md Appendix A)
 * and against the receiver's refusals (section 9): a message we build must be byte for byte
 * what conntrackd builds, and a message conntrackd refuses we refuse too.
 */
#include "ct_test.h"

#include "nat/nat.h"
#include "sync/wire.h"

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;

	while (*h) {
		unsigned v;

		if (*h == ' ') {
			h++;
			continue;
		}
		assert_int_equal(sscanf(h, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

static void set_seq(uint8_t *m, uint32_t seq)
{
	m[4] = (uint8_t)(seq >> 24);
	m[5] = (uint8_t)(seq >> 16);
	m[6] = (uint8_t)(seq >> 8);
	m[7] = (uint8_t)seq;
}

#define B(id) (1ull << (id))

/* A.2: CT_NEW TCP ESTABLISHED, mark 0x1234, zone 5, window tracking on (108 bytes) */
static const char a2[] = "1000006c 6b11c04f 000c0000 0a010101 0a020202 00080005 0000000e 00050002"
			 "06000000 00080003 9c400050 00050004 03000000 00050019 00000000 0005001a"
			 "00000000 00080006 00000e10 00080007 00001234 0010001f 00000000 00000000"
			 "00000000 00060020 00050000";
/* A.3: CT_NEW UDP SNAT to 203.0.113.9:61000, SPAT little-endian (92 bytes) */
static const char a3[] = "1000005c 6b11c051 000c0000 0a010102 0a020203 00080005 0000019a 00050002"
			 "11000000 00080003 14e90035 00080006 00000078 00080007 00000000 0008000c"
			 "cb007109 0006000e 48ee0000 0010001f 00000000 00000000 00000000";

static void flow_v4(struct sync_flow *f, const char *src, const char *dst, uint8_t l4)
{
	memset(f, 0, sizeof(*f));
	ct_tuple_zero(&f->orig);
	f->orig.family = AF_INET;
	pt_addr_parse(src, &f->orig.src);
	pt_addr_parse(dst, &f->orig.dst);
	f->orig.l4proto = l4;
	f->have = B(SA_IPV4) | B(SA_L4PROTO) | B(SA_STATUS) | B(SA_PORT);
}

static void test_encode_matches_conntrackd(void **state)
{
	uint8_t want[256], got[SYNC_MSG_MAX];
	struct sync_flow f;
	size_t n;
	int len;

	(void)state;
	flow_v4(&f, "10.1.1.1", "10.2.2.2", 6);
	f.orig.s.port = 40000;
	f.orig.d.port = 80;
	f.orig.zone = 5;
	f.status = 0x0e;
	f.tcp_state = 3;
	f.timeout = 3600;
	f.mark = 0x1234;
	f.have |= B(SA_TCP_STATE) | B(SA_TCP_WSCALE_ORIG) | B(SA_TCP_WSCALE_REPL) | B(SA_TIMEOUT) |
		  B(SA_MARK) | B(SA_SYNPROXY) | B(SA_ZONE);
	n = unhex(a2, want);
	len = sync_ct_encode(got, sizeof(got), SYNC_T_CT_NEW, &f, SYNC_PEER_CONNTRACKD);
	assert_int_equal(len, (int)n);
	set_seq(got, 0x6b11c04f);
	assert_memory_equal(got, want, n);

	/* a conntrackd before 1.4.7 refuses ZONE: it is left out for such a peer */
	len = sync_ct_encode(got, sizeof(got), SYNC_T_CT_NEW, &f, SYNC_PEER_CONNTRACKD_146);
	assert_int_equal(len, (int)n - 8);

	flow_v4(&f, "10.1.1.2", "10.2.2.3", 17);
	f.orig.s.port = 5353;
	f.orig.d.port = 53;
	f.status = 0x19a;
	f.timeout = 120;
	pt_addr_parse("203.0.113.9", &f.snat);
	f.spat = 61000;
	f.have |= B(SA_TIMEOUT) | B(SA_MARK) | B(SA_SNAT_IPV4) | B(SA_SPAT_PORT) | B(SA_SYNPROXY);
	n = unhex(a3, want);
	len = sync_ct_encode(got, sizeof(got), SYNC_T_CT_NEW, &f, SYNC_PEER_CONNTRACKD);
	assert_int_equal(len, (int)n);
	set_seq(got, 0x6b11c051);
	assert_memory_equal(got, want, n);
}

static void test_decode_conntrackd(void **state)
{
	uint8_t m[256];
	size_t n = unhex(a3, m);
	struct sync_hdr h;
	struct sync_flow f;
	char a[64];

	(void)state;
	assert_int_equal(sync_hdr_next(m, n, 0, &h), (int)n);
	assert_int_equal(h.version, 1);
	assert_int_equal(h.type, SYNC_T_CT_NEW);
	assert_int_equal(h.seq, 0x6b11c051);
	assert_int_equal(sync_ct_decode(m, n, &f), 0);
	assert_int_equal(f.orig.family, AF_INET);
	assert_int_equal(f.orig.l4proto, 17);
	assert_int_equal(f.orig.s.port, 5353);
	assert_int_equal(f.orig.d.port, 53);
	assert_int_equal(f.status, 0x19a);
	assert_int_equal(f.timeout, 120);
	assert_int_equal(f.spat, 61000); /* 48 ee on the wire */
	assert_string_equal(pt_addr_str(AF_INET, &f.snat, a, sizeof(a)), "203.0.113.9");
	assert_true(f.have & B(SA_SNAT_IPV4));

	n = unhex(a2, m);
	assert_int_equal(sync_ct_decode(m, n, &f), 0);
	assert_int_equal(f.orig.zone, 5);
	assert_int_equal(f.mark, 0x1234);
	assert_int_equal(f.tcp_state, 3);
}

/* ICMP id is little-endian too (A.4: 34 12 = 4660) */
static void test_icmp_id_swapped(void **state)
{
	uint8_t m[SYNC_MSG_MAX];
	struct sync_flow f, g;
	int n;

	(void)state;
	flow_v4(&f, "10.0.0.1", "10.0.0.2", 1);
	f.have &= ~B(SA_PORT);
	f.orig.s.icmp_id = 4660;
	f.orig.d.icmp.type = 8;
	n = sync_ct_encode(m, sizeof(m), SYNC_T_CT_NEW, &f, SYNC_PEER_CONNTRACKD);
	assert_true(n > 0);
	/* IPV4 12, STATUS 8, L4PROTO 8, TYPE 8, CODE 8, then ICMP_ID: len 6 id 24 34 12 */
	assert_int_equal(m[8 + 12 + 8 + 8 + 8 + 8 + 4], 0x34);
	assert_int_equal(m[8 + 12 + 8 + 8 + 8 + 8 + 5], 0x12);
	assert_int_equal(sync_ct_decode(m, (size_t)n, &g), 0);
	assert_int_equal(g.orig.s.icmp_id, 4660);
	assert_int_equal(g.orig.d.icmp.type, 8);
}

/* Build a message from attribute hex after the header, for the refusal cases. */
static size_t msg(uint8_t *m, const char *attrs)
{
	size_t n = unhex(attrs, m + 8);

	sync_hdr_put(m, SYNC_T_CT_NEW, 0, (uint16_t)(n + 8), 1);
	return n + 8;
}

#define BASE "000c0000 0a010101 0a020202 00050002 11000000 00080003 9c400035"

static void test_refusals(void **state)
{
	uint8_t m[512];
	struct sync_flow f;
	size_t n;

	(void)state;
	n = msg(m, BASE);
	assert_int_equal(sync_ct_decode(m, n, &f), 0);
	/* L4PROTO with len 8 (T3) */
	n = msg(m, "000c0000 0a010101 0a020202 00080002 11000000 00080003 9c400035");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
	/* an unknown id, 40 (T4) */
	n = msg(m, BASE " 00080028 00000000");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
	/* helper name of 11 characters + NUL (len 16) is taken, 12 + NUL is not (T10) */
	n = msg(m, BASE " 0010001b 61626364 65666768 696a6b00");
	assert_int_equal(sync_ct_decode(m, n, &f), 0);
	assert_string_equal(f.helper, "abcdefghijk");
	n = msg(m, BASE " 0011001b 61626364 65666768 696a6b6c 00000000");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
	/* a helper name without its NUL */
	n = msg(m, BASE " 0008001b 66747078");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
	/* an attribute running past the message */
	n = msg(m, BASE " 00400007 00000000");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
	/* labels of 0 bytes: ignored, message taken (4.5.3) */
	n = msg(m, BASE " 0004001c");
	assert_int_equal(sync_ct_decode(m, n, &f), 0);
	assert_false(f.have & B(SA_LABELS));
	/* no address: names no connection */
	n = msg(m, "00050002 11000000 00080003 9c400035");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_INCOMPLETE));
	/* UDP without ports */
	n = msg(m, "000c0000 0a010101 0a020202 00050002 11000000");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_INCOMPLETE));
	/* the same attribute twice */
	n = msg(m, BASE " 00080007 00000001 00080007 00000002");
	assert_int_equal(sync_ct_decode(m, n, &f), -(1 + SYNC_RX_BAD_PAYLOAD));
}

static void test_framing(void **state)
{
	uint8_t d[64];
	struct sync_hdr h;

	(void)state;
	/* len 0 (T11) and len beyond the datagram (T12) */
	sync_hdr_put(d, SYNC_T_CTL, SYNC_F_ALIVE, 0, 1);
	assert_int_equal(sync_hdr_next(d, 20, 0, &h), -(1 + SYNC_RX_BAD_SIZE));
	sync_hdr_put(d, SYNC_T_CTL, SYNC_F_ALIVE, 200, 1);
	assert_int_equal(sync_hdr_next(d, 20, 0, &h), -(1 + SYNC_RX_BAD_SIZE));
	/* fewer than 8 bytes left */
	assert_int_equal(sync_hdr_next(d, 5, 0, &h), -(1 + SYNC_RX_TRUNCATED));
	/* an ACK needs 16 bytes: its len beyond the datagram, fewer bytes left, len too small */
	sync_ctl_put(d, SYNC_F_ACK, 7, 1, 2);
	assert_int_equal(sync_hdr_next(d, 12, 0, &h), -(1 + SYNC_RX_BAD_SIZE));
	d[3] = 8;
	assert_int_equal(sync_hdr_next(d, 12, 0, &h), -(1 + SYNC_RX_TRUNCATED));
	assert_int_equal(sync_hdr_next(d, 16, 0, &h), -(1 + SYNC_RX_BAD_SIZE));
	d[3] = 16;
	assert_int_equal(sync_hdr_next(d, 16, 0, &h), 16);
	assert_int_equal(h.from, 1);
	assert_int_equal(h.to, 2);
	assert_true(h.ctl_ext);
	/* two messages back to back: ALIVE then ACK */
	sync_ctl_put(d, SYNC_F_ALIVE, 9, 0, 0);
	sync_ctl_put(d + 8, SYNC_F_ACK, 10, 3, 4);
	assert_int_equal(sync_hdr_next(d, 24, 0, &h), 8);
	assert_int_equal(sync_hdr_next(d, 24, 8, &h), 16);
	assert_int_equal(sync_hdr_next(d, 24, 24, &h), 0);
}

/* Every prefix of a valid message: refused or read, never out of bounds (ASan watches). */
static void test_truncations(void **state)
{
	uint8_t full[256];
	size_t n = unhex(a2, full);

	(void)state;
	for (size_t k = 0; k <= n; k++) {
		uint8_t *m = malloc(k ? k : 1);
		struct sync_hdr h;
		struct sync_flow f;
		int r;

		memcpy(m, full, k);
		r = sync_hdr_next(m, k, 0, &h);
		if (k < n)
			assert_true(r <= 0);
		else
			assert_int_equal(sync_ct_decode(m, k, &f), 0);
		/* a message whose own len was cut to k: decode must stay inside it */
		if (k >= 8) {
			m[2] = (uint8_t)(k >> 8);
			m[3] = (uint8_t)k;
			r = sync_ct_decode(m, k, &f);
			assert_true(r <= 0);
		}
		free(m);
	}
}

/* pkttables' NAT mapping message: an IPv6 AD mapping read back as written; every shorter
 * length and every bad field refused. */
static void test_nat_mapping_message(void **state)
{
	uint8_t m[SYNC_MAP_MAX], c[SYNC_MAP_MAX];
	struct nat_map_state a, b;
	int n;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	a.l4proto = 17;
	a.mode = NAT_B_AD;
	a.zone = 3;
	pt_addr_parse("fd00::9", &a.int_addr);
	pt_addr_parse("2001:db8::1", &a.ext_addr);
	pt_addr_parse("2001:db8:5::7", &a.remote);
	a.int_port = 5060;
	a.ext_port = 40000;
	a.timeout = 300000000000ull;
	a.range.family = AF_INET6;
	a.range.min_addr = a.range.max_addr = a.ext_addr;
	a.range.flags = NAT_R_MAP_IPS | NAT_R_PROTO;
	a.range.min_port = 40000;
	a.range.max_port = 50000;
	a.range.mapping = NAT_B_AD;
	a.range.hairpin = NAT_HAIRPIN_OFF;
	n = sync_map_encode(m, sizeof(m), &a);
	assert_int_equal(n, 116);
	assert_int_equal(m[0], 0x16);
	assert_int_equal(sync_map_decode(m, (size_t)n, &b), 0);
	assert_memory_equal(&a.int_addr, &b.int_addr, sizeof(a.int_addr));
	assert_memory_equal(&a.remote, &b.remote, sizeof(a.remote));
	assert_memory_equal(&a.range, &b.range, sizeof(a.range));
	assert_int_equal(b.ext_port, 40000);
	assert_int_equal(b.zone, 3);
	assert_int_equal(b.timeout, a.timeout);
	assert_int_equal(sync_map_encode(m, 115, &a), -ENOSPC);
	for (int k = 0; k < n; k++)
		assert_true(sync_map_decode(m, (size_t)k, &b) < 0);
	{
		/* body offset, value: each refused */
		static const uint8_t bad[][2] = {
		    {0, 0},  {0, 2},  {1, 0},  {1, 5},	{1, 4}, /* IPv4 at the IPv6 length */
		    {3, 0},  {3, 3},  {18, 4}, {19, 4}, {20, 3},
		    {21, 3}, {22, 2}, {23, 1}, {25, 2}, /* 131372 s: over a day */
		};

		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memcpy(c, m, (size_t)n);
			c[8 + bad[i][0]] = bad[i][1];
			assert_true(sync_map_decode(c, (size_t)n, &b) < 0);
		}
		memcpy(c, m, (size_t)n);
		memset(c + 8 + 24, 0, 4); /* no timeout */
		assert_true(sync_map_decode(c, (size_t)n, &b) < 0);
		memcpy(c, m, (size_t)n);
		memset(c + 8 + 6, 0, 2); /* internal port 0 */
		assert_true(sync_map_decode(c, (size_t)n, &b) < 0);
	}
}

static void test_expectation_roundtrip(void **state)
{
	uint8_t m[SYNC_MSG_MAX];
	struct sync_exp x, y;
	int n;

	(void)state;
	memset(&x, 0, sizeof(x));
	ct_tuple_zero(&x.master);
	ct_tuple_zero(&x.expect);
	ct_tuple_zero(&x.mask);
	x.master.family = x.expect.family = AF_INET;
	pt_addr_parse("10.50.0.1", &x.master.src);
	pt_addr_parse("10.50.0.2", &x.master.dst);
	x.master.l4proto = x.expect.l4proto = x.mask.l4proto = 6;
	x.master.s.port = 34190;
	x.master.d.port = 21;
	x.expect.src = x.master.dst;
	x.expect.dst = x.master.src;
	x.expect.d.port = 10000;
	memset(x.mask.src.b, 0xff, 4);
	memset(x.mask.dst.b, 0xff, 4);
	x.mask.d.port = 0xffff;
	x.timeout = 300;
	x.have = 1u << SE_TIMEOUT | 1u << SE_CLASS;
	strcpy(x.helper, "ftp");
	n = sync_exp_encode(m, sizeof(m), SYNC_T_EXP_NEW, &x);
	assert_int_equal(n, 124); /* as A.7 */
	assert_int_equal(sync_exp_decode(m, (size_t)n, &y), 0);
	assert_int_equal(y.expect.d.port, 10000);
	assert_int_equal(y.timeout, 300);
	assert_string_equal(y.helper, "ftp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encode_matches_conntrackd),
	    cmocka_unit_test(test_decode_conntrackd),
	    cmocka_unit_test(test_icmp_id_swapped),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_framing),
	    cmocka_unit_test(test_truncations),
	    cmocka_unit_test(test_expectation_roundtrip),
	    cmocka_unit_test(test_nat_mapping_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
