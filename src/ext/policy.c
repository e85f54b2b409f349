// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m policy (xt_policy): the IPsec policy a packet was or will be processed by.
 *
 *   --dir in|out  [--pol none|ipsec (default)]  [--strict]
 *   [!] --reqid N  [!] --spi N  [!] --proto esp|ah|ipcomp|N  [!] --mode transport|tunnel
 *   [!] --tunnel-src ADDR[/LEN]  [!] --tunnel-dst ADDR[/LEN]          (one element; no --next)
 *
 * A box has no IPsec stack: no packet was decrypted or will be encrypted, so `--pol none`
 * matches every packet and `--pol ipsec` none, whatever the element says. --dir in is refused
 * in OUTPUT/POSTROUTING and --dir out in PREROUTING/INPUT, as the kernel refuses them.
 * Printed in iptables-save's order (the tunnel destination before the source).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct policy_info {
	uint32_t dir, pol, reqid, spi, proto, mode;
	union pt_addr src[2], dst[2];
};

enum { O_DIR, O_POL, O_STRICT, O_REQID, O_SPI, O_PROTO, O_MODE, O_TDST, O_TSRC, O_NEXT };

static const struct ext_name dir_names[] = {{"in", 0}, {"out", 1}, {NULL, 0}};
static const struct ext_name pol_names[] = {{"ipsec", 0}, {"none", 1}, {NULL, 0}};
static const struct ext_name proto_names[] = {
    {"esp", IPPROTO_ESP}, {"ah", IPPROTO_AH}, {"ipcomp", IPPROTO_COMP}, {NULL, 0}};
static const struct ext_name mode_names[] = {{"transport", 0}, {"tunnel", 1}, {NULL, 0}};

#define PF(f) EXT_FIELD(struct policy_info, f)

static const struct ext_opt policy_opts[] = {
    [O_DIR] = {.name = "dir",
	       .type = EXT_T_NAME,
	       .flags = EXT_OPT_MANDATORY,
	       PF(dir),
	       .names = dir_names},
    [O_POL] = {.name = "pol", .type = EXT_T_NAME, PF(pol), .names = pol_names},
    [O_STRICT] = {.name = "strict", .type = EXT_T_NONE},
    [O_REQID] = {.name = "reqid", .type = EXT_T_U32, .flags = EXT_OPT_INVERT, PF(reqid)},
    [O_SPI] = {.name = "spi", .type = EXT_T_U32, .flags = EXT_OPT_INVERT, PF(spi)},
    [O_PROTO] = {.name = "proto",
		 .type = EXT_T_NAME,
		 .flags = EXT_OPT_INVERT | EXT_OPT_NUMERIC,
		 .max = 255,
		 PF(proto),
		 .names = proto_names},
    [O_MODE] = {.name = "mode",
		.type = EXT_T_NAME,
		.flags = EXT_OPT_INVERT,
		PF(mode),
		.names = mode_names},
    [O_TDST] = {.name = "tunnel-dst", .type = EXT_T_NET, .flags = EXT_OPT_INVERT, PF(dst)},
    [O_TSRC] = {.name = "tunnel-src", .type = EXT_T_NET, .flags = EXT_OPT_INVERT, PF(src)},
    [O_NEXT] = {.name = "next", .type = EXT_T_NONE},
};

static int policy_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct policy_info *pi = inst->data;
	uint32_t bad = pi->dir == 0 ? HOOK_BIT(HOOK_OUTPUT) | HOOK_BIT(HOOK_POSTROUTING)
				    : HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT);

	if (inst->seen & 1u << O_NEXT) {
		ext_errf(ctx->err, ctx->errlen,
			 "policy: --next (several elements) is not supported by pkttables");
		return -EINVAL;
	}
	if (ctx->hook_mask & bad) {
		ext_errf(ctx->err, ctx->errlen, "policy: --dir %s is not valid in this chain",
			 pi->dir ? "out" : "in");
		return -EINVAL;
	}
	return 0;
}

static void print_net(struct ext_printer *pr, const struct ext_instance *inst, unsigned i,
		      const union pt_addr n[2])
{
	char buf[64];
	int len = pt_mask_len(pr->family, &n[1]);

	ext_print_opt(pr, inst, i);
	fprintf(pr->f, " %s", pt_addr_str(pr->family, &n[0], buf, sizeof(buf)));
	if (len != (pr->family == AF_INET ? 32 : 128))
		fprintf(pr->f, "/%d", len);
}

static void policy_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct policy_info *pi = inst->data;

	fprintf(pr->f, " --dir %s --pol %s", pi->dir ? "out" : "in", pi->pol ? "none" : "ipsec");
	if (inst->seen & 1u << O_STRICT)
		fputs(" --strict", pr->f);
	if (inst->seen & 1u << O_REQID) {
		ext_print_opt(pr, inst, O_REQID);
		fprintf(pr->f, " %u", pi->reqid);
	}
	if (inst->seen & 1u << O_SPI) {
		ext_print_opt(pr, inst, O_SPI);
		fprintf(pr->f, " 0x%x", pi->spi);
	}
	if (inst->seen & 1u << O_PROTO) {
		const char *n = pi->proto == IPPROTO_ESP    ? "esp"
				: pi->proto == IPPROTO_AH   ? "ah"
				: pi->proto == IPPROTO_COMP ? "ipcomp"
							    : NULL;

		ext_print_opt(pr, inst, O_PROTO);
		if (n)
			fprintf(pr->f, " %s", n);
		else
			fprintf(pr->f, " %u", pi->proto);
	}
	if (inst->seen & 1u << O_MODE) {
		ext_print_opt(pr, inst, O_MODE);
		fputs(pi->mode ? " tunnel" : " transport", pr->f);
	}
	if (inst->seen & 1u << O_TDST)
		print_net(pr, inst, O_TDST, pi->dst);
	if (inst->seen & 1u << O_TSRC)
		print_net(pr, inst, O_TSRC, pi->src);
}

static bool policy_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct policy_info *pi = inst->data;

	(void)ctx;
	return pi->pol == 1; /* no IPsec: "none" always, "ipsec" never */
}

const struct ext_match ext_match_policy = {
    .name = "policy",
    .datasize = sizeof(struct policy_info),
    .opts = policy_opts,
    .nopts = sizeof(policy_opts) / sizeof(policy_opts[0]),
    .check = policy_check,
    .print = policy_print,
    .match = policy_match,
};
