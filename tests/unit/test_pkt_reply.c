// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * REJECT's answers: RST sequence numbers per RFC 793's reset rules, ICMP/ICMPv6 errors with
 * the quote the RFCs allow, and the cases where no answer may be sent.
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

#include "pkt/build.h"
#include "pkt_test.h"
#include "pkt/reply.h"

static void assert_line(const struct pkt *p, const char *want)
{
	char out[512];

	pkt_spec_format(p, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("\n  want: %s\n  got:  %s", want, out);
}

static uint32_t rd32(const struct pkt *p, uint32_t off)
{
	uint8_t b[4];

	assert_int_equal(pkt_copy_out(p, off, b, 4), 0);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void test_rst_to_syn(void **state)
{
	struct pkt *o = pkt_test_build("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=1000 mss=1460");
	struct pkt *r;

	(void)state;
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), 0);
	/* no ACK in the offender: seq 0, ACK of SEG.SEQ + 1 (the SYN) */
	assert_line(r, "tcp 192.0.2.1:80 > 10.0.0.2:1234 rst,ack ack=1001 win=0 len=0 df");
	assert_true(pkt_l4_csum_ok(r));
	pkt_free(r);
	pkt_free(o);
}

static void test_rst_to_ack_and_fin(void **state)
{
	struct pkt *o =
	    pkt_test_build("tcp [2001:db8::2]:1 > [2001:db8::1]:2 psh,ack seq=5 ack=777 "
			   "len=10 tos=0x20");
	struct pkt *r;

	(void)state;
	/* ACK present: seq = SEG.ACK, no ACK flag */
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), 0);
	assert_line(r, "tcp [2001:db8::1]:2 > [2001:db8::2]:1 rst seq=777 win=0 len=0 tos=0x20");
	pkt_free(r);
	pkt_free(o);

	/* FIN without ACK carrying 10 bytes: SEG.LEN counts the data and the FIN */
	o = pkt_test_build("tcp 10.0.0.2:1 > 10.0.0.3:2 fin seq=4294967290 len=10");
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), 0);
	assert_int_equal(rd32(r, 20 + 8), 5u); /* wraps around 2^32 */
	pkt_free(r);
	pkt_free(o);
}

static void test_rst_refusals(void **state)
{
	struct pkt *o, *r = (struct pkt *)1;
	struct pkt_reply_opts opts = {.check_csum = true};

	(void)state;
	o = pkt_test_build("tcp 10.0.0.2:1 > 10.0.0.3:2 rst,ack");
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), -EPERM);
	assert_null(r);
	pkt_free(o);
	o = pkt_test_build("udp 10.0.0.2:1 > 10.0.0.3:2");
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), -EINVAL);
	pkt_free(o);
	o = pkt_test_build("tcp 10.0.0.2:1 > 10.0.0.3:2 frag=off:4 len=8");
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), -EINVAL);
	pkt_free(o);
	o = pkt_test_build("tcp 10.0.0.2:1 > 10.0.0.3:2 syn badsum");
	assert_int_equal(pkt_reply_tcp_rst(o, &opts, &r), -EBADMSG);
	assert_int_equal(pkt_reply_tcp_rst(o, NULL, &r), 0);
	pkt_free(r);
	pkt_free(o);
}

static void test_rst_on_ethernet(void **state)
{
	struct pkt *o = pkt_test_build("tcp 10.0.0.2:1 > 10.0.0.3:2 syn smac=00:11:22:33:44:55 "
				       "dmac=66:77:88:99:aa:bb vlan=10,20");
	struct pkt_reply_opts opts = {.eth = true, .ttl = 9};
	struct pkt *r;

	(void)state;
	assert_int_equal(pkt_reply_tcp_rst(o, &opts, &r), 0);
	assert_line(r, "tcp 10.0.0.3:2 > 10.0.0.2:1 rst,ack ack=1 win=0 len=0 ttl=9 df "
		       "smac=66:77:88:99:aa:bb dmac=00:11:22:33:44:55 vlan=10,20");
	pkt_free(r);
	pkt_free(o);
}

static void test_icmp_port_unreachable_quotes_datagram(void **state)
{
	struct pkt *o = pkt_test_build("udp 10.0.0.2:5000 > 192.0.2.1:53 len=12 tos=0x10");
	union pt_addr me;
	struct pkt_reply_opts opts = {.src = &me};
	struct pkt *r;

	(void)state;
	pt_addr_parse("198.51.100.1", &me);
	assert_int_equal(pkt_reply_icmp(o, 3, 3, 0, &opts, &r), 0);
	assert_line(r, "icmp 198.51.100.1 > 10.0.0.2 port-unreachable len=40 tos=0xd0");
	assert_int_equal(r->len, 20 + 8 + o->len);
	assert_memory_equal(pkt_linear_data(r) + 28, pkt_linear_data(o), o->len);
	assert_true(pkt_l4_csum_ok(r));
	pkt_free(r);
	pkt_free(o);
}

static void test_icmp_quote_limits(void **state)
{
	struct pkt *o = pkt_test_build("udp 10.0.0.2:1 > 10.0.0.3:2 len=1000");
	struct pkt *r;

	(void)state;
	assert_int_equal(pkt_reply_icmp(o, 3, 4, 1400, NULL, &r), 0);
	assert_int_equal(r->len, 576); /* RFC 1812 */
	assert_memory_equal(pkt_linear_data(r) + 28, pkt_linear_data(o), 576 - 28);
	assert_line(r, "icmp 10.0.0.3 > 10.0.0.2 fragmentation-needed mtu=1400 len=548 tos=0xc0");
	pkt_free(r);
	pkt_free(o);

	o = pkt_test_build("udp [2001:db8::2]:1 > [2001:db8::1]:2 len=2000");
	assert_int_equal(pkt_reply_icmp(o, 1, 4, 0, NULL, &r), 0);
	assert_int_equal(r->len, 1280); /* RFC 4443 */
	assert_memory_equal(pkt_linear_data(r) + 48, pkt_linear_data(o), 1280 - 48);
	assert_line(r, "icmp6 2001:db8::1 > 2001:db8::2 port-unreachable len=1232");
	assert_true(pkt_l4_csum_ok(r));
	pkt_free(r);
	pkt_free(o);
}

/* When no error may be sent (RFC 1122 3.2.2, RFC 1812 4.3.2.7, RFC 4443 2.4(e)). */
static void test_icmp_refusals(void **state)
{
	static const struct {
		const char *text;
		uint8_t type, code;
		int ret;
	} cases[] = {
	    {"icmp 10.0.0.2 > 10.0.0.3 port-unreachable", 3, 3, -EPERM},
	    {"icmp 10.0.0.2 > 10.0.0.3 time-exceeded", 3, 3, -EPERM},
	    {"icmp 10.0.0.2 > 10.0.0.3 echo-request", 3, 3, 0},
	    {"udp 10.0.0.2:1 > 10.0.0.3:2 frag=off:8 len=8", 3, 3, -EPERM},
	    {"udp 10.0.0.2:1 > 10.0.0.3:2 frag=mf len=8", 3, 3, 0},
	    {"udp 10.0.0.2:1 > 224.0.0.251:5353", 3, 3, -EPERM},
	    {"udp 10.0.0.2:1 > 255.255.255.255:67", 3, 3, -EPERM},
	    {"udp 0.0.0.0:68 > 10.0.0.1:67", 3, 3, -EPERM},
	    {"icmp6 2001:db8::2 > 2001:db8::1 packet-too-big", 1, 4, -EPERM},
	    {"icmp6 2001:db8::2 > 2001:db8::1 redirect", 1, 4, -EPERM},
	    {"icmp6 2001:db8::2 > 2001:db8::1 echo-request", 1, 4, 0},
	    {"udp [2001:db8::2]:1 > [ff02::1]:2", 1, 4, -EPERM},
	    {"udp [2001:db8::2]:1 > [ff02::1]:2", 2, 0, 0},
	    {"udp [2001:db8::2]:1 > [ff02::1]:2", 4, 2, 0},
	    {"udp [::]:1 > [2001:db8::1]:2", 1, 4, -EPERM},
	    {"udp [ff02::1]:1 > [2001:db8::1]:2", 1, 4, -EPERM},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pkt *o = pkt_test_build(cases[i].text), *r;
		int ret = pkt_reply_icmp(o, cases[i].type, cases[i].code, 0, NULL, &r);

		if (ret != cases[i].ret)
			fail_msg("%s: got %d, want %d", cases[i].text, ret, cases[i].ret);
		if (!ret) {
			assert_int_equal(r->info.bad, PKT_OK);
			assert_int_equal(r->info.icmp_type, cases[i].type);
			pkt_free(r);
		} else {
			assert_null(r);
		}
		pkt_free(o);
	}
}

static void test_icmp_check_csum(void **state)
{
	struct pkt *o = pkt_test_build("udp 10.0.0.2:1 > 10.0.0.3:2 len=4 badsum"), *r;
	struct pkt_reply_opts opts = {.check_csum = true};

	(void)state;
	assert_int_equal(pkt_reply_icmp(o, 3, 3, 0, &opts, &r), -EBADMSG);
	assert_int_equal(pkt_reply_icmp(o, 3, 3, 0, NULL, &r), 0);
	pkt_free(r);
	pkt_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rst_to_syn),
	    cmocka_unit_test(test_rst_to_ack_and_fin),
	    cmocka_unit_test(test_rst_refusals),
	    cmocka_unit_test(test_rst_on_ethernet),
	    cmocka_unit_test(test_icmp_port_unreachable_quotes_datagram),
	    cmocka_unit_test(test_icmp_quote_limits),
	    cmocka_unit_test(test_icmp_refusals),
	    cmocka_unit_test(test_icmp_check_csum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
