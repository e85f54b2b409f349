// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack settings by their sysctl names (ct_config_set) change behaviour: udp_timeout,
 * tcp_loose, max; timeout policies (ct_timeout_policy_set) given to connections by id (what
 * CT --timeout does) apply to those connections only; CT --timeout rules are refused at
 * install when the policy is unknown or for another protocol.
 */
#include "ct_test.h"

#include "ext/ct_timeout.h"
#include "rules/rules.h"

#define UOUT "udp 10.0.0.2:5000 > 192.0.2.1:53 len=20"
#define UOUT2 "udp 10.0.0.2:5001 > 192.0.2.1:53 len=20"
#define TOUT "tcp 10.0.0.2:1234 > 192.0.2.1:80 "

static void set(struct ct_table *t, const char *name, const char *value)
{
	struct ct_config c = *ct_table_config(t);

	assert_int_equal(ct_config_set(&c, name, value), 0);
	ct_table_set_config(t, &c);
}

/* Feed one packet that a CT --timeout rule gave policy `id`. */
static unsigned feed_policy(struct ct_table *t, const char *text, uint64_t now, int id)
{
	struct pkt *p = ct_test_pkt(text);
	unsigned st;

	ct_pkt_set_timeout(p, id);
	assert_int_equal(ct_in(t, p, true, 0, now), 0);
	st = ct_pkt_state(p);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	return st;
}

static void test_names_and_values(void **state)
{
	struct ct_config c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ct_config_default(&c);
	assert_int_equal(ct_config_set(&c, "udp_timeout", "10"), 0);
	assert_int_equal(c.timeouts.udp_unreplied, S(10));
	assert_int_equal(ct_config_set(&c, "net.netfilter.nf_conntrack_udp_timeout_stream", "99"),
			 0);
	assert_int_equal(c.timeouts.udp_replied, S(99));
	assert_int_equal(ct_config_set(&c, "nf_conntrack_tcp_timeout_established", "3600"), 0);
	assert_int_equal(c.timeouts.tcp[CT_TCP_ESTABLISHED], S(3600));
	assert_int_equal(ct_config_set(&c, "tcp_timeout_max_retrans", "7"), 0);
	assert_int_equal(c.timeouts.tcp[CT_TCP_RETRANS], S(7));
	assert_int_equal(ct_config_set(&c, "sctp_timeout_closed", "4"), 0);
	assert_int_equal(c.timeouts.sctp[CT_SCTP_CLOSED], S(4));
	assert_int_equal(ct_config_set(&c, "gre_timeout_stream", "5"), 0);
	assert_int_equal(c.timeouts.gre_replied, S(5));
	assert_int_equal(ct_config_set(&c, "tcp_be_liberal", "1"), 0);
	assert_true(c.tcp_be_liberal);
	assert_int_equal(ct_config_set(&c, "acct", "1"), 0);
	assert_true(c.acct);
	assert_int_equal(ct_config_set(&c, "tcp_max_retrans", "9"), 0);
	assert_int_equal(c.tcp_max_retrans, 9);
	assert_int_equal(ct_config_set(&c, "max", "2"), 0);
	assert_int_equal(c.max_entries, 2);
	/* refused */
	assert_int_equal(ct_config_set(&c, "udp_timeout_bogus", "1"), -ENOENT);
	assert_int_equal(ct_config_set(&c, "udp_timeout", "-1"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "udp_timeout", "1s"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "udp_timeout", ""), -EINVAL);
	assert_int_equal(ct_config_set(&c, "max", "0"), -EINVAL);
	assert_int_equal(ct_config_set(&c, "tcp_max_retrans", "256"), -EINVAL);
	assert_int_equal(c.timeouts.udp_unreplied, S(10));

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	ct_config_print(&c, f);
	fclose(f);
	assert_non_null(strstr(buf, "max = 2\n"));
	assert_non_null(strstr(buf, "tcp_loose = 1\n"));
	assert_non_null(strstr(buf, "udp_timeout = 10\n"));
	assert_non_null(strstr(buf, "udp_timeout_stream = 99\n"));
	assert_non_null(strstr(buf, "tcp_timeout_established = 3600\n"));
	assert_non_null(strstr(buf, "icmpv6_timeout = 30\n"));
	assert_non_null(strstr(buf, "dccp_timeout_open = 43200\n"));
	free(buf);
}

static void test_udp_timeout_10_dies_at_10s(void **state)
{
	struct ct_table *t = ct_test_table(64);

	set(t, "udp_timeout", "10");
	assert_int_equal(ct_test_feed(t, UOUT, S(100)), CT_STATE_NEW);
	assert_non_null(ct_test_find(t, UOUT, S(110) - 1));
	assert_null(ct_test_find(t, UOUT, S(110)));
	assert_int_equal(ct_table_stats(t)->expired, 1);
	ct_table_free(t);
}

static void test_tcp_loose_0_midstream_invalid(void **state)
{
	struct ct_table *t = ct_test_table(64);

	/* on (the default), a mid-stream ACK is picked up */
	assert_int_equal(ct_test_feed(t, TOUT "ack seq=777 ack=888 win=502", 0), CT_STATE_NEW);
	ct_flush(t);
	set(t, "tcp_loose", "0");
	assert_int_equal(ct_test_feed(t, TOUT "ack seq=777 ack=888 win=502", 0),
			 CT_STATE_INVALID);
	assert_int_equal(ct_table_stats(t)->count, 0);
	ct_table_free(t);
}

static void test_max_2_evicts(void **state)
{
	struct ct_table *t = ct_test_table(64);

	set(t, "max", "2");
	assert_int_equal(ct_test_feed(t, "udp 10.0.0.2:1 > 192.0.2.1:53", S(1)), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "udp 10.0.0.2:2 > 192.0.2.1:53", S(2)), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, "udp 10.0.0.2:3 > 192.0.2.1:53", S(3)), CT_STATE_NEW);
	assert_int_equal(ct_table_stats(t)->count, 2);
	assert_int_equal(ct_table_stats(t)->early_drop, 1);
	/* the oldest went */
	assert_null(ct_test_find(t, "udp 10.0.0.2:1 > 192.0.2.1:53", S(3)));
	assert_non_null(ct_test_find(t, "udp 10.0.0.2:2 > 192.0.2.1:53", S(3)));
	assert_non_null(ct_test_find(t, "udp 10.0.0.2:3 > 192.0.2.1:53", S(3)));
	ct_table_free(t);
}

static void test_policy_applies_to_its_connections_only(void **state)
{
	struct ct_table *t = ct_test_table(64);
	char *args[] = {"unreplied=5"};
	char err[128];
	int id;
	struct ct_entry *e;

	assert_int_equal(ct_timeout_policy_set(t, "dns", "udp", 1, args, err, sizeof(err)), 0);
	id = ct_timeout_policy_find(t, "dns");
	assert_int_equal(id, 1);
	assert_int_equal(ct_timeout_policy_get(t, id)->to.udp_unreplied, S(5));
	assert_int_equal(ct_timeout_policy_get(t, id)->to.udp_replied, S(120)); /* the table's */

	assert_int_equal(feed_policy(t, UOUT, S(0), id), CT_STATE_NEW);
	assert_int_equal(ct_test_feed(t, UOUT2, S(0)), CT_STATE_NEW);
	e = ct_test_find(t, UOUT, 0);
	assert_non_null(e);
	assert_ptr_equal(ct_entry_timeout_policy(e), ct_timeout_policy_get(t, id));
	assert_null(ct_entry_timeout_policy(ct_test_find(t, UOUT2, 0)));
	/* later packets of the connection keep the policy */
	assert_int_equal(ct_test_feed(t, UOUT, S(1)), CT_STATE_NEW);
	assert_non_null(ct_test_find(t, UOUT, S(6) - 1));
	assert_null(ct_test_find(t, UOUT, S(6)));
	assert_non_null(ct_test_find(t, UOUT2, S(30) - 1));
	assert_null(ct_test_find(t, UOUT2, S(30)));

	/* a udp policy given to a TCP connection does nothing */
	assert_int_equal(feed_policy(t, TOUT "syn seq=1 win=502", S(40), id), CT_STATE_NEW);
	assert_null(ct_entry_timeout_policy(ct_test_find(t, TOUT "syn", S(40))));

	/* an update changes the live connections' timeouts; another protocol is refused */
	args[0] = "unreplied=50";
	assert_int_equal(feed_policy(t, UOUT, S(50), id), CT_STATE_NEW);
	assert_int_equal(ct_timeout_policy_set(t, "dns", "udp", 1, args, err, sizeof(err)), 0);
	assert_int_equal(ct_test_feed(t, UOUT, S(51)), CT_STATE_NEW);
	assert_int_equal(ct_entry_expires_in(ct_test_find(t, UOUT, S(51)), S(51)), S(50));
	assert_int_equal(ct_timeout_policy_set(t, "dns", "tcp", 0, NULL, err, sizeof(err)),
			 -EBUSY);
	/* bad states, values, protocols */
	args[0] = "established=5";
	assert_int_equal(ct_timeout_policy_set(t, "x", "udp", 1, args, err, sizeof(err)), -EINVAL);
	args[0] = "unreplied=five";
	assert_int_equal(ct_timeout_policy_set(t, "x", "udp", 1, args, err, sizeof(err)), -EINVAL);
	assert_int_equal(ct_timeout_policy_set(t, "x", "ipx", 0, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(ct_timeout_policy_find(t, "x"), -ENOENT);
	ct_table_free(t);
}

static void test_tcp_policy(void **state)
{
	struct ct_table *t = ct_test_table(64);
	char *args[] = {"syn_sent=7", "established=100"};
	char err[128];
	int id;

	assert_int_equal(ct_timeout_policy_set(t, "web", "tcp", 2, args, err, sizeof(err)), 0);
	id = ct_timeout_policy_find(t, "web");
	assert_int_equal(feed_policy(t, TOUT "syn seq=1 win=502", S(0), id), CT_STATE_NEW);
	assert_int_equal(ct_entry_expires_in(ct_test_find(t, TOUT "syn", 0), 0), S(7));
	assert_null(ct_test_find(t, TOUT "syn", S(7)));
	ct_table_free(t);
}

static int load(const char *rules, struct rules_ruleset **rs)
{
	struct rules_error e;

	memset(&e, 0, sizeof(e));
	return rules_parse_buffer(rules, strlen(rules), "t", AF_INET, ext_registry_default(), NULL,
				  0, rs, &e);
}

static void test_rule_refused_without_policy(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct rules_ruleset *rs = NULL;
	char *args[] = {"unreplied=5"};
	char err[256];

	assert_int_equal(load("*raw\n-A PREROUTING -p udp -j CT --timeout dns\nCOMMIT\n", &rs), 0);
	assert_int_equal(ext_ct_timeout_check(rs, NULL, err, sizeof(err)), -ENOENT);
	assert_int_equal(ext_ct_timeout_check(rs, t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "timeout policy \"dns\" not found"));
	assert_int_equal(ct_timeout_policy_set(t, "dns", "udp", 1, args, err, sizeof(err)), 0);
	assert_int_equal(ext_ct_timeout_check(rs, t, err, sizeof(err)), 0);
	rules_ruleset_free(rs);
	/* for another protocol than the rule's */
	assert_int_equal(ct_timeout_policy_set(t, "web", "tcp", 0, NULL, err, sizeof(err)), 0);
	assert_int_equal(load("*raw\n-A PREROUTING -p udp -j CT --timeout web\nCOMMIT\n", &rs), 0);
	assert_int_equal(ext_ct_timeout_check(rs, t, err, sizeof(err)), -EINVAL);
	rules_ruleset_free(rs);
	/* without -p the rule does not even parse (as xt_CT) */
	rs = NULL;
	assert_int_not_equal(load("*raw\n-A PREROUTING -j CT --timeout dns\nCOMMIT\n", &rs), 0);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_values),
	    cmocka_unit_test(test_udp_timeout_10_dies_at_10s),
	    cmocka_unit_test(test_tcp_loose_0_midstream_invalid),
	    cmocka_unit_test(test_max_2_evicts),
	    cmocka_unit_test(test_policy_applies_to_its_connections_only),
	    cmocka_unit_test(test_tcp_policy),
	    cmocka_unit_test(test_rule_refused_without_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
