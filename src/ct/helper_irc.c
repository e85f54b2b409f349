// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IRC helper: DCC offers a client makes through the server (CTCP inside PRIVMSG).
 *
 *   client -> server  PRIVMSG bob :\1DCC SEND file.txt 167772162 5001 1234\1\r\n
 *                                  \1DCC CHAT chat 167772162 5002\1\r\n
 *                                                  ^^^^^^^^^^^^^^ m.off/m.len (NAT)
 *   the address is the IPv4 address as one decimal number (10.0.0.2 = 167772162)
 *   expected: anyone -> client 10.0.0.2:5001 (TCP), RELATED
 *
 * As Linux's nf_conntrack_irc (with the 2022 tightening): only the client's direction, only
 * once traffic went both ways; within the first 4095 bytes of a segment, after blanks, a
 * PRIVMSG whose message (after the first " :") starts with "\1DCC " and one of SEND, CHAT,
 * MOVE, TSEND, SCHAT; the argument after the next blank is skipped, a "\n" must follow in the
 * segment; an address that is neither the client's nor the one the server sees (NAT), or
 * port 0, is a forged offer and ignored. IPv4 only.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ct/helper_int.h"

#define IRC_SEARCH_MAX 4095
#define IRC_MINMATCH   5

static const char *const dcc_protos[] = {"SEND ", "CHAT ", "MOVE ", "TSEND ", "SCHAT "};

/* Decimal digits at d[*i] (no sign, no blanks), wrapping as unsigned long does. */
static uint64_t decimal(const char *d, size_t n, size_t *i)
{
	uint64_t v = 0;

	while (*i < n && d[*i] >= '0' && d[*i] <= '9')
		v = v * 10 + (uint64_t)(d[(*i)++] - '0');
	return v;
}

/* The address and port after the protocol word at d[i]: 0, or -1. beg, end: where the text is. */
static int parse_dcc(const char *d, size_t n, size_t i, uint32_t *ip, uint16_t *port, size_t *beg,
		     size_t *end)
{
	size_t k;

	/* skip the argument (file name, "chat"): at least "AAAAAAAA P\1\n" must remain */
	while (d[i++] != ' ')
		if (i + 12 > n)
			return -1;
	for (k = i; k < n && d[k] != '\n'; k++)
		;
	if (k >= n)
		return -1;
	*beg = i;
	*ip = (uint32_t)decimal(d, n, &i);
	while (d[i] == ' ')
		i++; /* stops at the "\n" at the latest */
	*port = (uint16_t)decimal(d, n, &i);
	*end = i;
	return 0;
}

static int irc_help(struct ct_table *t, struct ct_entry *e, struct pkt *p, unsigned ctinfo,
		    uint64_t now, const char **why)
{
	const struct ct_tuple *orig = ct_entry_tuple(e, CT_DIR_ORIGINAL);
	const struct ct_tuple *reply = ct_entry_tuple(e, CT_DIR_REPLY);
	char buf[IRC_SEARCH_MAX];
	uint32_t off, len, at;
	const uint8_t *c;
	uint8_t cb;
	char head[7];
	const char *d;
	void *heap; /* never used: len <= sizeof(buf) */
	long i = 0, n;

	if (ctinfo != CT_ESTABLISHED) /* the client's direction, traffic seen both ways */
		return 0;
	ct_helper_payload(p, &off, &len);
	if (!len)
		return 0;
	if (len > IRC_SEARCH_MAX)
		len = IRC_SEARCH_MAX;
	n = (long)len;
	/* leading blanks and "PRIVMSG ", read in place */
	while (i < n - 10 && (c = pkt_header(p, off + (uint32_t)i, 1, &cb)) &&
	       (*c == ' ' || *c == '\r' || *c == '\n'))
		i++;
	if (i < n - 10) {
		char word[8];

		if (pkt_copy_out(p, off + (uint32_t)i, word, 8) || strncasecmp("PRIVMSG ", word, 8))
			return 0;
		i += 8;
	}
	/* the first " :" (the message) must start "\1DCC ": found by textsearch in the
	 * segments; only a segment that has one is copied for the offer's numbers */
	at = ct_helper_search(p, off + (uint32_t)i, (uint32_t)(n - i), " :", 0);
	if (at == UINT32_MAX || i + (long)at >= n - (21 + IRC_MINMATCH) ||
	    pkt_copy_out(p, off + (uint32_t)i + at, head, sizeof(head)) ||
	    memcmp(head, " :\1DCC ", sizeof(head)))
		return 0;
	i += (long)at;
	d = ct_helper_bytes(p, off, len, buf, sizeof(buf), &heap);
	if (!d)
		return 0;
	while (i < n - (21 + IRC_MINMATCH)) {
		if (memcmp(d + i, " :", 2)) {
			i++;
			continue;
		}
		i += 2;
		if (memcmp(d + i, "\1DCC ", 5))
			return 0;
		i += 5;
		for (unsigned k = 0; k < sizeof(dcc_protos) / sizeof(dcc_protos[0]); k++) {
			size_t pl = strlen(dcc_protos[k]), beg, end;
			struct ct_helper_match m = {.type = CT_IRC_DCC, .family = AF_INET};
			struct ct_expect x;
			uint32_t ip, nip;
			uint16_t port;

			if (memcmp(d + i, dcc_protos[k], pl))
				continue;
			i += (long)pl;
			if (parse_dcc(d, (size_t)n, (size_t)i, &ip, &port, &beg, &end))
				continue;
			nip = htonl(ip);
			/* the client's address, or the one the server sees it as (NAT) */
			if ((orig->src.w[0] != nip && reply->dst.w[0] != nip) || !port)
				continue;
			ct_expect_init(&x, CT_EXPECT_CLASS_DEFAULT, AF_INET, NULL, &orig->src,
				       IPPROTO_TCP, NULL, port);
			x.dir = CT_DIR_ORIGINAL;
			m.off = off + (uint32_t)beg;
			m.len = (uint32_t)(end - beg);
			memcpy(m.addr.b, &nip, 4);
			m.port = port;
			return ct_helper_expect(t, e, p, ctinfo, &m, &x, now, why);
		}
	}
	return 0;
}

const struct ct_helper ct_helper_irc = {
    .name = "irc",
    .id = CT_HELPER_IRC,
    .l4proto = IPPROTO_TCP,
    .ipv4 = true,
    .port = 6667,
    .max_expected = 8,
    .timeout = 300 * CT_SEC,
    .help = irc_help,
};
