// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m conntrack (revision 3): the packet's connection as src/ct tracks it.
 *
 *   [!] --ctstate INVALID|NEW|RELATED|ESTABLISHED|UNTRACKED|SNAT|DNAT[,...]
 *   [!] --ctproto PROTO                     original tuple's protocol (printed as a number)
 *   [!] --ctorigsrc|--ctorigdst|--ctreplsrc|--ctrepldst ADDR[/MASK]
 *   [!] --ctorigsrcport|--ctorigdstport|--ctreplsrcport|--ctrepldstport PORT[:PORT]
 *   [!] --ctstatus NONE|EXPECTED|SEEN_REPLY|ASSURED|CONFIRMED[,...]   (any of them set)
 *   [!] --ctexpire SECONDS[:SECONDS]        remaining lifetime
 *       --ctdir ORIGINAL|REPLY
 *
 * As xt_conntrack: without an entry (INVALID, UNTRACKED) only --ctstate can match; any other
 * option makes the match fail, inverted or not. Addresses are kept as given and compared
 * under the mask; iptables-save prints them that way (`--ctorigsrc 10.1.2.3/8`). Ports of
 * ICMP tuples are the id (source) and type/code (destination), as the kernel's u.all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "nat/nat.h"
#include "rules/ext.h"

enum {
	O_CTSTATE,
	O_CTPROTO,
	O_ORIGSRC,
	O_ORIGDST,
	O_REPLSRC,
	O_REPLDST,
	O_ORIGSRCPORT,
	O_ORIGDSTPORT,
	O_REPLSRCPORT,
	O_REPLDSTPORT,
	O_CTSTATUS,
	O_CTEXPIRE,
	O_CTDIR,
	O_NUM
};

/* NAT state bits beyond CT_STATE_*, from the entry's NAT binding (nat_entry_status). */
enum { STATE_SNAT = 1 << 5, STATE_DNAT = 1 << 6 };

struct conntrack_info {
	uint32_t states;
	uint32_t status;
	union pt_addr addr[4][2]; /* O_ORIGSRC..O_REPLDST: address as given, mask */
	uint16_t port[4][2];	  /* O_ORIGSRCPORT..O_REPLDSTPORT: lo, hi */
	uint32_t expire[2];
	uint32_t dir;
	uint8_t l4proto;
};

static const struct ext_name ctstate_names[] = {
    {"INVALID", CT_STATE_INVALID},
    {"NEW", CT_STATE_NEW},
    {"RELATED", CT_STATE_RELATED},
    {"ESTABLISHED", CT_STATE_ESTABLISHED},
    {"UNTRACKED", CT_STATE_UNTRACKED},
    {"SNAT", STATE_SNAT},
    {"DNAT", STATE_DNAT},
    {NULL, 0},
};

static const struct ext_name ctstatus_names[] = {
    {"NONE", 0},
    {"EXPECTED", CT_S_EXPECTED},
    {"SEEN_REPLY", CT_S_SEEN_REPLY},
    {"ASSURED", CT_S_ASSURED},
    {"CONFIRMED", CT_S_CONFIRMED},
    {NULL, 0},
};

static const struct ext_name ctdir_names[] = {
    {"ORIGINAL", CT_DIR_ORIGINAL},
    {"REPLY", CT_DIR_REPLY},
    {NULL, 0},
};

#define INV EXT_OPT_INVERT
#define ADDR_OPT(n)                                                                                \
	{                                                                                          \
		.name = n, .type = EXT_T_CUSTOM, .flags = INV, .print_as = -1                      \
	}
#define PORT_OPT(n, i)                                                                             \
	{                                                                                          \
		.name = n, .type = EXT_T_PORT_RANGE, .flags = INV,                                 \
		EXT_FIELD(struct conntrack_info, port[i])                                          \
	}

static const struct ext_opt conntrack_opts[] = {
    [O_CTSTATE] = {.name = "ctstate",
		   .type = EXT_T_NAME_LIST,
		   .flags = INV,
		   EXT_FIELD(struct conntrack_info, states),
		   .names = ctstate_names},
    [O_CTPROTO] = {.name = "ctproto", .type = EXT_T_CUSTOM, .flags = INV, .print_as = -1},
    [O_ORIGSRC] = ADDR_OPT("ctorigsrc"),
    [O_ORIGDST] = ADDR_OPT("ctorigdst"),
    [O_REPLSRC] = ADDR_OPT("ctreplsrc"),
    [O_REPLDST] = ADDR_OPT("ctrepldst"),
    [O_ORIGSRCPORT] = PORT_OPT("ctorigsrcport", 0),
    [O_ORIGDSTPORT] = PORT_OPT("ctorigdstport", 1),
    [O_REPLSRCPORT] = PORT_OPT("ctreplsrcport", 2),
    [O_REPLDSTPORT] = PORT_OPT("ctrepldstport", 3),
    [O_CTSTATUS] = {.name = "ctstatus",
		    .type = EXT_T_NAME_LIST,
		    .flags = INV,
		    EXT_FIELD(struct conntrack_info, status),
		    .names = ctstatus_names},
    [O_CTEXPIRE] = {.name = "ctexpire",
		    .type = EXT_T_U32_RANGE,
		    .flags = INV,
		    EXT_FIELD(struct conntrack_info, expire)},
    [O_CTDIR] = {.name = "ctdir",
		 .type = EXT_T_NAME,
		 EXT_FIELD(struct conntrack_info, dir),
		 .names = ctdir_names},
};

static const struct ext_name proto_names[] = {
    {"tcp", 6},	   {"udp", 17},	     {"icmp", 1},  {"icmpv6", 58}, {"ipv6-icmp", 58},
    {"sctp", 132}, {"udplite", 136}, {"dccp", 33}, {"gre", 47},	   {"esp", 50},
    {"ah", 51},	   {"all", 0},	     {NULL, 0},
};

static int parse_proto(const char *s, uint8_t *out)
{
	uint64_t v;

	for (const struct ext_name *n = proto_names; n->name; n++)
		if (!strcasecmp(s, n->name)) {
			*out = (uint8_t)n->value;
			return 0;
		}
	if (ext_parse_uint(s, 0, 255, &v) < 0)
		return -EINVAL;
	*out = (uint8_t)v;
	return 0;
}

/* ADDR, ADDR/LEN, or IPv4 ADDR/DOTTED-MASK; the address is kept unmasked. */
static int parse_addr_mask(int family, const char *arg, union pt_addr a[2])
{
	char buf[128], *slash;
	uint64_t len;
	int maxlen = family == AF_INET ? 32 : 128;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (pt_addr_parse(buf, &a[0]) != family)
		return -EINVAL;
	if (!slash)
		return pt_mask_from_len(family, maxlen, &a[1]) < 0 ? -EINVAL : 0;
	if (family == AF_INET && strchr(slash, '.'))
		return pt_addr_parse(slash, &a[1]) == AF_INET ? 0 : -EINVAL;
	if (ext_parse_uint(slash, 0, (uint64_t)maxlen, &len) < 0)
		return -EINVAL;
	return pt_mask_from_len(family, (int)len, &a[1]) < 0 ? -EINVAL : 0;
}

static int conntrack_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned opt,
			   const char *arg)
{
	struct conntrack_info *ci = inst->data;

	if (opt == O_CTPROTO) {
		if (parse_proto(arg, &ci->l4proto) < 0) {
			snprintf(ctx->err, ctx->errlen, "conntrack: unknown protocol \"%s\"", arg);
			return -EINVAL;
		}
		if (ci->l4proto == 0 && ctx->invert) {
			snprintf(ctx->err, ctx->errlen, "conntrack: can't specify ! --ctproto 0");
			return -EINVAL;
		}
		return 0;
	}
	if (opt >= O_ORIGSRC && opt <= O_REPLDST) {
		if (parse_addr_mask(ctx->family, arg, ci->addr[opt - O_ORIGSRC]) < 0) {
			snprintf(ctx->err, ctx->errlen, "conntrack: bad address \"%s\" for --%s",
				 arg, conntrack_opts[opt].name);
			return -EINVAL;
		}
	}
	return 0;
}

static void print_addr_mask(struct ext_printer *pr, const union pt_addr a[2])
{
	char buf[64];
	int len = pt_mask_len(pr->family, &a[1]);
	int maxlen = pr->family == AF_INET ? 32 : 128;

	fprintf(pr->f, " %s", pt_addr_str(pr->family, &a[0], buf, sizeof(buf)));
	if (len == maxlen)
		return;
	if (len >= 0)
		fprintf(pr->f, "/%d", len);
	else
		fprintf(pr->f, "/%s", pt_addr_str(pr->family, &a[1], buf, sizeof(buf)));
}

static void conntrack_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct conntrack_info *ci = inst->data;

	for (unsigned i = 0; i < O_NUM; i++) {
		if (!(inst->seen & (1u << i)))
			continue;
		ext_print_opt(pr, inst, i);
		if (i == O_CTPROTO)
			fprintf(pr->f, " %u", ci->l4proto);
		else if (i >= O_ORIGSRC && i <= O_REPLDST)
			print_addr_mask(pr, ci->addr[i - O_ORIGSRC]);
		else
			ext_print_value(pr, inst, i);
	}
}

static int conntrack_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	if (!(inst->seen & ((1u << O_NUM) - 1))) {
		snprintf(ctx->err, ctx->errlen, "conntrack: At least one option is required");
		return -EINVAL;
	}
	return 0;
}

static bool addr_ok(int family, const union pt_addr *k, const union pt_addr u[2])
{
	unsigned n = family == AF_INET ? 1 : 4;

	for (unsigned i = 0; i < n; i++)
		if ((k->w[i] ^ u[0].w[i]) & u[1].w[i])
			return false;
	return true;
}

#define SEEN(i)	    (inst->seen & (1u << (i)))
#define INVERTED(i) (!!(inst->inv & (1u << (i))))

/* The packet's state bits, plus SNAT / DNAT when its connection's NAT binding changes the
 * source / destination (the kernel's IPS_SRC_NAT / IPS_DST_NAT). */
static unsigned packet_states(const struct pkt *p, const struct ct_entry *e)
{
	unsigned st = ct_pkt_state(p), nat = nat_entry_status(e);

	if (nat & NAT_STATUS_SRC)
		st |= STATE_SNAT;
	if (nat & NAT_STATUS_DST)
		st |= STATE_DNAT;
	return st;
}

/* --ctstate: the NAT binding is looked at only when the rule names SNAT or DNAT (without them
 * those bits cannot change whether a state bit is shared). */
static bool ctstate_ok(const struct conntrack_info *ci, const struct ext_instance *inst,
		       const struct pkt *p, const struct ct_entry *e)
{
	unsigned st =
	    (ci->states & (STATE_SNAT | STATE_DNAT)) ? packet_states(p, e) : ct_pkt_state(p);

	return !!(ci->states & st) != INVERTED(O_CTSTATE);
}

/* conntrack_match beyond --ctstate alone: the other options (out of line, so that the usual
 * rule's test needs no stack frame). */
static __attribute__((noinline)) bool match_options(struct ext_pkt_ctx *ctx,
						    struct ext_instance *inst)
{
	const struct conntrack_info *ci = inst->data;
	const struct ct_entry *e = ct_pkt_entry(ctx->pkt);
	const struct ct_tuple *o, *r;
	const union pt_addr *addrs[4];
	uint16_t ports[4];

	if (SEEN(O_CTSTATE) && !ctstate_ok(ci, inst, ctx->pkt, e))
		return false;
	if (!e)
		return false;
	if (SEEN(O_CTDIR)) {
		unsigned dir =
		    ct_pkt_ctinfo(ctx->pkt) >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;

		if (dir != ci->dir)
			return false;
	}
	o = ct_entry_tuple(e, CT_DIR_ORIGINAL);
	r = ct_entry_tuple(e, CT_DIR_REPLY);
	addrs[0] = &o->src, addrs[1] = &o->dst, addrs[2] = &r->src, addrs[3] = &r->dst;
	for (unsigned i = 0; i < 4; i++)
		if (SEEN(O_ORIGSRC + i) &&
		    addr_ok(o->family, addrs[i], ci->addr[i]) == INVERTED(O_ORIGSRC + i))
			return false;
	if (SEEN(O_CTPROTO) && (o->l4proto == ci->l4proto) == INVERTED(O_CTPROTO))
		return false;
	ports[0] = o->s.all, ports[1] = o->d.all, ports[2] = r->s.all, ports[3] = r->d.all;
	for (unsigned i = 0; i < 4; i++)
		if (SEEN(O_ORIGSRCPORT + i) &&
		    (ports[i] >= ci->port[i][0] && ports[i] <= ci->port[i][1]) ==
			INVERTED(O_ORIGSRCPORT + i))
			return false;
	if (SEEN(O_CTSTATUS) && (!!(ci->status & ct_entry_status(e)) == INVERTED(O_CTSTATUS)))
		return false;
	if (SEEN(O_CTEXPIRE)) {
		uint64_t s = ct_entry_expires_in(e, ctx->now_ns) / CT_SEC;

		if ((s >= ci->expire[0] && s <= ci->expire[1]) == INVERTED(O_CTEXPIRE))
			return false;
	}
	return true;
}

static bool conntrack_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	if (inst->seen == (1u << O_CTSTATE)) /* the usual rule: --ctstate alone */
		return ctstate_ok(inst->data, inst, ctx->pkt, ct_pkt_entry(ctx->pkt));
	return match_options(ctx, inst);
}

/* --ctstate over the CT_STATE_* bits only (SNAT/DNAT come from the NAT binding, which the
 * classifier's key does not hold); the other options stay with conntrack_match. */
static unsigned conntrack_cls_tests(const struct ext_instance *inst, int family,
				    struct ext_cls_test *out, bool *exact)
{
	const struct conntrack_info *ci = inst->data;
	bool inv = INVERTED(O_CTSTATE);
	unsigned n = 0;

	if (!SEEN(O_CTSTATE) || (ci->states & (STATE_SNAT | STATE_DNAT)))
		return 0;
	for (uint32_t v = 0; v < 32 && n < EXT_CLS_MAX_TESTS; v++)
		if (v & ci->states)
			out[n++] = ext_cls_range(EXT_CLS_CTSTATE, inv, v, v);
	if (!n)
		out[n++] = ext_cls_range(EXT_CLS_CTSTATE, !inv, 0, UINT32_MAX);
	*exact = inst->seen == (1u << O_CTSTATE);
	return n;
}

static uint32_t conntrack_cls_value(const struct ext_pkt_ctx *ctx, unsigned field)
{
	return ct_pkt_state(ctx->pkt);
}

const struct ext_match ext_match_conntrack = {
    .name = "conntrack",
    .datasize = sizeof(struct conntrack_info),
    .opts = conntrack_opts,
    .nopts = O_NUM,
    .parse = conntrack_parse,
    .check = conntrack_check,
    .print = conntrack_print,
    .match = conntrack_match,
    .cls_tests = conntrack_cls_tests,
    .cls_value = conntrack_cls_value,
    .needs_conntrack = true,
};
