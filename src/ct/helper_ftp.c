// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The FTP helper: the data connections a control connection announces (RFC 959, RFC 2428).
 *
 *   client -> server   PORT h1,h2,h3,h4,p1,p2\r\n       active: server connects to h:p
 *                      EPRT |1|10.0.0.2|5001|\r\n       (|2|2001:db8::2|5001| for IPv6)
 *   server -> client   227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)
 *                      229 Entering Extended Passive Mode (|||5001|)
 *                                                       passive: client connects to h:p
 *                                      ^^^^^^^^^^^^^^^^ m.off/m.len: the text NAT rewrites
 *
 * As Linux's nf_conntrack_ftp behaves:
 * - only once traffic went both ways (ctinfo ESTABLISHED or ESTABLISHED_REPLY);
 * - a command is looked for only at the start of a segment whose sequence number is one of
 *   the last two seen right after a "\n" in that direction (so the first line each way, the
 *   banner and USER, is never parsed), case-insensitively;
 * - a segment that starts like a command but ends before its address is complete (a PORT
 *   line split across segments) is DROPPED, so the sender retransmits it whole; the rest
 *   of a split line is not at a line start and is not parsed;
 * - an address that is not the sender's own is not expected (the module's loose=0), and
 *   the expected connection comes from the other side's address, from any port;
 * - an expectation that cannot be added (clash, table full) drops the segment.
 */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "ct/helper_int.h"
#include "textsearch/textsearch.h"

#define FTP_BUF 2048

/* Per connection: sequence numbers right after a "\n", per direction. */
struct ftp_state {
	uint32_t seq_aft_nl[2][2];
	uint16_t nl_num[2];
};
_Static_assert(sizeof(struct ftp_state) <= CT_HELPER_DATA_MAX, "ftp state too big");

/* What a command named: the address starts as the sender's (EPSV names none). */
struct ftp_cmd {
	uint8_t family;
	union pt_addr addr;
	uint16_t port;
};

/* A number parser: the length of the text it read at data (0: not understood); may move
 * *off forward to where the number text starts. */
typedef uint32_t (*ftp_getnum)(const char *d, size_t n, struct ftp_cmd *cmd, char term,
			       uint32_t *off);

/* `count` decimal numbers separated by sep; ends at term (any other character when term is
 * 0) after the last one. Values wrap as 32-bit numbers, as the kernel's do. */
static uint32_t numbers(const char *d, size_t n, uint32_t *v, unsigned count, char sep, char term)
{
	unsigned i = 0;

	memset(v, 0, sizeof(*v) * count);
	for (size_t len = 0; len < n && i < count; len++) {
		if (d[len] >= '0' && d[len] <= '9')
			v[i] = v[i] * 10 + (uint32_t)(d[len] - '0');
		else if (d[len] == sep)
			i++;
		else
			return (d[len] == term || !term) && i == count - 1 ? (uint32_t)len : 0;
	}
	return 0;
}

/* "h1,h2,h3,h4,p1,p2" (RFC 959) */
static uint32_t get_rfc959(const char *d, size_t n, struct ftp_cmd *cmd, char term, uint32_t *off)
{
	uint32_t v[6], len = numbers(d, n, v, 6, ',', term), a;

	(void)off;
	if (!len)
		return 0;
	a = htonl(v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]);
	memcpy(cmd->addr.b, &a, 4); /* on IPv6 only the first 4 bytes: then it is not ours */
	cmd->port = (uint16_t)(v[4] << 8 | v[5]);
	return len;
}

/* 227: RFC 1123 says scan for the first digit, the parentheses may be missing. */
static uint32_t get_rfc1123(const char *d, size_t n, struct ftp_cmd *cmd, char term, uint32_t *off)
{
	size_t i = 0;

	(void)term;
	while (i < n && !isdigit((unsigned char)d[i]))
		i++;
	if (i == n)
		return 0;
	*off += (uint32_t)i;
	return get_rfc959(d + i, n - i, cmd, 0, off);
}

/* A port up to delim, from index start; the index after delim, or 0. */
static uint32_t get_port(const char *d, size_t start, size_t n, char delim, uint16_t *port)
{
	uint16_t v = 0;

	for (size_t i = start; i < n; i++) {
		if (d[i] == delim) {
			if (!v)
				return 0;
			*port = v;
			return (uint32_t)i + 1;
		}
		if (d[i] < '0' || d[i] > '9')
			return 0;
		v = (uint16_t)(v * 10 + (d[i] - '0'));
	}
	return 0;
}

static bool bad_delim(char c)
{
	return isdigit((unsigned char)c) || c < 33 || c > 126;
}

/* "|1|132.235.1.2|6275|" or "|2|3ffe::1|6275|" (RFC 2428); the protocol must be the
 * connection's. */
static uint32_t get_eprt(const char *d, size_t n, struct ftp_cmd *cmd, char term, uint32_t *off)
{
	uint32_t len = 0;
	char delim;

	(void)term, (void)off;
	if (n <= 3)
		return 0;
	delim = d[0];
	if (bad_delim(delim) || d[2] != delim)
		return 0;
	if ((cmd->family == AF_INET && d[1] != '1') || (cmd->family == AF_INET6 && d[1] != '2'))
		return 0;
	if (d[1] == '1') {
		uint32_t v[4], a;

		len = numbers(d + 3, n - 3, v, 4, '.', delim);
		if (len) {
			a = htonl(v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]);
			memcpy(cmd->addr.b, &a, 4);
		}
	} else {
		const char *end = memchr(d + 3, delim, n - 3);
		char text[INET6_ADDRSTRLEN + 1];
		size_t l = end ? (size_t)(end - (d + 3)) : 0;

		if (end && l && l < sizeof(text)) {
			memcpy(text, d + 3, l);
			text[l] = 0;
			if (inet_pton(AF_INET6, text, cmd->addr.b) == 1)
				len = (uint32_t)l;
		}
	}
	if (!len)
		return 0;
	return get_port(d, 3 + len + 1, n, delim, &cmd->port);
}

/* "|||6446|" */
static uint32_t get_epsv(const char *d, size_t n, struct ftp_cmd *cmd, char term, uint32_t *off)
{
	(void)term, (void)off;
	if (n <= 3 || bad_delim(d[0]) || d[1] != d[0] || d[2] != d[0])
		return 0;
	return get_port(d, 3, n, d[0], &cmd->port);
}

struct ftp_search {
	const char *pattern;
	size_t plen;
	char skip,
	    term; /* skip to after `skip` (0: right after the pattern), numbers end at term */
	enum ct_helper_match_type type;
	ftp_getnum getnum;
};

static const struct ftp_search ftp_search[2][2] = {
    [CT_DIR_ORIGINAL] =
	{
	    {"PORT", 4, ' ', '\r', CT_FTP_PORT, get_rfc959},
	    {"EPRT", 4, ' ', '\r', CT_FTP_EPRT, get_eprt},
	},
    [CT_DIR_REPLY] =
	{
	    {"227 ", 4, 0, 0, CT_FTP_PASV, get_rfc1123},
	    {"229 ", 4, '(', ')', CT_FTP_EPSV, get_epsv},
	},
};

/* 1: found (*off, *len: the number text), 0: not this command, -1: partial. */
static int find_command(const char *d, size_t n, const struct ftp_search *s, struct ftp_cmd *cmd,
			uint32_t *off, uint32_t *len)
{
	size_t i = s->plen;

	if (!n)
		return 0;
	if (n <= s->plen)
		return strncasecmp(d, s->pattern, n) ? 0 : -1;
	if (strncasecmp(d, s->pattern, s->plen))
		return 0;
	if (s->skip) {
		while (d[i] != s->skip) {
			if (i == n - 1)
				return -1;
			i++;
		}
		i++;
	}
	*off = (uint32_t)i;
	*len = s->getnum(d + i, n - i, cmd, s->term, off);
	return *len ? 1 : -1;
}

static bool after_nl(const struct ftp_state *st, int dir, uint32_t seq)
{
	for (unsigned i = 0; i < st->nl_num[dir]; i++)
		if (st->seq_aft_nl[dir][i] == seq)
			return true;
	return false;
}

/* Remember seq (just after a "\n"); of two remembered, the older is replaced by a newer. */
static void remember_nl(struct ftp_state *st, int dir, uint32_t seq)
{
	unsigned oldest;

	if (after_nl(st, dir, seq))
		return;
	if (st->nl_num[dir] < 2) {
		st->seq_aft_nl[dir][st->nl_num[dir]++] = seq;
		return;
	}
	oldest = ct_seq_before(st->seq_aft_nl[dir][0], st->seq_aft_nl[dir][1]) ? 0 : 1;
	if (ct_seq_after(seq, st->seq_aft_nl[dir][oldest]))
		st->seq_aft_nl[dir][oldest] = seq;
}

static int ftp_help(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		    uint64_t now, const char **why)
{
	int dir = ctinfo >= CT_IS_REPLY ? CT_DIR_REPLY : CT_DIR_ORIGINAL;
	const struct ct_tuple *mine = ct_entry_tuple(e, dir), *other = ct_entry_tuple(e, !dir);
	uint32_t off, len, seq, moff = 0, mlen = 0;
	struct ct_helper_match m;
	struct ct_expect x;
	struct ct_help *help;
	struct ftp_state *st;
	struct ftp_cmd cmd;
	uint8_t th[8], buf[FTP_BUF], lastbuf;
	const uint8_t *tcp, *last;
	const char *d;
	void *heap = NULL;
	bool ends_in_nl;
	int found = 0, r = 0;
	unsigned i;

	if (ctinfo != CT_ESTABLISHED && ctinfo != CT_ESTABLISHED_REPLY)
		return 0;
	ct_helper_payload(p, &off, &len);
	tcp = pkt_header(p, p->info.l4off, sizeof(th), th);
	if (!len || !tcp || !(last = pkt_header(p, off + len - 1, 1, &lastbuf)))
		return 0;
	help = ct_entry_help(e);
	st = (struct ftp_state *)help->data;
	seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | (uint32_t)tcp[6] << 8 | tcp[7];
	ends_in_nl = *last == '\n';

	if (!after_nl(st, dir, seq))
		goto out_update_nl;

	/* Which command starts the segment, found by textsearch in the segments as they lie;
	 * only a segment that starts with one (or is shorter than one: maybe a partial command)
	 * is copied, for its numbers. */
	for (i = 0; i < 2; i++)
		if (len <= ftp_search[dir][i].plen ||
		    ct_helper_search(p, off, (uint32_t)ftp_search[dir][i].plen,
				     ftp_search[dir][i].pattern, TS_IGNORECASE) == 0)
			break;
	if (i == 2)
		goto out_update_nl;
	d = ct_helper_bytes(p, off, len, buf, sizeof(buf), &heap);
	if (!d)
		return 0;
	cmd.family = mine->family;
	cmd.addr = mine->src;
	cmd.port = 0;
	for (i = 0; i < 2; i++) {
		found = find_command(d, len, &ftp_search[dir][i], &cmd, &moff, &mlen);
		if (found)
			break;
	}
	if (found < 0) {
		*why = "ftp: partial command";
		r = -EAGAIN;
		goto out; /* dropped: the sender sends it again, whole */
	}
	if (!found)
		goto out_update_nl;
	/* only the sender's own address (loose=0) */
	if (!pt_addr_eq(&cmd.addr, &mine->src))
		goto out_update_nl;
	ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, mine->family, &other->src, &other->dst,
		       IPPROTO_TCP, NULL, cmd.port);
	x.dir = (uint8_t)dir;
	m.type = ftp_search[dir][i].type;
	m.off = off + moff;
	m.len = mlen;
	m.family = cmd.family;
	m.addr = cmd.addr;
	m.port = cmd.port;
	r = ct_helper_expect(t, e, p, ctinfo, &m, &x, now, why);
	/* the extension area may have moved while the expectation was added */
	st = (struct ftp_state *)ct_entry_help(e)->data;
out_update_nl:
	if (ends_in_nl)
		remember_nl(st, dir, seq + len);
out:
	free(heap);
	return r;
}

const struct ct_helper ct_helper_ftp = {
    .name = "ftp",
    .id = CT_HELPER_FTP,
    .l4proto = IPPROTO_TCP,
    .ipv4 = true,
    .ipv6 = true,
    .port = 21,
    .max_expected = 1,
    .timeout = 300 * CT_SEC,
    .help = ftp_help,
};
