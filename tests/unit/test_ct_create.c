// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Entries made without a packet (ct/create.h): once created they are entries like the others:
 * packets find them in both directions, the tracker moves them on, they time out on the box
 * clock; and changes follow ctnetlink's rules.
 */
#include "ct_test.h"

#include "ct/create.h"

struct evs {
	unsigned news, updates, destroys;
};

static void count_ev(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why)
{
	struct evs *v = priv;

	if (events & CT_EV_DESTROY)
		v->destroys++;
	else if (events & CT_EV_NEW)
		v->news++;
	else
		v->updates++;
}

static struct ct_table *table(struct evs *v)
{
	struct ct_config c;
	struct ct_table *t;

	ct_config_default(&c);
	t = ct_table_new(&c);
	assert_non_null(t);
	if (v)
		ct_event_subscribe(t, count_ev, v);
	return t;
}

/* The original tuple of a packet's text form. */
static struct ct_tuple tuple_of(const char *text)
{
	struct pkt *p = ct_test_pkt(text);
	struct ct_tuple tu;

	assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
	pkt_free(p);
	return tu;
}

static void test_udp_created_then_packets(void **state)
{
	struct evs v = {0};
	struct ct_table *t = table(&v);
	struct ct_entry_attrs a = {
	    .have = CT_ATTR_TIMEOUT | CT_ATTR_MARK, .timeout = S(30), .mark = 9};
	struct ct_entry *e;
	char line[256];

	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, S(100), &e), 0);
	assert_int_equal(v.news, 1);
	assert_int_equal(ct_table_stats(t)->count, 1);
	assert_int_equal(ct_entry_create(t, &a, S(100), NULL), -EEXIST);
	ct_entry_format(e, S(100), line, sizeof(line));
	assert_string_equal(line, "udp      17 30 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 "
				  "[UNREPLIED] src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 "
				  "mark=9 use=1");
	/* a packet of it is ESTABLISHED-bound, not a new connection; a reply makes it replied */
	assert_int_equal(ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53", S(101)), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "udp 192.0.2.1:53 > 10.0.0.2:5000", S(101)),
			 CT_STATE_ESTABLISHED);
	assert_int_equal(ct_table_stats(t)->count, 1);
	assert_true(ct_entry_status(e) & CT_S_SEEN_REPLY);
	assert_int_equal(ct_test_find(t, "udp 10.0.0.2:5000 > 192.0.2.1:53", S(101)), e);
	/* and it times out like any other: 30 s after the last packet */
	assert_int_equal(ct_sweep(t, S(131) + 1, 1u << 20), 1);
	assert_int_equal(ct_table_stats(t)->count, 0);
	assert_int_equal(v.destroys, 1);
	ct_table_free(t);
}

static void test_tcp_established_picked_up(void **state)
{
	struct ct_table *t = table(NULL);
	struct ct_entry_attrs a = {.have = CT_ATTR_TIMEOUT | CT_ATTR_STATUS | CT_ATTR_PROTO_STATE,
				   .timeout = S(300),
				   .status = CT_S_SEEN_REPLY | CT_S_ASSURED | CT_S_EXPECTED,
				   .proto_state = CT_TCP_ESTABLISHED};
	struct ct_entry *e;

	a.orig = tuple_of("tcp 10.0.0.2:1234 > 192.0.2.1:80 ack");
	assert_int_equal(ct_entry_create(t, &a, 0, &e), 0);
	/* only the bits a client may set, and confirmed */
	assert_int_equal(ct_entry_status(e), CT_S_SEEN_REPLY | CT_S_ASSURED | CT_S_CONFIRMED);
	assert_string_equal(ct_entry_proto_state(e), "ESTABLISHED");
	/* mid-stream segments in both directions are accepted (no window history) */
	assert_int_equal(
	    ct_test_feed(t, "tcp 10.0.0.2:1234 > 192.0.2.1:80 ack seq=1000 ack=5000", S(1)),
	    CT_STATE_ESTABLISHED);
	assert_int_equal(
	    ct_test_feed(t, "tcp 192.0.2.1:80 > 10.0.0.2:1234 ack seq=5000 ack=1000", S(1)),
	    CT_STATE_ESTABLISHED);
	assert_int_equal(ct_table_stats(t)->count, 1);
	/* a FIN moves the tracker on */
	ct_test_feed(t, "tcp 10.0.0.2:1234 > 192.0.2.1:80 fin,ack seq=1000 ack=5000", S(2));
	assert_string_equal(ct_entry_proto_state(e), "FIN_WAIT");
	ct_table_free(t);
}

static void test_reply_given_and_icmp(void **state)
{
	struct ct_table *t = table(NULL);
	struct ct_entry_attrs a = {.have = CT_ATTR_TIMEOUT | CT_ATTR_REPLY, .timeout = S(30)};
	struct ct_entry *e;

	/* a reply that is not the inverse (a NAT-ed connection, as conntrack -I -r -q) */
	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	a.reply = tuple_of("udp 192.0.2.1:53 > 198.51.100.1:6000");
	assert_int_equal(ct_entry_create(t, &a, 0, &e), 0);
	assert_int_equal(ct_test_feed(t, "udp 192.0.2.1:53 > 198.51.100.1:6000", S(1)),
			 CT_STATE_ESTABLISHED);
	a.reply = tuple_of("tcp 192.0.2.1:53 > 198.51.100.1:6001");
	a.orig = tuple_of("udp 10.0.0.9:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, 0, NULL), -EINVAL);
	/* ICMP echo: the reply is the echo reply */
	a.have = CT_ATTR_TIMEOUT;
	a.orig = tuple_of("icmp 10.0.0.2 > 192.0.2.1 echo-request id=77");
	assert_int_equal(ct_entry_create(t, &a, 0, &e), 0);
	assert_int_equal(ct_test_feed(t, "icmp 192.0.2.1 > 10.0.0.2 echo-reply id=77", S(1)),
			 CT_STATE_ESTABLISHED);
	ct_table_free(t);
}

static void test_change(void **state)
{
	struct evs v = {0};
	struct ct_table *t = table(&v);
	struct ct_entry_attrs a = {
	    .have = CT_ATTR_TIMEOUT | CT_ATTR_MARK, .timeout = S(30), .mark = 7};
	struct ct_entry_attrs ch = {0};
	struct ct_entry *e;

	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, 0, &e), 0);
	/* conntrack -U -m 0x10/0x3: clear the mask's bits, XOR the value in */
	ch.have = CT_ATTR_MARK;
	ch.mark = 0x10;
	ch.mark_mask = 0x3;
	assert_int_equal(ct_entry_change(t, e, &ch, S(1)), 0);
	assert_int_equal(ct_entry_mark(e), 0x14);
	assert_int_equal(v.updates, 1);
	ch.have = CT_ATTR_TIMEOUT;
	ch.timeout = S(500);
	assert_int_equal(ct_entry_change(t, e, &ch, S(1)), 0);
	assert_int_equal(ct_entry_expires_in(e, S(1)), S(500));
	assert_int_equal(v.updates, 2); /* ctnetlink reports every change */
	ch.have = CT_ATTR_STATUS;
	ch.status = CT_S_ASSURED | CT_S_SEEN_REPLY;
	assert_int_equal(ct_entry_change(t, e, &ch, S(1)), 0);
	assert_true(ct_entry_status(e) & CT_S_ASSURED);
	/* ... and nothing takes them back */
	ch.status = CT_S_SEEN_REPLY;
	assert_int_equal(ct_entry_change(t, e, &ch, S(1)), -EBUSY);
	assert_true(ct_entry_status(e) & CT_S_ASSURED);
	ct_table_free(t);
}

/* FIXED_TIMEOUT (conntrack -u FIXED_TIMEOUT): packets do not refresh the timeout; a timeout
 * asked for still counts; an update without the bit clears it, as ctnetlink's. */
static void test_fixed_timeout(void **state)
{
	struct ct_table *t = table(NULL);
	struct ct_entry_attrs a = {.have = CT_ATTR_TIMEOUT | CT_ATTR_STATUS,
				   .timeout = S(30),
				   .status = CT_S_FIXED_TIMEOUT};
	struct ct_entry_attrs u = {.have = CT_ATTR_STATUS, .status = 0};
	struct ct_entry *e;

	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, S(100), &e), 0);
	assert_true(ct_entry_status(e) & CT_S_FIXED_TIMEOUT);
	ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53", S(120));
	assert_int_equal(ct_sweep(t, S(130) + 1, 1u << 20), 1); /* 30 s after creation */
	assert_int_equal(ct_entry_create(t, &a, S(200), &e), 0);
	u.have |= CT_ATTR_TIMEOUT;
	u.timeout = S(50);
	u.status = CT_S_FIXED_TIMEOUT;
	assert_int_equal(ct_entry_change(t, e, &u, S(210)), 0); /* fixed: now 260 */
	ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53", S(250));
	assert_int_equal(ct_sweep(t, S(255), 1u << 20), 0);
	u.have = CT_ATTR_STATUS;
	u.status = 0;
	assert_int_equal(ct_entry_change(t, e, &u, S(256)), 0);
	assert_false(ct_entry_status(e) & CT_S_FIXED_TIMEOUT);
	ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53", S(258)); /* refreshes again: 288 */
	assert_int_equal(ct_sweep(t, S(270), 1u << 20), 0);
	assert_int_equal(ct_sweep(t, S(288) + 1, 1u << 20), 1);
	ct_table_free(t);
}

/* Labels: an entry made with labels has room for them, one made without does not (-ENOSPC,
 * nothing changed), unless labels were in use when it was made (a connlabel rule). */
static void test_labels(void **state)
{
	struct ct_table *t = table(NULL);
	struct ct_entry_attrs a = {.have = CT_ATTR_TIMEOUT | CT_ATTR_LABELS, .timeout = S(30)};
	struct ct_entry_attrs u = {
	    .have = CT_ATTR_LABELS | CT_ATTR_MARK, .mark = 7, .mark_mask = ~0u};
	struct ct_entry *e, *plain;
	struct ct_labels l;

	a.labels.words[0] = 1u << 2;
	a.labels_mask.words[0] = ~0u;
	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, S(100), &e), 0);
	assert_true(ct_entry_labels(e, &l));
	assert_int_equal(l.words[0], 1u << 2);
	u.labels.words[3] = 1u << 31; /* bit 127 */
	u.labels_mask.words[3] = 1u << 31;
	assert_int_equal(ct_entry_change(t, e, &u, S(101)), 0);
	assert_true(ct_entry_labels(e, &l));
	assert_int_equal(l.words[0], 1u << 2);
	assert_int_equal(l.words[3], 1u << 31);
	a.have = CT_ATTR_TIMEOUT;
	a.orig = tuple_of("udp 10.0.0.3:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, S(100), &plain), 0);
	assert_false(ct_entry_labels(plain, &l));
	assert_int_equal(ct_entry_change(t, plain, &u, S(101)), -ENOSPC);
	assert_int_equal(ct_entry_mark(plain), 0); /* nothing changed */
	ct_labels_use(t, 1);
	a.orig = tuple_of("udp 10.0.0.4:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, S(100), &plain), 0);
	assert_true(ct_entry_labels(plain, &l));
	assert_int_equal(ct_entry_change(t, plain, &u, S(101)), 0);
	ct_labels_use(t, -1);
	ct_table_free(t);
}

static void test_full(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	struct ct_entry_attrs a = {
	    .have = CT_ATTR_TIMEOUT | CT_ATTR_STATUS, .timeout = S(30), .status = CT_S_ASSURED};

	ct_config_default(&c);
	c.max_entries = 1;
	t = ct_table_new(&c);
	a.orig = tuple_of("udp 10.0.0.2:5000 > 192.0.2.1:53");
	assert_int_equal(ct_entry_create(t, &a, 0, NULL), 0);
	a.orig = tuple_of("udp 10.0.0.3:5000 > 192.0.2.1:53");
	/* full of assured entries: refused, counted */
	assert_int_equal(ct_entry_create(t, &a, 0, NULL), -ENOSPC);
	assert_int_equal(ct_table_stats(t)->insert_failed, 1);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_udp_created_then_packets),
	    cmocka_unit_test(test_tcp_established_picked_up),
	    cmocka_unit_test(test_reply_given_and_icmp),
	    cmocka_unit_test(test_change),
	    cmocka_unit_test(test_fixed_timeout),
	    cmocka_unit_test(test_labels),
	    cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
