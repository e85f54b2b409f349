/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the rule language's unit tests. */
#ifndef TESTS_RULES_TEST_H
#define TESTS_RULES_TEST_H

#include <stdio.h>

#include "rules/rules.h"

/* rs as rules_print writes it with flags, in a malloc()ed string. */
static inline char *rules_test_print(const struct rules_ruleset *rs, unsigned flags)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	assert_int_equal(rules_print(rs, f, flags), 0);
	fclose(f);
	return s;
}

#endif
