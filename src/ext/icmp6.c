// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m icmp6 [!] --icmpv6-type {TYPE[/CODE] | NAME} (IPv6; -p icmpv6 / ipv6-icmp loads it,
 * "-m icmpv6" is accepted as an alias). Same header layout as ICMPv4: type, code, checksum.
 * Names by unique case-insensitive prefix; iptables-save prints numbers. There is no "any".
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "rules/ext.h"

struct icmp6_data {
	uint8_t type;
	uint8_t code[2]; /* inclusive range */
};

struct icmp6_name {
	const char *name;
	uint8_t type, code_min, code_max;
};

static const struct icmp6_name icmp6_names[] = {
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

static const struct ext_opt icmp6_opts[] = {
	{ .name = "icmpv6-type", .type = EXT_T_CUSTOM,
	  .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY },
};

static int icmp6_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		       const char *arg)
{
	struct icmp6_data *d = inst->data;
	const struct icmp6_name *hit = NULL;
	size_t n = strlen(arg);
	uint64_t type, code;
	const char *slash;
	char num[16];

	for (size_t i = 0; i < sizeof(icmp6_names) / sizeof(icmp6_names[0]); i++) {
		if (strncasecmp(icmp6_names[i].name, arg, n))
			continue;
		if (strlen(icmp6_names[i].name) == n) {
			hit = &icmp6_names[i];
			break;
		}
		if (hit && (hit->type != icmp6_names[i].type ||
			    hit->code_min != icmp6_names[i].code_min)) {
			snprintf(ctx->err, ctx->errlen,
				 "ambiguous ICMPv6 type '%s': '%s' or '%s'?", arg, hit->name,
				 icmp6_names[i].name);
			return -1;
		}
		if (!hit)
			hit = &icmp6_names[i];
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
		snprintf(ctx->err, ctx->errlen, "unknown ICMPv6 type or code '%s'", arg);
		return -1;
	}
	d->type = (uint8_t)type;
	d->code[0] = slash ? (uint8_t)code : 0;
	d->code[1] = slash ? (uint8_t)code : 0xff;
	return 0;
}

static void icmp6_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct icmp6_data *d = inst->data;

	ext_print_opt(pr, inst, 0);
	if (d->code[0] == 0 && d->code[1] == 0xff)
		fprintf(pr->f, " %u", d->type);
	else if (d->code[0] == d->code[1])
		fprintf(pr->f, " %u/%u", d->type, d->code[0]);
	else
		fprintf(pr->f, " %u/%u-%u", d->type, d->code[0], d->code[1]);
}

static bool icmp6_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct icmp6_data *d = inst->data;
	const struct pkt_info *info = ctx->info;
	uint8_t buf[2];
	const uint8_t *ih;
	bool hit;

	if (info->frag_off)
		return false;
	ih = info->has_l4 && info->l4len >= sizeof(buf)
		     ? pkt_header(ctx->pkt, info->l4off, sizeof(buf), buf)
		     : NULL;
	if (!ih) {
		ctx->hotdrop = true;
		return false;
	}
	hit = ih[0] == d->type && ih[1] >= d->code[0] && ih[1] <= d->code[1];
	return hit != !!(inst->inv & 1u);
}

static const char *const icmp6_aliases[] = { "icmpv6", "ipv6-icmp", NULL };

const struct ext_match ext_match_icmp6 = {
	.name = "icmp6",
	.family = AF_INET6,
	.proto = IPPROTO_ICMPV6,
	.datasize = sizeof(struct icmp6_data),
	.opts = icmp6_opts,
	.nopts = 1,
	.parse = icmp6_parse,
	.print = icmp6_print,
	.match = icmp6_match,
	.aliases = icmp6_aliases,
};
