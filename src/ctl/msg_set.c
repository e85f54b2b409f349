// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages, the set subsystem (docs/ctl.md): an ipset(8) command line run by the box.
 *
 *   request  nlmsghdr | nfgenmsg {AF_UNSPEC, 0, 0}
 *            CTL_SA_ARG (2) string, repeated: "add", "blocked", "192.0.2.7" ...
 *            CTL_SA_TEXT (1) binary, repeated: restore's input   CTL_SA_FLAGS (3) be32
 *   answer   NLM_F_MULTI: CTL_SA_OUTPUT (4) chunks ..., then CTL_SA_STATUS (5) be32 exit code
 *            + CTL_SA_MESSAGE (6) string; NLMSG_DONE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "ctl/msg_int.h"

static const struct ctl_pol set_pol[CTL_A_MAX + 1] = {
    [CTL_SA_TEXT] = {MNL_TYPE_BINARY, 0, "CTL_SA_TEXT", NULL},
    [CTL_SA_ARG] = {MNL_TYPE_NUL_STRING, 0, "CTL_SA_ARG", NULL},
    [CTL_SA_FLAGS] = {MNL_TYPE_U32, 0, "CTL_SA_FLAGS", NULL},
    [CTL_SA_OUTPUT] = {MNL_TYPE_BINARY, 0, "CTL_SA_OUTPUT", NULL},
    [CTL_SA_STATUS] = {MNL_TYPE_U32, 0, "CTL_SA_STATUS", NULL},
    [CTL_SA_MESSAGE] = {MNL_TYPE_NUL_STRING, 0, "CTL_SA_MESSAGE", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
};
const struct ctl_level ctl_set_level = LEVEL(set_pol);

int ctl_decode_set_request(const struct nlmsghdr *nlh, const struct nlattr *const *tb,
			   struct ctl_request *req, struct ctl_error *err)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
		switch (mnl_attr_get_type(a)) {
		case CTL_SA_TEXT:
			if (!req->text_first)
				req->text_first = a;
			req->text_len += mnl_attr_get_payload_len(a);
			break;
		case CTL_SA_ARG:
			if (req->nargs == CTL_SET_MAX_ARGS)
				return ctl_fail(err, -E2BIG, a, "CTL_SA_ARG: more than %d words",
						CTL_SET_MAX_ARGS);
			req->args[req->nargs++] = mnl_attr_get_str(a);
			break;
		}
	}
	if (tb[CTL_SA_FLAGS])
		req->rflags = ntohl(mnl_attr_get_u32(tb[CTL_SA_FLAGS]));
	if (!req->nargs && !(req->rflags & CTL_RF_MORE))
		return ctl_missing(err, CTL_SA_ARG, NULL, "CTL_SA_ARG");
	return 0;
}
