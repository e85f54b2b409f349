// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables ct [--socket PATH | --name BOX] COMMAND [OPTIONS]: conntrack(8) against a running
 * box. Everything is in src/ctl/ct_cli.c; here only what a process has: the signals that end
 * -E (SIGINT, SIGTERM), as conntrack ends its event loop.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "ctl/ct_cli.h"

static volatile sig_atomic_t ct_stop; /* set by the signal handler only */

static void on_signal(int sig)
{
	(void)sig;
	ct_stop = 1;
}

int cmd_ct(int argc, char **argv)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked poll returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return ctl_ct_main(argc, argv, stdout, stderr, &ct_stop);
}
