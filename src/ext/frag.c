// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m frag: fields of the IPv6 fragment header (ip6t_frag).
 *
 *    0               1               2               3
 *   | next header   | reserved      | fragment offset (13)    |res|M|
 *   |                     identification (32)                       |
 *
 *   --fragid [!] ID[:ID]   identification in range     --fragres    reserved fields zero
 *   --fragfirst            offset 0                     --fragmore   M set
 *   --fraglast             M clear
 *   --fraglen [!] N        accepted and printed, but as in the kernel never compared: a
 *                          fragment header has no length field
 *
 * A packet without a fragment header does not match; a broken extension header chain is
 * dropped (hotdrop), as in the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct frag_info {
	uint32_t ids[2];
	uint32_t len;
};

enum { O_FRAGID, O_FRAGLEN, O_FRAGRES, O_FRAGFIRST, O_FRAGMORE, O_FRAGLAST };

static const struct ext_opt frag_opts[] = {
	[O_FRAGID] = { .name = "fragid", .type = EXT_T_U32_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE, EXT_FIELD(struct frag_info, ids) },
	[O_FRAGLEN] = { .name = "fraglen", .type = EXT_T_U32, .flags = EXT_OPT_INVERT,
			EXT_FIELD(struct frag_info, len) },
	[O_FRAGRES] = { .name = "fragres", .type = EXT_T_NONE },
	[O_FRAGFIRST] = { .name = "fragfirst", .type = EXT_T_NONE },
	[O_FRAGMORE] = { .name = "fragmore", .type = EXT_T_NONE, .excl = 1u << O_FRAGLAST },
	[O_FRAGLAST] = { .name = "fraglast", .type = EXT_T_NONE, .excl = 1u << O_FRAGMORE },
};

static void frag_init(struct ext_instance *inst)
{
	struct frag_info *fi = inst->data;

	fi->ids[1] = UINT32_MAX;
}

static int frag_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	struct frag_info *fi = inst->data;

	if (opt == O_FRAGID && ext_parse_range32(arg, UINT32_MAX, fi->ids)) {
		ext_errf(ctx->err, ctx->errlen, "frag: invalid id or range \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

/* iptables-save's form: the id range only when it is not 0:4294967295 (even if inverted). */
static void frag_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct frag_info *fi = inst->data;

	if (fi->ids[0] != 0 || fi->ids[1] != UINT32_MAX) {
		ext_print_opt(pr, inst, O_FRAGID);
		ext_print_value(pr, inst, O_FRAGID);
	}
	for (unsigned i = O_FRAGLEN; i <= O_FRAGLAST; i++)
		if (inst->seen & 1u << i) {
			ext_print_opt(pr, inst, i);
			ext_print_value(pr, inst, i);
		}
}

static bool frag_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct frag_info *fi = inst->data;
	uint8_t buf[8];
	const uint8_t *fh;
	uint32_t off, id;
	uint16_t fo;
	int err;

	err = ext_ip6_find_hdr(ctx, 44, &off);
	if (err) {
		if (err != -ENOENT)
			ctx->hotdrop = true;
		return false;
	}
	fh = ext_l3_header(ctx, off, 8, buf);
	if (!fh) {
		ctx->hotdrop = true;
		return false;
	}
	fo = ext_get_be16(fh + 2);
	id = ext_get_be32(fh + 4);
	if ((id >= fi->ids[0] && id <= fi->ids[1]) == !!(inst->inv & 1u << O_FRAGID))
		return false;
	if ((inst->seen & 1u << O_FRAGRES) && (fh[1] || (fo & 0x6)))
		return false;
	if ((inst->seen & 1u << O_FRAGFIRST) && (fo & ~7u))
		return false;
	if ((inst->seen & 1u << O_FRAGMORE) && !(fo & 1))
		return false;
	if ((inst->seen & 1u << O_FRAGLAST) && (fo & 1))
		return false;
	return true;
}

const struct ext_match ext_match_frag = {
	.name = "frag",
	.family = AF_INET6,
	.datasize = sizeof(struct frag_info),
	.opts = frag_opts,
	.nopts = sizeof(frag_opts) / sizeof(frag_opts[0]),
	.init = frag_init,
	.parse = frag_parse,
	.print = frag_print,
	.match = frag_match,
};
