// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The iptables compatibility suite: every case file (.t) in tests/compat and every
 * ruleset-NAME.save round trip, checked against what the real iptables-save 1.8.9 (nf_tables) printed
 * (tests/compat/README.md describes the format).
 *
 *   RULE;PRINTED;OK   parse "-A CHAIN RULE", print, compare with PRINTED (or RULE for "="),
 *                     then parse PRINTED again: it must print identically (canonical)
 *   RULE;;FAIL        parsing (with all checks) must fail
 *
 * A case that does not behave as expected but names an extension the registry does not have
 * yet (-m NAME, -j NAME, or the implicit match of -p) is SKIPPED, not failed, so the suite is
 * honest while extensions are being written. The directory is $PT_COMPAT_DIR, else
 * tests/compat found from the current directory or two levels up.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "rules/rules.h"

struct counts {
	unsigned pass, skip, fail;
};

static const char *compat_dir(void)
{
	static const char *const cands[] = { "tests/compat", "../tests/compat",
					     "../../tests/compat" };
	static char buf[512];
	const char *env = getenv("PT_COMPAT_DIR");

	if (env)
		return env;
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		snprintf(buf, sizeof(buf), "%s/README.md", cands[i]);
		FILE *f = fopen(buf, "r");

		if (f) {
			fclose(f);
			return cands[i];
		}
	}
	return NULL;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 4096 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static bool is_builtin(const char *table, const char *chain)
{
	int t = rules_table_by_name(table);
	struct rules_ruleset *rs;
	bool found = false;

	if (t < 0)
		return false;
	rs = rules_ruleset_new(AF_INET);
	if (!rs)
		return false;
	found = rules_chain_find(&rs->tables[t], chain) >= 0;
	rules_ruleset_free(rs);
	return found;
}

/* Does the rule name an extension that the registry lacks? */
static bool needs_missing_ext(const char *rule, const char *chains, int family)
{
	const struct ext_registry *reg = ext_registry_default();
	char *copy = strdup(rule), *save = NULL, *tok, *prev = NULL;
	bool missing = false, has_ext_opt = false;
	char proto[32] = "";

	if (!copy)
		return false;
	for (tok = strtok_r(copy, " \t", &save); tok; prev = tok, tok = strtok_r(NULL, " \t", &save)) {
		if (!prev) {
			if (!strncmp(tok, "--", 2))
				has_ext_opt = true;
			continue;
		}
		if (!strcmp(prev, "-m") || !strcmp(prev, "--match")) {
			missing |= !ext_find_match(reg, tok, family);
		} else if (!strcmp(prev, "-j") || !strcmp(prev, "--jump")) {
			char pat[64];

			snprintf(pat, sizeof(pat), ",%s,", tok);
			char list[512];

			snprintf(list, sizeof(list), ",%s,", chains);
			if (strcmp(tok, "ACCEPT") && strcmp(tok, "DROP") && strcmp(tok, "RETURN") &&
			    !strstr(list, pat))
				missing |= !ext_find_target(reg, tok, family);
		} else if (!strcmp(prev, "-p") || !strcmp(prev, "--protocol")) {
			snprintf(proto, sizeof(proto), "%s", tok);
		}
		if (!strncmp(tok, "--", 2))
			has_ext_opt = true;
	}
	if (proto[0] && has_ext_opt && !ext_find_match(reg, proto, family)) {
		static const char *const known[] = { "tcp", "udp", "icmp", "icmpv6", "ipv6-icmp",
						     "sctp", "dccp", "udplite", "esp", "ah" };

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			missing |= !strcasecmp(proto, known[i]);
	}
	free(copy);
	return missing;
}

/* Parse one case; on success *printed is the "-A CHAIN" lines' remainders joined by "\n". */
static int run_rule(const char *table, const char *chains, int family, const char *rule,
		    char **printed, struct rules_error *err)
{
	char *in = NULL, *out = NULL, *copy, *save = NULL, *c, *first;
	size_t inlen = 0, outlen = 0;
	FILE *f = open_memstream(&in, &inlen);
	struct rules_ruleset *rs;
	int ret;

	*printed = NULL;
	if (!f)
		return -ENOMEM;
	copy = strdup(chains);
	first = NULL;
	fprintf(f, "*%s\n", table);
	for (c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
		if (!first)
			first = c;
		if (is_builtin(table, c))
			fprintf(f, ":%s ACCEPT [0:0]\n", c);
		else
			fprintf(f, ":%s - [0:0]\n", c);
	}
	fprintf(f, "-A %s %s\nCOMMIT\n", first ? first : "INPUT", rule);
	fclose(f);
	ret = rules_parse_buffer(in, inlen, "case", family, ext_registry_default(), NULL, 0, &rs,
				 err);
	free(in);
	if (ret) {
		free(copy);
		return ret;
	}
	f = open_memstream(&out, &outlen);
	rules_print(rs, f, 0);
	fclose(f);
	rules_ruleset_free(rs);
	{
		char prefix[64], *acc = NULL, *line, *lsave = NULL;
		size_t acclen = 0;
		FILE *a = open_memstream(&acc, &acclen);
		bool any = false;

		snprintf(prefix, sizeof(prefix), "-A %s", first ? first : "INPUT");
		for (line = strtok_r(out, "\n", &lsave); line; line = strtok_r(NULL, "\n", &lsave)) {
			size_t pl = strlen(prefix);

			if (strncmp(line, prefix, pl) || (line[pl] != ' ' && line[pl] != '\0'))
				continue;
			fprintf(a, "%s%s", any ? "\\n" : "", line[pl] ? line + pl + 1 : "");
			any = true;
		}
		fclose(a);
		*printed = acc;
	}
	free(out);
	free(copy);
	return 0;
}

static void run_case_file(const char *dir, const char *name, struct counts *total)
{
	char path[1024], table[32] = "filter", chains[256] = "INPUT";
	struct counts c = { 0, 0, 0 };
	int family = AF_INET;
	unsigned lineno = 0;
	size_t len;
	char *buf, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf = read_all(path, &len);
	if (!buf) {
		printf("%s: cannot read\n", path);
		total->fail++;
		return;
	}
	for (line = buf; line && *line; line = save) {
		char *nl = strchr(line, '\n');

		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		if (!*line || line[0] == '#')
			continue;
		if (line[0] == '*') {
			snprintf(table, sizeof(table), "%s", line + 1);
			continue;
		}
		if (line[0] == ':') {
			snprintf(chains, sizeof(chains), "%s", line + 1);
			continue;
		}
		if (!strcmp(line, "-4") || !strcmp(line, "-6")) {
			family = line[1] == '4' ? AF_INET : AF_INET6;
			continue;
		}
		char *s1 = strchr(line, ';'), *s2 = strrchr(line, ';');

		if (!s1 || s1 == s2)
			continue;
		*s1 = *s2 = '\0';
		const char *rule = line, *expect = s1 + 1, *result = s2 + 1;
		bool want_ok = !strcmp(result, "OK");
		struct rules_error err;
		char *printed = NULL;
		bool good;
		int ret;

		if (strcmp(result, "OK") && strcmp(result, "FAIL"))
			continue; /* "?": unknown */
		if (!strcmp(expect, "="))
			expect = rule;
		ret = run_rule(table, chains, family, rule, &printed, &err);
		good = want_ok ? (!ret && printed && !strcmp(printed, expect)) : ret != 0;
		if (good && want_ok && !strstr(expect, "\\n") && expect[0]) {
			/* canonical: the printed form reads back to itself */
			char *again = NULL;

			if (run_rule(table, chains, family, expect, &again, &err) || !again ||
			    strcmp(again, expect))
				good = false;
			free(again);
		}
		if (good) {
			c.pass++;
		} else if (needs_missing_ext(rule, chains, family)) {
			c.skip++;
		} else {
			c.fail++;
			printf("FAIL %s:%u: [%s %s %s] %s\n", name, lineno, table, chains,
			       family == AF_INET ? "-4" : "-6", rule);
			if (want_ok && ret)
				printf("     expected OK: %s\n     got error: %s:%u: %s (near '%s')\n",
				       expect, err.file, err.line, err.msg, err.token);
			else if (want_ok)
				printf("     expected: %s\n     got:      %s\n", expect,
				       printed ? printed : "(null)");
			else
				printf("     expected FAIL, got: %s\n", printed ? printed : "(null)");
		}
		free(printed);
	}
	free(buf);
	printf("%-24s pass %3u  skip %3u  fail %3u\n", name, c.pass, c.skip, c.fail);
	total->pass += c.pass;
	total->skip += c.skip;
	total->fail += c.fail;
}

/* Rule counters of "[p:b] -A" lines zeroed: ip6tables-nft-restore -c loses them (README). */
static char *zero_rule_counters(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s + 1) : strlen(s);
		const char *close = s[0] == '[' ? memchr(s, ']', n) : NULL;

		if (close && close[1] == ' ' && close[2] == '-') {
			o += sprintf(o, "[0:0]");
			memcpy(o, close + 1, n - (size_t)(close + 1 - s));
			o += n - (size_t)(close + 1 - s);
		} else {
			memcpy(o, s, n);
			o += n;
		}
		s += n;
	}
	*o = '\0';
	return out;
}

static void run_ruleset(const char *dir, const char *name, struct counts *total)
{
	char path[1024], exp_path[1024];
	size_t len, elen, olen = 0;
	char *in, *expected, *out = NULL;
	struct rules_ruleset *rs;
	struct rules_error err;
	int family;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(exp_path, sizeof(exp_path), "%s/%.*s.expected", dir, (int)(strlen(name) - 5),
		 name);
	in = read_all(path, &len);
	expected = read_all(exp_path, &elen);
	if (!in || !expected) {
		printf("%s: cannot read it or its .expected\n", name);
		total->fail++;
		free(in);
		free(expected);
		return;
	}
	family = strstr(in, "# family: -6") ? AF_INET6 : AF_INET;
	if (rules_parse_buffer(in, len, name, family, ext_registry_default(), NULL, 0, &rs,
			       &err)) {
		bool missing = strstr(err.msg, "unknown match") ||
			       strstr(err.msg, "is not supported by pkttables") ||
			       strstr(err.msg, "chain or target does not exist") ||
			       strstr(err.msg, "unknown option");

		if (missing) {
			printf("%-24s SKIPPED (%s:%u: %s near '%s')\n", name, err.file, err.line,
			       err.msg, err.token);
			total->skip++;
		} else {
			printf("FAIL %s: ", name);
			rules_error_print(&err, stdout);
			total->fail++;
		}
		free(in);
		free(expected);
		return;
	}
	f = open_memstream(&out, &olen);
	rules_print(rs, f, RULES_PRINT_COUNTERS);
	fclose(f);
	rules_ruleset_free(rs);
	if (!strcmp(out, expected)) {
		printf("%-24s pass\n", name);
		total->pass++;
	} else {
		char *a = zero_rule_counters(out), *b = zero_rule_counters(expected);

		if (family == AF_INET6 && a && b && !strcmp(a, b)) {
			printf("%-24s pass (rule counters kept; ip6tables-nft loses them)\n", name);
			total->pass++;
		} else {
			printf("FAIL %s: output differs\n--- expected\n%s--- got\n%s", name,
			       expected, out);
			total->fail++;
		}
		free(a);
		free(b);
	}
	free(out);
	free(in);
	free(expected);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_compat_suite(void **state)
{
	const char *dir = compat_dir();
	struct counts total = { 0, 0, 0 };
	char *names[512];
	unsigned n = 0;
	struct dirent *de;
	DIR *d;

	(void)state;
	if (!dir) {
		print_message("tests/compat not found (set PT_COMPAT_DIR)\n");
		skip();
	}
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) && n < 512) {
		size_t l = strlen(de->d_name);

		if ((l > 2 && !strcmp(de->d_name + l - 2, ".t")) ||
		    (l > 5 && !strcmp(de->d_name + l - 5, ".save")))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (!strcmp(names[i] + l - 2, ".t"))
			run_case_file(dir, names[i], &total);
		else
			run_ruleset(dir, names[i], &total);
		free(names[i]);
	}
	printf("TOTAL pass %u  skip %u  fail %u\n", total.pass, total.skip, total.fail);
	fflush(stdout);
	assert_int_equal(total.fail, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compat_suite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
