/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growing text log for tests that compare two runs' callbacks line by line. Include after
 * <cmocka.h>. */
#ifndef TESTS_UNIT_TEST_LOG_H
#define TESTS_UNIT_TEST_LOG_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Every callback as a line of text, in order. */
struct log {
	char *text;
	size_t len, cap;
};

static inline void logf_(struct log *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->cap - l->len < 512) {
		l->cap = l->cap * 2 + 4096;
		l->text = realloc(l->text, l->cap);
		assert_non_null(l->text);
	}
	va_start(ap, fmt);
	n = vsnprintf(l->text + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < l->cap - l->len);
	l->len += (size_t)n;
}

#endif
