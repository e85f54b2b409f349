// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m multiport: up to 15 ports or port ranges, matched against the source port, the
 * destination port, or either (xt_multiport revision 1, libxt_multiport's spelling).
 *
 *   -p tcp -m multiport [!] --dports 22,80:90,443
 *                            ports[] = { 22, 80, 90, 443 }   a range takes two slots,
 *                            pflags[] = { 0,  1,  0,  0 }    pflags marks its first one
 *
 * Only with -p tcp, udp, udplite, sctp or dccp (not inverted), as the kernel checks.
 * A non-first fragment never matches (it has no ports), with or without "!".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define MULTIPORT_MAX 15

enum multiport_mode { MP_SOURCE, MP_DESTINATION, MP_EITHER };

struct multiport_info {
	uint8_t mode;  /* enum multiport_mode */
	uint8_t count; /* slots used in ports[] */
	uint16_t ports[MULTIPORT_MAX];
	uint8_t pflags[MULTIPORT_MAX];
};

enum { O_SPORTS, O_DPORTS, O_PORTS, O_SOURCE_PORTS, O_DESTINATION_PORTS };

#define MP_ALL (1u << O_SPORTS | 1u << O_DPORTS | 1u << O_PORTS)

static const struct ext_opt multiport_opts[] = {
	[O_SPORTS] = { .name = "sports", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT,
		       .excl = MP_ALL & ~(1u << O_SPORTS) },
	[O_DPORTS] = { .name = "dports", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT,
		       .excl = MP_ALL & ~(1u << O_DPORTS) },
	[O_PORTS] = { .name = "ports", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT,
		      .excl = MP_ALL & ~(1u << O_PORTS) },
	/* the long spellings libxt_multiport also accepts */
	[O_SOURCE_PORTS] = { .name = "source-ports", .type = EXT_T_CUSTOM,
			     .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_SPORTS },
	[O_DESTINATION_PORTS] = { .name = "destination-ports", .type = EXT_T_CUSTOM,
				  .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
				  .print_as = O_DPORTS },
};

static const char *multiport_proto_name(uint16_t proto)
{
	switch (proto) {
	case 6:
		return "tcp";
	case 17:
		return "udp";
	case 33:
		return "dccp";
	case 132:
		return "sctp";
	case 136:
		return "udplite";
	}
	return NULL;
}

/* One list element: "port" or "lo:hi" with lo < hi (libxt_multiport refuses lo >= hi). */
static int multiport_parse_elem(struct ext_parse_ctx *ctx, struct multiport_info *mi,
				const char *elem)
{
	const char *proto = multiport_proto_name(ctx->proto);
	const char *colon = strchr(elem, ':');
	char lo[64];
	uint16_t a, b;

	if (!*elem || strlen(elem) >= sizeof(lo)) {
		ext_errf(ctx->err, ctx->errlen, "multiport: empty or overlong port in list");
		return -EINVAL;
	}
	if (!colon) {
		if (ext_parse_port(elem, proto, &a))
			goto bad_port;
		if (mi->count >= MULTIPORT_MAX)
			goto too_many;
		mi->ports[mi->count++] = a;
		return 0;
	}
	memcpy(lo, elem, (size_t)(colon - elem));
	lo[colon - elem] = '\0';
	if (!lo[0] || !colon[1] || strchr(colon + 1, ':') || ext_parse_port(lo, proto, &a) ||
	    ext_parse_port(colon + 1, proto, &b))
		goto bad_port;
	if (a >= b) {
		ext_errf(ctx->err, ctx->errlen, "multiport: invalid portrange specified: %s", elem);
		return -EINVAL;
	}
	if (mi->count + 2 > MULTIPORT_MAX)
		goto too_many;
	mi->pflags[mi->count] = 1;
	mi->ports[mi->count++] = a;
	mi->ports[mi->count++] = b;
	return 0;
bad_port:
	ext_errf(ctx->err, ctx->errlen, "multiport: invalid port/service `%s' specified", elem);
	return -EINVAL;
too_many:
	ext_errf(ctx->err, ctx->errlen,
		 "multiport: too many ports specified (at most %d, a range counts as two)",
		 MULTIPORT_MAX);
	return -EINVAL;
}

static int multiport_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			   const char *arg)
{
	struct multiport_info *mi = inst->data;
	const char *p = arg;

	switch (opt) {
	case O_SPORTS:
	case O_SOURCE_PORTS:
		mi->mode = MP_SOURCE;
		break;
	case O_DPORTS:
	case O_DESTINATION_PORTS:
		mi->mode = MP_DESTINATION;
		break;
	default:
		mi->mode = MP_EITHER;
		break;
	}
	mi->count = 0;
	memset(mi->pflags, 0, sizeof(mi->pflags));
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char elem[64];

		if (n >= sizeof(elem)) {
			ext_errf(ctx->err, ctx->errlen, "multiport: port list element too long");
			return -EINVAL;
		}
		memcpy(elem, p, n);
		elem[n] = '\0';
		if (multiport_parse_elem(ctx, mi, elem))
			return -EINVAL;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int multiport_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & MP_ALL)) {
		ext_errf(ctx->err, ctx->errlen, "one of --sports, --dports or --ports is required");
		return -EINVAL;
	}
	if (!multiport_proto_name(ctx->proto) || ctx->proto_inverted) {
		ext_errf(ctx->err, ctx->errlen,
			 "multiport only works with TCP, UDP, UDPLITE, SCTP and DCCP");
		return -EINVAL;
	}
	return 0;
}

static void multiport_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct multiport_info *mi = inst->data;
	unsigned opt = mi->mode == MP_SOURCE ? O_SPORTS
		       : mi->mode == MP_DESTINATION ? O_DPORTS : O_PORTS;

	ext_print_opt(pr, inst, opt);
	for (unsigned i = 0; i < mi->count; i++) {
		fprintf(pr->f, "%c%u", i ? ',' : ' ', mi->ports[i]);
		if (mi->pflags[i] && i + 1 < mi->count)
			fprintf(pr->f, ":%u", mi->ports[++i]);
	}
}

static bool multiport_hit(const struct multiport_info *mi, uint16_t sport, uint16_t dport)
{
	for (unsigned i = 0; i < mi->count; i++) {
		uint16_t lo = mi->ports[i], hi = lo;

		if (mi->pflags[i] && i + 1 < mi->count)
			hi = mi->ports[++i];
		if (mi->mode != MP_DESTINATION && sport >= lo && sport <= hi)
			return true;
		if (mi->mode != MP_SOURCE && dport >= lo && dport <= hi)
			return true;
	}
	return false;
}

static bool multiport_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct multiport_info *mi = inst->data;
	uint8_t buf[4];
	const uint8_t *pp;

	if (ext_is_later_fragment(ctx))
		return false;
	/* the ports as the parser decoded them (TCP, UDP, UDP-Lite, SCTP, DCCP: a whole header) */
	if (ctx->info->has_ports)
		return multiport_hit(mi, ctx->info->sport, ctx->info->dport) ^
		       !!(inst->inv & MP_ALL);
	/* the ports are the first four bytes of all five protocols' headers */
	pp = ext_l4_header(ctx, 4, buf);
	if (!pp) {
		ctx->hotdrop = true;
		return false;
	}
	return multiport_hit(mi, ext_get_be16(pp), ext_get_be16(pp + 2)) ^
	       !!(inst->inv & MP_ALL);
}

/* --sports / --dports as a list of ranges of one field; --ports (either) has none. */
static unsigned multiport_cls_tests(const struct ext_instance *inst, int family,
				    struct ext_cls_test *out, bool *exact)
{
	const struct multiport_info *mi = inst->data;
	unsigned field = mi->mode == MP_SOURCE ? EXT_CLS_SPORT : EXT_CLS_DPORT, n = 0;
	bool inv = inst->inv & MP_ALL;

	if (mi->mode == MP_EITHER)
		return 0;
	for (unsigned i = 0; i < mi->count; i++) {
		uint16_t lo = mi->ports[i], hi = lo;

		if (mi->pflags[i] && i + 1 < mi->count)
			hi = mi->ports[++i];
		out[n++] = ext_cls_range(field, inv, lo, hi);
	}
	/* no port at all matches nothing; inverted, everything: leave that to the match */
	*exact = n > 0;
	return n;
}

const struct ext_match ext_match_multiport = {
	.name = "multiport",
	.datasize = sizeof(struct multiport_info),
	.opts = multiport_opts,
	.nopts = sizeof(multiport_opts) / sizeof(multiport_opts[0]),
	.parse = multiport_parse,
	.check = multiport_check,
	.print = multiport_print,
	.match = multiport_match,
	.cls_tests = multiport_cls_tests,
};
