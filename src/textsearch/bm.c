// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Boyer-Moore-Horspool over blocks.
 *
 *   text     . . . . x . . .       the window's last byte x decides the shift: the distance
 *   pattern  a b x a c             from x's last place in pattern[0..m-2] to the end, or m
 *                  |<->| shift 2   when x is not there
 *
 * Inside a block the window moves as usual. Where blocks meet, the last m-1 bytes seen are
 * kept (the carry, at most TS_MAX_PATTERN - 1 bytes on the stack) and joined with the first
 * m-1 bytes of the next block, and the windows that start in the carry are tried there. So
 * an occurrence spanning blocks is found, unlike Linux's bm, which tries each block alone.
 * Costs m-1 bytes of copying per block boundary.
 */
#include <string.h>

#include "textsearch/ts_int.h"

struct bm_tables {
	uint32_t skip[256]; /* indexed by the text's raw byte */
};

static size_t bm_table_size(uint32_t len)
{
	return sizeof(struct bm_tables);
}

static void bm_init(struct ts_config *c)
{
	struct bm_tables *t = c->tables;
	const bool icase = c->flags & TS_IGNORECASE;
	uint32_t folded[256];

	for (unsigned i = 0; i < 256; i++)
		folded[i] = c->len;
	for (uint32_t i = 0; i + 1 < c->len; i++)
		folded[c->pattern[i]] = c->len - 1 - i;
	for (unsigned i = 0; i < 256; i++)
		t->skip[i] = folded[icase ? ts_fold((uint8_t)i) : i];
}

static bool equal_folded(const uint8_t *text, const uint8_t *pat, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ts_fold(text[i]) != pat[i])
			return false;
	return true;
}

/* First window starting in [s, s_end) that lies in buf[0..n) and matches. */
static uint32_t bm_flat(const struct ts_config *c, const uint8_t *buf, uint32_t n, uint32_t s,
			uint32_t s_end)
{
	const struct bm_tables *t = c->tables;
	const uint8_t *p = c->pattern;
	const uint32_t m = c->len;
	const uint8_t last = p[m - 1];

	if (n < m)
		return TS_NOMATCH;
	if (s_end > n - m + 1)
		s_end = n - m + 1;
	if (c->flags & TS_IGNORECASE) {
		while (s < s_end) {
			uint8_t x = buf[s + m - 1];

			if (ts_fold(x) == last && equal_folded(buf + s, p, m - 1))
				return s;
			s += t->skip[x];
		}
		return TS_NOMATCH;
	}
	while (s < s_end) {
		uint8_t x = buf[s + m - 1];

		if (x == last && !memcmp(buf + s, p, m - 1))
			return s;
		s += t->skip[x];
	}
	return TS_NOMATCH;
}

static uint32_t bm_find(const struct ts_config *c, const struct ts_source *src, uint32_t start)
{
	uint8_t joint[2 * TS_MAX_PATTERN];
	const uint32_t m = c->len;
	uint32_t carry = 0, pos = start, r;

	for (;;) {
		const uint8_t *b;
		uint32_t n = src->next_block(src->arg, pos, &b), take, keep;

		if (!n)
			return TS_NOMATCH;
		if (carry) {
			/* windows starting in the carry: joint = carry + the block's head */
			take = n < m - 1 ? n : m - 1;
			memcpy(joint + carry, b, take);
			r = bm_flat(c, joint, carry + take, 0, carry);
			if (r != TS_NOMATCH)
				return pos - carry + r;
		}
		r = bm_flat(c, b, n, 0, n);
		if (r != TS_NOMATCH)
			return pos + r;
		/* the next carry: the last m-1 bytes of carry + block */
		keep = carry + n < m - 1 ? carry + n : m - 1;
		if (n >= keep) {
			memcpy(joint, b + n - keep, keep);
		} else {
			memmove(joint, joint + carry - (keep - n), keep - n);
			memcpy(joint + keep - n, b, n);
		}
		carry = keep;
		pos += n;
	}
}

const struct ts_ops ts_bm_ops = {
    .name = "bm",
    .table_size = bm_table_size,
    .init = bm_init,
    .find = bm_find,
};
