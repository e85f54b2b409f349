// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -j TCPOPTSTRIP [--strip-options LIST] (xt_TCPOPTSTRIP), -p tcp, mangle table: the listed
 * TCP options are overwritten with NOPs (kind 1), so the header keeps its length, and the
 * checksum is updated. LIST: numbers 0..255 or wscale (3), mss (2), sack-permitted (4),
 * sack (5), timestamp (8), md5 (19); printed as ascending numbers. Without a list nothing is
 * stripped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "ext/match_util.h"
#include "rules/ext.h"

struct tcpoptstrip_info {
	uint32_t strip[8]; /* bit k: option kind k */
};

static const struct ext_opt tcpoptstrip_opts[] = {
    {.name = "strip-options", .type = EXT_T_CUSTOM},
};

static const struct ext_name tcpopt_names[] = {
    {"wscale", 3}, {"mss", 2}, {"sack-permitted", 4}, {"sack", 5}, {"timestamp", 8},
    {"md5", 19},   {NULL, 0},
};

static int tcpoptstrip_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
			     const char *arg)
{
	struct tcpoptstrip_info *ti = inst->data;
	const char *s = arg;

	(void)i;
	while (*s) {
		size_t n = strcspn(s, ",");
		char tok[32];
		uint64_t v;
		bool found = false;

		if (!n || n >= sizeof(tok))
			goto bad;
		memcpy(tok, s, n);
		tok[n] = '\0';
		for (const struct ext_name *o = tcpopt_names; o->name && !found; o++)
			if (!strcmp(o->name, tok)) {
				v = o->value;
				found = true;
			}
		if (!found && ext_parse_uint(tok, 0, 255, &v))
			goto bad;
		ti->strip[v / 32] |= 1u << (v % 32);
		s += n;
		if (*s == ',' && !*++s)
			goto bad;
	}
	return 0;
bad:
	ext_errf(ctx->err, ctx->errlen, "TCPOPTSTRIP: bad option list \"%s\"", arg);
	return -EINVAL;
}

static void tcpoptstrip_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct tcpoptstrip_info *ti = inst->data;
	const char *sep = " --strip-options ";

	for (unsigned k = 0; k < 256; k++)
		if (ti->strip[k / 32] & 1u << (k % 32)) {
			fprintf(pr->f, "%s%u", sep, k);
			sep = ",";
		}
}

static int tcpoptstrip_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct tcpoptstrip_info *ti = inst->data;
	struct pkt *p = ctx->pkt;
	uint8_t h[60], old[60];
	unsigned hlen;
	uint16_t check;
	bool changed = false;

	if (ext_is_later_fragment(ctx) || !p->info.has_l4 || p->info.l4len < 20 ||
	    pkt_copy_out(p, p->info.l4off, h, 20) < 0)
		return EXT_CONTINUE;
	hlen = (h[12] >> 4) * 4u;
	if (hlen <= 20 || p->info.l4len < hlen || pkt_copy_out(p, p->info.l4off, h, hlen) < 0)
		return EXT_CONTINUE;
	memcpy(old, h, hlen);
	for (unsigned i = 20; i < hlen;) {
		unsigned kind = h[i], len = kind < 2 ? 1 : (i + 1 < hlen ? h[i + 1] : 0);

		if (len < (kind < 2 ? 1u : 2u) || i + len > hlen)
			break; /* a malformed list: the rest is left alone, as the kernel does */
		if (kind >= 2 && (ti->strip[kind / 32] & 1u << (kind % 32))) {
			memset(h + i, 1, len);
			changed = true;
		}
		i += len;
	}
	if (!changed)
		return EXT_CONTINUE;
	check = ext_get_be16(h + 16);
	for (unsigned w = 20; w < hlen; w += 2)
		check = pkt_csum_replace2(check, ext_get_be16(old + w), ext_get_be16(h + w));
	check = htons(check);
	if (pkt_store(p, p->info.l4off + 20, h + 20, hlen - 20) < 0 ||
	    pkt_store(p, p->info.l4off + 16, &check, 2) < 0)
		return EXT_DROP;
	return EXT_CONTINUE;
}

const struct ext_target ext_target_TCPOPTSTRIP = {
    .name = "TCPOPTSTRIP",
    .proto = IPPROTO_TCP,
    .tables = TABLE_BIT(TABLE_MANGLE),
    .datasize = sizeof(struct tcpoptstrip_info),
    .opts = tcpoptstrip_opts,
    .nopts = 1,
    .parse = tcpoptstrip_parse,
    .print = tcpoptstrip_print,
    .target = tcpoptstrip_target,
};
