// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Knuth-Morris-Pratt over blocks.
 *
 *   pattern  a b a b c          border[i]: the longest proper prefix of pattern[0..i] that
 *   border   0 0 1 2 0          is also its suffix; on a mismatch after q matched bytes the
 *                               search goes on with border[q-1] matched, never reading back
 *
 * The number of bytes matched so far is all the state there is, so a block boundary costs
 * nothing and an occurrence across any number of blocks is found. While nothing is matched
 * the search skips ahead to the next byte equal to the pattern's first (memchr without
 * TS_IGNORECASE), which is where most of the time goes on real payloads.
 */
#include <string.h>

#include "textsearch/ts_int.h"

static size_t kmp_table_size(uint32_t len)
{
	return (size_t)len * sizeof(uint32_t);
}

static void kmp_init(struct ts_config *c)
{
	uint32_t *border = c->tables;
	const uint8_t *p = c->pattern;
	uint32_t k = 0;

	border[0] = 0;
	for (uint32_t i = 1; i < c->len; i++) {
		while (k > 0 && p[i] != p[k])
			k = border[k - 1];
		if (p[i] == p[k])
			k++;
		border[i] = k;
	}
}

/* Index of the first byte in b[i..n) that may start an occurrence, n when none. */
static uint32_t skip_to_first(const uint8_t *b, uint32_t i, uint32_t n, uint8_t first, bool icase)
{
	const uint8_t *hit;

	if (!icase) {
		hit = memchr(b + i, first, n - i);
		return hit ? (uint32_t)(hit - b) : n;
	}
	while (i < n && ts_fold(b[i]) != first)
		i++;
	return i;
}

static uint32_t kmp_find(const struct ts_config *c, const struct ts_source *src, uint32_t start)
{
	const uint32_t *border = c->tables;
	const uint8_t *p = c->pattern;
	const bool icase = c->flags & TS_IGNORECASE;
	const uint32_t m = c->len;
	uint32_t q = 0, pos = start;

	for (;;) {
		const uint8_t *b;
		uint32_t n = src->next_block(src->arg, pos, &b), i = 0;

		if (!n)
			return TS_NOMATCH;
		while (i < n) {
			uint8_t ch;

			if (q == 0) {
				i = skip_to_first(b, i, n, p[0], icase);
				if (i == n)
					break;
				q = 1;
				i++;
			} else {
				ch = icase ? ts_fold(b[i]) : b[i];
				while (q > 0 && p[q] != ch)
					q = border[q - 1];
				if (p[q] == ch)
					q++;
				i++;
			}
			if (q == m)
				return pos + i - m;
		}
		pos += n;
	}
}

const struct ts_ops ts_kmp_ops = {
    .name = "kmp",
    .table_size = kmp_table_size,
    .init = kmp_init,
    .find = kmp_find,
};
