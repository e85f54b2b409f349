// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's command table (sim/internal.h: sim_commands): every command is dispatched,
 * listed by help and offered by tab completion, from the one table. The lists had drifted
 * before it: conntrack and ct-timeout were never completed, nat was missing from help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/internal.h"

struct words_seen {
	const char *want;
	int seen;
};

static void seen(void *arg, const char *word)
{
	struct words_seen *w = arg;

	if (!strcmp(w->want, word))
		w->seen++;
}

static void test_help_completion_dispatch(void **state)
{
	char *out = NULL, *err = NULL;
	size_t outlen = 0, errlen = 0;
	FILE *fo = open_memstream(&out, &outlen), *fe = open_memstream(&err, &errlen);
	struct sim *s = sim_new(fo, fe, 0);
	unsigned n = 0;

	(void)state;
	assert_non_null(s);
	assert_int_equal(sim_feed_line(s, "help", "t", 1), 0);
	fflush(fo);
	for (const struct sim_command *c = sim_commands; c->name; c++, n++) {
		struct words_seen w = {c->name, 0};
		char line[64];

		/* help: the usage, if any, is printed; it starts with the name */
		if (c->usage) {
			assert_non_null(strstr(out, c->usage));
			assert_memory_equal(c->usage, c->name, strlen(c->name));
		}
		/* completion offers the name */
		sim_complete_words(s, seen, &w);
		assert_true(w.seen >= 1);
		/* dispatch: never "unknown command" for a command with a function */
		if (!c->fn || !strcmp(c->name, "reset") || !strcmp(c->name, "help"))
			continue;
		fflush(fe);
		snprintf(line, sizeof(line), "%s", c->name);
		sim_feed_line(s, line, "t", 2);
		fflush(fe);
		assert_null(strstr(err, "unknown command"));
	}
	assert_true(n >= 25);
	for (const char *must[] = {"conntrack", "ct-timeout", "nat", NULL}, **m = must; *m; m++) {
		struct words_seen w = {*m, 0};

		sim_complete_words(s, seen, &w);
		assert_true(w.seen >= 1);
	}
	assert_non_null(strstr(out, "\n  nat set NAME VALUE"));
	sim_feed_line(s, "nosuchcommand", "t", 3);
	fflush(fe);
	assert_non_null(strstr(err, "unknown command 'nosuchcommand'"));
	sim_free(s);
	fclose(fo);
	fclose(fe);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_help_completion_dispatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
