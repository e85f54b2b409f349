// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m ipv4options: which IPv4 options a packet carries.
 *
 * Not in stock iptables: this follows xtables-addons' ipv4options (revision 1), its
 * spelling and its semantics.
 *
 *   -m ipv4options [--flags [!]OPT[,[!]OPT...]] [--any]
 *
 *   OPT is a name (nop security lsrr timestamp record-route ssrr mtu-probe mtu-reply
 *   traceroute router-alert) or an option number 1..31 (the low five bits of the type byte).
 *   Without --any every listed option must be present ("!OPT": absent); with --any one of
 *   them is enough. Printed as numbers in ascending order: --flags !1,4 --any.
 *
 *   IPv4 header | options (ihl*4 - 20 bytes): | type | len | data... | ... | 0 (end)
 *   NOP (1) is a single byte and, as in xtables-addons, is skipped rather than recorded:
 *   "--flags nop" never finds it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct ipv4options_info {
	uint32_t map;	 /* bit n: option number n is tested */
	uint32_t invert; /* bit n: it must be absent */
};

enum { O_FLAGS, O_ANY };

static const struct ext_opt ipv4options_opts[] = {
	[O_FLAGS] = { .name = "flags", .type = EXT_T_CUSTOM },
	[O_ANY] = { .name = "any", .type = EXT_T_NONE },
};

static const struct ext_name ipv4options_names[] = {
	{ "nop", 1 },	     { "security", 2 },	  { "lsrr", 3 },       { "timestamp", 4 },
	{ "record-route", 7 }, { "ssrr", 9 },	  { "mtu-probe", 11 }, { "mtu-reply", 12 },
	{ "traceroute", 18 },  { "router-alert", 20 }, { NULL, 0 },
};

static int ipv4options_number(const char *s, uint32_t *out)
{
	uint64_t v;

	for (const struct ext_name *n = ipv4options_names; n->name; n++)
		if (!strcmp(n->name, s)) {
			*out = n->value;
			return 0;
		}
	if (ext_parse_uint(s, 1, 31, &v))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int ipv4options_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			     const char *arg)
{
	struct ipv4options_info *oi = inst->data;
	const char *p = arg;

	if (opt != O_FLAGS)
		return 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		bool absent = *p == '!';
		char name[32];
		uint32_t num;

		if (absent) {
			p++;
			n--;
		}
		if (!n || n >= sizeof(name))
			goto bad;
		memcpy(name, p, n);
		name[n] = '\0';
		if (ipv4options_number(name, &num))
			goto bad;
		oi->map |= 1u << num;
		if (absent)
			oi->invert |= 1u << num;
		if (!p[n])
			return 0;
		p += n + 1;
	}
bad:
	ext_errf(ctx->err, ctx->errlen, "ipv4options: bad option list \"%s\"", arg);
	return -EINVAL;
}

static void ipv4options_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct ipv4options_info *oi = inst->data;
	bool first = true;

	if (oi->map) {
		ext_print_opt(pr, inst, O_FLAGS);
		for (unsigned i = 0; i < 32; i++) {
			if (!(oi->map & 1u << i))
				continue;
			fprintf(pr->f, "%c%s%u", first ? ' ' : ',', oi->invert & 1u << i ? "!" : "",
				i);
			first = false;
		}
	}
	if (inst->seen & 1u << O_ANY)
		ext_print_opt(pr, inst, O_ANY);
}

/* The option numbers present (bit n for number n), read as xtables-addons reads them. */
static uint32_t ipv4options_present(struct ext_pkt_ctx *ctx)
{
	uint8_t opts[40];
	const uint8_t *d;
	uint32_t found = 0;
	int len = (int)ctx->info->ihl - 20;

	if (len <= 0 || len > 40)
		return 0;
	d = ext_l3_header(ctx, 20, (uint32_t)len, opts);
	if (!d)
		return 0;
	while (len >= 2) {
		if (d[0] == 0) /* end of option list */
			break;
		if (d[0] == 1) { /* no-operation */
			d++;
			len--;
			continue;
		}
		if (d[1] < 2 || d[1] > len)
			break;
		found |= 1u << (d[0] & 0x1f);
		len -= d[1];
		d += d[1];
	}
	return found;
}

static bool ipv4options_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ipv4options_info *oi = inst->data;
	uint32_t got = (ipv4options_present(ctx) ^ oi->invert) & oi->map;

	return inst->seen & 1u << O_ANY ? got != 0 : got == oi->map;
}

const struct ext_match ext_match_ipv4options = {
	.name = "ipv4options",
	.family = AF_INET,
	.datasize = sizeof(struct ipv4options_info),
	.opts = ipv4options_opts,
	.nopts = sizeof(ipv4options_opts) / sizeof(ipv4options_opts[0]),
	.parse = ipv4options_parse,
	.print = ipv4options_print,
	.match = ipv4options_match,
};
