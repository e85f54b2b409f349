// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gen.c: flow choice, sizes and the frame builder of the packet generator (gen.h draws the
 * frame and the signature).
 *
 * Per flow only a few words of state are kept (the next signature sequence and the TCP byte
 * count); the headers come from one template per family, built once, with the flow's
 * addresses, ports and the per-packet fields written into a copy. Checksums are summed over
 * the headers and the signature only: the rest of the payload is zero and adds nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "gen/gen.h"

#define L2_LEN	  14
#define VLAN_LEN  4
#define IP4_LEN	  20
#define IP6_LEN	  40
#define FRAG6_LEN 8
#define TCP_LEN	  20
#define UDP_LEN	  8
#define ICMP_LEN  8
/* Bytes a frame's headers and signature can reach: a slot reused by gen_next_reuse is zeroed
 * this far, so payload bytes past it are zero in every frame ever written there. */
#define HDR_ZONE    128
#define FLOW_SPREAD 250 /* flow i: source address + i % 250, source port + i / 250 */

/* Simple IMIX (7:4:1 of 64, 594 and 1518-byte frames). */
static const unsigned imix_size[12] = {64, 64, 64, 64, 64, 64, 64, 594, 594, 594, 594, 1518};

struct gen_flow {
	uint32_t seq;	    /* next signature sequence (data packets sent) */
	uint32_t tcp_bytes; /* payload bytes sent (TCP sequence offset) */
	uint8_t stage;	    /* TCP handshake: 0 SYN, 1 SYN-ACK, 2 ACK, 3 data */
	uint16_t sent;	    /* capped count, for the distribution tests */
};

struct gen {
	struct gen_config c;
	struct gen_flow *flow;
	double *zipf_cdf; /* flows entries, for GEN_DIST_ZIPF */
	uint64_t rng[4];  /* xoshiro256** */
	unsigned rr;	  /* next flow for GEN_DIST_SEQ */
	uint16_t ip_id;
	uint32_t frag6_id;
	uint64_t datagrams, frames;

	/* a fragmented datagram being cut into frames */
	uint8_t dgram[GEN_MAX_FRAME + 64];
	size_t dgram_len;    /* whole frame, headers included */
	unsigned dgram_l3;   /* offset of the IP header */
	unsigned dgram_next; /* next payload offset (from the end of the IP header) to send */
	int dgram_family;
	bool in_dgram;
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct gen *g)
{
	uint64_t *s = g->rng;
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32). */
static unsigned rng_below(struct gen *g, unsigned n)
{
	return (unsigned)(((rng_next(g) >> 32) * (uint64_t)n) >> 32);
}

static double rng_unit(struct gen *g)
{
	return (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

void gen_config_init(struct gen_config *c)
{
	memset(c, 0, sizeof(*c));
	c->flows = 1;
	c->dist = GEN_DIST_SEQ;
	c->zipf_s = 1.1;
	c->family = 4;
	c->proto = GEN_UDP;
	c->sizes = GEN_SIZE_FIXED;
	c->size_min = c->size_max = 64;
	c->vlan = -1;
	c->seed = 1;
	memcpy(c->src_mac, "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(c->dst_mac, "\x02\x00\x00\x00\x00\x02", 6);
	pt_addr_parse("198.18.0.1", &c->src4);
	pt_addr_parse("198.19.0.1", &c->dst4);
	pt_addr_parse("2001:db8:18::1", &c->src6);
	pt_addr_parse("2001:db8:19::1", &c->dst6);
	c->sport = 10000;
	c->dport = 9;
	c->ttl = 64;
}

static unsigned l2_len(const struct gen_config *c)
{
	return L2_LEN + (c->vlan >= 0 ? VLAN_LEN : 0);
}

static unsigned l4_len(const struct gen_config *c)
{
	return c->proto == GEN_TCP ? TCP_LEN : c->proto == GEN_UDP ? UDP_LEN : ICMP_LEN;
}

unsigned gen_min_frame(const struct gen_config *c, int family)
{
	unsigned n =
	    l2_len(c) + (family == 6 ? IP6_LEN : IP4_LEN) + l4_len(c) + GEN_SIG_LEN + GEN_FCS;

	return n < GEN_MIN_FRAME ? GEN_MIN_FRAME : n;
}

static int family_of(const struct gen_config *c, unsigned flow)
{
	if (c->family == 46)
		return (flow & 1) ? 6 : 4;
	return c->family;
}

int gen_config_check(const struct gen_config *c, char *err, size_t errlen)
{
	static const char *const pname[] = {"UDP", "TCP", "ICMP"};

	if (c->flows < 1 || c->flows > GEN_MAX_FLOWS) {
		snprintf(err, errlen, "flows must be 1 to %u", GEN_MAX_FLOWS);
		return -EINVAL;
	}
	if (c->family != 4 && c->family != 6 && c->family != 46) {
		snprintf(err, errlen, "family must be 4, 6 or 46");
		return -EINVAL;
	}
	if (c->dist == GEN_DIST_ZIPF && !(c->zipf_s > 0 && c->zipf_s < 100)) {
		snprintf(err, errlen, "the Zipf exponent must be above 0 (and below 100)");
		return -EINVAL;
	}
	if (c->vlan > 4095) {
		snprintf(err, errlen, "VLAN id %d is over 4095", c->vlan);
		return -EINVAL;
	}
	if (c->sizes != GEN_SIZE_IMIX) {
		for (int fam = 4; fam <= 6; fam += 2) {
			unsigned min = gen_min_frame(c, fam);

			if (c->family != 46 && c->family != fam)
				continue;
			if (c->size_min < min) {
				snprintf(err, errlen,
					 "size %u is below the headers and the %u-byte signature "
					 "of IPv%d/%s%s (the smallest is %u, FCS included)",
					 c->size_min, GEN_SIG_LEN, fam, pname[c->proto],
					 c->vlan >= 0 ? " with a VLAN tag" : "", min);
				return -EINVAL;
			}
		}
	}
	if (c->size_max < c->size_min) {
		snprintf(err, errlen, "size range %u-%u is empty", c->size_min, c->size_max);
		return -EINVAL;
	}
	if (c->size_max > GEN_MAX_FRAME) {
		snprintf(err, errlen, "size %u is over %u (a 9000-byte MTU)", c->size_max,
			 GEN_MAX_FRAME);
		return -EINVAL;
	}
	if (c->frag) {
		if (c->frag % 8 || c->frag < 8) {
			snprintf(err, errlen, "fragment size %u is not a positive multiple of 8",
				 c->frag);
			return -EINVAL;
		}
		if (c->frag < l4_len(c) + GEN_SIG_LEN) {
			snprintf(err, errlen,
				 "fragment size %u cannot hold the transport header and the "
				 "signature (at least %u)",
				 c->frag, (l4_len(c) + GEN_SIG_LEN + 7) / 8 * 8);
			return -EINVAL;
		}
		if (c->proto == GEN_TCP && c->tcp_mode == GEN_TCP_HANDSHAKE) {
			snprintf(err, errlen, "fragments and the TCP handshake do not mix");
			return -EINVAL;
		}
	}
	return 0;
}

struct gen *gen_new(const struct gen_config *c, char *err, size_t errlen)
{
	struct gen *g;
	uint64_t x;

	if (gen_config_check(c, err, errlen))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		goto nomem;
	g->c = *c;
	g->flow = calloc(c->flows, sizeof(*g->flow));
	if (!g->flow)
		goto nomem;
	x = c->seed;
	for (int i = 0; i < 4; i++)
		g->rng[i] = splitmix64(&x);
	g->ip_id = (uint16_t)splitmix64(&x);
	g->frag6_id = (uint32_t)splitmix64(&x);
	if (c->dist == GEN_DIST_ZIPF) {
		double sum = 0;

		g->zipf_cdf = malloc(sizeof(double) * c->flows);
		if (!g->zipf_cdf)
			goto nomem;
		for (unsigned i = 0; i < c->flows; i++) {
			sum += 1.0 / pow((double)(i + 1), c->zipf_s);
			g->zipf_cdf[i] = sum;
		}
		for (unsigned i = 0; i < c->flows; i++)
			g->zipf_cdf[i] /= sum;
	}
	return g;
nomem:
	gen_free(g);
	snprintf(err, errlen, "out of memory for %u flows", c->flows);
	return NULL;
}

void gen_free(struct gen *g)
{
	if (!g)
		return;
	free(g->zipf_cdf);
	free(g->flow);
	free(g);
}

uint64_t gen_datagrams(const struct gen *g)
{
	return g->datagrams;
}

uint64_t gen_frames(const struct gen *g)
{
	return g->frames;
}

bool gen_in_datagram(const struct gen *g)
{
	return g->in_dgram;
}

unsigned gen_flow_count(const struct gen *g, unsigned flow)
{
	return flow < g->c.flows ? g->flow[flow].sent : 0;
}

static unsigned pick_flow(struct gen *g)
{
	unsigned n = g->c.flows, f;

	switch (g->c.dist) {
	case GEN_DIST_RANDOM:
		return rng_below(g, n);
	case GEN_DIST_ZIPF: {
		double u = rng_unit(g);
		unsigned lo = 0, hi = n - 1;

		while (lo < hi) {
			unsigned mid = lo + (hi - lo) / 2;

			if (g->zipf_cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo;
	}
	case GEN_DIST_SEQ:
	default:
		f = g->rr;
		g->rr = g->rr + 1 == n ? 0 : g->rr + 1;
		return f;
	}
}

static unsigned pick_size(struct gen *g, int family)
{
	unsigned s, min = gen_min_frame(&g->c, family);

	switch (g->c.sizes) {
	case GEN_SIZE_RANGE:
		s = g->c.size_min + rng_below(g, g->c.size_max - g->c.size_min + 1);
		break;
	case GEN_SIZE_IMIX:
		s = imix_size[rng_below(g, 12)];
		break;
	default:
		s = g->c.size_min;
	}
	return s < min ? min : s;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/* The flow's addresses: base + flow % FLOW_SPREAD in the last 32-bit word (host part). */
static void flow_addrs(const struct gen *g, unsigned flow, int fam, union pt_addr *src,
		       union pt_addr *dst)
{
	const union pt_addr *s = fam == 6 ? &g->c.src6 : &g->c.src4;
	int w = fam == 6 ? 3 : 0;
	uint32_t host;

	*src = *s;
	*dst = fam == 6 ? g->c.dst6 : g->c.dst4;
	host = (uint32_t)src->b[4 * w] << 24 | (uint32_t)src->b[4 * w + 1] << 16 |
	       (uint32_t)src->b[4 * w + 2] << 8 | src->b[4 * w + 3];
	put32(&src->b[4 * w], host + flow % FLOW_SPREAD);
}

/* A flow's two initial sequence numbers (client, server), fixed by the seed. */
static void flow_isn(const struct gen *g, unsigned flow, uint32_t *client, uint32_t *server)
{
	uint64_t x = g->c.seed ^ ((uint64_t)flow << 20), r = splitmix64(&x);

	*client = (uint32_t)r;
	*server = (uint32_t)(r >> 32);
}

/*
 * Write one whole datagram for `flow` at buf (the frame, L2 included); return its length
 * (without FCS). *l3 gets the IP header's offset. Only headers, the signature and the
 * Ethernet padding are written when `zero_payload` is false (the caller's payload is zero).
 */
static size_t build(struct gen *g, unsigned flow, uint8_t *buf, uint64_t now_ns, bool zero_payload,
		    unsigned *l3)
{
	const struct gen_config *c = &g->c;
	struct gen_flow *fl = &g->flow[flow];
	int fam = family_of(c, flow);
	union pt_addr src, dst;
	uint16_t sport = (uint16_t)(c->sport + flow / FLOW_SPREAD), dport = c->dport;
	unsigned size, l2 = l2_len(c), ipl = fam == 6 ? IP6_LEN : IP4_LEN, l4 = l4_len(c);
	unsigned off, payload, datalen;
	uint8_t proto, tcp_flags = 0;
	uint32_t tcp_seq = 0, tcp_ack = 0, sum;
	bool reverse = false, signed_ = true;
	uint8_t *ip, *th;
	size_t len;

	flow_addrs(g, flow, fam, &src, &dst);
	size = pick_size(g, fam);
	if (c->proto == GEN_TCP) {
		uint32_t isn_c, isn_s;

		flow_isn(g, flow, &isn_c, &isn_s);
		proto = IPPROTO_TCP;
		if (c->tcp_mode == GEN_TCP_HANDSHAKE && fl->stage < 3) {
			signed_ = false;
			if (fl->stage == 0) {
				tcp_flags = 0x02;
				tcp_seq = isn_c;
			} else if (fl->stage == 1) {
				tcp_flags = 0x12;
				tcp_seq = isn_s;
				tcp_ack = isn_c + 1;
				reverse = true;
			} else {
				tcp_flags = 0x10;
				tcp_seq = isn_c + 1;
				tcp_ack = isn_s + 1;
			}
			fl->stage++;
		} else {
			tcp_flags = 0x18;
			tcp_seq = isn_c + 1 + fl->tcp_bytes;
			tcp_ack = isn_s + 1;
		}
	} else if (c->proto == GEN_UDP) {
		proto = IPPROTO_UDP;
	} else {
		proto = fam == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	}
	datalen = signed_ ? size - GEN_FCS - l2 - ipl - l4 : 0;
	payload = l4 + datalen;
	len = l2 + ipl + payload;

	/* Ethernet, 802.1Q */
	memcpy(buf, reverse ? c->src_mac : c->dst_mac, 6);
	memcpy(buf + 6, reverse ? c->dst_mac : c->src_mac, 6);
	off = 12;
	if (c->vlan >= 0) {
		put16(buf + off, 0x8100);
		put16(buf + off + 2, (uint16_t)c->vlan);
		off += 4;
	}
	put16(buf + off, fam == 6 ? 0x86dd : 0x0800);
	*l3 = l2;
	ip = buf + l2;
	if (reverse) {
		union pt_addr t = src;
		uint16_t tp = sport;

		src = dst;
		dst = t;
		sport = dport;
		dport = tp;
	}

	/* IP */
	if (fam == 4) {
		ip[0] = 0x45;
		ip[1] = 0;
		put16(ip + 2, (uint16_t)(IP4_LEN + payload));
		put16(ip + 4, g->ip_id++);
		put16(ip + 6, 0);
		ip[8] = c->ttl;
		ip[9] = proto;
		put16(ip + 10, 0);
		memcpy(ip + 12, src.b, 4);
		memcpy(ip + 16, dst.b, 4);
		put16(ip + 10, pkt_csum_fold(pkt_csum_bytes(ip, IP4_LEN, 0)));
	} else {
		put32(ip, 0x60000000u);
		put16(ip + 4, (uint16_t)payload);
		ip[6] = proto;
		ip[7] = c->ttl;
		memcpy(ip + 8, src.b, 16);
		memcpy(ip + 24, dst.b, 16);
	}

	/* transport header, signature; the checksum is summed over these bytes only */
	th = ip + ipl;
	if (zero_payload)
		memset(th, 0, payload);
	else
		memset(th, 0, HDR_ZONE > l2 + ipl ? HDR_ZONE - l2 - ipl : 0);
	if (proto == IPPROTO_TCP) {
		put16(th, sport);
		put16(th + 2, dport);
		put32(th + 4, tcp_seq);
		put32(th + 8, tcp_ack);
		th[12] = 5 << 4;
		th[13] = tcp_flags;
		put16(th + 14, 64240);
	} else if (proto == IPPROTO_UDP) {
		put16(th, sport);
		put16(th + 2, dport);
		put16(th + 4, (uint16_t)payload);
	} else {
		th[0] = fam == 6 ? 128 : 8; /* echo request */
		put16(th + 4, (uint16_t)(c->sport + flow));
		put16(th + 6, (uint16_t)fl->seq);
	}
	if (signed_) {
		uint8_t *sig = th + l4;

		put32(sig, GEN_SIG_MAGIC);
		put32(sig + 4, flow);
		put32(sig + 8, fl->seq);
		put32(sig + 12, (uint32_t)now_ns);
		fl->seq++;
		fl->tcp_bytes += datalen;
	}
	sum = pkt_csum_bytes(th, l4 + (signed_ ? GEN_SIG_LEN : 0), 0);
	if (proto != IPPROTO_ICMP)
		sum += pkt_csum_pseudo(fam == 6 ? AF_INET6 : AF_INET, &src, &dst, proto, payload);
	put16(th + (proto == IPPROTO_TCP ? 16 : proto == IPPROTO_UDP ? 6 : 2), pkt_csum_fold(sum));
	if (proto == IPPROTO_UDP && th[6] == 0 && th[7] == 0)
		th[6] = th[7] = 0xff; /* a computed 0 is sent as all ones (RFC 768) */

	/* Ethernet minimum: pad to 60 bytes (not part of the IP datagram) */
	if (len < GEN_MIN_FRAME - GEN_FCS) {
		memset(buf + len, 0, GEN_MIN_FRAME - GEN_FCS - len);
		len = GEN_MIN_FRAME - GEN_FCS;
	}
	if (fl->sent < UINT16_MAX)
		fl->sent++;
	return len;
}

/* The next fragment of g->dgram into buf. */
static size_t next_fragment(struct gen *g, uint8_t *buf)
{
	const uint8_t *d = g->dgram;
	unsigned l3 = g->dgram_l3, ipl = g->dgram_family == 6 ? IP6_LEN : IP4_LEN;
	unsigned total = (unsigned)g->dgram_len - l3 - ipl; /* IP payload bytes */
	unsigned off = g->dgram_next, n = total - off;
	bool more;
	uint8_t *ip = buf + l3;
	size_t len;

	if (n > g->c.frag)
		n = g->c.frag;
	more = off + n < total;
	memcpy(buf, d, l3 + ipl);
	if (g->dgram_family == 4) {
		memcpy(ip + IP4_LEN, d + l3 + IP4_LEN + off, n);
		put16(ip + 2, (uint16_t)(IP4_LEN + n));
		put16(ip + 6, (uint16_t)((more ? 0x2000 : 0) | off / 8));
		put16(ip + 10, 0);
		put16(ip + 10, pkt_csum_fold(pkt_csum_bytes(ip, IP4_LEN, 0)));
		len = l3 + IP4_LEN + n;
	} else {
		uint8_t *fh = ip + IP6_LEN;

		fh[0] = d[l3 + 6]; /* next header: the transport protocol */
		fh[1] = 0;
		put16(fh + 2, (uint16_t)(off | (more ? 1 : 0)));
		put32(fh + 4, g->frag6_id);
		ip[6] = 44;
		put16(ip + 4, (uint16_t)(FRAG6_LEN + n));
		memcpy(fh + FRAG6_LEN, d + l3 + IP6_LEN + off, n);
		len = l3 + IP6_LEN + FRAG6_LEN + n;
	}
	g->dgram_next = off + n;
	g->frames++;
	if (!more) {
		g->in_dgram = false;
		g->frag6_id++;
	}
	if (len < GEN_MIN_FRAME - GEN_FCS) {
		memset(buf + len, 0, GEN_MIN_FRAME - GEN_FCS - len);
		len = GEN_MIN_FRAME - GEN_FCS;
	}
	return len;
}

static size_t next(struct gen *g, uint8_t *buf, uint64_t now_ns, bool reuse)
{
	unsigned flow, l3;
	size_t len;

	if (g->in_dgram)
		return next_fragment(g, buf);
	flow = pick_flow(g);
	g->datagrams++;
	if (g->c.frag) {
		unsigned ipl = family_of(&g->c, flow) == 6 ? IP6_LEN : IP4_LEN, total;

		g->dgram_len = build(g, flow, g->dgram, now_ns, true, &l3);
		total = (unsigned)g->dgram_len - l3 - ipl;
		/* a padded short frame: the datagram ends where its IP header says */
		if (family_of(&g->c, flow) == 4)
			total = ((unsigned)g->dgram[l3 + 2] << 8 | g->dgram[l3 + 3]) - IP4_LEN;
		else
			total = (unsigned)g->dgram[l3 + 4] << 8 | g->dgram[l3 + 5];
		g->dgram_len = l3 + ipl + total;
		if (total > g->c.frag) {
			g->dgram_l3 = l3;
			g->dgram_next = 0;
			g->dgram_family = family_of(&g->c, flow);
			g->in_dgram = true;
			return next_fragment(g, buf);
		}
		memcpy(buf, g->dgram, g->dgram_len);
		len = g->dgram_len;
		if (len < GEN_MIN_FRAME - GEN_FCS) {
			memset(buf + len, 0, GEN_MIN_FRAME - GEN_FCS - len);
			len = GEN_MIN_FRAME - GEN_FCS;
		}
		g->frames++;
		return len;
	}
	len = build(g, flow, buf, now_ns, !reuse, &l3);
	g->frames++;
	return len;
}

size_t gen_next(struct gen *g, uint8_t *buf, uint64_t now_ns)
{
	return next(g, buf, now_ns, false);
}

size_t gen_next_reuse(struct gen *g, uint8_t *buf, uint64_t now_ns)
{
	/* fragments copy payload bytes: only whole datagrams may skip the zeroing */
	return next(g, buf, now_ns, !g->c.frag);
}
