/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Many patterns, one pass over the text.
 *
 *   ts_multi_build(patterns, n, TS_MULTI_AUTO, &m)     once (may allocate a lot: see below)
 *   ts_multi_scan(m, &src, on_match, arg)              per text: on_match(arg, id, end) for
 *                                                      every occurrence (in no set order)
 *
 * Two engines:
 *   - "ac": an Aho-Corasick automaton written here, as a full transition table (256 entries
 *     of 4 bytes per state; at most TS_MULTI_MAX_STATES states per case mode). Patterns with
 *     TS_IGNORECASE go into a second automaton that reads the text folded, so one pass over
 *     the text runs both.
 *   - "hs": Hyperscan's literal matcher in streaming mode (blocks are stream writes, so an
 *     occurrence across blocks is found), when the build found libhs (pkg-config libhs; the
 *     build works without it and then only "ac" exists). Hyperscan's caseless mode folds
 *     ASCII only, so a set with a case-insensitive pattern holding any byte >= 0x80 is built
 *     with "ac" (whose folding is the kernel's, Latin-1 included).
 * TS_MULTI_AUTO takes "hs" where it can, else "ac".
 */
#ifndef TEXTSEARCH_MULTI_H
#define TEXTSEARCH_MULTI_H

#include <stdbool.h>
#include <stdint.h>

#include "textsearch/textsearch.h"

#define TS_MULTI_MAX_STATES 65536

struct ts_multi_pattern {
	const uint8_t *data;
	uint32_t len;	/* 1..TS_MAX_PATTERN */
	unsigned flags; /* TS_IGNORECASE */
};

enum ts_multi_engine { TS_MULTI_AUTO, TS_MULTI_AC, TS_MULTI_HS };

struct ts_multi;

/* An occurrence of pattern `id` (its index at build) ending at offset `end` (exclusive).
 * Return non-zero to stop the scan. */
typedef int (*ts_multi_cb)(void *arg, unsigned id, uint32_t end);

/*
 * Compile n (>= 1) patterns together. 0 and *out, -EINVAL (empty or long pattern, n == 0),
 * -ENOTSUP (TS_MULTI_HS asked for and not possible), -E2BIG (more states than
 * TS_MULTI_MAX_STATES), -ENOMEM.
 */
int ts_multi_build(const struct ts_multi_pattern *pats, unsigned n, enum ts_multi_engine engine,
		   struct ts_multi **out);
void ts_multi_free(struct ts_multi *m);
/* "ac" or "hs". */
const char *ts_multi_engine_name(const struct ts_multi *m);
/* Was the build linked with Hyperscan? */
bool ts_multi_have_hyperscan(void);

/*
 * Every occurrence of every pattern in the text, through cb. 0 when the text ended, the
 * callback's non-zero value when it stopped the scan, -ENOMEM when a Hyperscan scratch could
 * not be had. Safe from several threads at once (a thread that finds the Hyperscan scratch
 * busy makes a temporary one).
 */
int ts_multi_scan(struct ts_multi *m, const struct ts_source *src, ts_multi_cb cb, void *arg);

#endif
