// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m udp: source and destination port ranges (loaded implicitly by -p udp).
 *
 *   +-------------------------------+-------------------------------+
 *   |          Source Port          |       Destination Port        |
 *   +-------------------------------+-------------------------------+
 *   |            Length             |           Checksum            |
 *   +-------------------------------+-------------------------------+
 *
 * A non-first fragment never matches; a first fragment too short for the header is dropped.
 */
#include <netinet/in.h>
#include <stdio.h>

#include "rules/ext.h"

struct udp_data {
	uint16_t spts[2], dpts[2];
	bool inv_full; /* "! --sport :" was given: iptables-nft drops such a test */
};

enum { O_SPORT, O_DPORT, O_SPORT_ALIAS, O_DPORT_ALIAS };

static const struct ext_opt udp_opts[] = {
	[O_SPORT] = { .name = "sport", .type = EXT_T_PORT_RANGE, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct udp_data, spts) },
	[O_DPORT] = { .name = "dport", .type = EXT_T_PORT_RANGE, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct udp_data, dpts) },
	[O_SPORT_ALIAS] = { .name = "source-port", .type = EXT_T_PORT_RANGE,
			    .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_SPORT,
			    EXT_FIELD(struct udp_data, spts) },
	[O_DPORT_ALIAS] = { .name = "destination-port", .type = EXT_T_PORT_RANGE,
			    .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_DPORT,
			    EXT_FIELD(struct udp_data, dpts) },
};

static void udp_init(struct ext_instance *inst)
{
	struct udp_data *d = inst->data;

	d->spts[1] = d->dpts[1] = 0xffff;
}

/* "! --dport :" (an inverted full range) is a test iptables-nft leaves out: the rule then
 * matches as if it were not there. Kept as a plain full range, remembered for printing. */
static int udp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct udp_data *d = inst->data;
	const uint16_t *r = opt == O_SPORT || opt == O_SPORT_ALIAS ? d->spts : d->dpts;
	unsigned bit = opt == O_SPORT || opt == O_SPORT_ALIAS ? O_SPORT : O_DPORT;

	(void)arg;
	if (ctx->invert && r[0] == 0 && r[1] == 0xffff) {
		inst->inv &= ~(1u << bit);
		d->inv_full = true;
	}
	return 0;
}

static bool full(const uint16_t r[2])
{
	return r[0] == 0 && r[1] == 0xffff;
}

/* Nothing left to test after an inverted full range: no "-m udp", and every packet passes. */
static bool udp_omit(const struct ext_instance *inst)
{
	const struct udp_data *d = inst->data;

	return d->inv_full && full(d->spts) && full(d->dpts);
}

/* iptables-save leaves out a full port range. */
static void udp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct udp_data *d = inst->data;

	if ((inst->seen & (1u << O_SPORT)) && (d->spts[0] != 0 || d->spts[1] != 0xffff)) {
		ext_print_opt(pr, inst, O_SPORT);
		ext_print_value(pr, inst, O_SPORT);
	}
	if ((inst->seen & (1u << O_DPORT)) && (d->dpts[0] != 0 || d->dpts[1] != 0xffff)) {
		ext_print_opt(pr, inst, O_DPORT);
		ext_print_value(pr, inst, O_DPORT);
	}
}

static bool udp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct udp_data *d = inst->data;
	const struct pkt_info *info = ctx->info;
	uint8_t buf[8];
	const uint8_t *uh;
	uint16_t sp, dp;

	if (udp_omit(inst))
		return true;
	if (info->frag_off)
		return false;
	if (info->has_l4 && info->l4proto == IPPROTO_UDP) { /* the ports the parser decoded */
		sp = info->sport;
		dp = info->dport;
		goto ports;
	}
	uh = info->has_l4 && info->l4len >= sizeof(buf)
		     ? pkt_header(ctx->pkt, info->l4off, sizeof(buf), buf)
		     : NULL;
	if (!uh) {
		ctx->hotdrop = true;
		return false;
	}
	sp = (uint16_t)(uh[0] << 8 | uh[1]);
	dp = (uint16_t)(uh[2] << 8 | uh[3]);
ports:
	return ((sp >= d->spts[0] && sp <= d->spts[1]) != !!(inst->inv & (1u << O_SPORT))) &&
	       ((dp >= d->dpts[0] && dp <= d->dpts[1]) != !!(inst->inv & (1u << O_DPORT)));
}

static unsigned udp_cls_tests(const struct ext_instance *inst, int family,
			      struct ext_cls_test *out, bool *exact)
{
	const struct udp_data *d = inst->data;

	*exact = true;
	if (udp_omit(inst))
		return 0;
	out[0] = ext_cls_range(EXT_CLS_SPORT, inst->inv & (1u << O_SPORT), d->spts[0], d->spts[1]);
	out[1] = ext_cls_range(EXT_CLS_DPORT, inst->inv & (1u << O_DPORT), d->dpts[0], d->dpts[1]);
	return 2;
}

const struct ext_match ext_match_udp = {
	.name = "udp",
	.proto = IPPROTO_UDP,
	.datasize = sizeof(struct udp_data),
	.opts = udp_opts,
	.nopts = sizeof(udp_opts) / sizeof(udp_opts[0]),
	.init = udp_init,
	.parse = udp_parse,
	.print = udp_print,
	.omit = udp_omit,
	.match = udp_match,
	.cls_tests = udp_cls_tests,
};
