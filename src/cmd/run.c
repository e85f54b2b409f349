// SPDX-License-Identifier: GPL-2.0-or-later
/* pkttables run: live mode. Arguments and signals here; the work is src/live/. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "live/live.h"
#include "live/nfqueue.h"

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
	fputs("usage: pkttables run --config FILE [--control SPEC] [--classifier MODE]\n"
	      "       pkttables run --nfqueue N[:M] [--rules FILE] [--rules6 FILE] [--queue-maxlen "
	      "N]\n"
	      "                     [--fail-open] [--workers N] [--control SPEC] [--classifier "
	      "MODE]\n"
	      "\n"
	      "Forward between real interfaces (AF_PACKET) as a router with the rulesets the\n"
	      "config file names; or give the kernel verdicts for the packets it queues to\n"
	      "NFQUEUE N, from the rules of the hook they were queued at (docs/live.md).\n"
	      "  --nfqueue N:M     queues N to M (the kernel's --queue-balance N:M), one box\n"
	      "  --workers N       threads serving the queues (default: one per queue, at most\n"
	      "                    one per CPU); the config file's `workers N` in live mode\n"
	      "  --queue-maxlen N  packets the kernel keeps waiting for a verdict (1024)\n"
	      "  --fail-open       when the queue is full the kernel accepts instead of dropping\n"
	      "  --control SPEC    serve the control socket (pkttables rules, ct) at SPEC, a path\n"
	      "                    or a name; instead of the config's `control` line\n"
	      "  --classifier auto|linear|compiled  compile chains into a classifier: where it\n"
	      "                    pays (auto, the default), never, or every chain; instead of\n"
	      "                    the config's `classifier` line (docs/classifier.md)\n"
	      "  SIGHUP   reload the rulesets (all or nothing; errors as FILE:LINE)\n"
	      "  SIGUSR1  print counters to stderr\n"
	      "  SIGTERM, SIGINT  stop\n",
	      f);
}

int cmd_run(int argc, char **argv)
{
	static const int sigs[] = {SIGHUP, SIGUSR1, SIGTERM, SIGINT};
	struct live_nfqueue_opts nq = {0};
	const char *config = NULL, *control = NULL, *classifier = NULL;
	struct sigaction sa;
	sigset_t block, waitmask;
	bool nfq = false;
	int cls;
	struct live *l;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			config = argv[++i];
		} else if ((!strcmp(argv[i], "--nfqueue") || !strcmp(argv[i], "--queue-maxlen") ||
			    !strcmp(argv[i], "--workers")) &&
			   i + 1 < argc) {
			char *end;
			unsigned long n = strtoul(argv[i + 1], &end, 0), m = n;

			/* --nfqueue N:M: the kernel's --queue-balance N:M */
			if (argv[i][2] == 'n' && *end == ':' && end[1])
				m = strtoul(end + 1, &end, 0);
			if (*end || !argv[i + 1][0] || m < n ||
			    n > (argv[i][2] == 'n' ? 65535ul : 1u << 20) || m > 65535 ||
			    (argv[i][2] == 'w' && (n < 1 || n > 64))) {
				fprintf(stderr, "run: %s: bad number '%s'\n", argv[i], argv[i + 1]);
				return 2;
			}
			if (argv[i][2] == 'n') {
				nfq = true;
				nq.queue.queue_num = (unsigned)n;
				nq.last_queue = (unsigned)m;
			} else if (argv[i][2] == 'w') {
				nq.workers = (unsigned)n;
			} else {
				nq.queue.maxlen = (unsigned)n;
			}
			i++;
		} else if (!strcmp(argv[i], "--rules") && i + 1 < argc) {
			nq.rules = argv[++i];
		} else if (!strcmp(argv[i], "--rules6") && i + 1 < argc) {
			nq.rules6 = argv[++i];
		} else if (!strcmp(argv[i], "--control") && i + 1 < argc) {
			control = argv[++i];
		} else if (!strcmp(argv[i], "--classifier") && i + 1 < argc) {
			classifier = argv[++i];
		} else if (!strcmp(argv[i], "--fail-open")) {
			nq.queue.fail_open = true;
		} else {
			fprintf(stderr, "run: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (nfq == !!config || (!nfq && (nq.rules || nq.rules6 || nq.queue.maxlen ||
					 nq.queue.fail_open || nq.workers))) {
		fprintf(stderr, "run: give --config FILE, or --nfqueue N with its options\n");
		usage(stderr);
		return 2;
	}
	/* --classifier, else $PT_CLASSIFIER (a test run forcing a mode), else the config's line */
	cls = classifier || getenv("PT_CLASSIFIER") ? cmd_classifier_mode("run", classifier) : -1;
	if (cls < 0 && (classifier || getenv("PT_CLASSIFIER")))
		return 2;
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

	if (nfq) {
		struct live_nfqueue *q;

		nq.control = control;
		nq.classifier = cls < 0 ? 0 : cls;
		rc = live_nfqueue_open(&nq, stderr, &q);
		if (rc < 0) {
			fprintf(stderr, "run: not started (%s)\n", strerror(-rc));
			return 1;
		}
		rc = live_nfqueue_run(q, &run_flags, &waitmask);
		live_nfqueue_free(q);
		fprintf(stderr, "pkttables: stopped\n");
		return rc < 0 ? 1 : 0;
	}
	rc = live_open(config, cls, stderr, &l);
	if (rc < 0) {
		fprintf(stderr, "run: not started (%s)\n", strerror(-rc));
		return 1;
	}
	if (control && live_set_control(l, control) < 0) {
		fprintf(stderr, "run: --control: path too long\n");
		live_free(l);
		return 2;
	}
	rc = live_run(l, &run_flags, &waitmask);
	live_free(l);
	fprintf(stderr, "pkttables: stopped\n");
	return rc < 0 ? 1 : 0;
}
