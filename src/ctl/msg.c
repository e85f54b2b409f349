// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages, the core (docs/ctl.md): the validation discipline every level goes through,
 * tuples (carried by every subsystem), framing, NLMSG_ERROR/DONE and the request dispatcher.
 * The subsystems' tables, encoders and decoders are msg_ct.c, msg_exp.c and msg_rules.c.
 *
 * A tuple (CTA_TUPLE_ORIG, CTA_TUPLE_REPLY, CTA_EXPECT_*, CTL_F_TUPLE_*), values big-endian:
 *
 *   CTA_TUPLE_* ---+- CTA_TUPLE_IP (1) ----+- CTA_IP_V4_SRC (1)  4 bytes  (V6: 3, 16 bytes)
 *                  |                       +- CTA_IP_V4_DST (2)  4 bytes  (V6: 4, 16 bytes)
 *                  +- CTA_TUPLE_PROTO (2) -+- CTA_PROTO_NUM (1)  u8
 *                  |                       +- CTA_PROTO_SRC_PORT (2) be16 / ICMP id, type, code
 *                  |                       +- CTA_PROTO_DST_PORT (3) be16
 *                  +- CTA_TUPLE_ZONE (3) be16
 *
 * Validation (one table per nesting level) is separate from access (decode_*): by the time a
 * decoder reads an attribute, its type and length are known good.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include "ctl/msg_int.h"
#include "pkt/proto.h"

/* ---- validation tables ------------------------------------------------------------------- */

static const struct ctl_pol ip_pol[] = {
    [CTA_IP_V4_SRC] = {MNL_TYPE_BINARY, 4, "CTA_IP_V4_SRC", NULL},
    [CTA_IP_V4_DST] = {MNL_TYPE_BINARY, 4, "CTA_IP_V4_DST", NULL},
    [CTA_IP_V6_SRC] = {MNL_TYPE_BINARY, 16, "CTA_IP_V6_SRC", NULL},
    [CTA_IP_V6_DST] = {MNL_TYPE_BINARY, 16, "CTA_IP_V6_DST", NULL},
};
static const struct ctl_level ip_level = LEVEL(ip_pol);

static const struct ctl_pol proto_pol[] = {
    [CTA_PROTO_NUM] = {MNL_TYPE_U8, 0, "CTA_PROTO_NUM", NULL},
    [CTA_PROTO_SRC_PORT] = {MNL_TYPE_U16, 0, "CTA_PROTO_SRC_PORT", NULL},
    [CTA_PROTO_DST_PORT] = {MNL_TYPE_U16, 0, "CTA_PROTO_DST_PORT", NULL},
    [CTA_PROTO_ICMP_ID] = {MNL_TYPE_U16, 0, "CTA_PROTO_ICMP_ID", NULL},
    [CTA_PROTO_ICMP_TYPE] = {MNL_TYPE_U8, 0, "CTA_PROTO_ICMP_TYPE", NULL},
    [CTA_PROTO_ICMP_CODE] = {MNL_TYPE_U8, 0, "CTA_PROTO_ICMP_CODE", NULL},
    [CTA_PROTO_ICMPV6_ID] = {MNL_TYPE_U16, 0, "CTA_PROTO_ICMPV6_ID", NULL},
    [CTA_PROTO_ICMPV6_TYPE] = {MNL_TYPE_U8, 0, "CTA_PROTO_ICMPV6_TYPE", NULL},
    [CTA_PROTO_ICMPV6_CODE] = {MNL_TYPE_U8, 0, "CTA_PROTO_ICMPV6_CODE", NULL},
};
static const struct ctl_level proto_level = LEVEL(proto_pol);

static const struct ctl_pol tuple_pol[] = {
    [CTA_TUPLE_IP] = {MNL_TYPE_NESTED, 0, "CTA_TUPLE_IP", &ip_level},
    [CTA_TUPLE_PROTO] = {MNL_TYPE_NESTED, 0, "CTA_TUPLE_PROTO", &proto_level},
    [CTA_TUPLE_ZONE] = {MNL_TYPE_U16, 0, "CTA_TUPLE_ZONE", NULL},
};
const struct ctl_level ctl_tuple_level = LEVEL(tuple_pol);

static const struct ctl_pol errack_pol[CTL_ERRA_LINE + 1] = {
    [NLMSGERR_ATTR_MSG] = {MNL_TYPE_NUL_STRING, 0, "NLMSGERR_ATTR_MSG", NULL},
    [NLMSGERR_ATTR_OFFS] = {MNL_TYPE_U32, 0, "NLMSGERR_ATTR_OFFS", NULL},
    [NLMSGERR_ATTR_MISS_TYPE] = {MNL_TYPE_U32, 0, "NLMSGERR_ATTR_MISS_TYPE", NULL},
    [NLMSGERR_ATTR_MISS_NEST] = {MNL_TYPE_U32, 0, "NLMSGERR_ATTR_MISS_NEST", NULL},
    [CTL_ERRA_LINE] = {MNL_TYPE_U32, 0, "CTL_ERRA_LINE", NULL},
};

/* Exact payload sizes of the fixed-size types (libmnl only checks the upper bound). */
static const uint8_t type_len[MNL_TYPE_MAX] = {
    [MNL_TYPE_U8] = 1,
    [MNL_TYPE_U16] = 2,
    [MNL_TYPE_U32] = 4,
    [MNL_TYPE_U64] = 8,
};

/* ---- errors ------------------------------------------------------------------------------ */

__attribute__((format(printf, 4, 5))) int ctl_fail(struct ctl_error *err, int code,
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

int ctl_missing(struct ctl_error *err, uint16_t type, const struct nlattr *nest, const char *what)
{
	err->missing = type;
	err->nest = nest;
	return ctl_fail(err, -EINVAL, NULL, "%s: required", what);
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
		ctl_fail(c->err, -EINVAL, a, "%s: length %u, want %u", path, len,
			 type_len[p->type]);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_BINARY && p->len && len != p->len) {
		ctl_fail(c->err, -EINVAL, a, "%s: length %u, want %u", path, len, p->len);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_NUL_STRING && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0) {
		ctl_fail(c->err, -EINVAL, a, "%s: not a NUL-terminated string", path);
		return MNL_CB_ERROR;
	}
	if (p->type == MNL_TYPE_NESTED &&
	    ctl_validate_level(p->nest, a, NULL, path, NULL, c->err, c->depth + 1) < 0)
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
int ctl_validate_level(const struct ctl_level *lv, const struct nlattr *nest,
		       const struct nlmsghdr *nlh, const char *path, const struct nlattr **tb,
		       struct ctl_error *err, unsigned depth)
{
	struct vctx c = {.level = lv, .tb = tb, .path = path, .err = err, .depth = depth};
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
		return ctl_fail(err, -EINVAL, (const struct nlattr *)c.end,
				"%s%sattribute at byte %td: bad length", path, *path ? ": " : "",
				c.end - (const char *)start);
	return 0;
}

/* ---- tuples ------------------------------------------------------------------------------ */

bool ctl_tuple_complete(const struct ctl_tuple *t)
{
	const uint32_t base = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO;
	uint8_t p = t->t.l4proto;

	if ((t->have & base) != base)
		return false;
	if (pkt_proto(p)->tuple_ports)
		return (t->have & (CTL_T_SPORT | CTL_T_DPORT)) == (CTL_T_SPORT | CTL_T_DPORT);
	if (pkt_proto(p)->icmp)
		return (t->have & (CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE)) ==
		       (CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE);
	return true;
}

static int decode_ip(const struct nlattr *nest, struct ctl_tuple *t, uint8_t family,
		     const char *path, struct ctl_error *err)
{
	const struct nlattr *tb[CTA_IP_MAX + 1];
	const struct nlattr *first = NULL;

	ctl_validate_level(&ip_level, nest, NULL, path, tb, err, 0);
	for (int i = CTA_IP_V4_SRC; i <= CTA_IP_V6_DST; i++) {
		uint8_t f = i <= CTA_IP_V4_DST ? AF_INET : AF_INET6;
		bool src = i == CTA_IP_V4_SRC || i == CTA_IP_V6_SRC;

		if (!tb[i])
			continue;
		if ((t->t.family && t->t.family != f) || (family && family != f))
			return ctl_fail(
			    err, -EINVAL, tb[i], "%s.%s: address family differs from %s", path,
			    ip_pol[i].name, first ? "the other address" : "the message's");
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

	ctl_validate_level(&proto_level, nest, NULL, path, tb, err, 0);
	if (!tb[CTA_PROTO_NUM])
		return ctl_missing(err, CTA_PROTO_NUM, nest, "CTA_PROTO_NUM");
	p = mnl_attr_get_u8(tb[CTA_PROTO_NUM]);
	t->t.l4proto = p;
	t->have |= CTL_T_PROTO;
	for (int i = CTA_PROTO_SRC_PORT; i <= CTA_PROTO_ICMPV6_CODE; i++) {
		bool icmp4 = i >= CTA_PROTO_ICMP_ID && i <= CTA_PROTO_ICMP_CODE;
		bool icmp6 = i >= CTA_PROTO_ICMPV6_ID;
		bool ok = icmp4	  ? p == IPPROTO_ICMP
			  : icmp6 ? p == IPPROTO_ICMPV6
				  : pkt_proto(p)->tuple_ports;

		if (!tb[i])
			continue;
		if (!ok)
			return ctl_fail(err, -EINVAL, tb[i], "%s.%s: not for protocol %u", path,
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

int ctl_decode_tuple(const struct nlattr *nest, struct ctl_tuple *t, uint8_t family,
		     const char *name, struct ctl_error *err)
{
	const struct nlattr *tb[CTA_TUPLE_MAX + 1];
	char path[96];
	int r;

	memset(t, 0, sizeof(*t));
	ctl_validate_level(&ctl_tuple_level, nest, NULL, name, tb, err, 0);
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
		    !mnl_attr_put_check(nlh, room, v4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, alen,
					&t->t.src))
			goto full;
		if ((t->have & CTL_T_DST) &&
		    !mnl_attr_put_check(nlh, room, v4 ? CTA_IP_V4_DST : CTA_IP_V6_DST, alen,
					&t->t.dst))
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
		} else if (pkt_proto(p)->tuple_ports) {
			if ((t->have & CTL_T_SPORT) &&
			    !mnl_attr_put_u16_check(nlh, room, CTA_PROTO_SRC_PORT,
						    htons(t->t.s.port)))
				goto full;
			if ((t->have & CTL_T_DPORT) &&
			    !mnl_attr_put_u16_check(nlh, room, CTA_PROTO_DST_PORT,
						    htons(t->t.d.port)))
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

uint32_t ctl_tuple_full_have(const struct ct_tuple *t)
{
	uint32_t h = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO;

	if (pkt_proto(t->l4proto)->tuple_ports)
		h |= CTL_T_SPORT | CTL_T_DPORT;
	else if (pkt_proto(t->l4proto)->icmp)
		h |= CTL_T_SPORT | CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE;
	if (t->zone) /* a zoned tuple says so (CTA_TUPLE_ZONE); absent means zone 0 */
		h |= CTL_T_ZONE;
	return h;
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
			mnl_attr_put_u32_check(
			    nlh, room, NLMSGERR_ATTR_MISS_NEST,
			    (uint32_t)((const char *)err->nest - (const char *)req));
	}
	if (err->line)
		mnl_attr_put_u32_check(nlh, room, CTL_ERRA_LINE, err->line);
	return (int)nlh->nlmsg_len;
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
	    [CTL_EXP_NEW] = "EXP_NEW", [CTL_EXP_GET] = "EXP_GET", [CTL_EXP_DELETE] = "EXP_DELETE"};
	static const char *const rules[] = {
	    [CTL_RULES_REPLACE] = "RULES_REPLACE",
	    [CTL_RULES_DUMP] = "RULES_DUMP",
	    [CTL_RULES_ZERO] = "RULES_ZERO",
	    [CTL_RULES_POLICY] = "RULES_POLICY",
	    [CTL_RULES_RECENT] = "RULES_RECENT",
	    [CTL_RULES_CLASSIFIER] = "RULES_CLASSIFIER",
	};
	static const char *const sync[] = {
	    [CTL_SYNC_CMD] = "SYNC_CMD",
	};
	unsigned m = CTL_MSG(type);

	switch (CTL_SUBSYS(type)) {
	case CTL_SUBSYS_CT:
		return m < sizeof(ct) / sizeof(ct[0]) ? ct[m] : NULL;
	case CTL_SUBSYS_EXP:
		return m < sizeof(exp) / sizeof(exp[0]) ? exp[m] : NULL;
	case CTL_SUBSYS_RULES:
		return m < sizeof(rules) / sizeof(rules[0]) ? rules[m] : NULL;
	case CTL_SUBSYS_SYNC:
		return m < sizeof(sync) / sizeof(sync[0]) ? sync[m] : NULL;
	case CTL_SUBSYS_SET:
		return m == CTL_SET_CMD ? "SET_CMD" : NULL;
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
			return &ctl_stats_cpu_level;
		if (CTL_MSG(type) == CTL_CT_GET_STATS)
			return &ctl_stats_global_level;
		return &ctl_ct_level;
	case CTL_SUBSYS_EXP:
		return &ctl_exp_level;
	case CTL_SUBSYS_SET:
		return &ctl_set_level;
	default:
		return &ctl_rules_level;
	}
}

int ctl_check_message(const struct nlmsghdr *nlh, const struct nlattr **tb, struct ctl_error *err)
{
	const struct ctl_level *lv;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)))
		return ctl_fail(err, -EINVAL, NULL, "message of %u bytes: no room for its header",
				nlh->nlmsg_len);
	/* libmnl walks attributes up to the ALIGNED end of the message: an unaligned length
	 * would let it read up to 3 bytes past what was received (found by fuzz_ctl_msg). */
	if (nlh->nlmsg_len % MNL_ALIGNTO)
		return ctl_fail(err, -EINVAL, NULL, "message length %u is not a multiple of %u",
				nlh->nlmsg_len, MNL_ALIGNTO);
	if (!(lv = level_of(nlh->nlmsg_type)))
		return ctl_fail(err, -EOPNOTSUPP, NULL, "unknown message type 0x%04x",
				nlh->nlmsg_type);
	return ctl_validate_level(lv, NULL, nlh, "", tb, err, 0);
}

uint8_t ctl_msg_family(const struct nlmsghdr *nlh)
{
	return ((const struct nfgenmsg *)mnl_nlmsg_get_payload(nlh))->nfgen_family;
}

int ctl_parse_request(const struct nlmsghdr *nlh, struct ctl_request *req, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(req, 0, sizeof(*req));
	memset(err, 0, sizeof(*err));
	if ((r = ctl_check_message(nlh, tb, err)) < 0)
		return r;
	req->type = nlh->nlmsg_type;
	req->flags = nlh->nlmsg_flags;
	req->seq = nlh->nlmsg_seq;
	req->family = ctl_msg_family(nlh);
	if (!tb[CTL_A_VERSION])
		return ctl_missing(err, CTL_A_VERSION, NULL,
				   "CTL_A_VERSION (every request has one)");
	req->version = ntohl(mnl_attr_get_u32(tb[CTL_A_VERSION]));
	if (req->version != CTL_VERSION)
		return ctl_fail(err, -EPROTONOSUPPORT, tb[CTL_A_VERSION],
				"CTL_A_VERSION: version %u, this server speaks %u", req->version,
				CTL_VERSION);
	switch (CTL_SUBSYS(req->type)) {
	case CTL_SUBSYS_CT:
		if (CTL_MSG(req->type) == CTL_CT_GET_STATS ||
		    CTL_MSG(req->type) == CTL_CT_GET_STATS_CPU)
			return 0;
		return ctl_decode_ct_request(tb, req, err);
	case CTL_SUBSYS_RULES:
	case CTL_SUBSYS_SYNC:
		return ctl_decode_rules_request(nlh, tb, req, err);
	case CTL_SUBSYS_SET:
		return ctl_decode_set_request(nlh, tb, req, err);
	default:
		return ctl_decode_exp_request(tb, req, err);
	}
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
	mnl_attr_for_each(a, nlh, off)
	{
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

static const struct nlattr *find_top(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg)))
		return NULL;
	mnl_attr_for_each(a, nlh,
			  sizeof(struct nfgenmsg)) if (mnl_attr_get_type(a) == type) return a;
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
	*v = ctl_attr_get_be64(a);
	return true;
}
