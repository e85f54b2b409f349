// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsed packet -> one line of the text form (grammar in build.h), in canonical order:
 *
 *   PROTO SRC > DST  [flags|type|chunks]  [transport keys]  len=N  [IP keys]  [link keys]
 *
 * Fields equal to the builder's defaults are left out, so building a canonical line and
 * printing the result gives the same line back. Reads only through pkt_header/pkt_copy_out
 * and p->info: safe on any packet pkt_parse has seen.
 */
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "pkt/spec_names.h"

struct sbuf {
	char *buf;
	size_t len, pos; /* pos counts what would have been written */
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->pos < sb->len ? sb->len - sb->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->pos += (size_t)n;
}

static void sb_hex(struct sbuf *sb, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	sb_printf(sb, "hex:");
	for (i = 0; i < n; i++)
		sb_printf(sb, "%02x", b[i]);
}

const char *pkt_tcp_flags_str(uint8_t flags, char *buf, size_t len)
{
	struct sbuf sb = {buf, len, 0};
	int i;

	if (len)
		buf[0] = '\0';
	if (!flags)
		sb_printf(&sb, "none");
	for (i = 0; i < 8; i++)
		if (flags & (1 << i))
			sb_printf(&sb, "%s%s", sb.pos ? "," : "", spec_tcp_flags[i]);
	return buf;
}

static void put_endpoint(struct sbuf *sb, const struct pkt_info *in, const union pt_addr *a,
			 uint16_t port)
{
	char s[64];

	pt_addr_str(in->family, a, s, sizeof(s));
	if (!(in->has_l4 && in->has_ports))
		sb_printf(sb, "%s", s);
	else if (in->family == AF_INET6)
		sb_printf(sb, "[%s]:%u", s, port);
	else
		sb_printf(sb, "%s:%u", s, port);
}

/*
 * TCP options: names when every option is one we name and the names build these options
 * again: pkt_build emits MSS, SACK-permitted, timestamps, window scale in that order, each at
 * most once, and mss=0 means no MSS option. Otherwise the raw bytes.
 */
static void put_tcp_options(struct sbuf *sb, const uint8_t *o, uint32_t n)
{
	struct sbuf tmp;
	char buf[160];
	uint32_t i = 0;
	int rank = 0, r;

	tmp = (struct sbuf){buf, sizeof(buf), 0};
	buf[0] = '\0';
	while (i < n) {
		uint8_t kind = o[i], len;

		if (kind == 0) { /* EOL: the rest must be padding */
			for (; i < n && !o[i]; i++)
				;
			if (i < n)
				goto raw;
			break;
		}
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= n || (len = o[i + 1]) < 2 || i + len > n)
			goto raw;
		r = kind == 2 ? 1 : kind == 4 ? 2 : kind == 8 ? 3 : kind == 3 ? 4 : 5;
		if (r <= rank || (kind == 2 && len == 4 && !pkt_get16(o + i + 2)))
			goto raw;
		rank = r;
		if (kind == 2 && len == 4)
			sb_printf(&tmp, " mss=%u", pkt_get16(o + i + 2));
		else if (kind == 3 && len == 3)
			sb_printf(&tmp, " wscale=%u", o[i + 2]);
		else if (kind == 4 && len == 2)
			sb_printf(&tmp, " sackok");
		else if (kind == 8 && len == 10)
			sb_printf(&tmp, " ts=%u:%u", pkt_get32(o + i + 2), pkt_get32(o + i + 6));
		else
			goto raw;
		i += len;
	}
	sb_printf(sb, "%s", buf);
	return;
raw:
	sb_printf(sb, " tcpopt=");
	sb_hex(sb, o, n);
}

static void put_tcp(struct sbuf *sb, const struct pkt *p, const uint8_t *h)
{
	const struct pkt_info *in = &p->info;
	uint8_t obuf[40];
	const uint8_t *o;
	char f[64];

	sb_printf(sb, " %s", pkt_tcp_flags_str(in->tcp_flags, f, sizeof(f)));
	if (pkt_get32(h + 4))
		sb_printf(sb, " seq=%u", pkt_get32(h + 4));
	if (pkt_get32(h + 8))
		sb_printf(sb, " ack=%u", pkt_get32(h + 8));
	if (pkt_get16(h + 14) != PKT_SPEC_DEFAULT_WINDOW)
		sb_printf(sb, " win=%u", pkt_get16(h + 14));
	if (pkt_get16(h + 18))
		sb_printf(sb, " urg=%u", pkt_get16(h + 18));
	o = pkt_header(p, in->l4off + 20, in->tcp_doff - 20u, obuf);
	if (o && in->tcp_doff > 20)
		put_tcp_options(sb, o, in->tcp_doff - 20u);
}

static bool icmp_is_echo(int family, uint8_t type)
{
	if (family == AF_INET6)
		return type == 128 || type == 129;
	return type == 0 || type == 8 || (type >= 13 && type <= 18);
}

static void put_icmp(struct sbuf *sb, const struct pkt_info *in, const uint8_t *h)
{
	const struct spec_icmp_name *n = spec_icmp_by_value(in->family, h[0], h[1]);
	uint32_t rest = pkt_get32(h + 4);
	bool v6 = in->family == AF_INET6;

	if (n)
		sb_printf(sb, " %s", n->name);
	else
		sb_printf(sb, " type=%u", h[0]);
	if ((!n && h[1]) || (n && n->code < 0 && h[1]))
		sb_printf(sb, " code=%u", h[1]);
	if (icmp_is_echo(in->family, h[0])) {
		if (rest >> 16)
			sb_printf(sb, " id=%u", rest >> 16);
		if (rest & 0xffff)
			sb_printf(sb, " seq=%u", rest & 0xffff);
	} else if (rest &&
		   ((!v6 && h[0] == 3 && h[1] == 4 && !(rest >> 16)) || (v6 && h[0] == 2))) {
		sb_printf(sb, " mtu=%u", v6 ? rest : rest & 0xffff);
	} else if (rest && ((!v6 && h[0] == 12 && !(rest & 0xffffff)) || (v6 && h[0] == 4))) {
		sb_printf(sb, " ptr=%u", v6 ? rest : rest >> 24);
	} else if (rest) {
		sb_printf(sb, " rest=0x%08x", rest);
	}
}

/* SCTP chunk names while the chunks are well formed; returns the bytes they take. */
static uint32_t put_sctp_chunks(struct sbuf *sb, const struct pkt *p, uint32_t off, uint32_t end)
{
	uint32_t start = off;
	const char *name;
	uint8_t b[4];
	bool first = true;

	while (off + 4 <= end && !pkt_copy_out(p, off, b, 4)) {
		uint32_t len = pkt_get16(b + 2);

		name = spec_name_of(spec_sctp_chunks, b[0]);
		if (len < 4 || off + len > end || !name)
			break;
		sb_printf(sb, "%s%s", first ? " " : ",", name);
		first = false;
		off += (len + 3) & ~3u;
		if (off > end)
			off = end;
	}
	return off - start;
}

/* The transport part; returns how many bytes after payload_off belong to it (SCTP chunks). */
static uint32_t put_l4(struct sbuf *sb, const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint32_t end = in->l3off + in->l3len;
	uint8_t buf[28];
	const uint8_t *h;
	const char *name;

	if (!in->has_l4)
		return 0;
	h = pkt_header(p, in->l4off,
		       in->payload_off - in->l4off < sizeof(buf) ? in->payload_off - in->l4off
								 : sizeof(buf),
		       buf);
	if (!h)
		return 0;
	switch (in->l4proto) {
	case IPPROTO_TCP:
		put_tcp(sb, p, h);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		put_icmp(sb, in, h);
		break;
	case IPPROTO_UDPLITE:
		if (pkt_get16(h + 4))
			sb_printf(sb, " cov=%u", pkt_get16(h + 4));
		break;
	case IPPROTO_SCTP: {
		uint32_t n = put_sctp_chunks(sb, p, in->payload_off, end);

		if (pkt_get32(h + 4))
			sb_printf(sb, " vtag=%u", pkt_get32(h + 4));
		return n;
	}
	case IPPROTO_DCCP:
		name = spec_name_of(spec_dccp_types, (h[8] >> 1) & 15);
		sb_printf(sb, " %s", name ? name : "type?");
		if ((h[8] & 1) && in->payload_off - in->l4off >= 16 && pkt_get32(h + 12))
			sb_printf(sb, " seq=%u", pkt_get32(h + 12));
		if ((h[8] & 1) && in->payload_off - in->l4off >= 24 && ((h[8] >> 1) & 15) != 0 &&
		    ((h[8] >> 1) & 15) != 2 && pkt_get32(h + 20))
			sb_printf(sb, " ack=%u", pkt_get32(h + 20));
		break;
	case IPPROTO_GRE:
		if (pkt_get16(h) & 0x2000) {
			uint32_t koff = (pkt_get16(h) & 0xc000) ? 8 : 4;

			if (in->payload_off - in->l4off >= koff + 4)
				sb_printf(sb, " key=%u", pkt_get32(h + koff));
		}
		if (pkt_get16(h + 2) != 0x0800)
			sb_printf(sb, " greproto=0x%04x", pkt_get16(h + 2));
		break;
	case IPPROTO_ESP:
		if (pkt_get32(h))
			sb_printf(sb, " spi=%u", pkt_get32(h));
		if (pkt_get32(h + 4))
			sb_printf(sb, " seq=%u", pkt_get32(h + 4));
		break;
	case IPPROTO_AH:
		if (pkt_get32(h + 4))
			sb_printf(sb, " spi=%u", pkt_get32(h + 4));
		if (pkt_get32(h + 8))
			sb_printf(sb, " seq=%u", pkt_get32(h + 8));
		break;
	}
	return 0;
}

/* IPv4 options: names when each is in the builder's canonical form, else raw bytes. */
static void put_ipopts(struct sbuf *sb, const uint8_t *o, uint32_t n)
{
	const struct spec_ipopt *c;
	char buf[128];
	struct sbuf tmp = {buf, sizeof(buf), 0};
	uint32_t i = 0, z;

	buf[0] = '\0';
	while (i < n) {
		for (z = i; z < n && !o[z]; z++)
			;
		if (z == n)
			break; /* EOL padding to the end */
		for (c = spec_ipopts; c->name; c++)
			if (i + c->len <= n && !memcmp(o + i, c->bytes, c->len))
				break;
		if (!c->name)
			goto raw;
		sb_printf(&tmp, "%s%s", tmp.pos ? "," : "", c->name);
		i += c->len;
	}
	/* The builder pads the named options with EOL to 4 bytes: names only when that gives
	 * back these n bytes; all-zero options are "eol" (4 bytes). */
	if (i == 0 && n == 4) {
		sb_printf(sb, " ipopt=eol");
		return;
	}
	if (i == 0 || ((i + 3) & ~3u) != n || tmp.pos >= sizeof(buf))
		goto raw; /* (40 nops do not fit buf) */
	sb_printf(sb, " ipopt=%s", buf);
	return;
raw:
	sb_printf(sb, " ipopt=");
	sb_hex(sb, o, n);
}

static void put_ip(struct sbuf *sb, const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	bool icmp = in->l4proto == IPPROTO_ICMP || in->l4proto == IPPROTO_ICMPV6;
	uint8_t buf[60];
	const uint8_t *h;
	unsigned i, n = 0;
	bool print_ext;

	/* ext= unless the only extension header is a fragment header (frag= says it all) */
	for (i = 0; i < in->n_exthdr; i++)
		if (spec_name_of(spec_ext_names, in->exthdr_type[i]))
			n++;
	print_ext = in->family == AF_INET6 && n &&
		    !(n == 1 && in->frag_hdr_off && in->exthdr_type[0] == IPPROTO_FRAGMENT);
	if (in->ttl != PKT_SPEC_DEFAULT_TTL)
		sb_printf(sb, " ttl=%u", in->ttl);
	if (in->tos)
		sb_printf(sb, " tos=0x%02x", in->tos);
	if (in->family == AF_INET6 && (h = pkt_header(p, in->l3off, 4, buf)) && (pkt_get32(h) & 0xfffff))
		sb_printf(sb, " flow=0x%05x", pkt_get32(h) & 0xfffff);
	if (in->frag_id && (in->family == AF_INET || in->frag_hdr_off))
		sb_printf(sb, " %s=%u", icmp ? "ipid" : "id", in->frag_id);
	if (in->dont_frag)
		sb_printf(sb, " df");
	if (in->frag_off)
		sb_printf(sb, " frag=off:%u%s", in->frag_off, in->more_frags ? ",mf" : "");
	else if (in->more_frags)
		sb_printf(sb, " frag=mf");
	else if (in->frag_hdr_off && !print_ext)
		sb_printf(sb, " frag=off:0");
	if (in->family == AF_INET && in->ihl > 20 && (h = pkt_header(p, in->l3off, in->ihl, buf)))
		put_ipopts(sb, h + 20, in->ihl - 20u);
	if (print_ext) {
		sb_printf(sb, " ext=");
		for (i = 0, n = 0; i < in->n_exthdr; i++) {
			const char *name = spec_name_of(spec_ext_names, in->exthdr_type[i]);

			if (name)
				sb_printf(sb, "%s%s", n++ ? "," : "", name);
		}
	}
}

static void put_link(struct sbuf *sb, const struct pkt *p)
{
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};
	uint8_t h[14], t[4];
	uint32_t off = 14;
	unsigned n = 0;

	if (p->info.l2off != 0 || pkt_copy_out(p, 0, h, 14))
		return;
	if (!memcmp(h, dmac, 6) && !memcmp(h + 6, smac, 6))
		sb_printf(sb, " eth");
	else
		sb_printf(sb,
			  " smac=%02x:%02x:%02x:%02x:%02x:%02x dmac=%02x:%02x:%02x:%02x:%02x:%02x",
			  h[6], h[7], h[8], h[9], h[10], h[11], h[0], h[1], h[2], h[3], h[4], h[5]);
	while (n < 2 && (pkt_get16(h + 12) == 0x8100 || pkt_get16(h + 12) == 0x88a8) &&
	       !pkt_copy_out(p, off, t, 4)) {
		sb_printf(sb, "%s%u", n++ ? "," : " vlan=", pkt_get16(t) & 0x0fff);
		memcpy(h + 12, t + 2, 2);
		off += 4;
	}
}

static void put_csum_state(struct sbuf *sb, const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint8_t b[2];

	if (in->family == AF_INET) {
		uint8_t hb[60];
		const uint8_t *h = pkt_header(p, in->l3off, in->ihl, hb);

		if (h && pkt_csum_fold(pkt_csum_bytes(h, in->ihl, 0)))
			sb_printf(sb, " badipsum");
	}
	if (!in->has_l4 || in->is_fragment)
		return;
	if (in->l4proto == IPPROTO_UDP && !pkt_copy_out(p, in->l4off + 6, b, 2) && !b[0] && !b[1]) {
		sb_printf(sb, " nocsum");
		return;
	}
	if (!pkt_l4_csum_ok(p))
		sb_printf(sb, " badsum");
}

int pkt_spec_format(const struct pkt *p, char *buf, size_t len)
{
	const struct pkt_info *in = &p->info;
	struct sbuf sb = {buf, len, 0};
	const char *name;
	uint32_t extra, end, start;

	if (len)
		buf[0] = '\0';
	if (!in->family) {
		if (in->bad == PKT_BAD_L2_PROTO)
			sb_printf(&sb, "l2proto=0x%04x len=%u", in->l2proto, p->len);
		else
			sb_printf(&sb, "bad=%s len=%u", pkt_bad_name(in->bad), p->len);
		return (int)sb.pos;
	}
	name = spec_name_of(spec_protos, in->l4proto);
	if (name)
		sb_printf(&sb, "%s ", name);
	else
		sb_printf(&sb, "proto=%u ", in->l4proto);
	put_endpoint(&sb, in, &in->src, in->sport);
	sb_printf(&sb, " > ");
	put_endpoint(&sb, in, &in->dst, in->dport);
	if (in->bad) {
		sb_printf(&sb, " bad=%s", pkt_bad_name(in->bad));
		return (int)sb.pos;
	}
	extra = put_l4(&sb, p);
	end = in->l3off + in->l3len;
	start = (in->has_l4 ? in->payload_off : in->l4off) + extra;
	sb_printf(&sb, " len=%u", end > start ? end - start : 0);
	put_ip(&sb, p);
	put_csum_state(&sb, p);
	put_link(&sb, p);
	return (int)sb.pos;
}
