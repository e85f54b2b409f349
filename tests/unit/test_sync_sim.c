// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sync simulator: boxes (a conntrack table, a NAT table and a sync instance each) joined by one
 * sync link that can lose, delay, duplicate and drop everything (link down), on a virtual
 * clock stepped 1 ms at a time. Every scenario is deterministic: the link's losses come from a
 * seeded generator, never from the wall clock.
 *
 * Scenarios: replication of new/updated/destroyed connections with tuples, NAT, mark and
 * timeout; a gap answered by NACK and resend; 10 % loss with duplicates; old sequence numbers;
 * a peer restart (HELLO); RESYNC of a large table in master/expectation/child order; failover
 * of a TCP connection with a strict tracker and of a UDP flow through SNAT --random-fully;
 * the authenticated envelope (forged, replayed); malformed datagrams; direct mode; NOTRACK and
 * ALARM.
 */
#include "ct_test.h"

#include "ct/create.h"
#include "ct/ct_int.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "nat/nat.h"
#include "rules/ext.h"
#include "sync/sync.h"

#define MS(x)  ((uint64_t)(x)*1000000ull)
#define NBOX   3
#define T0     S(1700000000)
#define B64(i) (1ull << (i))
/* ALIVE|HELLO at 1 s from each side, HELLO_BACK on the next at 2 s: both DONE by 2.5 s */
#define HANDSHAKE 2500

struct dgram {
	struct dgram *next;
	uint64_t at;
	int to;
	size_t len;
	uint8_t d[];
};

struct world;

struct sbox {
	struct world *w;
	int id;
	struct ct_table *ct;
	struct nat_table *nat;
	struct sync *sync;
	uint64_t rng;
};

struct world {
	struct sbox box[NBOX];
	int n;
	uint64_t now;
	/* the link */
	unsigned loss_pct, dup_pct;
	uint64_t delay;
	bool down;
	unsigned drop_next;
	uint64_t rng;
	struct dgram *q; /* by arrival time */
	/* a copy of every datagram box 0 sent, for replays */
	uint8_t last[2048];
	size_t last_len;
	unsigned sent;
};

static uint32_t xrand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static uint32_t box_rand(void *priv)
{
	return xrand(priv);
}

static void enqueue(struct world *w, int to, const void *d, size_t len, uint64_t at)
{
	struct dgram *g = malloc(sizeof(*g) + len), **pp = &w->q;

	assert_non_null(g);
	g->at = at;
	g->to = to;
	g->len = len;
	memcpy(g->d, d, len);
	while (*pp && (*pp)->at <= at)
		pp = &(*pp)->next;
	g->next = *pp;
	*pp = g;
}

static int link_send(void *priv, const void *d, size_t len)
{
	struct sbox *b = priv;
	struct world *w = b->w;

	if (b->id == 0 && len <= sizeof(w->last)) {
		memcpy(w->last, d, len);
		w->last_len = len;
	}
	w->sent++;
	for (int to = 0; to < w->n; to++) {
		if (to == b->id || !w->box[to].sync)
			continue;
		if (w->down)
			continue;
		if (w->drop_next) {
			w->drop_next--;
			continue;
		}
		if (xrand(&w->rng) % 100 < w->loss_pct)
			continue;
		enqueue(w, to, d, len, w->now + w->delay);
		if (xrand(&w->rng) % 100 < w->dup_pct)
			enqueue(w, to, d, len, w->now + w->delay + MS(1));
	}
	return 0;
}

static const struct sync_ops ops = {.send = link_send};

static void box_init(struct world *w, int i, const struct sync_config *sc, bool loose)
{
	struct sbox *b = &w->box[i];
	struct ct_config c;

	ct_config_default(&c);
	c.max_entries = 200000;
	c.tcp_loose = loose;
	c.seed[0] = 7 + (uint64_t)i;
	b->w = w;
	b->id = i;
	b->rng = 0x9e3779b97f4a7c15ull + (uint64_t)i;
	b->ct = ct_table_new(&c);
	assert_non_null(b->ct);
	b->nat = nat_table_new(b->ct, NULL, box_rand, &b->rng);
	assert_non_null(b->nat);
	if (sc) {
		b->sync = sync_new(sc, b->ct, b->nat, &ops, b, w->now);
		assert_non_null(b->sync);
	}
}

static struct world *world_new(int n, const struct sync_config *sc)
{
	struct world *w = calloc(1, sizeof(*w));
	struct sync_config def;

	assert_non_null(w);
	if (!sc) {
		sync_config_default(&def);
		sc = &def;
	}
	w->n = n;
	w->now = T0;
	w->rng = 0x2545f4914f6cdd1dull;
	for (int i = 0; i < n; i++)
		box_init(w, i, sc, true);
	return w;
}

static void world_free(struct world *w)
{
	struct dgram *g;

	while ((g = w->q)) {
		w->q = g->next;
		free(g);
	}
	for (int i = 0; i < w->n; i++) {
		sync_free(w->box[i].sync);
		nat_table_free(w->box[i].nat);
		ct_table_free(w->box[i].ct);
	}
	free(w);
}

/* Advance the clock by `ms` milliseconds, 1 ms at a time. */
static void run(struct world *w, unsigned ms)
{
	for (unsigned i = 0; i < ms; i++) {
		struct dgram *g;

		w->now += MS(1);
		while ((g = w->q) && g->at <= w->now) {
			w->q = g->next;
			if (w->box[g->to].sync)
				sync_receive(w->box[g->to].sync, g->d, g->len, w->now);
			free(g);
		}
		for (int b = 0; b < w->n; b++)
			if (w->box[b].sync)
				sync_tick(w->box[b].sync, w->now);
	}
}

/* A connection made as `conntrack -I` makes one (NEW event on the spot). */
static struct ct_entry *add_flow(struct sbox *b, uint8_t l4, const char *src, uint16_t sport,
				 const char *dst, uint16_t dport, uint32_t mark, uint64_t timeout)
{
	struct ct_entry_attrs a;
	struct ct_entry *e;

	memset(&a, 0, sizeof(a));
	ct_tuple_zero(&a.orig);
	a.orig.family = (uint8_t)pt_addr_parse(src, &a.orig.src);
	pt_addr_parse(dst, &a.orig.dst);
	a.orig.l4proto = l4;
	a.orig.s.port = sport;
	a.orig.d.port = dport;
	a.have = CT_ATTR_MARK | CT_ATTR_TIMEOUT | CT_ATTR_STATUS | CT_ATTR_PROTO_STATE;
	a.mark = mark;
	a.timeout = timeout;
	a.status = CT_S_SEEN_REPLY | CT_S_ASSURED;
	a.proto_state = CT_TCP_ESTABLISHED;
	assert_int_equal(ct_entry_create(b->ct, &a, b->w->now, &e), 0);
	return e;
}

static const struct sync_flow *ext_find(struct sbox *b, uint8_t l4, const char *src, uint16_t sport,
					const char *dst, uint16_t dport)
{
	struct ct_tuple t;

	ct_tuple_zero(&t);
	t.family = (uint8_t)pt_addr_parse(src, &t.src);
	pt_addr_parse(dst, &t.dst);
	t.l4proto = l4;
	t.s.port = sport;
	t.d.port = dport;
	return sync_external_find(b->sync, &t);
}

static char flow_ip[64];

static const char *ip_of(uint32_t i)
{
	snprintf(flow_ip, sizeof(flow_ip), "10.%u.%u.%u", (i >> 16) & 255, (i >> 8) & 255, i & 255);
	return flow_ip;
}

/* ---- replication ------------------------------------------------------------------------- */

static void test_replicate_new_update_destroy(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	const struct sync_flow *f;
	struct ct_entry *e;

	(void)state;
	run(w, HANDSHAKE); /* HELLO / HELLO_BACK */
	e = add_flow(a, 6, "10.7.0.1", 5000, "10.8.0.1", 22, 7, S(900));
	add_flow(a, 17, "2001:db8::1", 5353, "2001:db8::2", 53, 0, S(120));
	run(w, 5);
	f = ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22);
	assert_non_null(f);
	assert_int_equal(f->mark, 7);
	assert_int_equal(f->timeout, 900);
	assert_int_equal(f->tcp_state, CT_TCP_ESTABLISHED);
	assert_non_null(ext_find(b, 17, "2001:db8::1", 5353, "2001:db8::2", 53));
	/* an update (mark) and a destroy */
	ct_entry_set_mark(e, 9);
	{
		struct ct_entry_attrs ch = {.have = CT_ATTR_MARK, .mark = 9, .mark_mask = ~0u};

		assert_int_equal(ct_entry_change(a->ct, e, &ch, w->now), 0);
	}
	run(w, 5);
	assert_int_equal(ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22)->mark, 9);
	ct_kill(a->ct, e);
	run(w, 5);
	assert_null(ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22));
	assert_int_equal(sync_stats(b->sync)->ext_count, 1);
	/* the peers said hello to each other and acknowledge what they get */
	run(w, 3000);
	assert_true(sync_stats(b->sync)->rx_hello >= 1);
	assert_int_equal(sync_stats(a->sync)->rs_len <= 2, 1);
	world_free(w);
}

/* One datagram lost: the next message shows the gap, the receiver NACKs at once, the sender
 * sends the lost messages again with new numbers. */
static void test_gap_nack_resend(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];

	(void)state;
	run(w, HANDSHAKE);
	w->drop_next = 1;
	add_flow(a, 6, "10.7.0.1", 1000, "10.8.0.1", 80, 0, S(300));
	run(w, 1);
	assert_null(ext_find(b, 6, "10.7.0.1", 1000, "10.8.0.1", 80));
	add_flow(a, 6, "10.7.0.1", 1001, "10.8.0.1", 80, 0, S(300));
	run(w, 5);
	if (getenv("SYNC_DEBUG")) {
		sync_stats_print(a->sync, stderr);
		sync_stats_print(b->sync, stderr);
	}
	assert_non_null(ext_find(b, 6, "10.7.0.1", 1001, "10.8.0.1", 80));
	assert_non_null(ext_find(b, 6, "10.7.0.1", 1000, "10.8.0.1", 80));
	assert_true(sync_stats(b->sync)->tx_nack >= 1);
	assert_true(sync_stats(a->sync)->rx_nack >= 1);
	assert_true(sync_stats(a->sync)->resent >= 1);
	assert_true(sync_stats(b->sync)->seq_lost >= 1);
	world_free(w);
}

/* The last message lost: the next ALIVE (it has a number too) shows the gap. */
static void test_tail_loss_found_by_alive(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];

	(void)state;
	run(w, HANDSHAKE);
	w->drop_next = 1;
	add_flow(a, 17, "10.7.0.1", 1000, "10.8.0.1", 53, 0, S(30));
	run(w, 2500);
	assert_non_null(ext_find(b, 17, "10.7.0.1", 1000, "10.8.0.1", 53));
	world_free(w);
}

static void test_loss_dup_delay(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	unsigned found = 0;

	(void)state;
	w->loss_pct = 10;
	w->dup_pct = 5;
	w->delay = MS(2);
	run(w, HANDSHAKE);
	for (uint32_t i = 0; i < 400; i++) {
		add_flow(a, 17, ip_of(i + 1), 4000, "192.0.2.1", 53, i, S(600));
		run(w, 3);
	}
	run(w, 10000);
	for (uint32_t i = 0; i < 400; i++) {
		const struct sync_flow *f = ext_find(b, 17, ip_of(i + 1), 4000, "192.0.2.1", 53);

		found += f && f->mark == i;
		if (getenv("SYNC_DEBUG") && !(f && f->mark == i))
			fprintf(stderr, "missing %u %p\n", i, (const void *)f);
	}
	if (getenv("SYNC_DEBUG")) {
		sync_stats_print(a->sync, stderr);
		sync_stats_print(b->sync, stderr);
	}
	assert_int_equal(found, 400);
	assert_true(sync_stats(b->sync)->seq_before > 0); /* the duplicates */
	assert_true(sync_stats(a->sync)->resent > 0);
	world_free(w);
}

/* A datagram replayed later (old sequence numbers) is dropped: the flow it created and that
 * was since destroyed does not come back. */
static void test_old_sequence_dropped(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	struct ct_entry *e;
	uint8_t old[2048];
	size_t len;
	uint64_t before;

	(void)state;
	run(w, HANDSHAKE);
	e = add_flow(a, 6, "10.7.0.9", 1000, "10.8.0.1", 80, 0, S(300));
	run(w, 1); /* the datagram with the NEW */
	memcpy(old, w->last, w->last_len);
	len = w->last_len;
	ct_kill(a->ct, e);
	run(w, 5);
	assert_null(ext_find(b, 6, "10.7.0.9", 1000, "10.8.0.1", 80));
	before = sync_stats(b->sync)->seq_before;
	sync_receive(b->sync, old, len, w->now);
	assert_int_equal(sync_stats(b->sync)->seq_before, before + 1);
	assert_null(ext_find(b, 6, "10.7.0.9", 1000, "10.8.0.1", 80));
	world_free(w);
}

/* A peer restarts with a lower sequence number: its HELLO makes the other accept it. */
static void test_peer_restart_hello(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	struct sync_config sc;
	uint64_t hello;

	(void)state;
	run(w, HANDSHAKE);
	add_flow(a, 6, "10.7.0.1", 1000, "10.8.0.1", 80, 0, S(300));
	run(w, 5);
	hello = sync_stats(b->sync)->rx_hello;
	sync_free(a->sync);
	sync_config_default(&sc);
	/* its counter starts from a clock an hour behind: "before" without HELLO */
	a->sync = sync_new(&sc, a->ct, a->nat, &ops, a, w->now - S(3600));
	assert_non_null(a->sync);
	add_flow(a, 6, "10.7.0.1", 1001, "10.8.0.1", 80, 0, S(300));
	run(w, 2000);
	assert_non_null(ext_find(b, 6, "10.7.0.1", 1001, "10.8.0.1", 80));
	assert_true(sync_stats(b->sync)->rx_hello > hello);
	world_free(w);
}

/* RESYNC of a large table: every connection arrives; masters first, then expectations, then
 * the connections they created. */
static int order_types[8];
static unsigned order_n;
static int (*real_send)(void *, const void *, size_t);

static int spy_send(void *priv, const void *d, size_t len)
{
	const uint8_t *p = d;

	for (size_t off = 0; off + 8 <= len;) {
		uint16_t l = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
		int t = p[off] & 0x0f;

		if (t <= 5) {
			/* 0: master, 1: expectation, 2: related (has MASTER_L4PROTO, id 10) */
			int cls = t >= 3 ? 1 : 0;

			for (size_t a = off + 8; a + 4 <= off + l;) {
				uint16_t al = (uint16_t)(p[a] << 8 | p[a + 1]);

				if (t < 3 && (p[a + 2] << 8 | p[a + 3]) == 10)
					cls = 2;
				a += (al + 3u) & ~3u;
			}
			if (order_n == 0 || order_types[order_n - 1] != cls) {
				if (order_n < 8)
					order_types[order_n] = cls;
				order_n++;
			}
		}
		if (!l)
			break;
		off += l;
	}
	return real_send(priv, d, len);
}

static void test_resync_large_table_in_order(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	struct sync_config sc;
	struct ct_entry_attrs ma;
	struct ct_entry *master;
	struct ct_expect x;
	union pt_addr cs, ss;
	static const struct sync_ops spy = {.send = spy_send};
	unsigned found = 0;

	(void)state;
	/* A's table exists before B listens: 20000 connections, an FTP master, its expectation
	 * and the data connection it let in */
	sync_free(b->sync);
	b->sync = NULL;
	for (uint32_t i = 0; i < 20000; i++)
		add_flow(a, 6, ip_of(i + 1), 40000, "192.0.2.80", 443, 0, S(3600));
	memset(&ma, 0, sizeof(ma));
	ct_tuple_zero(&ma.orig);
	ma.orig.family = (uint8_t)pt_addr_parse("10.50.0.1", &cs);
	pt_addr_parse("10.50.0.2", &ss);
	ma.orig.src = cs;
	ma.orig.dst = ss;
	ma.orig.l4proto = 6;
	ma.orig.s.port = 34190;
	ma.orig.d.port = 21;
	ma.have = CT_ATTR_TIMEOUT | CT_ATTR_HELPER | CT_ATTR_STATUS | CT_ATTR_PROTO_STATE;
	ma.timeout = S(3600);
	ma.status = CT_S_SEEN_REPLY | CT_S_ASSURED;
	ma.proto_state = CT_TCP_ESTABLISHED;
	ma.helper = ct_helper_find(a->ct, "ftp");
	assert_non_null(ma.helper);
	assert_int_equal(ct_entry_create(a->ct, &ma, w->now, &master), 0);
	/* two expectations: the first is used up by the data connection below */
	ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, AF_INET, &ss, &cs, 6, NULL, 10000);
	assert_int_equal(ct_expect_create(a->ct, master, &x, S(300), w->now), 0);
	/* the data connection: a SYN matching the expectation, RELATED to the master */
	assert_int_equal(
	    ct_test_feed(a->ct, "tcp 10.50.0.2:20 > 10.50.0.1:10000 syn seq=1 win=100", w->now),
	    CT_STATE_RELATED);
	ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, AF_INET, &ss, &cs, 6, NULL, 10001);
	assert_int_equal(ct_expect_create(a->ct, master, &x, S(300), w->now), 0);
	/* B comes up, asks for everything */
	sync_config_default(&sc);
	b->sync = sync_new(&sc, b->ct, b->nat, &ops, b, w->now);
	run(w, HANDSHAKE);
	real_send = ops.send;
	sync_free(a->sync);
	a->sync = sync_new(&sc, a->ct, a->nat, &spy, a, w->now);
	order_n = 0;
	run(w, 10);
	assert_int_equal(sync_request_resync(b->sync, w->now), 0);
	run(w, 3000);
	for (uint32_t i = 0; i < 20000; i++)
		found += ext_find(b, 6, ip_of(i + 1), 40000, "192.0.2.80", 443) != NULL;
	assert_int_equal(found, 20000);
	assert_non_null(ext_find(b, 6, "10.50.0.2", 20, "10.50.0.1", 10000));
	assert_int_equal(order_n, 3);
	assert_int_equal(order_types[0], 0);
	assert_int_equal(order_types[1], 1);
	assert_int_equal(order_types[2], 2);
	assert_int_equal(sync_stats(b->sync)->exp_received, 1);
	assert_int_equal(sync_stats(b->sync)->exp_count, 1);
	/* committed: the master first, then its expectation, then the data connection */
	assert_int_equal(sync_commit(b->sync, w->now), 20003); /* and the expectation */
	assert_int_equal(sync_stats(b->sync)->exp_committed, 1);
	{
		struct ct_expect *e = ct_expect_next(b->ct, NULL);

		assert_non_null(e);
		assert_int_equal(e->tuple.d.port, 10001);
		assert_null(ct_expect_next(b->ct, e));
		/* the connection it announces is RELATED on B */
		assert_int_equal(
		    ct_test_feed(b->ct, "tcp 10.50.0.2:20 > 10.50.0.1:10001 syn seq=1 win=100",
				 w->now),
		    CT_STATE_RELATED);
	}
	world_free(w);
}

/* ---- failover ---------------------------------------------------------------------------- */

#define C   "10.0.0.2:1234"
#define SRV "192.0.2.1:80"
#define OUT "tcp " C " > " SRV " "
#define IN  "tcp " SRV " > " C " "

/* A TCP connection through A, A dies, B (strict: no mid-stream pickup) carries on. */
static void test_failover_tcp_strict(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct sync_config sc;
	struct sbox *a, *b;
	struct ct_table *nosync;

	(void)state;
	w->n = 2;
	w->now = T0;
	w->rng = 1;
	sync_config_default(&sc);
	sc.tcp_window_tracking = true; /* the scale factors travel: strict once both sides seen */
	box_init(w, 0, &sc, false);
	box_init(w, 1, &sc, false);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	assert_int_equal(ct_test_feed(a->ct, OUT "syn seq=1000 win=64240", w->now), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(a->ct, IN "syn,ack seq=5000 ack=1001 win=65160", w->now),
			 CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(a->ct, OUT "ack seq=1001 ack=5001 win=502", w->now),
			 CT_STATE_ESTABLISHED);
	assert_int_equal(
	    ct_test_feed(a->ct, OUT "psh,ack seq=1001 ack=5001 win=502 len=100", w->now + MS(1)),
	    CT_STATE_ESTABLISHED);
	run(w, 10);
	/* A is gone: its sync link too */
	w->down = true;
	assert_int_equal(sync_commit(b->sync, w->now), 1);
	/* a box without the state refuses the mid-stream segment (tcp_loose off) */
	nosync = ct_test_table(100);
	{
		struct ct_config c = *ct_table_config(nosync);

		c.tcp_loose = false;
		ct_table_set_config(nosync, &c);
	}
	assert_int_equal(
	    ct_test_feed(nosync, OUT "psh,ack seq=1101 ack=5001 win=502 len=100", w->now),
	    CT_STATE_INVALID);
	ct_table_free(nosync);
	/* B takes both directions, unchecked until each was seen, then strictly */
	assert_int_equal(
	    ct_test_feed(b->ct, OUT "psh,ack seq=1101 ack=5001 win=502 len=100", w->now),
	    CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(b->ct, IN "ack seq=5001 ack=1201 win=509 len=50", w->now),
			 CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(b->ct, OUT "ack seq=1201 ack=5051 win=502", w->now),
			 CT_STATE_ESTABLISHED);
	/* strict now: a segment far outside the window is refused */
	assert_int_equal(ct_test_feed(b->ct, OUT "ack seq=900000 ack=5051 win=502 len=10", w->now),
			 CT_STATE_INVALID);
	world_free(w);
}

/* Without the scale factors (conntrackd's default, TCPWindowTracking no) a taken-over
 * connection stays liberal: windows read without their scale would refuse most segments. */
static void test_failover_tcp_no_wscale_stays_liberal(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct sync_config sc;
	struct sbox *a, *b;

	(void)state;
	w->n = 2;
	w->now = T0;
	w->rng = 1;
	sync_config_default(&sc);
	box_init(w, 0, &sc, false);
	box_init(w, 1, &sc, false);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	ct_test_feed(a->ct, OUT "syn seq=1000 win=64240", w->now);
	ct_test_feed(a->ct, IN "syn,ack seq=5000 ack=1001 win=65160", w->now);
	ct_test_feed(a->ct, OUT "ack seq=1001 ack=5001 win=502", w->now);
	run(w, 10);
	assert_int_equal(sync_commit(b->sync, w->now), 1);
	assert_int_equal(
	    ct_test_feed(b->ct, OUT "psh,ack seq=1001 ack=5001 win=502 len=100", w->now),
	    CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(b->ct, IN "ack seq=5001 ack=1101 win=509", w->now),
			 CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(b->ct, OUT "ack seq=900000 ack=5001 win=502 len=10", w->now),
			 CT_STATE_ESTABLISHED);
	world_free(w);
}

/* Through the router as test_nat_core does it: PREROUTING, SNAT decision, POSTROUTING, confirm. */
static struct pkt *route(struct sbox *b, const char *text, bool from_wan, const struct nat_range *r)
{
	struct pkt *p = ct_test_pkt(text);
	struct nat_where wh = {.in = from_wan ? 2 : 1, .out = from_wan ? 1 : 2};
	uint64_t now = b->w->now;

	assert_int_equal(ct_in(b->ct, p, from_wan, 0, now), 0);
	assert_non_null(p->ct);
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_DST))
		if (nat_inbound(b->nat, p, &wh, now) == 0)
			nat_setup_null(b->nat, p, NAT_MANIP_DST);
	assert_int_equal(nat_translate(b->nat, p, HOOK_PREROUTING, now), 0);
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_SRC)) {
		if (r)
			assert_int_equal(nat_setup(b->nat, p, NAT_MANIP_SRC, r, &wh, now), 0);
		else
			nat_setup_null(b->nat, p, NAT_MANIP_SRC);
	}
	assert_int_equal(nat_translate(b->nat, p, HOOK_POSTROUTING, now), 0);
	ct_confirm(b->ct, p, now);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	return p;
}

static void done(struct sbox *b, struct pkt *p)
{
	ct_pkt_release(b->ct, p);
	pkt_free(p);
}

static void test_failover_snat_random_fully(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	struct nat_range r;
	struct pkt *p;
	uint16_t port_a, port_b;
	char buf[128], want[128];
	const struct sync_flow *f;
	struct ct_tuple reply;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.family = (uint8_t)pt_addr_parse("203.0.113.1", &r.min_addr);
	r.max_addr = r.min_addr;
	r.flags = NAT_R_MAP_IPS | NAT_R_RANDOM_FULLY;
	run(w, HANDSHAKE);
	p = route(a, "udp 10.0.0.9:7000 > 198.51.100.1:53 len=4", false, &r);
	port_a = p->info.sport;
	done(a, p);
	run(w, 5);
	f = ext_find(b, 17, "10.0.0.9", 7000, "198.51.100.1", 53);
	assert_non_null(f);
	assert_int_equal(f->spat, port_a);
	assert_true(f->have & B64(SA_SNAT_IPV4));
	/* A dies, B commits */
	w->down = true;
	assert_int_equal(sync_commit(b->sync, w->now), 1);
	/* the client's next datagram leaves B from the same external port */
	p = route(b, "udp 10.0.0.9:7000 > 198.51.100.1:53 len=4", false, &r);
	port_b = p->info.sport;
	assert_int_equal(port_b, port_a);
	done(b, p);
	/* the server's answer to that port reaches the client */
	snprintf(buf, sizeof(buf), "udp 198.51.100.1:53 > 203.0.113.1:%u len=4", port_a);
	p = route(b, buf, true, NULL);
	pkt_spec_format(p, want, sizeof(want));
	assert_non_null(strstr(want, "10.0.0.9:7000"));
	done(b, p);
	/* the allocator sees the binding: its reply tuple is in B's table */
	memset(&reply, 0, sizeof(reply));
	reply.family = AF_INET;
	reply.l4proto = 17;
	pt_addr_parse("198.51.100.1", &reply.src);
	pt_addr_parse("203.0.113.1", &reply.dst);
	reply.s.port = 53;
	reply.d.port = port_a;
	assert_non_null(ct_lookup(b->ct, &reply, w->now, NULL));
	assert_true(nat_entry_status(ct_lookup(b->ct, &reply, w->now, NULL)) & NAT_STATUS_SRC);
	world_free(w);
}

/* ---- NAT mappings between pkttables boxes ------------------------------------------------- */

static struct nat_range eim_range(const char *ext)
{
	struct nat_range r;

	memset(&r, 0, sizeof(r));
	r.family = (uint8_t)pt_addr_parse(ext, &r.min_addr);
	r.max_addr = r.min_addr;
	r.flags = NAT_R_MAP_IPS; /* the default policies: an endpoint-independent mapping */
	return r;
}

static uint16_t sport_of(struct sbox *b, const char *text, const struct nat_range *r)
{
	struct pkt *p = route(b, text, false, r);
	uint16_t port = p->info.sport;

	done(b, p);
	return port;
}

/* A mapping made on A (a STUN-like query) appears on B; B's allocator does not give its port
 * to another host; after A fails the client keeps its external endpoint towards a new remote
 * (endpoint-independent), and a mapping taken in is not sent back. */
static void test_nat_mapping_replicated(void **state)
{
	struct sync_config sc;
	struct world *w;
	struct sbox *a, *b;
	struct nat_range r = eim_range("203.0.113.1");
	uint16_t pa, pb, pc;

	(void)state;
	sync_config_default(&sc);
	sc.peer = SYNC_PEER_PKTTABLES;
	w = world_new(2, &sc);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	pa = sport_of(a, "udp 10.0.0.9:7000 > 198.51.100.1:3478 len=4", &r);
	assert_int_equal(nat_table_stats(a->nat)->mappings, 1);
	run(w, 5);
	assert_int_equal(sync_stats(a->sync)->map_tx, 1);
	assert_int_equal(sync_stats(b->sync)->map_applied, 1);
	assert_int_equal(nat_table_stats(b->nat)->mappings, 1);
	/* taken in, not echoed back, not sent again while A keeps using it */
	run(w, 50);
	assert_int_equal(sync_stats(b->sync)->map_tx, 0);
	assert_int_equal(sync_stats(a->sync)->map_rx, 0);
	assert_int_equal(sport_of(a, "udp 10.0.0.9:7000 > 198.51.100.1:3478 len=4", &r), pa);
	run(w, 5);
	assert_int_equal(sync_stats(a->sync)->map_tx, 1);
	/* another host asking B for the same port gets another one */
	pb = sport_of(b, "udp 10.0.0.10:7000 > 198.51.100.1:3478 len=4", &r);
	assert_int_not_equal(pb, pa);
	/* A dies: the client keeps its external endpoint through B, towards a new remote too */
	w->down = true;
	pc = sport_of(b, "udp 10.0.0.9:7000 > 192.0.2.50:5060 len=4", &r);
	assert_int_equal(pc, pa);
	assert_int_equal(nat_table_stats(b->nat)->mappings, 2);
	assert_int_equal(sync_stats(b->sync)->map_refused, 0);
	world_free(w);
}

/* With a conntrackd peer (the default kind) no mapping message ever leaves; a box configured
 * for a conntrackd peer refuses one (a bad type, counted, nothing applied), and one with a bad
 * length is refused by a pkttables-kind box. */
static void test_nat_mapping_not_to_conntrackd(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *a = &w->box[0], *b = &w->box[1];
	struct nat_range r = eim_range("203.0.113.1");
	struct nat_map_state m;
	uint8_t d[SYNC_MAP_MAX];
	int n;

	(void)state;
	run(w, HANDSHAKE);
	sport_of(a, "udp 10.0.0.9:7000 > 198.51.100.1:3478 len=4", &r);
	run(w, 5);
	sync_bulk(a->sync, w->now);
	run(w, 5);
	assert_int_equal(nat_table_stats(a->nat)->mappings, 1);
	assert_int_equal(sync_stats(a->sync)->map_tx, 0);
	assert_int_equal(sync_stats(b->sync)->map_rx, 0);
	assert_int_equal(sync_stats(b->sync)->rx_malformed, 0);
	assert_int_equal(nat_table_stats(b->nat)->mappings, 0);
	/* such a message all the same: refused by type */
	memset(&m, 0, sizeof(m));
	m.family = AF_INET;
	m.l4proto = 17;
	m.mode = NAT_B_EI;
	pt_addr_parse("10.0.0.9", &m.int_addr);
	pt_addr_parse("203.0.113.1", &m.ext_addr);
	m.int_port = m.ext_port = 7000;
	m.timeout = S(300);
	m.range = r;
	n = sync_map_encode(d, sizeof(d), &m);
	assert_int_equal(n, 56);
	sync_receive(b->sync, d, (size_t)n, w->now);
	assert_int_equal(sync_stats(b->sync)->rx_err[SYNC_RX_BAD_TYPE], 1);
	assert_int_equal(nat_table_stats(b->nat)->mappings, 0);
	world_free(w);
	/* a pkttables-kind box: a short one is refused, a good one taken in */
	{
		struct sync_config sc;

		sync_config_default(&sc);
		sc.peer = SYNC_PEER_PKTTABLES;
		sc.mode = SYNC_MODE_NOTRACK;
		w = world_new(1, &sc);
		b = &w->box[0];
		d[3] = (uint8_t)(n - 4); /* len 52 */
		sync_receive(b->sync, d, (size_t)n - 4, w->now);
		assert_int_equal(sync_stats(b->sync)->rx_err[SYNC_RX_BAD_SIZE], 1);
		assert_int_equal(nat_table_stats(b->nat)->mappings, 0);
		d[3] = (uint8_t)n;
		d[8 + 23] = 1; /* the zero byte */
		sync_receive(b->sync, d, (size_t)n, w->now);
		assert_int_equal(sync_stats(b->sync)->rx_err[SYNC_RX_BAD_PAYLOAD], 1);
		d[8 + 23] = 0;
		sync_receive(b->sync, d, (size_t)n, w->now);
		assert_int_equal(sync_stats(b->sync)->map_applied, 1);
		assert_int_equal(nat_table_stats(b->nat)->mappings, 1);
		assert_int_equal(sync_stats(b->sync)->rx_malformed, 2);
		world_free(w);
	}
}

/* ---- refusals ---------------------------------------------------------------------------- */

static void test_malformed_counted_nothing_applied(void **state)
{
	struct world *w = world_new(2, NULL);
	struct sbox *b = &w->box[1];
	uint8_t d[64];
	uint64_t bad;

	(void)state;
	run(w, HANDSHAKE);
	bad = sync_stats(b->sync)->rx_malformed;
	memset(d, 0xff, sizeof(d));
	sync_receive(b->sync, d, sizeof(d), w->now);
	sync_receive(b->sync, d, 3, w->now);
	memset(d, 0, sizeof(d));
	/* 12 bytes of nothing: an attribute of len 0 (HELLO, so no sequence check drops it) */
	sync_hdr_put(d, SYNC_T_CT_NEW, SYNC_F_HELLO, 20, 0);
	sync_receive(b->sync, d, 20, w->now);
	assert_true(sync_stats(b->sync)->rx_malformed >= bad + 3);
	assert_int_equal(sync_stats(b->sync)->ext_count, 0);
	/* it carries on */
	add_flow(&w->box[0], 17, "10.1.1.1", 1, "10.2.2.2", 2, 0, S(30));
	run(w, 3000);
	assert_non_null(ext_find(b, 17, "10.1.1.1", 1, "10.2.2.2", 2));
	world_free(w);
}

static void test_auth_forged_and_replayed(void **state)
{
	struct sync_config sc;
	struct world *w;
	struct sbox *a, *b;
	uint8_t copy[2048];
	size_t len;

	(void)state;
	sync_config_default(&sc);
	sc.peer = SYNC_PEER_PKTTABLES;
	sc.auth = true;
	for (int i = 0; i < SYNC_KEY_LEN; i++)
		sc.key[i] = (uint8_t)(i * 7 + 1);
	w = world_new(2, &sc);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	add_flow(a, 17, "10.1.1.1", 1, "10.2.2.2", 2, 0, S(30));
	run(w, 1);
	memcpy(copy, w->last, w->last_len);
	len = w->last_len;
	run(w, 5);
	assert_non_null(ext_find(b, 17, "10.1.1.1", 1, "10.2.2.2", 2));
	/* replayed */
	sync_receive(b->sync, copy, len, w->now);
	assert_int_equal(sync_stats(b->sync)->rx_replay, 1);
	/* forged: one bit of the payload changed */
	copy[20] ^= 1;
	sync_receive(b->sync, copy, len, w->now);
	assert_int_equal(sync_stats(b->sync)->rx_auth_fail, 1);
	/* a plain conntrackd datagram is not accepted either */
	sync_receive(b->sync, copy + 12, len - 44, w->now);
	assert_int_equal(sync_stats(b->sync)->rx_auth_fail, 2);
	/* a box with another key is not heard */
	sync_free(a->sync);
	sc.key[0] ^= 0x80;
	a->sync = sync_new(&sc, a->ct, a->nat, &ops, a, w->now);
	add_flow(a, 17, "10.1.1.1", 3, "10.2.2.2", 2, 0, S(30));
	run(w, 10);
	assert_null(ext_find(b, 17, "10.1.1.1", 3, "10.2.2.2", 2));
	assert_true(sync_stats(b->sync)->rx_auth_fail > 2);
	world_free(w);
}

/* ---- modes ------------------------------------------------------------------------------- */

static void test_direct_mode(void **state)
{
	struct sync_config sc;
	struct world *w;
	struct ct_entry *e;
	struct ct_tuple t;

	(void)state;
	sync_config_default(&sc);
	sc.disable_external = true;
	w = world_new(2, &sc);
	run(w, HANDSHAKE);
	e = add_flow(&w->box[0], 6, "10.7.0.1", 5000, "10.8.0.1", 22, 5, S(900));
	run(w, 5);
	t = *ct_entry_tuple(e, CT_DIR_ORIGINAL);
	assert_non_null(ct_lookup(w->box[1].ct, &t, w->now, NULL));
	assert_int_equal(ct_entry_mark(ct_lookup(w->box[1].ct, &t, w->now, NULL)), 5);
	/* B's own apply is not echoed back to A as a new event */
	assert_int_equal(sync_stats(w->box[1].sync)->int_sent_new, 0);
	ct_kill(w->box[0].ct, e);
	run(w, 5);
	assert_null(ct_lookup(w->box[1].ct, &t, w->now, NULL));
	world_free(w);
}

static void test_notrack_and_alarm(void **state)
{
	struct sync_config sc;
	struct world *w;

	(void)state;
	sync_config_default(&sc);
	sc.mode = SYNC_MODE_NOTRACK;
	w = world_new(2, &sc);
	add_flow(&w->box[0], 17, "10.1.1.1", 1, "10.2.2.2", 2, 0, S(30));
	run(w, 2500);
	assert_non_null(ext_find(&w->box[1], 17, "10.1.1.1", 1, "10.2.2.2", 2));
	assert_int_equal(sync_stats(w->box[1].sync)->tx_ack, 0);
	assert_true(sync_stats(w->box[1].sync)->tx_alive >= 2);
	world_free(w);

	sc.mode = SYNC_MODE_ALARM;
	sc.refresh_time = S(5);
	sc.cache_timeout = S(12);
	w = world_new(2, &sc);
	w->down = true; /* the NEW is lost: the refresh brings it */
	add_flow(&w->box[0], 17, "10.1.1.1", 1, "10.2.2.2", 2, 0, S(3600));
	run(w, 10);
	w->down = false;
	run(w, 6000);
	assert_non_null(ext_find(&w->box[1], 17, "10.1.1.1", 1, "10.2.2.2", 2));
	assert_int_equal(sync_stats(w->box[0].sync)->tx_alive, 0);
	/* the sender goes silent: the external entry expires */
	w->down = true;
	run(w, 13000);
	assert_null(ext_find(&w->box[1], 17, "10.1.1.1", 1, "10.2.2.2", 2));
	assert_true(sync_stats(w->box[1].sync)->ext_expired >= 1);
	world_free(w);
}

/* Bounded: the external cache refuses beyond its limit and counts it. */
static void test_external_bounded(void **state)
{
	struct sync_config sc;
	struct world *w;

	(void)state;
	sync_config_default(&sc);
	sc.external_max = 50;
	w = world_new(2, &sc);
	run(w, HANDSHAKE);
	for (uint32_t i = 0; i < 80; i++)
		add_flow(&w->box[0], 17, ip_of(i + 1), 1, "10.2.2.2", 2, 0, S(30));
	run(w, 20);
	assert_int_equal(sync_stats(w->box[1].sync)->ext_count, 50);
	assert_int_equal(sync_stats(w->box[1].sync)->ext_full, 30);
	world_free(w);
}

/* Events of one connection waiting together leave as one message; a connection created and
 * destroyed before it was sent is never mentioned. */
static void test_coalesce_with_hold(void **state)
{
	struct sync_config sc;
	struct world *w;
	struct sbox *a, *b;
	struct ct_entry *e;
	uint64_t msgs;

	(void)state;
	sync_config_default(&sc);
	sc.tx_hold = MS(5);
	w = world_new(2, &sc);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	msgs = sync_stats(a->sync)->int_sent_new + sync_stats(a->sync)->int_sent_upd;
	e = add_flow(a, 6, "10.7.0.1", 5000, "10.8.0.1", 22, 1, S(900));
	for (uint32_t m = 2; m <= 4; m++) {
		struct ct_entry_attrs ch = {.have = CT_ATTR_MARK, .mark = m, .mark_mask = ~0u};

		run(w, 1);
		assert_int_equal(ct_entry_change(a->ct, e, &ch, w->now), 0);
	}
	assert_null(ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22)); /* held */
	run(w, 10);
	assert_non_null(ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22));
	assert_int_equal(ext_find(b, 6, "10.7.0.1", 5000, "10.8.0.1", 22)->mark, 4);
	assert_int_equal(sync_stats(a->sync)->int_sent_new + sync_stats(a->sync)->int_sent_upd,
			 msgs + 1);
	assert_int_equal(sync_stats(a->sync)->coalesced, 3);
	/* made and gone within the hold: nothing at all */
	e = add_flow(a, 17, "10.7.0.2", 1, "10.8.0.2", 2, 0, S(30));
	run(w, 1);
	ct_kill(a->ct, e);
	run(w, 10);
	assert_int_equal(sync_stats(a->sync)->int_sent_new + sync_stats(a->sync)->int_sent_upd,
			 msgs + 1);
	assert_int_equal(sync_stats(a->sync)->int_sent_del, 0);
	world_free(w);
}

/* The default: a new connection leaves at the next tick, the updates of an ASSURED one wait
 * tx_hold_update (0.5 ms)
 * and leave as one UPD; a DEL carries the tuple only, and a DEL always leaves before the NEW of
 * a later connection with the same tuple. */
static void test_default_hold_updates(void **state)
{
	struct sync_config sc;
	struct world *w;
	struct sbox *a, *b;
	struct ct_entry *e;
	const struct sync_stats *st;
	uint64_t n0, u0;

	(void)state;
	sync_config_default(&sc);
	assert_int_equal(sc.tx_hold, 0);
	w = world_new(2, &sc);
	assert_int_equal(sync_get_config(w->box[0].sync)->tx_hold_update, 500000);
	a = &w->box[0];
	b = &w->box[1];
	run(w, HANDSHAKE);
	st = sync_stats(a->sync);
	n0 = st->int_sent_new;
	u0 = st->int_sent_upd;
	e = add_flow(a, 6, "10.7.1.1", 5000, "10.8.1.1", 22, 1, S(900));
	sync_tick(a->sync, w->now);
	assert_int_equal(st->int_sent_new, n0 + 1); /* at the next tick */
	run(w, 3);
	assert_non_null(ext_find(b, 6, "10.7.1.1", 5000, "10.8.1.1", 22));
	assert_int_equal(st->int_sent_new, n0 + 1);
	for (uint32_t m = 2; m <= 4; m++) {
		struct ct_entry_attrs ch = {.have = CT_ATTR_MARK, .mark = m, .mark_mask = ~0u};

		assert_int_equal(ct_entry_change(a->ct, e, &ch, w->now), 0);
	}
	assert_int_equal(st->int_sent_upd, u0); /* held */
	run(w, 10);
	assert_int_equal(st->int_sent_upd, u0 + 1);
	assert_int_equal(ext_find(b, 6, "10.7.1.1", 5000, "10.8.1.1", 22)->mark, 4);
	/* gone, and at once a new connection with the same tuple: DEL first, then NEW */
	{
		struct ct_entry_attrs ch = {.have = CT_ATTR_MARK, .mark = 9, .mark_mask = ~0u};

		assert_int_equal(ct_entry_change(a->ct, e, &ch, w->now), 0); /* an UPD held */
	}
	ct_kill(a->ct, e);
	e = add_flow(a, 6, "10.7.1.1", 5000, "10.8.1.1", 22, 1, S(900));
	run(w, 10);
	assert_int_equal(st->int_sent_del, 1);
	assert_non_null(e);
	assert_non_null(ext_find(b, 6, "10.7.1.1", 5000, "10.8.1.1", 22));
	assert_int_equal(ext_find(b, 6, "10.7.1.1", 5000, "10.8.1.1", 22)->mark, 1);
	assert_int_equal(sync_stats(b->sync)->rx_malformed, 0);
	world_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replicate_new_update_destroy),
	    cmocka_unit_test(test_gap_nack_resend),
	    cmocka_unit_test(test_tail_loss_found_by_alive),
	    cmocka_unit_test(test_loss_dup_delay),
	    cmocka_unit_test(test_old_sequence_dropped),
	    cmocka_unit_test(test_peer_restart_hello),
	    cmocka_unit_test(test_resync_large_table_in_order),
	    cmocka_unit_test(test_failover_tcp_strict),
	    cmocka_unit_test(test_failover_tcp_no_wscale_stays_liberal),
	    cmocka_unit_test(test_failover_snat_random_fully),
	    cmocka_unit_test(test_malformed_counted_nothing_applied),
	    cmocka_unit_test(test_auth_forged_and_replayed),
	    cmocka_unit_test(test_direct_mode),
	    cmocka_unit_test(test_notrack_and_alarm),
	    cmocka_unit_test(test_external_bounded),
	    cmocka_unit_test(test_coalesce_with_hold),
	    cmocka_unit_test(test_default_hold_updates),
	    cmocka_unit_test(test_nat_mapping_replicated),
	    cmocka_unit_test(test_nat_mapping_not_to_conntrackd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
