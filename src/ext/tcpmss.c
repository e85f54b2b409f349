// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m tcpmss [!] --mss MIN[:MAX] (xt_tcpmss), needs -p tcp: the value of the MSS option of a
 * TCP segment (in practice a SYN). A segment without an MSS option matches only with "!"; one
 * whose header is cut short is dropped (hotdrop), as the kernel does.
 */
#include <errno.h>
#include <netinet/in.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct tcpmss_info {
	uint32_t mss[2];
};

static const struct ext_opt tcpmss_opts[] = {
    {.name = "mss",
     .type = EXT_T_U32_RANGE,
     .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY,
     .max = 65535,
     EXT_FIELD(struct tcpmss_info, mss)},
};

static bool tcpmss_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tcpmss_info *ti = inst->data;
	bool inv = inst->inv & 1u;
	uint8_t b[60];
	const uint8_t *th;
	unsigned hlen;

	if (ext_is_later_fragment(ctx))
		return false;
	th = ext_l4_header(ctx, 20, b);
	if (!th || (hlen = (th[12] >> 4) * 4u) < 20) {
		ctx->hotdrop = true;
		return false;
	}
	if (hlen == 20)
		return inv;
	th = ext_l4_header(ctx, hlen, b);
	if (!th) {
		ctx->hotdrop = true;
		return false;
	}
	for (unsigned i = 20; i < hlen;) {
		if (th[i] == 2 && hlen - i >= 4 && th[i + 1] == 4) {
			unsigned mss = ext_get_be16(th + i + 2);

			return (mss >= ti->mss[0] && mss <= ti->mss[1]) ^ inv;
		}
		if (th[i] < 2)
			i++;
		else
			i += th[i + 1] ? th[i + 1] : 1u;
	}
	return inv;
}

const struct ext_match ext_match_tcpmss = {
    .name = "tcpmss",
    .proto = IPPROTO_TCP,
    .datasize = sizeof(struct tcpmss_info),
    .opts = tcpmss_opts,
    .nopts = 1,
    .match = tcpmss_match,
};
