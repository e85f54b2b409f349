/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pkttables rules: a running box's ruleset over its control socket (rules_cli.c). */
#ifndef CTL_RULES_CLI_H
#define CTL_RULES_CLI_H

#include <stdio.h>

/* The whole command: argv[0] is "rules". Output to out, messages to err. The exit status:
 * 0, 1 (the box refused or failed), 2 (usage). */
int ctl_rules_main(int argc, char **argv, FILE *out, FILE *err);

#endif
