// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m u32: tests on 32-bit words read at computed offsets of the packet (xt_u32), in the
 * language of iptables-extensions(8):
 *
 *   tests    := location "=" value | tests "&&" location "=" value
 *   value    := range | value "," range
 *   range    := number | number ":" number
 *   location := number | location operator number
 *   operator := "&" | "<<" | ">>" | "@"
 *
 *   "6 & 0xFF = 6,17 && 0 >> 22 & 0x3C @ 0 >> 16 = 53"
 *    \_________/      \______________________/
 *    byte 9 (proto)   IHL*4, then "@": the word at that offset from the start of the next
 *                     header: the UDP destination port
 *
 * Offsets count from the first byte of the IP header. A location first reads the word at its
 * number; "&", "<<", ">>" change the value; "@" adds the value to the base and reads the word
 * at base + number. A read that does not fit in the datagram makes the whole match false
 * (the kernel's rule), so no byte outside the packet is ever read. At most 10 tests, 10
 * numbers per location and 10 ranges per value, as in the kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define U32_MAX_TESTS 10
#define U32_MAX_NUMS 10
#define U32_MAX_VALUES 10

enum u32_op { U32_AND, U32_LEFTSH, U32_RIGHTSH, U32_AT };

struct u32_loc {
	uint32_t number;
	uint8_t op; /* how this number applies to the value so far (unused for the first) */
};

struct u32_test {
	struct u32_loc loc[U32_MAX_NUMS];
	uint32_t min[U32_MAX_VALUES], max[U32_MAX_VALUES];
	uint8_t nnums, nvalues;
};

struct u32_info {
	struct u32_test tests[U32_MAX_TESTS];
	uint8_t ntests;
};

enum { O_U32 };

static const struct ext_opt u32_opts[] = {
	[O_U32] = { .name = "u32", .type = EXT_T_CUSTOM,
		    .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

static const char *const u32_op_names[] = {
	[U32_AND] = "&", [U32_LEFTSH] = "<<", [U32_RIGHTSH] = ">>", [U32_AT] = "@"
};

struct u32_lexer {
	const char *p;
	const char *what; /* what was expected, for the error message */
};

static void u32_skip_space(struct u32_lexer *lx)
{
	while (isspace((unsigned char)*lx->p))
		lx->p++;
}

static int u32_number(struct u32_lexer *lx, uint32_t *out)
{
	unsigned long long v;
	char *end;

	u32_skip_space(lx);
	if (!isdigit((unsigned char)*lx->p)) {
		lx->what = "a number";
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(lx->p, &end, 0);
	if (errno || v > UINT32_MAX) {
		lx->what = "a number up to 0xffffffff";
		return -EINVAL;
	}
	lx->p = end;
	*out = (uint32_t)v;
	return 0;
}

static int u32_parse_test(struct u32_lexer *lx, struct u32_test *t)
{
	t->nnums = t->nvalues = 0;
	if (u32_number(lx, &t->loc[0].number))
		return -EINVAL;
	t->nnums = 1;
	for (;;) {
		uint8_t op;

		u32_skip_space(lx);
		if (*lx->p == '=') {
			lx->p++;
			break;
		}
		if (lx->p[0] == '&' && lx->p[1] != '&') {
			op = U32_AND;
			lx->p++;
		} else if (lx->p[0] == '<' && lx->p[1] == '<') {
			op = U32_LEFTSH;
			lx->p += 2;
		} else if (lx->p[0] == '>' && lx->p[1] == '>') {
			op = U32_RIGHTSH;
			lx->p += 2;
		} else if (lx->p[0] == '@') {
			op = U32_AT;
			lx->p++;
		} else {
			lx->what = "an operator (& << >> @) or =";
			return -EINVAL;
		}
		if (t->nnums >= U32_MAX_NUMS) {
			lx->what = "at most 10 numbers in a location";
			return -EINVAL;
		}
		t->loc[t->nnums].op = op;
		if (u32_number(lx, &t->loc[t->nnums].number))
			return -EINVAL;
		t->nnums++;
	}
	for (;;) {
		if (t->nvalues >= U32_MAX_VALUES) {
			lx->what = "at most 10 ranges in a value";
			return -EINVAL;
		}
		if (u32_number(lx, &t->min[t->nvalues]))
			return -EINVAL;
		t->max[t->nvalues] = t->min[t->nvalues];
		u32_skip_space(lx);
		if (*lx->p == ':') {
			lx->p++;
			if (u32_number(lx, &t->max[t->nvalues]))
				return -EINVAL;
			u32_skip_space(lx);
		}
		t->nvalues++;
		if (*lx->p != ',')
			return 0;
		lx->p++;
	}
}

static int u32_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct u32_info *ui = inst->data;
	struct u32_lexer lx = { .p = arg, .what = "" };

	ui->ntests = 0;
	for (;;) {
		if (ui->ntests >= U32_MAX_TESTS) {
			lx.what = "at most 10 tests";
			goto bad;
		}
		if (u32_parse_test(&lx, &ui->tests[ui->ntests]))
			goto bad;
		ui->ntests++;
		u32_skip_space(&lx);
		if (!*lx.p)
			return 0;
		if (lx.p[0] != '&' || lx.p[1] != '&') {
			lx.what = "&& or the end";
			goto bad;
		}
		lx.p += 2;
	}
bad:
	ext_errf(ctx->err, ctx->errlen, "u32: expected %s at offset %zu of \"%s\"", lx.what,
		 (size_t)(lx.p - arg), arg);
	return -EINVAL;
}

/* Always in double quotes, numbers in hex, no spaces: what iptables-save prints. */
static void u32_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct u32_info *ui = inst->data;

	ext_print_opt(pr, inst, O_U32);
	fputs(" \"", pr->f);
	for (unsigned i = 0; i < ui->ntests; i++) {
		const struct u32_test *t = &ui->tests[i];

		fprintf(pr->f, "%s0x%x", i ? "&&" : "", t->loc[0].number);
		for (unsigned k = 1; k < t->nnums; k++)
			fprintf(pr->f, "%s0x%x", u32_op_names[t->loc[k].op], t->loc[k].number);
		for (unsigned k = 0; k < t->nvalues; k++) {
			fprintf(pr->f, "%s0x%x", k ? "," : "=", t->min[k]);
			if (t->min[k] != t->max[k])
				fprintf(pr->f, ":0x%x", t->max[k]);
		}
	}
	fputc('"', pr->f);
}

/* The word at `off`, false when the 4 bytes do not lie inside the datagram. */
static bool u32_word(struct ext_pkt_ctx *ctx, uint64_t off, uint32_t *out)
{
	uint8_t buf[4];
	const uint8_t *w;

	if (off > UINT32_MAX - 4)
		return false;
	w = ext_l3_header(ctx, (uint32_t)off, 4, buf);
	if (!w)
		return false;
	*out = ext_get_be32(w);
	return true;
}

static bool u32_test_match(struct ext_pkt_ctx *ctx, const struct u32_test *t)
{
	uint64_t at = 0;
	uint32_t val;

	if (!u32_word(ctx, t->loc[0].number, &val))
		return false;
	for (unsigned k = 1; k < t->nnums; k++) {
		uint32_t n = t->loc[k].number;

		switch (t->loc[k].op) {
		case U32_AND:
			val &= n;
			break;
		/* shift counts of 32 and more wrap as the kernel's shift instructions do on
		 * x86 and arm64 (C leaves them undefined) */
		case U32_LEFTSH:
			val <<= n & 31;
			break;
		case U32_RIGHTSH:
			val >>= n & 31;
			break;
		case U32_AT:
			at += val;
			if (at > UINT32_MAX || !u32_word(ctx, at + n, &val))
				return false;
			break;
		}
	}
	for (unsigned k = 0; k < t->nvalues; k++)
		if (t->min[k] <= val && val <= t->max[k])
			return true;
	return false;
}

static bool u32_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct u32_info *ui = inst->data;
	bool all = true;

	for (unsigned i = 0; i < ui->ntests && all; i++)
		all = u32_test_match(ctx, &ui->tests[i]);
	return all ^ !!inst->inv;
}

const struct ext_match ext_match_u32 = {
	.name = "u32",
	.datasize = sizeof(struct u32_info),
	.opts = u32_opts,
	.nopts = 1,
	.parse = u32_parse,
	.print = u32_print,
	.match = u32_match,
};
