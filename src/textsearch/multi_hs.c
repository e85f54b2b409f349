// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Hyperscan engine of textsearch/multi.h: all patterns as literals in one streaming-mode
 * database (Hyperscan >= 5.2 for hs_compile_lit_multi). A scan resets one stream and writes
 * each block into it, so occurrences across blocks are reported, with their end offset.
 *
 * Hyperscan needs a scratch area per concurrent scan. The engine keeps one scratch and one
 * stream, taken with a try-lock; a scan that finds them busy (another thread) clones a
 * scratch and opens a stream of its own for that scan only.
 *
 * Built only when the Makefile found libhs (PT_HAVE_HYPERSCAN); otherwise every entry point
 * says -ENOTSUP and textsearch/multi.c uses its own Aho-Corasick automaton.
 */
#include <errno.h>
#include <stdlib.h>

#include "textsearch/multi_int.h"

#ifdef PT_HAVE_HYPERSCAN

#include <hs/hs.h>
#include <stdatomic.h>

struct ts_hs {
	hs_database_t *db;
	hs_scratch_t *scratch;
	hs_stream_t *stream;
	atomic_flag busy;
};

struct hs_call {
	ts_multi_cb cb;
	void *arg;
	int ret;
};

bool ts_hs_available(void)
{
	return true;
}

int ts_hs_build(const struct ts_multi_pattern *pats, unsigned n, struct ts_hs **out)
{
	const char **exprs = calloc(n, sizeof(*exprs));
	unsigned *flags = calloc(n, sizeof(*flags)), *ids = calloc(n, sizeof(*ids));
	size_t *lens = calloc(n, sizeof(*lens));
	hs_compile_error_t *err = NULL;
	struct ts_hs *h = calloc(1, sizeof(*h));
	int ret = -ENOMEM;

	*out = NULL;
	if (!exprs || !flags || !ids || !lens || !h)
		goto out;
	atomic_flag_clear(&h->busy);
	for (unsigned i = 0; i < n; i++) {
		/* Hyperscan folds ASCII letters only; the kernel's toupper also folds
		 * Latin-1 (and 0xdf to 0xbf): such sets stay with the automaton */
		if (pats[i].flags & TS_IGNORECASE)
			for (uint32_t k = 0; k < pats[i].len; k++)
				if (pats[i].data[k] >= 0x80) {
					ret = -ENOTSUP;
					goto out;
				}
		exprs[i] = (const char *)pats[i].data;
		lens[i] = pats[i].len;
		ids[i] = i;
		flags[i] = (pats[i].flags & TS_IGNORECASE) ? HS_FLAG_CASELESS : 0;
	}
	if (hs_compile_lit_multi(exprs, flags, ids, lens, n, HS_MODE_STREAM, NULL, &h->db, &err) !=
	    HS_SUCCESS) {
		hs_free_compile_error(err);
		ret = -ENOTSUP;
		goto out;
	}
	if (hs_alloc_scratch(h->db, &h->scratch) != HS_SUCCESS ||
	    hs_open_stream(h->db, 0, &h->stream) != HS_SUCCESS)
		goto out;
	*out = h;
	h = NULL;
	ret = 0;
out:
	ts_hs_free(h);
	free(exprs);
	free(flags);
	free(ids);
	free(lens);
	return ret;
}

void ts_hs_free(struct ts_hs *h)
{
	if (!h)
		return;
	if (h->stream)
		hs_close_stream(h->stream, h->scratch, NULL, NULL);
	hs_free_scratch(h->scratch);
	hs_free_database(h->db);
	free(h);
}

static int on_hs_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags,
		       void *ctx)
{
	struct hs_call *call = ctx;

	call->ret = call->cb(call->arg, id, (uint32_t)to);
	return call->ret != 0;
}

static int scan_stream(hs_stream_t *st, hs_scratch_t *scr, const struct ts_source *src,
		       struct hs_call *call)
{
	uint32_t pos = 0;

	for (;;) {
		const uint8_t *b;
		uint32_t n = src->next_block(src->arg, pos, &b);

		if (!n)
			return 0;
		if (hs_scan_stream(st, (const char *)b, n, 0, scr, on_hs_match, call) != HS_SUCCESS)
			return call->ret ? call->ret : -EIO;
		pos += n;
	}
}

int ts_hs_scan(struct ts_hs *h, const struct ts_source *src, ts_multi_cb cb, void *arg)
{
	struct hs_call call = {.cb = cb, .arg = arg};
	hs_scratch_t *scr = NULL;
	hs_stream_t *st = NULL;
	int ret;

	if (!atomic_flag_test_and_set_explicit(&h->busy, memory_order_acquire)) {
		hs_reset_stream(h->stream, 0, h->scratch, NULL, NULL);
		ret = scan_stream(h->stream, h->scratch, src, &call);
		atomic_flag_clear_explicit(&h->busy, memory_order_release);
		return ret;
	}
	if (hs_clone_scratch(h->scratch, &scr) != HS_SUCCESS)
		return -ENOMEM;
	if (hs_open_stream(h->db, 0, &st) != HS_SUCCESS) {
		hs_free_scratch(scr);
		return -ENOMEM;
	}
	ret = scan_stream(st, scr, src, &call);
	hs_close_stream(st, scr, NULL, NULL);
	hs_free_scratch(scr);
	return ret;
}

#else /* !PT_HAVE_HYPERSCAN */

bool ts_hs_available(void)
{
	return false;
}

int ts_hs_build(const struct ts_multi_pattern *pats, unsigned n, struct ts_hs **out)
{
	*out = NULL;
	return -ENOTSUP;
}

void ts_hs_free(struct ts_hs *h)
{
}

int ts_hs_scan(struct ts_hs *h, const struct ts_source *src, ts_multi_cb cb, void *arg)
{
	return -ENOTSUP;
}

#endif
