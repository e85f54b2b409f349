// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The conntrack table: confirmation, eviction of the oldest unassured entry when full, the
 * sweep, events with their masks, accounting, the listing, the entry size.
 */
#include "ct_test.h"

#include "ct/ct_int.h"

static const char *udp_flow(char *buf, size_t len, unsigned i, bool reply)
{
	if (reply)
		snprintf(buf, len, "udp 192.0.2.1:53 > 10.0.0.2:%u len=8", 1000 + i);
	else
		snprintf(buf, len, "udp 10.0.0.2:%u > 192.0.2.1:53 len=8", 1000 + i);
	return buf;
}

static void test_entry_size(void **state)
{
	struct ct_table *t = ct_test_table(64);

	/* measured, not asserted tightly: printed for the record (issue 4 asks for it) */
	print_message("sizeof(struct ct_entry) = %zu bytes; accounting extension block %zu bytes "
		      "(header %zu + %zu)\n",
		      ct_entry_size(),
		      (offsetof(struct ct_ext, data) + ct_ext_size(t, CT_EXT_ACCT)),
		      offsetof(struct ct_ext, data), ct_ext_size(t, CT_EXT_ACCT));
	assert_true(ct_entry_size() <= 256);
	ct_table_free(t);
}

/* The hot/cold layout (ct_int.h): the fields an established packet reads lie together, and the
 * cold fields put in the nodes' spare bytes keep their meaning. Entries come from calloc, not
 * on a line boundary (ct_entry_alloc says why), so only distances are checked. */
static void test_entry_layout(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e[8];

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		char b[96];

		ct_test_feed(t, udp_flow(b, sizeof(b), i, false), 0);
		e[i] = ct_test_find(t, udp_flow(b, sizeof(b), i, false), 0);
		assert_non_null(e[i]);
		assert_int_equal((uintptr_t)&e[i]->th[1] - (uintptr_t)e[i], CT_LINE);
		assert_true((uintptr_t)&e[i]->proto.udp.stream_ts - (uintptr_t)&e[i]->expires <
			    CT_LINE);
		/* the cold fields keep their meaning where they now live */
		assert_int_equal(ct_entry_id(e[i]), i + 1);
		assert_null(e[i]->master);
		assert_int_equal(e[i]->th[0].dir, CT_DIR_ORIGINAL);
		assert_int_equal(e[i]->th[1].dir, CT_DIR_REPLY);
	}
	ct_table_free(t);
}

/* An extension's size comes from its registration with the table: conntrack's own are there
 * from the start, another (NAT's binding) only once registered, and only with one size. */
static void test_ext_register(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	unsigned char *x;

	(void)state;
	assert_int_not_equal(ct_ext_size(t, CT_EXT_ACCT), 0);
	assert_int_equal(ct_ext_size(t, CT_EXT_NAT), 0);
	ct_test_feed(t, "udp 10.0.0.2:1000 > 192.0.2.1:53 len=8", 0);
	e = ct_test_find(t, "udp 10.0.0.2:1000 > 192.0.2.1:53 len=8", 0);
	assert_non_null(e);
	assert_null(ct_ext_add(t, e, CT_EXT_NAT)); /* not registered: refused */
	assert_int_equal(ct_ext_register(t, CT_EXT_NAT, 0), -EINVAL);
	assert_int_equal(ct_ext_register(t, CT_EXT_NUM, 8), -EINVAL);
	assert_int_equal(ct_ext_register(t, CT_EXT_NAT, 40), 0);
	assert_int_equal(ct_ext_register(t, CT_EXT_NAT, 40), 0);
	assert_int_equal(ct_ext_register(t, CT_EXT_NAT, 48), -EEXIST);
	assert_int_equal(ct_ext_size(t, CT_EXT_NAT), 40);
	x = ct_ext_add(t, e, CT_EXT_NAT);
	assert_non_null(x);
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(x[i], 0);
	assert_ptr_equal(ct_ext_find(e, CT_EXT_NAT), x);
	ct_table_free(t);
}

static void test_unconfirmed_leaves_nothing(void **state)
{
	struct ct_table *t = ct_test_table(8);
	struct pkt *p = ct_test_pkt("udp 10.0.0.2:1 > 192.0.2.1:2 len=8");

	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_non_null(p->ct);
	assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->unconfirmed, 1);
	/* not inserted: invisible to lookups */
	assert_null(ct_test_find(t, "udp 10.0.0.2:1 > 192.0.2.1:2 len=8", 0));
	/* the packet is dropped by a rule: its release frees the entry */
	ct_pkt_release(t, p);
	assert_null(p->ct);
	assert_int_equal(ct_table_stats(t)->unconfirmed, 0);
	assert_int_equal(ct_table_stats(t)->count, 0);
	pkt_free(p);
	ct_table_free(t);
}

static void test_loopback_packet_tracked_once(void **state)
{
	struct ct_table *t = ct_test_table(8);
	struct pkt *p = ct_test_pkt("udp 10.0.0.1:1 > 10.0.0.1:2 len=8");
	void *first;

	assert_int_equal(ct_in(t, p, false, 0, 0), 0); /* OUTPUT */
	first = p->ct;
	assert_int_equal(ct_confirm(t, p, 0), 0); /* POSTROUTING */
	ct_pkt_release(t, p);
	assert_ptr_equal(p->ct, first);		      /* borrowed while in the table */
	assert_int_equal(ct_in(t, p, true, 0, 0), 0); /* PREROUTING on lo: left alone */
	assert_ptr_equal(p->ct, first);
	assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
	assert_int_equal(ct_confirm(t, p, 0), 0); /* INPUT */
	assert_int_equal(ct_table_stats(t)->count, 1);
	assert_int_equal(ct_entry_use(first), 1);
	pkt_free(p);
	ct_table_free(t);
}

static void test_untracked(void **state)
{
	struct ct_table *t = ct_test_table(8);
	struct pkt *p = ct_test_pkt("udp 10.0.0.2:1 > 192.0.2.1:2 len=8");

	ct_pkt_set_untracked(p); /* raw table: NOTRACK */
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_null(p->ct);
	assert_int_equal(ct_pkt_state(p), CT_STATE_UNTRACKED);
	assert_int_equal(ct_table_stats(t)->count, 0);
	pkt_free(p);
	ct_table_free(t);
}

static void test_full_evicts_oldest_unassured(void **state)
{
	struct ct_table *t = ct_test_table(4);
	char b[96];

	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(ct_test_feed(t, udp_flow(b, sizeof(b), i, false), S(i)),
				 CT_STATE_NEW);
	/* flow 0 (the oldest) becomes assured: a reply, then a packet after 2 s */
	ct_test_feed(t, udp_flow(b, sizeof(b), 0, true), S(4));
	ct_test_feed(t, udp_flow(b, sizeof(b), 0, false), S(5));
	assert_true(ct_entry_status(ct_test_find(t, udp_flow(b, sizeof(b), 0, false), S(5))) &
		    CT_S_ASSURED);
	/* a fifth flow: flow 1, the oldest not assured, goes */
	assert_int_equal(ct_test_feed(t, udp_flow(b, sizeof(b), 4, false), S(6)), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->early_drop, 1);
	assert_int_equal(ct_table_stats(t)->count, 4);
	assert_non_null(ct_test_find(t, udp_flow(b, sizeof(b), 0, false), S(6)));
	assert_null(ct_test_find(t, udp_flow(b, sizeof(b), 1, false), S(6)));
	assert_non_null(ct_test_find(t, udp_flow(b, sizeof(b), 2, false), S(6)));
	assert_non_null(ct_test_find(t, udp_flow(b, sizeof(b), 4, false), S(6)));
	ct_table_free(t);
}

static void test_full_of_assured_refuses(void **state)
{
	struct ct_table *t = ct_test_table(2);
	struct ct_result r;
	char b[96];

	for (unsigned i = 0; i < 2; i++) {
		ct_test_feed(t, udp_flow(b, sizeof(b), i, false), 0);
		ct_test_feed(t, udp_flow(b, sizeof(b), i, true), S(1));
		ct_test_feed(t, udp_flow(b, sizeof(b), i, false), S(3));
	}
	ct_test_feed_r(t, udp_flow(b, sizeof(b), 9, false), S(4), &r);
	assert_int_equal(r.ret, -ENOMEM);
	assert_int_equal(ct_table_stats(t)->drop, 1);
	assert_int_equal(ct_table_stats(t)->early_drop, 0);
	assert_int_equal(ct_table_stats(t)->count, 2);
	ct_table_free(t);
}

static void test_sweep_is_bounded_and_complete(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	char b[96];
	unsigned removed = 0, calls = 0;

	ct_config_default(&c);
	c.max_entries = 1000;
	c.buckets = 64;
	t = ct_table_new(&c);
	for (unsigned i = 0; i < 100; i++)
		ct_test_feed(t, udp_flow(b, sizeof(b), i, false), i < 50 ? 0 : S(20));
	/* at 30 s the first 50 are expired; 8 buckets per call, 8 calls cover all 64 */
	while (calls < 8) {
		removed += ct_sweep(t, S(30), 8);
		calls++;
	}
	assert_int_equal(removed, 50);
	assert_int_equal(ct_table_stats(t)->count, 50);
	assert_int_equal(ct_sweep(t, S(30), 64), 0);
	assert_int_equal(ct_sweep(t, S(50), 1000), 50);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

/*
 * The box's sweep runs by elapsed time (ct_sweep_elapsed): a clock that moves at every packet
 * (replay) costs a bucket now and then, a jump costs at most CT_SWEEP_SLICE_MAX buckets, never
 * the whole table; the whole table is still covered once per CT_SWEEP_PERIOD; and an entry past
 * its timeout is gone for lookups whether the sweep reached it or not.
 */
static void test_sweep_by_elapsed_time(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	char b[96];
	struct ct_result r;
	uint64_t now, v0;
	unsigned moves;

	(void)state;
	ct_config_default(&c);
	c.max_entries = 10000;
	c.buckets = 4096;
	t = ct_table_new(&c);
	assert_non_null(t);
	for (unsigned i = 0; i < 200; i++)
		ct_test_feed(t, udp_flow(b, sizeof(b), i, false), 0); /* unreplied UDP: 30 s */
	assert_int_equal(ct_table_stats(t)->count, 200);

	/* a jump of 31 s: one slice, not a pass */
	now = S(31);
	assert_int_equal(ct_sweep_elapsed(t, now), CT_SWEEP_SLICE_MAX);
	assert_int_equal(t->sweep_visited, CT_SWEEP_SLICE_MAX);
	assert_true(ct_table_stats(t)->count > 0); /* most expired entries are not swept yet */

	/* a clock move per packet: 1000 moves of 1 us are worth 4096 * 1 ms / 1 s = 4 buckets */
	v0 = t->sweep_visited;
	for (moves = 0; moves < 1000; moves++)
		assert_true(ct_sweep_elapsed(t, now += 1000) <= 1);
	assert_true(t->sweep_visited - v0 <= 5);

	/* expired but not swept: gone for the lookup, and a new packet of it is NEW */
	for (unsigned i = 0; i < 200; i++)
		assert_null(ct_test_find(t, udp_flow(b, sizeof(b), i, false), now));
	ct_test_feed_r(t, udp_flow(b, sizeof(b), 0, false), now, &r);
	assert_int_equal(r.state, CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 1);

	/* an hour in one move: still one slice */
	v0 = t->sweep_visited;
	assert_int_equal(ct_sweep_elapsed(t, now += 3600 * CT_SEC), CT_SWEEP_SLICE_MAX);
	assert_int_equal(t->sweep_visited - v0, CT_SWEEP_SLICE_MAX);

	/* moves of 10 ms for one period: every bucket visited, the expired entry swept */
	v0 = t->sweep_visited;
	for (moves = 0; moves < 100; moves++)
		assert_true(ct_sweep_elapsed(t, now += CT_SWEEP_PERIOD / 100) <=
			    CT_SWEEP_SLICE_MAX);
	assert_true(t->sweep_visited - v0 >= 4096 - 100);
	assert_true(t->sweep_visited - v0 <= 4096);
	ct_sweep_elapsed(t, now += CT_SWEEP_PERIOD / 50);
	assert_int_equal(ct_table_stats(t)->count, 0);
	assert_int_equal(ct_table_stats(t)->expired, 201); /* and the one made again */
	ct_table_free(t);
}

struct ev {
	uint32_t mask;
	uint64_t id;
	enum ct_destroy_reason why;
};

struct ev_log {
	struct ev ev[32];
	unsigned n;
};

static void record(void *priv, uint32_t events, const struct ct_entry *e,
		   enum ct_destroy_reason why)
{
	struct ev_log *l = priv;

	assert_true(l->n < 32);
	l->ev[l->n].mask = events;
	l->ev[l->n].id = ct_entry_id(e);
	l->ev[l->n].why = why;
	l->n++;
}

#define OUT "tcp 10.0.0.2:1234 > 192.0.2.1:80 "
#define IN  "tcp 192.0.2.1:80 > 10.0.0.2:1234 "

static void test_events(void **state)
{
	struct ct_table *t = ct_test_table(8);
	struct ev_log log = {0};
	struct pkt *p;

	assert_int_equal(ct_event_subscribe(t, record, &log), 0);
	ct_test_feed(t, OUT "syn seq=1000 win=64240", 0);
	assert_int_equal(log.n, 1);
	assert_int_equal(log.ev[0].mask, CT_EV_NEW | CT_EV_PROTOINFO);
	ct_test_feed(t, IN "syn,ack seq=5000 ack=1001 win=65160", 0);
	assert_int_equal(log.n, 2);
	assert_int_equal(log.ev[1].mask, CT_EV_REPLY | CT_EV_PROTOINFO);
	ct_test_feed(t, OUT "ack seq=1001 ack=5001 win=502", 0);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.ev[2].mask, CT_EV_ASSURED | CT_EV_PROTOINFO);
	/* nothing changed: no event */
	ct_test_feed(t, OUT "ack seq=1001 ack=5001 win=502 len=10", 0);
	assert_int_equal(log.n, 3);
	/* a mark set by a rule (CONNMARK) is reported with that packet's confirmation */
	p = ct_test_pkt(IN "ack seq=5001 ack=1011 win=509");
	ct_in(t, p, true, 0, S(1));
	ct_entry_set_mark(ct_pkt_entry(p), 7);
	ct_confirm(t, p, S(1));
	ct_pkt_release(t, p);
	pkt_free(p);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.ev[3].mask, CT_EV_MARK);
	/* expiry: destroy with the reason */
	assert_null(ct_test_find(t, OUT "ack", S(1) + S(432000)));
	assert_int_equal(log.n, 5);
	assert_int_equal(log.ev[4].mask, CT_EV_DESTROY);
	assert_int_equal(log.ev[4].why, CT_GONE_TIMEOUT);
	assert_int_equal(log.ev[4].id, log.ev[0].id);
	/* a packet dropped before confirmation fires nothing */
	p = ct_test_pkt(OUT "syn seq=1 win=1");
	ct_in(t, p, true, 0, S(500000));
	ct_pkt_release(t, p);
	pkt_free(p);
	assert_int_equal(log.n, 5);
	assert_int_equal(ct_event_unsubscribe(t, record, &log), 0);
	ct_table_free(t);
}

static void test_eviction_event(void **state)
{
	struct ct_table *t = ct_test_table(1);
	struct ev_log log = {0};
	char b[96];

	ct_event_subscribe(t, record, &log);
	ct_test_feed(t, udp_flow(b, sizeof(b), 0, false), 0);
	ct_test_feed(t, udp_flow(b, sizeof(b), 1, false), 0);
	assert_int_equal(log.n, 3);
	assert_int_equal(log.ev[0].mask, CT_EV_NEW);
	assert_int_equal(log.ev[1].mask, CT_EV_DESTROY);
	assert_int_equal(log.ev[1].why, CT_GONE_EVICTED);
	assert_int_equal(log.ev[2].mask, CT_EV_NEW);
	ct_table_free(t); /* flush: one more destroy */
	assert_int_equal(log.n, 4);
	assert_int_equal(log.ev[3].why, CT_GONE_FLUSH);
}

static void test_accounting_and_dump(void **state)
{
	struct ct_config c;
	struct ct_table *t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ct_config_default(&c);
	c.acct = true;
	t = ct_table_new(&c);
	ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20", 0); /* 48 bytes */
	ct_test_feed(t, "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20", 0);
	ct_test_feed(t, "udp 192.0.2.1:53 > 10.0.0.2:5000 len=100", S(1)); /* 128 bytes */
	ct_test_feed(t, "icmp 10.0.0.2 > 192.0.2.1 echo-request id=1", S(1));
	f = open_memstream(&buf, &len);
	assert_int_equal(ct_dump(t, f, S(2)), 2);
	fclose(f);
	assert_string_equal(buf,
			    "udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 "
			    "packets=2 bytes=96 src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 "
			    "packets=1 bytes=128 mark=0 use=1\n"
			    "icmp     1 29 src=10.0.0.2 dst=192.0.2.1 type=8 code=0 id=1 packets=1 "
			    "bytes=28 [UNREPLIED] src=192.0.2.1 dst=10.0.0.2 type=0 code=0 id=1 "
			    "packets=0 bytes=0 mark=0 use=1\n");
	free(buf);
	ct_table_free(t);
}

static void test_zone_separates(void **state)
{
	struct ct_table *t = ct_test_table(8);
	struct pkt *p = ct_test_pkt("udp 10.0.0.2:1 > 192.0.2.1:2 len=8");
	struct pkt *q = ct_test_pkt("udp 10.0.0.2:1 > 192.0.2.1:2 len=8");
	char line[512];

	ct_in(t, p, true, 0, 0);
	ct_confirm(t, p, 0);
	ct_in(t, q, true, 5, 0);
	assert_int_equal(ct_pkt_state(q), CT_STATE_NEW);
	assert_ptr_not_equal(p->ct, q->ct);
	ct_confirm(t, q, 0);
	assert_int_equal(ct_table_stats(t)->count, 2);
	ct_entry_format(q->ct, 0, line, sizeof(line));
	assert_string_equal(line, "udp      17 30 src=10.0.0.2 dst=192.0.2.1 sport=1 dport=2 "
				  "[UNREPLIED] src=192.0.2.1 dst=10.0.0.2 sport=2 dport=1 mark=0 "
				  "zone=5 use=2");
	ct_pkt_release(t, p);
	ct_pkt_release(t, q);
	pkt_free(p);
	pkt_free(q);
	ct_table_free(t);
}

static void test_hash_seed_matters(void **state)
{
	struct ct_config c;
	struct ct_table *a, *b;
	unsigned differ = 0, used = 0;
	uint8_t hit[64] = {0};
	char txt[96];

	ct_config_default(&c);
	a = ct_table_new(&c);
	c.seed[0] ^= 1;
	b = ct_table_new(&c);
	for (unsigned i = 0; i < 64; i++) {
		struct pkt *q = ct_test_pkt(udp_flow(txt, sizeof(txt), i, false));
		struct ct_tuple tu;

		assert_int_equal(ct_tuple_from_pkt(q, 0, &tu), 0);
		differ += ct_hash_tuple(a, &tu) != ct_hash_tuple(b, &tu);
		hit[ct_hash_tuple(a, &tu) & 63] = 1;
		pkt_free(q);
	}
	for (unsigned i = 0; i < 64; i++)
		used += hit[i];
	/* another seed, other hashes; 64 flows differing in one port spread over the buckets
	 * (a uniform hash fills ~63% of 64 buckets with 64 keys) */
	assert_int_equal(differ, 64);
	assert_true(used >= 32);
	ct_table_free(a);
	ct_table_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entry_size),
	    cmocka_unit_test(test_entry_layout),
	    cmocka_unit_test(test_ext_register),
	    cmocka_unit_test(test_unconfirmed_leaves_nothing),
	    cmocka_unit_test(test_loopback_packet_tracked_once),
	    cmocka_unit_test(test_untracked),
	    cmocka_unit_test(test_full_evicts_oldest_unassured),
	    cmocka_unit_test(test_full_of_assured_refuses),
	    cmocka_unit_test(test_sweep_is_bounded_and_complete),
	    cmocka_unit_test(test_sweep_by_elapsed_time),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_eviction_event),
	    cmocka_unit_test(test_accounting_and_dump),
	    cmocka_unit_test(test_zone_separates),
	    cmocka_unit_test(test_hash_seed_matters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
