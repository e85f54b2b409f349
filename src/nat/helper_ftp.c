// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NAT for FTP (RFC 959, RFC 2428): the endpoint a command names is rewritten to the one the
 * other side must use, and the expectation is made for that endpoint.
 *
 *   command (direction)    named        rewritten to                        when
 *   PORT h,h,h,h,p,p (o)   client's     the address the server sees the      SNAT (client inside)
 *   EPRT |1|a|p| |2|a|p|   endpoint     client as (reply tuple's dst), port
 *   227 (h,h,h,h,p,p) (r)  server's     the address the client talks to      DNAT (server inside)
 *   229 (|||p|)      (r)   server port  (original tuple's dst), port
 *
 * The port: the one named if the translated endpoint is free, else the next one up whose
 * expectation does not clash and that no NAT mapping owns on that address (a mapping's
 * inbound traffic must not be taken for a data connection); none: the segment is dropped.
 * The text is rewritten only when the address or the port changed; its length may change
 * (192,168,1,10 -> 203,0,113,1), and seqadj.c shifts the rest of the stream. A 229 names
 * no address: only a new port rewrites it. A connection NAT leaves alone is left to the
 * conntrack helper (return 1). EPRT/EPSV keep the delimiter the sender chose.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/helper.h"

/* The replacement text for m with addr:port; its length, 0 when m's type has no form here. */
static uint32_t format(const struct ct_helper_match *m, char delim, int family,
		       const union pt_addr *a, uint16_t port, char *buf, size_t len)
{
	char at[64];
	int n;

	switch (m->type) {
	case CT_FTP_PORT:
	case CT_FTP_PASV:
		n = snprintf(buf, len, "%u,%u,%u,%u,%u,%u", a->b[0], a->b[1], a->b[2], a->b[3],
			     port >> 8, port & 0xff);
		break;
	case CT_FTP_EPRT:
		pt_addr_str(family, a, at, sizeof(at));
		n = snprintf(buf, len, "%c%c%c%s%c%u%c", delim, family == AF_INET ? '1' : '2',
			     delim, at, delim, port, delim);
		break;
	case CT_FTP_EPSV:
		n = snprintf(buf, len, "%c%c%c%u%c", delim, delim, delim, port, delim);
		break;
	default:
		return 0;
	}
	return n > 0 && (size_t)n < len ? (uint32_t)n : 0;
}

int nat_helper_ftp(void *priv, struct ct_table *t, struct ct_entry *e, struct pkt *p,
		   unsigned ctinfo, const struct ct_helper_match *m, struct ct_expect *x,
		   uint64_t now)
{
	struct nat_table *n = priv;
	enum ct_dir dir = ctinfo >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	const struct ct_tuple *other = ct_entry_tuple(e, !dir);
	union pt_addr addr = other->dst; /* what the other side calls the sender */
	char text[96], delim = '|';
	uint16_t port;
	uint32_t tlen;
	int r;

	if (!nat_entry_translated(e))
		return 1;
	if (m->type != CT_FTP_PORT && m->type != CT_FTP_PASV && m->type != CT_FTP_EPRT &&
	    m->type != CT_FTP_EPSV)
		return 1;
	if ((m->type == CT_FTP_EPRT || m->type == CT_FTP_EPSV) &&
	    pkt_copy_out(p, m->off, &delim, 1))
		return -EINVAL;
	x->saved_addr = m->addr;
	x->saved_port = m->port;
	x->dir = (uint8_t)dir;
	x->expectfn = nat_follow_master;
	r = nat_expect_port(n, t, e, x, m->port, now);
	if (r < 0)
		return r;
	port = x->tuple.d.port;
	if (port == m->port && pt_addr_eq(&addr, &m->addr))
		return 0; /* the other side can use it as it is */
	tlen = format(m, delim, other->family, &addr, port, text, sizeof(text));
	if (!tlen)
		return -EINVAL;
	return nat_mangle_tcp(t, p, e, dir, m->off, m->len, text, tlen);
}
