// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole files through rules_parse_buffer and rules_print: every error names the right line
 * and token and leaves no ruleset; counters round trip; loops; unified -4/-6 files; the
 * restore commands.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "rules/rules.h"
#include "rules_test.h"

static int parse(const char *text, int family, struct rules_ruleset **rs, struct rules_error *err)
{
	return rules_parse_buffer(text, strlen(text), "f", family, ext_registry_default(), NULL, 0,
				  rs, err);
}

/* text must fail at `line` with `token` (and a message containing `msg` if not NULL). */
static void expect_error(const char *text, unsigned line, const char *token, const char *msg)
{
	struct rules_ruleset *rs = (struct rules_ruleset *)1;
	struct rules_error err;

	assert_int_not_equal(parse(text, AF_INET, &rs, &err), 0);
	assert_null(rs);
	if (err.line != line || strcmp(err.token, token) || (msg && !strstr(err.msg, msg)))
		fail_msg("for:\n%s\ngot %s:%u: %s (near '%s'), want line %u token '%s'", text,
			 err.file, err.line, err.msg, err.token, line, token);
}

static void expect_output(const char *text, int family, unsigned flags, const char *want)
{
	struct rules_ruleset *rs;
	struct rules_error err;
	char *out;

	if (parse(text, family, &rs, &err))
		fail_msg("%s:%u: %s (near '%s')", err.file, err.line, err.msg, err.token);
	out = rules_test_print(rs, flags);
	assert_string_equal(out, want);
	free(out);
	rules_ruleset_free(rs);
}

static void test_error_paths(void **state)
{
	(void)state;
	expect_error("*filter\n-A INPUT -j ACCEPT\n", 2, "*filter", "COMMIT expected");
	expect_error("-A INPUT -j ACCEPT\n", 1, "-A", "no table");
	expect_error("*foo\nCOMMIT\n", 1, "foo", "table name");
	expect_error("*filter\n*nat\nCOMMIT\n", 2, "nat", "COMMIT expected");
	expect_error("COMMIT\n", 1, "COMMIT", NULL);
	expect_error("*filter\n-A NOPE -j ACCEPT\nCOMMIT\n", 2, "NOPE", "does not exist");
	expect_error("*filter\n-A INPUT -j nochain\nCOMMIT\n", 2, "nochain", NULL);
	expect_error("*filter\n-A INPUT -g INPUT\nCOMMIT\n", 2, "INPUT", "built-in");
	expect_error("*filter\n:INPUT RETURN [0:0]\nCOMMIT\n", 2, "RETURN", "policy");
	expect_error("*filter\n:a\nCOMMIT\n", 2, ":a", "policy");
	expect_error("*filter\n:ACCEPT - [0:0]\nCOMMIT\n", 2, "ACCEPT", "clash");
	expect_error("*filter\n:-x - [0:0]\nCOMMIT\n", 2, "-x", NULL);
	expect_error("*filter\n:abcdefghijabcdefghijabcdefghi - [0:0]\nCOMMIT\n", 2,
		     "abcdefghijabcdefghijabcdefghi", "too long");
	expect_error("*filter\n:a - [0:0]\n-N a\nCOMMIT\n", 3, "a", "exists");
	expect_error("*filter\n:a - [0:0]\n-A INPUT -j a\n-X a\nCOMMIT\n", 4, "a", "in use");
	expect_error("*filter\n-A INPUT -p tcp --bogus 1\nCOMMIT\n", 2, "--bogus", "unknown");
	expect_error("*filter\n-A INPUT -p tcp --dport\nCOMMIT\n", 2, "--dport", "argument");
	expect_error("*filter\n-A INPUT -p tcp --dport 5:3\nCOMMIT\n", 2, "5:3", "portrange");
	expect_error("*filter\n-A INPUT -p tcp --dport 1 --dport 2\nCOMMIT\n", 2, "2", "only one");
	expect_error("*filter\n-A INPUT ! ! -p tcp\nCOMMIT\n", 2, "!", "consecutive");
	expect_error("*filter\n-A INPUT -p tcp !\nCOMMIT\n", 2, "!", "following");
	expect_error("*filter\n-A INPUT -m tcp --dport 1\nCOMMIT\n", 2, "tcp", "requires -p");
	expect_error("*filter\n-A INPUT -m nosuch\nCOMMIT\n", 2, "nosuch",
		     "extension nosuch is not supported by pkttables");
	expect_error("*filter\n-A INPUT -j TEE --gateway 192.0.2.1\nCOMMIT\n", 2, "TEE",
		     "extension TEE is not supported by pkttables");
	expect_error("*filter\n-A INPUT -m hl --hl-eq 1\nCOMMIT\n", 2, "hl", "unknown match");
	expect_error("*filter\n-A INPUT -m mark\nCOMMIT\n", 2, "mark", "must be specified");
	expect_error("*filter\n-A INPUT -o eth0\nCOMMIT\n", 2, "-o", "INPUT");
	expect_error("*filter\n-A OUTPUT -i eth0\nCOMMIT\n", 2, "-i", "OUTPUT");
	expect_error("*filter\n-A INPUT -i abcdefghijklmnop\nCOMMIT\n", 2, "abcdefghijklmnop",
		     NULL);
	expect_error("*filter\n-A INPUT -s 1.2.3.4/33\nCOMMIT\n", 2, "1.2.3.4/33", NULL);
	expect_error("*filter\n-A INPUT ! -s 0/0\nCOMMIT\n", 2, "-s", NULL);
	expect_error("*filter\n-A INPUT -p nosuchproto\nCOMMIT\n", 2, "nosuchproto", NULL);
	expect_error("*filter\n-A INPUT ! -p all\nCOMMIT\n", 2, "all", "never match");
	expect_error("*filter\n-A INPUT -j ACCEPT -j DROP\nCOMMIT\n", 2, "DROP", NULL);
	expect_error("*filter\n-A INPUT -t nat -j ACCEPT\nCOMMIT\n", 2, "-t", NULL);
	expect_error("*filter\n-A INPUT -j ACCEPT\n   \nCOMMIT\n", 3, "", "white space");
	expect_error("*filter\n[1:x] -A INPUT\nCOMMIT\n", 2, "[1:x]", "counters");
	expect_error("*filter\n-A INPUT -s 1.2.3.4 extra\nCOMMIT\n", 2, "extra", "bad argument");
	expect_error("*nat\n-A PREROUTING -j DROP\nCOMMIT\n", 2, "DROP", "nat");
	expect_error("*filter\n-D INPUT 1\nCOMMIT\n", 2, "1", "out of range");
	expect_error("*filter\n-D INPUT -j ACCEPT\nCOMMIT\n", 2, "INPUT", "matching rule");
	expect_error("*filter\n-Q INPUT\nCOMMIT\n", 2, "-Q", "unknown");
	/* an error in the second table: nothing of the first survives either */
	expect_error("*raw\n-A OUTPUT -j ACCEPT\nCOMMIT\n*filter\n-A INPUT -j x\nCOMMIT\n", 5, "x",
		     NULL);
	/* icmp type only for IPv4: -m icmp is not an IPv6 match */
	{
		struct rules_ruleset *rs;
		struct rules_error err;

		assert_int_not_equal(parse("*filter\n-A INPUT -p icmp -m icmp --icmp-type 8\n"
					   "COMMIT\n",
					   AF_INET6, &rs, &err),
				     0);
		assert_null(rs);
		assert_int_equal(err.line, 2);
	}
}

static void test_error_print_format(void **state)
{
	struct rules_error err;
	struct rules_ruleset *rs;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	(void)state;
	assert_int_not_equal(parse("*filter\n-A INPUT -j nochain\nCOMMIT\n", AF_INET, &rs, &err),
			     0);
	rules_error_print(&err, f);
	fclose(f);
	assert_string_equal(s, "f:2: chain or target does not exist (near 'nochain')\n");
	free(s);
}

static void test_counters_round_trip(void **state)
{
	static const char in[] = "*filter\n"
				 ":INPUT DROP [12:3400]\n"
				 ":FORWARD ACCEPT [0:0]\n"
				 ":OUTPUT ACCEPT [18446744073709551615:1]\n"
				 ":u - [5:5]\n"
				 "[7:8] -A INPUT -j u\n"
				 "-A INPUT -p tcp --dport 22 -c 3 4 -j ACCEPT\n"
				 "-A u -j RETURN\n"
				 "COMMIT\n";
	static const char want[] = "*filter\n"
				   ":INPUT DROP [12:3400]\n"
				   ":FORWARD ACCEPT [0:0]\n"
				   ":OUTPUT ACCEPT [18446744073709551615:1]\n"
				   ":u - [0:0]\n"
				   "[7:8] -A INPUT -j u\n"
				   "[3:4] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
				   "[0:0] -A u -j RETURN\n"
				   "COMMIT\n";
	struct rules_ruleset *rs, *rs2;
	struct rules_error err;
	char *out, *out2;

	(void)state;
	expect_output(in, AF_INET, RULES_PRINT_COUNTERS, want);
	/* printed form parses back to itself */
	assert_int_equal(parse(want, AF_INET, &rs, &err), 0);
	out = rules_test_print(rs, RULES_PRINT_COUNTERS);
	assert_string_equal(out, want);
	/* zeroing */
	rules_zero_counters(rs);
	out2 = rules_test_print(rs, RULES_PRINT_COUNTERS);
	assert_non_null(strstr(out2, ":INPUT DROP [0:0]\n"));
	assert_non_null(strstr(out2, "\n[0:0] -A INPUT -j u\n"));
	assert_int_equal(parse(out2, AF_INET, &rs2, &err), 0);
	rules_ruleset_free(rs2);
	free(out);
	free(out2);
	rules_ruleset_free(rs);
}

static void test_loops(void **state)
{
	(void)state;
	expect_error("*filter\n:a - [0:0]\n:b - [0:0]\n-A a -j b\n-A b -g a\n-A INPUT -j a\n"
		     "COMMIT\n",
		     5, "a", "loop");
	expect_error("*filter\n:a - [0:0]\n-A a -j a\n-A OUTPUT -j a\nCOMMIT\n", 3, "a", "loop");
	/* a cycle no built-in chain reaches is accepted, as iptables-nft accepts it */
	expect_output("*filter\n:a - [0:0]\n:b - [0:0]\n-A a -j b\n-A b -j a\nCOMMIT\n", AF_INET,
		      0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      ":a - [0:0]\n:b - [0:0]\n-A a -j b\n-A b -j a\nCOMMIT\n");
}

static char *chain_file(unsigned n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	fprintf(f, "*filter\n");
	for (unsigned i = 1; i <= n; i++)
		fprintf(f, ":c%u - [0:0]\n", i);
	for (unsigned i = 1; i < n; i++)
		fprintf(f, "-A c%u -j c%u\n", i, i + 1);
	fprintf(f, "-A INPUT -j c1\nCOMMIT\n");
	fclose(f);
	return s;
}

static void test_jump_depth(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error err;
	char *ok = chain_file(15), *deep = chain_file(16);

	(void)state;
	/* nf_tables: 15 user chains below a base chain load, 16 are "too many links" */
	assert_int_equal(parse(ok, AF_INET, &rs, &err), 0);
	rules_ruleset_free(rs);
	assert_int_not_equal(parse(deep, AF_INET, &rs, &err), 0);
	assert_null(rs);
	assert_non_null(strstr(err.msg, "c16"));
	free(ok);
	free(deep);
}

static void test_diamond_is_fast(void **state)
{
	/* 20 levels of two chains each jumping to both of the next level: 2^20 paths */
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	struct rules_ruleset *rs;
	struct rules_error err;

	(void)state;
	fprintf(f, "*filter\n");
	for (unsigned i = 0; i < 14; i++)
		fprintf(f, ":a%u - [0:0]\n:b%u - [0:0]\n", i, i);
	for (unsigned i = 0; i + 1 < 14; i++)
		fprintf(f, "-A a%u -j a%u\n-A a%u -j b%u\n-A b%u -j a%u\n-A b%u -j b%u\n", i,
			i + 1, i, i + 1, i, i + 1, i, i + 1);
	fprintf(f, "-A INPUT -j a0\n-A INPUT -j b0\nCOMMIT\n");
	fclose(f);
	assert_int_equal(parse(s, AF_INET, &rs, &err), 0);
	assert_int_equal(rs->tables[TABLE_FILTER].chains[rules_chain_find(
				 &rs->tables[TABLE_FILTER], "b13")].hook_mask,
			 HOOK_BIT(HOOK_INPUT));
	rules_ruleset_free(rs);
	free(s);
}

static void test_unified_file(void **state)
{
	static const char in[] = "*filter\n"
				 "-A INPUT -4 -s 192.0.2.1 -j ACCEPT\n"
				 "-A INPUT -6 -s 2001:db8::1 -j ACCEPT\n"
				 "-A INPUT -p tcp --dport 22 -j ACCEPT\n"
				 "COMMIT\n";

	(void)state;
	assert_true(rules_buffer_has_family_tag(in, strlen(in), 6));
	assert_true(rules_buffer_has_family_tag(in, strlen(in), 4));
	assert_false(rules_buffer_has_family_tag("*filter\nCOMMIT\n", 15, 6));
	expect_output(in, AF_INET, 0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "-A INPUT -s 192.0.2.1/32 -j ACCEPT\n"
		      "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\nCOMMIT\n");
	/* iptables-restore stops reading a rule at the other family's tag */
	expect_output("*filter\n-A INPUT -6 --never-parsed\nCOMMIT\n", AF_INET, 0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "COMMIT\n");
	expect_output(in, AF_INET6, 0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "-A INPUT -s 2001:db8::1/128 -j ACCEPT\n-A INPUT -p tcp -m tcp --dport 22 -j "
		      "ACCEPT\nCOMMIT\n");
}

static void test_commands(void **state)
{
	(void)state;
	expect_output("*filter\n:a - [0:0]\n-A a -j ACCEPT\n-A a -j DROP\n-I a 2 -j RETURN\n"
		      "-I a -p udp\n-D a 1\n-D a -j DROP\n-N c\n-A c -j a\n-P FORWARD DROP\n"
		      "-N gone\n-X gone\n-R a 1 -p tcp\n-E c d\nCOMMIT\n",
		      AF_INET, 0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      ":a - [0:0]\n:d - [0:0]\n-A a -p tcp\n-A a -j RETURN\n-A d -j a\nCOMMIT\n");
	/* -F empties, an empty section leaves no table, a second section flushes the first */
	expect_output("*raw\n-F\nCOMMIT\n*filter\n-A INPUT -j ACCEPT\nCOMMIT\n*filter\n"
		      ":INPUT DROP [0:0]\nCOMMIT\n*mangle\nCOMMIT\n",
		      AF_INET, 0,
		      "*filter\n:INPUT DROP [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "COMMIT\n");
}

static void test_print_order_and_forms(void **state)
{
	(void)state;
	expect_output("# c\n*nat\n-A POSTROUTING -o wan+ -s 10.0.0.0/255.0.255.0\nCOMMIT\n"
		      "*filter\n:zeta - [0:0]\n:Alpha - [0:0]\n:_x - [0:0]\n"
		      "-A zeta -p 47 -m comment --comment \"it's\"\n"
		      "-A INPUT -f -i lo -d 10.1 -s 1.2.3.4,5.6.7.8 ! -p udp\n"
		      "-A Alpha -s 0/0 -p all -j RETURN\nCOMMIT\n*mangle\n:INPUT ACCEPT [0:0]\n"
		      "COMMIT\n",
		      AF_INET, 0,
		      "*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n"
		      ":FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
		      "COMMIT\n"
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      ":Alpha - [0:0]\n:_x - [0:0]\n:zeta - [0:0]\n"
		      "-A INPUT -s 1.2.3.4/32 -d 10.1.0.0/32 -i lo ! -p udp -f\n"
		      "-A INPUT -s 5.6.7.8/32 -d 10.1.0.0/32 -i lo ! -p udp -f\n"
		      "-A Alpha -j RETURN\n"
		      "-A zeta -p gre -m comment --comment \"it\\'s\"\nCOMMIT\n"
		      "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      ":POSTROUTING ACCEPT [0:0]\n"
		      "-A POSTROUTING -s 10.0.0.0/255.0.255.0 -o wan+\nCOMMIT\n");
	expect_output("*filter\n-A INPUT -s 2001:DB8::1/ffff::ff -p icmpv6 --icmpv6-type ping\n"
		      "COMMIT\n",
		      AF_INET6, 0,
		      "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
		      "-A INPUT -s 2001::1/ffff::ff -p ipv6-icmp -m icmp6 --icmpv6-type 128\n"
		      "COMMIT\n");
}

static void test_noflush_base(void **state)
{
	struct rules_ruleset *base, *rs;
	struct rules_error err;
	char *out;
	static const char file[] = "*filter\n-A INPUT -j DROP\nCOMMIT\n";

	(void)state;
	assert_int_equal(parse("*raw\n-A OUTPUT -p udp --dport 53 -j ACCEPT\nCOMMIT\n*filter\n"
			       "-A INPUT -j ACCEPT\nCOMMIT\n",
			       AF_INET, &base, &err),
			 0);
	assert_int_equal(rules_parse_buffer(file, strlen(file), "f", AF_INET,
					    ext_registry_default(), base, RULES_PARSE_NOFLUSH, &rs,
					    &err),
			 0);
	out = rules_test_print(rs, 0);
	assert_string_equal(out, "*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
				 "-A OUTPUT -p udp -m udp --dport 53 -j ACCEPT\nCOMMIT\n"
				 "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
				 ":OUTPUT ACCEPT [0:0]\n-A INPUT -j DROP\nCOMMIT\n");
	free(out);
	rules_ruleset_free(rs);
	rules_ruleset_free(base);
}

static void test_print_rule(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error err;
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(parse("*filter\n-A INPUT -p tcp --syn -j ACCEPT\nCOMMIT\n", AF_INET, &rs,
			       &err),
			 0);
	f = open_memstream(&s, &len);
	rules_print_rule(rs, TABLE_FILTER,
			 &rs->tables[TABLE_FILTER].chains[rs->tables[TABLE_FILTER].builtin[HOOK_INPUT]]
				  .rules[0],
			 f);
	fclose(f);
	assert_string_equal(s, "-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT");
	free(s);
	assert_int_equal(rules_table_by_name("security"), TABLE_SECURITY);
	assert_int_equal(rules_table_by_name("nope"), -1);
	assert_string_equal(rules_hook_name(HOOK_POSTROUTING), "POSTROUTING");
	rules_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_paths),
		cmocka_unit_test(test_error_print_format),
		cmocka_unit_test(test_counters_round_trip),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_jump_depth),
		cmocka_unit_test(test_diamond_is_fast),
		cmocka_unit_test(test_unified_file),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_print_order_and_forms),
		cmocka_unit_test(test_noflush_base),
		cmocka_unit_test(test_print_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
