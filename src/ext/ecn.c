// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m ecn (xt_ecn) and -j ECN (ipt_ECN, IPv4, mangle): the ECN bits of the IP header and the
 * ECE/CWR flags of TCP.
 *
 *   -m ecn [!] --ecn-tcp-ece  [!] --ecn-tcp-cwr  [!] --ecn-ip-ect 0..3   (tcp ones need -p tcp)
 *   -j ECN --ecn-tcp-remove | [--ecn-tcp-ece 0|1] [--ecn-tcp-cwr 0|1] [--ecn-ip-ect 0..3]
 *
 *   IPv4 TOS / IPv6 traffic class: ......EE  (ECT field, the low two bits)
 *   TCP byte 13:                   CE.....   C = CWR 0x80, E = ECE 0x40
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ext/dsfield.h"
#include "ext/match_util.h"
#include "rules/ext.h"

#define TCP_ECE 0x40
#define TCP_CWR 0x80

/* ---- the match ----------------------------------------------------------------------------- */

struct ecn_info {
	uint8_t ect;
};

enum { M_ECE, M_CWR, M_ECT };

static const struct ext_opt ecn_opts[] = {
    [M_ECE] = {.name = "ecn-tcp-ece", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [M_CWR] = {.name = "ecn-tcp-cwr", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT},
    [M_ECT] = {.name = "ecn-ip-ect",
	       .type = EXT_T_U8,
	       .flags = EXT_OPT_INVERT,
	       .max = 3,
	       EXT_FIELD(struct ecn_info, ect)},
};

static int ecn_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!inst->seen) {
		ext_errf(ctx->err, ctx->errlen,
			 "ecn: one of --ecn-tcp-ece, --ecn-tcp-cwr or "
			 "--ecn-ip-ect is required");
		return -EINVAL;
	}
	if ((inst->seen & (1u << M_ECE | 1u << M_CWR)) &&
	    (ctx->proto != IPPROTO_TCP || ctx->proto_inverted)) {
		ext_errf(ctx->err, ctx->errlen,
			 "ecn: cannot match TCP bits in a rule without "
			 "-p tcp");
		return -EINVAL;
	}
	return 0;
}

static bool ecn_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ecn_info *ei = inst->data;
	uint8_t b[14];
	const uint8_t *th;

	if ((inst->seen & 1u << M_ECT) &&
	    (((ctx->info->tos & 3) == ei->ect) ^ !!(inst->inv & 1u << M_ECT)) == 0)
		return false;
	if (!(inst->seen & (1u << M_ECE | 1u << M_CWR)))
		return true;
	if (ext_is_later_fragment(ctx))
		return false;
	th = ext_l4_header(ctx, 14, b);
	if (!th) {
		ctx->hotdrop = true;
		return false;
	}
	if ((inst->seen & 1u << M_ECE) && (!!(th[13] & TCP_ECE) ^ !!(inst->inv & 1u << M_ECE)) == 0)
		return false;
	if ((inst->seen & 1u << M_CWR) && (!!(th[13] & TCP_CWR) ^ !!(inst->inv & 1u << M_CWR)) == 0)
		return false;
	return true;
}

const struct ext_match ext_match_ecn = {
    .name = "ecn",
    .datasize = sizeof(struct ecn_info),
    .opts = ecn_opts,
    .nopts = sizeof(ecn_opts) / sizeof(ecn_opts[0]),
    .check = ecn_check,
    .match = ecn_match,
};

/* ---- the target ---------------------------------------------------------------------------- */

struct ecn_target_info {
	uint8_t ece, cwr, ect;
};

enum { T_REMOVE, T_ECE, T_CWR, T_ECT };

static const struct ext_opt ecn_target_opts[] = {
    [T_REMOVE] = {.name = "ecn-tcp-remove", .type = EXT_T_NONE},
    [T_ECE] = {.name = "ecn-tcp-ece",
	       .type = EXT_T_U8,
	       .max = 1,
	       EXT_FIELD(struct ecn_target_info, ece)},
    [T_CWR] = {.name = "ecn-tcp-cwr",
	       .type = EXT_T_U8,
	       .max = 1,
	       EXT_FIELD(struct ecn_target_info, cwr)},
    [T_ECT] = {.name = "ecn-ip-ect",
	       .type = EXT_T_U8,
	       .max = 3,
	       EXT_FIELD(struct ecn_target_info, ect)},
};

static int ecn_target_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	struct ecn_target_info *ti = inst->data;

	if (!inst->seen) {
		ext_errf(ctx->err, ctx->errlen, "ECN target: an option is required");
		return -EINVAL;
	}
	if (inst->seen & 1u << T_REMOVE) { /* both flags cleared */
		ti->ece = ti->cwr = 0;
		inst->seen |= 1u << T_ECE | 1u << T_CWR;
	}
	if ((inst->seen & (1u << T_ECE | 1u << T_CWR)) &&
	    (ctx->proto != IPPROTO_TCP || ctx->proto_inverted)) {
		ext_errf(ctx->err, ctx->errlen, "ECN: cannot use TCP operations on a non-tcp rule");
		return -EINVAL;
	}
	return 0;
}

static void ecn_target_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct ecn_target_info *ti = inst->data;
	uint32_t tcp = inst->seen & (1u << T_ECE | 1u << T_CWR);

	if (tcp == (1u << T_ECE | 1u << T_CWR) && !ti->ece && !ti->cwr) {
		fputs(" --ecn-tcp-remove", pr->f);
	} else {
		if (inst->seen & 1u << T_ECE)
			fprintf(pr->f, " --ecn-tcp-ece %u", ti->ece);
		if (inst->seen & 1u << T_CWR)
			fprintf(pr->f, " --ecn-tcp-cwr %u", ti->cwr);
	}
	if (inst->seen & 1u << T_ECT)
		fprintf(pr->f, " --ecn-ip-ect %u", ti->ect);
}

static int ecn_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ecn_target_info *ti = inst->data;
	struct pkt *p = ctx->pkt;
	uint8_t b[20];
	const uint8_t *th;

	if ((inst->seen & 1u << T_ECT) && (p->info.tos & 3) != ti->ect &&
	    ext_dsfield_set(p, (uint8_t)((p->info.tos & ~3u) | ti->ect)) < 0)
		return EXT_DROP;
	if (!(inst->seen & (1u << T_ECE | 1u << T_CWR)) || p->info.l4proto != IPPROTO_TCP ||
	    ext_is_later_fragment(ctx) || !(th = ext_l4_header(ctx, 18, b)))
		return EXT_CONTINUE;
	{
		uint8_t fl = th[13], nf = fl;
		uint16_t check;

		if (inst->seen & 1u << T_ECE)
			nf = (uint8_t)((nf & ~TCP_ECE) | (ti->ece ? TCP_ECE : 0));
		if (inst->seen & 1u << T_CWR)
			nf = (uint8_t)((nf & ~TCP_CWR) | (ti->cwr ? TCP_CWR : 0));
		if (nf == fl)
			return EXT_CONTINUE;
		check = htons(pkt_csum_replace2(ext_get_be16(th + 16), (uint16_t)(th[12] << 8 | fl),
						(uint16_t)(th[12] << 8 | nf)));
		if (pkt_store(p, p->info.l4off + 13, &nf, 1) < 0 ||
		    pkt_store(p, p->info.l4off + 16, &check, 2) < 0)
			return EXT_DROP;
		p->info.tcp_flags = nf;
	}
	return EXT_CONTINUE;
}

const struct ext_target ext_target_ECN = {
    .name = "ECN",
    .family = AF_INET,
    .tables = TABLE_BIT(TABLE_MANGLE),
    .datasize = sizeof(struct ecn_target_info),
    .opts = ecn_target_opts,
    .nopts = sizeof(ecn_target_opts) / sizeof(ecn_target_opts[0]),
    .check = ecn_target_check,
    .print = ecn_target_print,
    .target = ecn_target,
};
