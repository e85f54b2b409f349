// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> the control protocol's parsers, as a server and a client meet
 * them. The input is walked as a datagram of netlink messages (ctl_nlmsg_ok); each message
 * goes through ctl_parse_request, and an error is turned into the reply the server would send
 * (which must parse back with the same code); it also goes through the reply decoders
 * (ctl_parse_ct, ctl_parse_stats, ctl_parse_error). A decoded entry is re-encoded and must
 * decode to the same tuples; so must a decoded expectation (ctl_parse_exp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An expectation decoded is encoded again and must decode to the same tuples and print. */
static void reencode_exp(const struct ctl_exp *x)
{
	static unsigned char b[4096];
	struct nlmsghdr *nlh;
	struct ctl_error err;
	struct ctl_exp d;
	char line[640];

	nlh = ctl_msg_start(b, sizeof(b), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW), 0, 0,
			    x->tuple.t.family, false);
	if (!nlh || ctl_put_exp(nlh, sizeof(b), x) < 0)
		abort();
	if (ctl_parse_exp(nlh, &d, &err) < 0) {
		fprintf(stderr, "re-encoded expectation does not parse: %s\n", err.msg);
		abort();
	}
	if ((x->have & CTL_X_TUPLE) && !ct_tuple_eq(&x->tuple.t, &d.tuple.t))
		abort();
	if ((x->have & CTL_X_MASTER) && !ct_tuple_eq(&x->master.t, &d.master.t))
		abort();
	ctl_exp_format(&d, line, sizeof(line));
}

static void reencode(const struct ctl_ct *c)
{
	static unsigned char b[4096];
	struct nlmsghdr *nlh;
	struct ctl_error err;
	struct ctl_ct d;
	char line[512];

	nlh = ctl_msg_start(b, sizeof(b), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW), 0, 0, c->orig.family,
			    false);
	if (!nlh || ctl_put_ct(nlh, sizeof(b), c) < 0)
		abort();
	if (ctl_parse_ct(nlh, &d, &err) < 0) {
		fprintf(stderr, "re-encoded entry does not parse: %s\n", err.msg);
		abort();
	}
	if ((c->have & CTL_C_ORIG) && !ct_tuple_eq(&c->orig, &d.orig))
		abort();
	ctl_ct_format(&d, line, sizeof(line));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char reply[2048];
	unsigned char *copy;
	const struct nlmsghdr *nlh;
	int rem = (int)size;

	if (size > 1 << 16)
		return 0;
	/* aligned, and exactly `size` bytes so ASan sees every overread */
	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	for (nlh = (const void *)copy; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		struct ctl_request req;
		struct ctl_error err;
		struct ctl_stats st;
		struct ctl_ct c;
		struct ctl_exp x;
		char msg[256];
		uint32_t line;
		int code;

		if (ctl_parse_request(nlh, &req, &err) < 0) {
			int n = ctl_put_error(reply, sizeof(reply), nlh, &err);

			if (n < 0)
				abort();
			if (ctl_parse_error((const void *)reply, &code, msg, sizeof(msg), &line) < 0 ||
			    code != err.code)
				abort();
			/* the offset named must lie inside the request */
			if (err.attr && ((const unsigned char *)err.attr < (const unsigned char *)nlh ||
					 (const unsigned char *)err.attr >=
					     (const unsigned char *)nlh + nlh->nlmsg_len))
				abort();
		} else if (req.text_first) {
			char *t = malloc(req.text_len + 1);

			if (t) {
				ctl_copy_text(nlh, t);
				free(t);
			}
		}
		if (ctl_parse_ct(nlh, &c, &err) == 0)
			reencode(&c);
		if (ctl_parse_exp(nlh, &x, &err) == 0)
			reencode_exp(&x);
		memset(&st, 0, sizeof(st));
		(void)ctl_parse_stats(nlh, &st, &err);
		(void)ctl_parse_error(nlh, &code, msg, sizeof(msg), &line);
	}
	free(copy);
	return 0;
}
