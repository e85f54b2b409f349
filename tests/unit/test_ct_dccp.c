// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DCCP tracking: a connection's life (Request .. Reset) with exact timeouts over IPv4 and
 * IPv6, transitions refused per role, Reset before any reply, Sync pickup (loose or not),
 * ignored packets and the resynchronisation they allow, reopening from the other side,
 * reserved types and bad checksums, configurable timeouts.
 */
#include "ct_test.h"

struct fam {
	const char *c, *s;
	const char *line; /* the listing once OPEN */
};

static const struct fam v4 = {
    "10.0.0.2:5000",
    "192.0.2.1:6000",
    "dccp     33 43200 OPEN src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=6000 src=192.0.2.1 "
    "dst=10.0.0.2 sport=6000 dport=5000 [ASSURED] mark=0 use=1",
};
static const struct fam v6 = {
    "[2001:db8::2]:5000",
    "[2001:db8::1]:6000",
    "dccp     33 43200 OPEN src=2001:db8::2 dst=2001:db8::1 sport=5000 dport=6000 "
    "src=2001:db8::1 dst=2001:db8::2 sport=6000 dport=5000 [ASSURED] mark=0 use=1",
};

/* One packet "TYPE [seq= ack= ...]" from the client (reply false) or the server. */
static unsigned feed(struct ct_table *t, const struct fam *f, bool reply, const char *rest,
		     uint64_t now)
{
	char text[200];

	snprintf(text, sizeof(text), "dccp %s > %s %s", reply ? f->s : f->c, reply ? f->c : f->s,
		 rest);
	return ct_test_feed(t, text, now);
}

static struct ct_entry *find(struct ct_table *t, const struct fam *f, uint64_t now)
{
	char text[128];

	snprintf(text, sizeof(text), "dccp %s > %s request", f->c, f->s);
	return ct_test_find(t, text, now);
}

static void expect(struct ct_table *t, const struct fam *f, uint64_t now, const char *state,
		   uint64_t expires_in)
{
	struct ct_entry *e = find(t, f, now);

	assert_non_null(e);
	assert_string_equal(ct_entry_proto_state(e), state);
	assert_int_equal(ct_entry_expires_in(e, now), expires_in);
}

#define OUT(r, now) feed(t, f, false, r, now)
#define IN(r, now)  feed(t, f, true, r, now)

/* Request, Response, Ack naming it, the server's first DataAck: OPEN and assured. */
static struct ct_table *open_conn(const struct fam *f, uint64_t now)
{
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(OUT("request seq=100", now), CT_STATE_NEW);
	expect(t, f, now, "REQUEST", S(240));
	assert_int_equal(IN("response seq=500 ack=100", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "RESPOND", S(480));
	assert_int_equal(OUT("ack seq=101 ack=500", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "PARTOPEN", S(480));
	assert_true(ct_entry_status(find(t, f, now)) & CT_S_ASSURED);
	assert_int_equal(IN("dataack seq=501 ack=101", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "OPEN", S(43200));
	return t;
}

static void lifetime(const struct fam *f)
{
	struct ct_table *t = open_conn(f, S(1));
	char line[512];

	assert_string_equal(ct_test_line(find(t, f, S(1)), S(1), line, sizeof(line)), f->line);
	assert_int_equal(OUT("data seq=102", S(10)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN("ack seq=502 ack=102", S(11)), CT_STATE_ESTABLISHED);
	expect(t, f, S(11), "OPEN", S(43200));
	/* the server asks to close, the client closes, the server resets */
	assert_int_equal(IN("closereq seq=503 ack=102", S(20)), CT_STATE_ESTABLISHED);
	expect(t, f, S(20), "CLOSEREQ", S(64));
	assert_int_equal(OUT("close seq=103 ack=503", S(21)), CT_STATE_ESTABLISHED);
	expect(t, f, S(21), "CLOSING", S(64));
	assert_int_equal(IN("reset seq=504 ack=103", S(22)), CT_STATE_ESTABLISHED);
	expect(t, f, S(22), "TIMEWAIT", S(240));
	/* the client's late Reset in TIMEWAIT is passed without refreshing */
	assert_int_equal(OUT("reset seq=104 ack=504", S(30)), CT_STATE_ESTABLISHED);
	expect(t, f, S(30), "TIMEWAIT", S(232));
	assert_non_null(find(t, f, S(262) - 1));
	assert_null(find(t, f, S(262)));
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

static void test_lifetime_ipv4(void **state)
{
	lifetime(&v4);
}

static void test_lifetime_ipv6(void **state)
{
	lifetime(&v6);
}

static void test_request_expires_at_240s(void **state)
{
	const struct fam *f = &v6;
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(OUT("request seq=1", 0), CT_STATE_NEW);
	assert_non_null(find(t, f, S(240) - 1));
	assert_null(find(t, f, S(240)));
	ct_table_free(t);
}

static void test_invalid_transitions(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);
	static const char *const no_start[] = {"response seq=1 ack=1", "data seq=1",
					       "ack seq=1 ack=1",      "close seq=1 ack=1",
					       "reset seq=1 ack=1",    "closereq seq=1 ack=1"};

	for (unsigned i = 0; i < sizeof(no_start) / sizeof(no_start[0]); i++)
		assert_int_equal(OUT(no_start[i], 0), CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);

	assert_int_equal(OUT("request seq=100", 0), CT_STATE_NEW);
	/* only the server may send Response or CloseReq; nothing is acked before a Response */
	assert_int_equal(OUT("ack seq=101 ack=1", 0), CT_STATE_INVALID);
	assert_int_equal(IN("response seq=500 ack=100", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(IN("ack seq=501 ack=100", 0), CT_STATE_INVALID);
	/* an Ack naming another sequence number than the Response: PARTOPEN, not assured */
	assert_int_equal(OUT("ack seq=101 ack=499", 0), CT_STATE_ESTABLISHED);
	expect(t, f, 0, "PARTOPEN", S(480));
	assert_false(ct_entry_status(find(t, f, 0)) & CT_S_ASSURED);
	/* in PARTOPEN the client must send DataAck, not Data (RFC 4340 8.1.5) */
	assert_int_equal(OUT("data seq=102", 0), CT_STATE_INVALID);
	assert_int_equal(OUT("closereq seq=102 ack=500", 0), CT_STATE_INVALID);
	expect(t, f, 0, "PARTOPEN", S(480));
	/* the server's CloseReq straight from PARTOPEN; it may not Close after it */
	assert_int_equal(IN("closereq seq=501 ack=101", S(1)), CT_STATE_ESTABLISHED);
	expect(t, f, S(1), "CLOSEREQ", S(64));
	assert_int_equal(IN("close seq=502 ack=101", S(1)), CT_STATE_INVALID);
	ct_table_free(t);
}

static void test_reset_before_reply_kills(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(OUT("request seq=100", 0), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 1);
	IN("reset seq=1 ack=100", S(1));
	assert_null(find(t, f, S(1)));
	assert_int_equal(ct_table_stats(t)->count, 0);
	/* the next Request starts afresh */
	assert_int_equal(OUT("request seq=200", S(2)), CT_STATE_NEW);
	ct_table_free(t);
}

static void test_sync_pickup_loose(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);

	/* a Sync may start an entry, but is ignored: it stays in NONE and is not kept */
	assert_int_equal(OUT("sync seq=5 ack=5", S(1)), CT_STATE_NEW);
	assert_null(find(t, f, S(1)));
	c.dccp_loose = false;
	ct_table_set_config(t, &c);
	assert_int_equal(OUT("sync seq=5 ack=5", S(2)), CT_STATE_INVALID);
	assert_int_equal(OUT("syncack seq=5 ack=5", S(2)), CT_STATE_INVALID);
	ct_table_free(t);
}

static void test_ignored_then_resync(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = open_conn(f, 0);

	/* Sync / SyncAck are passed, the entry neither changed nor refreshed */
	assert_int_equal(OUT("sync seq=200 ack=600", S(10)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN("syncack seq=600 ack=200", S(10)), CT_STATE_ESTABLISHED);
	expect(t, f, S(10), "OPEN", S(43190));
	/* a Request in OPEN may be a new connection on the same ports we missed the end of:
	 * passed; the server's Response to it resynchronises the entry */
	assert_int_equal(OUT("request seq=1000", S(20)), CT_STATE_ESTABLISHED);
	expect(t, f, S(20), "OPEN", S(43180));
	assert_int_equal(IN("response seq=7000 ack=1000", S(21)), CT_STATE_ESTABLISHED);
	expect(t, f, S(21), "RESPOND", S(480));
	assert_int_equal(OUT("ack seq=1001 ack=7000", S(22)), CT_STATE_ESTABLISHED);
	expect(t, f, S(22), "PARTOPEN", S(480));
	ct_table_free(t);
}

static void test_reopen_from_server_side(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = open_conn(f, 0);

	assert_int_equal(OUT("close seq=102 ack=501", S(1)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN("reset seq=502 ack=102", S(1)), CT_STATE_ESTABLISHED);
	expect(t, f, S(1), "TIMEWAIT", S(240));
	/* the old server opens a connection on the same ports: the roles swap */
	assert_int_equal(IN("request seq=9000", S(5)), CT_STATE_ESTABLISHED);
	expect(t, f, S(5), "REQUEST", S(240));
	assert_int_equal(IN("response seq=1 ack=1", S(5)), CT_STATE_ESTABLISHED);
	expect(t, f, S(5), "REQUEST", S(240)); /* ignored: the client may not send Response */
	assert_int_equal(OUT("response seq=300 ack=9000", S(6)), CT_STATE_ESTABLISHED);
	expect(t, f, S(6), "RESPOND", S(480));
	ct_table_free(t);
}

static void test_reserved_type_and_bad_checksum(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct pkt *p = ct_test_pkt("dccp 10.0.0.2:5000 > 192.0.2.1:6000 request seq=1");
	uint8_t b;

	/* type 10 (reserved), with a correct checksum */
	pkt_copy_out(p, p->info.l4off + 8, &b, 1);
	b = (uint8_t)((b & ~0x1e) | 10 << 1);
	pkt_store(p, p->info.l4off + 8, &b, 1);
	pkt_l4_csum_update(p);
	assert_true(pkt_l4_csum_ok(p));
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
	pkt_free(p);
	assert_int_equal(
	    ct_test_feed(t, "dccp 10.0.0.2:5000 > 192.0.2.1:6000 request seq=1 badsum", 0),
	    CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

static void test_timeouts_configurable(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);

	c.timeouts.dccp[CT_DCCP_REQUEST] = S(5);
	c.timeouts.dccp[CT_DCCP_OPEN] = S(600);
	ct_table_set_config(t, &c);
	assert_int_equal(OUT("request seq=100", 0), CT_STATE_NEW);
	expect(t, f, 0, "REQUEST", S(5));
	assert_int_equal(IN("response seq=500 ack=100", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(OUT("ack seq=101 ack=500", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(IN("data seq=501", 0), CT_STATE_ESTABLISHED);
	expect(t, f, 0, "OPEN", S(600));
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lifetime_ipv4),
	    cmocka_unit_test(test_lifetime_ipv6),
	    cmocka_unit_test(test_request_expires_at_240s),
	    cmocka_unit_test(test_invalid_transitions),
	    cmocka_unit_test(test_reset_before_reply_kills),
	    cmocka_unit_test(test_sync_pickup_loose),
	    cmocka_unit_test(test_ignored_then_resync),
	    cmocka_unit_test(test_reopen_from_server_side),
	    cmocka_unit_test(test_reserved_type_and_bad_checksum),
	    cmocka_unit_test(test_timeouts_configurable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
