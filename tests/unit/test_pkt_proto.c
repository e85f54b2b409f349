// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The protocol table (pkt/proto.h): ICMP errors and queries by type (RFC 792, 950, 4443), and
 * the table agreeing with the parser about which protocols carry ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "pkt/pkt.h"
#include "pkt/proto.h"

static void test_icmp_kinds(void **state)
{
	static const uint8_t err4[] = {3, 4, 5, 11, 12}, query4[] = {0, 8, 13, 14, 15, 16, 17, 18};
	unsigned nerr = 0, nquery = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(err4); i++)
		assert_true(pkt_icmp_is_error(IPPROTO_ICMP, err4[i]));
	for (size_t i = 0; i < sizeof(query4); i++)
		assert_true(pkt_icmp_has_id(IPPROTO_ICMP, query4[i]));
	for (unsigned t = 0; t < 256; t++) {
		nerr += pkt_icmp_is_error(IPPROTO_ICMP, (uint8_t)t);
		nquery += pkt_icmp_has_id(IPPROTO_ICMP, (uint8_t)t);
		assert_false(pkt_icmp_is_error(IPPROTO_ICMP, (uint8_t)t) &&
			     pkt_icmp_has_id(IPPROTO_ICMP, (uint8_t)t));
		/* ICMPv6: errors below 128, echo request/reply 128/129 the only queries */
		assert_int_equal(pkt_icmp_is_error(IPPROTO_ICMPV6, (uint8_t)t), t < 128);
		assert_int_equal(pkt_icmp_has_id(IPPROTO_ICMPV6, (uint8_t)t), t == 128 || t == 129);
		/* not ICMP: neither */
		assert_false(pkt_icmp_is_error(IPPROTO_UDP, (uint8_t)t));
		assert_false(pkt_icmp_has_id(IPPROTO_TCP, (uint8_t)t));
	}
	assert_int_equal(nerr, sizeof(err4));
	assert_int_equal(nquery, sizeof(query4));
}

/* For every protocol number: an IPv4 packet with 24 zero transport bytes parses with ports
 * exactly when the table says it has them, and a checksum offset lies within its header. */
static void test_table_agrees_with_parser(void **state)
{
	uint8_t b[44];
	unsigned with_ports = 0;

	(void)state;
	for (unsigned proto = 0; proto < 256; proto++) {
		const struct pkt_proto *pr = pkt_proto((uint8_t)proto);
		struct pkt *p;

		memset(b, 0, sizeof(b));
		b[0] = 0x45;
		b[3] = sizeof(b);
		b[8] = 64;
		b[9] = (uint8_t)proto;
		b[12] = 10, b[15] = 1, b[16] = 10, b[19] = 2;
		b[20 + 12] = 0x50; /* TCP: data offset 5 words */
		if (proto == IPPROTO_DCCP)
			b[20 + 4] = 3; /* data offset 3 words, short sequence numbers */
		else
			b[20 + 5] = 8; /* UDP, UDP-Lite: length (coverage) 8 */
		p = pkt_from_bytes(b, sizeof(b));
		assert_non_null(p);
		pkt_parse(p, PKT_LINK_RAW, false);
		if (p->info.has_l4)
			assert_int_equal(p->info.has_ports, pr->ports);
		with_ports += p->info.has_l4 && p->info.has_ports;
		if (pr->ports)
			assert_true(pr->tuple_ports && pr->flow_key && pr->flow_key_off == 0);
		if (pr->csum)
			assert_true(pr->csum_off + 2u <= 20u);
		assert_false(pr->ports && pr->icmp);
		pkt_free(p);
	}
	assert_int_equal(with_ports, 5); /* TCP, UDP, UDP-Lite, SCTP, DCCP */
	assert_true(pkt_proto(IPPROTO_GRE)->tuple_ports && !pkt_proto(IPPROTO_GRE)->ports);
	assert_true(pkt_proto(IPPROTO_AH)->flow_key && pkt_proto(IPPROTO_AH)->flow_key_off == 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_icmp_kinds),
	    cmocka_unit_test(test_table_agrees_with_parser),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
