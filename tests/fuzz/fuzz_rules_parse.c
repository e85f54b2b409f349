// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> rules_parse_buffer for AF_INET and AF_INET6. A ruleset that
 * parses is printed (with counters, as iptables-save -c) and the text parsed again: it must
 * parse, and print the same text. The canonical form is a fixed point of parse + print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/ext.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The ruleset as text; NULL on ENOMEM. The caller frees it. */
static char *print_ruleset(const struct rules_ruleset *rs, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	if (rules_print(rs, f, RULES_PRINT_COUNTERS) < 0) {
		fclose(f);
		free(text);
		fprintf(stderr, "rules_print failed on a ruleset that parsed\n");
		abort();
	}
	fclose(f);
	return text;
}

static void check_family(const uint8_t *data, size_t size, int family)
{
	const struct ext_registry *reg = ext_registry_default();
	struct rules_ruleset *rs = NULL, *rs2 = NULL;
	struct rules_error e;
	char *t1, *t2;
	size_t n1, n2;

	memset(&e, 0, sizeof(e));
	if (rules_parse_buffer((const char *)data, size, "fuzz", family, reg, NULL, 0, &rs, &e)) {
		if (rs)
			abort(); /* all or nothing: no ruleset with an error */
		return;
	}
	t1 = print_ruleset(rs, &n1);
	if (!t1)
		goto out;
	memset(&e, 0, sizeof(e));
	if (rules_parse_buffer(t1, n1, "printed", family, reg, NULL, 0, &rs2, &e)) {
		fprintf(stderr, "family %d: printed form does not parse: %s:%u: %s (near '%s')\n%s",
			family, e.file, e.line, e.msg, e.token, t1);
		abort();
	}
	t2 = print_ruleset(rs2, &n2);
	if (t2 && (n1 != n2 || memcmp(t1, t2, n1))) {
		fprintf(stderr,
			"family %d: print is not a fixed point\n--- first\n%s--- second\n%s",
			family, t1, t2);
		abort();
	}
	free(t2);
	free(t1);
out:
	rules_ruleset_free(rs2);
	rules_ruleset_free(rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	check_family(data, size, AF_INET);
	check_family(data, size, AF_INET6);
	(void)rules_buffer_has_family_tag((const char *)data, size, 6);
	return 0;
}
