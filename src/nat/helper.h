/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NAT helpers (src/nat only): what NAT does when a conntrack helper (ct/helper.h) has read an
 * address out of a NATed connection's payload. Registered per table with ct_helper_set_nat
 * (helper_attach.c); the helper calls them instead of registering its expectation.
 *
 *   FTP  (helper_ftp.c)   the address/port text is rewritten to what the other side must
 *                         use (TCP payload resized, seqadj.c told), the expectation made for
 *                         that translated endpoint
 *   TFTP (helper_tftp.c)  nothing to rewrite; the expectation carries the client's own
 *                         endpoint for the reply from the server's new port
 *   IRC  (helper_irc.c)   a DCC offer's address and port rewritten, as FTP's PORT
 *
 * Either way the expectation's expectfn is nat_follow_master: the data connection, when it
 * arrives, is bound at once (before the nat table, which never sees a RELATED packet):
 *
 *   announcer = the side whose payload named the endpoint (x->dir, its master tuple mt)
 *   data connection: other side -> announcer, as the other side was told
 *     source manip       -> mt.dst             the address the announcer talks to (for a
 *                                              DCC peer: the IRC server's, as in Linux)
 *     destination manip  -> mt.src:saved_port  the endpoint the announcer really named
 */
#ifndef NAT_HELPER_H
#define NAT_HELPER_H

#include "ct/helper.h"
#include "nat/nat_int.h"

/* Does the connection's binding change anything (either manip)? */
bool nat_entry_translated(const struct ct_entry *e);

/*
 * Register x (its tuple's destination address already the translated one) for the first
 * port from `port` up that no NAT mapping owns on that address and whose expectation does
 * not clash (-EBUSY: the next one); the port is left in x->tuple.d.port. 0, or the error of
 * ct_expect_related (-EBUSY when every port up to 65535 clashes).
 */
int nat_expect_port(struct nat_table *n, struct ct_table *t, struct ct_entry *e,
		    struct ct_expect *x, uint16_t port, uint64_t now);

/* The expectfn of NAT's expectations (see above). */
void nat_follow_master(struct ct_table *t, struct ct_entry *child, const struct ct_expect *x,
		       uint64_t now);

/*
 * Replace the `len` payload bytes at absolute offset `off` of a TCP packet of direction dir
 * by text[0..tlen): the packet grows or shrinks (pkt_splice), the IPv4 total length and
 * header checksum or the IPv6 payload length follow, the TCP checksum is recomputed (the
 * bytes after the change moved), p->info's lengths are updated, and the size change is
 * recorded for sequence adjustment. 0, -EMSGSIZE, -ENOMEM, -EFAULT, -EINVAL.
 */
int nat_mangle_tcp(struct ct_table *t, struct pkt *p, struct ct_entry *e, enum ct_dir dir,
		   uint32_t off, uint32_t len, const char *text, uint32_t tlen);

int nat_helper_ftp(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		   unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		   uint64_t now);
int nat_helper_irc(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		   unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		   uint64_t now);
int nat_helper_tftp(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		    unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		    uint64_t now);

#endif
