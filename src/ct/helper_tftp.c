// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TFTP helper (RFC 1350): the server answers a request from a new port of its own.
 *
 *   client 10.0.0.2:40000 -> server 192.0.2.1:69   RRQ/WRQ  | opcode 1/2 | file\0 | mode\0 |
 *   server 192.0.2.1:*    -> client 10.0.0.2:40000 DATA/ACK   expected: RELATED
 *
 * As Linux's nf_conntrack_tftp: every read or write request (either direction, from the
 * first packet on, so the master may not be confirmed yet) expects a UDP connection from
 * the reply tuple's source address, any port, to its destination address and port.
 */
#include <errno.h>
#include <netinet/in.h>

#include "ct/helper_int.h"

enum { TFTP_RRQ = 1, TFTP_WRQ = 2 };

static int tftp_help(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		     uint64_t now, const char **why)
{
	const struct ct_tuple *reply = ct_entry_tuple(e, CT_DIR_REPLY);
	struct ct_helper_match m = {.type = CT_TFTP_RQ};
	uint8_t buf[2];
	const uint8_t *op;
	struct ct_expect x;
	uint32_t off, len;

	ct_helper_payload(p, &off, &len);
	if (len < 2 || !(op = pkt_header(p, off, 2, buf)))
		return 0;
	if (op[0] != 0 || (op[1] != TFTP_RRQ && op[1] != TFTP_WRQ))
		return 0;
	ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, reply->family, &reply->src, &reply->dst,
		       IPPROTO_UDP, NULL, reply->d.port);
	x.dir = ctinfo >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	m.family = reply->family;
	m.addr = reply->dst;
	m.port = reply->d.port;
	return ct_helper_expect(t, e, p, ctinfo, &m, &x, now, why);
}

const struct ct_helper ct_helper_tftp = {
    .name = "tftp",
    .id = CT_HELPER_TFTP,
    .l4proto = IPPROTO_UDP,
    .ipv4 = true,
    .ipv6 = true,
    .port = 69,
    .max_expected = 1,
    .timeout = 300 * CT_SEC,
    .help = tftp_help,
};
