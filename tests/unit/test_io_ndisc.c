// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ARP and NS/NA frames of live mode: what is built parses back to the same message; RFC 4861
 * 7.1 refusals (hop limit, checksum); frames that are neither are left to the box.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "io/ndisc.h"

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 0xa}, mac_b[6] = {2, 0, 0, 0, 0, 0xb};

static void test_arp_round_trip(void **state)
{
	uint8_t f[NDISC_FRAME_MAX];
	union pt_addr s = {0}, t = {0};
	struct ndisc_msg m;
	size_t n;

	pt_addr_parse("192.0.2.1", &s);
	pt_addr_parse("192.0.2.2", &t);
	n = ndisc_build_arp(f, NDISC_REQUEST, mac_a, &s, NULL, &t);
	assert_int_equal(n, 60);
	assert_memory_equal(f, "\xff\xff\xff\xff\xff\xff", 6);
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), 0);
	assert_int_equal(m.family, AF_INET);
	assert_int_equal(m.op, NDISC_REQUEST);
	assert_true(pt_addr_eq(&m.sender, &s));
	assert_true(pt_addr_eq(&m.target, &t));
	assert_memory_equal(m.lladdr, mac_a, 6);

	n = ndisc_build_arp(f, NDISC_REPLY, mac_b, &t, mac_a, &s);
	assert_memory_equal(f, mac_a, 6);
	assert_memory_equal(f + 14 + 18, mac_a, 6); /* tha */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), 0);
	assert_int_equal(m.op, NDISC_REPLY);
	assert_memory_equal(m.lladdr, mac_b, 6);
	assert_int_equal(ndisc_parse(f, 14 + 20, &m), -EBADMSG); /* cut short */
}

static void test_ns_na_round_trip(void **state)
{
	uint8_t f[NDISC_FRAME_MAX];
	union pt_addr s = {0}, t = {0};
	struct ndisc_msg m;
	size_t n;

	pt_addr_parse("2001:db8::1", &s);
	pt_addr_parse("2001:db8::2:3", &t);
	n = ndisc_build_ns(f, mac_a, &s, &t, NULL);
	assert_int_equal(n, 86);
	assert_memory_equal(f, "\x33\x33\xff\x02\x00\x03", 6); /* solicited-node group */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), 0);
	assert_int_equal(m.family, AF_INET6);
	assert_int_equal(m.op, NDISC_REQUEST);
	assert_true(pt_addr_eq(&m.target, &t));
	assert_true(m.has_lladdr);
	assert_memory_equal(m.lladdr, mac_a, 6);
	assert_int_equal(m.dst.b[0], 0xff);

	n = ndisc_build_na(f, mac_b, &t, &s, mac_a, true, true);
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), 0);
	assert_int_equal(m.op, NDISC_REPLY);
	assert_true(m.solicited);
	assert_true(m.override);
	assert_true(pt_addr_eq(&m.sender, &t));
	assert_memory_equal(m.lladdr, mac_b, 6);

	f[14 + 7] = 64; /* hop limit: not from the link */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), -EBADMSG);
	f[14 + 7] = 255;
	f[14 + 40 + 10] ^= 1; /* target changed: checksum wrong */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), -EBADMSG);
}

static void test_other_frames_pass(void **state)
{
	uint8_t f[NDISC_FRAME_MAX];
	union pt_addr s = {0}, t = {0};
	struct ndisc_msg m;
	size_t n;

	pt_addr_parse("2001:db8::1", &s);
	pt_addr_parse("2001:db8::2", &t);
	n = ndisc_build_ns(f, mac_a, &s, &t, mac_b);
	f[14 + 40] = 128; /* an echo request is the box's business */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), -ENOENT);
	f[12] = 0x08;
	f[13] = 0x00; /* IPv4 */
	assert_int_equal(ndisc_parse(f, (uint32_t)n, &m), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_arp_round_trip),
	    cmocka_unit_test(test_ns_na_round_trip),
	    cmocka_unit_test(test_other_frames_pass),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
