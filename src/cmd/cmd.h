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
int cmd_gen(int argc, char **argv);

#endif
