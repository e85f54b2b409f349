// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's sets: ipset commands on the current box (docs/sets.md).
 *
 *   sets load FILE            a file in `ipset save` form, whole or not at all
 *   sets [try] ipset ARGS...  one ipset(8) command ("sets ipset add blocked 192.0.2.7");
 *                             with `try` a refusal is remembered for `expect sets-error`
 *   sets show [NAME]          `ipset save` of the box's sets (all, or one)
 *
 *   expect set NAME ELEMENT | expect noset NAME ELEMENT | expect set-count NAME N
 *   expect sets-error [TEXT] | expect sets-ok
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "set/set.h"
#include "set/set_cmd.h"
#include "set/set_plugin.h"
#include "sim/internal.h"

static int run_ipset(struct sim *s, struct sim_box *sb, int argc, char **argv, bool try)
{
	struct set_table *t = set_box_table(sb->box, true);
	char err[512];
	int rc;

	if (!t)
		return sim_errorf(s, "sets: out of memory");
	rc = set_cmd_line(t, argc, argv, NULL, 0, box_now(sb->box), s->out, err, sizeof(err));
	if (try) {
		s->sets_tried = true;
		snprintf(s->sets_error, sizeof(s->sets_error), "%s", rc ? err : "");
		return 0;
	}
	if (rc)
		return sim_errorf(s, "ipset: %s", err);
	return 0;
}

int sim_cmd_sets(struct sim *s, int argc, char **argv)
{
	struct sim_box *sb = s->cur;
	bool try = false;

	if (!sb)
		return sim_errorf(s, "sets: no box yet");
	if (argc >= 2 && !strcmp(argv[1], "try")) {
		try = true;
		argv++;
		argc--;
	}
	if (argc >= 2 && !strcmp(argv[1], "ipset"))
		return run_ipset(s, sb, argc - 2, argv + 2, try);
	if (argc == 3 && !strcmp(argv[1], "load") && !try) {
		char path[PATH_MAX];
		char *buf;
		size_t len;
		int rc;

		sim_path(s, argv[2], path, sizeof(path));
		if ((rc = box_read_file(path, &buf, &len)) < 0)
			return sim_errorf(s, "%s: %s", path, strerror(-rc));
		rc = set_box_restore(sb->box, buf, len, path, s->err);
		free(buf);
		return rc < 0 ? sim_errorf(s, "sets load %s: nothing changed", argv[2]) : 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "show") && !try) {
		char *av[2] = {"save", argc == 3 ? argv[2] : NULL};

		return run_ipset(s, sb, argc == 3 ? 2 : 1, av, false);
	}
	return sim_errorf(s, "usage: sets load FILE | sets [try] ipset ARGS... | sets show [NAME]");
}

int sim_expect_sets(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	struct set_table *t = set_box_table(sb->box, false);
	char err[512];

	if (!strcmp(what, "sets-error") || !strcmp(what, "sets-ok")) {
		if (!s->sets_tried)
			return sim_errorf(s, "expect %s: no `sets try` before it", what);
		s->sets_tried = false;
		if (!strcmp(what, "sets-ok") && s->sets_error[0])
			return sim_failf(s, "expected the ipset command to succeed: %s",
					 s->sets_error);
		if (!strcmp(what, "sets-error") && !s->sets_error[0])
			return sim_failf(s, "expected the ipset command to be refused, it was not");
		if (!strcmp(what, "sets-error") && argc > 2 && !strstr(s->sets_error, argv[2]))
			return sim_failf(s, "expected a refusal with \"%s\", got: %s", argv[2],
					 s->sets_error);
		return 0;
	}
	if (!strcmp(what, "set-count")) {
		int id;
		char *end;
		unsigned long want;

		if (argc != 4)
			return sim_errorf(s, "usage: expect set-count NAME N");
		want = strtoul(argv[3], &end, 10);
		if (*end)
			return sim_errorf(s, "expect set-count: bad number '%s'", argv[3]);
		if (!t || (id = set_find(t, argv[2])) < 0)
			return sim_failf(s, "no set %s", argv[2]);
		/* expired elements do not count: free them first */
		set_table_sweep(t, box_now(sb->box), 1u << 20);
		if (set_count(set_get(t, id)) != want)
			return sim_failf(s, "set %s has %u elements, expected %lu", argv[2],
					 set_count(set_get(t, id)), want);
		return 0;
	}
	if (argc != 4)
		return sim_errorf(s, "usage: expect %s NAME ELEMENT", what);
	{
		char *av[3] = {"test", argv[2], argv[3]};
		FILE *null = fopen("/dev/null", "w");
		int rc;

		if (!t)
			return sim_failf(s, "the box has no sets");
		rc = set_cmd_line(t, 3, av, NULL, 0, box_now(sb->box), null ? null : s->out, err,
				  sizeof(err));
		if (null)
			fclose(null);
		if (rc == 2 || (rc == 1 && !strstr(err, "is NOT in set")))
			return sim_errorf(s, "expect %s: %s", what, err);
		if (!strcmp(what, "set") && rc)
			return sim_failf(s, "%s is not in set %s", argv[3], argv[2]);
		if (!strcmp(what, "noset") && !rc)
			return sim_failf(s, "%s is in set %s", argv[3], argv[2]);
	}
	return 0;
}
