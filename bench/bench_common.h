/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the benchmarks share: the generated traffic mix, loading a ruleset, the wall clock, and a
 * set of packets that is sent again and again without being rebuilt.
 *
 * Header only (static inline): each bench/NAME.c is a program of its own (the Makefile's
 * wildcard), so a bench/common.c would be taken for one.
 *
 * Flow i of the mix, as bench_engine has always sent it:
 *
 *   20 % IPv6 (fd00::/64 -> 2001:db8:N::1), else IPv4 (10/8 -> 203.0.113.x)
 *   30 % UDP to port 53, else TCP ACK to 443 or 80
 *   odd flows 1500-byte frames, even ones 64 bytes, Ethernet, TTL 255
 *
 * A resent packet (struct bench_set) gets its first BENCH_HDR_SAVE bytes back before each send:
 * the box rewrote them (TTL, NAT), and headers are all the box changes for this traffic.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>

#include "engine/box.h"
#include "pkt/build.h"
#include "rules/rules.h"

#define BENCH_HDR_SAVE 128 /* Ethernet + IPv6 + TCP with room to spare */

static inline double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The spec of flow i of the mix (see above). */
static inline void bench_flow_spec(unsigned i, struct pkt_spec *s)
{
	bool v6 = i % 5 == 4;  /* 20 % IPv6 */
	bool udp = i % 10 < 3; /* 30 % UDP */
	uint32_t frame = i % 2 ? 1500 : 64;
	uint32_t hdr = 14 + (v6 ? 40 : 20) + (udp ? 8 : 20);

	pkt_spec_init(s);
	s->eth = true;
	s->family = v6 ? AF_INET6 : AF_INET;
	if (v6) {
		char a[64], d[64];

		snprintf(a, sizeof(a), "fd00::%x:%x", i >> 8, i & 0xff);
		snprintf(d, sizeof(d), "2001:db8:%x::1", i % 97);
		pt_addr_parse(a, &s->src);
		pt_addr_parse(d, &s->dst);
	} else {
		s->src.w[0] = htonl(0x0a000000u | (i << 2 & 0xffffff) | 2);
		s->dst.w[0] = htonl(0xcb007100u | (i % 200)); /* 203.0.113.x */
	}
	s->proto = udp ? 17 : 6;
	s->sport = (uint16_t)(1024 + i % 60000);
	s->dport = udp ? 53 : (i % 3 ? 443 : 80);
	s->tcp_flags = 0x10; /* ACK */
	s->seq = i * 7919u;
	s->ack = i * 104729u;
	s->ttl = 255;
	s->payload_len = frame > hdr ? frame - hdr : 0;
}

/* Flow i's packet, NULL on failure (errno from pkt_build). */
static inline struct pkt *bench_flow_packet(unsigned i)
{
	struct pkt_spec *s = malloc(sizeof(*s)); /* 2 kB of payload buffer: not on the stack */
	struct pkt *p;

	if (!s)
		return NULL;
	bench_flow_spec(i, s);
	p = pkt_build(s);
	free(s);
	return p;
}

/* Parse an iptables-restore text for family and install it; errors printed. 0 or -errno. */
/* A packet from its text form (pkt/spec); the bench stops at once on a bad one. */
static inline struct pkt *bench_spec_packet(const char *text)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	struct pkt *p;

	if (!s || pkt_spec_parse(text, s, NULL, 0)) {
		fprintf(stderr, "bench: bad packet spec %s\n", text);
		exit(1);
	}
	p = pkt_build(s);
	free(s);
	if (!p)
		exit(1);
	return p;
}

static inline int bench_load_rules(struct box *b, const char *text, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	int rc = rules_parse_buffer(text, strlen(text), "bench", family, ext_registry_default(),
				    NULL, 0, &rs, &err);

	if (rc) {
		rules_error_print(&err, stderr);
		return rc;
	}
	box_set_ruleset(b, rs, family);
	return 0;
}

/* ---- a set of packets sent again and again ----------------------------------------------- */

struct bench_set {
	struct pkt **pkt;
	uint8_t (*hdr)[BENCH_HDR_SAVE];
	uint32_t *hlen;
	unsigned n;
	unsigned cur;	      /* the packet in the box now (its xmit puts it back here) */
	uint64_t xmit, other; /* forwarded; delivered or dropped (the packet is then lost) */
};

/* Take p as packet i of the set (its current bytes are what every send restores). */
static inline void bench_set_put(struct bench_set *s, unsigned i, struct pkt *p)
{
	s->pkt[i] = p;
	s->hlen[i] = p->len < BENCH_HDR_SAVE ? p->len : BENCH_HDR_SAVE;
	pkt_copy_out(p, 0, s->hdr[i], s->hlen[i]);
}

/* Room for n packets. 0 or -ENOMEM. */
static inline int bench_set_init(struct bench_set *s, unsigned n)
{
	memset(s, 0, sizeof(*s));
	s->pkt = calloc(n, sizeof(*s->pkt));
	s->hdr = calloc(n, sizeof(*s->hdr));
	s->hlen = calloc(n, sizeof(*s->hlen));
	s->n = n;
	return s->pkt && s->hdr && s->hlen ? 0 : -ENOMEM;
}

static inline void bench_set_free(struct bench_set *s)
{
	for (unsigned i = 0; i < s->n; i++)
		pkt_free(s->pkt[i]);
	free(s->pkt);
	free(s->hdr);
	free(s->hlen);
}

/*
 * Send packet i (its saved header restored) into interface ifindex. The box's ops must hand it
 * back through bench_set_xmit (user = the set). Returns false when it did not come back
 * (dropped or delivered: the box has freed it and the slot is empty).
 */
static inline bool bench_set_send(struct bench_set *s, struct box *b, int ifindex, unsigned i)
{
	struct pkt *p = s->pkt[i];

	pkt_store(p, 0, s->hdr[i], s->hlen[i]);
	p->mark = 0;
	p->priority = 0;
	p->trace = false;
	p->ct = NULL; /* released when it left, but still pointing: ct_in would leave it alone */
	p->ctinfo = 0;
	p->l4_csum_verified = false; /* as a frame from a capture: conntrack verifies it again */
	s->cur = i;
	s->pkt[i] = NULL;
	box_receive(b, ifindex, p);
	return s->pkt[i] != NULL;
}

static inline void bench_set_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct bench_set *s = user;

	(void)b;
	(void)oif;
	s->xmit++;
	s->pkt[s->cur] = p;
}

static inline void bench_set_deliver(void *user, struct box *b, struct pkt *p)
{
	struct bench_set *s = user;

	(void)b;
	s->other++;
	pkt_free(p);
}

static inline void bench_set_dropped(void *user, struct box *b, const struct pkt *p,
				     const struct box_drop *why)
{
	struct bench_set *s = user;

	(void)b;
	(void)p;
	(void)why;
	s->other++;
}

#endif
