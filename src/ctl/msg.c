// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages: validation tables, building and decoding (docs/ctl.md).
 *
 * An entry (CTL_CT_NEW reply or event), every value big-endian as in ctnetlink:
 *
 *   nlmsghdr | nfgenmsg {AF_INET, 0, 0}
 *   CTA_TUPLE_ORIG (1) ---+- CTA_TUPLE_IP (1) ----+- CTA_IP_V4_SRC (1)  4 bytes
 *                         |                       +- CTA_IP_V4_DST (2)  4 bytes
 *                         +- CTA_TUPLE_PROTO (2) -+- CTA_PROTO_NUM (1)  u8
 *                                                 +- CTA_PROTO_SRC_PORT (2) be16
 *                                                 +- CTA_PROTO_DST_PORT (3) be16
 *   CTA_TUPLE_REPLY (2)   (the same)
 *   CTA_STATUS (3) be32   CTA_TIMEOUT (7) be32 s   CTA_MARK (8) be32   CTA_USE (11) be32
 *   CTA_ID (12) be32      CTA_ZONE (18) be16
 *   CTA_PROTOINFO (4) -- CTA_PROTOINFO_TCP (1) -- CTA_PROTOINFO_TCP_STATE (1) u8
 *   CTA_COUNTERS_ORIG (9) / _REPLY (10) -- CTA_COUNTERS_PACKETS (1) be64, _BYTES (2) be64
 *   CTA_TIMESTAMP (20) -- CTA_TIMESTAMP_START (1) be64 ns, _STOP (2), CTL_TS_NOW (64)
 *   CTA_LABELS (22) 16 bytes, CTA_LABELS_MASK (23) 16 bytes (host-order 32-bit words)
 *
 * Validation (one table per nesting level, below) is separate from access (decode_*): by the
 * time a decoder reads an attribute, its type and length are known good.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netfilter.h>
#include <linux/netlink.h>

#include "ctl/msg.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "ct/labels.h"
#include "ct/tstamp.h"
#include "nat/nat.h"

/* ---- validation tables ------------------------------------------------------------------- */

struct ctl_level;

struct ctl_pol {
	uint8_t type; /* MNL_TYPE_*; MNL_TYPE_UNSPEC: not known at this level (skipped) */
	uint8_t len;  /* exact payload length for BINARY; 0: any */
	const char *name;
	const struct ctl_level *nest;
};

struct ctl_level {
	uint16_t max;
	const struct ctl_pol *pol;
};

#define LEVEL(p) { .max = sizeof(p) / sizeof(p[0]) - 1, .pol = p }

static const struct ctl_pol ip_pol[] = {
	[CTA_IP_V4_SRC] = { MNL_TYPE_BINARY, 4, "CTA_IP_V4_SRC", NULL },
	[CTA_IP_V4_DST] = { MNL_TYPE_BINARY, 4, "CTA_IP_V4_DST", NULL },
	[CTA_IP_V6_SRC] = { MNL_TYPE_BINARY, 16, "CTA_IP_V6_SRC", NULL },
	[CTA_IP_V6_DST] = { MNL_TYPE_BINARY, 16, "CTA_IP_V6_DST", NULL },
};
static const struct ctl_level ip_level = LEVEL(ip_pol);

static const struct ctl_pol proto_pol[] = {
	[CTA_PROTO_NUM] = { MNL_TYPE_U8, 0, "CTA_PROTO_NUM", NULL },
	[CTA_PROTO_SRC_PORT] = { MNL_TYPE_U16, 0, "CTA_PROTO_SRC_PORT", NULL },
	[CTA_PROTO_DST_PORT] = { MNL_TYPE_U16, 0, "CTA_PROTO_DST_PORT", NULL },
	[CTA_PROTO_ICMP_ID] = { MNL_TYPE_U16, 0, "CTA_PROTO_ICMP_ID", NULL },
	[CTA_PROTO_ICMP_TYPE] = { MNL_TYPE_U8, 0, "CTA_PROTO_ICMP_TYPE", NULL },
	[CTA_PROTO_ICMP_CODE] = { MNL_TYPE_U8, 0, "CTA_PROTO_ICMP_CODE", NULL },
	[CTA_PROTO_ICMPV6_ID] = { MNL_TYPE_U16, 0, "CTA_PROTO_ICMPV6_ID", NULL },
	[CTA_PROTO_ICMPV6_TYPE] = { MNL_TYPE_U8, 0, "CTA_PROTO_ICMPV6_TYPE", NULL },
	[CTA_PROTO_ICMPV6_CODE] = { MNL_TYPE_U8, 0, "CTA_PROTO_ICMPV6_CODE", NULL },
};
static const struct ctl_level proto_level = LEVEL(proto_pol);

static const struct ctl_pol tuple_pol[] = {
	[CTA_TUPLE_IP] = { MNL_TYPE_NESTED, 0, "CTA_TUPLE_IP", &ip_level },
	[CTA_TUPLE_PROTO] = { MNL_TYPE_NESTED, 0, "CTA_TUPLE_PROTO", &proto_level },
	[CTA_TUPLE_ZONE] = { MNL_TYPE_U16, 0, "CTA_TUPLE_ZONE", NULL },
};
static const struct ctl_level tuple_level = LEVEL(tuple_pol);

static const struct ctl_pol counters_pol[] = {
	[CTA_COUNTERS_PACKETS] = { MNL_TYPE_U64, 0, "CTA_COUNTERS_PACKETS", NULL },
	[CTA_COUNTERS_BYTES] = { MNL_TYPE_U64, 0, "CTA_COUNTERS_BYTES", NULL },
};
static const struct ctl_level counters_level = LEVEL(counters_pol);

static const struct ctl_pol tstamp_pol[CTL_TS_NOW + 1] = {
	[CTA_TIMESTAMP_START] = { MNL_TYPE_U64, 0, "CTA_TIMESTAMP_START", NULL },
	[CTA_TIMESTAMP_STOP] = { MNL_TYPE_U64, 0, "CTA_TIMESTAMP_STOP", NULL },
	[CTL_TS_NOW] = { MNL_TYPE_U64, 0, "CTL_TS_NOW", NULL },
};
static const struct ctl_level tstamp_level = LEVEL(tstamp_pol);

static const struct ctl_pol tcp_pol[] = {
	[CTA_PROTOINFO_TCP_STATE] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_STATE", NULL },
	[CTA_PROTOINFO_TCP_WSCALE_ORIGINAL] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_WSCALE_ORIGINAL",
						NULL },
	[CTA_PROTOINFO_TCP_WSCALE_REPLY] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_WSCALE_REPLY",
					     NULL },
	[CTA_PROTOINFO_TCP_FLAGS_ORIGINAL] = { MNL_TYPE_BINARY, 2, "CTA_PROTOINFO_TCP_FLAGS_ORIGINAL",
					       NULL },
	[CTA_PROTOINFO_TCP_FLAGS_REPLY] = { MNL_TYPE_BINARY, 2, "CTA_PROTOINFO_TCP_FLAGS_REPLY",
					    NULL },
};
static const struct ctl_level tcp_level = LEVEL(tcp_pol);

static const struct ctl_pol sctp_pol[] = {
	[CTA_PROTOINFO_SCTP_STATE] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_SCTP_STATE", NULL },
	[CTA_PROTOINFO_SCTP_VTAG_ORIGINAL] = { MNL_TYPE_U32, 0, "CTA_PROTOINFO_SCTP_VTAG_ORIGINAL",
					       NULL },
	[CTA_PROTOINFO_SCTP_VTAG_REPLY] = { MNL_TYPE_U32, 0, "CTA_PROTOINFO_SCTP_VTAG_REPLY", NULL },
};
static const struct ctl_level sctp_level = LEVEL(sctp_pol);

static const struct ctl_pol dccp_pol[] = {
	[CTA_PROTOINFO_DCCP_STATE] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_DCCP_STATE", NULL },
	[CTA_PROTOINFO_DCCP_ROLE] = { MNL_TYPE_U8, 0, "CTA_PROTOINFO_DCCP_ROLE", NULL },
	[CTA_PROTOINFO_DCCP_HANDSHAKE_SEQ] = { MNL_TYPE_U64, 0, "CTA_PROTOINFO_DCCP_HANDSHAKE_SEQ",
					       NULL },
};
static const struct ctl_level dccp_level = LEVEL(dccp_pol);

static const struct ctl_pol protoinfo_pol[] = {
	[CTA_PROTOINFO_TCP] = { MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_TCP", &tcp_level },
	[CTA_PROTOINFO_DCCP] = { MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_DCCP", &dccp_level },
	[CTA_PROTOINFO_SCTP] = { MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_SCTP", &sctp_level },
};
static const struct ctl_level protoinfo_level = LEVEL(protoinfo_pol);

static const struct ctl_pol filter_pol[] = {
	[CTL_F_TUPLE_ORIG] = { MNL_TYPE_NESTED, 0, "CTL_F_TUPLE_ORIG", &tuple_level },
	[CTL_F_TUPLE_REPLY] = { MNL_TYPE_NESTED, 0, "CTL_F_TUPLE_REPLY", &tuple_level },
	[CTL_F_MARK] = { MNL_TYPE_U32, 0, "CTL_F_MARK", NULL },
	[CTL_F_MARK_MASK] = { MNL_TYPE_U32, 0, "CTL_F_MARK_MASK", NULL },
	[CTL_F_ZONE] = { MNL_TYPE_U16, 0, "CTL_F_ZONE", NULL },
	[CTL_F_STATUS] = { MNL_TYPE_U32, 0, "CTL_F_STATUS", NULL },
	[CTL_F_STATUS_MASK] = { MNL_TYPE_U32, 0, "CTL_F_STATUS_MASK", NULL },
};
static const struct ctl_level filter_level = LEVEL(filter_pol);

static const struct ctl_pol help_pol[] = {
	[CTA_HELP_NAME] = { MNL_TYPE_NUL_STRING, 0, "CTA_HELP_NAME", NULL },
};
static const struct ctl_level help_level = LEVEL(help_pol);

static const struct ctl_pol ct_pol[CTL_A_MAX + 1] = {
	[CTA_TUPLE_ORIG] = { MNL_TYPE_NESTED, 0, "CTA_TUPLE_ORIG", &tuple_level },
	[CTA_TUPLE_REPLY] = { MNL_TYPE_NESTED, 0, "CTA_TUPLE_REPLY", &tuple_level },
	[CTA_STATUS] = { MNL_TYPE_U32, 0, "CTA_STATUS", NULL },
	[CTA_PROTOINFO] = { MNL_TYPE_NESTED, 0, "CTA_PROTOINFO", &protoinfo_level },
	[CTA_HELP] = { MNL_TYPE_NESTED, 0, "CTA_HELP", &help_level },
	[CTA_TIMEOUT] = { MNL_TYPE_U32, 0, "CTA_TIMEOUT", NULL },
	[CTA_MARK] = { MNL_TYPE_U32, 0, "CTA_MARK", NULL },
	[CTA_COUNTERS_ORIG] = { MNL_TYPE_NESTED, 0, "CTA_COUNTERS_ORIG", &counters_level },
	[CTA_COUNTERS_REPLY] = { MNL_TYPE_NESTED, 0, "CTA_COUNTERS_REPLY", &counters_level },
	[CTA_USE] = { MNL_TYPE_U32, 0, "CTA_USE", NULL },
	[CTA_ID] = { MNL_TYPE_U32, 0, "CTA_ID", NULL },
	[CTA_ZONE] = { MNL_TYPE_U16, 0, "CTA_ZONE", NULL },
	[CTA_TIMESTAMP] = { MNL_TYPE_NESTED, 0, "CTA_TIMESTAMP", &tstamp_level },
	[CTA_LABELS] = { MNL_TYPE_BINARY, 16, "CTA_LABELS", NULL },
	[CTA_LABELS_MASK] = { MNL_TYPE_BINARY, 16, "CTA_LABELS_MASK", NULL },
	[CTA_MARK_MASK] = { MNL_TYPE_U32, 0, "CTA_MARK_MASK", NULL },
	[CTL_A_VERSION] = { MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL },
	[CTL_A_FILTER] = { MNL_TYPE_NESTED, 0, "CTL_A_FILTER", &filter_level },
	[CTL_A_EVENT_MASK] = { MNL_TYPE_U32, 0, "CTL_A_EVENT_MASK", NULL },
	[CTL_A_COUNT] = { MNL_TYPE_U32, 0, "CTL_A_COUNT", NULL },
	[CTL_A_EVENTS_LOST] = { MNL_TYPE_U64, 0, "CTL_A_EVENTS_LOST", NULL },
};
static const struct ctl_level ct_level = LEVEL(ct_pol);

static const struct ctl_pol stats_cpu_pol[CTL_A_MAX + 1] = {
	[CTA_STATS_FOUND] = { MNL_TYPE_U32, 0, "CTA_STATS_FOUND", NULL },
	[CTA_STATS_NEW] = { MNL_TYPE_U32, 0, "CTA_STATS_NEW", NULL },
	[CTA_STATS_INVALID] = { MNL_TYPE_U32, 0, "CTA_STATS_INVALID", NULL },
	[CTA_STATS_INSERT] = { MNL_TYPE_U32, 0, "CTA_STATS_INSERT", NULL },
	[CTA_STATS_INSERT_FAILED] = { MNL_TYPE_U32, 0, "CTA_STATS_INSERT_FAILED", NULL },
	[CTA_STATS_DROP] = { MNL_TYPE_U32, 0, "CTA_STATS_DROP", NULL },
	[CTA_STATS_EARLY_DROP] = { MNL_TYPE_U32, 0, "CTA_STATS_EARLY_DROP", NULL },
	[CTA_STATS_ERROR] = { MNL_TYPE_U32, 0, "CTA_STATS_ERROR", NULL },
	[CTA_STATS_SEARCH_RESTART] = { MNL_TYPE_U32, 0, "CTA_STATS_SEARCH_RESTART", NULL },
	[CTA_STATS_CLASH_RESOLVE] = { MNL_TYPE_U32, 0, "CTA_STATS_CLASH_RESOLVE", NULL },
	[CTL_A_VERSION] = { MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL },
	[CTL_A_EVENTS_LOST] = { MNL_TYPE_U64, 0, "CTL_A_EVENTS_LOST", NULL },
};
static const struct ctl_level stats_cpu_level = LEVEL(stats_cpu_pol);

static const struct ctl_pol stats_global_pol[CTL_A_MAX + 1] = {
	[CTA_STATS_GLOBAL_ENTRIES] = { MNL_TYPE_U32, 0, "CTA_STATS_GLOBAL_ENTRIES", NULL },
	[CTA_STATS_GLOBAL_MAX_ENTRIES] = { MNL_TYPE_U32, 0, "CTA_STATS_GLOBAL_MAX_ENTRIES", NULL },
	[CTL_A_VERSION] = { MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL },
};
static const struct ctl_level stats_global_level = LEVEL(stats_global_pol);

static const struct ctl_pol rules_pol[CTL_A_MAX + 1] = {
	[CTL_RA_TEXT] = { MNL_TYPE_BINARY, 0, "CTL_RA_TEXT", NULL },
	[CTL_RA_NAME] = { MNL_TYPE_NUL_STRING, 0, "CTL_RA_NAME", NULL },
	[CTL_RA_FLAGS] = { MNL_TYPE_U32, 0, "CTL_RA_FLAGS", NULL },
	[CTL_RA_TABLE] = { MNL_TYPE_NUL_STRING, 0, "CTL_RA_TABLE", NULL },
	[CTL_RA_CHAIN] = { MNL_TYPE_NUL_STRING, 0, "CTL_RA_CHAIN", NULL },
	[CTL_RA_POLICY] = { MNL_TYPE_U32, 0, "CTL_RA_POLICY", NULL },
	[CTL_A_VERSION] = { MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL },
};
static const struct ctl_level rules_level = LEVEL(rules_pol);

static const struct ctl_pol exp_pol[CTL_A_MAX + 1] = {
	[CTA_EXPECT_MASTER] = { MNL_TYPE_NESTED, 0, "CTA_EXPECT_MASTER", &tuple_level },
	[CTA_EXPECT_TUPLE] = { MNL_TYPE_NESTED, 0, "CTA_EXPECT_TUPLE", &tuple_level },
	[CTA_EXPECT_MASK] = { MNL_TYPE_NESTED, 0, "CTA_EXPECT_MASK", &tuple_level },
	[CTA_EXPECT_TIMEOUT] = { MNL_TYPE_U32, 0, "CTA_EXPECT_TIMEOUT", NULL },
	[CTA_EXPECT_ID] = { MNL_TYPE_U32, 0, "CTA_EXPECT_ID", NULL },
	[CTA_EXPECT_HELP_NAME] = { MNL_TYPE_NUL_STRING, 0, "CTA_EXPECT_HELP_NAME", NULL },
	[CTA_EXPECT_ZONE] = { MNL_TYPE_U16, 0, "CTA_EXPECT_ZONE", NULL },
	[CTA_EXPECT_FLAGS] = { MNL_TYPE_U32, 0, "CTA_EXPECT_FLAGS", NULL },
	[CTA_EXPECT_CLASS] = { MNL_TYPE_U32, 0, "CTA_EXPECT_CLASS", NULL },
	[CTL_A_VERSION] = { MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL },
};
static const struct ctl_level exp_level = LEVEL(exp_pol);

static const struct ctl_pol errack_pol[CTL_ERRA_LINE + 1] = {
	[NLMSGERR_ATTR_MSG] = { MNL_TYPE_NUL_STRING, 0, "NLMSGERR_ATTR_MSG", NULL },
	[NLMSGERR_ATTR_OFFS] = { MNL_TYPE_U32, 0, "NLMSGERR_ATTR_OFFS", NULL },
	[NLMSGERR_ATTR_MISS_TYPE] = { MNL_TYPE_U32, 0, "NLMSGERR_ATTR_MISS_TYPE", NULL },
	[NLMSGERR_ATTR_MISS_NEST] = { MNL_TYPE_U32, 0, "NLMSGERR_ATTR_MISS_NEST", NULL },
	[CTL_ERRA_LINE] = { MNL_TYPE_U32, 0, "CTL_ERRA_LINE", NULL },
};

/* Exact payload sizes of the fixed-size types (libmnl only checks the upper bound). */
static const uint8_t type_len[MNL_TYPE_MAX] = {
	[MNL_TYPE_U8] = 1,
	[MNL_TYPE_U16] = 2,
	[MNL_TYPE_U32] = 4,
	[MNL_TYPE_U64] = 8,
};

/* ---- errors ------------------------------------------------------------------------------ */

__attribute__((format(printf, 4, 5))) static int fail(struct ctl_error *err, int code,
						      const struct nlattr *attr, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->attr = attr;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

static int missing(struct ctl_error *err, uint16_t type, const struct nlattr *nest,
		   const char *what)
{
	err->missing = type;
	err->nest = nest;
	return fail(err, -EINVAL, NULL, "%s: required", what);
}

/* ---- validation -------------------------------------------------------------------------- */

struct vctx {
	const struct ctl_level *level;
	const struct nlattr **tb; /* may be NULL: validation only */
	const char *path;
	struct ctl_error *err;
	const char *end; /* end of the last attribute seen */
	unsigned depth;
};

static int validate_level(const struct ctl_level *lv, const struct nlattr *nest,
			  const struct nlmsghdr *nlh, const char *path, const struct nlattr **tb,
			  struct ctl_error *err, unsigned depth);

static int validate_cb(const struct nlattr *a, void *data)
{
	struct vctx *c = data;
	uint16_t type = mnl_attr_get_type(a);
	uint16_t len = mnl_attr_get_payload_len(a);
	const struct ctl_pol *p;
	char path[160];

	c->end = (const char *)a + MNL_ALIGN(a->nla_len);
	if (type > c->level->max || c->level->pol[type].type == MNL_TYPE_UNSPEC)
		return MNL_CB_OK; /* unknown here: ignored, as newer peers may send more */
	p = &c->level->pol[type];
	snprintf(path, sizeof(path), "%s%s%s", c->path, *c->path ? "." : "", p->name);
	if (p->type < MNL_TYPE_MAX && type_len[p->type] && len != type_len[p->type]) {
		fail(c->err, -EINVAL, a, "%s: length %u, want %u", path, len, type_len[p->type]);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_BINARY && p->len && len != p->len) {
		fail(c->err, -EINVAL, a, "%s: length %u, want %u", path, len, p->len);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_NUL_STRING && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0) {
		fail(c->err, -EINVAL, a, "%s: not a NUL-terminated string", path);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_NESTED &&
	    validate_level(p->nest, a, NULL, path, NULL, c->err, c->depth + 1) < 0)
		return MNL_CB_ERROR;
	if (c->tb)
		c->tb[type] = a;
	return MNL_CB_OK;
}

/*
 * Validate the attributes of a nest (nest != NULL) or of a message after its nfgenmsg. Every
 * byte must belong to a well-formed attribute: libmnl's walk stops at the first one that is
 * not, which we report instead of ignoring what follows.
 */
static int validate_level(const struct ctl_level *lv, const struct nlattr *nest,
			  const struct nlmsghdr *nlh, const char *path, const struct nlattr **tb,
			  struct ctl_error *err, unsigned depth)
{
	struct vctx c = { .level = lv, .tb = tb, .path = path, .err = err, .depth = depth };
	const char *start, *stop;
	int r;

	if (tb)
		memset(tb, 0, (lv->max + 1u) * sizeof(*tb));
	if (nest) {
		start = mnl_attr_get_payload(nest);
		stop = start + mnl_attr_get_payload_len(nest);
		r = mnl_attr_parse_nested(nest, validate_cb, &c);
	} else {
		start = (const char *)mnl_nlmsg_get_payload_offset(nlh, sizeof(struct nfgenmsg));
		stop = (const char *)nlh + nlh->nlmsg_len;
		r = mnl_attr_parse(nlh, sizeof(struct nfgenmsg), validate_cb, &c);
	}
	if (r < 0)
		return err->code;
	if (!c.end)
		c.end = start;
	if (c.end < stop)
		return fail(err, -EINVAL, (const struct nlattr *)c.end,
			    "%s%sattribute at byte %td: bad length", path, *path ? ": " : "",
			    c.end - (const char *)start);
	return 0;
}

/* ---- tuples ------------------------------------------------------------------------------ */

static bool proto_has_ports(uint8_t p)
{
	return p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_UDPLITE || p == IPPROTO_SCTP ||
	       p == IPPROTO_DCCP || p == IPPROTO_GRE;
}

bool ctl_tuple_complete(const struct ctl_tuple *t)
{
	const uint32_t base = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO;
	uint8_t p = t->t.l4proto;

	if ((t->have & base) != base)
		return false;
	if (proto_has_ports(p))
		return (t->have & (CTL_T_SPORT | CTL_T_DPORT)) == (CTL_T_SPORT | CTL_T_DPORT);
	if (p == IPPROTO_ICMP || p == IPPROTO_ICMPV6)
		return (t->have & (CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE)) ==
		       (CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE);
	return true;
}

static int decode_ip(const struct nlattr *nest, struct ctl_tuple *t, uint8_t family,
		     const char *path, struct ctl_error *err)
{
	const struct nlattr *tb[CTA_IP_MAX + 1];
	const struct nlattr *first = NULL;

	validate_level(&ip_level, nest, NULL, path, tb, err, 0);
	for (int i = CTA_IP_V4_SRC; i <= CTA_IP_V6_DST; i++) {
		uint8_t f = i <= CTA_IP_V4_DST ? AF_INET : AF_INET6;
		bool src = i == CTA_IP_V4_SRC || i == CTA_IP_V6_SRC;

		if (!tb[i])
			continue;
		if ((t->t.family && t->t.family != f) || (family && family != f))
			return fail(err, -EINVAL, tb[i], "%s.%s: address family differs from %s",
				    path, ip_pol[i].name,
				    first ? "the other address" : "the message's");
		first = tb[i];
		t->t.family = f;
		memcpy(src ? &t->t.src : &t->t.dst, mnl_attr_get_payload(tb[i]),
		       f == AF_INET ? 4 : 16);
		t->have |= src ? CTL_T_SRC : CTL_T_DST;
	}
	return 0;
}

static int decode_proto(const struct nlattr *nest, struct ctl_tuple *t, const char *path,
			struct ctl_error *err)
{
	const struct nlattr *tb[CTA_PROTO_MAX + 1];
	uint8_t p;

	validate_level(&proto_level, nest, NULL, path, tb, err, 0);
	if (!tb[CTA_PROTO_NUM])
		return missing(err, CTA_PROTO_NUM, nest, "CTA_PROTO_NUM");
	p = mnl_attr_get_u8(tb[CTA_PROTO_NUM]);
	t->t.l4proto = p;
	t->have |= CTL_T_PROTO;
	for (int i = CTA_PROTO_SRC_PORT; i <= CTA_PROTO_ICMPV6_CODE; i++) {
		bool icmp4 = i >= CTA_PROTO_ICMP_ID && i <= CTA_PROTO_ICMP_CODE;
		bool icmp6 = i >= CTA_PROTO_ICMPV6_ID;
		bool ok = icmp4 ? p == IPPROTO_ICMP : icmp6 ? p == IPPROTO_ICMPV6 : proto_has_ports(p);

		if (!tb[i])
			continue;
		if (!ok)
			return fail(err, -EINVAL, tb[i], "%s.%s: not for protocol %u", path,
				    proto_pol[i].name, p);
		switch (i) {
		case CTA_PROTO_SRC_PORT:
		case CTA_PROTO_ICMP_ID:
		case CTA_PROTO_ICMPV6_ID:
			t->t.s.port = ntohs(mnl_attr_get_u16(tb[i]));
			t->have |= CTL_T_SPORT;
			break;
		case CTA_PROTO_DST_PORT:
			t->t.d.port = ntohs(mnl_attr_get_u16(tb[i]));
			t->have |= CTL_T_DPORT;
			break;
		case CTA_PROTO_ICMP_TYPE:
		case CTA_PROTO_ICMPV6_TYPE:
			t->t.d.icmp.type = mnl_attr_get_u8(tb[i]);
			t->have |= CTL_T_ICMP_TYPE;
			break;
		default:
			t->t.d.icmp.code = mnl_attr_get_u8(tb[i]);
			t->have |= CTL_T_ICMP_CODE;
			break;
		}
	}
	return 0;
}

static int decode_tuple(const struct nlattr *nest, struct ctl_tuple *t, uint8_t family,
			const char *name, struct ctl_error *err)
{
	const struct nlattr *tb[CTA_TUPLE_MAX + 1];
	char path[96];
	int r;

	memset(t, 0, sizeof(*t));
	validate_level(&tuple_level, nest, NULL, name, tb, err, 0);
	if (tb[CTA_TUPLE_IP]) {
		snprintf(path, sizeof(path), "%s.CTA_TUPLE_IP", name);
		if ((r = decode_ip(tb[CTA_TUPLE_IP], t, family, path, err)) < 0)
			return r;
	}
	if (tb[CTA_TUPLE_PROTO]) {
		snprintf(path, sizeof(path), "%s.CTA_TUPLE_PROTO", name);
		if ((r = decode_proto(tb[CTA_TUPLE_PROTO], t, path, err)) < 0)
			return r;
	}
	if (tb[CTA_TUPLE_ZONE]) {
		t->t.zone = ntohs(mnl_attr_get_u16(tb[CTA_TUPLE_ZONE]));
		t->have |= CTL_T_ZONE;
	}
	return 0;
}

int ctl_put_tuple(struct nlmsghdr *nlh, size_t room, uint16_t type, const struct ctl_tuple *t)
{
	struct nlattr *outer, *n;
	bool v4 = t->t.family == AF_INET;
	unsigned alen = v4 ? 4 : 16;
	uint8_t p = t->t.l4proto;

	if (!(outer = mnl_attr_nest_start_check(nlh, room, type)))
		return -EMSGSIZE;
	if (t->have & (CTL_T_SRC | CTL_T_DST)) {
		if (!(n = mnl_attr_nest_start_check(nlh, room, CTA_TUPLE_IP)))
			goto full;
		if ((t->have & CTL_T_SRC) &&
		    !mnl_attr_put_check(nlh, room, v4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, alen, &t->t.src))
			goto full;
		if ((t->have & CTL_T_DST) &&
		    !mnl_attr_put_check(nlh, room, v4 ? CTA_IP_V4_DST : CTA_IP_V6_DST, alen, &t->t.dst))
			goto full;
		mnl_attr_nest_end(nlh, n);
	}
	if (t->have & CTL_T_PROTO) {
		bool i4 = p == IPPROTO_ICMP, i6 = p == IPPROTO_ICMPV6;

		if (!(n = mnl_attr_nest_start_check(nlh, room, CTA_TUPLE_PROTO)) ||
		    !mnl_attr_put_u8_check(nlh, room, CTA_PROTO_NUM, p))
			goto full;
		if (i4 || i6) {
			if ((t->have & CTL_T_SPORT) &&
			    !mnl_attr_put_u16_check(nlh, room,
						    i4 ? CTA_PROTO_ICMP_ID : CTA_PROTO_ICMPV6_ID,
						    htons(t->t.s.icmp_id)))
				goto full;
			if ((t->have & CTL_T_ICMP_TYPE) &&
			    !mnl_attr_put_u8_check(nlh, room,
						   i4 ? CTA_PROTO_ICMP_TYPE : CTA_PROTO_ICMPV6_TYPE,
						   t->t.d.icmp.type))
				goto full;
			if ((t->have & CTL_T_ICMP_CODE) &&
			    !mnl_attr_put_u8_check(nlh, room,
						   i4 ? CTA_PROTO_ICMP_CODE : CTA_PROTO_ICMPV6_CODE,
						   t->t.d.icmp.code))
				goto full;
		} else if (proto_has_ports(p)) {
			if ((t->have & CTL_T_SPORT) &&
			    !mnl_attr_put_u16_check(nlh, room, CTA_PROTO_SRC_PORT, htons(t->t.s.port)))
				goto full;
			if ((t->have & CTL_T_DPORT) &&
			    !mnl_attr_put_u16_check(nlh, room, CTA_PROTO_DST_PORT, htons(t->t.d.port)))
				goto full;
		}
		mnl_attr_nest_end(nlh, n);
	}
	if ((t->have & CTL_T_ZONE) &&
	    !mnl_attr_put_u16_check(nlh, room, CTA_TUPLE_ZONE, htons(t->t.zone)))
		goto full;
	mnl_attr_nest_end(nlh, outer);
	return 0;
full:
	mnl_attr_nest_cancel(nlh, outer);
	return -EMSGSIZE;
}

/* The `have` bits of a complete tuple of this protocol (what an entry's tuple carries). */
static uint32_t full_have(const struct ct_tuple *t)
{
	uint32_t h = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO;

	if (proto_has_ports(t->l4proto))
		h |= CTL_T_SPORT | CTL_T_DPORT;
	else if (t->l4proto == IPPROTO_ICMP || t->l4proto == IPPROTO_ICMPV6)
		h |= CTL_T_SPORT | CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE;
	if (t->zone) /* a zoned tuple says so (CTA_TUPLE_ZONE); absent means zone 0 */
		h |= CTL_T_ZONE;
	return h;
}

/* ---- protocol states --------------------------------------------------------------------- */

/* The trackers' state names, in the kernel's numbering (the CTA_PROTOINFO_*_STATE values). */
static const char *const tcp_states[] = {
	"NONE",	    "SYN_SENT", "SYN_RECV",  "ESTABLISHED", "FIN_WAIT",
	"CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",	    "SYN_SENT2",
};
static const char *const sctp_states[] = {
	"NONE",		 "CLOSED",	  "COOKIE_WAIT",       "COOKIE_ECHOED",	 "ESTABLISHED",
	"SHUTDOWN_SENT", "SHUTDOWN_RECD", "SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT",
};
static const char *const dccp_states[] = {
	"NONE", "REQUEST", "RESPOND", "PARTOPEN", "OPEN", "CLOSEREQ", "CLOSING", "TIMEWAIT",
};

struct proto_desc {
	uint8_t num;
	const char *name;
	const char *const *states;
	unsigned nstates;
	uint16_t info_attr; /* CTA_PROTOINFO_TCP ... */
};

#define STATES(a) a, sizeof(a) / sizeof(a[0])
static const struct proto_desc protos[] = {
	{ IPPROTO_TCP, "tcp", STATES(tcp_states), CTA_PROTOINFO_TCP },
	{ IPPROTO_UDP, "udp", NULL, 0, 0 },
	{ IPPROTO_ICMP, "icmp", NULL, 0, 0 },
	{ IPPROTO_ICMPV6, "icmpv6", NULL, 0, 0 },
	{ IPPROTO_UDPLITE, "udplite", NULL, 0, 0 },
	{ IPPROTO_SCTP, "sctp", STATES(sctp_states), CTA_PROTOINFO_SCTP },
	{ IPPROTO_DCCP, "dccp", STATES(dccp_states), CTA_PROTOINFO_DCCP },
	{ IPPROTO_GRE, "gre", NULL, 0, 0 },
};
static const struct proto_desc generic = { 0, "unknown", NULL, 0, 0 };

static const struct proto_desc *proto_desc(uint8_t num)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].num == num)
			return &protos[i];
	return &generic;
}

/* ---- entries ----------------------------------------------------------------------------- */

/*
 * The IPS_* NAT bits of an entry, from its NAT binding: IPS_SRC_NAT when the binding changes the
 * source, IPS_DST_NAT the destination, each with its _DONE bit (libnetfilter_conntrack's
 * "is SNAT" needs both). Unlike the kernel, which sets the _DONE bits of every connection that
 * passed a NAT hook (null bindings included), a box sets them only with a translation.
 */
static uint32_t ctl_nat_status(unsigned nat)
{
	uint32_t st = 0;

	if (nat & NAT_STATUS_SRC)
		st |= CTL_IPS_SRC_NAT | CTL_IPS_SRC_NAT_DONE;
	if (nat & NAT_STATUS_DST)
		st |= CTL_IPS_DST_NAT | CTL_IPS_DST_NAT_DONE;
	return st;
}

void ctl_ct_from_entry(struct ctl_ct *c, const struct ct_entry *e, uint64_t now)
{
	struct ct_labels labels;
	const struct proto_desc *pd;
	const char *st;

	memset(c, 0, sizeof(*c));
	c->orig = *ct_entry_tuple(e, CT_DIR_ORIGINAL);
	c->reply = *ct_entry_tuple(e, CT_DIR_REPLY);
	c->status = ct_entry_status(e) | ctl_nat_status(nat_entry_status(e));
	c->timeout = (uint32_t)(ct_entry_expires_in(e, now) / CT_SEC);
	c->mark = ct_entry_mark(e);
	c->use = ct_entry_use(e);
	c->id = (uint32_t)ct_entry_id(e);
	c->zone = ct_entry_zone(e);
	c->have = CTL_C_ORIG | CTL_C_REPLY | CTL_C_STATUS | CTL_C_TIMEOUT | CTL_C_MARK | CTL_C_USE |
		  CTL_C_ID;
	if (c->zone)
		c->have |= CTL_C_ZONE;
	pd = proto_desc(c->orig.l4proto);
	if (pd->states && (st = ct_entry_proto_state(e))) {
		for (unsigned i = 0; i < pd->nstates; i++)
			if (!strcmp(pd->states[i], st)) {
				c->proto_state = (uint8_t)i;
				c->have |= CTL_C_PROTOINFO;
			}
	}
	if (ct_entry_helper(e)) {
		snprintf(c->helper, sizeof(c->helper), "%s", ct_entry_helper(e)->name);
		c->have |= CTL_C_HELPER;
	}
	if (ct_entry_counters(e, CT_DIR_ORIGINAL, &c->packets[0], &c->bytes[0]))
		c->have |= CTL_C_COUNTERS_ORIG;
	if (ct_entry_counters(e, CT_DIR_REPLY, &c->packets[1], &c->bytes[1]))
		c->have |= CTL_C_COUNTERS_REPLY;
	if (ct_entry_tstamp(e, &c->ts_start, &c->ts_stop)) {
		c->ts_now = now;
		c->have |= CTL_C_TSTAMP;
	}
	if (ct_entry_labels(e, &labels) &&
	    (labels.words[0] | labels.words[1] | labels.words[2] | labels.words[3])) {
		memcpy(c->labels, labels.words, sizeof(c->labels)); /* as ctnetlink: when any */
		c->have |= CTL_C_LABELS;
	}
}

static int put_tstamp(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTA_TIMESTAMP);

	if (!n || !mnl_attr_put_u64_check(nlh, room, CTA_TIMESTAMP_START, htobe64(c->ts_start)) ||
	    (c->ts_stop &&
	     !mnl_attr_put_u64_check(nlh, room, CTA_TIMESTAMP_STOP, htobe64(c->ts_stop))) ||
	    !mnl_attr_put_u64_check(nlh, room, CTL_TS_NOW, htobe64(c->ts_now))) {
		if (n)
			mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,        \
				  __VA_ARGS__);                                                    \
		if (n_ > 0)                                                                        \
			off += (size_t)n_;                                                         \
	} while (0)

/* ct_entry_format's line from the decoded attributes (the dump test compares them). */
int ctl_ct_format(const struct ctl_ct *c, char *buf, size_t len)
{
	return ctl_ct_format_flags(c, 0, buf, len);
}

/* libnetfilter_conntrack's default output: the "ipv4     2 " of -o extended, the id= of
 * -o id, and in events no use= (ctnetlink events carry no CTA_USE). */
int ctl_ct_format_flags(const struct ctl_ct *c, unsigned flags, char *buf, size_t len)
{
	const struct proto_desc *pd = proto_desc(c->orig.l4proto);
	size_t off = 0;
	char tb[160];

	if (len)
		buf[0] = '\0';
	if (flags & CTL_FMT_EXTENDED)
		OUT("%-8s %u ", c->orig.family == AF_INET6 ? "ipv6" : "ipv4", c->orig.family);
	OUT("%-8s %u %u ", pd->name, c->orig.l4proto, c->timeout);
	if (pd->states && (c->have & CTL_C_PROTOINFO))
		OUT("%s ", c->proto_state < pd->nstates ? pd->states[c->proto_state] : "?");
	OUT("%s ", ct_tuple_str(&c->orig, tb, sizeof(tb)));
	if (c->have & CTL_C_COUNTERS_ORIG)
		OUT("packets=%llu bytes=%llu ", (unsigned long long)c->packets[0],
		    (unsigned long long)c->bytes[0]);
	if (!(c->status & CT_S_SEEN_REPLY))
		OUT("[UNREPLIED] ");
	OUT("%s ", ct_tuple_str(&c->reply, tb, sizeof(tb)));
	if (c->have & CTL_C_COUNTERS_REPLY)
		OUT("packets=%llu bytes=%llu ", (unsigned long long)c->packets[1],
		    (unsigned long long)c->bytes[1]);
	if (c->status & CT_S_ASSURED)
		OUT("[ASSURED] ");
	OUT("mark=%u", c->mark);
	if (c->zone)
		OUT(" zone=%u", c->zone);
	if (c->have & CTL_C_HELPER)
		OUT(" helper=%s", c->helper);
	if (!(flags & CTL_FMT_EVENT))
		OUT(" use=%u", c->use);
	if ((flags & CTL_FMT_ID) && (c->have & CTL_C_ID))
		OUT(" id=%u", c->id);
	return (int)off;
}

static int put_counters(struct nlmsghdr *nlh, size_t room, uint16_t type, uint64_t packets,
			uint64_t bytes)
{
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, type);

	if (!n)
		return -EMSGSIZE;
	if (!mnl_attr_put_u64_check(nlh, room, CTA_COUNTERS_PACKETS, htobe64(packets)) ||
	    !mnl_attr_put_u64_check(nlh, room, CTA_COUNTERS_BYTES, htobe64(bytes))) {
		mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static int put_protoinfo(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	const struct proto_desc *pd = proto_desc(c->orig.l4proto);
	struct nlattr *n, *m;

	if (!pd->info_attr)
		return 0;
	if (!(n = mnl_attr_nest_start_check(nlh, room, CTA_PROTOINFO)))
		return -EMSGSIZE;
	if (!(m = mnl_attr_nest_start_check(nlh, room, pd->info_attr)) ||
	    !mnl_attr_put_u8_check(nlh, room, 1 /* CTA_PROTOINFO_*_STATE */, c->proto_state)) {
		mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, m);
	mnl_attr_nest_end(nlh, n);
	return 0;
}

int ctl_put_ct(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	uint32_t len0 = nlh->nlmsg_len;
	struct ctl_tuple t;
	bool ok = true;

	if (c->have & CTL_C_ORIG) {
		t.t = c->orig;
		t.have = full_have(&c->orig);
		ok = ok && !ctl_put_tuple(nlh, room, CTA_TUPLE_ORIG, &t);
	}
	if (c->have & CTL_C_REPLY) {
		t.t = c->reply;
		t.have = full_have(&c->reply);
		ok = ok && !ctl_put_tuple(nlh, room, CTA_TUPLE_REPLY, &t);
	}
	if (c->have & CTL_C_STATUS)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_STATUS, htonl(c->status));
	if (c->have & CTL_C_PROTOINFO)
		ok = ok && !put_protoinfo(nlh, room, c);
	if (c->have & CTL_C_TIMEOUT)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_TIMEOUT, htonl(c->timeout));
	if (c->have & CTL_C_MARK)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_MARK, htonl(c->mark));
	if (c->have & CTL_C_COUNTERS_ORIG)
		ok = ok && !put_counters(nlh, room, CTA_COUNTERS_ORIG, c->packets[0], c->bytes[0]);
	if (c->have & CTL_C_COUNTERS_REPLY)
		ok = ok && !put_counters(nlh, room, CTA_COUNTERS_REPLY, c->packets[1], c->bytes[1]);
	if (c->have & CTL_C_USE)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_USE, htonl(c->use));
	if (c->have & CTL_C_ID)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_ID, htonl(c->id));
	if (c->have & CTL_C_ZONE)
		ok = ok && mnl_attr_put_u16_check(nlh, room, CTA_ZONE, htons(c->zone));
	if (c->have & CTL_C_MARK_MASK)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_MARK_MASK, htonl(c->mark_mask));
	if (c->have & CTL_C_TSTAMP)
		ok = ok && !put_tstamp(nlh, room, c);
	if (c->have & CTL_C_LABELS)
		ok = ok && mnl_attr_put_check(nlh, room, CTA_LABELS, sizeof(c->labels), c->labels);
	if (c->have & CTL_C_LABELS_MASK)
		ok = ok && mnl_attr_put_check(nlh, room, CTA_LABELS_MASK, sizeof(c->labels_mask),
					      c->labels_mask);
	if (ok && (c->have & CTL_C_HELPER)) {
		struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTA_HELP);

		ok = n && mnl_attr_put_strz_check(nlh, room, CTA_HELP_NAME, c->helper);
		if (ok)
			mnl_attr_nest_end(nlh, n);
	}
	if (!ok) {
		nlh->nlmsg_len = len0;
		return -EMSGSIZE;
	}
	return 0;
}

static uint64_t get_be64(const struct nlattr *a)
{
	return be64toh(mnl_attr_get_u64(a));
}

static int decode_ct(const struct nlattr *const *tb, uint8_t family, struct ctl_ct *c,
		     struct ctl_error *err)
{
	struct ctl_tuple t;
	int r;

	memset(c, 0, sizeof(*c));
	if (tb[CTA_TUPLE_ORIG]) {
		if ((r = decode_tuple(tb[CTA_TUPLE_ORIG], &t, family, "CTA_TUPLE_ORIG", err)) < 0)
			return r;
		c->orig = t.t;
		if (ctl_tuple_complete(&t))
			c->have |= CTL_C_ORIG;
		else
			return fail(err, -EINVAL, tb[CTA_TUPLE_ORIG], "CTA_TUPLE_ORIG: incomplete");
	}
	if (tb[CTA_TUPLE_REPLY]) {
		if ((r = decode_tuple(tb[CTA_TUPLE_REPLY], &t, family, "CTA_TUPLE_REPLY", err)) < 0)
			return r;
		c->reply = t.t;
		if (ctl_tuple_complete(&t))
			c->have |= CTL_C_REPLY;
		else
			return fail(err, -EINVAL, tb[CTA_TUPLE_REPLY],
				    "CTA_TUPLE_REPLY: incomplete");
	}
	if (tb[CTA_STATUS]) {
		c->status = ntohl(mnl_attr_get_u32(tb[CTA_STATUS]));
		c->have |= CTL_C_STATUS;
	}
	if (tb[CTA_TIMEOUT]) {
		c->timeout = ntohl(mnl_attr_get_u32(tb[CTA_TIMEOUT]));
		c->have |= CTL_C_TIMEOUT;
	}
	if (tb[CTA_MARK]) {
		c->mark = ntohl(mnl_attr_get_u32(tb[CTA_MARK]));
		c->have |= CTL_C_MARK;
	}
	if (tb[CTA_USE]) {
		c->use = ntohl(mnl_attr_get_u32(tb[CTA_USE]));
		c->have |= CTL_C_USE;
	}
	if (tb[CTA_ID]) {
		c->id = ntohl(mnl_attr_get_u32(tb[CTA_ID]));
		c->have |= CTL_C_ID;
	}
	if (tb[CTA_ZONE]) {
		c->zone = ntohs(mnl_attr_get_u16(tb[CTA_ZONE]));
		c->have |= CTL_C_ZONE;
	}
	if (tb[CTA_MARK_MASK]) {
		c->mark_mask = ntohl(mnl_attr_get_u32(tb[CTA_MARK_MASK]));
		c->have |= CTL_C_MARK_MASK;
	}
	if (tb[CTA_HELP]) {
		const struct nlattr *hb[CTA_HELP_MAX + 1];

		validate_level(&help_level, tb[CTA_HELP], NULL, "", hb, err, 0);
		if (hb[CTA_HELP_NAME]) {
			snprintf(c->helper, sizeof(c->helper), "%s",
				 mnl_attr_get_str(hb[CTA_HELP_NAME]));
			c->have |= CTL_C_HELPER;
		}
	}
	/* a zone is part of the tuple: from CTA_ZONE unless the tuple named its own */
	if (c->have & CTL_C_ZONE) {
		c->orig.zone = c->orig.zone ? c->orig.zone : c->zone;
		c->reply.zone = c->reply.zone ? c->reply.zone : c->zone;
	}
	if (tb[CTA_PROTOINFO]) {
		const struct nlattr *pi[CTA_PROTOINFO_MAX + 1];

		validate_level(&protoinfo_level, tb[CTA_PROTOINFO], NULL, "", pi, err, 0);
		for (int i = CTA_PROTOINFO_TCP; i <= CTA_PROTOINFO_SCTP; i++) {
			const struct nlattr *st[CTA_PROTOINFO_TCP_MAX + 1];
			const struct ctl_level *lv = protoinfo_pol[i].nest;

			if (!pi[i])
				continue;
			/* every protocol's STATE is number 1 and a u8; its table has room for it */
			validate_level(lv, pi[i], NULL, "", st, err, 0);
			if (st[1]) {
				c->proto_state = mnl_attr_get_u8(st[1]);
				c->have |= CTL_C_PROTOINFO;
			}
		}
	}
	if (tb[CTA_LABELS]) {
		memcpy(c->labels, mnl_attr_get_payload(tb[CTA_LABELS]), sizeof(c->labels));
		c->have |= CTL_C_LABELS;
	}
	if (tb[CTA_LABELS_MASK]) {
		memcpy(c->labels_mask, mnl_attr_get_payload(tb[CTA_LABELS_MASK]),
		       sizeof(c->labels_mask));
		c->have |= CTL_C_LABELS_MASK;
	}
	if (tb[CTA_TIMESTAMP]) {
		const struct nlattr *ts[CTL_TS_NOW + 1];

		validate_level(&tstamp_level, tb[CTA_TIMESTAMP], NULL, "", ts, err, 0);
		c->ts_start = ts[CTA_TIMESTAMP_START] ? get_be64(ts[CTA_TIMESTAMP_START]) : 0;
		c->ts_stop = ts[CTA_TIMESTAMP_STOP] ? get_be64(ts[CTA_TIMESTAMP_STOP]) : 0;
		c->ts_now = ts[CTL_TS_NOW] ? get_be64(ts[CTL_TS_NOW]) : 0;
		c->have |= CTL_C_TSTAMP;
	}
	for (int d = 0; d < 2; d++) {
		const struct nlattr *a = tb[d ? CTA_COUNTERS_REPLY : CTA_COUNTERS_ORIG];
		const struct nlattr *ctb[CTA_COUNTERS_MAX + 1];

		if (!a)
			continue;
		validate_level(&counters_level, a, NULL, "", ctb, err, 0);
		if (ctb[CTA_COUNTERS_PACKETS])
			c->packets[d] = get_be64(ctb[CTA_COUNTERS_PACKETS]);
		if (ctb[CTA_COUNTERS_BYTES])
			c->bytes[d] = get_be64(ctb[CTA_COUNTERS_BYTES]);
		c->have |= d ? CTL_C_COUNTERS_REPLY : CTL_C_COUNTERS_ORIG;
	}
	return 0;
}

/* ---- expectations ------------------------------------------------------------------------ */

void ctl_exp_from_expect(struct ctl_exp *x, const struct ct_expect *e, uint64_t now)
{
	const struct ct_helper *h = ct_entry_helper(e->master);
	bool v4 = e->tuple.family == AF_INET;

	memset(x, 0, sizeof(*x));
	x->master.t = *ct_entry_tuple(e->master, CT_DIR_ORIGINAL);
	x->master.have = full_have(&x->master.t);
	x->tuple.t = e->tuple;
	x->tuple.have = full_have(&e->tuple);
	/* the mask as ctnetlink sends it: the tuple's protocol, the destination half all ones */
	ct_tuple_zero(&x->mask.t);
	x->mask.t.family = e->tuple.family;
	x->mask.t.l4proto = e->tuple.l4proto;
	x->mask.t.src = e->mask_src;
	memset(&x->mask.t.dst, 0xff, v4 ? 4 : 16);
	x->mask.t.s.all = e->mask_sport;
	x->mask.t.d.all = 0xffff;
	x->mask.have = (full_have(&x->mask.t) & ~CTL_T_ZONE);
	x->timeout = (uint32_t)(e->expires > now ? (e->expires - now) / CT_SEC : 0);
	x->id = (uint32_t)e->id;
	x->flags = e->flags;
	x->class = e->class;
	x->zone = e->tuple.zone;
	x->have = CTL_X_MASTER | CTL_X_TUPLE | CTL_X_MASK | CTL_X_TIMEOUT | CTL_X_ID |
		  CTL_X_FLAGS | CTL_X_CLASS | (x->zone ? CTL_X_ZONE : 0);
	if (h) {
		snprintf(x->helper, sizeof(x->helper), "%s", h->name);
		x->have |= CTL_X_HELPER;
	}
}

int ctl_exp_format(const struct ctl_exp *x, char *buf, size_t len)
{
	const struct ct_tuple *mt = &x->master.t;
	char tu[160], ms[64], md[64], msrc[64], mdst[64];

	ct_tuple_str(&x->tuple.t, tu, sizeof(tu));
	pt_addr_str(x->tuple.t.family, &x->mask.t.src, ms, sizeof(ms));
	pt_addr_str(x->tuple.t.family, &x->mask.t.dst, md, sizeof(md));
	pt_addr_str(mt->family, &mt->src, msrc, sizeof(msrc));
	pt_addr_str(mt->family, &mt->dst, mdst, sizeof(mdst));
	return snprintf(buf, len,
			"%u proto=%u %s mask-src=%s mask-dst=%s sport=%u dport=%u "
			"master-src=%s master-dst=%s sport=%u dport=%u%s%s class=%u%s%s",
			x->timeout, x->tuple.t.l4proto, tu, ms, md, x->mask.t.s.all,
			x->mask.t.d.all, msrc, mdst, mt->s.port, mt->d.port,
			(x->flags & CT_EXPECT_PERMANENT) ? " PERMANENT" : "",
			(x->flags & CT_EXPECT_INACTIVE) ? " INACTIVE" : "", x->class,
			(x->have & CTL_X_HELPER) ? " helper=" : "",
			(x->have & CTL_X_HELPER) ? x->helper : "");
}

int ctl_put_exp(struct nlmsghdr *nlh, size_t room, const struct ctl_exp *x)
{
	uint32_t len0 = nlh->nlmsg_len;
	bool ok = true;

	if (x->have & CTL_X_MASTER)
		ok = !ctl_put_tuple(nlh, room, CTA_EXPECT_MASTER, &x->master);
	if (ok && (x->have & CTL_X_TUPLE))
		ok = !ctl_put_tuple(nlh, room, CTA_EXPECT_TUPLE, &x->tuple);
	if (ok && (x->have & CTL_X_MASK))
		ok = !ctl_put_tuple(nlh, room, CTA_EXPECT_MASK, &x->mask);
	if (ok && (x->have & CTL_X_TIMEOUT))
		ok = mnl_attr_put_u32_check(nlh, room, CTA_EXPECT_TIMEOUT, htonl(x->timeout));
	if (ok && (x->have & CTL_X_ID))
		ok = mnl_attr_put_u32_check(nlh, room, CTA_EXPECT_ID, htonl(x->id));
	if (ok && (x->have & CTL_X_HELPER))
		ok = mnl_attr_put_strz_check(nlh, room, CTA_EXPECT_HELP_NAME, x->helper);
	if (ok && (x->have & CTL_X_ZONE))
		ok = mnl_attr_put_u16_check(nlh, room, CTA_EXPECT_ZONE, htons(x->zone));
	if (ok && (x->have & CTL_X_FLAGS))
		ok = mnl_attr_put_u32_check(nlh, room, CTA_EXPECT_FLAGS, htonl(x->flags));
	if (ok && (x->have & CTL_X_CLASS))
		ok = mnl_attr_put_u32_check(nlh, room, CTA_EXPECT_CLASS, htonl(x->class));
	if (!ok) {
		nlh->nlmsg_len = len0;
		return -EMSGSIZE;
	}
	return 0;
}

static int decode_exp(const struct nlattr *const *tb, uint8_t family, struct ctl_exp *x,
		      struct ctl_error *err)
{
	static const struct {
		uint16_t type;
		uint32_t bit;
		const char *name;
		size_t off;
	} tuples[] = {
		{ CTA_EXPECT_MASTER, CTL_X_MASTER, "CTA_EXPECT_MASTER", offsetof(struct ctl_exp, master) },
		{ CTA_EXPECT_TUPLE, CTL_X_TUPLE, "CTA_EXPECT_TUPLE", offsetof(struct ctl_exp, tuple) },
		{ CTA_EXPECT_MASK, CTL_X_MASK, "CTA_EXPECT_MASK", offsetof(struct ctl_exp, mask) },
	};
	int r;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < sizeof(tuples) / sizeof(tuples[0]); i++) {
		struct ctl_tuple *t = (struct ctl_tuple *)((char *)x + tuples[i].off);

		if (!tb[tuples[i].type])
			continue;
		if ((r = decode_tuple(tb[tuples[i].type], t, family, tuples[i].name, err)) < 0)
			return r;
		/* master and tuple name connections; the mask may be partial */
		if (tuples[i].type != CTA_EXPECT_MASK && !ctl_tuple_complete(t))
			return fail(err, -EINVAL, tb[tuples[i].type], "%s: incomplete",
				    tuples[i].name);
		x->have |= tuples[i].bit;
	}
#define U32(a, f, bit)                                                                             \
	do {                                                                                       \
		if (tb[a]) {                                                                       \
			x->f = ntohl(mnl_attr_get_u32(tb[a]));                                     \
			x->have |= bit;                                                            \
		}                                                                                  \
	} while (0)
	U32(CTA_EXPECT_TIMEOUT, timeout, CTL_X_TIMEOUT);
	U32(CTA_EXPECT_ID, id, CTL_X_ID);
	U32(CTA_EXPECT_FLAGS, flags, CTL_X_FLAGS);
	U32(CTA_EXPECT_CLASS, class, CTL_X_CLASS);
#undef U32
	if (tb[CTA_EXPECT_ZONE]) {
		x->zone = ntohs(mnl_attr_get_u16(tb[CTA_EXPECT_ZONE]));
		x->have |= CTL_X_ZONE;
	}
	if (tb[CTA_EXPECT_HELP_NAME]) {
		snprintf(x->helper, sizeof(x->helper), "%s", mnl_attr_get_str(tb[CTA_EXPECT_HELP_NAME]));
		x->have |= CTL_X_HELPER;
	}
	return 0;
}

static int decode_exp_request(const struct nlattr *const *tb, struct ctl_request *req,
			      struct ctl_error *err)
{
	int r;

	if ((r = decode_exp(tb, req->family, &req->exp, err)) < 0)
		return r;
	switch (CTL_MSG(req->type)) {
	case CTL_EXP_NEW:
		if (!(req->exp.have & CTL_X_MASTER))
			return missing(err, CTA_EXPECT_MASTER, NULL, "CTA_EXPECT_MASTER");
		/* fall through */
	case CTL_EXP_DELETE:
		if (!(req->exp.have & CTL_X_TUPLE))
			return missing(err, CTA_EXPECT_TUPLE, NULL, "CTA_EXPECT_TUPLE");
		break;
	case CTL_EXP_GET:
		if (!(req->flags & NLM_F_DUMP) && !(req->exp.have & CTL_X_TUPLE))
			return missing(err, CTA_EXPECT_TUPLE, NULL, "CTA_EXPECT_TUPLE (or NLM_F_DUMP)");
		break;
	}
	return 0;
}

/* ---- filters ----------------------------------------------------------------------------- */

int ctl_put_filter(struct nlmsghdr *nlh, size_t room, const struct ctl_filter *f)
{
	uint32_t len0 = nlh->nlmsg_len;
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTL_A_FILTER);
	bool ok = n != NULL;

	if (ok && f->orig.have)
		ok = !ctl_put_tuple(nlh, room, CTL_F_TUPLE_ORIG, &f->orig);
	if (ok && f->reply.have)
		ok = !ctl_put_tuple(nlh, room, CTL_F_TUPLE_REPLY, &f->reply);
	if (ok && (f->have & CTL_FH_MARK))
		ok = mnl_attr_put_u32_check(nlh, room, CTL_F_MARK, htonl(f->mark)) &&
		     mnl_attr_put_u32_check(nlh, room, CTL_F_MARK_MASK, htonl(f->mark_mask));
	if (ok && (f->have & CTL_FH_ZONE))
		ok = mnl_attr_put_u16_check(nlh, room, CTL_F_ZONE, htons(f->zone));
	if (ok && (f->have & CTL_FH_STATUS))
		ok = mnl_attr_put_u32_check(nlh, room, CTL_F_STATUS, htonl(f->status)) &&
		     mnl_attr_put_u32_check(nlh, room, CTL_F_STATUS_MASK, htonl(f->status_mask));
	if (!ok) {
		nlh->nlmsg_len = len0;
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static int decode_filter(const struct nlattr *nest, uint8_t family, struct ctl_filter *f,
			 struct ctl_error *err)
{
	const struct nlattr *tb[CTL_F_MAX + 1];
	int r;

	memset(f, 0, sizeof(*f));
	f->family = family;
	validate_level(&filter_level, nest, NULL, "CTL_A_FILTER", tb, err, 0);
	if (tb[CTL_F_TUPLE_ORIG] && (r = decode_tuple(tb[CTL_F_TUPLE_ORIG], &f->orig, family,
						      "CTL_A_FILTER.CTL_F_TUPLE_ORIG", err)) < 0)
		return r;
	if (tb[CTL_F_TUPLE_REPLY] && (r = decode_tuple(tb[CTL_F_TUPLE_REPLY], &f->reply, family,
						       "CTL_A_FILTER.CTL_F_TUPLE_REPLY", err)) < 0)
		return r;
	if (tb[CTL_F_MARK]) {
		f->have |= CTL_FH_MARK;
		f->mark = ntohl(mnl_attr_get_u32(tb[CTL_F_MARK]));
		f->mark_mask = tb[CTL_F_MARK_MASK] ? ntohl(mnl_attr_get_u32(tb[CTL_F_MARK_MASK]))
						   : 0xffffffffu;
	} else if (tb[CTL_F_MARK_MASK]) {
		return missing(err, CTL_F_MARK, nest, "CTL_A_FILTER.CTL_F_MARK (with its mask)");
	}
	if (tb[CTL_F_ZONE]) {
		f->have |= CTL_FH_ZONE;
		f->zone = ntohs(mnl_attr_get_u16(tb[CTL_F_ZONE]));
	}
	if (tb[CTL_F_STATUS]) {
		f->have |= CTL_FH_STATUS;
		f->status = ntohl(mnl_attr_get_u32(tb[CTL_F_STATUS]));
		f->status_mask = tb[CTL_F_STATUS_MASK]
					 ? ntohl(mnl_attr_get_u32(tb[CTL_F_STATUS_MASK]))
					 : f->status;
	}
	return 0;
}

static bool tuple_part_match(const struct ctl_tuple *p, const struct ct_tuple *t)
{
	size_t alen = t->family == AF_INET ? 4 : 16;

	if (p->have & (CTL_T_SRC | CTL_T_DST)) {
		if (p->t.family != t->family)
			return false;
		if ((p->have & CTL_T_SRC) && memcmp(&p->t.src, &t->src, alen))
			return false;
		if ((p->have & CTL_T_DST) && memcmp(&p->t.dst, &t->dst, alen))
			return false;
	}
	if ((p->have & CTL_T_PROTO) && p->t.l4proto != t->l4proto)
		return false;
	if ((p->have & CTL_T_SPORT) && p->t.s.all != t->s.all)
		return false;
	if ((p->have & CTL_T_DPORT) && p->t.d.port != t->d.port)
		return false;
	if ((p->have & CTL_T_ICMP_TYPE) && p->t.d.icmp.type != t->d.icmp.type)
		return false;
	if ((p->have & CTL_T_ICMP_CODE) && p->t.d.icmp.code != t->d.icmp.code)
		return false;
	if ((p->have & CTL_T_ZONE) && p->t.zone != t->zone)
		return false;
	return true;
}

bool ctl_filter_match(const struct ctl_filter *f, const struct ct_entry *e)
{
	const struct ct_tuple *o = ct_entry_tuple(e, CT_DIR_ORIGINAL);

	if (f->family && f->family != o->family)
		return false;
	if (!tuple_part_match(&f->orig, o) ||
	    !tuple_part_match(&f->reply, ct_entry_tuple(e, CT_DIR_REPLY)))
		return false;
	if ((f->have & CTL_FH_MARK) && (ct_entry_mark(e) & f->mark_mask) != f->mark)
		return false;
	if ((f->have & CTL_FH_ZONE) && ct_entry_zone(e) != f->zone)
		return false;
	if ((f->have & CTL_FH_STATUS) && (ct_entry_status(e) & f->status_mask) != f->status)
		return false;
	return true;
}

/* ---- messages ---------------------------------------------------------------------------- */

struct nlmsghdr *ctl_msg_start(void *buf, size_t room, uint16_t type, uint16_t flags, uint32_t seq,
			       uint8_t family, bool request)
{
	struct nlmsghdr *nlh;
	struct nfgenmsg *g;

	if (room < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*g)) + (request ? 8u : 0u))
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	g->res_id = 0;
	if (request)
		mnl_attr_put_u32(nlh, CTL_A_VERSION, htonl(CTL_VERSION));
	return nlh;
}

struct nlmsghdr *ctl_put_done(void *buf, size_t room, uint32_t seq)
{
	struct nlmsghdr *nlh;

	if (room < MNL_NLMSG_HDRLEN + sizeof(int))
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	*(int *)mnl_nlmsg_put_extra_header(nlh, sizeof(int)) = 0;
	return nlh;
}

int ctl_put_error(void *buf, size_t room, const struct nlmsghdr *req, const struct ctl_error *err)
{
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;
	bool tlvs = err && err->code && (err->msg[0] || err->attr || err->missing || err->line);

	if (room < MNL_NLMSG_HDRLEN + sizeof(*e))
		return -EMSGSIZE;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | (tlvs ? NLM_F_ACK_TLVS : 0);
	nlh->nlmsg_seq = req ? req->nlmsg_seq : 0;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err ? err->code : 0;
	if (req)
		e->msg = *req;
	if (!tlvs)
		return (int)nlh->nlmsg_len;
	/* extended-ack values are host order, as the kernel's */
	if (err->msg[0])
		mnl_attr_put_strz_check(nlh, room, NLMSGERR_ATTR_MSG, err->msg);
	if (err->attr && req)
		mnl_attr_put_u32_check(nlh, room, NLMSGERR_ATTR_OFFS,
				       (uint32_t)((const char *)err->attr - (const char *)req));
	if (err->missing) {
		mnl_attr_put_u32_check(nlh, room, NLMSGERR_ATTR_MISS_TYPE, err->missing);
		if (err->nest && req)
			mnl_attr_put_u32_check(nlh, room, NLMSGERR_ATTR_MISS_NEST,
					       (uint32_t)((const char *)err->nest -
							  (const char *)req));
	}
	if (err->line)
		mnl_attr_put_u32_check(nlh, room, CTL_ERRA_LINE, err->line);
	return (int)nlh->nlmsg_len;
}

int ctl_put_stats_cpu(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s)
{
	const struct {
		uint16_t type;
		uint64_t v;
	} v[] = {
		{ CTA_STATS_FOUND, s->found },
		{ CTA_STATS_NEW, s->new },
		{ CTA_STATS_INVALID, s->invalid },
		{ CTA_STATS_INSERT, s->insert },
		{ CTA_STATS_INSERT_FAILED, s->insert_failed },
		{ CTA_STATS_DROP, s->drop },
		{ CTA_STATS_EARLY_DROP, s->early_drop },
		{ CTA_STATS_ERROR, 0 },
		{ CTA_STATS_SEARCH_RESTART, s->search_restart },
		{ CTA_STATS_CLASH_RESOLVE, s->clash },
	};

	/* 32 bits on the wire, as ctnetlink's per-cpu counters */
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!mnl_attr_put_u32_check(nlh, room, v[i].type, htonl((uint32_t)v[i].v)))
			return -EMSGSIZE;
	if (!mnl_attr_put_u64_check(nlh, room, CTL_A_EVENTS_LOST, htobe64(s->events_lost)))
		return -EMSGSIZE;
	return 0;
}

int ctl_put_stats_global(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s)
{
	if (!mnl_attr_put_u32_check(nlh, room, CTA_STATS_GLOBAL_ENTRIES, htonl(s->entries)) ||
	    !mnl_attr_put_u32_check(nlh, room, CTA_STATS_GLOBAL_MAX_ENTRIES, htonl(s->max_entries)))
		return -EMSGSIZE;
	return 0;
}

const char *ctl_msg_name(uint16_t type)
{
	static const char *const ct[] = {
		[CTL_CT_NEW] = "CT_NEW",
		[CTL_CT_GET] = "CT_GET",
		[CTL_CT_DELETE] = "CT_DELETE",
		[IPCTNL_MSG_CT_GET_CTRZERO] = "CT_GET_CTRZERO",
		[CTL_CT_GET_STATS_CPU] = "CT_GET_STATS_CPU",
		[CTL_CT_GET_STATS] = "CT_GET_STATS",
		[CTL_CT_EVENTS] = "CT_EVENTS",
		[CTL_CT_EVENTS_LOST] = "CT_EVENTS_LOST",
		[CTL_CT_FLUSH] = "CT_FLUSH",
	};
	static const char *const exp[] = {
		[CTL_EXP_NEW] = "EXP_NEW", [CTL_EXP_GET] = "EXP_GET", [CTL_EXP_DELETE] = "EXP_DELETE"
	};
	static const char *const rules[] = {
		[CTL_RULES_REPLACE] = "RULES_REPLACE",
		[CTL_RULES_DUMP] = "RULES_DUMP",
		[CTL_RULES_ZERO] = "RULES_ZERO",
		[CTL_RULES_POLICY] = "RULES_POLICY",
	};
	unsigned m = CTL_MSG(type);

	switch (CTL_SUBSYS(type)) {
	case CTL_SUBSYS_CT:
		return m < sizeof(ct) / sizeof(ct[0]) ? ct[m] : NULL;
	case CTL_SUBSYS_EXP:
		return m < sizeof(exp) / sizeof(exp[0]) ? exp[m] : NULL;
	case CTL_SUBSYS_RULES:
		return m < sizeof(rules) / sizeof(rules[0]) ? rules[m] : NULL;
	}
	return NULL;
}

/* The top-level table of a message type, NULL when the type is not ours. */
static const struct ctl_level *level_of(uint16_t type)
{
	if (!ctl_msg_name(type))
		return NULL;
	switch (CTL_SUBSYS(type)) {
	case CTL_SUBSYS_CT:
		if (CTL_MSG(type) == CTL_CT_GET_STATS_CPU)
			return &stats_cpu_level;
		if (CTL_MSG(type) == CTL_CT_GET_STATS)
			return &stats_global_level;
		return &ct_level;
	case CTL_SUBSYS_EXP:
		return &exp_level;
	default:
		return &rules_level;
	}
}

/* Framing and validation common to requests and replies; tb gets the top level. */
static int check_message(const struct nlmsghdr *nlh, const struct nlattr **tb,
			 struct ctl_error *err)
{
	const struct ctl_level *lv;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)))
		return fail(err, -EINVAL, NULL, "message of %u bytes: no room for its header",
			    nlh->nlmsg_len);
	/* libmnl walks attributes up to the ALIGNED end of the message: an unaligned length
	 * would let it read up to 3 bytes past what was received (found by fuzz_ctl_msg). */
	if (nlh->nlmsg_len % MNL_ALIGNTO)
		return fail(err, -EINVAL, NULL, "message length %u is not a multiple of %u",
			    nlh->nlmsg_len, MNL_ALIGNTO);
	if (!(lv = level_of(nlh->nlmsg_type)))
		return fail(err, -EOPNOTSUPP, NULL, "unknown message type 0x%04x",
			    nlh->nlmsg_type);
	return validate_level(lv, NULL, nlh, "", tb, err, 0);
}

static uint8_t msg_family(const struct nlmsghdr *nlh)
{
	return ((const struct nfgenmsg *)mnl_nlmsg_get_payload(nlh))->nfgen_family;
}

static int decode_rules(const struct nlmsghdr *nlh, const struct nlattr *const *tb,
			struct ctl_request *req, struct ctl_error *err)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) != CTL_RA_TEXT)
			continue;
		if (!req->text_first)
			req->text_first = a;
		req->text_len += mnl_attr_get_payload_len(a);
	}
	if (tb[CTL_RA_NAME])
		req->name = mnl_attr_get_str(tb[CTL_RA_NAME]);
	if (tb[CTL_RA_TABLE])
		req->table = mnl_attr_get_str(tb[CTL_RA_TABLE]);
	if (tb[CTL_RA_CHAIN])
		req->chain = mnl_attr_get_str(tb[CTL_RA_CHAIN]);
	if (tb[CTL_RA_FLAGS])
		req->rflags = ntohl(mnl_attr_get_u32(tb[CTL_RA_FLAGS]));
	if (tb[CTL_RA_POLICY]) {
		req->policy = ntohl(mnl_attr_get_u32(tb[CTL_RA_POLICY]));
		req->has_policy = true;
		if (req->policy != NF_DROP && req->policy != NF_ACCEPT)
			return fail(err, -EINVAL, tb[CTL_RA_POLICY],
				    "CTL_RA_POLICY: %u is neither NF_DROP (0) nor NF_ACCEPT (1)",
				    req->policy);
	}
	if (req->family != AF_INET && req->family != AF_INET6)
		return fail(err, -EAFNOSUPPORT, NULL, "nfgen_family %u: want AF_INET or AF_INET6",
			    req->family);
	switch (CTL_MSG(req->type)) {
	case CTL_RULES_REPLACE:
		if (!req->text_first)
			return missing(err, CTL_RA_TEXT, NULL, "CTL_RA_TEXT");
		break;
	case CTL_RULES_POLICY:
		if (!req->table)
			return missing(err, CTL_RA_TABLE, NULL, "CTL_RA_TABLE");
		if (!req->chain)
			return missing(err, CTL_RA_CHAIN, NULL, "CTL_RA_CHAIN");
		if (!req->has_policy)
			return missing(err, CTL_RA_POLICY, NULL, "CTL_RA_POLICY");
		break;
	case CTL_RULES_ZERO:
		if (req->chain && !req->table)
			return missing(err, CTL_RA_TABLE, NULL, "CTL_RA_TABLE (with CTL_RA_CHAIN)");
		break;
	}
	return 0;
}

static int decode_ct_request(const struct nlattr *const *tb, struct ctl_request *req,
			     struct ctl_error *err)
{
	unsigned m = CTL_MSG(req->type);
	int r;

	if ((r = decode_ct(tb, req->family, &req->ct, err)) < 0)
		return r;
	req->has_ct = req->ct.have & (CTL_C_ORIG | CTL_C_REPLY);
	if (tb[CTL_A_FILTER]) {
		if ((r = decode_filter(tb[CTL_A_FILTER], req->family, &req->filter, err)) < 0)
			return r;
		req->has_filter = true;
	}
	if (tb[CTL_A_EVENT_MASK])
		req->event_mask = ntohl(mnl_attr_get_u32(tb[CTL_A_EVENT_MASK]));
	if ((m == CTL_CT_GET || m == CTL_CT_GET_CTRZERO) && !(req->flags & NLM_F_DUMP) &&
	    !req->has_ct)
		return missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG (or NLM_F_DUMP)");
	if (m == CTL_CT_DELETE && !req->has_ct && !req->has_filter)
		return missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG (or CTL_A_FILTER)");
	if (m == CTL_CT_NEW && !req->has_ct)
		return missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG");
	if (m == CTL_CT_EVENTS_LOST)
		return fail(err, -EOPNOTSUPP, NULL, "%s: not a request this server takes",
			    ctl_msg_name(req->type));
	return 0;
}

int ctl_parse_request(const struct nlmsghdr *nlh, struct ctl_request *req, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(req, 0, sizeof(*req));
	memset(err, 0, sizeof(*err));
	if ((r = check_message(nlh, tb, err)) < 0)
		return r;
	req->type = nlh->nlmsg_type;
	req->flags = nlh->nlmsg_flags;
	req->seq = nlh->nlmsg_seq;
	req->family = msg_family(nlh);
	if (!tb[CTL_A_VERSION])
		return missing(err, CTL_A_VERSION, NULL, "CTL_A_VERSION (every request has one)");
	req->version = ntohl(mnl_attr_get_u32(tb[CTL_A_VERSION]));
	if (req->version != CTL_VERSION)
		return fail(err, -EPROTONOSUPPORT, tb[CTL_A_VERSION],
			    "CTL_A_VERSION: version %u, this server speaks %u", req->version,
			    CTL_VERSION);
	switch (CTL_SUBSYS(req->type)) {
	case CTL_SUBSYS_CT:
		if (CTL_MSG(req->type) == CTL_CT_GET_STATS ||
		    CTL_MSG(req->type) == CTL_CT_GET_STATS_CPU)
			return 0;
		return decode_ct_request(tb, req, err);
	case CTL_SUBSYS_RULES:
		return decode_rules(nlh, tb, req, err);
	default:
		return decode_exp_request(tb, req, err);
	}
}

int ctl_parse_exp(const struct nlmsghdr *nlh, struct ctl_exp *x, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = check_message(nlh, tb, err)) < 0)
		return r;
	if (CTL_SUBSYS(nlh->nlmsg_type) != CTL_SUBSYS_EXP ||
	    (CTL_MSG(nlh->nlmsg_type) != CTL_EXP_NEW && CTL_MSG(nlh->nlmsg_type) != CTL_EXP_DELETE))
		return fail(err, -EINVAL, NULL, "%s carries no expectation",
			    ctl_msg_name(nlh->nlmsg_type));
	return decode_exp(tb, msg_family(nlh), x, err);
}

int ctl_parse_ct(const struct nlmsghdr *nlh, struct ctl_ct *c, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = check_message(nlh, tb, err)) < 0)
		return r;
	if (CTL_SUBSYS(nlh->nlmsg_type) != CTL_SUBSYS_CT ||
	    (CTL_MSG(nlh->nlmsg_type) != CTL_CT_NEW && CTL_MSG(nlh->nlmsg_type) != CTL_CT_DELETE))
		return fail(err, -EINVAL, NULL, "%s carries no entry",
			    ctl_msg_name(nlh->nlmsg_type));
	return decode_ct(tb, msg_family(nlh), c, err);
}

int ctl_parse_stats(const struct nlmsghdr *nlh, struct ctl_stats *s, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = check_message(nlh, tb, err)) < 0)
		return r;
	if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET_STATS)) {
		if (tb[CTA_STATS_GLOBAL_ENTRIES])
			s->entries = ntohl(mnl_attr_get_u32(tb[CTA_STATS_GLOBAL_ENTRIES]));
		if (tb[CTA_STATS_GLOBAL_MAX_ENTRIES])
			s->max_entries = ntohl(mnl_attr_get_u32(tb[CTA_STATS_GLOBAL_MAX_ENTRIES]));
		return 0;
	}
	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET_STATS_CPU))
		return fail(err, -EINVAL, NULL, "not a statistics message");
#define G(a, f)                                                                                    \
	do {                                                                                       \
		if (tb[a])                                                                         \
			s->f = ntohl(mnl_attr_get_u32(tb[a]));                                     \
	} while (0)
	G(CTA_STATS_FOUND, found);
	G(CTA_STATS_NEW, new);
	G(CTA_STATS_INVALID, invalid);
	G(CTA_STATS_INSERT, insert);
	G(CTA_STATS_INSERT_FAILED, insert_failed);
	G(CTA_STATS_DROP, drop);
	G(CTA_STATS_EARLY_DROP, early_drop);
	G(CTA_STATS_SEARCH_RESTART, search_restart);
	G(CTA_STATS_CLASH_RESOLVE, clash);
#undef G
	if (tb[CTL_A_EVENTS_LOST])
		s->events_lost = get_be64(tb[CTL_A_EVENTS_LOST]);
	return 0;
}

int ctl_parse_error(const struct nlmsghdr *nlh, int *code, char *msg, size_t len, uint32_t *line)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[CTL_ERRA_LINE + 1];
	const struct nlattr *a;
	size_t off;

	if (len)
		msg[0] = '\0';
	*line = 0;
	if (nlh->nlmsg_type != NLMSG_ERROR ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nlmsgerr))
		return -EINVAL;
	*code = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	off = (nlh->nlmsg_flags & NLM_F_CAPPED) ? sizeof(*e)
						 : sizeof(int) + MNL_ALIGN(e->msg.nlmsg_len);
	if (MNL_NLMSG_HDRLEN + off > nlh->nlmsg_len)
		return -EINVAL;
	/* the extended-ack attributes follow the nlmsgerr, not an nfgenmsg: walked here with
	 * the same table discipline (known types checked, unknown skipped) */
	memset(tb, 0, sizeof(tb));
	mnl_attr_for_each(a, nlh, off) {
		uint16_t t = mnl_attr_get_type(a);

		if (t > CTL_ERRA_LINE || errack_pol[t].type == MNL_TYPE_UNSPEC)
			continue;
		if (errack_pol[t].type == MNL_TYPE_U32 && mnl_attr_get_payload_len(a) != 4)
			return -EINVAL;
		if (errack_pol[t].type == MNL_TYPE_NUL_STRING &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return -EINVAL;
		tb[t] = a;
	}
	if (tb[NLMSGERR_ATTR_MSG] && len)
		snprintf(msg, len, "%s", mnl_attr_get_str(tb[NLMSGERR_ATTR_MSG]));
	if (tb[CTL_ERRA_LINE])
		*line = mnl_attr_get_u32(tb[CTL_ERRA_LINE]);
	return 0;
}

void ctl_copy_text(const struct nlmsghdr *nlh, char *dst)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		if (mnl_attr_get_type(a) != CTL_RA_TEXT)
			continue;
		memcpy(dst, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
		dst += mnl_attr_get_payload_len(a);
	}
}

static const struct nlattr *find_top(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)))
		return NULL;
	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

bool ctl_get_u32(const struct nlmsghdr *nlh, uint16_t type, uint32_t *v)
{
	const struct nlattr *a = find_top(nlh, type);

	if (!a || mnl_attr_get_payload_len(a) != 4)
		return false;
	*v = ntohl(mnl_attr_get_u32(a));
	return true;
}

bool ctl_get_u64(const struct nlmsghdr *nlh, uint16_t type, uint64_t *v)
{
	const struct nlattr *a = find_top(nlh, type);

	if (!a || mnl_attr_get_payload_len(a) != 8)
		return false;
	*v = get_be64(a);
	return true;
}
