// SPDX-License-Identifier: GPL-2.0-or-later
/* pkttables rules: a running box's ruleset. Everything is in src/ctl/rules_cli.c. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "ctl/rules_cli.h"

int cmd_rules(int argc, char **argv)
{
	return ctl_rules_main(argc, argv, stdout, stderr);
}
