// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bugs the fuzz targets (tests/fuzz/) found, one test each, so that the gcc builds (and
 * build-san's ASan/UBSan) keep checking them where clang/libFuzzer is absent. The inputs that
 * found them are in tests/fuzz/corpus/NAME/regress-*.
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

#include "engine/box.h"
#include "pkt/build.h"
#include "pkt_test.h"
#include "rules/ext.h"
#include "rules/rules.h"
#include "rules_test.h"

/* Parse text from a heap block of exactly its length (no NUL after it: ASan sees overreads). */
static int parse_exact(const char *text, int family, struct rules_ruleset **rs,
		       struct rules_error *e)
{
	size_t len = strlen(text);
	char *buf = malloc(len ? len : 1);
	int ret;

	assert_non_null(buf);
	memcpy(buf, text, len);
	ret = rules_parse_buffer(buf, len, "t", family, ext_registry_default(), NULL, 0, rs, e);
	free(buf);
	return ret;
}

/* src/rules/lexer.c: a bad "[p:b" prefix was reported with strcspn past the line's end. */
static void test_counters_prefix_at_buffer_end(void **state)
{
	static const char *const bad[] = {"[", "[1", "[1:", "[1:2", "*filter\n["};
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_exact(bad[i], AF_INET, &rs, &e), -EINVAL);
		assert_null(rs);
	}
	assert_string_equal(e.token, "[");
}

/* src/rules/parser.c: a command "-" alone made cmd_line read cmd[2], past the token. */
static void test_lone_dash_command(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	assert_int_equal(parse_exact("*filter\n:INPUT ACCEPT [0:0]\n-\nCOMMIT\n", AF_INET, &rs, &e),
			 -EINVAL);
	assert_null(rs);
	assert_int_equal(e.line, 3);
}

/* src/rules/parser.c: a long command without its chain ("--delete") read argv[1] past the end. */
static void test_long_command_without_chain(void **state)
{
	static const char *const cmds[] = {"--append",	  "--insert", "--delete",	"--replace",
					   "--new-chain", "--policy", "--rename-chain", "-A"};
	struct rules_ruleset *rs;
	struct rules_error e;
	char text[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(text, sizeof(text), "*filter\n:INPUT ACCEPT [0:0]\n%s\nCOMMIT\n", cmds[i]);
		assert_int_equal(parse_exact(text, AF_INET, &rs, &e), -EINVAL);
		assert_null(rs);
		assert_string_equal(e.msg, "chain name missing");
	}
}

/* Parse, print, parse, print: both prints equal. */
static void assert_fixed_point(const char *text)
{
	struct rules_ruleset *rs, *rs2;
	struct rules_error e;
	char *t1, *t2;

	if (parse_exact(text, AF_INET, &rs, &e))
		fail_msg("%u: %s (near '%s')", e.line, e.msg, e.token);
	t1 = rules_test_print(rs, RULES_PRINT_COUNTERS);
	if (parse_exact(t1, AF_INET, &rs2, &e))
		fail_msg("printed: %u: %s (near '%s')\n%s", e.line, e.msg, e.token, t1);
	t2 = rules_test_print(rs2, RULES_PRINT_COUNTERS);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	rules_ruleset_free(rs2);
	rules_ruleset_free(rs);
}

/*
 * src/rules/parser.c, print.c: a quoted chain name with a space printed as two words; an
 * interface name with a space or a quote printed unquoted.
 */
static void test_names_with_blanks(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	assert_int_equal(parse_exact("*filter\n:\"MY CHAIN\" - [0:0]\nCOMMIT\n", AF_INET, &rs, &e),
			 -EINVAL);
	assert_string_equal(e.msg, "Invalid chain name");
	assert_int_equal(parse_exact("*filter\n:A\\\"B - [0:0]\nCOMMIT\n", AF_INET, &rs, &e),
			 -EINVAL);
	assert_int_equal(parse_exact("*filter\n-N \"a\tb\"\nCOMMIT\n", AF_INET, &rs, &e), -EINVAL);
	assert_fixed_point(
	    "*filter\n:FORWARD ACCEPT [0:0]\n-A FORWARD -i \"a b\" -j ACCEPT\n"
	    "-A FORWARD ! -i \"q\\\"x+\" -o \"t\tz\" -j DROP\n-A FORWARD -i eth0.5+\nCOMMIT\n");
}

/* src/ext/hashlimit.c: a byte rate under 16 b/s printed as "0b/s", which does not parse. */
static void test_hashlimit_tiny_byte_rate(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	assert_int_equal(parse_exact("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m hashlimit "
				     "--hashlimit-upto 15b/s --hashlimit-name t\nCOMMIT\n",
				     AF_INET, &rs, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "Rate too low"));
	assert_fixed_point("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m hashlimit --hashlimit-upto "
			   "16b/s --hashlimit-name t\nCOMMIT\n");
}

/* src/rules/opt.c: type_max[] was indexed with EXT_T_NAME and the other non-numeric types
 * (clang's UBSan in fuzz_box saw it; gcc may optimise the unused load away). */
static void test_name_option_type(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	assert_int_equal(parse_exact("*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m statistic --mode "
				     "nth --every 3 --packet 0 -m addrtype --dst-type LOCAL\n"
				     "COMMIT\n",
				     AF_INET, &rs, &e),
			 0);
	rules_ruleset_free(rs);
}

/*
 * src/rules/parser.c: an unterminated quote keeps the newline in the value; no printed form of
 * it reads back, so the line is refused (canonical form must be a fixed point).
 */
static void test_unterminated_quote_refused(void **state)
{
	struct rules_ruleset *rs;
	struct rules_error e;

	(void)state;
	assert_int_equal(parse_exact("*filter\n:INPUT ACCEPT [0:0]\n"
				     "-A INPUT -m comment --comment \"open end\nCOMMIT\n",
				     AF_INET, &rs, &e),
			 -EINVAL);
	assert_null(rs);
	assert_int_equal(e.line, 3);
	assert_string_equal(e.msg, "unterminated quote");
	/* a closed quote is fine, and prints to a fixed point */
	assert_int_equal(
	    parse_exact("*filter\n:INPUT ACCEPT [0:0]\n"
			"-A INPUT -m comment --comment \"a \\\"b\\\" c\" -j ACCEPT\nCOMMIT\n",
			AF_INET, &rs, &e),
	    0);
	{
		char *t1 = rules_test_print(rs, RULES_PRINT_COUNTERS), *t2;
		struct rules_ruleset *rs2;

		assert_int_equal(parse_exact(t1, AF_INET, &rs2, &e), 0);
		t2 = rules_test_print(rs2, RULES_PRINT_COUNTERS);
		assert_string_equal(t1, t2);
		free(t1);
		free(t2);
		rules_ruleset_free(rs2);
	}
	rules_ruleset_free(rs);
}

/* text -> build -> format; the line */
static void format_of(const char *text, char *line, size_t len)
{
	struct pkt *p = pkt_test_build(text);

	pkt_spec_format(p, line, len);
	pkt_free(p);
}

/*
 * src/pkt/spec_format.c: TCP and IPv4 options were printed by name when the names do not build
 * them again (an MSS of 0 means "no MSS option"; the builder has a fixed TCP option order and
 * pads IPv4 options with EOL to 4 bytes only; 40 NOPs overflowed the name buffer).
 */
static void test_tcp_options_fixed_point(void **state)
{
	static const char *const in[] = {
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 tcpopt=hex:02040000",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 tcpopt=hex:030307020405b4",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 tcpopt=hex:0204010002040200",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 tcpopt=hex:0402020405b4",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 syn mss=1460 sackok ts=1:2 wscale=7",
	    /* IPv4 options: names only when the builder's EOL padding gives the bytes back */
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 ack ipopt=eol",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 ack ipopt=hex:0000000000000000",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 ack ipopt=hex:0100000000000000",
	    "tcp 10.0.0.2:1 > 10.0.0.3:2 ack ipopt=nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,"
	    "nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,nop,"
	    "nop,"
	    "nop,nop,nop,nop,nop,nop",
	};
	char l1[512], l2[512];

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		format_of(in[i], l1, sizeof(l1));
		format_of(l1, l2, sizeof(l2));
		assert_string_equal(l1, l2);
	}
	format_of(in[0], l1, sizeof(l1));
	assert_non_null(strstr(l1, "tcpopt=hex:02040000"));
}

static void drop_xmit(void *u, struct box *b, int oif, struct pkt *p)
{
	pkt_free(p);
}

static void drop_deliver(void *u, struct box *b, struct pkt *p)
{
	pkt_free(p);
}

/*
 * src/ext/hashlimit.c: the ports of the key were loaded as uint16_t straight from the packet,
 * misaligned when a segment starts at an odd offset (UBSan).
 */
static void test_hashlimit_ports_unaligned(void **state)
{
	static const struct box_ops ops = {.xmit = drop_xmit, .deliver = drop_deliver};
	static const char rules[] =
	    "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	    "-A FORWARD -m hashlimit --hashlimit-upto 5/sec --hashlimit-mode srcip,srcport,dstport "
	    "--hashlimit-name fz -j ACCEPT\nCOMMIT\n";
	struct pkt_spec *s = malloc(sizeof(*s));
	struct rules_ruleset *rs;
	struct rules_error e;
	uint8_t flat[256];
	char err[128];
	struct box *b;
	struct pkt *p;
	uint32_t len;

	(void)state;
	assert_non_null(s);
	assert_int_equal(pkt_spec_parse("udp 192.168.1.20:5353 > 198.51.100.1:9999 len=4 eth", s,
					err, sizeof(err)),
			 0);
	p = pkt_build(s);
	assert_non_null(p);
	len = p->len;
	assert_int_equal(pkt_copy_out(p, 0, flat, len), 0);
	pkt_free(p);
	free(s);

	b = box_new("gw", &ops, NULL);
	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	assert_int_equal(parse_exact(rules, AF_INET, &rs, &e), 0);
	box_set_ruleset(b, rs, AF_INET);
	/* 1-byte segments, then the rest from offset 15: the UDP ports sit at an odd address */
	p = pkt_from_bytes_split(flat, len, 1);
	assert_non_null(p);
	assert_int_equal(box_receive(b, box_iface_index(b, "lan0"), p), EXT_ACCEPT);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counters_prefix_at_buffer_end),
	    cmocka_unit_test(test_lone_dash_command),
	    cmocka_unit_test(test_long_command_without_chain),
	    cmocka_unit_test(test_name_option_type),
	    cmocka_unit_test(test_names_with_blanks),
	    cmocka_unit_test(test_hashlimit_tiny_byte_rate),
	    cmocka_unit_test(test_unterminated_quote_refused),
	    cmocka_unit_test(test_tcp_options_fixed_point),
	    cmocka_unit_test(test_hashlimit_ports_unaligned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
