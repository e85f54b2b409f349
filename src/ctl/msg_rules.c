// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages, the rules subsystem (docs/ctl.md): iptables-restore, -save, -Z and -P, and
 * the lists of -m recent (/proc/net/xt_recent).
 *
 *   nlmsghdr | nfgenmsg {AF_INET or AF_INET6, 0, 0}
 *   CTL_RA_TEXT (1)  ruleset text, no NUL; several are one text, in order (a big restore)
 *   CTL_RA_NAME (2)  string: the file name errors name   CTL_RA_FLAGS (3) be32 CTL_RF_*
 *   CTL_RA_TABLE (4) string   CTL_RA_CHAIN (5) string   CTL_RA_POLICY (6) be32 NF_DROP/NF_ACCEPT
 *   CTL_RA_LIST (7) string: a -m recent list
 *   RULES_CLASSIFIER replies: CTL_RA_CLS (8) nest CTL_RC_* (one chain), CTL_RA_CLS_MODE (9) be32
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netfilter.h>

#include "ctl/msg_int.h"

static const struct ctl_pol cls_pol[CTL_RC_MAX + 1] = {
    [CTL_RC_TABLE] = {MNL_TYPE_NUL_STRING, 0, "CTL_RC_TABLE", NULL},
    [CTL_RC_CHAIN] = {MNL_TYPE_NUL_STRING, 0, "CTL_RC_CHAIN", NULL},
    [CTL_RC_ENGINE] = {MNL_TYPE_U32, 0, "CTL_RC_ENGINE", NULL},
    [CTL_RC_WHY] = {MNL_TYPE_NUL_STRING, 0, "CTL_RC_WHY", NULL},
    [CTL_RC_RULES] = {MNL_TYPE_U32, 0, "CTL_RC_RULES", NULL},
    [CTL_RC_PARTIAL] = {MNL_TYPE_U32, 0, "CTL_RC_PARTIAL", NULL},
    [CTL_RC_FIRST_PARTIAL] = {MNL_TYPE_U32, 0, "CTL_RC_FIRST_PARTIAL", NULL},
    [CTL_RC_BUILD_NS] = {MNL_TYPE_U64, 0, "CTL_RC_BUILD_NS", NULL},
    [CTL_RC_BYTES] = {MNL_TYPE_U64, 0, "CTL_RC_BYTES", NULL},
    [CTL_RC_UPDATED] = {MNL_TYPE_U32, 0, "CTL_RC_UPDATED", NULL},
};
static const struct ctl_level cls_level = LEVEL(cls_pol);

static const struct ctl_pol rules_pol[CTL_A_MAX + 1] = {
    [CTL_RA_TEXT] = {MNL_TYPE_BINARY, 0, "CTL_RA_TEXT", NULL},
    [CTL_RA_NAME] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_NAME", NULL},
    [CTL_RA_FLAGS] = {MNL_TYPE_U32, 0, "CTL_RA_FLAGS", NULL},
    [CTL_RA_TABLE] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_TABLE", NULL},
    [CTL_RA_CHAIN] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_CHAIN", NULL},
    [CTL_RA_POLICY] = {MNL_TYPE_U32, 0, "CTL_RA_POLICY", NULL},
    [CTL_RA_LIST] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_LIST", NULL},
    [CTL_RA_CLS] = {MNL_TYPE_NESTED, 0, "CTL_RA_CLS", &cls_level},
    [CTL_RA_CLS_MODE] = {MNL_TYPE_U32, 0, "CTL_RA_CLS_MODE", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
};
const struct ctl_level ctl_rules_level = LEVEL(rules_pol);

int ctl_decode_rules_request(const struct nlmsghdr *nlh, const struct nlattr *const *tb,
			     struct ctl_request *req, struct ctl_error *err)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
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
	if (tb[CTL_RA_LIST])
		req->list = mnl_attr_get_str(tb[CTL_RA_LIST]);
	if (tb[CTL_RA_FLAGS])
		req->rflags = ntohl(mnl_attr_get_u32(tb[CTL_RA_FLAGS]));
	if (tb[CTL_RA_POLICY]) {
		req->policy = ntohl(mnl_attr_get_u32(tb[CTL_RA_POLICY]));
		req->has_policy = true;
		if (req->policy != NF_DROP && req->policy != NF_ACCEPT)
			return ctl_fail(
			    err, -EINVAL, tb[CTL_RA_POLICY],
			    "CTL_RA_POLICY: %u is neither NF_DROP (0) nor NF_ACCEPT (1)",
			    req->policy);
	}
	if (req->family != AF_INET && req->family != AF_INET6)
		return ctl_fail(err, -EAFNOSUPPORT, NULL,
				"nfgen_family %u: want AF_INET or AF_INET6", req->family);
	switch (CTL_MSG(req->type)) {
	case CTL_RULES_REPLACE:
		if (!req->text_first)
			return ctl_missing(err, CTL_RA_TEXT, NULL, "CTL_RA_TEXT");
		break;
	case CTL_RULES_POLICY:
		if (!req->table)
			return ctl_missing(err, CTL_RA_TABLE, NULL, "CTL_RA_TABLE");
		if (!req->chain)
			return ctl_missing(err, CTL_RA_CHAIN, NULL, "CTL_RA_CHAIN");
		if (!req->has_policy)
			return ctl_missing(err, CTL_RA_POLICY, NULL, "CTL_RA_POLICY");
		break;
	case CTL_RULES_RECENT:
		if (req->text_first && !req->list)
			return ctl_missing(err, CTL_RA_LIST, NULL,
					   "CTL_RA_LIST (with CTL_RA_TEXT)");
		break;
	case CTL_RULES_ZERO:
		if (req->chain && !req->table)
			return ctl_missing(err, CTL_RA_TABLE, NULL,
					   "CTL_RA_TABLE (with CTL_RA_CHAIN)");
		break;
	}
	return 0;
}

void ctl_copy_text(const struct nlmsghdr *nlh, char *dst)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
		if (mnl_attr_get_type(a) != CTL_RA_TEXT)
			continue;
		memcpy(dst, mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
		dst += mnl_attr_get_payload_len(a);
	}
}

int ctl_put_cls(struct nlmsghdr *nlh, size_t room, const struct ctl_cls_chain *cc, int mode)
{
	uint32_t len = nlh->nlmsg_len;
	struct nlattr *n;

	if (!mnl_attr_put_u32_check(nlh, room, CTL_RA_CLS_MODE, htonl((uint32_t)mode)) ||
	    !(n = mnl_attr_nest_start_check(nlh, room, CTL_RA_CLS)) ||
	    !mnl_attr_put_strz_check(nlh, room, CTL_RC_TABLE, cc->table) ||
	    !mnl_attr_put_strz_check(nlh, room, CTL_RC_CHAIN, cc->chain) ||
	    !mnl_attr_put_u32_check(nlh, room, CTL_RC_ENGINE, htonl(cc->engine)) ||
	    (cc->why[0] && !mnl_attr_put_strz_check(nlh, room, CTL_RC_WHY, cc->why)) ||
	    !mnl_attr_put_u32_check(nlh, room, CTL_RC_RULES, htonl(cc->rules)) ||
	    !mnl_attr_put_u32_check(nlh, room, CTL_RC_PARTIAL, htonl(cc->partial)) ||
	    !mnl_attr_put_u32_check(nlh, room, CTL_RC_FIRST_PARTIAL, htonl(cc->first_partial)) ||
	    (cc->has_build &&
	     !mnl_attr_put_u64_check(nlh, room, CTL_RC_BUILD_NS, htobe64(cc->build_ns))) ||
	    !mnl_attr_put_u64_check(nlh, room, CTL_RC_BYTES, htobe64(cc->bytes)) ||
	    (cc->updated &&
	     !mnl_attr_put_u32_check(nlh, room, CTL_RC_UPDATED, htonl(cc->updated)))) {
		nlh->nlmsg_len = len;
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static void copy_str(char *dst, size_t len, const struct nlattr *a)
{
	snprintf(dst, len, "%s", a ? mnl_attr_get_str(a) : "");
}

int ctl_parse_cls(const struct nlmsghdr *nlh, struct ctl_cls_chain *cc, int *mode,
		  struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1], *nb[CTL_RC_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	memset(cc, 0, sizeof(*cc));
	*mode = -1;
	if ((r = ctl_check_message(nlh, tb, err)) < 0)
		return r;
	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_RULES, CTL_RULES_CLASSIFIER))
		return ctl_fail(err, -EINVAL, NULL, "not a RULES_CLASSIFIER message");
	if (tb[CTL_RA_CLS_MODE])
		*mode = (int)ntohl(mnl_attr_get_u32(tb[CTL_RA_CLS_MODE]));
	if (!tb[CTL_RA_CLS])
		return ctl_missing(err, CTL_RA_CLS, NULL, "CTL_RA_CLS");
	if ((r = ctl_validate_level(&cls_level, tb[CTL_RA_CLS], NULL, "", nb, err, 0)) < 0)
		return r;
	if (!nb[CTL_RC_TABLE] || !nb[CTL_RC_CHAIN])
		return ctl_missing(err, nb[CTL_RC_TABLE] ? CTL_RC_CHAIN : CTL_RC_TABLE,
				   tb[CTL_RA_CLS], "CTL_RA_CLS.CTL_RC_TABLE/CHAIN");
	copy_str(cc->table, sizeof(cc->table), nb[CTL_RC_TABLE]);
	copy_str(cc->chain, sizeof(cc->chain), nb[CTL_RC_CHAIN]);
	copy_str(cc->why, sizeof(cc->why), nb[CTL_RC_WHY]);
#define U32(a, f)                                                                                  \
	do {                                                                                       \
		if (nb[a])                                                                         \
			cc->f = ntohl(mnl_attr_get_u32(nb[a]));                                    \
	} while (0)
	U32(CTL_RC_ENGINE, engine);
	U32(CTL_RC_RULES, rules);
	U32(CTL_RC_PARTIAL, partial);
	U32(CTL_RC_FIRST_PARTIAL, first_partial);
	U32(CTL_RC_UPDATED, updated);
#undef U32
	if (nb[CTL_RC_BUILD_NS]) {
		cc->has_build = true;
		cc->build_ns = ctl_attr_get_be64(nb[CTL_RC_BUILD_NS]);
	}
	if (nb[CTL_RC_BYTES])
		cc->bytes = ctl_attr_get_be64(nb[CTL_RC_BYTES]);
	return 0;
}
