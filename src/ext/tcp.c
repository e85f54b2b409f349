// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m tcp: ports, flags and option kinds of the TCP header (loaded implicitly by -p tcp).
 *
 *    0                   1                   2                   3
 *   +-------------------------------+-------------------------------+
 *   |          Source Port          |       Destination Port        |
 *   +-------------------------------+-------------------------------+
 *   |                        Sequence Number                        |
 *   |                     Acknowledgment Number                     |
 *   +-------+-------+---------------+-------------------------------+
 *   | Offset|  Rsvd |C E U A P R S F|            Window             |  byte 13: the flags
 *   +-------+-------+---------------+-------------------------------+
 *   |           Checksum            |         Urgent Pointer        |
 *   +-------------------------------+-------------------------------+
 *   | Options: kind, len, data... (kinds 0 and 1 are one byte)      |  offset*4 - 20 bytes
 *
 * Like the kernel: a non-first fragment never matches, and one at offset 1 (8 bytes, which
 * could overwrite the flags of the first) is dropped at once; a missing header is dropped too.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rules/ext.h"

struct tcp_data {
	uint16_t spts[2], dpts[2];
	uint8_t option;
	uint8_t flg[2]; /* mask, compare */
	bool inv_full;	/* "! --sport :" was given: iptables-nft drops such a test */
};

enum { O_SPORT, O_DPORT, O_OPTION, O_FLAGS, O_SPORT_ALIAS, O_DPORT_ALIAS, O_SYN };

enum { F_ALL = 0x3f }; /* FIN to URG: "ALL" in --tcp-flags */

/* Single flags first: the printer lists the first name of each bit in this order. */
static const struct ext_name tcp_flag_names[] = {
	{ "FIN", PKT_TCP_FIN }, { "SYN", PKT_TCP_SYN }, { "RST", PKT_TCP_RST },
	{ "PSH", PKT_TCP_PSH }, { "ACK", PKT_TCP_ACK }, { "URG", PKT_TCP_URG },
	{ "ALL", F_ALL }, { "NONE", 0 },
	{ NULL, 0 },
};

/*
 * Ports are custom: tcp has its own port syntax in iptables (0x/0 prefixes, max 65535,
 * LO > HI refused), stricter than the generic one udp uses. The fields are still declared, so
 * the core can merge two tcp matches of one rule as iptables-nft does.
 */
static const struct ext_opt tcp_opts[] = {
	[O_SPORT] = { .name = "sport", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct tcp_data, spts) },
	[O_DPORT] = { .name = "dport", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT,
		      EXT_FIELD(struct tcp_data, dpts) },
	[O_OPTION] = { .name = "tcp-option", .type = EXT_T_U8, .flags = EXT_OPT_INVERT,
		       .min = 1, .max = 255, EXT_FIELD(struct tcp_data, option) },
	[O_FLAGS] = { .name = "tcp-flags", .type = EXT_T_CUSTOM,
		      .flags = EXT_OPT_INVERT | EXT_OPT_ARGS2, EXT_FIELD(struct tcp_data, flg) },
	[O_SPORT_ALIAS] = { .name = "source-port", .type = EXT_T_CUSTOM,
			    .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_SPORT,
			    EXT_FIELD(struct tcp_data, spts) },
	[O_DPORT_ALIAS] = { .name = "destination-port", .type = EXT_T_CUSTOM,
			    .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT, .print_as = O_DPORT,
			    EXT_FIELD(struct tcp_data, dpts) },
	[O_SYN] = { .name = "syn", .type = EXT_T_NONE, .flags = EXT_OPT_INVERT | EXT_OPT_NOPRINT,
		    .print_as = O_FLAGS, EXT_FIELD(struct tcp_data, flg) },
};

static void tcp_init(struct ext_instance *inst)
{
	struct tcp_data *d = inst->data;

	d->spts[1] = d->dpts[1] = 0xffff;
}

static int parse_flag_list(const char *s, size_t len, uint8_t *out)
{
	uint8_t acc = 0;

	while (len) {
		const char *comma = memchr(s, ',', len);
		size_t n = comma ? (size_t)(comma - s) : len;
		const struct ext_name *f;

		for (f = tcp_flag_names; f->name; f++)
			if (strlen(f->name) == n && !strncasecmp(f->name, s, n))
				break;
		if (!f->name)
			return -1;
		acc |= (uint8_t)f->value;
		if (!comma)
			break;
		len -= n + 1;
		s += n + 1;
		if (!len)
			return -1;
	}
	*out = acc;
	return 0;
}

/* "PORT", "LO:HI", ":HI", "LO:", ":" with tcp's rules (ext_parse_port). */
static int parse_ports(struct ext_parse_ctx *ctx, const char *arg, uint16_t r[2])
{
	const char *colon = strchr(arg, ':');
	char lo[64];

	r[0] = 0;
	r[1] = 0xffff;
	if (!colon) {
		if (ext_parse_port(arg, "tcp", &r[0]))
			goto bad;
		r[1] = r[0];
		return 0;
	}
	snprintf(lo, sizeof(lo), "%.*s", (int)(colon - arg), arg);
	if ((lo[0] && ext_parse_port(lo, "tcp", &r[0])) ||
	    (colon[1] && ext_parse_port(colon + 1, "tcp", &r[1])))
		goto bad;
	if (r[0] > r[1]) {
		snprintf(ctx->err, ctx->errlen, "invalid portrange (min > max)");
		return -1;
	}
	return 0;
bad:
	snprintf(ctx->err, ctx->errlen, "invalid port/service '%s' specified", arg);
	return -1;
}

static int tcp_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
		     const char *arg)
{
	struct tcp_data *d = inst->data;
	const char *space;

	switch (opt) {
	case O_SPORT:
	case O_SPORT_ALIAS:
	case O_DPORT:
	case O_DPORT_ALIAS: {
		bool src = opt == O_SPORT || opt == O_SPORT_ALIAS;
		uint16_t *r = src ? d->spts : d->dpts;

		if (parse_ports(ctx, arg, r))
			return -1;
		/* an inverted full range is a test iptables-nft leaves out (tcp_omit) */
		if (ctx->invert && r[0] == 0 && r[1] == 0xffff) {
			inst->inv &= ~(1u << (src ? O_SPORT : O_DPORT));
			d->inv_full = true;
		}
		return 0;
	}
	case O_SYN:
		d->flg[0] = PKT_TCP_SYN | PKT_TCP_RST | PKT_TCP_ACK | PKT_TCP_FIN;
		d->flg[1] = PKT_TCP_SYN;
		return 0;
	case O_FLAGS:
		space = strchr(arg, ' ');
		if (!space || parse_flag_list(arg, (size_t)(space - arg), &d->flg[0]) ||
		    parse_flag_list(space + 1, strlen(space + 1), &d->flg[1])) {
			snprintf(ctx->err, ctx->errlen, "unknown TCP flag in --tcp-flags");
			return -1;
		}
		return 0;
	}
	return 0;
}

static void print_flags(struct ext_printer *pr, uint8_t flags)
{
	bool first = true;

	fputc(' ', pr->f);
	if (!flags) {
		fputs("NONE", pr->f);
		return;
	}
	for (const struct ext_name *f = tcp_flag_names; f->value != F_ALL; f++)
		if (flags & f->value) {
			fprintf(pr->f, "%s%s", first ? "" : ",", f->name);
			first = false;
		}
}

static void print_ports(struct ext_printer *pr, const struct ext_instance *inst, unsigned opt,
			const uint16_t r[2])
{
	if (!(inst->seen & (1u << opt)) || (r[0] == 0 && r[1] == 0xffff))
		return;
	ext_print_opt(pr, inst, opt);
	if (r[0] == r[1])
		fprintf(pr->f, " %u", r[0]);
	else
		fprintf(pr->f, " %u:%u", r[0], r[1]);
}

/* iptables-save leaves out a full port range and an empty flag mask. */
static void tcp_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct tcp_data *d = inst->data;

	print_ports(pr, inst, O_SPORT, d->spts);
	print_ports(pr, inst, O_DPORT, d->dpts);
	if (inst->seen & (1u << O_OPTION)) {
		ext_print_opt(pr, inst, O_OPTION);
		ext_print_value(pr, inst, O_OPTION);
	}
	if ((inst->seen & (1u << O_FLAGS)) && d->flg[0]) {
		ext_print_opt(pr, inst, O_FLAGS);
		print_flags(pr, d->flg[0]);
		print_flags(pr, d->flg[1]);
	}
}

/* Nothing left to test after an inverted full port range: no "-m tcp", every packet passes. */
static bool tcp_omit(const struct ext_instance *inst)
{
	const struct tcp_data *d = inst->data;

	return d->inv_full && d->spts[0] == 0 && d->spts[1] == 0xffff && d->dpts[0] == 0 &&
	       d->dpts[1] == 0xffff && !(inst->seen & (1u << O_OPTION)) && !d->flg[0];
}

static bool port_in(uint16_t p, const uint16_t r[2], bool inv)
{
	return (p >= r[0] && p <= r[1]) != inv;
}

/* Search the option list for `kind`; false on a malformed list that runs past its end. */
static bool find_option(const uint8_t *op, unsigned optlen, uint8_t kind)
{
	for (unsigned i = 0; i < optlen;) {
		if (op[i] == kind)
			return true;
		if (op[i] < 2)
			i++;
		else
			i += (i + 1 < optlen && op[i + 1]) ? op[i + 1] : 1;
	}
	return false;
}

static bool tcp_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tcp_data *d = inst->data;
	const struct pkt_info *info = ctx->info;
	uint8_t hbuf[20], obuf[40];
	const uint8_t *th, *op;
	unsigned optlen;

	if (tcp_omit(inst))
		return true;
	if (info->frag_off) {
		if (info->frag_off == 1)
			ctx->hotdrop = true;
		return false;
	}
	/* Ports and flags as the parser decoded them (a TCP header it found whole: has_l4; NAT
	 * and ECN keep them current). The options are read from the packet: TCPMSS may have
	 * rewritten the header since. */
	if (info->has_l4 && info->l4proto == IPPROTO_TCP && !(inst->seen & (1u << O_OPTION)))
		return port_in(info->sport, d->spts, inst->inv & (1u << O_SPORT)) &&
		       port_in(info->dport, d->dpts, inst->inv & (1u << O_DPORT)) &&
		       ((info->tcp_flags & d->flg[0]) == d->flg[1]) !=
			       !!(inst->inv & (1u << O_FLAGS));
	th = info->has_l4 && info->l4len >= sizeof(hbuf)
		     ? pkt_header(ctx->pkt, info->l4off, sizeof(hbuf), hbuf)
		     : NULL;
	if (!th) {
		ctx->hotdrop = true;
		return false;
	}
	if (!port_in((uint16_t)(th[0] << 8 | th[1]), d->spts, inst->inv & (1u << O_SPORT)))
		return false;
	if (!port_in((uint16_t)(th[2] << 8 | th[3]), d->dpts, inst->inv & (1u << O_DPORT)))
		return false;
	if (((th[13] & d->flg[0]) == d->flg[1]) == !!(inst->inv & (1u << O_FLAGS)))
		return false;
	if (!(inst->seen & (1u << O_OPTION)))
		return true;
	if ((th[12] >> 4) * 4u < sizeof(hbuf)) {
		ctx->hotdrop = true;
		return false;
	}
	optlen = (th[12] >> 4) * 4u - sizeof(hbuf);
	op = NULL;
	if (optlen) {
		op = info->l4len >= sizeof(hbuf) + optlen
			     ? pkt_header(ctx->pkt, info->l4off + sizeof(hbuf), optlen, obuf)
			     : NULL;
		if (!op) {
			ctx->hotdrop = true;
			return false;
		}
	}
	return (optlen && find_option(op, optlen, d->option)) != !!(inst->inv & (1u << O_OPTION));
}

/* Ports only: flags and options stay with tcp_match (residual). */
static unsigned tcp_cls_tests(const struct ext_instance *inst, int family,
			      struct ext_cls_test *out, bool *exact)
{
	const struct tcp_data *d = inst->data;

	if (tcp_omit(inst)) {
		*exact = true;
		return 0;
	}
	*exact = !(inst->seen & (1u << O_OPTION)) && !d->flg[0] && !(inst->inv & (1u << O_FLAGS));
	out[0] = ext_cls_range(EXT_CLS_SPORT, inst->inv & (1u << O_SPORT), d->spts[0], d->spts[1]);
	out[1] = ext_cls_range(EXT_CLS_DPORT, inst->inv & (1u << O_DPORT), d->dpts[0], d->dpts[1]);
	return 2;
}

const struct ext_match ext_match_tcp = {
	.name = "tcp",
	.proto = IPPROTO_TCP,
	.datasize = sizeof(struct tcp_data),
	.opts = tcp_opts,
	.nopts = sizeof(tcp_opts) / sizeof(tcp_opts[0]),
	.init = tcp_init,
	.parse = tcp_parse,
	.print = tcp_print,
	.omit = tcp_omit,
	.match = tcp_match,
	.cls_tests = tcp_cls_tests,
};
