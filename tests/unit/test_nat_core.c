// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/nat driven directly against a conntrack table, with explicit times: packets go through
 * ct_in, the NAT decisions a NAT hook would make (nat_setup / nat_inbound / null), the two
 * translations (PREROUTING, POSTROUTING) and ct_confirm, as a router between lan (iface 1)
 * and wan (iface 2) would do them.
 */
#include "ct_test.h"

#include "ct/ct_int.h"
#include "nat/nat.h"
#include "nat/nat_int.h"
#include "pkt/gso.h"
#include "rules/ext.h"

#define LAN 1
#define WAN 2

struct env {
	struct ct_table *ct;
	struct nat_table *nat;
	uint64_t rng;
};

static uint32_t rnd(void *priv)
{
	uint64_t *s = priv;

	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static struct env *env_new(const struct nat_config *nc)
{
	struct env *e = calloc(1, sizeof(*e));
	struct ct_config c;

	ct_config_default(&c);
	c.max_entries = 4096;
	e->rng = 0x1234567;
	e->ct = ct_table_new(&c);
	assert_non_null(e->ct);
	e->nat = nat_table_new(e->ct, nc, rnd, &e->rng);
	assert_non_null(e->nat);
	return e;
}

static void env_free(struct env *e)
{
	nat_table_free(e->nat);
	ct_table_free(e->ct);
	free(e);
}

static struct nat_range snat(const char *addr)
{
	struct nat_range r;

	memset(&r, 0, sizeof(r));
	r.family = (uint8_t)pt_addr_parse(addr, &r.min_addr);
	r.max_addr = r.min_addr;
	r.flags = NAT_R_MAP_IPS;
	return r;
}

/* Through the router: PREROUTING (DST), the SNAT decision, POSTROUTING (SRC), confirm. r NULL:
 * no SNAT rule. Returns ct_in/nat_setup's error in *err. The caller releases. */
static struct pkt *route(struct env *e, struct pkt *p, int in, int out, const struct nat_range *r,
			 uint64_t now, int *err)
{
	struct nat_where w = {.in = in, .out = out};
	int rc;

	assert_int_equal(ct_in(e->ct, p, in == WAN, 0, now), 0);
	assert_non_null(p->ct);
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_DST))
		if (nat_inbound(e->nat, p, &w, now) == 0)
			nat_setup_null(e->nat, p, NAT_MANIP_DST);
	assert_int_equal(nat_translate(e->nat, p, HOOK_PREROUTING, now), 0);
	rc = 0;
	if (ct_pkt_ctinfo(p) == CT_NEW && !nat_bound(p, NAT_MANIP_SRC)) {
		if (r)
			rc = nat_setup(e->nat, p, NAT_MANIP_SRC, r, &w, now);
		else
			nat_setup_null(e->nat, p, NAT_MANIP_SRC);
	}
	if (err)
		*err = rc;
	else
		assert_int_equal(rc, 0);
	if (rc == 0) {
		assert_int_equal(nat_translate(e->nat, p, HOOK_POSTROUTING, now), 0);
		ct_confirm(e->ct, p, now);
	}
	return p;
}

static void done(struct env *e, struct pkt *p)
{
	ct_pkt_release(e->ct, p);
	pkt_free(p);
}

/* The packet's text form after a fresh parse, checksums verified. */
static const char *text(struct pkt *p, char *buf, size_t len)
{
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_true(pkt_l4_csum_ok(p));
	pkt_spec_format(p, buf, len);
	return buf;
}

/* Send `in` from the lan with SNAT r; the text of what leaves. */
static void out_check(struct env *e, const char *in, const struct nat_range *r, uint64_t now,
		      const char *want)
{
	char buf[256];
	struct pkt *p = route(e, ct_test_pkt(in), LAN, WAN, r, now, NULL);

	assert_string_equal(text(p, buf, sizeof(buf)), want);
	done(e, p);
}

static uint16_t out_port(struct env *e, const char *in, const struct nat_range *r, uint64_t now)
{
	struct pkt *p = route(e, ct_test_pkt(in), LAN, WAN, r, now, NULL);
	uint16_t port;

	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_true(pkt_l4_csum_ok(p));
	port = p->info.sport;
	done(e, p);
	return port;
}

static void test_port_preserved_and_reply(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	char buf[256];
	struct pkt *p;

	(void)state;
	out_check(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478 len=20", &r, 0,
		  "udp 203.0.113.1:5000 > 198.51.100.1:3478 len=20");
	/* the reply is translated back at PREROUTING */
	p = route(e, ct_test_pkt("udp 198.51.100.1:3478 > 203.0.113.1:5000 len=8"), WAN, LAN, NULL,
		  S(1), NULL);
	assert_string_equal(text(p, buf, sizeof(buf)),
			    "udp 198.51.100.1:3478 > 10.0.0.2:5000 len=8");
	done(e, p);
	assert_int_equal(nat_table_stats(e->nat)->port_preserved, 1);
	/* TCP, and a UDPv4 datagram without checksum keeps none */
	out_check(e, "tcp 10.0.0.2:40000 > 198.51.100.1:80 syn", &r, S(2),
		  "tcp 203.0.113.1:40000 > 198.51.100.1:80 syn len=0");
	p = route(e, ct_test_pkt("udp 10.0.0.9:7000 > 198.51.100.1:53 nocsum len=4"), LAN, WAN, &r,
		  S(3), NULL);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	{
		uint8_t c[2];

		pkt_copy_out(p, p->info.l4off + 6, c, 2);
		assert_int_equal(c[0] | c[1], 0);
	}
	assert_int_equal(p->info.sport, 7000);
	done(e, p);
	env_free(e);
}

/* Two inside hosts, same source port, same server: with EIM both keep stable mappings; the
 * second one's port is different, of the same class and parity, and stays the same towards
 * every destination. */
static void test_clash_eim(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	uint16_t a, b, b2, a2;

	(void)state;
	a = out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0);
	b = out_port(e, "udp 10.0.0.3:5000 > 198.51.100.1:3478", &r, 0);
	assert_int_equal(a, 5000);
	assert_int_not_equal(b, 5000);
	assert_true(b >= 1024);
	assert_int_equal(b % 2, 0); /* parity kept */
	b2 = out_port(e, "udp 10.0.0.3:5000 > 198.51.100.2:3479", &r, S(1));
	a2 = out_port(e, "udp 10.0.0.2:5000 > 198.51.100.2:3479", &r, S(1));
	assert_int_equal(b2, b);
	assert_int_equal(a2, 5000);
	assert_int_equal(nat_table_stats(e->nat)->mappings, 2);
	assert_int_equal(nat_table_stats(e->nat)->mappings_reused, 2);
	/* an odd port clashing gets an odd one */
	out_port(e, "udp 10.0.0.2:5001 > 198.51.100.1:3478", &r, S(2));
	assert_int_equal(out_port(e, "udp 10.0.0.3:5001 > 198.51.100.1:3478", &r, S(2)) % 2, 1);
	env_free(e);
}

/* Linux mode: per connection, the port is kept unless the tuple clashes; the endpoint whose
 * port a clash changed keeps the new port towards another server while its connection lives
 * (the kernel's find_appropriate_src), and gets its own port back once none does. */
static void test_clash_linux_mode(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	uint16_t b;

	(void)state;
	r.mapping = NAT_B_APD;
	assert_int_equal(out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0), 5000);
	b = out_port(e, "udp 10.0.0.3:5000 > 198.51.100.1:3478", &r, 0);
	assert_int_not_equal(b, 5000);
	assert_int_equal(out_port(e, "udp 10.0.0.3:5000 > 198.51.100.2:3478", &r, 0), b);
	assert_int_equal(nat_table_stats(e->nat)->source_reused, 1);
	assert_int_equal(nat_table_stats(e->nat)->mappings, 0);
	/* 30 s later (UDP unreplied) every connection is gone, swept or not */
	assert_int_equal(out_port(e, "udp 10.0.0.3:5000 > 198.51.100.3:3478", &r, S(31)), 5000);
	env_free(e);
}

/*
 * The by-source index of Linux mode: a source mapped into a port range keeps its port for
 * its other connections; an ICMP id the same; the reused tuple taken: a new choice; a
 * translation outside this rule's range is not reused; --random-fully never reuses; the
 * index forgets destroyed connections (ct_flush).
 */
static void test_linux_reuse_source(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1"), other = snat("203.0.113.9");
	uint16_t p, q;
	char buf[256];
	struct pkt *pk;

	(void)state;
	r.mapping = other.mapping = NAT_B_APD;
	r.flags |= NAT_R_PROTO;
	r.min_port = 2000;
	r.max_port = 2099;
	p = out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:53", &r, 0);
	assert_true(p >= 2000 && p <= 2099);
	assert_int_equal(out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:54", &r, 0), p);
	assert_int_equal(out_port(e, "udp 10.0.0.2:5000 > 198.51.100.2:53", &r, 0), p);
	/* another rule's address: not in its range, so its own choice (the port kept) */
	assert_int_equal(out_port(e, "udp 10.0.0.2:5000 > 198.51.100.7:53", &other, 0), 5000);
	/* the tuple the reuse would give is another host's connection: chosen afresh */
	pk = ct_test_pkt("udp 10.0.0.3:6000 > 198.51.100.3:53");
	{
		struct nat_range fixed = r;

		fixed.min_port = fixed.max_port = p;
		done(e, route(e, pk, LAN, WAN, &fixed, 0, NULL));
	}
	q = out_port(e, "udp 10.0.0.2:5000 > 198.51.100.3:53", &r, 0);
	assert_true(q >= 2000 && q <= 2099 && q != p);
	/* ICMP: the echo id */
	{
		struct nat_range ri = snat("203.0.113.1");

		ri.mapping = NAT_B_APD;
		out_check(e, "icmp 10.0.0.2 > 198.51.100.1 echo-request id=100 seq=1", &ri, 0,
			  "icmp 203.0.113.1 > 198.51.100.1 echo-request id=100 seq=1 len=0");
		pk = route(e, ct_test_pkt("icmp 10.0.0.3 > 198.51.100.1 echo-request id=100 seq=1"),
			   LAN, WAN, &ri, 0, NULL);
		text(pk, buf, sizeof(buf));
		done(e, pk);
		assert_null(strstr(buf, "id=100 "));
		pk = route(e, ct_test_pkt("icmp 10.0.0.3 > 198.51.100.2 echo-request id=100 seq=1"),
			   LAN, WAN, &ri, 0, NULL);
		assert_string_equal(strstr(text(pk, buf + 128, 128), " id="), strstr(buf, " id="));
		done(e, pk);
	}
	/* --random-fully: never */
	{
		struct nat_range rf = snat("203.0.113.1");

		rf.flags |= NAT_R_RANDOM_FULLY;
		p = out_port(e, "udp 10.0.0.4:7000 > 198.51.100.1:53", &rf, 0);
		q = out_port(e, "udp 10.0.0.4:7000 > 198.51.100.2:53", &rf, 0);
		assert_int_not_equal(p, 7000);
		assert_int_not_equal(q, 7000);
	}
	/* the index forgets destroyed connections */
	ct_flush(e->ct);
	assert_int_equal(out_port(e, "udp 10.0.0.2:2050 > 198.51.100.1:53", &r, S(1)), 2050);
	assert_int_equal(out_port(e, "udp 10.0.0.3:6000 > 198.51.100.1:53", &r, S(1)) / 100, 20);
	env_free(e);
}

static void test_range_class(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	uint16_t p;

	(void)state;
	assert_int_equal(out_port(e, "udp 10.0.0.2:123 > 198.51.100.1:123", &r, 0), 123);
	p = out_port(e, "udp 10.0.0.3:123 > 198.51.100.1:123", &r, 0);
	assert_true(p >= 1 && p <= 1023 && p != 123 && p % 2 == 1);
	/* a given range that has ports of both classes: the original's class is used */
	r.flags |= NAT_R_PROTO;
	r.min_port = 1000;
	r.max_port = 1100;
	p = out_port(e, "tcp 10.0.0.4:2000 > 198.51.100.1:80 syn", &r, 0);
	assert_true(p >= 1024 && p <= 1100);
	env_free(e);
}

static void test_exhaustion(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	char t[96];
	int err;
	struct pkt *p;

	(void)state;
	r.flags |= NAT_R_PROTO;
	r.min_port = 2000;
	r.max_port = 2003;
	for (int i = 0; i < 4; i++) {
		snprintf(t, sizeof(t), "udp 10.0.0.%d:4000 > 198.51.100.1:53", 2 + i);
		uint16_t port = out_port(e, t, &r, 0);

		assert_true(port >= 2000 && port <= 2003);
	}
	p = route(e, ct_test_pkt("udp 10.0.0.9:4000 > 198.51.100.1:53"), LAN, WAN, &r, 0, &err);
	assert_int_equal(err, -ENOSPC);
	done(e, p);
	assert_int_equal(nat_table_stats(e->nat)->exhausted, 1);
	/* an existing mapping still works when the pool is full */
	{
		uint16_t port = out_port(e, "udp 10.0.0.2:4000 > 198.51.100.7:53", &r, S(1));

		assert_true(port >= 2000 && port <= 2003);
	}
	env_free(e);
}

/* A nearly full pool: the bitmap search finds the last free ports (one per call). */
static void test_pool_nearly_full(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	char t[96];

	(void)state;
	r.flags |= NAT_R_PROTO;
	r.min_port = 10000;
	r.max_port = 10999;
	for (int i = 0; i < 1000; i++) {
		snprintf(t, sizeof(t), "udp 10.0.%d.%d:4000 > 198.51.100.1:53", 1 + i / 200,
			 1 + i % 200);
		uint16_t port = out_port(e, t, &r, 0);

		assert_true(port >= 10000 && port <= 10999);
	}
	assert_int_equal(nat_table_stats(e->nat)->mappings, 1000);
	assert_int_equal(nat_table_stats(e->nat)->exhausted, 0);
	env_free(e);
}

static void test_random_fully_spread(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	uint16_t seen[64];
	unsigned kept = 0, lo = 65535, hi = 0;
	char t[96];

	(void)state;
	r.flags |= NAT_R_RANDOM_FULLY;
	for (int i = 0; i < 64; i++) {
		snprintf(t, sizeof(t), "udp 10.0.0.2:%d > 198.51.100.1:53", 30000 + i);
		seen[i] = out_port(e, t, &r, 0);
		kept += seen[i] == 30000 + i;
		lo = seen[i] < lo ? seen[i] : lo;
		hi = seen[i] > hi ? seen[i] : hi;
		for (int j = 0; j < i; j++)
			assert_int_not_equal(seen[i], seen[j]);
		assert_true(seen[i] >= 1024);
	}
	assert_true(kept <= 2);
	assert_true(hi - lo > 20000);
	/* --random-fully is symmetric: per destination (Linux) */
	assert_int_equal(nat_table_stats(e->nat)->mappings, 0);
	env_free(e);
}

static size_t build_bytes(const char *t, uint8_t *out, size_t cap)
{
	struct pkt *p = ct_test_pkt(t);
	size_t n = p->len;

	assert_true(n <= cap);
	pkt_copy_out(p, 0, out, (uint32_t)n);
	pkt_free(p);
	return n;
}

/* An ICMP error about a translated datagram: the outer destination and the quoted source go
 * back to the inside host, every checksum valid (RFC 5508 REQ-3). */
static void test_icmp_error_inner(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	uint8_t inner[128], want[128];
	size_t n, wn;
	struct pkt_spec *s = calloc(1, sizeof(*s));
	struct pkt *p;
	char buf[256];

	(void)state;
	r.flags |= NAT_R_PROTO;
	r.min_port = r.max_port = 6000;
	assert_int_equal(out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:53 len=12", &r, 0), 6000);
	n = build_bytes("udp 203.0.113.1:6000 > 198.51.100.1:53 len=12", inner, sizeof(inner));
	wn = build_bytes("udp 10.0.0.2:5000 > 198.51.100.1:53 len=12", want, sizeof(want));
	assert_int_equal(
	    pkt_spec_parse("icmp 192.0.2.254 > 203.0.113.1 port-unreachable", s, NULL, 0), 0);
	s->payload = inner;
	s->payload_len = (uint32_t)n;
	p = pkt_build(s);
	assert_non_null(p);
	route(e, p, WAN, LAN, NULL, S(1), NULL);
	assert_int_equal(ct_pkt_ctinfo(p), CT_RELATED_REPLY);
	text(p, buf, sizeof(buf));
	assert_true(strstr(buf, "icmp 192.0.2.254 > 10.0.0.2") == buf);
	{
		uint8_t got[128];

		pkt_copy_out(p, p->info.l4off + 8, got, (uint32_t)wn);
		assert_memory_equal(got, want, wn); /* quoted IP + UDP checksums valid too */
	}
	assert_int_equal(nat_table_stats(e->nat)->icmp_errors, 1);
	done(e, p);
	free(s);
	env_free(e);
}

static void test_ipv6_and_icmp_id(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("2001:db8:ff::1");
	char buf[256];
	struct pkt *p;

	(void)state;
	out_check(e, "tcp [fd00::2]:40000 > [2001:db8::80]:443 syn", &r, 0,
		  "tcp [2001:db8:ff::1]:40000 > [2001:db8::80]:443 syn len=0");
	/* ICMPv6 echo: the checksum covers the pseudo-header; two hosts with the same id */
	out_check(e, "icmp6 fd00::2 > 2001:db8::80 echo-request id=7", &r, 0,
		  "icmp6 2001:db8:ff::1 > 2001:db8::80 echo-request id=7 len=0");
	p = route(e, ct_test_pkt("icmp6 fd00::3 > 2001:db8::80 echo-request id=7"), LAN, WAN, &r, 0,
		  NULL);
	{ /* the parsed identifier follows the rewrite (one parse: info.icmp_id) */
		uint8_t id[2];

		assert_int_equal(pkt_copy_out(p, p->info.l4off + 4, id, 2), 0);
		assert_int_equal(p->info.icmp_id, id[0] << 8 | id[1]);
		assert_int_not_equal(p->info.icmp_id, 7);
	}
	text(p, buf, sizeof(buf));
	assert_null(strstr(buf, "id=7"));
	done(e, p);
	/* the IPv4 echo reply gets its id back */
	r = snat("203.0.113.1");
	out_check(e, "icmp 10.0.0.2 > 198.51.100.1 echo-request id=9", &r, 0,
		  "icmp 203.0.113.1 > 198.51.100.1 echo-request id=9 len=0");
	p = route(e, ct_test_pkt("icmp 10.0.0.3 > 198.51.100.1 echo-request id=9"), LAN, WAN, &r, 0,
		  NULL);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	{
		uint8_t id[2];
		char t[128];

		pkt_copy_out(p, p->info.l4off + 4, id, 2);
		done(e, p);
		snprintf(t, sizeof(t), "icmp 198.51.100.1 > 203.0.113.1 echo-reply id=%u",
			 id[0] << 8 | id[1]);
		p = route(e, ct_test_pkt(t), WAN, LAN, NULL, S(1), NULL);
		assert_string_equal(text(p, buf, sizeof(buf)),
				    "icmp 198.51.100.1 > 10.0.0.3 echo-reply id=9 len=0");
		done(e, p);
	}
	env_free(e);
}

/* A (10.0.0.2:5000) and B (10.0.0.3:6000) have mappings; A sends to B's external endpoint:
 * it arrives at B from A's external endpoint (RFC 4787 REQ-9). */
static void test_hairpin(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	char buf[256];
	struct pkt *p;

	(void)state;
	out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0);
	out_port(e, "udp 10.0.0.3:6000 > 198.51.100.1:3478", &r, 0);
	p = route(e, ct_test_pkt("udp 10.0.0.2:5000 > 203.0.113.1:6000 len=5"), LAN, LAN, NULL,
		  S(1), NULL);
	assert_string_equal(text(p, buf, sizeof(buf)),
			    "udp 203.0.113.1:5000 > 10.0.0.3:6000 len=5");
	done(e, p);
	/* B answers: back to A, seen from B's external endpoint */
	p = route(e, ct_test_pkt("udp 10.0.0.3:6000 > 203.0.113.1:5000 len=3"), LAN, LAN, NULL,
		  S(2), NULL);
	assert_string_equal(text(p, buf, sizeof(buf)),
			    "udp 203.0.113.1:6000 > 10.0.0.2:5000 len=3");
	done(e, p);
	assert_int_equal(nat_table_stats(e->nat)->hairpinned, 1);
	env_free(e);

	/* --no-hairpin: as Linux, the packet is not translated */
	e = env_new(NULL);
	r.hairpin = NAT_HAIRPIN_OFF;
	out_port(e, "udp 10.0.0.3:6000 > 198.51.100.1:3478", &r, 0);
	p = route(e, ct_test_pkt("udp 10.0.0.2:5000 > 203.0.113.1:6000 len=5"), LAN, LAN, NULL,
		  S(1), NULL);
	assert_string_equal(text(p, buf, sizeof(buf)),
			    "udp 10.0.0.2:5000 > 203.0.113.1:6000 len=5");
	done(e, p);
	env_free(e);
}

/* Inbound packets from other endpoints to a mapping, per filtering mode. */
static const char *inbound(enum nat_behave_mode filt, const char *in, char *buf, size_t len)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	struct pkt *p;

	r.filtering = (uint8_t)filt;
	out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0);
	/* the server's entry is gone (30 s); the mapping is not */
	p = route(e, ct_test_pkt(in), WAN, LAN, NULL, S(60), NULL);
	text(p, buf, len);
	done(e, p);
	env_free(e);
	return buf;
}

static void test_filtering(void **state)
{
	char b[256];
	const char *other_host = "udp 192.0.2.9:999 > 203.0.113.1:5000";
	const char *other_port = "udp 198.51.100.1:4000 > 203.0.113.1:5000";
	const char *same = "udp 198.51.100.1:3478 > 203.0.113.1:5000";

	(void)state;
	assert_string_equal(inbound(NAT_B_EI, other_host, b, sizeof(b)),
			    "udp 192.0.2.9:999 > 10.0.0.2:5000 len=0");
	assert_string_equal(inbound(NAT_B_AD, other_host, b, sizeof(b)),
			    "udp 192.0.2.9:999 > 203.0.113.1:5000 len=0");
	assert_string_equal(inbound(NAT_B_AD, other_port, b, sizeof(b)),
			    "udp 198.51.100.1:4000 > 10.0.0.2:5000 len=0");
	assert_string_equal(inbound(NAT_B_APD, other_port, b, sizeof(b)),
			    "udp 198.51.100.1:4000 > 203.0.113.1:5000 len=0");
	assert_string_equal(inbound(NAT_B_DEFAULT, other_port, b, sizeof(b)),
			    "udp 198.51.100.1:4000 > 203.0.113.1:5000 len=0");
	/* the contacted endpoint itself, after its conntrack entry expired */
	assert_string_equal(inbound(NAT_B_APD, same, b, sizeof(b)),
			    "udp 198.51.100.1:3478 > 10.0.0.2:5000 len=0");
}

/* UDP mappings outlive their connections: >= 2 min (default 5) after the last outbound
 * packet, whatever the configuration says below 2 min. */
static void test_mapping_timeout(void **state)
{
	struct nat_config nc;
	struct env *e;
	struct nat_range r = snat("203.0.113.1");
	uint16_t b;

	(void)state;
	nat_config_default(&nc);
	nc.udp_timeout = S(30); /* raised to the RFC 4787 REQ-5 minimum, 120 s */
	e = env_new(&nc);
	out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0);
	b = out_port(e, "udp 10.0.0.3:5000 > 198.51.100.1:3478", &r, 0);
	ct_sweep(e->ct, S(100), 1u << 20); /* the connections are gone (30 s) */
	assert_int_equal(ct_table_stats(e->ct)->count, 0);
	assert_int_equal(nat_sweep(e->nat, S(119), 100), 0);
	assert_int_equal(out_port(e, "udp 10.0.0.3:5000 > 198.51.100.9:1", &r, S(119)), b);
	/* refreshed at 119 s: A's mapping goes at 120 s, B's at 239 s */
	ct_sweep(e->ct, S(200), 1u << 20);
	assert_int_equal(nat_sweep(e->nat, S(200), 100), 1);
	assert_int_equal(nat_sweep(e->nat, S(238), 100), 0);
	assert_int_equal(nat_sweep(e->nat, S(239), 100), 1);
	assert_int_equal(nat_table_stats(e->nat)->mappings, 0);
	env_free(e);

	nat_config_default(&nc);
	e = env_new(&nc);
	out_port(e, "udp 10.0.0.2:5000 > 198.51.100.1:3478", &r, 0);
	ct_sweep(e->ct, S(100), 1u << 20);
	assert_int_equal(nat_sweep(e->nat, S(299), 100), 0);
	assert_int_equal(nat_sweep(e->nat, S(300), 100), 1);
	env_free(e);
}

/*
 * The box's NAT sweep runs by elapsed time (nat_sweep_elapsed): a clock move per packet looks
 * at mappings once per NAT_SWEEP_INTERVAL, at most NAT_SWEEP_MAPPINGS of them; an expired
 * mapping not swept yet is gone for lookups and its port is free for a new connection.
 */
static void test_sweep_by_elapsed_time(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	char in[96];
	uint64_t now = 0, seen;
	uint16_t port;

	(void)state;
	for (unsigned i = 0; i < 100; i++) {
		snprintf(in, sizeof(in), "udp 10.0.0.2:%u > 198.51.100.1:3478", 5000 + i);
		out_port(e, in, &r, 0);
	}
	assert_int_equal(nat_table_stats(e->nat)->mappings, 100);
	/* 10000 moves of 1 us (10 ms): no mapping looked at before 100 ms */
	nat_sweep_elapsed(e->nat, 0);
	seen = e->nat->sweep_seen;
	for (unsigned m = 0; m < 10000; m++)
		nat_sweep_elapsed(e->nat, now += 1000);
	assert_int_equal(e->nat->sweep_seen, seen);
	/* past 100 ms: one slice, at most NAT_SWEEP_MAPPINGS looked at */
	nat_sweep_elapsed(e->nat, now = NAT_SWEEP_INTERVAL);
	assert_true(e->nat->sweep_seen - seen <= NAT_SWEEP_MAPPINGS);
	assert_true(e->nat->sweep_seen > seen);

	/* 10 min later: the connections (30 s) and mappings (5 min) are over, nothing swept; a
	 * jump sweeps one slice only */
	now = S(600);
	seen = e->nat->sweep_seen;
	assert_int_equal(nat_sweep_elapsed(e->nat, now), NAT_SWEEP_MAPPINGS);
	assert_int_equal(e->nat->sweep_seen - seen, NAT_SWEEP_MAPPINGS);
	assert_int_equal(nat_table_stats(e->nat)->mappings, 100 - NAT_SWEEP_MAPPINGS);
	/* the last mapping (port 5099 kept) is not swept, yet a new host gets its port */
	port = out_port(e, "udp 10.0.0.9:5099 > 198.51.100.1:3478", &r, now);
	assert_int_equal(port, 5099);
	env_free(e);
}

/* A mapping lives while a connection uses it, even past its timer. */
static void test_mapping_held_by_connection(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");
	struct pkt *p;

	(void)state;
	out_port(e, "tcp 10.0.0.2:40000 > 198.51.100.1:80 syn", &r, 0);
	p = route(e, ct_test_pkt("tcp 198.51.100.1:80 > 203.0.113.1:40000 syn,ack ack=1"), WAN, LAN,
		  NULL, S(1), NULL);
	done(e, p);
	/* SYN_RECV lasts 60 s; the TCP mapping timer 2 h 4 min: at 3 h the entry is gone */
	assert_int_equal(nat_sweep(e->nat, S(3600), 100), 0);
	ct_sweep(e->ct, S(10800), 1u << 20);
	assert_int_equal(nat_sweep(e->nat, S(10800), 100), 1);
	env_free(e);
}

/* An expired connection frees its mapping's port at once, before any sweep reaches it. */
static void test_expired_connection_frees_port(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1");

	(void)state;
	r.flags |= NAT_R_PROTO;
	r.min_port = r.max_port = 2000;
	assert_int_equal(out_port(e, "udp 10.0.0.2:4000 > 198.51.100.1:53", &r, 0), 2000);
	/* at 299 s the mapping still owns the only port */
	{
		int err;
		struct pkt *p = route(e, ct_test_pkt("udp 10.0.0.3:4000 > 198.51.100.1:53"), LAN,
				      WAN, &r, S(299), &err);

		assert_int_equal(err, -ENOSPC);
		done(e, p);
	}
	/* at 300 s its timer is out and its connection (30 s) too, never swept: free */
	assert_int_equal(out_port(e, "udp 10.0.0.3:4000 > 198.51.100.1:53", &r, S(300)), 2000);
	assert_int_equal(ct_table_stats(e->ct)->count, 1);
	assert_int_equal(nat_table_stats(e->nat)->mappings_expired, 1);
	env_free(e);
}

/* nat_entry_status: what --ctstate SNAT/DNAT read. */
static void test_entry_status(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1"), same = snat("10.0.0.2");
	struct pkt *p;

	(void)state;
	p = route(e, ct_test_pkt("udp 10.0.0.2:4000 > 198.51.100.1:53"), LAN, WAN, &r, 0, NULL);
	assert_int_equal(nat_entry_status(ct_pkt_entry(p)), NAT_STATUS_SRC);
	done(e, p);
	/* a binding that changes nothing is not SNAT */
	p = route(e, ct_test_pkt("udp 10.0.0.2:4001 > 198.51.100.1:53"), LAN, WAN, &same, 0, NULL);
	assert_int_equal(nat_entry_status(ct_pkt_entry(p)), 0);
	done(e, p);
	assert_int_equal(nat_entry_status(NULL), 0);
	env_free(e);
}

/* MASQUERADE's connections and mappings go with their address; SNAT's stay. */
static void test_addr_removed(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range m = snat("203.0.113.1"), s = snat("203.0.113.9");
	union pt_addr a;

	(void)state;
	m.flags |= NAT_R_MASQUERADE;
	out_port(e, "udp 10.0.0.2:4000 > 198.51.100.1:53", &m, 0);
	out_port(e, "tcp 10.0.0.2:4000 > 198.51.100.1:80 syn", &m, 0);
	out_port(e, "udp 10.0.0.3:4000 > 198.51.100.1:53", &s, 0);
	assert_int_equal(ct_table_stats(e->ct)->count, 3);
	pt_addr_parse("203.0.113.1", &a);
	assert_int_equal(nat_addr_removed(e->nat, LAN, AF_INET, &a, S(1)), 0); /* not its iface */
	assert_int_equal(nat_addr_removed(e->nat, WAN, AF_INET, &a, S(1)), 4); /* 2 + 2 */
	assert_int_equal(ct_table_stats(e->ct)->count, 1);
	assert_int_equal(nat_table_stats(e->nat)->mappings, 1);
	/* the port is free on the old address again */
	assert_int_equal(out_port(e, "udp 10.0.0.4:4000 > 198.51.100.1:53", &m, S(2)), 4000);
	env_free(e);
}

/* nat_hold: transitory TCP through a mapping lives 240 s; Linux mode keeps conntrack's. */
static void test_hold(void **state)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat("203.0.113.1"), lin = snat("203.0.113.1");
	struct pkt *p;

	(void)state;
	lin.mapping = NAT_B_APD;
	p = route(e, ct_test_pkt("tcp 10.0.0.2:4000 > 198.51.100.1:80 syn"), LAN, WAN, &r, 0, NULL);
	assert_int_equal(ct_entry_expires_in(ct_pkt_entry(p), 0), S(120));
	nat_hold(e->nat, p, 0);
	assert_int_equal(ct_entry_expires_in(ct_pkt_entry(p), 0), S(240));
	done(e, p);
	p = route(e, ct_test_pkt("tcp 10.0.0.3:4000 > 198.51.100.1:80 syn"), LAN, WAN, &lin, 0,
		  NULL);
	nat_hold(e->nat, p, 0);
	assert_int_equal(ct_entry_expires_in(ct_pkt_entry(p), 0), S(120));
	done(e, p);
	env_free(e);
}

/*
 * A CHECKSUM_PARTIAL packet (a GSO packet from a local sender): its checksum field holds the
 * pseudo-header sum; SNAT with a new address and port updates the sum for the address only
 * (the port is in the bytes the device sums), as the kernel's pseudo-header replace does on a
 * partial skb. The field must equal the pseudo-header sum of the new addresses, and what the
 * device then computes (the sum over the transport bytes with the field) must verify.
 */
static void partial_snat(const char *in, const char *to, uint16_t port)
{
	struct env *e = env_new(NULL);
	struct nat_range r = snat(to);
	struct pkt *p = ct_test_pkt(in), *want;
	uint16_t field, sum;

	r.flags |= NAT_R_PROTO;
	r.min_port = r.max_port = port;
	pkt_l4_csum_set_partial(p);
	p->gso_size = 1000;
	p->gso_type = PKT_GSO_TCP;
	route(e, p, LAN, WAN, &r, 0, NULL);
	assert_true(p->csum_partial);
	assert_int_equal(p->info.sport, port);
	assert_int_equal(pkt_load_be16(p, p->info.l4off + 16, &field), 0);
	want = pkt_clone(p);
	assert_non_null(want);
	assert_int_equal(pkt_parse(want, PKT_LINK_RAW, true), 0);
	pkt_l4_csum_set_partial(want);
	assert_int_equal(pkt_load_be16(want, want->info.l4off + 16, &sum), 0);
	assert_int_equal(field, sum);
	/* the device: the complement of the sum over the transport bytes, field included */
	sum = pkt_csum_fold(pkt_csum_partial(p, p->info.l4off, p->info.l4len, 0));
	pkt_store_be16(p, p->info.l4off + 16, sum);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_true(pkt_l4_csum_ok(p));
	pkt_free(want);
	done(e, p);
	env_free(e);
}

static void test_partial_checksum(void **state)
{
	(void)state;
	partial_snat("tcp 10.0.0.2:40000 > 198.51.100.1:80 ack len=1400", "203.0.113.1", 1234);
	partial_snat("tcp [2001:db8:1::2]:40000 > [2001:db8:2::1]:80 ack len=3000", "2001:db8:9::1",
		     60000);
}

/* RFC 5382 REQ-4: the SYN hold is at least 6 s, or 0 (off). */
static void test_syn_hold_setting(void **state)
{
	struct nat_config c;

	(void)state;
	nat_config_default(&c);
	assert_int_equal(c.syn_hold_timeout, UINT64_C(6000000000));
	assert_int_equal(c.syn_hold_max, 64);
	assert_int_equal(nat_config_set(&c, "syn_hold_timeout", "5"), -ERANGE);
	assert_int_equal(nat_config_set(&c, "syn_hold_timeout", "1"), -ERANGE);
	assert_int_equal(nat_config_set(&c, "syn_hold_timeout", "0"), 0);
	assert_int_equal(c.syn_hold_timeout, 0);
	assert_int_equal(nat_config_set(&c, "syn_hold_timeout", "6"), 0);
	assert_int_equal(c.syn_hold_timeout, UINT64_C(6000000000));
	assert_int_equal(nat_config_set(&c, "syn_hold_max", "0"), -ERANGE);
	assert_int_equal(nat_config_set(&c, "syn_hold_max", "2"), 0);
	assert_int_equal(c.syn_hold_max, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_port_preserved_and_reply),
	    cmocka_unit_test(test_clash_eim),
	    cmocka_unit_test(test_clash_linux_mode),
	    cmocka_unit_test(test_linux_reuse_source),
	    cmocka_unit_test(test_range_class),
	    cmocka_unit_test(test_exhaustion),
	    cmocka_unit_test(test_pool_nearly_full),
	    cmocka_unit_test(test_random_fully_spread),
	    cmocka_unit_test(test_icmp_error_inner),
	    cmocka_unit_test(test_ipv6_and_icmp_id),
	    cmocka_unit_test(test_hairpin),
	    cmocka_unit_test(test_filtering),
	    cmocka_unit_test(test_mapping_timeout),
	    cmocka_unit_test(test_sweep_by_elapsed_time),
	    cmocka_unit_test(test_mapping_held_by_connection),
	    cmocka_unit_test(test_expired_connection_frees_port),
	    cmocka_unit_test(test_entry_status),
	    cmocka_unit_test(test_addr_removed),
	    cmocka_unit_test(test_hold),
	    cmocka_unit_test(test_syn_hold_setting),
	    cmocka_unit_test(test_partial_checksum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
