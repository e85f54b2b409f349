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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netfilter.h>

#include "ctl/msg_int.h"

static const struct ctl_pol rules_pol[CTL_A_MAX + 1] = {
    [CTL_RA_TEXT] = {MNL_TYPE_BINARY, 0, "CTL_RA_TEXT", NULL},
    [CTL_RA_NAME] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_NAME", NULL},
    [CTL_RA_FLAGS] = {MNL_TYPE_U32, 0, "CTL_RA_FLAGS", NULL},
    [CTL_RA_TABLE] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_TABLE", NULL},
    [CTL_RA_CHAIN] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_CHAIN", NULL},
    [CTL_RA_POLICY] = {MNL_TYPE_U32, 0, "CTL_RA_POLICY", NULL},
    [CTL_RA_LIST] = {MNL_TYPE_NUL_STRING, 0, "CTL_RA_LIST", NULL},
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
