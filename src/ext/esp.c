// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m esp: the SPI of an IPsec Encapsulating Security Payload header (xt_esp), both families.
 *
 *    0               1               2               3
 *   |               security parameters index (SPI)                 |
 *   |                    sequence number                            |
 *   |                    encrypted payload ...
 *
 *   -p esp -m esp [!] --espspi N[:M]
 *
 * Needs -p esp. ESP is the transport header; a non-first fragment never matches.
 */
#include <errno.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct esp_info {
	uint32_t spis[2];
};

enum { O_ESPSPI };

static const struct ext_opt esp_opts[] = {
	[O_ESPSPI] = { .name = "espspi", .type = EXT_T_U32_RANGE,
		       .flags = EXT_OPT_INVERT | EXT_OPT_NOSTORE,
		       EXT_FIELD(struct esp_info, spis) },
};

static void esp_init(struct ext_instance *inst)
{
	struct esp_info *ei = inst->data;

	ei->spis[1] = UINT32_MAX;
}

static int esp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct esp_info *ei = inst->data;

	if (ext_parse_range32(arg, UINT32_MAX, ei->spis)) {
		ext_errf(ctx->err, ctx->errlen, "esp: invalid spi or range \"%s\"", arg);
		return -EINVAL;
	}
	return 0;
}

/* The kernel refuses "! -p esp" for a match that names its protocol. */
static int esp_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (ctx->proto_inverted) {
		ext_errf(ctx->err, ctx->errlen, "esp requires -p esp (not inverted)");
		return -EINVAL;
	}
	return 0;
}

/* iptables-save prints the range unless it is 0:4294967295, even when inverted. */
static void esp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct esp_info *ei = inst->data;

	if (ei->spis[0] == 0 && ei->spis[1] == UINT32_MAX)
		return;
	ext_print_opt(pr, inst, O_ESPSPI);
	ext_print_value(pr, inst, O_ESPSPI);
}

static bool esp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct esp_info *ei = inst->data;
	uint8_t buf[8];
	const uint8_t *eh;
	uint32_t spi;

	if (ext_is_later_fragment(ctx))
		return false;
	eh = ext_l4_header(ctx, 8, buf);
	if (!eh) {
		ctx->hotdrop = true;
		return false;
	}
	spi = ext_get_be32(eh);
	return (spi >= ei->spis[0] && spi <= ei->spis[1]) ^ !!inst->inv;
}

const struct ext_match ext_match_esp = {
	.name = "esp",
	.proto = 50,
	.datasize = sizeof(struct esp_info),
	.opts = esp_opts,
	.nopts = 1,
	.init = esp_init,
	.parse = esp_parse,
	.check = esp_check,
	.print = esp_print,
	.match = esp_match,
};
