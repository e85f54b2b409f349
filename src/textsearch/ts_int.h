/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textsearch internals: an algorithm is a small ops struct, a config one allocation.
 *
 *   struct ts_config | pattern[len] (folded when TS_IGNORECASE) | the algorithm's tables
 */
#ifndef TEXTSEARCH_TS_INT_H
#define TEXTSEARCH_TS_INT_H

#include <stddef.h>

#include "textsearch/textsearch.h"

struct ts_ops {
	const char *name;
	/* Bytes of tables the algorithm needs for a pattern of `len` bytes. */
	size_t (*table_size)(uint32_t len);
	/* Fill the tables from conf->pattern. */
	void (*init)(struct ts_config *conf);
	/* First occurrence starting at or after `start`, or TS_NOMATCH. */
	uint32_t (*find)(const struct ts_config *conf, const struct ts_source *src, uint32_t start);
};

struct ts_config {
	const struct ts_ops *ops;
	uint32_t len;
	unsigned flags;
	const uint8_t *pattern; /* folded when TS_IGNORECASE */
	void *tables;		/* the algorithm's, after the pattern */
};

extern const struct ts_ops ts_kmp_ops;
extern const struct ts_ops ts_bm_ops;

#endif
