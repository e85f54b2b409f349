// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * SCTP tracking: the four-way handshake, data, shutdown and expiry to the nanosecond, over
 * IPv4 and IPv6; verification tags; malformed chunk lists; out-of-the-blue packets; INIT
 * retransmissions; HEARTBEAT on a second path; configurable timeouts.
 */
#include "ct_test.h"

struct fam {
	const char *c, *s; /* client and server, addr:port */
	const char *line;  /* the listing of the established association */
};

static const struct fam v4 = {
    "10.0.0.2:5000",
    "192.0.2.1:80",
    "sctp     132 210 ESTABLISHED src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=80 "
    "src=192.0.2.1 dst=10.0.0.2 sport=80 dport=5000 [ASSURED] mark=0 use=1",
};
static const struct fam v6 = {
    "[2001:db8::2]:5000",
    "[2001:db8::1]:80",
    "sctp     132 210 ESTABLISHED src=2001:db8::2 dst=2001:db8::1 sport=5000 dport=80 "
    "src=2001:db8::1 dst=2001:db8::2 sport=80 dport=5000 [ASSURED] mark=0 use=1",
};

#define TAG_C 0x11111111u /* the client's Initiate Tag: what the server's packets carry */
#define TAG_S 0x22222222u /* the server's */

static const struct {
	const char *name;
	uint8_t type;
	uint8_t body; /* bytes after the chunk header */
} chunk_kinds[] = {
    {"data", 0, 12},
    {"init", 1, 16},
    {"init-ack", 2, 16},
    {"sack", 3, 12},
    {"heartbeat", 4, 4},
    {"heartbeat-ack", 5, 4},
    {"abort", 6, 0},
    {"shutdown", 7, 4},
    {"shutdown-ack", 8, 0},
    {"error", 9, 0},
    {"cookie-echo", 10, 4},
    {"cookie-ack", 11, 0},
    {"shutdown-complete", 14, 0},
};

/*
 * An SCTP packet from the client (reply false) or the server, with common-header tag vtag and
 * chunks "name[/t][:tag] ...": /t sets the T flag, :tag the Initiate Tag of INIT / INIT ACK,
 * "zero" a chunk of length 0. extra: more words for the packet text ("badsum").
 */
static struct pkt *sctp_pkt(const struct fam *f, bool reply, uint32_t vtag, const char *chunks,
			    const char *extra)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	char text[256], list[256], *save = NULL;
	uint32_t n = 0;
	struct pkt *p;

	assert_non_null(s);
	snprintf(text, sizeof(text), "sctp %s > %s vtag=%u %s", reply ? f->s : f->c,
		 reply ? f->c : f->s, vtag, extra ? extra : "");
	assert_int_equal(pkt_spec_parse(text, s, NULL, 0), 0);
	snprintf(list, sizeof(list), "%s", chunks);
	for (char *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		uint8_t *b = s->payload_buf + n;
		char *colon = strchr(w, ':'), *slash = strchr(w, '/');
		uint32_t tag = colon ? (uint32_t)strtoul(colon + 1, NULL, 0) : 0;
		unsigned i;

		if (colon)
			*colon = '\0';
		if (slash)
			*slash = '\0';
		if (!strcmp(w, "zero")) {
			memset(b, 0, 4); /* type DATA, length 0 */
			n += 4;
			continue;
		}
		for (i = 0; i < sizeof(chunk_kinds) / sizeof(chunk_kinds[0]); i++)
			if (!strcmp(w, chunk_kinds[i].name))
				break;
		assert_true(i < sizeof(chunk_kinds) / sizeof(chunk_kinds[0]));
		memset(b, 0, 4u + chunk_kinds[i].body);
		b[0] = chunk_kinds[i].type;
		b[1] = slash ? 1 : 0;
		b[2] = 0;
		b[3] = (uint8_t)(4 + chunk_kinds[i].body);
		if (chunk_kinds[i].type == 1 || chunk_kinds[i].type == 2) {
			b[4] = (uint8_t)(tag >> 24);
			b[5] = (uint8_t)(tag >> 16);
			b[6] = (uint8_t)(tag >> 8);
			b[7] = (uint8_t)tag;
		}
		n += 4u + chunk_kinds[i].body;
	}
	s->payload_len = n;
	p = pkt_build(s);
	assert_non_null(p);
	free(s);
	return p;
}

static unsigned feed(struct ct_table *t, const struct fam *f, bool reply, uint32_t vtag,
		     const char *chunks, uint64_t now)
{
	struct pkt *p = sctp_pkt(f, reply, vtag, chunks, NULL);
	unsigned st;

	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	st = ct_pkt_state(p);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	return st;
}

static struct ct_entry *find(struct ct_table *t, const struct fam *f, uint64_t now)
{
	char text[128];

	snprintf(text, sizeof(text), "sctp %s > %s", f->c, f->s);
	return ct_test_find(t, text, now);
}

#define OUT(v, c, now) feed(t, f, false, v, c, now)
#define IN(v, c, now)  feed(t, f, true, v, c, now)

static void expect(struct ct_table *t, const struct fam *f, uint64_t now, const char *state,
		   uint64_t expires_in)
{
	struct ct_entry *e = find(t, f, now);

	assert_non_null(e);
	assert_string_equal(ct_entry_proto_state(e), state);
	assert_int_equal(ct_entry_expires_in(e, now), expires_in);
}

/* INIT .. COOKIE ACK at `now`: ESTABLISHED and assured. */
static struct ct_table *associate(const struct fam *f, uint64_t now)
{
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(OUT(0, "init:0x11111111", now), CT_STATE_NEW);
	expect(t, f, now, "CLOSED", S(10));
	assert_int_equal(IN(TAG_C, "init-ack:0x22222222", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "COOKIE_WAIT", S(3));
	assert_int_equal(OUT(TAG_S, "cookie-echo", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "COOKIE_ECHOED", S(3));
	assert_false(ct_entry_status(find(t, f, now)) & CT_S_ASSURED);
	assert_int_equal(IN(TAG_C, "cookie-ack", now), CT_STATE_ESTABLISHED);
	expect(t, f, now, "ESTABLISHED", S(210));
	assert_true(ct_entry_status(find(t, f, now)) & CT_S_ASSURED);
	return t;
}

static void lifetime(const struct fam *f)
{
	struct ct_table *t = associate(f, S(1));
	char line[512];

	assert_string_equal(ct_test_line(find(t, f, S(1)), S(1), line, sizeof(line)), f->line);
	/* data both ways refreshes the 210 s */
	assert_int_equal(OUT(TAG_S, "data", S(100)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN(TAG_C, "sack", S(101)), CT_STATE_ESTABLISHED);
	expect(t, f, S(101), "ESTABLISHED", S(210));
	assert_int_equal(OUT(TAG_S, "heartbeat", S(102)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN(TAG_C, "heartbeat-ack", S(102)), CT_STATE_ESTABLISHED);
	expect(t, f, S(102), "ESTABLISHED", S(210));
	/* graceful shutdown from the client */
	assert_int_equal(OUT(TAG_S, "shutdown", S(110)), CT_STATE_ESTABLISHED);
	expect(t, f, S(110), "SHUTDOWN_SENT", S(3));
	assert_int_equal(IN(TAG_C, "shutdown-ack", S(111)), CT_STATE_ESTABLISHED);
	expect(t, f, S(111), "SHUTDOWN_ACK_SENT", S(3));
	assert_int_equal(OUT(TAG_S, "shutdown-complete", S(112)), CT_STATE_ESTABLISHED);
	expect(t, f, S(112), "CLOSED", S(10));
	/* dead at exactly 10 s */
	assert_non_null(find(t, f, S(122) - 1));
	assert_null(find(t, f, S(122)));
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

static void test_established_expires_at_210s(void **state)
{
	const struct fam *f = &v6;
	struct ct_table *t = associate(f, 0);

	assert_non_null(find(t, f, S(210) - 1));
	assert_null(find(t, f, S(210)));
	ct_table_free(t);
}

static void test_wrong_vtag_invalid(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = associate(f, 0);

	/* each direction carries the other side's Initiate Tag */
	assert_int_equal(OUT(TAG_C, "data", S(5)), CT_STATE_INVALID);
	assert_int_equal(IN(TAG_S, "sack", S(5)), CT_STATE_INVALID);
	assert_int_equal(OUT(0x12345678, "shutdown", S(5)), CT_STATE_INVALID);
	/* nothing changed, nothing refreshed */
	expect(t, f, S(5), "ESTABLISHED", S(205));
	/* once established, an INIT ACK naming another tag than the one learnt */
	assert_int_equal(IN(TAG_C, "init-ack:0x33333333", S(5)), CT_STATE_INVALID);
	/* ABORT: its own tag without T, the peer's with T */
	assert_int_equal(IN(TAG_S, "abort", S(6)), CT_STATE_INVALID);
	assert_int_equal(IN(TAG_S, "abort/t", S(6)), CT_STATE_ESTABLISHED);
	expect(t, f, S(6), "CLOSED", S(10));
	ct_table_free(t);
}

static void test_handshake_tag_checks(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);

	/* an INIT must carry tag 0 */
	assert_int_equal(OUT(5, "init:0x11111111", 0), CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	assert_int_equal(OUT(0, "init:0x11111111", 0), CT_STATE_NEW);
	/* the INIT ACK carries the client's tag, the COOKIE ECHO the server's */
	assert_int_equal(IN(TAG_S, "init-ack:0x22222222", 0), CT_STATE_INVALID);
	assert_int_equal(IN(TAG_C, "init-ack:0x22222222", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(OUT(TAG_C, "cookie-echo", 0), CT_STATE_INVALID);
	expect(t, f, 0, "COOKIE_WAIT", S(3));
	assert_int_equal(OUT(TAG_S, "cookie-echo", 0), CT_STATE_ESTABLISHED);
	expect(t, f, 0, "COOKIE_ECHOED", S(3));
	/* nothing more within 3 s: gone */
	assert_null(find(t, f, S(3)));
	ct_table_free(t);
}

static void test_malformed_chunks_invalid(void **state)
{
	static const char *const bad[] = {
	    "",			      /* no chunk */
	    "zero",		      /* length 0 */
	    "init:0x11111111 data",   /* INIT bundled */
	    "data init:0x11111111",   /* INIT not alone */
	    "data cookie-echo",	      /* COOKIE ECHO not first */
	    "shutdown-complete sack", /* SHUTDOWN COMPLETE bundled */
	};
	const struct fam *f = &v4;
	struct ct_table *t = associate(f, 0);

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(OUT(i == 2 || i == 3 ? 0 : TAG_S, bad[i], S(1)), CT_STATE_INVALID);
	/* bundling after COOKIE ECHO is allowed */
	assert_int_equal(OUT(TAG_S, "cookie-echo data", S(1)), CT_STATE_ESTABLISHED);
	expect(t, f, S(1), "ESTABLISHED", S(210));
	ct_table_free(t);
}

static void test_bad_crc(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);
	struct pkt *p = sctp_pkt(&v4, false, 0, "init:0x11111111", "badsum");

	assert_false(pkt_l4_csum_ok(p));
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
	/* not checked on locally generated packets, nor when checksums are off */
	assert_int_equal(ct_in(t, p, false, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
	ct_pkt_release(t, p);
	p->ct = NULL;
	p->ctinfo = 0;
	c.checksum = false;
	ct_table_set_config(t, &c);
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
	ct_pkt_release(t, p);
	pkt_free(p);
	ct_table_free(t);
}

static void test_out_of_the_blue(void **state)
{
	static const char *const no_entry[] = {"abort", "cookie-ack", "shutdown-complete", "data",
					       "sack"};
	const struct fam *f = &v6;
	struct ct_table *t = ct_test_table(64);

	for (unsigned i = 0; i < sizeof(no_entry) / sizeof(no_entry[0]); i++)
		assert_int_equal(OUT(7, no_entry[i], 0), CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	/* a SHUTDOWN ACK of an unknown association: tracked, the answer carries its tag */
	assert_int_equal(OUT(7, "shutdown-ack", 0), CT_STATE_NEW);
	expect(t, f, 0, "SHUTDOWN_ACK_SENT", S(3));
	assert_int_equal(IN(6, "shutdown-complete", 0), CT_STATE_INVALID);
	assert_int_equal(IN(7, "shutdown-complete", 0), CT_STATE_ESTABLISHED);
	expect(t, f, 0, "CLOSED", S(10));
	ct_table_free(t);
}

static void test_init_retransmit_not_refreshed(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);

	assert_int_equal(OUT(0, "init:0x11111111", 0), CT_STATE_NEW);
	/* retransmitted INITs pass but do not extend the entry */
	assert_int_equal(OUT(0, "init:0x11111111", S(4)), CT_STATE_NEW);
	assert_int_equal(OUT(0, "init:0x11111111", S(8)), CT_STATE_NEW);
	expect(t, f, S(8), "CLOSED", S(2));
	assert_null(find(t, f, S(10)));
	ct_table_free(t);
}

static void test_heartbeat_second_path(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);

	/* a HEARTBEAT of an association seen on another path */
	assert_int_equal(OUT(TAG_S, "heartbeat", 0), CT_STATE_NEW);
	expect(t, f, 0, "HEARTBEAT_SENT", S(30));
	/* nothing but the HEARTBEAT ACK may answer it */
	assert_int_equal(IN(0, "init:0x5", 0), CT_STATE_INVALID);
	assert_int_equal(IN(TAG_C, "heartbeat-ack", S(1)), CT_STATE_ESTABLISHED);
	expect(t, f, S(1), "ESTABLISHED", S(210));
	assert_true(ct_entry_status(find(t, f, S(1))) & CT_S_ASSURED);
	/* the tags are learnt: data carries them */
	assert_int_equal(OUT(TAG_S, "data", S(2)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN(TAG_C, "sack", S(2)), CT_STATE_ESTABLISHED);
	assert_int_equal(IN(TAG_S, "sack", S(2)), CT_STATE_INVALID);
	ct_table_free(t);
}

static void test_timeouts_configurable(void **state)
{
	const struct fam *f = &v4;
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);

	c.timeouts.sctp[CT_SCTP_CLOSED] = S(1);
	c.timeouts.sctp[CT_SCTP_ESTABLISHED] = S(7200);
	ct_table_set_config(t, &c);
	assert_int_equal(OUT(0, "init:0x11111111", 0), CT_STATE_NEW);
	expect(t, f, 0, "CLOSED", S(1));
	assert_int_equal(IN(TAG_C, "init-ack:0x22222222", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(OUT(TAG_S, "cookie-echo", 0), CT_STATE_ESTABLISHED);
	assert_int_equal(IN(TAG_C, "cookie-ack", 0), CT_STATE_ESTABLISHED);
	expect(t, f, 0, "ESTABLISHED", S(7200));
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lifetime_ipv4),
	    cmocka_unit_test(test_lifetime_ipv6),
	    cmocka_unit_test(test_established_expires_at_210s),
	    cmocka_unit_test(test_wrong_vtag_invalid),
	    cmocka_unit_test(test_handshake_tag_checks),
	    cmocka_unit_test(test_malformed_chunks_invalid),
	    cmocka_unit_test(test_bad_crc),
	    cmocka_unit_test(test_out_of_the_blue),
	    cmocka_unit_test(test_init_retransmit_not_refreshed),
	    cmocka_unit_test(test_heartbeat_second_path),
	    cmocka_unit_test(test_timeouts_configurable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
