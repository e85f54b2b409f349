// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m icmp [!] --icmp-type {any | TYPE[/CODE] | NAME}      (IPv4; loaded by -p icmp)
 * -m icmp6 [!] --icmpv6-type {TYPE[/CODE] | NAME}         (IPv6; -p icmpv6 / ipv6-icmp loads it,
 *                                                          "-m icmpv6" is an alias)
 *
 *   +---------------+---------------+-------------------------------+
 *   |     Type      |     Code      |           Checksum            |
 *   +---------------+---------------+-------------------------------+
 *
 * Both families have this header, so one parser, printer and match serve both; only the names
 * differ. Names are matched case-insensitively by unique prefix, as iptables does;
 * iptables-save prints numbers ("8", "3/3"). IPv4 alone has "any", which is type 255 (as in
 * xt_icmp, so an IPv4 type 255 cannot be asked for); IPv6 type 255 is an ordinary number.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "rules/ext.h"

#define ICMP_ANY 0xff

struct icmp_data {
	uint8_t type;
	uint8_t code[2]; /* inclusive range */
};

struct icmp_name {
	const char *name;
	uint8_t type, code_min, code_max;
};

static const struct icmp_name icmp_names[] = {
	{ "any", 0xff, 0, 0xff },
	{ "echo-reply", 0, 0, 0xff },
	{ "pong", 0, 0, 0xff },
	{ "destination-unreachable", 3, 0, 0xff },
	{ "network-unreachable", 3, 0, 0 },
	{ "host-unreachable", 3, 1, 1 },
	{ "protocol-unreachable", 3, 2, 2 },
	{ "port-unreachable", 3, 3, 3 },
	{ "fragmentation-needed", 3, 4, 4 },
	{ "source-route-failed", 3, 5, 5 },
	{ "network-unknown", 3, 6, 6 },
	{ "host-unknown", 3, 7, 7 },
	{ "network-prohibited", 3, 9, 9 },
	{ "host-prohibited", 3, 10, 10 },
	{ "TOS-network-unreachable", 3, 11, 11 },
	{ "TOS-host-unreachable", 3, 12, 12 },
	{ "communication-prohibited", 3, 13, 13 },
	{ "host-precedence-violation", 3, 14, 14 },
	{ "precedence-cutoff", 3, 15, 15 },
	{ "source-quench", 4, 0, 0xff },
	{ "redirect", 5, 0, 0xff },
	{ "network-redirect", 5, 0, 0 },
	{ "host-redirect", 5, 1, 1 },
	{ "TOS-network-redirect", 5, 2, 2 },
	{ "TOS-host-redirect", 5, 3, 3 },
	{ "echo-request", 8, 0, 0xff },
	{ "ping", 8, 0, 0xff },
	{ "router-advertisement", 9, 0, 0xff },
	{ "router-solicitation", 10, 0, 0xff },
	{ "time-exceeded", 11, 0, 0xff },
	{ "ttl-exceeded", 11, 0, 0xff },
	{ "ttl-zero-during-transit", 11, 0, 0 },
	{ "ttl-zero-during-reassembly", 11, 1, 1 },
	{ "parameter-problem", 12, 0, 0xff },
	{ "ip-header-bad", 12, 0, 0 },
	{ "required-option-missing", 12, 1, 1 },
	{ "timestamp-request", 13, 0, 0xff },
	{ "timestamp-reply", 14, 0, 0xff },
	{ "address-mask-request", 17, 0, 0xff },
	{ "address-mask-reply", 18, 0, 0xff },
};

static const struct icmp_name icmp6_names[] = {
	{ "destination-unreachable", 1, 0, 0xff },
	{ "no-route", 1, 0, 0 },
	{ "communication-prohibited", 1, 1, 1 },
	{ "beyond-scope", 1, 2, 2 },
	{ "address-unreachable", 1, 3, 3 },
	{ "port-unreachable", 1, 4, 4 },
	{ "failed-policy", 1, 5, 5 },
	{ "reject-route", 1, 6, 6 },
	{ "packet-too-big", 2, 0, 0xff },
	{ "time-exceeded", 3, 0, 0xff },
	{ "ttl-exceeded", 3, 0, 0xff },
	{ "ttl-zero-during-transit", 3, 0, 0 },
	{ "ttl-zero-during-reassembly", 3, 1, 1 },
	{ "parameter-problem", 4, 0, 0xff },
	{ "bad-header", 4, 0, 0 },
	{ "unknown-header-type", 4, 1, 1 },
	{ "unknown-option", 4, 2, 2 },
	{ "echo-request", 128, 0, 0xff },
	{ "ping", 128, 0, 0xff },
	{ "echo-reply", 129, 0, 0xff },
	{ "pong", 129, 0, 0xff },
	{ "mld-listener-query", 130, 0, 0xff },
	{ "mld-listener-report", 131, 0, 0xff },
	{ "mld-listener-done", 132, 0, 0xff },
	{ "router-solicitation", 133, 0, 0xff },
	{ "router-advertisement", 134, 0, 0xff },
	{ "neighbour-solicitation", 135, 0, 0xff },
	{ "neighbor-solicitation", 135, 0, 0xff },
	{ "neighbour-advertisement", 136, 0, 0xff },
	{ "neighbor-advertisement", 136, 0, 0xff },
	{ "redirect", 137, 0, 0xff },
};

static const struct ext_opt icmp_opts[] = {
	{ .name = "icmp-type", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

static const struct ext_opt icmp6_opts[] = {
	{ .name = "icmpv6-type", .type = EXT_T_CUSTOM,
	  .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

static bool icmp_is_any(int family, const struct icmp_data *d)
{
	return family == AF_INET && d->type == ICMP_ANY;
}

static int icmp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		      const char *arg)
{
	bool v6 = ctx->family == AF_INET6;
	const struct icmp_name *names = v6 ? icmp6_names : icmp_names;
	size_t nnames = v6 ? sizeof(icmp6_names) / sizeof(icmp6_names[0])
			   : sizeof(icmp_names) / sizeof(icmp_names[0]);
	const char *what = v6 ? "ICMPv6" : "ICMP";
	struct icmp_data *d = inst->data;
	const struct icmp_name *hit = NULL;
	size_t n = strlen(arg);
	uint64_t type, code;
	const char *slash;
	char num[16];

	for (size_t i = 0; i < nnames; i++) {
		if (strncasecmp(names[i].name, arg, n))
			continue;
		if (strlen(names[i].name) == n) { /* exact beats prefix */
			hit = &names[i];
			break;
		}
		if (hit && (hit->type != names[i].type || hit->code_min != names[i].code_min)) {
			snprintf(ctx->err, ctx->errlen, "ambiguous %s type '%s': '%s' or '%s'?", what,
				 arg, hit->name, names[i].name);
			return -1;
		}
		if (!hit)
			hit = &names[i];
	}
	if (hit && n) {
		d->type = hit->type;
		d->code[0] = hit->code_min;
		d->code[1] = hit->code_max;
		return 0;
	}
	slash = strchr(arg, '/');
	snprintf(num, sizeof(num), "%.*s", (int)(slash ? (size_t)(slash - arg) : n), arg);
	if (ext_parse_uint(num, 0, 255, &type) ||
	    (slash && ext_parse_uint(slash + 1, 0, 255, &code))) {
		snprintf(ctx->err, ctx->errlen, "unknown %s type or code '%s'", what, arg);
		return -1;
	}
	d->type = (uint8_t)type;
	d->code[0] = slash ? (uint8_t)code : 0;
	d->code[1] = slash ? (uint8_t)code : 0xff;
	return 0;
}

static void icmp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct icmp_data *d = inst->data;

	ext_print_opt(pr, inst, 0);
	if (icmp_is_any(pr->family, d))
		fputs(" any", pr->f);
	else if (d->code[0] == 0 && d->code[1] == 0xff)
		fprintf(pr->f, " %u", d->type);
	else if (d->code[0] == d->code[1])
		fprintf(pr->f, " %u/%u", d->type, d->code[0]);
	else
		fprintf(pr->f, " %u/%u-%u", d->type, d->code[0], d->code[1]);
}

static bool icmp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct icmp_data *d = inst->data;
	const struct pkt_info *info = ctx->info;
	uint8_t buf[2], type, code;
	const uint8_t *ih;
	bool hit;

	if (info->frag_off)
		return false;
	if (info->has_l4 && (info->l4proto == IPPROTO_ICMP || info->l4proto == IPPROTO_ICMPV6)) {
		/* type and code as the parser decoded them (a whole ICMP header) */
		type = info->icmp_type;
		code = info->icmp_code;
	} else {
		ih = info->has_l4 && info->l4len >= sizeof(buf)
			     ? pkt_header(ctx->pkt, info->l4off, sizeof(buf), buf)
			     : NULL;
		if (!ih) {
			ctx->hotdrop = true;
			return false;
		}
		type = ih[0];
		code = ih[1];
	}
	hit = icmp_is_any(ctx->family, d) ||
	      (type == d->type && code >= d->code[0] && code <= d->code[1]);
	return hit != !!(inst->inv & 1u);
}

static unsigned icmp_cls_tests(const struct ext_instance *inst, int family,
			       struct ext_cls_test *out, bool *exact)
{
	const struct icmp_data *d = inst->data;
	bool inv = inst->inv & 1u;

	*exact = true;
	if (icmp_is_any(family, d))
		out[0] = ext_cls_range(EXT_CLS_ICMP, inv, 0, 0xffff);
	else
		out[0] = ext_cls_range(EXT_CLS_ICMP, inv, (uint32_t)d->type << 8 | d->code[0],
				       (uint32_t)d->type << 8 | d->code[1]);
	return 1;
}

const struct ext_match ext_match_icmp = {
	.name = "icmp",
	.family = AF_INET,
	.proto = IPPROTO_ICMP,
	.datasize = sizeof(struct icmp_data),
	.opts = icmp_opts,
	.nopts = 1,
	.parse = icmp_parse,
	.print = icmp_print,
	.match = icmp_match,
	.cls_tests = icmp_cls_tests,
};

static const char *const icmp6_aliases[] = { "icmpv6", "ipv6-icmp", NULL };

const struct ext_match ext_match_icmp6 = {
	.name = "icmp6",
	.family = AF_INET6,
	.proto = IPPROTO_ICMPV6,
	.datasize = sizeof(struct icmp_data),
	.opts = icmp6_opts,
	.nopts = 1,
	.parse = icmp_parse,
	.print = icmp_print,
	.match = icmp_match,
	.cls_tests = icmp_cls_tests,
	.aliases = icmp6_aliases,
};
