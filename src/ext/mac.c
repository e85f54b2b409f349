// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m mac: the source address of the Ethernet header (xt_mac).
 *
 *   -m mac [!] --mac-source 00:11:22:aa:bb:cc
 *
 *   Ethernet II:  | dst (6) | src (6) | type (2) |     bytes 6..11 are compared
 *
 * Only in PREROUTING, INPUT and FORWARD (where a received frame is known). A packet that has
 * no Ethernet header (raw IP, locally generated) does not match, with or without "!".
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct mac_info {
	uint8_t addr[6];
};

enum { O_MAC_SOURCE };

static const struct ext_opt mac_opts[] = {
	[O_MAC_SOURCE] = { .name = "mac-source", .type = EXT_T_CUSTOM,
			   .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

static int mac_hex(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/*
 * Six groups separated by ':', each of at most two hex digits. As in iptables, a group may
 * be empty (it reads as 0): "00:11:22:33:44:" is 00:11:22:33:44:00.
 */
static int mac_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct mac_info *mi = inst->data;
	const char *p = arg;

	for (unsigned i = 0; i < 6; i++) {
		unsigned v = 0, digits = 0;

		while (isxdigit((unsigned char)*p) && digits < 3) {
			v = v << 4 | (unsigned)mac_hex((unsigned char)*p++);
			digits++;
		}
		if (digits > 2 || *p != (i < 5 ? ':' : '\0'))
			goto bad;
		mi->addr[i] = (uint8_t)v;
		p++;
	}
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "mac: bad mac address \"%s\"", arg);
	return -EINVAL;
}

static void mac_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const uint8_t *a = ((const struct mac_info *)inst->data)->addr;

	ext_print_opt(pr, inst, O_MAC_SOURCE);
	fprintf(pr->f, " %02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3], a[4], a[5]);
}

static bool mac_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct mac_info *mi = inst->data;
	uint8_t buf[6];
	const uint8_t *src;

	if (ctx->info->l2off == UINT32_MAX || ctx->info->l3off < ctx->info->l2off + 14)
		return false;
	src = pkt_header(ctx->pkt, ctx->info->l2off + 6, 6, buf);
	if (!src)
		return false;
	return !memcmp(src, mi->addr, 6) ^ !!inst->inv;
}

const struct ext_match ext_match_mac = {
	.name = "mac",
	.hooks = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_FORWARD),
	.datasize = sizeof(struct mac_info),
	.opts = mac_opts,
	.nopts = 1,
	.parse = mac_parse,
	.print = mac_print,
	.match = mac_match,
};
