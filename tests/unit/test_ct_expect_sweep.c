// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Expectations expire by the box clock: ct_expect_sweep_elapsed removes them in slices (the
 * whole table once per second of clock, at most CT_EXPECT_SWEEP_SLICE buckets a call), and no
 * decision depends on when it ran: two tables given the same registrations and lookups, one
 * swept at every clock move and one never (until a limit makes registration pass over all),
 * answer every registration and every lookup the same, hold the same live expectations and
 * count the same creations, evictions and refusals.
 */
#include "ct_test.h"

#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"

#define MASTERS 3

/* Master i: an established FTP control connection 10.0.0.(2+i):(4000+i) -> 192.0.2.1:21 with
 * the helper (ESTABLISHED: it outlives the tests' clock). */
static struct ct_entry *master(struct ct_table *t, unsigned i, uint64_t now)
{
	char text[96], reply[96];
	struct ct_entry *e;
	const char *why;
	struct pkt *p;

	snprintf(text, sizeof(text), "tcp 10.0.0.%u:%u > 192.0.2.1:21 syn seq=1", 2 + i, 4000 + i);
	snprintf(reply, sizeof(reply), "tcp 192.0.2.1:21 > 10.0.0.%u:%u syn,ack seq=100 ack=2",
		 2 + i, 4000 + i);
	p = ct_test_pkt(text); /* the helper as CT --helper ftp assigns it, before confirmation */
	ct_pkt_set_helper(p, &ct_helper_ftp);
	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
	assert_int_equal(ct_helper_run(t, p, now, &why), 0);
	assert_int_equal(ct_confirm(t, p, now), 0);
	ct_pkt_release(t, p);
	pkt_free(p);
	assert_int_equal(ct_test_feed(t, reply, now), CT_STATE_ESTABLISHED);
	snprintf(text, sizeof(text), "tcp 10.0.0.%u:%u > 192.0.2.1:21 ack seq=2 ack=101", 2 + i,
		 4000 + i);
	assert_int_equal(ct_test_feed(t, text, now), CT_STATE_ESTABLISHED);
	e = ct_test_find(t, text, now);
	assert_non_null(e);
	assert_ptr_equal(ct_entry_helper(e), &ct_helper_ftp);
	return e;
}

/* An expectation of a connection from the server (any port when wild) to 10.0.0.2:port. */
static void expectation(struct ct_expect *x, uint16_t port, bool wild)
{
	union pt_addr src, dst;
	uint16_t sport = 20;

	pt_addr_parse("192.0.2.1", &src);
	pt_addr_parse("10.0.0.2", &dst);
	ct_expect_init(x, 0, AF_INET, &src, &dst, 6, wild ? NULL : &sport, port);
}

static struct ct_table *table(struct ct_entry *m[MASTERS], uint32_t max, unsigned per_master)
{
	struct ct_table *t = ct_test_table(1024);

	for (unsigned i = 0; i < MASTERS; i++)
		m[i] = master(t, i, 0);
	assert_int_equal(ct_helper_set_policy(t, "ftp", per_master, S(300)), 0);
	assert_int_equal(ct_expect_set_max(t, max), 0);
	return t;
}

static unsigned count(struct ct_table *t)
{
	struct ct_expect_stats s;

	ct_expect_stats(t, &s);
	return s.count;
}

static void test_sweep_by_elapsed_time(void **state)
{
	struct ct_entry *m[MASTERS];
	struct ct_table *t = table(m, 1000, 1000);
	uint64_t now = S(1), v;
	unsigned moves;

	(void)state;
	/* 300 expectations, half living 2 s, half 60 s */
	for (unsigned i = 0; i < 300; i++) {
		struct ct_expect x;

		expectation(&x, (uint16_t)(10000 + i), false);
		assert_int_equal(ct_expect_create(t, m[i % MASTERS], &x, i % 2 ? S(60) : S(2), now),
				 0);
	}
	assert_int_equal(count(t), 300);
	ct_expect_sweep_elapsed(t, now);
	v = ct_expect_sweep_visited(t);
	/* a thousand moves of a microsecond: a bucket now and then */
	for (moves = 0; moves < 1000; moves++)
		ct_expect_sweep_elapsed(t, now += 1000);
	assert_true(ct_expect_sweep_visited(t) - v <= 1);
	/* a jump of an hour: one slice, not a full pass */
	v = ct_expect_sweep_visited(t);
	assert_int_equal(ct_expect_sweep_elapsed(t, now + S(3600)), CT_EXPECT_SWEEP_SLICE);
	assert_int_equal(ct_expect_sweep_visited(t) - v, CT_EXPECT_SWEEP_SLICE);
	ct_table_free(t);

	/* past the short ones' time: before a sweep they are still counted, but a lookup finds
	 * none of them; a second of 10 ms moves visits every bucket and removes them */
	t = table(m, 1000, 1000);
	now = S(1);
	for (unsigned i = 0; i < 300; i++) {
		struct ct_expect x;

		expectation(&x, (uint16_t)(10000 + i), false);
		assert_int_equal(ct_expect_create(t, m[i % MASTERS], &x, i % 2 ? S(60) : S(2), now),
				 0);
	}
	ct_expect_sweep_elapsed(t, now);
	now += S(2);
	assert_int_equal(count(t), 300);
	{
		struct ct_tuple tu;
		struct pkt *p = ct_test_pkt("tcp 192.0.2.1:20 > 10.0.0.2:10000 syn");

		assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
		assert_null(ct_expect_find(t, &tu, now)); /* i = 0: 2 s, expired */
		pkt_free(p);
		p = ct_test_pkt("tcp 192.0.2.1:20 > 10.0.0.2:10001 syn");
		assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
		assert_non_null(ct_expect_find(t, &tu, now)); /* i = 1: 60 s */
		pkt_free(p);
	}
	v = ct_expect_sweep_visited(t);
	for (moves = 0; moves < 100; moves++)
		ct_expect_sweep_elapsed(t, now += S(1) / 100);
	assert_true(ct_expect_sweep_visited(t) - v >= 256);
	assert_int_equal(count(t), 150);
	/* a clock set back sweeps nothing */
	assert_int_equal(ct_expect_sweep_elapsed(t, now - S(1)), 0);
	ct_table_free(t);
}

/* A small deterministic generator (xorshift32). */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* What a lookup found: which master, port and end of life; or nothing. */
static void found(struct ct_table *t, struct ct_entry *m[MASTERS], uint16_t port, uint16_t sport,
		  uint64_t now, char *buf, size_t len)
{
	char text[96];
	struct ct_expect *x;
	struct ct_tuple tu;
	struct pkt *p;

	snprintf(text, sizeof(text), "tcp 192.0.2.1:%u > 10.0.0.2:%u syn", sport, port);
	p = ct_test_pkt(text);
	assert_int_equal(ct_tuple_from_pkt(p, 0, &tu), 0);
	pkt_free(p);
	x = ct_expect_find(t, &tu, now);
	if (!x) {
		snprintf(buf, len, "none");
		return;
	}
	for (unsigned i = 0; i < MASTERS; i++)
		if (x->master == m[i])
			snprintf(buf, len, "master %u port %u sport %04x until %llu", i,
				 x->tuple.d.port, x->mask_sport, (unsigned long long)x->expires);
}

/* The live (not expired) expectations, oldest first, as text. */
static void live(struct ct_table *t, struct ct_entry *m[MASTERS], uint64_t now, char *buf,
		 size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (struct ct_expect *x = ct_expect_next(t, NULL); x; x = ct_expect_next(t, x)) {
		unsigned mi = MASTERS;

		if (now >= x->expires)
			continue;
		for (unsigned i = 0; i < MASTERS; i++)
			if (x->master == m[i])
				mi = i;
		n += (size_t)snprintf(buf + n, len - n, "%u:%u:%04x:%llu ", mi, x->tuple.d.port,
				      x->mask_sport, (unsigned long long)x->expires);
		assert_true(n < len);
	}
}

static void test_decisions_do_not_depend_on_the_sweep(void **state)
{
	struct ct_entry *ma[MASTERS], *mb[MASTERS];
	/* a table limit of 12 and 5 per master: evictions and refusals happen */
	struct ct_table *a = table(ma, 12, 5), *b = table(mb, 12, 5);
	static char la[8192], lb[8192];
	uint32_t seed = 0x5eed1234;
	uint64_t now = S(1);
	unsigned made = 0, refused = 0, hits = 0;

	(void)state;
	for (unsigned step = 0; step < 20000; step++) {
		unsigned op = rnd(&seed) % 8, mi = rnd(&seed) % MASTERS;
		uint16_t port = (uint16_t)(20000 + rnd(&seed) % 24);
		bool wild = rnd(&seed) % 4 == 0;

		now += (rnd(&seed) % 50) * (CT_SEC / 1000); /* 0 to 49 ms */
		ct_expect_sweep_elapsed(a, now);	    /* a is swept at every move, b never */
		if (op < 4) {
			struct ct_expect x;
			uint64_t life = (1 + rnd(&seed) % 6) * CT_SEC;
			int ra, rb;

			expectation(&x, port, wild);
			ra = ct_expect_create(a, ma[mi], &x, life, now);
			rb = ct_expect_create(b, mb[mi], &x, life, now);
			assert_int_equal(ra, rb);
			made += ra == 0;
			refused += ra != 0;
		} else {
			char fa[160], fb[160];
			uint16_t sport = rnd(&seed) % 2 ? 20 : 2020;

			found(a, ma, port, sport, now, fa, sizeof(fa));
			found(b, mb, port, sport, now, fb, sizeof(fb));
			assert_string_equal(fa, fb);
			hits += strcmp(fa, "none") != 0;
		}
		live(a, ma, now, la, sizeof(la));
		live(b, mb, now, lb, sizeof(lb));
		assert_string_equal(la, lb);
	}
	{
		struct ct_expect_stats sa, sb;

		ct_expect_stats(a, &sa);
		ct_expect_stats(b, &sb);
		assert_int_equal(sa.created, sb.created);
		assert_int_equal(sa.evicted, sb.evicted);
		assert_int_equal(sa.refused_full, sb.refused_full);
		assert_int_equal(sa.refused_clash, sb.refused_clash);
		/* what b has not removed yet is what a's sweep removed beyond b's */
		assert_int_equal(sa.expired + sa.count, sb.expired + sb.count);
		printf("%u registered, %u refused, %u lookups found one; evicted %llu, refused "
		       "full %llu, clash %llu; swept table holds %u, unswept %u\n",
		       made, refused, hits, (unsigned long long)sa.evicted,
		       (unsigned long long)sa.refused_full, (unsigned long long)sa.refused_clash,
		       sa.count, sb.count);
		assert_true(made > 0 && refused > 0 && hits > 0);
		assert_true(sa.evicted > 0 && sa.refused_full > 0 && sa.refused_clash > 0);
	}
	ct_table_free(a);
	ct_table_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sweep_by_elapsed_time),
	    cmocka_unit_test(test_decisions_do_not_depend_on_the_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
