// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live-mode neighbour table at exact times: first probe at once, packets queued in order
 * and released by the answer, the queue bound (oldest dropped), failure after max_probes,
 * stale entries probed by unicast and forgotten without an answer, the table bound; a packet
 * lent by a receive ring (zero-copy receive) is copied when it is queued, and only then.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "io/neigh.h"

#define SEC 1000000000ull

struct rec {
	unsigned probes, unicast, sent, dropped, unresolved;
	const uint8_t *want; /* r_send: each packet's bytes must be these (want_len), own ones */
	uint32_t want_len;
	uint64_t sent_ids[64];
	uint8_t last_mac[6];
};

static void r_probe(void *arg, int ifindex, int family, const union pt_addr *a, const uint8_t *mac)
{
	struct rec *r = arg;

	r->probes++;
	if (mac)
		r->unicast++;
}

static void r_send(void *arg, int ifindex, struct pkt *p, const uint8_t mac[6])
{
	struct rec *r = arg;

	if (r->want) {
		/* the bytes first: a packet still over the freed block is a read after free */
		assert_int_equal(p->len, r->want_len);
		assert_memory_equal(p->seg[0].data, r->want, r->want_len);
		assert_false(pkt_lent(p));
	}
	if (r->sent < 64)
		r->sent_ids[r->sent] = p->id;
	r->sent++;
	memcpy(r->last_mac, mac, 6);
	pkt_free(p);
}

static void r_drop(void *arg, int ifindex, struct pkt *p, bool unresolved)
{
	struct rec *r = arg;

	r->dropped++;
	r->unresolved += unresolved;
	pkt_free(p);
}

static const struct neigh_ops ops = {.probe = r_probe, .send = r_send, .drop = r_drop};
static const uint8_t mac1[6] = {2, 0, 0, 0, 0, 1};

static struct pkt *mk(uint64_t id)
{
	struct pkt *p = pkt_alloc(60);

	assert_non_null(p);
	p->id = id;
	return p;
}

static void test_queue_then_resolve(void **state)
{
	struct neigh_params prm = {.queue_len = 4};
	struct rec r = {0};
	struct neigh_table *t = neigh_new(&prm, &ops, &r);
	union pt_addr a = {0};
	uint8_t mac[6];

	pt_addr_parse("192.0.2.2", &a);
	for (uint64_t i = 1; i <= 6; i++)
		assert_int_equal(neigh_output(t, 1, AF_INET, &a, mk(i), 10, mac), NEIGH_QUEUED);
	assert_int_equal(r.probes, 1);	/* one probe, not one per packet */
	assert_int_equal(r.dropped, 2); /* 1 and 2 pushed out by 5 and 6 */
	assert_int_equal(neigh_lookup(t, 1, AF_INET, &a, mac), -ENOENT);
	neigh_update(t, 1, AF_INET, &a, mac1, false, 20);
	assert_int_equal(r.sent, 4);
	assert_int_equal(r.sent_ids[0], 3);
	assert_int_equal(r.sent_ids[3], 6);
	assert_memory_equal(r.last_mac, mac1, 6);

	struct pkt *p = mk(7);
	assert_int_equal(neigh_output(t, 1, AF_INET, &a, p, 30, mac), NEIGH_SEND);
	assert_memory_equal(mac, mac1, 6);
	pkt_free(p);
	/* Another interface is another neighbour. */
	assert_int_equal(neigh_lookup(t, 2, AF_INET, &a, mac), -ENOENT);
	neigh_free(t);
}

static void test_failure_after_probes(void **state)
{
	struct rec r = {0};
	struct neigh_table *t = neigh_new(NULL, &ops, &r);
	union pt_addr a = {0};
	struct neigh_stats st;
	uint8_t mac[6];

	pt_addr_parse("2001:db8::2", &a);
	assert_int_equal(neigh_output(t, 1, AF_INET6, &a, mk(1), 0, mac), NEIGH_QUEUED);
	neigh_tick(t, SEC - 1);
	assert_int_equal(r.probes, 1);
	neigh_tick(t, SEC);
	neigh_tick(t, 2 * SEC);
	assert_int_equal(r.probes, 3);
	assert_int_equal(r.dropped, 0);
	neigh_tick(t, 3 * SEC); /* the third probe went unanswered */
	assert_int_equal(r.dropped, 1);
	assert_int_equal(r.unresolved, 1);
	neigh_get_stats(t, &st);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.entries, 0);
	neigh_free(t);
}

static void test_stale_unicast_probe_and_expiry(void **state)
{
	struct rec r = {0};
	struct neigh_table *t = neigh_new(NULL, &ops, &r);
	union pt_addr a = {0};
	uint8_t mac[6];
	struct pkt *p;

	pt_addr_parse("192.0.2.9", &a);
	neigh_update(t, 1, AF_INET, &a, mac1, false, 0); /* not asked: not created */
	assert_int_equal(neigh_lookup(t, 1, AF_INET, &a, mac), -ENOENT);
	neigh_update(t, 1, AF_INET, &a, mac1, true, 0); /* an ARP request to us: created */
	assert_int_equal(neigh_lookup(t, 1, AF_INET, &a, mac), 0);

	p = mk(1);
	assert_int_equal(neigh_output(t, 1, AF_INET, &a, p, 30 * SEC, mac), NEIGH_SEND);
	assert_int_equal(r.unicast, 1); /* stale: confirmed by unicast, still sent */
	assert_int_equal(neigh_output(t, 1, AF_INET, &a, p, 30 * SEC + 1, mac), NEIGH_SEND);
	assert_int_equal(r.unicast, 1); /* one probe round at a time */
	pkt_free(p);
	neigh_tick(t, 31 * SEC);
	neigh_tick(t, 32 * SEC);
	assert_int_equal(r.unicast, 3);
	assert_int_equal(neigh_lookup(t, 1, AF_INET, &a, mac), 0);
	neigh_tick(t, 33 * SEC); /* no answer to three: gone */
	assert_int_equal(neigh_lookup(t, 1, AF_INET, &a, mac), -ENOENT);
	neigh_free(t);
}

static void test_table_bound(void **state)
{
	struct neigh_params prm = {.max_entries = 2};
	struct rec r = {0};
	struct neigh_table *t = neigh_new(&prm, &ops, &r);
	union pt_addr a = {0};
	struct neigh_stats st;
	uint8_t mac[6];

	for (unsigned i = 1; i <= 3; i++) {
		a.b[3] = (uint8_t)i;
		neigh_output(t, 1, AF_INET, &a, mk(i), 0, mac);
	}
	neigh_get_stats(t, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.table_full, 1);
	assert_int_equal(r.dropped, 1);
	neigh_free(t); /* frees the two queued packets (ASan: no leak) */
}

/*
 * Frames lent from a stand-in for a ring's block: one the neighbour is known for goes at once,
 * lent (no copy); the ones queued for resolution are copied, so the block can be given back
 * (poisoned and freed here: under ASan a queued packet still pointing into it would be a read
 * after free) before the answer sends them.
 */
static void test_lent_packets_kept(void **state)
{
	struct rec r = {0};
	struct neigh_table *t = neigh_new(NULL, &ops, &r);
	struct pkt_pool *pp = pkt_pool_new(8, 64);
	struct pkt_pool_stats st;
	union pt_addr a = {0}, b = {0};
	uint8_t frame[90], mac[6], *blk = malloc(4 * sizeof(frame));
	struct pkt *p;

	(void)state;
	assert_non_null(blk);
	for (unsigned i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i ^ 0x5a);
	for (unsigned i = 0; i < 4; i++)
		memcpy(blk + i * sizeof(frame), frame, sizeof(frame));
	pt_addr_parse("192.0.2.2", &a);
	pt_addr_parse("192.0.2.3", &b);
	neigh_update(t, 1, AF_INET, &b, mac1, true, 0);
	p = pkt_pool_lend(pp, blk, sizeof(frame));
	assert_int_equal(neigh_output(t, 1, AF_INET, &b, p, 1, mac), NEIGH_SEND);
	assert_true(pkt_lent(p)); /* sent at once: not copied */
	pkt_free(p);
	for (unsigned i = 1; i < 4; i++) {
		p = pkt_pool_lend(pp, blk + i * sizeof(frame), sizeof(frame));
		p->id = i;
		assert_int_equal(neigh_output(t, 1, AF_INET, &a, p, 1, mac), NEIGH_QUEUED);
	}
	pkt_pool_stats(pp, &st);
	assert_int_equal(st.lent, 4);
	assert_int_equal(st.kept, 3);
	memset(blk, 0xee, 4 * sizeof(frame));
	free(blk);
	r.want = frame;
	r.want_len = sizeof(frame);
	neigh_update(t, 1, AF_INET, &a, mac1, false, 2);
	assert_int_equal(r.sent, 3);
	assert_int_equal(r.sent_ids[2], 3);
	pkt_pool_free(pp);
	neigh_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queue_then_resolve),
	    cmocka_unit_test(test_failure_after_probes),
	    cmocka_unit_test(test_stale_unicast_probe_and_expiry),
	    cmocka_unit_test(test_table_bound),
	    cmocka_unit_test(test_lent_packets_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
