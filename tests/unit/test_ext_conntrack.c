// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m state and -m conntrack: canonical printing (expected lines from iptables-save 1.8.9,
 * nf_tables backend, after iptables-restore of the input line) and matching against packets
 * that went through a conntrack table.
 */
#include "ct_test.h"

#include "rules/rules.h"

/* input rule -> what iptables-save printed for it (kernel oracle, Linux 6.18) */
static const char *const printed[][2] = {
	{ "-m state --state NEW,ESTABLISHED -j ACCEPT", NULL },
	{ "-m state ! --state INVALID -j ACCEPT", NULL },
	{ "-m state --state UNTRACKED,RELATED -j ACCEPT",
	  "-m state --state RELATED,UNTRACKED -j ACCEPT" },
	{ "-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT", NULL },
	{ "-m conntrack ! --ctstate INVALID,NEW -j ACCEPT", NULL },
	{ "-m conntrack --ctproto tcp --ctorigsrc 10.1.2.3/8 --ctorigdst 192.0.2.1 -j ACCEPT",
	  "-m conntrack --ctproto 6 --ctorigsrc 10.1.2.3/8 --ctorigdst 192.0.2.1 -j ACCEPT" },
	{ "-m conntrack --ctreplsrc 192.0.2.0/24 ! --ctrepldst 10.0.0.1/32 -j ACCEPT",
	  "-m conntrack --ctreplsrc 192.0.2.0/24 ! --ctrepldst 10.0.0.1 -j ACCEPT" },
	{ "-m conntrack --ctorigsrcport 1000:2000 --ctorigdstport 80 --ctreplsrcport 80 "
	  "--ctrepldstport 1024:65535 -j ACCEPT",
	  NULL },
	{ "-m conntrack --ctstatus ASSURED,SEEN_REPLY -j ACCEPT",
	  "-m conntrack --ctstatus SEEN_REPLY,ASSURED -j ACCEPT" },
	{ "-m conntrack ! --ctstatus NONE -j ACCEPT", NULL },
	{ "-m conntrack --ctexpire 10:100 -j ACCEPT", NULL },
	{ "-m conntrack --ctexpire 5 -j ACCEPT", NULL },
	{ "-m conntrack --ctdir ORIGINAL -j ACCEPT", NULL },
	{ "-m conntrack --ctdir REPLY -j ACCEPT", NULL },
	{ "-m conntrack --ctstate SNAT,DNAT,UNTRACKED -j ACCEPT",
	  "-m conntrack --ctstate UNTRACKED,SNAT,DNAT -j ACCEPT" },
	{ "-m conntrack --ctstatus EXPECTED,CONFIRMED -j ACCEPT", NULL },
	{ "-p tcp -m conntrack --ctstate NEW --ctproto 6 -m tcp --dport 22 -j ACCEPT", NULL },
	{ "-m conntrack ! --ctproto udp ! --ctexpire 3 ! --ctorigsrcport 5 -j ACCEPT",
	  "-m conntrack ! --ctproto 17 ! --ctorigsrcport 5 ! --ctexpire 3 -j ACCEPT" },
};

static struct rules_ruleset *load(int family, const char *rule)
{
	char buf[1024];
	struct rules_ruleset *rs = NULL;
	struct rules_error err;

	snprintf(buf, sizeof(buf), "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT %s\nCOMMIT\n", rule);
	if (rules_parse_buffer(buf, strlen(buf), "test", family, ext_registry_default(), NULL, 0,
			       &rs, &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("rule did not load: %s", rule);
	}
	return rs;
}

static struct rules_rule *first_rule(struct rules_ruleset *rs)
{
	int t = rules_table_by_name("filter");
	int c = rules_chain_find(&rs->tables[t], "INPUT");

	assert_true(c >= 0);
	return &rs->tables[t].chains[c].rules[0];
}

static void test_print(void **state)
{
	for (size_t i = 0; i < sizeof(printed) / sizeof(printed[0]); i++) {
		struct rules_ruleset *rs = load(AF_INET, printed[i][0]);
		const char *want = printed[i][1] ? printed[i][1] : printed[i][0];
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		rules_print_rule(rs, rules_table_by_name("filter"), first_rule(rs), f);
		fclose(f);
		if (strcmp(buf, want))
			fail_msg("case %zu: printed\n  %s\nwant\n  %s", i, buf, want);
		free(buf);
		rules_ruleset_free(rs);
	}
}

static void test_print_ipv6(void **state)
{
	struct rules_ruleset *rs =
		load(AF_INET6, "-m conntrack --ctorigsrc 2001:db8::5/32 ! --ctrepldst ::1 -j DROP");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rules_print_rule(rs, rules_table_by_name("filter"), first_rule(rs), f);
	fclose(f);
	assert_string_equal(buf, "-m conntrack --ctorigsrc 2001:db8::5/32 ! --ctrepldst ::1 -j DROP");
	free(buf);
	rules_ruleset_free(rs);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"-m state -j ACCEPT",
		"-m state --state BOGUS -j ACCEPT",
		"-m conntrack -j ACCEPT",
		"-m conntrack --ctstate NEW,FOO -j ACCEPT",
		"-m conntrack --ctorigsrc 10.0.0.1/33 -j ACCEPT",
		"-m conntrack --ctorigsrc 2001:db8::1 -j ACCEPT",
		"-m conntrack ! --ctdir REPLY -j ACCEPT",
		"-m conntrack ! --ctproto 0 -j ACCEPT",
		"-m conntrack --ctproto nosuch -j ACCEPT",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[512];
		struct rules_ruleset *rs = NULL;
		struct rules_error err;

		snprintf(buf, sizeof(buf), "*filter\n-A INPUT %s\nCOMMIT\n", bad[i]);
		if (rules_parse_buffer(buf, strlen(buf), "test", AF_INET, ext_registry_default(),
				       NULL, 0, &rs, &err) == 0) {
			rules_ruleset_free(rs);
			fail_msg("accepted: %s", bad[i]);
		}
	}
}

/* Does `rule` match the packet `text` after it went through ct_in at time now? */
static bool matches(struct ct_table *t, int family, const char *rule, const char *text,
		    uint64_t now)
{
	struct rules_ruleset *rs = load(family, rule);
	struct rules_rule *r = first_rule(rs);
	struct pkt *p = ct_test_pkt(text);
	struct ext_pkt_ctx ctx = { .pkt = p, .info = &p->info, .family = family,
				   .hook = HOOK_INPUT, .table = TABLE_FILTER, .in = "eth0",
				   .out = "", .now_ns = now };
	bool ok = true;

	ct_in(t, p, true, 0, now);
	for (unsigned i = 0; i < r->nmatches && ok; i++)
		ok = r->matches[i].match->match(&ctx, &r->matches[i]);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
	rules_ruleset_free(rs);
	return ok;
}

#define OUT "tcp 10.0.0.2:1234 > 192.0.2.1:80 "
#define IN "tcp 192.0.2.1:80 > 10.0.0.2:1234 "

static void test_state_match(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_true(matches(t, AF_INET, "-m state --state NEW", OUT "syn seq=1000 win=64240", 0));
	assert_false(matches(t, AF_INET, "-m state --state NEW",
			     IN "syn,ack seq=5000 ack=1001 win=65160", 0));
	assert_true(matches(t, AF_INET, "-m state --state ESTABLISHED",
			    OUT "ack seq=1001 ack=5001 win=502", 0));
	assert_true(matches(t, AF_INET, "-m state --state INVALID",
			    OUT "ack seq=900000 ack=5001 win=502", 0));
	assert_true(matches(t, AF_INET, "-m state ! --state NEW,ESTABLISHED",
			    OUT "ack seq=900000 ack=5001 win=502", 0));
	assert_false(matches(t, AF_INET, "-m state ! --state ESTABLISHED",
			     OUT "ack seq=1001 ack=5001 win=502", 0));
	ct_table_free(t);
}

static void test_conntrack_match(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_true(matches(t, AF_INET, "-m conntrack --ctstate NEW --ctdir ORIGINAL --ctproto tcp",
			    OUT "syn seq=1000 win=64240", 0));
	assert_true(matches(t, AF_INET, "-m conntrack --ctdir REPLY --ctorigsrc 10.9.9.9/8 "
					"--ctorigdst 192.0.2.1 --ctreplsrc 192.0.2.0/24 "
					"--ctrepldst 10.0.0.2",
			    IN "syn,ack seq=5000 ack=1001 win=65160", S(1)));
	assert_false(matches(t, AF_INET, "-m conntrack ! --ctorigsrc 10.0.0.0/8",
			     OUT "ack seq=1001 ack=5001 win=502", S(1)));
	assert_true(matches(t, AF_INET, "-m conntrack --ctorigsrcport 1000:2000 --ctorigdstport 80 "
					"--ctreplsrcport 80 --ctrepldstport 1234",
			    OUT "ack seq=1001 ack=5001 win=502", S(1)));
	assert_false(matches(t, AF_INET, "-m conntrack ! --ctorigdstport 80",
			     OUT "ack seq=1001 ack=5001 win=502", S(1)));
	assert_true(matches(t, AF_INET, "-m conntrack --ctstatus ASSURED --ctstate ESTABLISHED",
			    OUT "ack seq=1001 ack=5001 win=502", S(2)));
	assert_false(matches(t, AF_INET, "-m conntrack --ctstatus NONE",
			     OUT "ack seq=1001 ack=5001 win=502", S(2)));
	/* established: 5 days = 432000 s remaining right after the packet (another window
	 * value: not a retransmission, which would shorten it to 300 s) */
	assert_true(matches(t, AF_INET, "-m conntrack --ctexpire 431000:432000",
			    OUT "ack seq=1001 ack=5001 win=600", S(3)));
	assert_true(matches(t, AF_INET, "-m conntrack ! --ctexpire 0:100",
			    OUT "ack seq=1001 ack=5001 win=601", S(3)));
	assert_false(matches(t, AF_INET, "-m conntrack --ctproto udp",
			     OUT "ack seq=1001 ack=5001 win=502", S(3)));
	/* without an entry only --ctstate can match, inverted options included */
	assert_true(matches(t, AF_INET, "-m conntrack --ctstate INVALID",
			    OUT "ack seq=900000 ack=5001 win=502", S(3)));
	assert_false(matches(t, AF_INET, "-m conntrack --ctstate INVALID ! --ctproto udp",
			     OUT "ack seq=900000 ack=5001 win=502", S(3)));
	assert_false(matches(t, AF_INET, "-m conntrack ! --ctstatus ASSURED",
			     OUT "ack seq=900000 ack=5001 win=502", S(3)));
	ct_table_free(t);
}

static void test_conntrack_match_ipv6_related(void **state)
{
	struct ct_table *t = ct_test_table(64);

	assert_true(matches(t, AF_INET6, "-m conntrack --ctstate NEW --ctorigsrc 2001:db8::/32",
			    "udp [2001:db8::2]:5000 > [2001:db8::53]:53 len=8", 0));
	assert_true(matches(t, AF_INET6, "-m state --state UNTRACKED",
			    "icmp6 fe80::1 > ff02::1 neighbour-advertisement hlim=255", 0));
	assert_true(matches(t, AF_INET6, "-m conntrack --ctstate UNTRACKED",
			    "icmp6 fe80::1 > ff02::1 neighbour-advertisement hlim=255", 0));
	ct_table_free(t);
}

static struct rules_ruleset *load_raw(const char *rule, struct rules_rule **r)
{
	char buf[512];
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	int t, c;

	snprintf(buf, sizeof(buf), "*raw\n:PREROUTING ACCEPT [0:0]\n-A PREROUTING %s\nCOMMIT\n",
		 rule);
	if (rules_parse_buffer(buf, strlen(buf), "test", AF_INET, ext_registry_default(), NULL, 0,
			       &rs, &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("rule did not load: %s", rule);
	}
	t = rules_table_by_name("raw");
	c = rules_chain_find(&rs->tables[t], "PREROUTING");
	assert_true(c >= 0);
	*r = &rs->tables[t].chains[c].rules[0];
	return rs;
}

/* raw-table targets: printed forms (kernel oracle) and their effect on tracking */
static void test_notrack_and_ct_targets(void **state)
{
	static const char *const forms[] = {
		"-p udp -m udp --dport 53 -j NOTRACK",
		"-p udp -m udp --dport 54 -j CT --notrack",
		"-p udp -m udp --dport 55 -j CT --zone 5",
		"-p udp -m udp --dport 56 -j CT --notrack --zone 5",
	};
	static const char *const in_filter[] = {
		"*filter\n-A INPUT -j NOTRACK\nCOMMIT\n",
		"*filter\n-A INPUT -j CT --notrack\nCOMMIT\n",
	};
	struct ct_table *t = ct_test_table(16);

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct rules_rule *r;
		struct rules_ruleset *rs = load_raw(forms[i], &r);
		struct pkt *p = ct_test_pkt("udp 10.0.0.2:1000 > 192.0.2.1:53 len=8");
		struct ext_pkt_ctx ctx = { .pkt = p, .info = &p->info, .family = AF_INET,
					   .hook = HOOK_PREROUTING, .table = TABLE_RAW };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		rules_print_rule(rs, rules_table_by_name("raw"), r, f);
		fclose(f);
		assert_string_equal(buf, forms[i]);
		free(buf);
		assert_int_equal(r->target.ext.target->target(&ctx, &r->target.ext), EXT_CONTINUE);
		ct_in(t, p, true, 0, 0);
		if (i == 2) {
			assert_int_equal(ct_pkt_state(p), CT_STATE_NEW);
			assert_int_equal(ct_entry_zone(ct_pkt_entry(p)), 5);
		} else {
			assert_int_equal(ct_pkt_state(p), CT_STATE_UNTRACKED);
		}
		ct_confirm(t, p, 0);
		ct_pkt_release(t, p);
		pkt_free(p);
		rules_ruleset_free(rs);
	}
	assert_int_equal(ct_table_stats(t)->count, 1);
	for (size_t i = 0; i < sizeof(in_filter) / sizeof(in_filter[0]); i++) {
		struct rules_ruleset *rs = NULL;
		struct rules_error err;

		if (rules_parse_buffer(in_filter[i], strlen(in_filter[i]), "test", AF_INET,
				       ext_registry_default(), NULL, 0, &rs, &err) == 0) {
			rules_ruleset_free(rs);
			fail_msg("accepted outside raw: %s", in_filter[i]);
		}
	}
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_ipv6),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_state_match),
		cmocka_unit_test(test_conntrack_match),
		cmocka_unit_test(test_conntrack_match_ipv6_related),
		cmocka_unit_test(test_notrack_and_ct_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
