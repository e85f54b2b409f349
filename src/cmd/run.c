// SPDX-License-Identifier: GPL-2.0-or-later
/* pkttables run: live mode. Arguments and signals here; the work is src/io/live.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "io/live.h"

/*
 * Signals are process-wide, so their flags are too: the one piece of mutable state outside a
 * box, written only by the handlers and read by the loop between batches.
 */
static struct live_flags run_flags;

static void on_signal(int sig)
{
	switch (sig) {
	case SIGHUP:
		run_flags.reload = 1;
		break;
	case SIGUSR1:
		run_flags.dump = 1;
		break;
	default:
		run_flags.stop = 1;
		break;
	}
}

static void usage(FILE *f)
{
	fputs("usage: pkttables run --config FILE\n"
	      "\n"
	      "Forward between real interfaces (AF_PACKET) as a router with the rulesets the\n"
	      "config file names (docs/live.md).\n"
	      "  SIGHUP   reload the rulesets (all or nothing; errors as FILE:LINE)\n"
	      "  SIGUSR1  print counters to stderr\n"
	      "  SIGTERM, SIGINT  stop\n",
	      f);
}

int cmd_run(int argc, char **argv)
{
	static const int sigs[] = {SIGHUP, SIGUSR1, SIGTERM, SIGINT};
	const char *config = NULL;
	struct sigaction sa;
	sigset_t block, waitmask;
	struct live *l;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			config = argv[++i];
		} else {
			fprintf(stderr, "run: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!config) {
		fprintf(stderr, "run: give --config FILE\n");
		usage(stderr);
		return 2;
	}
	/* Blocked except while the loop waits (ppoll): no signal slips between a check of the
	 * flags and the wait. */
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&block, sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(&waitmask, sigs[i]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);

	rc = live_open(config, stderr, &l);
	if (rc < 0) {
		fprintf(stderr, "run: not started (%s)\n", strerror(-rc));
		return 1;
	}
	rc = live_run(l, &run_flags, &waitmask);
	live_free(l);
	fprintf(stderr, "pkttables: stopped\n");
	return rc < 0 ? 1 : 0;
}
