/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel log line of a packet (nf_log_syslog's format; drawn in pkt/log.h), for -j LOG and
 * TRACE. Headers are read only up to the end of the IP datagram, as the kernel trims padding.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pkt/log.h"

struct log_buf {
	char *s;
	size_t cap, len;
	const struct pkt *p;
	uint32_t end; /* the datagram ends here (the kernel trims padding) */
	const struct pkt_log_opts *o;
};

__attribute__((format(printf, 2, 3))) static void lb_add(struct log_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= b->cap - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - 1 - b->len;
}

static const uint8_t *lb_hdr(const struct log_buf *b, uint32_t off, uint32_t len, void *buf)
{
	if (off > b->end || len > b->end - off)
		return NULL;
	return pkt_header(b->p, off, len, buf);
}

static void lb_hex(struct log_buf *b, const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		lb_add(b, "%02X", p[i]);
}

/* 1 when the caller must stop (truncated), as nf_log_dump_tcp_header returns. */
static int log_tcp(struct log_buf *b, bool fragment, uint32_t off)
{
	uint8_t buf[60];
	const uint8_t *th;
	unsigned doff;

	lb_add(b, "PROTO=TCP ");
	if (fragment)
		return 0;
	th = lb_hdr(b, off, 20, buf);
	if (!th) {
		lb_add(b, "INCOMPLETE [%u bytes] ", b->end - off);
		return 1;
	}
	lb_add(b, "SPT=%u DPT=%u ", pkt_get16(th), pkt_get16(th + 2));
	if (b->o->flags & PKT_LOG_TCPSEQ)
		lb_add(b, "SEQ=%u ACK=%u ", pkt_get32(th + 4), pkt_get32(th + 8));
	lb_add(b, "WINDOW=%u ", pkt_get16(th + 14));
	lb_add(b, "RES=0x%02x ", (th[12] & 0x0f) << 2);
	{
		static const char *const names[] = {"CWR", "ECE", "URG", "ACK",
						    "PSH", "RST", "SYN", "FIN"};
		uint8_t fl = th[13];

		for (unsigned i = 0; i < 8; i++)
			if (fl & (0x80 >> i))
				lb_add(b, "%s ", names[i]);
	}
	lb_add(b, "URGP=%u ", pkt_get16(th + 18));
	doff = (unsigned)(th[12] >> 4) * 4;
	if ((b->o->flags & PKT_LOG_TCPOPT) && doff > 20) {
		uint8_t obuf[40];
		const uint8_t *op = lb_hdr(b, off + 20, doff - 20, obuf);

		if (!op) {
			lb_add(b, "OPT (TRUNCATED)");
			return 1;
		}
		lb_add(b, "OPT (");
		lb_hex(b, op, doff - 20);
		lb_add(b, ") ");
	}
	return 0;
}

static int log_udp(struct log_buf *b, uint8_t proto, bool fragment, uint32_t off)
{
	uint8_t buf[8];
	const uint8_t *uh;

	lb_add(b, proto == IPPROTO_UDP ? "PROTO=UDP " : "PROTO=UDPLITE ");
	if (fragment)
		return 0;
	uh = lb_hdr(b, off, 8, buf);
	if (!uh) {
		lb_add(b, "INCOMPLETE [%u bytes] ", b->end - off);
		return 1;
	}
	lb_add(b, "SPT=%u DPT=%u LEN=%u ", pkt_get16(uh), pkt_get16(uh + 2), pkt_get16(uh + 4));
	return 0;
}

static void log_uid_mark(struct log_buf *b)
{
	if ((b->o->flags & PKT_LOG_UID) && b->o->uid >= 0)
		lb_add(b, "UID=%ld GID=%ld ", b->o->uid, b->o->uid);
	if (b->p->mark)
		lb_add(b, "MARK=0x%x ", b->p->mark);
}

static void log_ip4(struct log_buf *b, uint32_t off, bool top)
{
	/* ICMP types whose body must be this long before it is decoded */
	static const uint8_t need[19] = {
	    [0] = 4,   [3] = 28,  [4] = 28,  [5] = 28,	[8] = 4,  [11] = 28,
	    [12] = 28, [13] = 20, [14] = 20, [17] = 12, [18] = 12};
	uint8_t buf[60];
	const uint8_t *ih = lb_hdr(b, off, 20, buf);
	unsigned ihl, fragoff;
	uint16_t fo;
	uint32_t l4;

	if (!ih) {
		lb_add(b, "TRUNCATED");
		return;
	}
	lb_add(b, "SRC=%u.%u.%u.%u DST=%u.%u.%u.%u ", ih[12], ih[13], ih[14], ih[15], ih[16],
	       ih[17], ih[18], ih[19]);
	lb_add(b, "LEN=%u TOS=0x%02X PREC=0x%02X TTL=%u ID=%u ", pkt_get16(ih + 2), ih[1] & 0x1e,
	       ih[1] & 0xe0, ih[8], pkt_get16(ih + 4));
	fo = pkt_get16(ih + 6);
	if (fo & 0x8000)
		lb_add(b, "CE ");
	if (fo & 0x4000)
		lb_add(b, "DF ");
	if (fo & 0x2000)
		lb_add(b, "MF ");
	fragoff = fo & 0x1fff;
	if (fragoff)
		lb_add(b, "FRAG:%u ", fragoff);
	ihl = (unsigned)(ih[0] & 0x0f) * 4;
	if ((b->o->flags & PKT_LOG_IPOPT) && ihl > 20) {
		uint8_t obuf[40];
		const uint8_t *op = lb_hdr(b, off + 20, ihl - 20, obuf);

		if (!op) {
			lb_add(b, "TRUNCATED");
			return;
		}
		lb_add(b, "OPT (");
		lb_hex(b, op, ihl - 20);
		lb_add(b, ") ");
	}
	l4 = off + ihl;
	switch (ih[9]) {
	case IPPROTO_TCP:
		if (log_tcp(b, fragoff, l4))
			return;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		if (log_udp(b, ih[9], fragoff, l4))
			return;
		break;
	case IPPROTO_ICMP: {
		uint8_t ibuf[8];
		const uint8_t *ic;

		lb_add(b, "PROTO=ICMP ");
		if (fragoff)
			break;
		ic = lb_hdr(b, l4, 8, ibuf);
		if (!ic) {
			lb_add(b, "INCOMPLETE [%u bytes] ", b->end - l4);
			break;
		}
		lb_add(b, "TYPE=%u CODE=%u ", ic[0], ic[1]);
		if (ic[0] <= 18 && need[ic[0]] && b->end - l4 < need[ic[0]]) {
			lb_add(b, "INCOMPLETE [%u bytes] ", b->end - l4);
			break;
		}
		switch (ic[0]) {
		case 0:
		case 8:
			lb_add(b, "ID=%u SEQ=%u ", pkt_get16(ic + 4), pkt_get16(ic + 6));
			break;
		case 12:
			lb_add(b, "PARAMETER=%u ", ic[4]);
			break;
		case 5:
			lb_add(b, "GATEWAY=%u.%u.%u.%u ", ic[4], ic[5], ic[6], ic[7]);
			/* fall through */
		case 3:
		case 4:
		case 11:
			if (top) {
				lb_add(b, "[");
				log_ip4(b, l4 + 8, false);
				lb_add(b, "] ");
			}
			if (ic[0] == 3 && ic[1] == 4)
				lb_add(b, "MTU=%u ", pkt_get16(ic + 6));
			break;
		}
		break;
	}
	case IPPROTO_AH: {
		uint8_t abuf[12];
		const uint8_t *ah;

		if (fragoff)
			break;
		lb_add(b, "PROTO=AH ");
		ah = lb_hdr(b, l4, 12, abuf);
		if (!ah) {
			lb_add(b, "INCOMPLETE [%u bytes] ", b->end - l4);
			break;
		}
		lb_add(b, "SPI=0x%x ", pkt_get32(ah + 4));
		break;
	}
	case IPPROTO_ESP: {
		uint8_t ebuf[8];
		const uint8_t *eh;

		lb_add(b, "PROTO=ESP ");
		if (fragoff)
			break;
		eh = lb_hdr(b, l4, 8, ebuf);
		if (!eh) {
			lb_add(b, "INCOMPLETE [%u bytes] ", b->end - l4);
			break;
		}
		lb_add(b, "SPI=0x%x ", pkt_get32(eh));
		break;
	}
	default:
		lb_add(b, "PROTO=%u ", ih[9]);
	}
	if (top)
		log_uid_mark(b);
}

static void lb_ip6addr(struct log_buf *b, const uint8_t *a)
{
	for (unsigned i = 0; i < 16; i += 2)
		lb_add(b, "%s%02x%02x", i ? ":" : "", a[i], a[i + 1]);
}

static bool log_is_ext6(uint8_t h)
{
	return h == IPPROTO_HOPOPTS || h == IPPROTO_ROUTING || h == IPPROTO_FRAGMENT ||
	       h == IPPROTO_ESP || h == IPPROTO_AH || h == IPPROTO_DSTOPTS;
}

static void log_ip6(struct log_buf *b, uint32_t off, bool top)
{
	bool ipopt = b->o->flags & PKT_LOG_IPOPT, fragment = false;
	uint8_t buf[40], cur;
	const uint8_t *ih = lb_hdr(b, off, 40, buf);
	uint32_t ptr, w;

	if (!ih) {
		lb_add(b, "TRUNCATED");
		return;
	}
	lb_add(b, "SRC=");
	lb_ip6addr(b, ih + 8);
	lb_add(b, " DST=");
	lb_ip6addr(b, ih + 24);
	w = pkt_get32(ih);
	lb_add(b, " LEN=%u TC=%u HOPLIMIT=%u FLOWLBL=%u ", pkt_get16(ih + 4) + 40u,
	       (w & 0x0ff00000) >> 20, ih[7], w & 0x000fffff);
	ptr = off + 40;
	cur = ih[6];
	while (cur != IPPROTO_NONE && log_is_ext6(cur)) {
		uint8_t hb[8];
		const uint8_t *hp = lb_hdr(b, ptr, 2, hb);
		uint32_t hlen;

		if (!hp) {
			lb_add(b, "TRUNCATED");
			return;
		}
		if (ipopt)
			lb_add(b, "OPT ( ");
		switch (cur) {
		case IPPROTO_FRAGMENT: {
			const uint8_t *fh;

			lb_add(b, "FRAG:");
			fh = lb_hdr(b, ptr, 8, hb);
			if (!fh) {
				lb_add(b, "TRUNCATED ");
				return;
			}
			lb_add(b, "%u ", pkt_get16(fh + 2) & 0xfff8);
			if (fh[3] & 1)
				lb_add(b, "INCOMPLETE ");
			lb_add(b, "ID:%08x ", pkt_get32(fh + 4));
			if (pkt_get16(fh + 2) & 0xfff8)
				fragment = true;
			hlen = 8;
			break;
		}
		case IPPROTO_DSTOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_HOPOPTS:
			if (fragment) {
				if (ipopt)
					lb_add(b, ")");
				return;
			}
			hlen = ((uint32_t)hp[1] + 1) << 3;
			break;
		case IPPROTO_AH:
			if (ipopt) {
				uint8_t abuf[8];
				const uint8_t *ah;

				lb_add(b, "AH ");
				if (fragment) {
					lb_add(b, ")");
					return;
				}
				ah = lb_hdr(b, ptr, 8, abuf);
				if (!ah) {
					lb_add(b, "INCOMPLETE [%u bytes] )", b->end - ptr);
					return;
				}
				lb_add(b, "SPI=0x%x ", pkt_get32(ah + 4));
			}
			hlen = ((uint32_t)hp[1] + 2) << 2;
			break;
		case IPPROTO_ESP:
		default:
			if (ipopt) {
				uint8_t ebuf[4];
				const uint8_t *eh;

				lb_add(b, "ESP ");
				if (fragment) {
					lb_add(b, ")");
					return;
				}
				eh = lb_hdr(b, ptr, 4, ebuf);
				if (!eh) {
					lb_add(b, "INCOMPLETE [%u bytes] )", b->end - ptr);
					return;
				}
				lb_add(b, "SPI=0x%x )", pkt_get32(eh));
			}
			return;
		}
		if (ipopt)
			lb_add(b, ") ");
		cur = hp[0];
		ptr += hlen;
	}
	switch (cur) {
	case IPPROTO_TCP:
		if (log_tcp(b, fragment, ptr))
			return;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		if (log_udp(b, cur, fragment, ptr))
			return;
		break;
	case IPPROTO_ICMPV6: {
		uint8_t ibuf[8];
		const uint8_t *ic;

		lb_add(b, "PROTO=ICMPv6 ");
		if (fragment)
			break;
		ic = lb_hdr(b, ptr, 8, ibuf);
		if (!ic) {
			lb_add(b, "INCOMPLETE [%u bytes] ", b->end - ptr);
			return;
		}
		lb_add(b, "TYPE=%u CODE=%u ", ic[0], ic[1]);
		switch (ic[0]) {
		case 128:
		case 129:
			lb_add(b, "ID=%u SEQ=%u ", pkt_get16(ic + 4), pkt_get16(ic + 6));
			break;
		case 4:
			lb_add(b, "POINTER=%08x ", pkt_get32(ic + 4));
			/* fall through */
		case 1:
		case 2:
		case 3:
			if (top) {
				lb_add(b, "[");
				log_ip6(b, ptr + 8, false);
				lb_add(b, "] ");
			}
			if (ic[0] == 2)
				lb_add(b, "MTU=%u ", pkt_get32(ic + 4));
			break;
		}
		break;
	}
	default:
		lb_add(b, "PROTO=%u ", cur);
	}
	if (top)
		log_uid_mark(b);
}

static void log_mac(struct log_buf *b, const struct pkt *p)
{
	uint8_t buf[14];
	const uint8_t *e = NULL;

	if (p->info.l2off != UINT32_MAX && p->info.l3off >= p->info.l2off + 14)
		e = pkt_header(p, p->info.l2off, 14, buf);
	if (e && (b->o->flags & PKT_LOG_MACDECODE)) {
		lb_add(b, "MACSRC=%02x:%02x:%02x:%02x:%02x:%02x ", e[6], e[7], e[8], e[9], e[10],
		       e[11]);
		lb_add(b, "MACDST=%02x:%02x:%02x:%02x:%02x:%02x ", e[0], e[1], e[2], e[3], e[4],
		       e[5]);
		lb_add(b, "MACPROTO=%04x ", pkt_get16(e + 12));
		return;
	}
	lb_add(b, "MAC=");
	if (e)
		for (unsigned i = 0; i < 14; i++)
			lb_add(b, i ? ":%02x" : "%02x", e[i]);
	lb_add(b, " ");
}

size_t pkt_log_format(char *buf, size_t len, const struct pkt *p, const struct pkt_log_opts *o)
{
	struct log_buf lb = {.s = buf, .cap = len, .p = p, .o = o}, *b = &lb;
	const char *in = o->in ? o->in : "", *out = o->out ? o->out : "";

	if (len == 0)
		return 0;
	buf[0] = '\0';
	b->end = p->info.l3off + p->info.l3len;
	if (b->end > p->len || p->info.l3len == 0)
		b->end = p->len;
	lb_add(b, "%sIN=%s OUT=%s ", o->prefix ? o->prefix : "", in, out);
	if (in[0])
		log_mac(b, p);
	if (p->info.family == AF_INET6)
		log_ip6(b, p->info.l3off, true);
	else
		log_ip4(b, p->info.l3off, true);
	return b->len;
}
