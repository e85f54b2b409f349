// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers and expectations, driven directly on a table: FTP active/passive over IPv4, EPRT and
 * EPSV over IPv6, data connections RELATED with the master linked, unrelated ones NEW,
 * expectation timeout, max_expected, teardown with the master, a PORT split across segments
 * (dropped, as Linux drops it), TFTP, IRC DCC, events and the listing.
 */
#include "ct_test.h"

#include "ct/expect.h"
#include "ct/helper.h"

/* One packet through tracking, the helper (INPUT/POSTROUTING 300) and confirmation. */
struct fed {
	unsigned state, ctinfo;
	int helper; /* ct_helper_run: < 0 dropped */
	const char *why;
};

static struct fed feed_h(struct ct_table *t, const char *text, const struct ct_helper *h,
			 uint64_t now)
{
	struct pkt *p = ct_test_pkt(text);
	struct fed f = {0};

	if (h)
		ct_pkt_set_helper(p, h);
	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	f.state = ct_pkt_state(p);
	f.ctinfo = ct_pkt_ctinfo(p);
	f.helper = ct_helper_run(t, p, now, &f.why);
	if (f.helper == 0)
		ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	return f;
}

static unsigned feed(struct ct_table *t, const char *text, uint64_t now)
{
	struct fed f = feed_h(t, text, NULL, now);

	assert_int_equal(f.helper, 0);
	return f.state;
}

static unsigned nexp(struct ct_table *t)
{
	struct ct_expect_stats s;

	ct_expect_stats(t, &s);
	return s.count;
}

/* The segment `text` cut into `chunk`-byte segments (a non-linear packet), through conntrack
 * and its helper (the one the connection has); the helper must not drop it. */
static void feed_split(struct ct_table *t, const char *text, uint32_t chunk, uint64_t now)
{
	struct pkt *lin = ct_test_pkt(text), *p;
	const char *why;

	p = pkt_from_bytes_split(pkt_linear_data(lin), lin->len, chunk);
	assert_non_null(p);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	assert_int_equal(ct_helper_run(t, p, now, &why), 0);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	pkt_free(lin);
}

/* ---- FTP over IPv4 ----------------------------------------------------------------------- */

#define C4 "10.0.0.2:40000"
#define S4 "192.0.2.1:21"
#define CS "tcp " C4 " > " S4
#define SC "tcp " S4 " > " C4

/* Handshake with the ftp helper, banner and USER: afterwards the client sends at seq 1009,
 * the server at 5012. */
static struct ct_entry *ftp4_login(struct ct_table *t, uint64_t now)
{
	struct fed f = feed_h(t, CS " syn seq=1000", &ct_helper_ftp, now);

	assert_int_equal(f.state, CT_STATE_NEW);
	assert_int_equal(feed(t, SC " syn,ack seq=5000 ack=1001", now), CT_STATE_ESTABLISHED);
	assert_int_equal(feed(t, CS " ack seq=1001 ack=5001", now), CT_STATE_ESTABLISHED);
	feed(t, SC " ack,psh seq=5001 ack=1001 payload=\"220 ready\\r\\n\"", now);
	feed(t, CS " ack,psh seq=1001 ack=5012 payload=\"USER a\\r\\n\"", now);
	assert_int_equal(nexp(t), 0);
	return ct_test_find(t, CS " ack", now);
}

static void test_ftp_active_port(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *m = ftp4_login(t, 0), *d;
	struct fed f;

	assert_non_null(m);
	assert_ptr_equal(ct_entry_helper(m), &ct_helper_ftp);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 1);
	/* an unrelated host to the same port is not expected */
	assert_int_equal(feed(t, "tcp 198.51.100.9:20 > 10.0.0.2:5001 syn", S(2)), CT_STATE_NEW);
	/* the server's data connection, from any port */
	f = feed_h(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn seq=7000", NULL, S(2));
	assert_int_equal(f.state, CT_STATE_RELATED);
	assert_int_equal(f.ctinfo, CT_RELATED);
	d = ct_test_find(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(2));
	assert_non_null(d);
	assert_ptr_equal(ct_entry_master(d), m);
	assert_true(ct_entry_status(d) & CT_S_EXPECTED);
	assert_null(ct_entry_helper(d));
	assert_int_equal(nexp(t), 0); /* consumed */
	/* retransmitted SYN: still RELATED until the reply */
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn seq=7000", S(3)),
			 CT_STATE_RELATED);
	assert_int_equal(
	    feed(t, "tcp 10.0.0.2:5001 > 192.0.2.1:20 syn,ack seq=9000 ack=7001", S(3)),
	    CT_STATE_ESTABLISHED);
	/* consumed: a second connection from the server is not expected */
	assert_int_equal(feed(t, "tcp 192.0.2.1:21000 > 10.0.0.2:5001 syn", S(4)), CT_STATE_NEW);
	ct_table_free(t);
}

static void test_ftp_passive_pasv(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *m = ftp4_login(t, 0);

	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PASV\\r\\n\"", S(1));
	feed(t,
	     SC " ack,psh seq=5012 ack=1015 payload=\"227 Entering Passive Mode "
		"(192,0,2,1,78,52).\\r\\n\"",
	     S(1));
	assert_int_equal(nexp(t), 1);
	assert_int_equal(feed(t, "tcp 10.0.0.2:40001 > 192.0.2.1:20021 syn", S(2)), CT_STATE_NEW);
	assert_int_equal(feed(t, "tcp 10.0.0.2:40001 > 192.0.2.1:20020 syn", S(2)),
			 CT_STATE_RELATED);
	assert_ptr_equal(
	    ct_entry_master(ct_test_find(t, "tcp 10.0.0.2:40001 > 192.0.2.1:20020", S(2))), m);
	ct_table_free(t);
}

static void test_ftp_case_and_foreign_address(void **state)
{
	struct ct_table *t = ct_test_table(64);

	ftp4_login(t, 0);
	/* a PORT naming another host is not expected (Linux's loose=0) */
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"port 10,0,0,3,19,137\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 0);
	/* lower case is a command too */
	feed(t, CS " ack,psh seq=1031 ack=5012 payload=\"port 10,0,0,2,19,138\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 1);
	ct_table_free(t);
}

static void test_ftp_first_line_not_parsed(void **state)
{
	struct ct_table *t = ct_test_table(64);

	feed_h(t, CS " syn seq=1000", &ct_helper_ftp, 0);
	feed(t, SC " syn,ack seq=5000 ack=1001", 0);
	feed(t, CS " ack seq=1001 ack=5001", 0);
	/* no line seen before in that direction: the kernel does not look at it */
	feed(t, CS " ack,psh seq=1001 ack=5001 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", 0);
	assert_int_equal(nexp(t), 0);
	ct_table_free(t);
}

static void test_ftp_expectation_timeout(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_expect_stats s;

	ftp4_login(t, 0);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(10));
	/* 300 s, to the nanosecond */
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(310)), CT_STATE_NEW);
	ct_expect_stats(t, &s);
	assert_int_equal(s.expired, 1);
	assert_int_equal(s.count, 0);
	ct_table_free(t);

	t = ct_test_table(64);
	ftp4_login(t, 0);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(10));
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(310) - 1),
			 CT_STATE_RELATED);
	ct_table_free(t);
}

static void test_ftp_max_expected(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_expect_stats s;

	ftp4_login(t, 0);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(1));
	feed(t, CS " ack,psh seq=1031 ack=5012 payload=\"PORT 10,0,0,2,19,138\\r\\n\"", S(1));
	/* max_expected 1: the newer replaced the older */
	ct_expect_stats(t, &s);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.evicted, 1);
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(2)), CT_STATE_NEW);
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5002 syn", S(2)), CT_STATE_RELATED);
	ct_table_free(t);

	/* a larger policy keeps both */
	t = ct_test_table(64);
	assert_int_equal(ct_helper_set_policy(t, "ftp", 2, S(300)), 0);
	ftp4_login(t, 0);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(1));
	feed(t, CS " ack,psh seq=1031 ack=5012 payload=\"PORT 10,0,0,2,19,138\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 2);
	ct_table_free(t);
}

static void test_ftp_master_teardown(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *m = ftp4_login(t, 0), *d;

	/* one data connection made, one expected */
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(1));
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(1)), CT_STATE_RELATED);
	d = ct_test_find(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001", S(1));
	assert_int_equal(ct_entry_use(m), 2); /* the table's and the data connection's */
	feed(t, CS " ack,psh seq=1031 ack=5012 payload=\"PORT 10,0,0,2,19,138\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 1);
	ct_kill(t, m);
	assert_int_equal(nexp(t), 0);
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5002 syn", S(2)), CT_STATE_NEW);
	/* the data connection still names its master (kept by its reference) */
	assert_ptr_equal(ct_entry_master(d), m);
	assert_int_equal(ct_entry_use(m), 1);
	ct_kill(t, d); /* frees both (ASan checks) */
	ct_table_free(t);
}

static void test_ftp_port_split_across_segments(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct fed f;

	ftp4_login(t, 0);
	/* the line is cut: Linux drops the segment ("partial matching") so it comes again */
	f = feed_h(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,\"", NULL, S(1));
	assert_int_equal(f.state, CT_STATE_ESTABLISHED);
	assert_true(f.helper < 0);
	assert_string_equal(f.why, "ftp: partial command");
	assert_int_equal(nexp(t), 0);
	/* the rest is not at a line start: not parsed */
	feed(t, CS " ack,psh seq=1023 ack=5012 payload=\"19,137\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 0);
	/* the sender retransmits the line whole: recognised */
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(2));
	assert_int_equal(nexp(t), 1);
	ct_table_free(t);
}

static void test_ftp_nonlinear_packet(void **state)
{
	static const char text[] =
	    CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"";
	struct ct_table *t = ct_test_table(64);

	ftp4_login(t, 0);
	/* the same segment in 7-byte pieces, the command crossing every boundary */
	feed_split(t, text, 7, S(1));
	assert_int_equal(nexp(t), 1);
	assert_int_equal(feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(2)), CT_STATE_RELATED);
	ct_table_free(t);
}

/* ---- FTP over IPv6 ----------------------------------------------------------------------- */

#define C6  "[2001:db8::2]:40000"
#define S6  "[2001:db8::1]:21"
#define CS6 "tcp " C6 " > " S6
#define SC6 "tcp " S6 " > " C6

static struct ct_entry *ftp6_login(struct ct_table *t)
{
	feed_h(t, CS6 " syn seq=1000", &ct_helper_ftp, 0);
	feed(t, SC6 " syn,ack seq=5000 ack=1001", 0);
	feed(t, CS6 " ack seq=1001 ack=5001", 0);
	feed(t, SC6 " ack,psh seq=5001 ack=1001 payload=\"220 ready\\r\\n\"", 0);
	feed(t, CS6 " ack,psh seq=1001 ack=5012 payload=\"USER a\\r\\n\"", 0);
	return ct_test_find(t, CS6, 0);
}

static void test_ftp6_eprt(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *m = ftp6_login(t);
	char line[512];

	assert_non_null(m);
	feed(t, CS6 " ack,psh seq=1009 ack=5012 payload=\"EPRT |2|2001:db8::2|5001|\\r\\n\"", S(1));
	assert_int_equal(nexp(t), 1);
	{
		struct ct_tuple tu;
		struct pkt *p = ct_test_pkt("tcp [2001:db8::1]:20 > [2001:db8::2]:5001 syn");
		struct ct_expect *x;

		ct_tuple_from_pkt(p, 0, &tu);
		pkt_free(p);
		x = ct_expect_find(t, &tu, S(1));
		assert_non_null(x);
		ct_expect_format(x, S(1), line, sizeof(line));
		assert_string_equal(
		    line, "300 proto=6 src=2001:db8::1 dst=2001:db8::2 sport=0 dport=5001 "
			  "mask-src=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
			  "mask-dst=ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff sport=0 dport=65535 "
			  "master-src=2001:db8::2 master-dst=2001:db8::1 sport=40000 dport=21 "
			  "class=0 helper=ftp");
	}
	/* an IPv4 EPRT on an IPv6 control connection: the kernel drops it as unparsable */
	assert_true(feed_h(t,
			   CS6 " ack,psh seq=1036 ack=5012 payload=\"EPRT "
			       "|1|10.0.0.2|5001|\\r\\n\"",
			   NULL, S(1))
			.helper < 0);
	assert_int_equal(feed(t, "tcp [2001:db8::1]:20 > [2001:db8::2]:5001 syn", S(2)),
			 CT_STATE_RELATED);
	assert_ptr_equal(ct_entry_master(ct_test_find(t,
						      "tcp [2001:db8::1]:20 > "
						      "[2001:db8::2]:5001",
						      S(2))),
			 m);
	ct_table_free(t);
}

static void test_ftp6_epsv(void **state)
{
	struct ct_table *t = ct_test_table(64);

	ftp6_login(t);
	feed(t, CS6 " ack,psh seq=1009 ack=5012 payload=\"EPSV\\r\\n\"", S(1));
	feed(t,
	     SC6 " ack,psh seq=5012 ack=1015 payload=\"229 Entering Extended Passive Mode "
		 "(|||6446|)\\r\\n\"",
	     S(1));
	assert_int_equal(nexp(t), 1);
	assert_int_equal(feed(t, "tcp [2001:db8::3]:40001 > [2001:db8::1]:6446 syn", S(2)),
			 CT_STATE_NEW);
	assert_int_equal(feed(t, "tcp [2001:db8::2]:40001 > [2001:db8::1]:6446 syn", S(2)),
			 CT_STATE_RELATED);
	ct_table_free(t);
}

/* ---- TFTP, IRC --------------------------------------------------------------------------- */

static void test_tftp_read_request(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *m, *d;
	struct fed f;

	/* RRQ "foo" octet: the expectation is made by the first, unconfirmed packet */
	f = feed_h(t, "udp 10.0.0.2:40000 > 192.0.2.1:69 payload=hex:0001666f6f006f6374657400",
		   &ct_helper_tftp, 0);
	assert_int_equal(f.state, CT_STATE_NEW);
	assert_int_equal(f.helper, 0);
	assert_int_equal(nexp(t), 1);
	/* the server answers from a port of its own */
	assert_int_equal(feed(t, "udp 192.0.2.7:50000 > 10.0.0.2:40000 len=8", S(1)), CT_STATE_NEW);
	f = feed_h(t, "udp 192.0.2.1:50000 > 10.0.0.2:40000 payload=hex:00030001", NULL, S(1));
	assert_int_equal(f.state, CT_STATE_RELATED);
	m = ct_test_find(t, "udp 10.0.0.2:40000 > 192.0.2.1:69", S(1));
	d = ct_test_find(t, "udp 192.0.2.1:50000 > 10.0.0.2:40000", S(1));
	assert_ptr_equal(ct_entry_master(d), m);
	assert_int_equal(feed(t, "udp 10.0.0.2:40000 > 192.0.2.1:50000 payload=hex:00040001", S(1)),
			 CT_STATE_ESTABLISHED);
	ct_table_free(t);
}

static void test_tftp_dropped_request_leaves_nothing(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct pkt *p = ct_test_pkt("udp 10.0.0.2:40000 > 192.0.2.1:69 "
				    "payload=hex:0002666f6f006f6374657400");
	const char *why;

	ct_pkt_set_helper(p, &ct_helper_tftp);
	ct_in(t, p, true, 0, 0);
	assert_int_equal(ct_helper_run(t, p, 0, &why), 0);
	assert_int_equal(nexp(t), 1);
	/* dropped by the rules before confirmation: entry and expectation go with the packet */
	ct_pkt_release(t, p);
	pkt_free(p);
	assert_int_equal(nexp(t), 0);
	assert_int_equal(ct_table_stats(t)->unconfirmed, 0);
	ct_table_free(t);
}

#define IC "tcp 10.0.0.2:40000 > 192.0.2.1:6667"
#define IS "tcp 192.0.2.1:6667 > 10.0.0.2:40000"

static void irc_login(struct ct_table *t)
{
	feed_h(t, IC " syn seq=1000", &ct_helper_irc, 0);
	feed(t, IS " syn,ack seq=5000 ack=1001", 0);
	feed(t, IC " ack seq=1001 ack=5001", 0);
}

static void test_irc_dcc(void **state)
{
	struct ct_table *t = ct_test_table(64);

	irc_login(t);
	/* 167772162 = 10.0.0.2 */
	feed(t,
	     IC " ack,psh seq=1001 ack=5001 payload=\"PRIVMSG bob :\\x01DCC SEND a.txt "
		"167772162 5001 1234\\x01\\r\\n\"",
	     S(1));
	assert_int_equal(nexp(t), 1);
	/* anyone may connect to the offered port */
	assert_int_equal(feed(t, "tcp 198.51.100.7:33333 > 10.0.0.2:5001 syn", S(2)),
			 CT_STATE_RELATED);
	/* a forged offer (another address) and a DCC not at the message start: nothing */
	feed(t,
	     IC " ack,psh seq=1052 ack=5001 payload=\"PRIVMSG bob :\\x01DCC CHAT chat "
		"167772163 5002\\x01\\r\\n\"",
	     S(3));
	feed(t,
	     IC " ack,psh seq=1097 ack=5001 payload=\"PRIVMSG bob :hi \\x01DCC CHAT chat "
		"167772162 5003\\x01\\r\\n\"",
	     S(3));
	assert_int_equal(nexp(t), 0);
	feed(t,
	     IC " ack,psh seq=1145 ack=5001 payload=\"PRIVMSG bob :\\x01DCC CHAT chat "
		"167772162 5004\\x01\\r\\n\"",
	     S(3));
	assert_int_equal(nexp(t), 1);
	/* the server's direction is never parsed */
	feed(t,
	     IS " ack,psh seq=5001 ack=1190 payload=\"PRIVMSG al :\\x01DCC CHAT chat "
		"3221225985 5005\\x01\\r\\n\"",
	     S(3));
	assert_int_equal(nexp(t), 1);
	ct_table_free(t);
}

/* The offer in 3-byte segments: " :" and "\1DCC " cross boundaries; the helper's search walks
 * the segments (textsearch) and still finds it. A message with no offer adds nothing. */
static void test_irc_dcc_nonlinear(void **state)
{
	static const char *const texts[] = {
	    IC " ack,psh seq=1001 ack=5001 payload=\"PRIVMSG bob :hello there, no offer "
	       "in this line at all\r\n\"",
	    IC " ack,psh seq=1047 ack=5001 payload=\"PRIVMSG bob :\\x01DCC SEND a.txt "
	       "167772162 5001 1234\\x01\r\n\"",
	};
	struct ct_table *t = ct_test_table(64);

	irc_login(t);
	for (unsigned i = 0; i < 2; i++) {
		feed_split(t, texts[i], 3, S(1));
		assert_int_equal(nexp(t), i);
	}
	assert_int_equal(feed(t, "tcp 198.51.100.7:33333 > 10.0.0.2:5001 syn", S(2)),
			 CT_STATE_RELATED);
	ct_table_free(t);
}

/* ---- registry, events -------------------------------------------------------------------- */

static void count_ev(void *priv, unsigned ev, const struct ct_expect *x)
{
	unsigned *n = priv;

	(void)x;
	if (ev & CT_EXP_EV_NEW)
		n[0]++;
	if (ev & CT_EXP_EV_DESTROY)
		n[1]++;
}

static void test_registry_and_events(void **state)
{
	struct ct_table *t = ct_test_table(64);
	unsigned n[2] = {0, 0};

	assert_ptr_equal(ct_helper_builtin("ftp", IPPROTO_TCP, AF_INET6), &ct_helper_ftp);
	assert_null(ct_helper_builtin("ftp", IPPROTO_UDP, AF_INET));
	assert_null(ct_helper_builtin("irc", IPPROTO_TCP, AF_INET6));
	assert_ptr_equal(ct_helper_find(t, "tftp"), &ct_helper_tftp);
	assert_null(ct_helper_find(t, "sip"));
	assert_int_equal(ct_expect_subscribe(t, count_ev, n), 0);
	ftp4_login(t, 0);
	feed(t, CS " ack,psh seq=1009 ack=5012 payload=\"PORT 10,0,0,2,19,137\\r\\n\"", S(1));
	feed(t, "tcp 192.0.2.1:20 > 10.0.0.2:5001 syn", S(1));
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 1);
	/* unregistered in this table: CT --helper ftp gives no helper, nothing is expected */
	assert_int_equal(ct_helper_unregister(t, "ftp"), 0);
	assert_null(ct_helper_find(t, "ftp"));
	feed_h(t, "tcp 10.0.0.2:40005 > 192.0.2.1:21 syn", &ct_helper_ftp, S(2));
	assert_null(ct_entry_helper(ct_test_find(t, "tcp 10.0.0.2:40005 > 192.0.2.1:21", S(2))));
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ftp_active_port),
	    cmocka_unit_test(test_ftp_passive_pasv),
	    cmocka_unit_test(test_ftp_case_and_foreign_address),
	    cmocka_unit_test(test_ftp_first_line_not_parsed),
	    cmocka_unit_test(test_ftp_expectation_timeout),
	    cmocka_unit_test(test_ftp_max_expected),
	    cmocka_unit_test(test_ftp_master_teardown),
	    cmocka_unit_test(test_ftp_port_split_across_segments),
	    cmocka_unit_test(test_ftp_nonlinear_packet),
	    cmocka_unit_test(test_ftp6_eprt),
	    cmocka_unit_test(test_ftp6_epsv),
	    cmocka_unit_test(test_tftp_read_request),
	    cmocka_unit_test(test_tftp_dropped_request_leaves_nothing),
	    cmocka_unit_test(test_irc_dcc),
	    cmocka_unit_test(test_irc_dcc_nonlinear),
	    cmocka_unit_test(test_registry_and_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
