// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m ipv6header: which extension headers an IPv6 packet carries (ip6t_ipv6header).
 *
 *   -m ipv6header [!] --header hop-by-hop,ipv6-frag,... [--soft]
 *
 * Without --soft the packet must carry exactly the listed set ("protocol": an upper-layer
 * header follows the chain); "!" then means "any other set". With --soft it must carry all
 * listed headers (with "!": none of them) and may carry others.
 *
 * The walk (as the kernel's): from the fixed header, through hop-by-hop (0), routing (43),
 * fragment (44), AH (51) and destination options (60); ESP (50) and no-next-header (59)
 * end it. Anything else ends it as "protocol".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ext/match_util.h"
#include "rules/ext.h"

/* The kernel's bits, high to low in the order iptables-save prints the names. */
enum {
	IH_HOPOPTS = 128,
	IH_DSTOPTS = 64,
	IH_ROUTING = 32,
	IH_FRAGMENT = 16,
	IH_AH = 8,
	IH_ESP = 4,
	IH_NONE = 2,
	IH_PROTO = 1,
};

struct ipv6header_info {
	uint32_t headers; /* IH_* */
};

enum { O_HEADER, O_SOFT };

/*
 * Canonical names first (the core prints the first name of a value), in print order; then
 * the short names iptables accepts and the /etc/protocols names and aliases it finds
 * through getprotobyname(). Case matters, as it does there.
 */
static const struct ext_name ipv6header_names[] = {
	{ "hop-by-hop", IH_HOPOPTS }, { "ipv6-opts", IH_DSTOPTS }, { "ipv6-route", IH_ROUTING },
	{ "ipv6-frag", IH_FRAGMENT }, { "ah", IH_AH },		   { "esp", IH_ESP },
	{ "ipv6-nonxt", IH_NONE },    { "protocol", IH_PROTO },	   { "hop", IH_HOPOPTS },
	{ "dst", IH_DSTOPTS },	      { "route", IH_ROUTING },	   { "frag", IH_FRAGMENT },
	{ "auth", IH_AH },	      { "none", IH_NONE },	   { "prot", IH_PROTO },
	{ "hopopt", IH_HOPOPTS },     { "HOPOPT", IH_HOPOPTS },	   { "IPv6-Opts", IH_DSTOPTS },
	{ "IPv6-Route", IH_ROUTING }, { "IPv6-Frag", IH_FRAGMENT }, { "IPSEC-AH", IH_AH },
	{ "IPSEC-ESP", IH_ESP },      { "IPv6-NoNxt", IH_NONE },   { NULL, 0 },
};

/* Protocol numbers accepted instead of a name (decimal only, as iptables reads them). */
static const struct {
	uint8_t proto;
	uint8_t bit;
} ipv6header_numbers[] = {
	{ 0, IH_HOPOPTS }, { 60, IH_DSTOPTS }, { 43, IH_ROUTING }, { 44, IH_FRAGMENT },
	{ 51, IH_AH },	   { 50, IH_ESP },     { 59, IH_NONE },	   { 255, IH_PROTO },
};

static const struct ext_opt ipv6header_opts[] = {
	/* parsed by ipv6header_parse, printed by the core from the names above */
	[O_HEADER] = { .name = "header", .type = EXT_T_NAME_LIST,
		       .flags = EXT_OPT_INVERT | EXT_OPT_MANDATORY | EXT_OPT_NOSTORE,
		       EXT_FIELD(struct ipv6header_info, headers), .names = ipv6header_names },
	[O_SOFT] = { .name = "soft", .type = EXT_T_NONE },
};

static int ipv6header_bit(const char *s, uint32_t *bit)
{
	char *end;
	unsigned long v;

	for (const struct ext_name *n = ipv6header_names; n->name; n++)
		if (!strcmp(n->name, s)) {
			*bit = n->value;
			return 0;
		}
	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(ipv6header_numbers) / sizeof(ipv6header_numbers[0]); i++)
		if (ipv6header_numbers[i].proto == v) {
			*bit = ipv6header_numbers[i].bit;
			return 0;
		}
	return -EINVAL;
}

/* Empty list elements are skipped, as iptables skips them ("hop,,dst"). */
static int ipv6header_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			    const char *arg)
{
	struct ipv6header_info *hi = inst->data;
	const char *p = arg;

	if (opt != O_HEADER)
		return 0;
	hi->headers = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		char name[32];
		uint32_t bit;

		if (n >= sizeof(name))
			goto bad;
		memcpy(name, p, n);
		name[n] = '\0';
		if (n && ipv6header_bit(name, &bit))
			goto bad;
		if (n)
			hi->headers |= bit;
		p += n;
		if (*p == ',')
			p++;
	}
	if (hi->headers)
		return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "ipv6header: unknown header in \"%s\"", arg);
	return -EINVAL;
}

/* The set of headers present, or -1 when the packet is to be dropped or not matched. */
static int ipv6header_walk(struct ext_pkt_ctx *ctx)
{
	uint32_t dlen = ext_l3_len(ctx), ptr = 40;
	uint8_t buf[2];
	const uint8_t *h;
	int len, found = 0;
	uint8_t nh;

	h = ext_l3_header(ctx, 6, 1, buf);
	if (!h)
		return -1;
	nh = h[0];
	len = (int)dlen - 40;
	while (nh == 0 || nh == 43 || nh == 44 || nh == 50 || nh == 51 || nh == 59 || nh == 60) {
		uint32_t hdrlen;

		if (nh == 59) {
			found |= IH_NONE;
			break;
		}
		if (len < 2)
			return -1;
		if (nh == 50) {
			found |= IH_ESP;
			break;
		}
		h = ext_l3_header(ctx, ptr, 2, buf);
		if (!h) {
			ctx->hotdrop = true;
			return -1;
		}
		hdrlen = nh == 44 ? 8 : nh == 51 ? ext_ip6_authlen(h[1]) : ext_ip6_optlen(h[1]);
		found |= nh == 0 ? IH_HOPOPTS : nh == 43 ? IH_ROUTING : nh == 44 ? IH_FRAGMENT
		       : nh == 51 ? IH_AH : IH_DSTOPTS;
		nh = h[0];
		len -= (int)hdrlen;
		ptr += hdrlen;
		if (ptr > dlen)
			break;
	}
	if (nh != 59 && nh != 50)
		found |= IH_PROTO;
	return found;
}

static bool ipv6header_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct ipv6header_info *hi = inst->data;
	uint32_t want = hi->headers;
	bool inv = inst->inv & 1u << O_HEADER;
	int found = ipv6header_walk(ctx);

	if (found < 0)
		return false;
	if (inst->seen & 1u << O_SOFT)
		return !(((uint32_t)found ^ want ^ (inv ? 0xffu : 0)) & want);
	return inv ? (uint32_t)found != want : (uint32_t)found == want;
}

const struct ext_match ext_match_ipv6header = {
	.name = "ipv6header",
	.family = AF_INET6,
	.datasize = sizeof(struct ipv6header_info),
	.opts = ipv6header_opts,
	.nopts = sizeof(ipv6header_opts) / sizeof(ipv6header_opts[0]),
	.parse = ipv6header_parse,
	.match = ipv6header_match,
};
