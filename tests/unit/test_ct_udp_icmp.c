// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP, ICMP/ICMPv6 and generic tracking: timeouts to the nanosecond, assured streams, echo
 * tracking, errors RELATED to the connection they quote, forged errors INVALID.
 */
#include "ct_test.h"

#define UOUT "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20"
#define UIN "udp 192.0.2.1:53 > 10.0.0.2:5000 len=40"

static void test_udp_unreplied_dies_at_30s(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, UOUT, S(10)), CT_STATE_NEW);
	/* more packets in the same direction stay NEW until a reply */
	assert_int_equal(ct_test_feed(t, UOUT, S(10)), CT_STATE_NEW);
	e = ct_test_find(t, UOUT, S(10));
	assert_non_null(e);
	assert_string_equal(ct_test_line(e, S(10), line, sizeof(line)),
			    "udp      17 30 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 "
			    "[UNREPLIED] src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=0 "
			    "use=1");
	assert_non_null(ct_test_find(t, UOUT, S(40) - 1));
	assert_null(ct_test_find(t, UOUT, S(40)));
	assert_int_equal(ct_table_stats(t)->expired, 1);
	assert_int_equal(ct_table_stats(t)->count, 0);
	/* a packet after expiry starts a new connection */
	assert_int_equal(ct_test_feed(t, UOUT, S(40)), CT_STATE_NEW);
	ct_table_free(t);
}

static void test_udp_assured_dies_at_120s(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_result r;
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, UOUT, 0), CT_STATE_NEW);
	ct_test_feed_r(t, UIN, S(1), &r);
	assert_int_equal(r.state, CT_STATE_ESTABLISHED);
	assert_int_equal(r.ctinfo, CT_ESTABLISHED_REPLY);
	e = ct_test_find(t, UOUT, S(1));
	/* replied within 2 s of creation: still the short timeout, not assured */
	assert_int_equal(ct_entry_expires_in(e, S(1)), S(30));
	assert_false(ct_entry_status(e) & CT_S_ASSURED);
	ct_test_feed_r(t, UOUT, S(3), &r);
	assert_int_equal(r.ctinfo, CT_ESTABLISHED);
	assert_true(ct_entry_status(e) & CT_S_ASSURED);
	assert_string_equal(ct_test_line(e, S(3), line, sizeof(line)),
			    "udp      17 120 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 "
			    "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 [ASSURED] mark=0 use=1");
	assert_non_null(ct_test_find(t, UOUT, S(123) - 1));
	assert_null(ct_test_find(t, UOUT, S(123)));
	ct_table_free(t);
}

static void test_udp_bad_checksum_invalid(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(ct_test_feed(t, UOUT " badsum", 0), CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

static void test_udp_bad_length_invalid(void **state)
{
	struct ct_table *t = ct_test_table(64);
	static const uint16_t lens[] = { 7, 29, 0 };
	struct ct_config c = *ct_table_config(t);

	c.checksum = false; /* the length check alone */
	ct_table_set_config(t, &c);

	for (unsigned i = 0; i < 3; i++) {
		struct pkt *p = ct_test_pkt(UOUT);
		uint8_t l[2] = { (uint8_t)(lens[i] >> 8), (uint8_t)lens[i] };

		/* header says 7 / 29 / 0 bytes, the datagram has 28; checksum made valid again */
		assert_int_equal(pkt_store(p, p->info.l4off + 4, l, 2), 0);
		pkt_l4_csum_update(p);
		assert_int_equal(ct_in(t, p, true, 0, 0), 0);
		assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
		pkt_free(p);
	}
	assert_int_equal(ct_table_stats(t)->count + ct_table_stats(t)->unconfirmed, 0);
	ct_table_free(t);
}

static void test_udp_ipv6_same_code(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, "udp [2001:db8::2]:5000 > [2001:db8::53]:53 len=8", 0),
			 CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "udp [2001:db8::53]:53 > [2001:db8::2]:5000 len=8", 0),
			 CT_STATE_ESTABLISHED);
	e = ct_test_find(t, "udp [2001:db8::2]:5000 > [2001:db8::53]:53 len=8", 0);
	assert_string_equal(ct_test_line(e, 0, line, sizeof(line)),
			    "udp      17 30 src=2001:db8::2 dst=2001:db8::53 sport=5000 dport=53 "
			    "src=2001:db8::53 dst=2001:db8::2 sport=53 dport=5000 mark=0 use=1");
	/* the IPv4 flow with the "same" low bytes is a different entry */
	assert_int_equal(ct_test_feed(t, UOUT, 0), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 2);
	ct_table_free(t);
}

static void test_icmp_echo(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, "icmp 10.0.0.2 > 192.0.2.1 echo-request id=77 seq=1", 0),
			 CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "icmp 192.0.2.1 > 10.0.0.2 echo-reply id=77 seq=1", 0),
			 CT_STATE_ESTABLISHED);
	e = ct_test_find(t, "icmp 10.0.0.2 > 192.0.2.1 echo-request id=77 seq=2", 0);
	assert_non_null(e);
	assert_string_equal(ct_test_line(e, 0, line, sizeof(line)),
			    "icmp     1 30 src=10.0.0.2 dst=192.0.2.1 type=8 code=0 id=77 "
			    "src=192.0.2.1 dst=10.0.0.2 type=0 code=0 id=77 mark=0 use=1");
	/* another id is another connection; a reply nobody asked for is INVALID */
	assert_int_equal(ct_test_feed(t, "icmp 10.0.0.2 > 192.0.2.1 echo-request id=78", 0),
			 CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "icmp 192.0.2.1 > 10.0.0.2 echo-reply id=99", 0),
			 CT_STATE_INVALID);
	/* types that are neither queries nor errors do not start connections */
	assert_int_equal(ct_test_feed(t, "icmp 10.0.0.2 > 192.0.2.1 type=9", 0),
			 CT_STATE_INVALID);
	assert_null(ct_test_find(t, "icmp 10.0.0.2 > 192.0.2.1 echo-request id=77", S(30)));
	ct_table_free(t);
}

/* Text of an ICMP error `head` quoting the first `n` bytes of the packet `inner`. */
static const char *error_text(char *buf, size_t len, const char *head, const char *inner,
			      unsigned n)
{
	struct pkt *p = ct_test_pkt(inner);
	uint8_t b[128];
	int off;

	assert_true(n <= p->len && n <= sizeof(b));
	assert_int_equal(pkt_copy_out(p, 0, b, n), 0);
	off = snprintf(buf, len, "%s payload=hex:", head);
	for (unsigned i = 0; i < n; i++)
		off += snprintf(buf + off, len - (size_t)off, "%02x", b[i]);
	pkt_free(p);
	return buf;
}

static void test_icmp_error_related(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_result r;
	char txt[512];

	assert_int_equal(ct_test_feed(t, UOUT, 0), CT_STATE_NEW);
	/* a router on the way says the port is unreachable, back to the sender */
	ct_test_feed_r(t, error_text(txt, sizeof(txt),
				     "icmp 198.51.100.1 > 10.0.0.2 port-unreachable", UOUT, 28),
		       S(1), &r);
	assert_int_equal(r.state, CT_STATE_RELATED);
	assert_int_equal(r.ctinfo, CT_RELATED_REPLY);
	/* an error about the server's reply, sent toward the server: RELATED, original dir */
	ct_test_feed_r(t, error_text(txt, sizeof(txt),
				     "icmp 10.0.0.2 > 192.0.2.1 port-unreachable", UIN, 28),
		       S(1), &r);
	assert_int_equal(r.state, CT_STATE_RELATED);
	assert_int_equal(r.ctinfo, CT_RELATED);
	/* errors create nothing and do not refresh the connection */
	assert_int_equal(ct_table_stats(t)->count, 1);
	assert_null(ct_test_find(t, UOUT, S(30)));
	ct_table_free(t);
}

static void test_icmp_error_forged_invalid(void **state)
{
	struct ct_table *t = ct_test_table(64);
	char txt[512];

	assert_int_equal(ct_test_feed(t, UOUT, 0), CT_STATE_NEW);
	/* names a connection that does not exist (other port) */
	assert_int_equal(ct_test_feed(t, error_text(txt, sizeof(txt),
						    "icmp 198.51.100.1 > 10.0.0.2 port-unreachable",
						    "udp 10.0.0.2:5001 > 192.0.2.1:53 len=20", 28),
				      0),
			 CT_STATE_INVALID);
	/* names the connection but is not addressed to the quoted datagram's sender */
	assert_int_equal(ct_test_feed(t, error_text(txt, sizeof(txt),
						    "icmp 198.51.100.1 > 10.0.0.9 port-unreachable",
						    UOUT, 28),
				      0),
			 CT_STATE_INVALID);
	/* quotes too little of the datagram to name its ports */
	assert_int_equal(ct_test_feed(t, error_text(txt, sizeof(txt),
						    "icmp 198.51.100.1 > 10.0.0.2 port-unreachable",
						    UOUT, 22),
				      0),
			 CT_STATE_INVALID);
	/* an error quoting an error */
	assert_int_equal(
		ct_test_feed(t, error_text(txt, sizeof(txt),
					   "icmp 198.51.100.1 > 10.0.0.2 host-unreachable",
					   "icmp 10.0.0.2 > 192.0.2.1 port-unreachable len=28", 28),
			     0),
		CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 1);
	ct_table_free(t);
}

static void test_icmp_error_for_tcp(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_result r;
	char txt[512];

	assert_int_equal(ct_test_feed(t, "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=1 win=100", 0),
			 CT_STATE_NEW);
	ct_test_feed_r(t, error_text(txt, sizeof(txt),
				     "icmp 192.0.2.1 > 10.0.0.2 fragmentation-needed mtu=1400",
				     "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=1 win=100", 28),
		       0, &r);
	assert_int_equal(r.state, CT_STATE_RELATED);
	ct_table_free(t);
}

static void test_icmpv6(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_result r;
	struct ct_entry *e;
	char txt[512], line[512];

	assert_int_equal(ct_test_feed(t, "icmp6 2001:db8::2 > 2001:db8::1 echo-request id=5", 0),
			 CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "icmp6 2001:db8::1 > 2001:db8::2 echo-reply id=5", 0),
			 CT_STATE_ESTABLISHED);
	e = ct_test_find(t, "icmp6 2001:db8::2 > 2001:db8::1 echo-request id=5", 0);
	assert_string_equal(ct_test_line(e, 0, line, sizeof(line)),
			    "icmpv6   58 30 src=2001:db8::2 dst=2001:db8::1 type=128 code=0 id=5 "
			    "src=2001:db8::1 dst=2001:db8::2 type=129 code=0 id=5 mark=0 use=1");
	/* an error RELATED to a UDP flow, through the same code as IPv4 */
	assert_int_equal(ct_test_feed(t, "udp [2001:db8::2]:5000 > [2001:db8::53]:53 len=8", 0),
			 CT_STATE_NEW);
	ct_test_feed_r(t, error_text(txt, sizeof(txt),
				     "icmp6 2001:db8::53 > 2001:db8::2 port-unreachable",
				     "udp [2001:db8::2]:5000 > [2001:db8::53]:53 len=8", 48),
		       0, &r);
	assert_int_equal(r.state, CT_STATE_RELATED);
	assert_int_equal(r.ctinfo, CT_RELATED_REPLY);
	assert_int_equal(ct_test_feed(t, error_text(txt, sizeof(txt),
						    "icmp6 2001:db8::53 > 2001:db8::2 port-unreachable",
						    "udp [2001:db8::2]:5999 > [2001:db8::53]:53 len=8",
						    48),
				      0),
			 CT_STATE_INVALID);
	/* neighbour discovery is never tracked */
	assert_int_equal(ct_test_feed(t, "icmp6 fe80::1 > ff02::1:ff00:2 neighbour-solicitation "
					 "hlim=255",
				      0),
			 CT_STATE_UNTRACKED);
	assert_int_equal(ct_table_stats(t)->count, 2);
	ct_table_free(t);
}

static void test_generic(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, "esp 10.0.0.2 > 192.0.2.1", 0), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "esp 192.0.2.1 > 10.0.0.2", S(1)), CT_STATE_ESTABLISHED);
	e = ct_test_find(t, "esp 10.0.0.2 > 192.0.2.1", S(1));
	assert_string_equal(ct_test_line(e, S(1), line, sizeof(line)),
			    "unknown  50 600 src=10.0.0.2 dst=192.0.2.1 src=192.0.2.1 dst=10.0.0.2 "
			    "mark=0 use=1");
	assert_null(ct_test_find(t, "esp 10.0.0.2 > 192.0.2.1", S(601)));
	ct_table_free(t);
}

static void test_fragments_invalid_without_defrag(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20 frag=mf", 0),
			 CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_unreplied_dies_at_30s),
		cmocka_unit_test(test_udp_assured_dies_at_120s),
		cmocka_unit_test(test_udp_bad_checksum_invalid),
		cmocka_unit_test(test_udp_bad_length_invalid),
		cmocka_unit_test(test_udp_ipv6_same_code),
		cmocka_unit_test(test_icmp_echo),
		cmocka_unit_test(test_icmp_error_related),
		cmocka_unit_test(test_icmp_error_forged_invalid),
		cmocka_unit_test(test_icmp_error_for_tcp),
		cmocka_unit_test(test_icmpv6),
		cmocka_unit_test(test_generic),
		cmocka_unit_test(test_fragments_invalid_without_defrag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
