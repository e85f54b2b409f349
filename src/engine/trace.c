/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TRACE lines, in the kernel's log format (nf_log_ipv4 / nf_log_ipv6 with the flags the TRACE
 * target uses: TCP sequence numbers, TCP options, IP options, UID):
 *
 *   TRACE: filter:FORWARD:rule:3 IN=lan0 OUT=wan0 MAC=<14 bytes> SRC=10.0.0.2 DST=192.0.2.1
 *   LEN=60 TOS=0x00 PREC=0x00 TTL=63 ID=0 DF PROTO=TCP SPT=1234 DPT=80 SEQ=0 ACK=0
 *   WINDOW=65535 RES=0x00 SYN URGP=0 [OPT (...)] [MARK=0x..]
 *
 * MAC= is printed only when there is an input interface (empty on raw-IP links). ICMP errors
 * show the quoted packet in [...], once. The kernel ends the line with a space; it is removed
 * here so that lines compare cleanly. The socket UID is never printed (no local sockets).
 */
#include <stdarg.h>
#include <string.h>

#include "engine/engine_int.h"

struct lbuf {
	char *s;
	size_t len, pos;
};

__attribute__((format(printf, 2, 3))) static void add(struct lbuf *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (m->pos >= m->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->s + m->pos, m->len - m->pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->pos = m->pos + (size_t)n < m->len ? m->pos + (size_t)n : m->len - 1;
}

static uint16_t rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* An address out of a header (which need not be aligned for union pt_addr). */
static const char *addr_str(int fam, const uint8_t *at, char *buf, size_t len)
{
	union pt_addr a;

	memset(&a, 0, sizeof(a));
	memcpy(a.b, at, fam == AF_INET6 ? 16 : 4);
	return pt_addr_str(fam, &a, buf, len);
}

static uint32_t left(const struct pkt *p, uint32_t off)
{
	return off < p->len ? p->len - off : 0;
}

static void add_hex(struct lbuf *m, const struct pkt *p, uint32_t off, uint32_t n)
{
	uint8_t buf[64];
	const uint8_t *o = pkt_header(p, off, n, buf);

	add(m, "OPT (");
	for (uint32_t i = 0; o && i < n; i++)
		add(m, "%02X", o[i]);
	add(m, ") ");
}

/* 1: stop the whole dump (the kernel's early returns). */
static int dump_tcp(struct lbuf *m, const struct pkt *p, bool fragment, uint32_t off)
{
	uint8_t buf[20];
	const uint8_t *th;
	static const char *const names[8] = {"FIN", "SYN", "RST", "PSH",
					     "ACK", "URG", "ECE", "CWR"};

	add(m, "PROTO=TCP ");
	if (fragment)
		return 0;
	th = pkt_header(p, off, 20, buf);
	if (!th) {
		add(m, "INCOMPLETE [%u bytes] ", left(p, off));
		return 1;
	}
	add(m, "SPT=%u DPT=%u ", rd16(th), rd16(th + 2));
	add(m, "SEQ=%u ACK=%u ", rd32(th + 4), rd32(th + 8));
	add(m, "WINDOW=%u ", rd16(th + 14));
	add(m, "RES=0x%02x ", (unsigned)(th[12] & 0x0f) << 2);
	for (int i = 7; i >= 0; i--)
		if (th[13] & (1u << i))
			add(m, "%s ", names[i]);
	add(m, "URGP=%u ", rd16(th + 18));
	if ((th[12] >> 4) * 4 > 20) {
		uint32_t n = (uint32_t)(th[12] >> 4) * 4 - 20;

		if (!pkt_header(p, off + 20, n, (uint8_t[40]){0})) {
			add(m, "OPT (TRUNCATED)");
			return 1;
		}
		add_hex(m, p, off + 20, n);
	}
	return 0;
}

static int dump_udp(struct lbuf *m, const struct pkt *p, uint8_t proto, bool fragment, uint32_t off)
{
	uint8_t buf[8];
	const uint8_t *uh;

	add(m, proto == 17 ? "PROTO=UDP " : "PROTO=UDPLITE ");
	if (fragment)
		return 0;
	uh = pkt_header(p, off, 8, buf);
	if (!uh) {
		add(m, "INCOMPLETE [%u bytes] ", left(p, off));
		return 1;
	}
	add(m, "SPT=%u DPT=%u LEN=%u ", rd16(uh), rd16(uh + 2), rd16(uh + 4));
	return 0;
}

static void dump_spi(struct lbuf *m, const struct pkt *p, const char *name, bool fragment,
		     uint32_t off, uint32_t spi_off)
{
	uint8_t buf[8];
	const uint8_t *h;

	add(m, "PROTO=%s ", name);
	if (fragment)
		return;
	h = pkt_header(p, off, 8, buf);
	if (!h) {
		add(m, "INCOMPLETE [%u bytes] ", left(p, off));
		return;
	}
	add(m, "SPI=0x%x ", rd32(h + spi_off));
}

static void dump_ipv4(struct lbuf *m, const struct pkt *p, uint32_t off, bool outer)
{
	/* bytes of the ICMP message the kernel requires per type before it decodes further */
	static const uint8_t required[19] = {
	    [0] = 4,   [3] = 28,  [4] = 28,  [5] = 28,	[8] = 4,  [11] = 28,
	    [12] = 28, [13] = 20, [14] = 20, [17] = 12, [18] = 12};
	uint8_t buf[60], ibuf[8];
	const uint8_t *ih = pkt_header(p, off, 20, buf), *ic;
	uint32_t hl, l4;
	uint16_t fo;
	char a[64], d[64];
	bool fragment;

	if (!ih) {
		add(m, "TRUNCATED");
		return;
	}
	hl = (uint32_t)(ih[0] & 0x0f) * 4;
	fo = rd16(ih + 6);
	fragment = fo & 0x1fff;
	add(m, "SRC=%s DST=%s ", addr_str(AF_INET, ih + 12, a, sizeof(a)),
	    addr_str(AF_INET, ih + 16, d, sizeof(d)));
	add(m, "LEN=%u TOS=0x%02X PREC=0x%02X TTL=%u ID=%u ", rd16(ih + 2), ih[1] & 0x1e,
	    ih[1] & 0xe0, ih[8], rd16(ih + 4));
	if (fo & 0x8000)
		add(m, "CE ");
	if (fo & 0x4000)
		add(m, "DF ");
	if (fo & 0x2000)
		add(m, "MF ");
	if (fragment)
		add(m, "FRAG:%u ", fo & 0x1fff);
	if (hl > 20) {
		if (!pkt_header(p, off + 20, hl - 20, buf)) {
			add(m, "TRUNCATED");
			return;
		}
		add_hex(m, p, off + 20, hl - 20);
	}
	l4 = off + hl;
	switch (ih[9]) {
	case 6:
		if (dump_tcp(m, p, fragment, l4))
			return;
		break;
	case 17:
	case 136:
		if (dump_udp(m, p, ih[9], fragment, l4))
			return;
		break;
	case 1:
		add(m, "PROTO=ICMP ");
		if (fragment)
			break;
		ic = pkt_header(p, l4, 8, ibuf);
		if (!ic) {
			add(m, "INCOMPLETE [%u bytes] ", left(p, l4));
			break;
		}
		add(m, "TYPE=%u CODE=%u ", ic[0], ic[1]);
		if (ic[0] < sizeof(required) && required[ic[0]] && left(p, l4) < required[ic[0]]) {
			add(m, "INCOMPLETE [%u bytes] ", left(p, l4));
			break;
		}
		switch (ic[0]) {
		case 0:
		case 8:
			add(m, "ID=%u SEQ=%u ", rd16(ic + 4), rd16(ic + 6));
			break;
		case 12:
			add(m, "PARAMETER=%u ", ic[4]);
			break;
		case 5:
			add(m, "GATEWAY=%s ", addr_str(AF_INET, ic + 4, a, sizeof(a)));
			/* fall through */
		case 3:
		case 4:
		case 11:
			if (outer) {
				add(m, "[");
				dump_ipv4(m, p, l4 + 8, false);
				add(m, "] ");
			}
			if (ic[0] == 3 && ic[1] == 4)
				add(m, "MTU=%u ", rd16(ic + 6));
			break;
		}
		break;
	case 51:
		dump_spi(m, p, "AH", fragment, l4, 4);
		break;
	case 50:
		dump_spi(m, p, "ESP", fragment, l4, 0);
		break;
	default:
		add(m, "PROTO=%u ", ih[9]);
	}
	if (outer && p->mark)
		add(m, "MARK=0x%x ", p->mark);
}

static bool ip6_ext(uint8_t h)
{
	return h == 0 || h == 43 || h == 44 || h == 50 || h == 51 || h == 59 || h == 60;
}

static void dump_ipv6(struct lbuf *m, const struct pkt *p, uint32_t off, bool outer)
{
	uint8_t buf[40], hb[8];
	const uint8_t *ih = pkt_header(p, off, 40, buf), *hp, *ic;
	uint32_t ptr = off + 40, hdrlen, w;
	uint8_t cur;
	char a[64], d[64];
	bool fragment = false;

	if (!ih) {
		add(m, "TRUNCATED");
		return;
	}
	w = rd32(ih);
	add(m, "SRC=%s DST=%s ", addr_str(AF_INET6, ih + 8, a, sizeof(a)),
	    addr_str(AF_INET6, ih + 24, d, sizeof(d)));
	add(m, "LEN=%u TC=%u HOPLIMIT=%u FLOWLBL=%u ", rd16(ih + 4) + 40u, (w & 0x0ff00000) >> 20,
	    ih[7], w & 0x000fffff);
	cur = ih[6];
	while (cur != 59 && ip6_ext(cur)) {
		hp = pkt_header(p, ptr, 8, hb);
		if (!hp) {
			add(m, "TRUNCATED");
			return;
		}
		add(m, "OPT ( ");
		switch (cur) {
		case 44:
			add(m, "FRAG:%u ", rd16(hp + 2) & 0xfff8);
			if (hp[3] & 1)
				add(m, "INCOMPLETE ");
			add(m, "ID:%08x ", rd32(hp + 4));
			if (rd16(hp + 2) & 0xfff8)
				fragment = true;
			hdrlen = 8;
			break;
		case 0:
		case 43:
		case 60:
			if (fragment) {
				add(m, ")");
				return;
			}
			hdrlen = ((uint32_t)hp[1] + 1) * 8;
			break;
		case 51:
			add(m, "AH ");
			if (fragment) {
				add(m, ")");
				return;
			}
			add(m, "SPI=0x%x ", rd32(hp + 4));
			hdrlen = ((uint32_t)hp[1] + 2) * 4;
			break;
		default: /* 50 */
			add(m, "ESP ");
			if (fragment) {
				add(m, ")");
				return;
			}
			add(m, "SPI=0x%x )", rd32(hp));
			return;
		}
		add(m, ") ");
		cur = hp[0];
		ptr += hdrlen;
	}
	switch (cur) {
	case 6:
		if (dump_tcp(m, p, fragment, ptr))
			return;
		break;
	case 17:
	case 136:
		if (dump_udp(m, p, cur, fragment, ptr))
			return;
		break;
	case 58:
		add(m, "PROTO=ICMPv6 ");
		if (fragment)
			break;
		ic = pkt_header(p, ptr, 8, hb);
		if (!ic) {
			add(m, "INCOMPLETE [%u bytes] ", left(p, ptr));
			return;
		}
		add(m, "TYPE=%u CODE=%u ", ic[0], ic[1]);
		switch (ic[0]) {
		case 128:
		case 129:
			add(m, "ID=%u SEQ=%u ", rd16(ic + 4), rd16(ic + 6));
			break;
		case 4:
			add(m, "POINTER=%08x ", rd32(ic + 4));
			/* fall through */
		case 1:
		case 2:
		case 3:
			if (outer) {
				add(m, "[");
				dump_ipv6(m, p, ptr + 8, false);
				add(m, "] ");
			}
			if (ic[0] == 2)
				add(m, "MTU=%u ", rd32(ic + 4));
			break;
		}
		break;
	default:
		add(m, "PROTO=%u ", cur);
	}
	if (outer && p->mark)
		add(m, "MARK=0x%x ", p->mark);
}

int box_format_packet(char *buf, size_t len, const char *prefix, const struct pkt *p,
		      const char *in, const char *out)
{
	struct lbuf m = {.s = buf, .len = len, .pos = 0};
	bool v6 = p->info.family == AF_INET6;

	if (!len)
		return 0;
	buf[0] = '\0';
	add(&m, "%sIN=%s OUT=%s ", prefix ? prefix : "", in ? in : "", out ? out : "");
	if (in && in[0]) {
		uint8_t mb[14];
		const uint8_t *mac = NULL;

		if (p->info.l2off == 0 && p->info.l3off >= 14)
			mac = pkt_header(p, 0, 14, mb);
		add(&m, "MAC=");
		for (unsigned i = 0; mac && i < 14; i++)
			add(&m, i ? ":%02x" : "%02x", mac[i]);
		add(&m, " ");
	}
	if (v6)
		dump_ipv6(&m, p, p->info.l3off, true);
	else
		dump_ipv4(&m, p, p->info.l3off, true);
	if (m.pos && buf[m.pos - 1] == ' ')
		buf[--m.pos] = '\0';
	return (int)m.pos;
}

static const char *const table_names[TABLE_MAX] = {
    [TABLE_RAW] = "raw",       [TABLE_MANGLE] = "mangle",     [TABLE_NAT] = "nat",
    [TABLE_FILTER] = "filter", [TABLE_SECURITY] = "security",
};

void box_trace(struct box *b, const struct pkt *p, unsigned table, const char *chain,
	       const char *comment, unsigned rulenum, const char *in, const char *out)
{
	char prefix[96], line[1024];

	if (!b->ops.trace)
		return;
	snprintf(prefix, sizeof(prefix), "TRACE: %s:%s:%s:%u ",
		 table < TABLE_MAX ? table_names[table] : "?", chain, comment, rulenum);
	box_format_packet(line, sizeof(line), prefix, p, in, out);
	b->ops.trace(b->user, b, p, line);
}
