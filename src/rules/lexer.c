// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The line tokenizer of iptables-restore, reimplemented from its observable behaviour.
 *
 *   [p:b] -A CHAIN -x "quoted \"text\"" plain\text
 *   ^^^^^                ^  ^^         ^      ^
 *   |                    |  |          |      +-- outside quotes '\' is literal
 *   |                    |  +----------+-- inside quotes '\' escapes the next character
 *   |                    +-- a quote opens anywhere; the closing quote ends the token
 *   +-- optional counters prefix, only at the very start of the line
 *
 * Tokens are separated by spaces, tabs and newlines. `""` is an empty token.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules/rules_int.h"

static int tokens_push(struct rules_tokens *t, const char *s, size_t len)
{
	char *copy;

	if (t->n == t->cap) {
		unsigned ncap = t->cap ? t->cap * 2 : 16;
		char **ntok = realloc(t->tok, ncap * sizeof(*ntok));

		if (!ntok)
			return -ENOMEM;
		t->tok = ntok;
		t->cap = ncap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->tok[t->n++] = copy;
	return 0;
}

void rules_tokens_free(struct rules_tokens *t)
{
	for (unsigned i = 0; i < t->n; i++)
		free(t->tok[i]);
	free(t->tok);
	memset(t, 0, sizeof(*t));
}

/* "[p:b]" at the start of the line; returns the number of bytes consumed or -EINVAL. */
static int lex_counters(const char *s, size_t len, struct rules_tokens *out)
{
	uint64_t v[2] = { 0, 0 };
	size_t i = 1;

	for (int k = 0; k < 2; k++) {
		size_t start = i;

		while (i < len && isdigit((unsigned char)s[i])) {
			uint64_t d = (uint64_t)(s[i] - '0');

			if (v[k] > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v[k] = v[k] * 10 + d;
			i++;
		}
		if (i == start || i >= len || s[i] != (k == 0 ? ':' : ']'))
			return -EINVAL;
		i++;
	}
	out->has_counters = true;
	out->pkts = v[0];
	out->bytes = v[1];
	return (int)i;
}

int rules_lex_line(const char *line, size_t len, struct rules_tokens *out, char *msg,
		   size_t msglen, char *token, size_t toklen)
{
	char *buf;
	size_t blen = 0, i = 0;
	bool quoted = false, escaped = false, have = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (len && line[0] == '[') {
		int n = lex_counters(line, len, out);

		if (n < 0) {
			size_t e = 0;

			/* the line is not NUL-terminated: look no further than len */
			while (e < len && line[e] != ' ' && line[e] != '\t' && line[e] != '\n')
				e++;
			rules_errf(msg, msglen, "bad counters, expected [packets:bytes]");
			rules_errf(token, toklen, "%.*s", (int)e, line);
			return -EINVAL;
		}
		i = (size_t)n;
	}
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (; i < len && !ret; i++) {
		char c = line[i];

		if (quoted) {
			if (escaped) {
				buf[blen++] = c;
				escaped = false;
			} else if (c == '\\') {
				escaped = true;
			} else if (c == '"') {
				quoted = false;
				ret = tokens_push(out, buf, blen);
				blen = 0;
				have = false;
			} else {
				buf[blen++] = c;
			}
			continue;
		}
		if (c == '"') {
			quoted = true;
			have = true;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (have)
				ret = tokens_push(out, buf, blen);
			blen = 0;
			have = false;
		} else {
			buf[blen++] = c;
			have = true;
		}
	}
	if (!ret && quoted) {
		/* iptables-restore keeps reading the quoted text up to the end of the line,
		 * newline included, and accepts it */
		buf[blen++] = '\n';
		ret = tokens_push(out, buf, blen);
	} else if (!ret && have) {
		ret = tokens_push(out, buf, blen);
	}
	free(buf);
	if (ret)
		rules_tokens_free(out);
	if (ret == -ENOMEM)
		rules_errf(msg, msglen, "out of memory");
	return ret;
}
