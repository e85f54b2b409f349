/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipset(8)'s command line and `ipset save` / `ipset restore` files on a box's sets
 * (set/cmd.c). What `pkttables ipset` runs over the control socket, and what `--sets FILE`,
 * the simulator's `sets load` and the live config read.
 */
#ifndef SET_SET_CMD_H
#define SET_SET_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct set_table;

/*
 * Run one command line (argv without "ipset": {"add", "s", "10.0.0.1"}; argv is modified).
 * `input` is what `restore` reads. Output (list, save) goes to out; the message for stderr,
 * without ipset's "ipset v7.17: " prefix, to err ("" if none; a successful `test` leaves its
 * "Warning: ... is in set" there). Returns ipset's exit code: 0, 1 or 2.
 */
int set_cmd_line(struct set_table *t, int argc, char **argv, const char *input, size_t inlen,
		 uint64_t now, FILE *out, char *err, size_t errlen);

/*
 * Apply a file of ipset commands (`ipset save` output, or any create/add/del/... lines) whole
 * or not at all. 0, or the exit code with the message in err and the line in *line.
 */
int set_restore(struct set_table *t, const char *text, size_t len, bool exist, uint64_t now,
		FILE *out, char *err, size_t errlen, unsigned *line);

#endif
