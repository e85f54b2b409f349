// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack in a box (the box's own table, box_ct): a stateful forwarding ruleset lets replies and
 * RELATED errors back in and drops unsolicited packets, which leave no entry; the listing
 * shows what the box tracked.
 */
/* engine_test.h has helpers this file does not use */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ct/ct_plugin.h"
#include "engine_test.h"

#define S(x) ((uint64_t)(x)*CT_SEC)

#include <stdio.h>

#include "ct/ct.h"

static const char stateful[] = "*filter\n"
			       ":INPUT ACCEPT [0:0]\n"
			       ":FORWARD DROP [0:0]\n"
			       ":OUTPUT ACCEPT [0:0]\n"
			       "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
			       "-A FORWARD -i lan0 -m state --state NEW -j ACCEPT\n"
			       "COMMIT\n";

static struct rules_ruleset *parse(const char *text, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;

	if (rules_parse_buffer(text, strlen(text), "test", family, ext_registry_default(), NULL, 0,
			       &rs, &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("ruleset did not load");
	}
	return rs;
}

static void test_stateful_forwarding(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct ct_table *t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	/* the ruleset turns tracking on, in the box's own table */
	assert_null(ct_box_table(b));
	box_set_ruleset(b, parse(stateful, AF_INET), AF_INET);
	t = ct_box_table(b);
	assert_non_null(t);

	box_set_time(b, S(100));
	/* out, the answer back in, and an unsolicited packet from outside */
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:5000 > 192.0.2.1:53 len=20 eth")),
			 EXT_ACCEPT);
	box_set_time(b, S(101));
	assert_int_equal(box_receive(b, 2, mk("udp 192.0.2.1:53 > 10.0.0.2:5000 len=20 eth")),
			 EXT_ACCEPT);
	assert_int_equal(box_receive(b, 2, mk("udp 192.0.2.1:53 > 10.0.0.2:5001 len=20 eth")),
			 EXT_DROP);
	assert_int_equal(r.nxmit, 2);
	assert_int_equal(ct_table_stats(t)->count, 1);
	f = open_memstream(&buf, &len);
	assert_int_equal(ct_dump(t, f, S(101)), 1);
	fclose(f);
	assert_string_equal(buf, "udp      17 30 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 "
				 "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=0 use=1\n");
	free(buf);
	/* 30 s after the reply the entry is gone: the same answer is now unsolicited */
	box_set_time(b, S(131));
	assert_int_equal(box_receive(b, 2, mk("udp 192.0.2.1:53 > 10.0.0.2:5000 len=20 eth")),
			 EXT_DROP);
	assert_int_equal(ct_table_stats(t)->count, 0);
	rec_free(&r);
	box_free(b);
}

static void test_tcp_through_box_and_invalid(void **state)
{
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct ct_table *t;

	assert_int_equal(ct_box_enable(b, true), 0);
	t = ct_box_table(b);
	assert_non_null(t);
	box_set_ruleset(b, parse(stateful, AF_INET), AF_INET);
	assert_int_equal(box_receive(b, 1,
				     mk("tcp 10.0.0.2:1234 > 192.0.2.1:80 syn seq=1 win=500 "
					"eth")),
			 EXT_ACCEPT);
	assert_int_equal(box_receive(b, 2,
				     mk("tcp 192.0.2.1:80 > 10.0.0.2:1234 syn,ack seq=9 "
					"ack=2 win=500 eth")),
			 EXT_ACCEPT);
	assert_int_equal(box_receive(b, 1,
				     mk("tcp 10.0.0.2:1234 > 192.0.2.1:80 ack seq=2 ack=10 "
					"win=500 eth")),
			 EXT_ACCEPT);
	/* once established, a segment far outside the window is INVALID: no rule accepts it
	 * (in SYN_RECV Linux would take it as the server restarting its sequence) */
	assert_int_equal(box_receive(b, 2,
				     mk("tcp 192.0.2.1:80 > 10.0.0.2:1234 ack seq=9000000 "
					"ack=2 win=500 eth")),
			 EXT_DROP);
	assert_true(ct_entry_status(r.xmit[r.nxmit - 1]->ct) & CT_S_ASSURED);
	assert_int_equal(ct_table_stats(t)->invalid, 1);
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stateful_forwarding),
	    cmocka_unit_test(test_tcp_through_box_and_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
