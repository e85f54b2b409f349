// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GRE tracking: unreplied 30 s and stream 180 s to the nanosecond over IPv4 and IPv6, keyless
 * tunnels per address pair, version 0 keys, PPTP's version 1 call ids, configurable timeouts.
 */
#include "ct_test.h"

#define OUT4 "gre 10.0.0.2 > 192.0.2.1"
#define IN4  "gre 192.0.2.1 > 10.0.0.2"
#define OUT6 "gre 2001:db8::2 > 2001:db8::1"
#define IN6  "gre 2001:db8::1 > 2001:db8::2"

static void lifetime(const char *out, const char *in, const char *unreplied, const char *assured)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_result r;
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, out, 0), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, out, S(1)), CT_STATE_NEW);
	e = ct_test_find(t, out, S(1));
	assert_non_null(e);
	assert_string_equal(ct_test_line(e, S(1), line, sizeof(line)), unreplied);
	/* the first reply: ESTABLISHED, still the unreplied timeout */
	ct_test_feed_r(t, in, S(2), &r);
	assert_int_equal(r.state, CT_STATE_ESTABLISHED);
	assert_int_equal(r.ctinfo, CT_ESTABLISHED_REPLY);
	assert_int_equal(ct_entry_expires_in(e, S(2)), S(30));
	assert_false(ct_entry_status(e) & CT_S_ASSURED);
	/* then a stream: 180 s, assured */
	assert_int_equal(ct_test_feed(t, out, S(3)), CT_STATE_ESTABLISHED);
	assert_true(ct_entry_status(e) & CT_S_ASSURED);
	assert_string_equal(ct_test_line(e, S(3), line, sizeof(line)), assured);
	assert_non_null(ct_test_find(t, out, S(183) - 1));
	assert_null(ct_test_find(t, out, S(183)));
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

static void test_lifetime_ipv4(void **state)
{
	lifetime(OUT4, IN4,
		 "gre      47 30 src=10.0.0.2 dst=192.0.2.1 srckey=0x0 dstkey=0x0 [UNREPLIED] "
		 "src=192.0.2.1 dst=10.0.0.2 srckey=0x0 dstkey=0x0 mark=0 use=1",
		 "gre      47 180 src=10.0.0.2 dst=192.0.2.1 srckey=0x0 dstkey=0x0 src=192.0.2.1 "
		 "dst=10.0.0.2 srckey=0x0 dstkey=0x0 [ASSURED] mark=0 use=1");
}

static void test_lifetime_ipv6(void **state)
{
	lifetime(OUT6, IN6,
		 "gre      47 30 src=2001:db8::2 dst=2001:db8::1 srckey=0x0 dstkey=0x0 [UNREPLIED] "
		 "src=2001:db8::1 dst=2001:db8::2 srckey=0x0 dstkey=0x0 mark=0 use=1",
		 "gre      47 180 src=2001:db8::2 dst=2001:db8::1 srckey=0x0 dstkey=0x0 "
		 "src=2001:db8::1 dst=2001:db8::2 srckey=0x0 dstkey=0x0 [ASSURED] mark=0 use=1");
}

static void test_unreplied_dies_at_30s(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(ct_test_feed(t, OUT6, S(5)), CT_STATE_NEW);
	assert_non_null(ct_test_find(t, OUT6, S(35) - 1));
	assert_null(ct_test_find(t, OUT6, S(35)));
	ct_table_free(t);
}

static void test_v0_keys(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	/* version 0 keys are not part of the tuple, as in Linux: one entry per address pair,
	 * and a tunnel with different keys per direction (ikey != okey) still sees its reply */
	assert_int_equal(ct_test_feed(t, OUT4 " key=1", 0), CT_STATE_NEW);
	/* the same entry, still NEW (no reply yet), not new entries */
	assert_int_equal(ct_test_feed(t, OUT4 " key=2", 0), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, OUT4, 0), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 1);
	assert_int_equal(ct_test_feed(t, IN4 " key=0x12345678", S(1)), CT_STATE_ESTABLISHED);
	e = ct_test_find(t, OUT4 " key=1", S(1));
	assert_true(ct_entry_status(e) & CT_S_SEEN_REPLY);
	assert_string_equal(ct_test_line(e, S(1), line, sizeof(line)),
			    "gre      47 30 src=10.0.0.2 dst=192.0.2.1 srckey=0x0 dstkey=0x0 "
			    "src=192.0.2.1 dst=10.0.0.2 srckey=0x0 dstkey=0x0 mark=0 use=1");
	ct_table_free(t);
}

/* A PPTP (enhanced GRE, version 1) packet: the key field is payload length and call id. */
static struct pkt *pptp(const char *addrs, uint16_t call_id, uint16_t proto)
{
	char text[160];
	struct pkt *p;
	uint8_t v = 0x01;

	snprintf(text, sizeof(text), "%s key=%u greproto=0x%x", addrs, call_id, proto);
	p = ct_test_pkt(text);
	pkt_store(p, p->info.l4off + 1, &v, 1); /* version 1 */
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, false), 0);
	return p;
}

static unsigned feed_pkt(struct ct_table *t, struct pkt *p, uint64_t now)
{
	unsigned st;

	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	st = ct_pkt_state(p);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	return st;
}

static void test_v1_call_ids(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_tuple tu;
	struct ct_entry *e;
	struct pkt *p;
	char line[512];

	p = pptp(OUT4, 0x1111, 0x880b);
	assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
	assert_int_equal(tu.s.all, 0);
	assert_int_equal(tu.d.all, 0x1111);
	assert_int_equal(feed_pkt(t, p, 0), CT_STATE_NEW);
	e = ct_lookup(t, &tu, 0, NULL);
	assert_non_null(e);
	assert_string_equal(
	    ct_test_line(e, 0, line, sizeof(line)),
	    "gre      47 30 src=10.0.0.2 dst=192.0.2.1 srckey=0x0 dstkey=0x1111 "
	    "[UNREPLIED] src=192.0.2.1 dst=10.0.0.2 srckey=0x1111 dstkey=0x0 mark=0 "
	    "use=1");
	/* the peer's packets carry its own call id: without the PPTP helper that is an entry of
	 * its own, as in Linux */
	assert_int_equal(feed_pkt(t, pptp(IN4, 0x2222, 0x880b), 0), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 2);
	/* version 1 carries PPP only */
	assert_int_equal(feed_pkt(t, pptp(OUT4, 0x3333, 0x0800), 0), CT_STATE_INVALID);
	ct_table_free(t);
}

static void test_timeouts_configurable(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);
	struct ct_entry *e;

	c.timeouts.gre_unreplied = S(5);
	c.timeouts.gre_replied = S(3600);
	ct_table_set_config(t, &c);
	assert_int_equal(ct_test_feed(t, OUT4, 0), CT_STATE_NEW);
	e = ct_test_find(t, OUT4, 0);
	assert_int_equal(ct_entry_expires_in(e, 0), S(5));
	ct_test_feed(t, IN4, S(1));
	ct_test_feed(t, OUT4, S(2));
	assert_int_equal(ct_entry_expires_in(e, S(2)), S(3600));
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lifetime_ipv4),
	    cmocka_unit_test(test_lifetime_ipv6),
	    cmocka_unit_test(test_unreplied_dies_at_30s),
	    cmocka_unit_test(test_v0_keys),
	    cmocka_unit_test(test_v1_call_ids),
	    cmocka_unit_test(test_timeouts_configurable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
