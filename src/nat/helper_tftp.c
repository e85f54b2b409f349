// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT for TFTP (RFC 1350): the request names no endpoint, the server answers from a new
 * port to the client's endpoint as it saw it (the reply tuple's destination):
 *
 *   client 192.168.1.10:40000 --SNAT--> 203.0.113.1:40000 -> server:69      RRQ
 *   server:51234 -> 203.0.113.1:40000   expected; bound by nat_follow_master to
 *                                       192.168.1.10:40000 (the client's own port)
 *
 * The expectation names the client's own endpoint (the master's original source) as where
 * the data goes, so it is right even when SNAT changed the client's port. (Linux's
 * nf_nat_tftp saves the translated port instead, which sends the data to the wrong port
 * when the port was changed.) A connection NAT leaves alone is left to the conntrack helper.
 */
#include "nat/helper.h"

int nat_helper_tftp(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		    unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		    uint64_t now)
{
	const struct ct_tuple *orig = ct_entry_tuple(e, CT_DIR_ORIGINAL);

	(void)priv, (void)p, (void)ctinfo, (void)m;
	if (!nat_entry_translated(e))
		return 1;
	x->saved_addr = orig->src;
	x->saved_port = orig->s.port;
	x->dir = CT_DIR_ORIGINAL;
	x->expectfn = nat_follow_master;
	return ct_expect_related(t, e, x, now);
}
