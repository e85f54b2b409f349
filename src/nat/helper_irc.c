// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT for IRC DCC offers (ct/helper_irc.c): the client's offer names its inside address as
 * one decimal number; through SNAT it is rewritten to the address the IRC server sees, with
 * the port the expectation got there (the one named, else the next free one up):
 *
 *   PRIVMSG bob :\1DCC SEND file.txt 3232235786 5001 1234\1\r\n      (192.168.1.10)
 *   PRIVMSG bob :\1DCC SEND file.txt 3405803777 5001 1234\1\r\n      (203.0.113.1)
 *                                    ^^^^^^^^^^^^^^^ m.off/m.len: "ADDR PORT"
 *
 * The peer that accepts the offer may be anyone (the expectation has no source): its
 * connection to 203.0.113.1:5001 is bound by nat_follow_master to the client's own
 * endpoint. A connection NAT leaves alone is left to the conntrack helper.
 */
#include <stdio.h>

#include "nat/helper.h"

int nat_helper_irc(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		   unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		   uint64_t now)
{
	const struct ct_tuple *reply = ct_entry_tuple(e, CT_DIR_REPLY);
	char text[32];
	int r, n;

	(void)ctinfo;
	if (!nat_entry_translated(e) || m->type != CT_IRC_DCC)
		return 1;
	x->tuple.dst = reply->dst; /* the client as the server (and so the peer) sees it */
	x->saved_addr = m->addr;
	x->saved_port = m->port;
	x->dir = CT_DIR_ORIGINAL;
	x->expectfn = nat_follow_master;
	r = nat_expect_port(priv, t, e, x, m->port, now);
	if (r < 0)
		return r;
	if (x->tuple.d.port == m->port && pt_addr_eq(&reply->dst, &m->addr))
		return 0;
	n = snprintf(text, sizeof(text), "%u %u",
		     (unsigned)reply->dst.b[0] << 24 | (unsigned)reply->dst.b[1] << 16 |
			 (unsigned)reply->dst.b[2] << 8 | reply->dst.b[3],
		     x->tuple.d.port);
	return nat_mangle_tcp(t, p, e, CT_DIR_ORIGINAL, m->off, m->len, text, (uint32_t)n);
}
