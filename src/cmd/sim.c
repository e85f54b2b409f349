// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables sim [SCRIPT]: a script is a regression test (exit 1 at the first failed
 * expectation); without one, a shell on a terminal, or commands read from stdin. With
 * --serve, once the script has run its boxes stay up behind control sockets until SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "sim/sim.h"

#define MAX_SERVE 32

/* Process-wide, as signals are: written by the handler, read by the serving loop. */
static volatile sig_atomic_t sim_stop;

static void on_stop(int sig)
{
	(void)sig;
	sim_stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: pkttables sim [-q] [--classifier MODE] [--serve [BOX=]SPEC]...\n"
	      "                     [--serve-ready FILE] [SCRIPT|-]\n"
	      "\n"
	      "The simulator. With SCRIPT, run it as a test: exit 1 at the first failed\n"
	      "expectation (SCRIPT:LINE: expectation failed: ...). Without, an interactive shell\n"
	      "on a terminal (history in ~/.pkttables_history, Tab completes), else commands\n"
	      "from stdin. Relative paths in a script are taken from the script's directory.\n"
	      "  -q   do not print packet events as they happen\n"
	      "  --serve [BOX=]SPEC  after the script, serve BOX (default: the only or current\n"
	      "       box) on a control socket, SPEC a path or a name (pkttables rules --name),\n"
	      "       until SIGTERM or SIGINT; prints \"serving PATH\" for each socket\n"
	      "  --serve-ready FILE  also write the socket paths to FILE once all listen\n"
	      CMD_CLASSIFIER_HELP
	      "Commands: see docs/simulator.md, or type help.\n",
	      f);
}

struct serve_spec {
	const char *box; /* NULL: the current box */
	const char *spec;
};

/* Open the sockets, tell who waits for them, serve until a signal. Exit status. */
static int serve(struct sim *s, const struct serve_spec *sv, unsigned n, const char *ready)
{
	char paths[MAX_SERVE][256];
	FILE *f;

	for (unsigned i = 0; i < n; i++) {
		if (sim_ctl_listen(s, sv[i].box, sv[i].spec, paths[i], sizeof(paths[i])) < 0) {
			fprintf(stderr, "sim: --serve %s%s%s: not served\n",
				sv[i].box ? sv[i].box : "", sv[i].box ? "=" : "", sv[i].spec);
			return 2;
		}
		printf("serving %s\n", paths[i]);
	}
	fflush(stdout);
	if (ready) {
		char tmp[4096];

		/* written whole, then renamed: a reader never sees half of it */
		snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
		if (!(f = fopen(tmp, "w"))) {
			perror(tmp);
			return 2;
		}
		for (unsigned i = 0; i < n; i++)
			fprintf(f, "%s\n", paths[i]);
		if (fclose(f) || rename(tmp, ready)) {
			perror(ready);
			return 2;
		}
	}
	if (sim_ctl_serve(s, -1) < 0)
		return 1;
	if (ready)
		unlink(ready);
	return 0;
}

int cmd_sim(int argc, char **argv)
{
	struct serve_spec sv[MAX_SERVE];
	const char *script = NULL, *ready = NULL, *classifier = NULL;
	unsigned flags = 0, nserve = 0;
	struct sim *s;
	int rc, mode;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			flags |= SIM_QUIET;
		} else if (!strcmp(argv[i], "--serve") && i + 1 < argc) {
			char *a = argv[++i], *eq = strchr(a, '=');

			if (nserve == MAX_SERVE) {
				fprintf(stderr, "sim: at most %d --serve\n", MAX_SERVE);
				return 2;
			}
			/* BOX=SPEC; a '/' before the '=' makes it all a path */
			if (eq && eq > a && !memchr(a, '/', (size_t)(eq - a))) {
				*eq = '\0';
				sv[nserve++] = (struct serve_spec){a, eq + 1};
			} else {
				sv[nserve++] = (struct serve_spec){NULL, a};
			}
		} else if (!strcmp(argv[i], "--classifier") && i + 1 < argc) {
			classifier = argv[++i];
		} else if (!strcmp(argv[i], "--serve-ready") && i + 1 < argc) {
			ready = argv[++i];
		} else if (!script) {
			script = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	mode = cmd_classifier_mode("sim", classifier);
	if (mode < 0)
		return 2;
	if ((nserve || ready) && (!script || !nserve)) {
		fprintf(stderr,
			"sim: --serve needs a SCRIPT (or - for stdin) that builds the boxes\n");
		return 2;
	}
	if (nserve) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop; /* no SA_RESTART: poll returns at once */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
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
		sim_set_classifier(s, mode);
		sim_set_stop(s, &sim_stop);
		snprintf(dir, sizeof(dir), "%s", script);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
		sim_set_dir(s, dir);
		rc = sim_run_stream(s, f, script);
		fclose(f);
		if (!rc && nserve)
			rc = serve(s, sv, nserve, ready);
		sim_free(s);
		return rc;
	}
	if (!script && isatty(STDIN_FILENO)) {
		s = sim_new(stdout, stderr, flags | SIM_INTERACTIVE);
		if (!s)
			return 2;
		sim_set_classifier(s, mode);
		rc = sim_shell(s);
		sim_free(s);
		return rc;
	}
	s = sim_new(stdout, stderr, flags);
	if (!s)
		return 2;
	sim_set_classifier(s, mode);
	sim_set_stop(s, &sim_stop);
	rc = sim_run_stream(s, stdin, "stdin");
	if (!rc && nserve)
		rc = serve(s, sv, nserve, ready);
	sim_free(s);
	return rc;
}
