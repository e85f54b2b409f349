// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text form -> struct pkt_spec (the grammar is in build.h):
 *
 *   tcp [2001:db8::2]:1234 > [2001:db8::1]:80 syn,ack seq=100 mss=1460 len=100
 *   ^proto ^source           ^ ^destination    ^words and key=value pairs, in any order
 *
 * Tokens are separated by blanks; a double-quoted part (payload="a b") keeps its blanks.
 * Every error message starts with the offending token.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "pkt/proto.h"
#include "pkt/spec_names.h"

#define MAX_TOKEN 4096

struct parser {
	const char *cur;
	char tok[MAX_TOKEN];
	char *err;
	size_t errlen;
	struct pkt_spec *s;
	bool has_sport, has_dport;     /* the address tokens carried ports */
	char src_tok[64], dst_tok[64]; /* for messages about them */
	/* ICMP bytes 4..7 are composed at the end, once type and family are known */
	long icmp_id, icmp_seq, icmp_mtu, icmp_ptr, icmp_rest;
	bool len_given, payload_given;
	uint32_t len;
};

static int perr(struct parser *ps, const char *tok, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err && ps->errlen) {
		n = snprintf(ps->err, ps->errlen, "%s: ", tok);
		if (n >= 0 && (size_t)n < ps->errlen) {
			va_start(ap, fmt);
			vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

/* Next blank-separated token into ps->tok; false at the end. Quotes are kept. */
static int next_token(struct parser *ps, bool *got)
{
	const char *c = ps->cur;
	bool quoted = false;
	size_t n = 0;

	while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
		c++;
	*got = *c != '\0';
	while (*c && (quoted || (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r'))) {
		if (*c == '\\' && quoted && c[1]) {
			if (n + 2 >= MAX_TOKEN)
				return -E2BIG;
			ps->tok[n++] = *c++;
		} else if (*c == '"') {
			quoted = !quoted;
		}
		if (n + 1 >= MAX_TOKEN)
			return -E2BIG;
		ps->tok[n++] = *c++;
	}
	ps->tok[n] = '\0';
	ps->cur = c;
	if (quoted)
		return -EINVAL;
	return 0;
}

static bool parse_num(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*v || *v == '-' || *v == '+')
		return false;
	errno = 0;
	*out = strtoul(v, &end, 0);
	return !errno && !*end && *out <= max;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "hex:0a0b..." -> bytes; -1 on bad digits or overflow. */
static long parse_hex(const char *v, uint8_t *out, size_t max)
{
	size_t n = 0;

	if (strncasecmp(v, "hex:", 4))
		return -1;
	for (v += 4; *v; v += 2) {
		int hi = hexval(v[0]), lo = hi >= 0 ? hexval(v[1]) : -1;

		if (hi < 0 || lo < 0 || n == max)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	return (long)n;
}

/* "\"text\"" with C escapes (\r \n \t \\ \" \0 \xHH) -> bytes; -1 if malformed. */
static long parse_quoted(const char *v, uint8_t *out, size_t max)
{
	size_t n = 0, len = strlen(v);

	if (len < 2 || v[0] != '"' || v[len - 1] != '"')
		return -1;
	for (v++, len -= 2; len; v++, len--) {
		uint8_t c = (uint8_t)*v;

		if (c == '\\') {
			if (len < 2)
				return -1;
			v++, len--;
			switch (*v) {
			case 'r':
				c = '\r';
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case '0':
				c = 0;
				break;
			case '\\':
				c = '\\';
				break;
			case '"':
				c = '"';
				break;
			case 'x':
				if (len < 3 || hexval(v[1]) < 0 || hexval(v[2]) < 0)
					return -1;
				c = (uint8_t)(hexval(v[1]) << 4 | hexval(v[2]));
				v += 2, len -= 2;
				break;
			default:
				return -1;
			}
		}
		if (n == max)
			return -1;
		out[n++] = c;
	}
	return (long)n;
}

static bool parse_mac(const char *v, uint8_t *mac)
{
	unsigned b[6];
	char tail;
	int i;

	if (sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return false;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return true;
}

/* "10.0.0.2", "10.0.0.2:80", "2001:db8::2", "[2001:db8::2]:80" */
static int parse_endpoint(struct parser *ps, union pt_addr *a, uint16_t *port, bool *has_port)
{
	char addr[INET6_ADDRSTRLEN + 2];
	const char *t = ps->tok, *p = NULL;
	unsigned long v;
	int fam;
	size_t n;

	*has_port = false;
	if (t[0] == '[') {
		const char *close = strchr(t, ']');

		if (!close || (close[1] && close[1] != ':'))
			return perr(ps, t, "expected [IPv6] or [IPv6]:port");
		n = (size_t)(close - t - 1);
		if (close[1])
			p = close + 2;
		t++;
	} else if ((fam = pt_addr_parse(t, a)) != 0) {
		return fam;
	} else {
		p = strrchr(t, ':');
		if (!p)
			return perr(ps, ps->tok, "not an address");
		n = (size_t)(p - t);
		p++;
	}
	if (n >= sizeof(addr))
		return perr(ps, ps->tok, "not an address");
	memcpy(addr, t, n);
	addr[n] = '\0';
	fam = pt_addr_parse(addr, a);
	if (!fam)
		return perr(ps, ps->tok, "not an address");
	if (fam == AF_INET6 && ps->tok[0] != '[' && p)
		return perr(ps, ps->tok, "write an IPv6 address with a port as [addr]:port");
	if (p) {
		if (!parse_num(p, 65535, &v))
			return perr(ps, ps->tok, "bad port");
		*port = (uint16_t)v;
		*has_port = true;
	}
	return fam;
}

/* "syn,ack" -> flags; -1 if a name is not a TCP flag. */
static int parse_tcp_flags(const char *v)
{
	char buf[128], *save = NULL, *w;
	int flags = 0, i;

	if (!strcasecmp(v, "none"))
		return 0;
	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < 8; i++)
			if (!strcasecmp(w, spec_tcp_flags[i]))
				break;
		if (i == 8)
			return -1;
		flags |= 1 << i;
	}
	return flags;
}

/* A comma list of names from `t` into out[]; count, or -1 when a name is unknown. */
static int parse_name_list(const char *v, const struct spec_name *t, uint8_t *out, unsigned max)
{
	char buf[256], *save = NULL, *w;
	unsigned n = 0;
	int val;

	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		val = spec_name_lookup(t, w);
		if (val < 0 || n == max)
			return -1;
		out[n++] = (uint8_t)val;
	}
	return (int)n;
}

static int parse_ipopt(struct parser *ps, const char *tok, const char *v)
{
	struct pkt_spec *s = ps->s;
	char buf[256], *save = NULL, *w;
	const struct spec_ipopt *o;
	long n = parse_hex(v, s->ipopt, sizeof(s->ipopt));

	if (n >= 0) {
		s->ipopt_len = (uint8_t)n;
		return 0;
	}
	if (strlen(v) >= sizeof(buf))
		return perr(ps, tok, "too long");
	strcpy(buf, v);
	s->ipopt_len = 0;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (o = spec_ipopts; o->name && strcasecmp(o->name, w); o++)
			;
		if (!o->name)
			return perr(ps, tok,
				    "unknown IPv4 option '%s' (rr ts lsrr ssrr ra nop eol hex:..)",
				    w);
		if (s->ipopt_len + o->len > 40)
			return perr(ps, tok, "IPv4 options longer than 40 bytes");
		memcpy(s->ipopt + s->ipopt_len, o->bytes, o->len);
		s->ipopt_len += o->len;
	}
	return 0;
}

/* frag=off:N[,mf] | frag=mf | frag=off:0 */
static int parse_frag(struct parser *ps, const char *tok, const char *v)
{
	struct pkt_spec *s = ps->s;
	char buf[64], *save = NULL, *w;
	unsigned long n;

	if (strlen(v) >= sizeof(buf))
		return perr(ps, tok, "bad fragment");
	strcpy(buf, v);
	s->frag = true;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "mf"))
			s->mf = true;
		else if (!strncasecmp(w, "off:", 4) && parse_num(w + 4, 0x1fff, &n))
			s->frag_off = (uint16_t)n;
		else
			return perr(ps, tok, "expected off:N (8-byte units, <= 8191) and/or mf");
	}
	return 0;
}

static bool is_icmp(const struct pkt_spec *s)
{
	return pkt_proto(s->proto)->icmp;
}

/* A bare word after the addresses: flags, type names, chunks, or a boolean. */
static int parse_word(struct parser *ps, const char *w)
{
	struct pkt_spec *s = ps->s;
	const struct spec_icmp_name *in;
	int v;

	if (!strcasecmp(w, "df")) {
		s->df = true;
	} else if (!strcasecmp(w, "mf")) {
		s->mf = true;
		s->frag = true;
	} else if (!strcasecmp(w, "sackok")) {
		s->sack_perm = true;
	} else if (!strcasecmp(w, "eth")) {
		s->eth = true;
	} else if (!strcasecmp(w, "badsum")) {
		s->bad_l4_csum = true;
	} else if (!strcasecmp(w, "badipsum")) {
		s->bad_ip_csum = true;
	} else if (!strcasecmp(w, "nocsum")) {
		s->udp_no_csum = true;
	} else if (s->proto == IPPROTO_TCP && (v = parse_tcp_flags(w)) >= 0) {
		s->tcp_flags = (uint8_t)v;
	} else if (is_icmp(s) && (in = spec_icmp_by_name(s->family, w))) {
		s->icmp_type = in->type;
		s->icmp_code = in->code < 0 ? 0 : (uint8_t)in->code;
	} else if (s->proto == IPPROTO_SCTP &&
		   (v = parse_name_list(w, spec_sctp_chunks, s->sctp_chunks + s->n_chunks,
					PKT_SPEC_MAX_CHUNKS - s->n_chunks)) >= 0) {
		s->n_chunks = (uint8_t)(s->n_chunks + v);
	} else if (s->proto == IPPROTO_DCCP && (v = spec_name_lookup(spec_dccp_types, w)) >= 0) {
		s->dccp_type = (uint8_t)v;
	} else {
		return perr(ps, w, "unknown word");
	}
	return 0;
}

/* A `key=value` pair. */
static int parse_pair(struct parser *ps, const char *tok, const char *k, const char *v)
{
	struct pkt_spec *s = ps->s;
	unsigned long n;
	long m;
	int f;

#define NUM(max)                                                                                   \
	do {                                                                                       \
		if (!parse_num(v, (max), &n))                                                      \
			return perr(ps, tok, "expected a number <= %lu", (unsigned long)(max));    \
	} while (0)

	if (!strcmp(k, "flags") && s->proto == IPPROTO_TCP) {
		if ((f = parse_tcp_flags(v)) < 0)
			return perr(ps, tok, "unknown TCP flag");
		s->tcp_flags = (uint8_t)f;
	} else if (!strcmp(k, "seq") && is_icmp(s)) {
		NUM(0xffff);
		ps->icmp_seq = (long)n;
	} else if (!strcmp(k, "seq")) {
		NUM(UINT32_MAX);
		s->seq = (uint32_t)n;
	} else if (!strcmp(k, "ack")) {
		NUM(UINT32_MAX);
		s->ack = (uint32_t)n;
	} else if (!strcmp(k, "win")) {
		NUM(0xffff);
		s->window = (uint16_t)n;
	} else if (!strcmp(k, "urg")) {
		NUM(0xffff);
		s->urg = (uint16_t)n;
	} else if (!strcmp(k, "mss")) {
		NUM(0xffff);
		s->mss = (uint16_t)n;
	} else if (!strcmp(k, "wscale")) {
		NUM(255);
		s->wscale = (uint8_t)n;
		s->has_wscale = true;
	} else if (!strcmp(k, "ts")) {
		unsigned long a, b;
		char buf[64], *colon;

		if (strlen(v) >= sizeof(buf) || !(colon = strchr(strcpy(buf, v), ':')))
			return perr(ps, tok, "expected ts=VAL:ECR");
		*colon = '\0';
		if (!parse_num(buf, UINT32_MAX, &a) || !parse_num(colon + 1, UINT32_MAX, &b))
			return perr(ps, tok, "expected ts=VAL:ECR");
		s->has_ts = true;
		s->ts_val = (uint32_t)a;
		s->ts_ecr = (uint32_t)b;
	} else if (!strcmp(k, "tcpopt")) {
		if ((m = parse_hex(v, s->tcpopt, sizeof(s->tcpopt))) < 0)
			return perr(ps, tok, "expected hex:BYTES (at most 40)");
		s->tcpopt_len = (uint8_t)m;
	} else if (!strcmp(k, "type") && is_icmp(s)) {
		NUM(255);
		s->icmp_type = (uint8_t)n;
	} else if (!strcmp(k, "code") && is_icmp(s)) {
		NUM(255);
		s->icmp_code = (uint8_t)n;
	} else if (!strcmp(k, "id") && is_icmp(s)) {
		NUM(0xffff);
		ps->icmp_id = (long)n;
	} else if (!strcmp(k, "mtu") && is_icmp(s)) {
		NUM(s->family == AF_INET ? 0xffff : UINT32_MAX);
		ps->icmp_mtu = (long)n;
	} else if (!strcmp(k, "ptr") && is_icmp(s)) {
		NUM(s->family == AF_INET ? 0xff : UINT32_MAX);
		ps->icmp_ptr = (long)n;
	} else if (!strcmp(k, "rest") && is_icmp(s)) {
		NUM(UINT32_MAX);
		ps->icmp_rest = (long)n;
	} else if (!strcmp(k, "cov") && s->proto == IPPROTO_UDPLITE) {
		NUM(0xffff);
		s->udplite_cov = (uint16_t)n;
	} else if (!strcmp(k, "vtag") && s->proto == IPPROTO_SCTP) {
		NUM(UINT32_MAX);
		s->sctp_vtag = (uint32_t)n;
	} else if (!strcmp(k, "chunks") && s->proto == IPPROTO_SCTP) {
		if ((f = parse_name_list(v, spec_sctp_chunks, s->sctp_chunks,
					 PKT_SPEC_MAX_CHUNKS)) < 0)
			return perr(ps, tok, "unknown SCTP chunk or too many");
		s->n_chunks = (uint8_t)f;
	} else if (!strcmp(k, "key") && s->proto == IPPROTO_GRE) {
		NUM(UINT32_MAX);
		s->gre_key = (uint32_t)n;
		s->gre_has_key = true;
	} else if (!strcmp(k, "greproto") && s->proto == IPPROTO_GRE) {
		NUM(0xffff);
		s->gre_proto = (uint16_t)n;
	} else if (!strcmp(k, "spi")) {
		NUM(UINT32_MAX);
		s->spi = (uint32_t)n;
	} else if (!strcmp(k, "ttl") || !strcmp(k, "hlim")) {
		NUM(255);
		s->ttl = (uint8_t)n;
	} else if (!strcmp(k, "tos") || !strcmp(k, "tc")) {
		NUM(255);
		s->tos = (uint8_t)n;
	} else if (!strcmp(k, "flow") && s->family == AF_INET6) {
		NUM(0xfffff);
		s->flowlabel = (uint32_t)n;
	} else if (!strcmp(k, "id") || !strcmp(k, "ipid")) {
		NUM(s->family == AF_INET ? 0xffff : UINT32_MAX);
		s->ip_id = (uint32_t)n;
	} else if (!strcmp(k, "frag")) {
		return parse_frag(ps, tok, v);
	} else if (!strcmp(k, "ipopt") && s->family == AF_INET) {
		return parse_ipopt(ps, tok, v);
	} else if (!strcmp(k, "ext") && s->family == AF_INET6) {
		if ((f = parse_name_list(v, spec_ext_names, s->ext, PKT_SPEC_MAX_EXT)) < 0)
			return perr(ps, tok,
				    "unknown extension header (hop dst rt frag ah) or too many");
		s->n_ext = (uint8_t)f;
	} else if (!strcmp(k, "len")) {
		NUM(65535);
		ps->len = (uint32_t)n;
		ps->len_given = true;
	} else if (!strcmp(k, "payload")) {
		m = v[0] == '"' ? parse_quoted(v, s->payload_buf, sizeof(s->payload_buf))
				: parse_hex(v, s->payload_buf, sizeof(s->payload_buf));
		if (m < 0)
			return perr(ps, tok, "expected \"text\" or hex:BYTES (at most %d bytes)",
				    PKT_SPEC_PAYLOAD_MAX);
		s->payload_len = (uint32_t)m;
		ps->payload_given = true;
	} else if (!strcmp(k, "smac") || !strcmp(k, "dmac")) {
		if (!parse_mac(v, k[0] == 's' ? s->eth_src : s->eth_dst))
			return perr(ps, tok, "expected a MAC address aa:bb:cc:dd:ee:ff");
		s->eth = true;
	} else if (!strcmp(k, "vlan")) {
		char buf[32], *comma;
		unsigned long a, b = 0;

		if (strlen(v) >= sizeof(buf))
			return perr(ps, tok, "expected vlan=ID[,ID]");
		strcpy(buf, v);
		comma = strchr(buf, ',');
		if (comma)
			*comma = '\0';
		if (!parse_num(buf, 4095, &a) || (comma && !parse_num(comma + 1, 4095, &b)))
			return perr(ps, tok, "expected vlan=ID[,ID] (0..4095)");
		s->vlan[0] = (uint16_t)a;
		s->vlan[1] = (uint16_t)b;
		s->n_vlan = comma ? 2 : 1;
		s->eth = true;
	} else {
		return perr(ps, tok, "unknown key for %s",
			    spec_name_of(spec_protos, s->proto)
				? spec_name_of(spec_protos, s->proto)
				: "this protocol");
	}
	return 0;
#undef NUM
}

static uint32_t icmp_rest(const struct parser *ps)
{
	const struct pkt_spec *s = ps->s;
	uint32_t r = 0;

	if (ps->icmp_rest >= 0)
		return (uint32_t)ps->icmp_rest;
	if (ps->icmp_id >= 0)
		r |= (uint32_t)ps->icmp_id << 16;
	if (ps->icmp_seq >= 0)
		r |= (uint32_t)ps->icmp_seq;
	if (ps->icmp_mtu >= 0)
		r |= (uint32_t)ps->icmp_mtu;
	if (ps->icmp_ptr >= 0)
		r |= s->family == AF_INET ? (uint32_t)ps->icmp_ptr << 24 : (uint32_t)ps->icmp_ptr;
	return r;
}

static int parse_head(struct parser *ps)
{
	struct pkt_spec *s = ps->s;
	uint16_t dport = 0;
	unsigned long n;
	bool got;
	int v, fam_src, fam_dst;
	char *src_tok = ps->src_tok;

	if (next_token(ps, &got) || !got)
		return perr(ps, "(empty)", "expected a protocol");
	if (!strncmp(ps->tok, "proto=", 6)) {
		if (!parse_num(ps->tok + 6, 255, &n))
			return perr(ps, ps->tok, "expected a protocol number <= 255");
		s->proto = (uint8_t)n;
	} else if ((v = spec_name_lookup(spec_protos, ps->tok)) >= 0) {
		s->proto = (uint8_t)v;
	} else {
		return perr(ps, ps->tok, "unknown protocol");
	}

	if (next_token(ps, &got) || !got)
		return perr(ps, ps->tok, "expected a source address after the protocol");
	fam_src = parse_endpoint(ps, &s->src, &s->sport, &ps->has_sport);
	if (fam_src < 0)
		return fam_src;
	snprintf(ps->src_tok, sizeof(ps->src_tok), "%.63s", ps->tok);
	if (next_token(ps, &got) || !got || strcmp(ps->tok, ">"))
		return perr(ps, got ? ps->tok : src_tok, "expected '>' between the addresses");
	if (next_token(ps, &got) || !got)
		return perr(ps, ">", "expected a destination address");
	fam_dst = parse_endpoint(ps, &s->dst, &dport, &ps->has_dport);
	if (fam_dst < 0)
		return fam_dst;
	snprintf(ps->dst_tok, sizeof(ps->dst_tok), "%.63s", ps->tok);
	s->dport = dport;
	if (fam_src != fam_dst)
		return perr(ps, ps->tok, "source and destination are of different families");
	s->family = (uint8_t)fam_src;
	if (!pkt_proto(s->proto)->ports && (ps->has_sport || ps->has_dport))
		return perr(ps, ps->has_sport ? src_tok : ps->tok, "this protocol has no ports");
	if (s->proto == IPPROTO_ICMP && s->family == AF_INET6)
		s->proto = IPPROTO_ICMPV6; /* "icmp" with IPv6 addresses means ICMPv6 */
	if (s->proto == IPPROTO_ICMPV6 && s->family == AF_INET)
		return perr(ps, src_tok, "icmp6 needs IPv6 addresses");
	if (s->proto == IPPROTO_AH && s->family == AF_INET6)
		return perr(ps, src_tok, "over IPv6, AH is an extension header: use ext=ah");
	return 0;
}

int pkt_spec_parse(const char *text, struct pkt_spec *out, char *err, size_t errlen)
{
	struct parser ps = {
	    .cur = text,
	    .err = err,
	    .errlen = errlen,
	    .s = out,
	    .icmp_id = -1,
	    .icmp_seq = -1,
	    .icmp_mtu = -1,
	    .icmp_ptr = -1,
	    .icmp_rest = -1,
	};
	bool got;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	pkt_spec_init(out);
	ret = parse_head(&ps);
	if (ret)
		return ret;
	for (;;) {
		char *eq;

		ret = next_token(&ps, &got);
		if (ret)
			return perr(&ps, ps.tok,
				    ret == -E2BIG ? "token too long" : "unbalanced quote");
		if (!got)
			break;
		eq = strchr(ps.tok, '=');
		if (eq) {
			char tok[MAX_TOKEN];

			strcpy(tok, ps.tok);
			*eq = '\0';
			ret = parse_pair(&ps, tok, ps.tok, eq + 1);
		} else {
			ret = parse_word(&ps, ps.tok);
		}
		if (ret)
			return ret;
	}
	if (ps.len_given) {
		if (ps.payload_given && ps.len < out->payload_len)
			return perr(&ps, "len", "shorter than the payload given");
		out->payload_len = ps.len; /* payload_buf is zero beyond what was given */
	}
	/* A non-first fragment carries no transport header, hence no ports. */
	if (pkt_proto(out->proto)->ports && !out->frag_off && (!ps.has_sport || !ps.has_dport))
		return perr(&ps, ps.has_sport ? ps.dst_tok : ps.src_tok,
			    "this protocol needs ports");
	if (is_icmp(out))
		out->icmp_rest = icmp_rest(&ps);
	if (out->family == AF_INET && (out->frag && !out->mf && !out->frag_off))
		out->frag = false; /* frag=off:0 means nothing over IPv4 */
	return 0;
}
