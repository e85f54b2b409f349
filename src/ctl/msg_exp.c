// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages, the expectation subsystem (docs/ctl.md): `conntrack -L expect` and friends.
 *
 *   nlmsghdr | nfgenmsg
 *   CTA_EXPECT_MASTER (1)  tuple (msg.c draws it): the connection that expects
 *   CTA_EXPECT_TUPLE (2)   tuple: the expected connection
 *   CTA_EXPECT_MASK (3)    tuple: the bits of TUPLE compared (source address and port)
 *   CTA_EXPECT_TIMEOUT (4) be32 s   CTA_EXPECT_ID (5) be32   CTA_EXPECT_HELP_NAME (6) string
 *   CTA_EXPECT_ZONE (7) be16   CTA_EXPECT_FLAGS (8) be32   CTA_EXPECT_CLASS (9) be32
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/expect.h"
#include "ct/helper.h"
#include "ctl/msg_int.h"

static const struct ctl_pol exp_pol[CTL_A_MAX + 1] = {
    [CTA_EXPECT_MASTER] = {MNL_TYPE_NESTED, 0, "CTA_EXPECT_MASTER", &ctl_tuple_level},
    [CTA_EXPECT_TUPLE] = {MNL_TYPE_NESTED, 0, "CTA_EXPECT_TUPLE", &ctl_tuple_level},
    [CTA_EXPECT_MASK] = {MNL_TYPE_NESTED, 0, "CTA_EXPECT_MASK", &ctl_tuple_level},
    [CTA_EXPECT_TIMEOUT] = {MNL_TYPE_U32, 0, "CTA_EXPECT_TIMEOUT", NULL},
    [CTA_EXPECT_ID] = {MNL_TYPE_U32, 0, "CTA_EXPECT_ID", NULL},
    [CTA_EXPECT_HELP_NAME] = {MNL_TYPE_NUL_STRING, 0, "CTA_EXPECT_HELP_NAME", NULL},
    [CTA_EXPECT_ZONE] = {MNL_TYPE_U16, 0, "CTA_EXPECT_ZONE", NULL},
    [CTA_EXPECT_FLAGS] = {MNL_TYPE_U32, 0, "CTA_EXPECT_FLAGS", NULL},
    [CTA_EXPECT_CLASS] = {MNL_TYPE_U32, 0, "CTA_EXPECT_CLASS", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
};
const struct ctl_level ctl_exp_level = LEVEL(exp_pol);

/* ---- expectations ------------------------------------------------------------------------ */

void ctl_exp_from_expect(struct ctl_exp *x, const struct ct_expect *e, uint64_t now)
{
	const struct ct_helper *h = ct_entry_helper(e->master);
	bool v4 = e->tuple.family == AF_INET;

	memset(x, 0, sizeof(*x));
	x->master.t = *ct_entry_tuple(e->master, CT_DIR_ORIGINAL);
	x->master.have = ctl_tuple_full_have(&x->master.t);
	x->tuple.t = e->tuple;
	x->tuple.have = ctl_tuple_full_have(&e->tuple);
	/* the mask as ctnetlink sends it: the tuple's protocol, the destination half all ones */
	ct_tuple_zero(&x->mask.t);
	x->mask.t.family = e->tuple.family;
	x->mask.t.l4proto = e->tuple.l4proto;
	x->mask.t.src = e->mask_src;
	memset(&x->mask.t.dst, 0xff, v4 ? 4 : 16);
	x->mask.t.s.all = e->mask_sport;
	x->mask.t.d.all = 0xffff;
	x->mask.have = (ctl_tuple_full_have(&x->mask.t) & ~CTL_T_ZONE);
	x->timeout = (uint32_t)(e->expires > now ? (e->expires - now) / CT_SEC : 0);
	x->id = (uint32_t)e->id;
	x->flags = e->flags;
	x->class = e->class;
	x->zone = e->tuple.zone;
	x->have = CTL_X_MASTER | CTL_X_TUPLE | CTL_X_MASK | CTL_X_TIMEOUT | CTL_X_ID | CTL_X_FLAGS |
		  CTL_X_CLASS | (x->zone ? CTL_X_ZONE : 0);
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
	return snprintf(
	    buf, len,
	    "%u proto=%u %s mask-src=%s mask-dst=%s sport=%u dport=%u "
	    "master-src=%s master-dst=%s sport=%u dport=%u%s%s class=%u%s%s",
	    x->timeout, x->tuple.t.l4proto, tu, ms, md, x->mask.t.s.all, x->mask.t.d.all, msrc,
	    mdst, mt->s.port, mt->d.port, (x->flags & CT_EXPECT_PERMANENT) ? " PERMANENT" : "",
	    (x->flags & CT_EXPECT_INACTIVE) ? " INACTIVE" : "", x->class,
	    (x->have & CTL_X_HELPER) ? " helper=" : "", (x->have & CTL_X_HELPER) ? x->helper : "");
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
	    {CTA_EXPECT_MASTER, CTL_X_MASTER, "CTA_EXPECT_MASTER",
	     offsetof(struct ctl_exp, master)},
	    {CTA_EXPECT_TUPLE, CTL_X_TUPLE, "CTA_EXPECT_TUPLE", offsetof(struct ctl_exp, tuple)},
	    {CTA_EXPECT_MASK, CTL_X_MASK, "CTA_EXPECT_MASK", offsetof(struct ctl_exp, mask)},
	};
	int r;

	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < sizeof(tuples) / sizeof(tuples[0]); i++) {
		struct ctl_tuple *t = (struct ctl_tuple *)((char *)x + tuples[i].off);

		if (!tb[tuples[i].type])
			continue;
		if ((r = ctl_decode_tuple(tb[tuples[i].type], t, family, tuples[i].name, err)) < 0)
			return r;
		/* master and tuple name connections; the mask may be partial */
		if (tuples[i].type != CTA_EXPECT_MASK && !ctl_tuple_complete(t))
			return ctl_fail(err, -EINVAL, tb[tuples[i].type], "%s: incomplete",
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
		snprintf(x->helper, sizeof(x->helper), "%s",
			 mnl_attr_get_str(tb[CTA_EXPECT_HELP_NAME]));
		x->have |= CTL_X_HELPER;
	}
	return 0;
}

int ctl_decode_exp_request(const struct nlattr *const *tb, struct ctl_request *req,
			   struct ctl_error *err)
{
	int r;

	if ((r = decode_exp(tb, req->family, &req->exp, err)) < 0)
		return r;
	switch (CTL_MSG(req->type)) {
	case CTL_EXP_NEW:
		if (!(req->exp.have & CTL_X_MASTER))
			return ctl_missing(err, CTA_EXPECT_MASTER, NULL, "CTA_EXPECT_MASTER");
		/* fall through */
	case CTL_EXP_DELETE:
		if (!(req->exp.have & CTL_X_TUPLE))
			return ctl_missing(err, CTA_EXPECT_TUPLE, NULL, "CTA_EXPECT_TUPLE");
		break;
	case CTL_EXP_GET:
		if (!(req->flags & NLM_F_DUMP) && !(req->exp.have & CTL_X_TUPLE))
			return ctl_missing(err, CTA_EXPECT_TUPLE, NULL,
					   "CTA_EXPECT_TUPLE (or NLM_F_DUMP)");
		break;
	}
	return 0;
}

int ctl_parse_exp(const struct nlmsghdr *nlh, struct ctl_exp *x, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = ctl_check_message(nlh, tb, err)) < 0)
		return r;
	if (CTL_SUBSYS(nlh->nlmsg_type) != CTL_SUBSYS_EXP ||
	    (CTL_MSG(nlh->nlmsg_type) != CTL_EXP_NEW && CTL_MSG(nlh->nlmsg_type) != CTL_EXP_DELETE))
		return ctl_fail(err, -EINVAL, NULL, "%s carries no expectation",
				ctl_msg_name(nlh->nlmsg_type));
	return decode_exp(tb, ctl_msg_family(nlh), x, err);
}
