/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * textsearch: find a byte pattern in a text that arrives block by block.
 *
 *   ts_prepare("bm", "GET /", 5, TS_IGNORECASE, &conf)     once: the caller owns conf
 *   ts_find(conf, &state, &src)                            per text: first occurrence
 *   ts_next(conf, &state)                                   the one after it
 *   ts_destroy(conf)
 *
 * The text is never copied or linearized: the search asks the source for the block that
 * starts `consumed` bytes into the text and walks it in place, so a packet of many segments
 * is searched where it lies. An occurrence that spans two (or more) blocks is found by every
 * algorithm. (Linux's "bm" misses those; this one does not, a deliberate difference: a
 * pattern split by segmentation is still in the packet.)
 *
 *   text:   [ block 0 ][b1][     block 2      ][]      consumed = 0, |b0|, |b0|+|b1|, ...
 *                    ^^^^^^^ an occurrence across three blocks is reported at its start
 *
 * Offsets returned are from the start of the text; TS_NOMATCH when there is none.
 *
 * Algorithms: "kmp" (Knuth-Morris-Pratt: linear, never looks back) and "bm" (Boyer-Moore-
 * Horspool: sublinear on typical text, the one iptables defaults to). Case folding
 * (TS_IGNORECASE) folds the way Linux's toupper() does: ASCII and the Latin-1 lower-case
 * letters (0xdf-0xff except 0xf7), so a verdict agrees with the kernel's byte for byte.
 * Many patterns at once: textsearch/multi.h.
 *
 * State is the caller's (struct ts_state, on its stack): one prepared config may be used by
 * any number of threads at once.
 */
#ifndef TEXTSEARCH_TEXTSEARCH_H
#define TEXTSEARCH_TEXTSEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TS_NOMATCH     UINT32_MAX
#define TS_MAX_PATTERN 1024 /* bytes; longer patterns are refused (-E2BIG) */

enum ts_flags {
	TS_IGNORECASE = 1 << 0,
};

/*
 * Where the text comes from. next_block sets *block to the bytes that start `consumed` bytes
 * into the text and returns how many there are (any number, 0 only at the end of the text;
 * zero-length segments are the source's business to skip). `consumed` is 0 first, then the
 * sum of what it returned, or any earlier offset when a search restarts (ts_next).
 */
struct ts_source {
	uint32_t (*next_block)(void *arg, uint32_t consumed, const uint8_t **block);
	void *arg;
};

struct ts_config;

/* The caller's search state: where the last occurrence was. */
struct ts_state {
	uint32_t offset; /* of the last occurrence, TS_NOMATCH when none */
	struct ts_source src;
};

/*
 * Prepare a search for `len` (1..TS_MAX_PATTERN) bytes of `pattern` with algorithm `algo`
 * ("bm" or "kmp"). 0 and *out (to ts_destroy), -ENOENT for an unknown algorithm, -EINVAL for
 * an empty pattern, -E2BIG for a long one, -ENOMEM.
 */
int ts_prepare(const char *algo, const void *pattern, uint32_t len, unsigned flags,
	       struct ts_config **out);
void ts_destroy(struct ts_config *conf);
/*
 * The same in memory the caller provides (8-byte aligned, e.g. a uint64_t array on its
 * stack): nothing is allocated and nothing is to be destroyed. ts_config_size() says how many
 * bytes (0 for an unknown algorithm or a bad length); -ENOSPC when `size` is short.
 */
size_t ts_config_size(const char *algo, uint32_t len);
int ts_prepare_at(void *mem, size_t size, const char *algo, const void *pattern, uint32_t len,
		  unsigned flags, struct ts_config **out);
/* Is `algo` the name of an algorithm here? */
bool ts_algo_known(const char *algo);
uint32_t ts_pattern_len(const struct ts_config *conf);

/* First occurrence in the text `src` gives: its offset, or TS_NOMATCH. */
uint32_t ts_find(const struct ts_config *conf, struct ts_state *st, const struct ts_source *src);
/* The next occurrence after the last one found (they may overlap), or TS_NOMATCH. */
uint32_t ts_next(const struct ts_config *conf, struct ts_state *st);

/* A text that is one flat buffer (tests, benchmarks, callers that have one). */
struct ts_flat {
	const uint8_t *data;
	uint32_t len;
};
struct ts_source ts_flat_source(struct ts_flat *f);

/* How Linux's toupper() folds a byte (ASCII and Latin-1), as TS_IGNORECASE compares. */
extern const uint8_t ts_fold_table[256];
static inline uint8_t ts_fold(uint8_t c)
{
	return ts_fold_table[c];
}

#endif
