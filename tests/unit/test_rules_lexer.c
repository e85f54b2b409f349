// SPDX-License-Identifier: GPL-2.0-or-later
/* The iptables-restore line tokenizer: quotes, escapes, counters prefix, odd spacing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rules/rules_int.h"

static void lex(const char *line, struct rules_tokens *t)
{
	char msg[128], tok[128];

	assert_int_equal(rules_lex_line(line, strlen(line), t, msg, sizeof(msg), tok, sizeof(tok)),
			 0);
}

static void expect_tokens(const char *line, const char *const *want, unsigned n)
{
	struct rules_tokens t;

	lex(line, &t);
	assert_int_equal(t.n, n);
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(t.tok[i], want[i]);
	rules_tokens_free(&t);
}

static void test_plain_and_spacing(void **state)
{
	static const char *const w[] = { "-A", "INPUT", "-j", "ACCEPT" };

	(void)state;
	expect_tokens("-A INPUT -j ACCEPT", w, 4);
	expect_tokens("  -A\tINPUT   -j ACCEPT  \r", w, 4);
	expect_tokens("", NULL, 0);
}

static void test_quotes(void **state)
{
	static const char *const a[] = { "--comment", "say \"hi\"" };
	static const char *const b[] = { "--comment", "" };
	static const char *const c[] = { "x", "ab", "cd" };          /* closing quote ends it */
	static const char *const d[] = { "abcd ef" };                 /* opening quote mid-token */
	static const char *const e[] = { "a\\b", "'x'" };             /* \ and ' literal outside */
	static const char *const f[] = { "tabthere" };                /* \t inside: t kept */
	static const char *const g[] = { "--comment", "open end\n" }; /* unterminated: to EOL */

	(void)state;
	expect_tokens("--comment \"say \\\"hi\\\"\"", a, 2);
	expect_tokens("--comment \"\"", b, 2);
	expect_tokens("x \"ab\"cd", c, 3);
	expect_tokens("ab\"cd ef\"", d, 1);
	expect_tokens("a\\b 'x'", e, 2);
	expect_tokens("\"tab\\there\"", f, 1);
	expect_tokens("--comment \"open end", g, 2);
}

static void test_counters_prefix(void **state)
{
	struct rules_tokens t;
	char msg[128], tok[128];
	const char *bad = "[12:x] -A INPUT";

	(void)state;
	lex("[12:3400] -A INPUT", &t);
	assert_true(t.has_counters);
	assert_int_equal(t.pkts, 12);
	assert_int_equal(t.bytes, 3400);
	assert_int_equal(t.n, 2);
	rules_tokens_free(&t);

	lex("[18446744073709551615:0] -A X", &t);
	assert_true(t.pkts == UINT64_MAX);
	rules_tokens_free(&t);

	assert_int_equal(rules_lex_line(bad, strlen(bad), &t, msg, sizeof(msg), tok, sizeof(tok)),
			 -EINVAL);
	assert_string_equal(tok, "[12:x]");
	bad = "[18446744073709551616:0] -A X";
	assert_int_equal(rules_lex_line(bad, strlen(bad), &t, msg, sizeof(msg), tok, sizeof(tok)),
			 -EINVAL);
	bad = "[1:2";
	assert_int_equal(rules_lex_line(bad, strlen(bad), &t, msg, sizeof(msg), tok, sizeof(tok)),
			 -EINVAL);
}

static void test_not_nul_terminated(void **state)
{
	/* the lexer takes a length: bytes after it are not part of the line */
	static const char buf[] = "-A INPUT -j ACCEPTXXXX";
	struct rules_tokens t;
	char msg[64], tok[64];

	(void)state;
	assert_int_equal(rules_lex_line(buf, 18, &t, msg, sizeof(msg), tok, sizeof(tok)), 0);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.tok[3], "ACCEPT");
	rules_tokens_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_spacing),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_counters_prefix),
		cmocka_unit_test(test_not_nul_terminated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
