// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m comment --comment TEXT: always matches; the text is only printed back.
 * Longer text is cut to 255 bytes, as iptables-nft silently does (XT_MAX_COMMENT_LEN).
 */
#include <stdio.h>
#include <string.h>

#include "rules/ext.h"

#define COMMENT_MAX 256

struct comment_data {
	char text[COMMENT_MAX];
};

static const struct ext_opt comment_opts[] = {
	{ .name = "comment", .type = EXT_T_STRING, .flags = EXT_OPT_MANDATORY | EXT_OPT_NOSTORE,
	  EXT_FIELD(struct comment_data, text) },
};

static int comment_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			 const char *arg)
{
	struct comment_data *d = inst->data;

	snprintf(d->text, sizeof(d->text), "%s", arg);
	return 0;
}

static bool comment_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	return true;
}

static unsigned comment_cls_tests(const struct ext_instance *inst, int family,
				  struct ext_cls_test *out, bool *exact)
{
	*exact = true;
	return 0; /* pure, nothing to test */
}

const struct ext_match ext_match_comment = {
	.name = "comment",
	.datasize = sizeof(struct comment_data),
	.opts = comment_opts,
	.nopts = 1,
	.parse = comment_parse,
	.match = comment_match,
	.cls_tests = comment_cls_tests,
};
