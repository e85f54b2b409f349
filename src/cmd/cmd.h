/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Subcommands of build/pkttables. Each returns the process exit status. */
#ifndef CMD_CMD_H
#define CMD_CMD_H

int cmd_parse(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_ct(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_ipset(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_sync(int argc, char **argv);

/* --classifier auto|linear|compiled (arg NULL: $PT_CLASSIFIER, else auto): a CLS_MODE_*, or
 * -1 after a message naming `cmd`. The environment variable lets a test run force a mode on
 * every replay, sim and run it starts. */
int cmd_classifier_mode(const char *cmd, const char *arg);
#define CMD_CLASSIFIER_HELP                                                                    \
	"  --classifier auto|linear|compiled  compile chains into a classifier: where it pays\n"  \
	"                   (auto, the default, or $PT_CLASSIFIER), never, or every chain\n"

#endif
