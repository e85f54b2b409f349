// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Builder and text form: canonical lines survive text -> spec -> packet -> parse -> text
 * unchanged, built packets have the bytes the spec asks for, and errors name the token.
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
#include "pkt_test.h"

/* Canonical lines: printed back exactly as written. */
static const char *const canonical[] = {
    "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn len=0",
    "tcp [2001:db8::2]:1234 > [2001:db8::1]:80 syn,ack seq=100 ack=5 win=512 mss=1460 "
    "wscale=7 len=100",
    "tcp 10.0.0.2:1 > 10.0.0.3:2 fin,psh,ack,urg,ece,cwr urg=3 mss=536 sackok ts=1:2 "
    "wscale=14 len=1",
    "tcp 10.0.0.2:1 > 10.0.0.3:2 none tcpopt=hex:fe040102 len=0",
    "udp 10.0.0.2:5000 > 192.0.2.1:53 len=32 ttl=1 tos=0x10",
    "udp 10.0.0.2:5000 > 192.0.2.1:53 len=0 id=7 df ipopt=rr,ts,lsrr,ssrr,ra,nop",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=0 ipopt=hex:8804000001000000",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=3 nocsum",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=3 badsum",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=3 badipsum",
    "udplite [2001:db8::2]:1 > [2001:db8::1]:2 cov=12 len=20 flow=0x12345",
    "icmp 10.0.0.2 > 192.0.2.1 echo-request id=1 seq=1 len=0",
    "icmp6 2001:db8::2 > 2001:db8::1 echo-request len=0",
    "icmp 10.0.0.2 > 192.0.2.1 host-unreachable len=0",
    "icmp 10.0.0.2 > 192.0.2.1 fragmentation-needed mtu=1400 len=28",
    "icmp 10.0.0.2 > 192.0.2.1 parameter-problem code=2 ptr=20 len=0",
    "icmp 10.0.0.2 > 192.0.2.1 type=42 code=1 rest=0x01020304 len=0",
    "icmp6 2001:db8::2 > 2001:db8::1 packet-too-big mtu=1280 len=0",
    "icmp6 2001:db8::2 > 2001:db8::1 port-unreachable len=48",
    "gre 10.0.0.2 > 192.0.2.1 len=16 id=7 frag=off:185,mf",
    "gre 10.0.0.2 > 192.0.2.1 key=5 greproto=0x880b len=4",
    "sctp 10.0.0.2:1 > 10.0.0.3:2 init,data,cookie-echo vtag=77 len=0",
    "dccp [2001:db8::2]:1 > [2001:db8::1]:2 ack seq=5 ack=6 len=0",
    "dccp 10.0.0.2:1 > 10.0.0.3:2 request seq=1 len=4",
    "esp 2001:db8::2 > 2001:db8::1 spi=7 seq=9 len=16 ext=hop,dst",
    "ah 10.0.0.2 > 10.0.0.3 spi=1 seq=2 len=0",
    "proto=99 10.0.0.2 > 10.0.0.3 len=5 ttl=0",
    "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ack len=0 ext=hop,rt,frag,ah,dst",
    "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=8 id=99 frag=mf",
    "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=8 frag=off:0",
    "udp 2001:db8::2 > 2001:db8::1 len=8 id=3 frag=off:20 ext=hop,frag",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=0 eth",
    "udp 10.0.0.2:1 > 10.0.0.3:2 len=0 smac=00:11:22:33:44:55 dmac=66:77:88:99:aa:bb "
    "vlan=100",
    "tcp [::1]:1 > [::2]:2 rst len=0 eth vlan=10,20",
};

static void test_round_trip(void **state)
{
	char out[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
		struct pkt *p = pkt_test_build(canonical[i]), *q;
		int n;

		assert_int_equal(p->info.bad, PKT_OK);
		n = pkt_spec_format(p, out, sizeof(out));
		assert_int_equal(n, (int)strlen(out));
		if (strcmp(out, canonical[i]))
			fail_msg("\n  in:  %s\n  out: %s", canonical[i], out);
		/* and the printed line builds the same bytes */
		q = pkt_test_build(out);
		assert_int_equal(q->len, p->len);
		assert_memory_equal(pkt_linear_data(q), pkt_linear_data(p), p->len);
		pkt_free(q);
		pkt_free(p);
	}
}

/* Lines that are accepted but printed differently (defaults, aliases, key order). */
static void test_normalisation(void **state)
{
	static const char *const pairs[][2] = {
	    {"tcp 10.0.0.2:1 > 10.0.0.3:2", "tcp 10.0.0.2:1 > 10.0.0.3:2 none len=0"},
	    {"udp 10.0.0.2:5000 > 192.0.2.1:53 ttl=1 len=32 tos=16",
	     "udp 10.0.0.2:5000 > 192.0.2.1:53 len=32 ttl=1 tos=0x10"},
	    {"icmp 10.0.0.2 > 192.0.2.1 type=3 code=1",
	     "icmp 10.0.0.2 > 192.0.2.1 host-unreachable len=0"},
	    {"icmp 2001:db8::1 > 2001:db8::2 ping",
	     "icmp6 2001:db8::1 > 2001:db8::2 echo-request len=0"},
	    {"tcp 10.0.0.2:1 > 10.0.0.3:2 flags=ack,syn hlim=3 win=65535",
	     "tcp 10.0.0.2:1 > 10.0.0.3:2 syn,ack len=0 ttl=3"},
	    {"udp 10.0.0.2:1 > 10.0.0.3:2 payload=\"GET / HTTP/1.0\\r\\n\"",
	     "udp 10.0.0.2:1 > 10.0.0.3:2 len=16"},
	    {"udp 10.0.0.2:1 > 10.0.0.3:2 payload=hex:deadbeef len=6",
	     "udp 10.0.0.2:1 > 10.0.0.3:2 len=6"},
	};
	char out[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct pkt *p = pkt_test_build(pairs[i][0]);

		pkt_spec_format(p, out, sizeof(out));
		if (strcmp(out, pairs[i][1]))
			fail_msg("\n  in:   %s\n  want: %s\n  got:  %s", pairs[i][0], pairs[i][1],
				 out);
		pkt_free(p);
	}
}

static void test_payload_bytes(void **state)
{
	struct pkt *p =
	    pkt_test_build("udp 10.0.0.2:1 > 10.0.0.3:2 payload=\"a b\\x41\\\"\\r\\n\" len=8");
	static const uint8_t want[8] = {'a', ' ', 'b', 'A', '"', '\r', '\n', 0};
	uint8_t udp[8];

	(void)state;
	assert_int_equal(p->len, 20 + 8 + 8);
	assert_memory_equal(pkt_linear_data(p) + 28, want, 8);
	assert_int_equal(pkt_copy_out(p, 20, udp, 8), 0);
	assert_int_equal(udp[4] << 8 | udp[5], 16); /* UDP length */
	assert_true(pkt_l4_csum_ok(p));
	pkt_free(p);
}

static void test_builder_fields(void **state)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	struct pkt *p;
	const uint8_t *d;

	(void)state;
	pkt_spec_init(s);
	s->family = AF_INET;
	pt_addr_parse("10.0.0.1", &s->src);
	pt_addr_parse("10.0.0.2", &s->dst);
	s->proto = IPPROTO_TCP;
	s->sport = 1000;
	s->dport = 2000;
	s->tcp_flags = 0x02;
	s->seq = 0xdeadbeef;
	s->mss = 1460;
	s->df = true;
	s->ip_id = 0x4242;
	p = pkt_build(s);
	assert_non_null(p);
	d = pkt_linear_data(p);
	assert_int_equal(p->len, 20 + 24);
	assert_int_equal(d[0], 0x45);
	assert_int_equal(d[6], 0x40); /* DF */
	assert_int_equal(d[4] << 8 | d[5], 0x4242);
	assert_int_equal(d[8], 64);
	assert_int_equal(d[32], 6 << 4); /* data offset 24 bytes */
	assert_int_equal(d[40], 2);	 /* MSS option */
	assert_int_equal(d[42] << 8 | d[43], 1460);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_true(pkt_l4_csum_ok(p));
	pkt_free(p);

	/* inconsistent specs */
	s->family = 0;
	assert_null(pkt_build(s));
	assert_int_equal(errno, EINVAL);
	s->family = AF_INET6;
	s->ipopt_len = 4;
	assert_null(pkt_build(s));
	s->ipopt_len = 0;
	s->payload_len = 70000;
	assert_null(pkt_build(s));
	assert_int_equal(errno, EMSGSIZE);
	free(s);
}

static void test_errors_name_the_token(void **state)
{
	static const char *const cases[][2] = {
	    {"", "(empty)"},
	    {"tcpx 1.1.1.1:1 > 2.2.2.2:2", "tcpx:"},
	    {"tcp 1.1.1.1 > 2.2.2.2:2", "1.1.1.1:"},
	    {"tcp 1.1.1.1:1 < 2.2.2.2:2", "<:"},
	    {"tcp 1.1.1.1:1 > 2.2.2.2:2 bogus", "bogus:"},
	    {"tcp 1.1.1.1:1 > 2.2.2.2:2 mss=70000", "mss=70000:"},
	    {"tcp 1.1.1.1:1 > 2001:db8::1:2", "2001:db8::1:2:"},
	    {"tcp 1.1.1.1:99999 > 2.2.2.2:2", "1.1.1.1:99999:"},
	    {"icmp 1.1.1.1:5 > 2.2.2.2", "1.1.1.1:5:"},
	    {"icmp 1.1.1.1 > 2.2.2.2 echo-requestx", "echo-requestx:"},
	    {"icmp6 1.1.1.1 > 2.2.2.2", "1.1.1.1:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 payload=\"abc", "payload=\"abc:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 payload=hex:abc", "payload=hex:abc:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 frag=off:9000", "frag=off:9000:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 ipopt=xx", "ipopt=xx:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 ext=hop", "ext=hop:"},
	    {"udp [::1]:1 > [::2]:2 ext=hop,zz", "ext=hop,zz:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 vlan=4096", "vlan=4096:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 smac=00:11", "smac=00:11:"},
	    {"udp 1.1.1.1:1 > 2.2.2.2:2 payload=hex:0102 len=1", "len:"},
	    {"udp 1.1.1.1:1 > [::2]:2", "[::2]:2:"},
	    {"ah [::1] > [::2]", "[::1]:"},
	};
	struct pkt_spec *s = malloc(sizeof(*s));
	char err[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = pkt_spec_parse(cases[i][0], s, err, sizeof(err));

		if (ret != -EINVAL || strncmp(err, cases[i][1], strlen(cases[i][1])))
			fail_msg("'%s': ret %d, err '%s', want prefix '%s'", cases[i][0], ret, err,
				 cases[i][1]);
	}
	/* a tiny error buffer truncates but never overflows */
	assert_int_equal(pkt_spec_parse("bogus", s, err, 4), -EINVAL);
	assert_string_equal(err, "bog");
	assert_int_equal(pkt_spec_parse("bogus", s, NULL, 0), -EINVAL);
	free(s);
}

static void test_format_truncates_like_snprintf(void **state)
{
	struct pkt *p = pkt_test_build("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn len=0");
	char small[10];
	int n;

	(void)state;
	n = pkt_spec_format(p, small, sizeof(small));
	assert_int_equal(n, (int)strlen("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn len=0"));
	assert_string_equal(small, "tcp 10.0.");
	pkt_free(p);

	/* non-IP and broken packets still get a line */
	{
		static const uint8_t arp[14] = {[12] = 0x08, [13] = 0x06};
		char out[64];

		p = pkt_from_bytes(arp, sizeof(arp));
		pkt_parse(p, PKT_LINK_ETHERNET, false);
		pkt_spec_format(p, out, sizeof(out));
		assert_string_equal(out, "l2proto=0x0806 len=14");
		pkt_free(p);
		p = pkt_from_bytes(arp, 5);
		pkt_parse(p, PKT_LINK_ETHERNET, false);
		pkt_spec_format(p, out, sizeof(out));
		assert_string_equal(out, "bad=l2-trunc len=5");
		pkt_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_normalisation),
	    cmocka_unit_test(test_payload_bytes),
	    cmocka_unit_test(test_builder_fields),
	    cmocka_unit_test(test_errors_name_the_token),
	    cmocka_unit_test(test_format_truncates_like_snprintf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
