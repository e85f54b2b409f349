// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables sim [SCRIPT]: a script is a regression test (exit 1 at the first failed
 * expectation); without one, a shell on a terminal, or commands read from stdin.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "sim/sim.h"

static void usage(FILE *f)
{
	fputs("usage: pkttables sim [-q] [SCRIPT|-]\n"
	      "\n"
	      "The simulator. With SCRIPT, run it as a test: exit 1 at the first failed\n"
	      "expectation (SCRIPT:LINE: expectation failed: ...). Without, an interactive shell\n"
	      "on a terminal (history in ~/.pkttables_history, Tab completes), else commands\n"
	      "from stdin. Relative paths in a script are taken from the script's directory.\n"
	      "  -q   do not print packet events as they happen\n"
	      "Commands: see docs/simulator.md, or type help.\n",
	      f);
}

int cmd_sim(int argc, char **argv)
{
	const char *script = NULL;
	unsigned flags = 0;
	struct sim *s;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			flags |= SIM_QUIET;
		} else if (!script) {
			script = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (script && strcmp(script, "-")) {
		FILE *f = fopen(script, "r");
		char dir[4096], *slash;

		if (!f) {
			perror(script);
			return 2;
		}
		s = sim_new(stdout, stderr, flags);
		if (!s) {
			fclose(f);
			return 2;
		}
		snprintf(dir, sizeof(dir), "%s", script);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
		sim_set_dir(s, dir);
		rc = sim_run_stream(s, f, script);
		fclose(f);
		sim_free(s);
		return rc ? 1 : 0;
	}
	if (!script && isatty(STDIN_FILENO)) {
		s = sim_new(stdout, stderr, flags | SIM_INTERACTIVE);
		if (!s)
			return 2;
		rc = sim_shell(s);
		sim_free(s);
		return rc;
	}
	s = sim_new(stdout, stderr, flags);
	if (!s)
		return 2;
	rc = sim_run_stream(s, stdin, "stdin");
	sim_free(s);
	return rc ? 1 : 0;
}
