// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UDP-Lite tracking: UDP's timeouts and assured streams, checksum coverage checks, the
 * mandatory checksum.
 */
#include "ct_test.h"

#define OUT "udplite 10.0.0.2:5000 > 192.0.2.1:5004 len=40"
#define IN  "udplite 192.0.2.1:5004 > 10.0.0.2:5000 len=40"

static void test_stream(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	char line[512];

	assert_int_equal(ct_test_feed(t, OUT " cov=8", 0), CT_STATE_NEW);
	e = ct_test_find(t, OUT, 0);
	assert_int_equal(ct_entry_expires_in(e, 0), S(30));
	assert_int_equal(ct_test_feed(t, IN, S(1)), CT_STATE_ESTABLISHED);
	assert_int_equal(ct_test_feed(t, OUT, S(3)), CT_STATE_ESTABLISHED);
	assert_string_equal(
	    ct_test_line(e, S(3), line, sizeof(line)),
	    "udplite  136 120 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=5004 "
	    "src=192.0.2.1 dst=10.0.0.2 sport=5004 dport=5000 [ASSURED] mark=0 use=1");
	assert_non_null(ct_test_find(t, OUT, S(123) - 1));
	assert_null(ct_test_find(t, OUT, S(123)));
	ct_table_free(t);
}

static void test_coverage_and_checksum(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_config c = *ct_table_config(t);
	static const uint8_t zero[2];
	struct pkt *p;

	assert_int_equal(ct_test_feed(t, OUT " badsum", 0), CT_STATE_INVALID);
	c.checksum = false; /* the header checks alone */
	ct_table_set_config(t, &c);
	for (unsigned cov = 1; cov < 8; cov++) {
		uint8_t b[2] = {0, (uint8_t)cov};

		p = ct_test_pkt(OUT);
		pkt_store(p, p->info.l4off + 4, b, 2);
		assert_int_equal(ct_in(t, p, true, 0, 0), 0);
		assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
		pkt_free(p);
	}
	/* coverage beyond the datagram (8 + 40 bytes) */
	p = ct_test_pkt(OUT);
	pkt_store(p, p->info.l4off + 4, (const uint8_t[]){0, 49}, 2);
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
	pkt_free(p);
	/* no checksum is not allowed in UDP-Lite */
	p = ct_test_pkt(OUT);
	pkt_store(p, p->info.l4off + 6, zero, 2);
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_int_equal(ct_pkt_state(p), CT_STATE_INVALID);
	pkt_free(p);
	assert_int_equal(ct_table_stats(t)->count, 0);
	/* the whole datagram (0) and exactly 48 are fine */
	assert_int_equal(ct_test_feed(t, OUT " cov=48", 0), CT_STATE_NEW);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_coverage_and_checksum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
