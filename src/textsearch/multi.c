// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Many patterns at once: the Aho-Corasick automaton, and the choice of engine.
 *
 *   patterns he, she, his, hers         the trie, then for each state the longest proper
 *                                       suffix that is also a trie state (its fallback);
 *   (0)-h->(1)-e->(2)*-r->(8)-s->(9)*   every missing transition is filled with the
 *    \-s->(3)-h->(4)-e->(5)*            fallback's, so the scan is one table load per byte:
 *    \-h->(1)-i->(6)-s->(7)*               state = next[state * 256 + byte]
 *
 * A transition whose target ends a pattern (its own, or one of its suffixes': the output
 * link) carries TS_AC_OUT, so the loop tests one bit per byte and leaves only on a hit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "textsearch/multi_int.h"

#define TS_AC_OUT   0x80000000u
#define TS_AC_STATE 0x7fffffffu

struct ts_ac {
	uint32_t *next;	    /* nstates * 256 */
	uint32_t *own;	    /* per state: first pattern id + 1 ending exactly here, 0 none */
	uint32_t *out_link; /* per state: nearest suffix state with an own pattern, 0 none */
	uint32_t nstates;
	bool folded; /* reads the text through ts_fold */
};

struct ts_multi {
	struct ts_ac ac[2];  /* [0] exact patterns, [1] TS_IGNORECASE ones */
	uint32_t *same_next; /* per pattern: next id + 1 ending in the same state */
	unsigned npats;
	struct ts_hs *hs; /* the Hyperscan engine, when chosen */
};

static void ac_free(struct ts_ac *a)
{
	free(a->next);
	free(a->own);
	free(a->out_link);
	memset(a, 0, sizeof(*a));
}

/* Build the automaton of the patterns whose icase flag equals `folded`. */
static int ac_build(struct ts_multi *m, const struct ts_multi_pattern *pats, unsigned n,
		    bool folded)
{
	struct ts_ac *a = &m->ac[folded];
	uint32_t max = 1, *fail = NULL, *queue = NULL, head = 0, tail = 0;
	int ret = -ENOMEM;

	a->folded = folded;
	for (unsigned i = 0; i < n; i++)
		if (!!(pats[i].flags & TS_IGNORECASE) == folded)
			max += pats[i].len;
	if (max == 1)
		return 0; /* no pattern of this kind */
	if (max > TS_MULTI_MAX_STATES)
		return -E2BIG;
	a->next = calloc((size_t)max * 256, sizeof(uint32_t));
	a->own = calloc(max, sizeof(uint32_t));
	a->out_link = calloc(max, sizeof(uint32_t));
	fail = calloc(max, sizeof(uint32_t));
	queue = calloc(max, sizeof(uint32_t));
	if (!a->next || !a->own || !a->out_link || !fail || !queue)
		goto out;
	a->nstates = 1;
	/* the trie */
	for (unsigned i = 0; i < n; i++) {
		uint32_t s = 0;

		if (!!(pats[i].flags & TS_IGNORECASE) != folded)
			continue;
		for (uint32_t k = 0; k < pats[i].len; k++) {
			uint8_t c = folded ? ts_fold(pats[i].data[k]) : pats[i].data[k];
			uint32_t *t = &a->next[(size_t)s * 256 + c];

			if (!*t)
				*t = a->nstates++;
			s = *t;
		}
		m->same_next[i] = a->own[s];
		a->own[s] = i + 1;
	}
	/* fallbacks breadth first; a state's own row is completed when it is dequeued, and
	 * only then, so a non-zero entry found there is a trie child */
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t s = queue[head++];

		for (unsigned c = 0; c < 256; c++) {
			uint32_t *t = &a->next[(size_t)s * 256 + c];
			uint32_t via = s ? a->next[(size_t)fail[s] * 256 + c] : 0;

			if (!*t) {
				*t = via;
				continue;
			}
			fail[*t] = via;
			a->out_link[*t] = a->own[via] ? via : a->out_link[via];
			queue[tail++] = *t;
		}
	}
	for (size_t i = 0; i < (size_t)a->nstates * 256; i++) {
		uint32_t t = a->next[i];

		if (a->own[t] || a->out_link[t])
			a->next[i] = t | TS_AC_OUT;
	}
	ret = 0;
out:
	free(fail);
	free(queue);
	return ret;
}

static int ac_report(const struct ts_multi *m, const struct ts_ac *a, uint32_t s, uint32_t end,
		     ts_multi_cb cb, void *arg)
{
	for (uint32_t t = a->own[s] ? s : a->out_link[s]; t; t = a->out_link[t])
		for (uint32_t id = a->own[t]; id; id = m->same_next[id - 1]) {
			int r = cb(arg, id - 1, end);

			if (r)
				return r;
		}
	return 0;
}

/* One automaton over one block; the state carries over to the next block. The table pointer
 * and the state live in registers: nothing in the loop but the load chain and the flag test. */
static int ac_block(const struct ts_multi *m, const struct ts_ac *a, const uint8_t *b, uint32_t n,
		    uint32_t pos, uint32_t *state, ts_multi_cb cb, void *arg)
{
	const uint32_t *next = a->next;
	uint32_t s = *state, x;
	int r;

	if (a->folded) {
		for (uint32_t i = 0; i < n; i++) {
			x = next[(size_t)s << 8 | ts_fold(b[i])];
			s = x & TS_AC_STATE;
			if (__builtin_expect(x >> 31, 0) &&
			    (r = ac_report(m, a, s, pos + i + 1, cb, arg)))
				return r;
		}
	} else {
		for (uint32_t i = 0; i < n; i++) {
			x = next[(size_t)s << 8 | b[i]];
			s = x & TS_AC_STATE;
			if (__builtin_expect(x >> 31, 0) &&
			    (r = ac_report(m, a, s, pos + i + 1, cb, arg)))
				return r;
		}
	}
	*state = s;
	return 0;
}

static int ac_scan(const struct ts_multi *m, const struct ts_source *src, ts_multi_cb cb, void *arg)
{
	uint32_t state[2] = {0, 0}, pos = 0;
	int r;

	for (;;) {
		const uint8_t *b;
		uint32_t n = src->next_block(src->arg, pos, &b);

		if (!n)
			return 0;
		for (unsigned k = 0; k < 2; k++)
			if (m->ac[k].nstates &&
			    (r = ac_block(m, &m->ac[k], b, n, pos, &state[k], cb, arg)))
				return r;
		pos += n;
	}
}

int ts_multi_build(const struct ts_multi_pattern *pats, unsigned n, enum ts_multi_engine engine,
		   struct ts_multi **out)
{
	struct ts_multi *m;
	int ret;

	*out = NULL;
	if (!n)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!pats[i].len || pats[i].len > TS_MAX_PATTERN || !pats[i].data)
			return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->npats = n;
	if (engine != TS_MULTI_AC) {
		ret = ts_hs_build(pats, n, &m->hs);
		if (!ret) {
			*out = m;
			return 0;
		}
		if (engine == TS_MULTI_HS || ret != -ENOTSUP)
			goto fail;
	}
	m->same_next = calloc(n, sizeof(uint32_t));
	ret = -ENOMEM;
	if (!m->same_next)
		goto fail;
	ret = ac_build(m, pats, n, false);
	if (!ret)
		ret = ac_build(m, pats, n, true);
	if (ret)
		goto fail;
	*out = m;
	return 0;
fail:
	ts_multi_free(m);
	return ret;
}

void ts_multi_free(struct ts_multi *m)
{
	if (!m)
		return;
	ac_free(&m->ac[0]);
	ac_free(&m->ac[1]);
	ts_hs_free(m->hs);
	free(m->same_next);
	free(m);
}

const char *ts_multi_engine_name(const struct ts_multi *m)
{
	return m->hs ? "hs" : "ac";
}

bool ts_multi_have_hyperscan(void)
{
	return ts_hs_available();
}

int ts_multi_scan(struct ts_multi *m, const struct ts_source *src, ts_multi_cb cb, void *arg)
{
	if (m->hs)
		return ts_hs_scan(m->hs, src, cb, arg);
	return ac_scan(m, src, cb, arg);
}
