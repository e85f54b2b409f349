/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of ipset's command line share (cmd.c: parsing, dispatch, add/del/test,
 * list/save, restore; cmd_create.c: create): one command's execution state and the helpers
 * that write ipset's error texts.
 */
#ifndef SET_CMD_INT_H
#define SET_CMD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "set/set_int.h"

#define MAX_TOKENS 64

struct exec {
	struct set_table *t; /* the table commands see (the copy during a restore) */
	bool cow;	     /* a restore: copy sets before changing them */
	bool owned[SET_MAX_SETS];
	uint64_t now;
	FILE *out;
	char *err;
	size_t errlen;
	bool exist, terse, names, quiet, save_output;
};

/* "usage" error (exit code 2) with fmt filled by a */
int sx_usage_err(struct exec *x, const char *fmt, const char *a);
/* a refused command (exit code 1) with set_strerror(code)'s text */
int sx_fail(struct exec *x, int code);
/* A set this command may change: in a restore, a copy of one that existed before. */
struct set *sx_writable(struct exec *x, int id);
/* numbers as ipset reads them; -1 with ipset's syntax error text */
int sx_parse_u32(struct exec *x, const char *s, uint32_t *out);
int sx_parse_u64(struct exec *x, const char *s, uint64_t *out);
int sx_parse_timeout(struct exec *x, const char *s, uint32_t *out);
/* create NAME TYPE [options] */
int sx_cmd_create(struct exec *x, int argc, char **argv);

#endif
