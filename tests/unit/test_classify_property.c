/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Property: a box whose chains are compiled (classifier compiled) does exactly what the same
 * box does scanning them (classifier linear), for random rulesets over every field the
 * classifier reads (addresses and iprange, protocol, ports and multiport lists, interfaces
 * with '+', ICMP type/code, -f, mark, state/ctstate), each with '!', mixed with matches it
 * cannot read (length, ttl, tcp flags) and ones with side effects (limit, statistic nth),
 * with user chains entered by -j and -g, RETURN, count-only rules and MARK targets that
 * change the packet mid-chain; random packets aimed at the rules' values, IPv4 and IPv6,
 * first and later fragments. Compared per packet: verdict, where it went, its mark, drop
 * reason and rule, every TRACE line; at the end every rule's and policy's counters.
 * Deterministic (fixed seeds), bounded (ROUNDS rulesets x PACKETS packets).
 */
#include "engine_test.h"

#include "classify/ruleset.h"

#define ROUNDS	40
#define RULES	60
#define PACKETS 300

static uint64_t rng_state;

static uint32_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(z ^ (z >> 31));
}

static unsigned below(unsigned n)
{
	return rnd() % n;
}

static bool chance(unsigned percent)
{
	return below(100) < percent;
}

struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if (t->len + (size_t)n < t->cap)
			break;
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->buf = realloc(t->buf, t->cap);
		assert_non_null(t->buf);
	}
	t->len += (size_t)n;
}

/* Address pools: rules take prefixes of these, packets vary their low bits. */
static const char *const v4_base[] = {"10.0.0.0", "10.1.2.0", "192.0.2.0", "198.51.100.0",
				      "172.16.5.0"};
static const char *const v6_base[] = {
    "fd00::", "fd00:0:0:1::", "2001:db8::", "2001:db8:1:2::", "2001:db8:ffff::"};
static const uint16_t port_pool[] = {0, 1, 22, 53, 80, 443, 1024, 8080, 40000, 65535};
static const char *const proto_pool[] = {"tcp", "udp", "icmp", "sctp", "dccp", "udplite", "gre"};

static const char *inv(void)
{
	return chance(25) ? "! " : "";
}

static void put_addr(struct text *t, int family, bool wide)
{
	if (family == AF_INET) {
		unsigned plen = wide ? 1 + below(32) : 16 + below(17);

		put(t, "%s/%u", v4_base[below(5)], plen);
		return;
	}
	put(t, "%s/%u", v6_base[below(5)], wide ? 1 + below(128) : 32 + below(97));
}

static unsigned port(void)
{
	return chance(70) ? port_pool[below(10)] : below(65536);
}

static void put_ports(struct text *t, const char *opt)
{
	unsigned a = port(), b = port();

	if (chance(50))
		put(t, " %s--%s %u", inv(), opt, a);
	else
		put(t, " %s--%s %u:%u", inv(), opt, a < b ? a : b, a < b ? b : a);
}

static const char *const iface_pool[] = {"lan0", "wan0", "lan+",  "wa+",   "l+",
					 "+",	 "eth0", "lan0x", "wan0+", "wan"};

/* The classifiable part and residual matches of one rule. */
static void put_matches(struct text *t, int family, bool out_ok)
{
	const char *proto = NULL;

	if (chance(50)) {
		put(t, " %s-s ", inv());
		put_addr(t, family, chance(30));
	}
	if (chance(50)) {
		put(t, " %s-d ", inv());
		put_addr(t, family, chance(30));
	}
	if (chance(30))
		put(t, " %s-i %s", inv(), iface_pool[below(10)]);
	if (out_ok && chance(30))
		put(t, " %s-o %s", inv(), iface_pool[below(10)]);
	if (chance(70)) {
		proto = proto_pool[below(7)];
		if (!strcmp(proto, "icmp") && family == AF_INET6)
			proto = "icmpv6";
		if (chance(15)) {
			put(t, " ! -p %s", proto);
			proto = NULL;
		} else {
			put(t, " -p %s", proto);
		}
	}
	if (family == AF_INET && chance(10))
		put(t, " %s-f", inv());
	/* a side effect first sometimes: nothing after it may be used to skip the rule */
	if (chance(8))
		put(t, " -m statistic --mode nth --every %u --packet 0", 2 + below(3));
	if (chance(5))
		put(t, " -m limit --limit %u/second --limit-burst %u", 1 + below(5), 1 + below(4));
	if (proto && (!strcmp(proto, "tcp") || !strcmp(proto, "udp")) && chance(70)) {
		put(t, " -m %s", proto);
		if (chance(60))
			put_ports(t, "sport");
		if (chance(70))
			put_ports(t, "dport");
		if (!strcmp(proto, "tcp") && chance(20))
			put(t, " %s--tcp-flags SYN,ACK SYN", inv());
	}
	if (proto && strcmp(proto, "icmp") && strcmp(proto, "icmpv6") && strcmp(proto, "gre") &&
	    chance(30)) {
		unsigned n = 1 + below(4);

		put(t, " -m multiport %s--%s ", inv(), chance(50) ? "dports" : "sports");
		for (unsigned i = 0; i < n; i++) {
			unsigned a = port(), b = port();

			if (a != b && chance(30))
				put(t, "%s%u:%u", i ? "," : "", a < b ? a : b, a < b ? b : a);
			else
				put(t, "%s%u", i ? "," : "", a);
		}
	}
	if (proto && (!strcmp(proto, "icmp") || !strcmp(proto, "icmpv6")) && chance(70)) {
		static const char *const v4[] = {
		    "echo-request", "echo-reply", "3/3", "3", "destination-unreachable",
		    "any",	    "11/0"};
		static const char *const v6[] = {
		    "echo-request", "echo-reply", "1/4", "1", "destination-unreachable", "2",
		    "3/0"};

		put(t, " -m %s %s--%s %s", family == AF_INET ? "icmp" : "icmp6", inv(),
		    family == AF_INET ? "icmp-type" : "icmpv6-type",
		    (family == AF_INET ? v4 : v6)[below(7)]);
	}
	if (chance(15)) {
		unsigned v = below(4);

		if (chance(70))
			put(t, " -m mark %s--mark 0x%x", inv(), v);
		else
			put(t, " -m mark %s--mark 0x%x/0x%x", inv(), v,
			    chance(50) ? 0xfffffffcu : 0x5u);
	}
	if (chance(12)) {
		const char *b = family == AF_INET ? v4_base[below(5)] : v6_base[below(5)];

		if (family == AF_INET)
			put(t, " -m iprange %s--%s-range %.*s%u-%.*s%u", inv(),
			    chance(50) ? "src" : "dst", (int)strlen(b) - 1, b, below(50),
			    (int)strlen(b) - 1, b, 50 + below(200));
		else
			put(t, " -m iprange %s--%s-range %s%x-%s%x", inv(),
			    chance(50) ? "src" : "dst", b, below(50), b, 50 + below(200));
	}
	if (chance(12))
		put(t, " -m state %s--state %s", inv(),
		    (const char *[]){"NEW", "ESTABLISHED", "NEW,ESTABLISHED", "INVALID,UNTRACKED",
				     "RELATED"}[below(5)]);
	if (chance(8))
		put(t, " -m conntrack %s--ctstate %s", inv(),
		    (const char *[]){"NEW", "ESTABLISHED,RELATED", "INVALID"}[below(3)]);
	if (chance(10))
		put(t, " -m length %s--length %u:%u", inv(), below(100), 100 + below(1500));
	if (family == AF_INET && chance(8))
		put(t, " -m ttl --ttl-gt %u", below(128));
	if (chance(8))
		put(t, " -m comment --comment \"c%u\"", below(9));
}

static void put_target(struct text *t, bool user, bool mangle, const char *const *chains,
		       unsigned nchains)
{
	unsigned k = below(100);

	if (k < 20)
		put(t, " -j ACCEPT");
	else if (k < 35)
		put(t, " -j DROP");
	else if (k < 45)
		put(t, user ? " -j RETURN" : "");
	else if (k < 55 && nchains)
		put(t, " -j %s", chains[below(nchains)]);
	else if (k < 60 && nchains)
		put(t, " -g %s", chains[below(nchains)]);
	else if (k < 75)
		put(t, " -j MARK --set-xmark 0x%x/0xffffffff", below(4));
	else if (!mangle && k < 80)
		put(t, " -j REJECT");
	/* else: no target, the rule only counts */
}

/* A ruleset: mangle PREROUTING (marks), filter FORWARD/INPUT with user chains U1 -> U2. */
static void make_ruleset(struct text *t, int family)
{
	static const char *const to_u1[] = {"U1", "U2"}, *const to_u2[] = {"U2"};

	put(t, "*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n:M1 - [0:0]\n");
	for (unsigned i = 0, n = below(RULES / 2); i < n; i++) {
		put(t, "-A PREROUTING");
		put_matches(t, family, false);
		put(t, chance(10) ? " -j M1" : " -j MARK --set-xmark 0x%x/0xffffffff", below(4));
		put(t, "\n");
	}
	for (unsigned i = 0, n = below(10); i < n; i++) {
		put(t, "-A M1");
		put_matches(t, family, false);
		put_target(t, true, true, NULL, 0);
		put(t, "\n");
	}
	put(t,
	    "COMMIT\n*filter\n:INPUT %s [0:0]\n:FORWARD %s [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	    ":U1 - [0:0]\n:U2 - [0:0]\n",
	    chance(50) ? "ACCEPT" : "DROP", chance(50) ? "ACCEPT" : "DROP");
	for (unsigned i = 0, n = RULES / 2 + below(RULES); i < n; i++) {
		bool fwd = chance(80);

		put(t, "-A %s", fwd ? "FORWARD" : "INPUT");
		put_matches(t, family, fwd);
		put_target(t, false, false, to_u1, 2);
		put(t, "\n");
	}
	for (unsigned c = 0; c < 2; c++)
		for (unsigned i = 0, n = below(RULES / 2); i < n; i++) {
			put(t, "-A %s", c ? "U2" : "U1");
			put_matches(t, family, false); /* reachable from INPUT: no -o */
			put_target(t, true, false, c ? NULL : to_u2, c ? 0 : 1);
			put(t, "\n");
		}
	put(t, "COMMIT\n");
}

static void make_packet(char *buf, size_t len, int family)
{
	static const char *const flags[] = {"syn", "ack", "syn,ack", "rst", "fin,ack"};
	const char *proto = proto_pool[below(7)];
	char src[64], dst[64], extra[64] = "";
	const char *sb, *db;

	if (!strcmp(proto, "icmp") && family == AF_INET6)
		proto = "icmp6";
	sb = family == AF_INET ? v4_base[below(5)] : v6_base[below(5)];
	db = family == AF_INET ? v4_base[below(5)] : v6_base[below(5)];
	if (family == AF_INET) {
		snprintf(src, sizeof(src), "%.*s%u", (int)strlen(sb) - 1, sb, below(256));
		snprintf(dst, sizeof(dst), "%.*s%u", (int)strlen(db) - 1, db, below(256));
	} else {
		snprintf(src, sizeof(src), "%s%x", sb, below(300));
		snprintf(dst, sizeof(dst), "%s%x", db, below(300));
	}
	if (chance(10))
		snprintf(extra, sizeof(extra), " frag=off:%u", below(3) == 0 ? 2 + below(20) : 0);
	if (chance(5))
		snprintf(extra, sizeof(extra), " frag=off:%u,mf", 2 + below(20));
	if (!strcmp(proto, "tcp") || !strcmp(proto, "udp") || !strcmp(proto, "sctp") ||
	    !strcmp(proto, "dccp") || !strcmp(proto, "udplite")) {
		bool v6 = family == AF_INET6;

		snprintf(buf, len, "%s %s%s%s:%u > %s%s%s:%u%s%s eth ttl=%u len=%u%s", proto,
			 v6 ? "[" : "", src, v6 ? "]" : "", port(), v6 ? "[" : "", dst,
			 v6 ? "]" : "", port(), !strcmp(proto, "tcp") ? " " : "",
			 !strcmp(proto, "tcp") ? flags[below(5)] : "", 2 + below(200), below(300),
			 extra);
	} else if (!strcmp(proto, "icmp") || !strcmp(proto, "icmp6")) {
		snprintf(buf, len, "%s %s > %s type=%u code=%u eth ttl=%u%s", proto, src, dst,
			 (const unsigned[]){0, 1, 3, 8, 11, 128, 129}[below(7)], below(5),
			 2 + below(200), extra);
	} else {
		snprintf(buf, len, "%s %s > %s eth ttl=%u%s", proto, src, dst, 2 + below(200),
			 extra);
	}
}

static struct box *make_box(struct rec *r, int mode, const struct text *t, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error e;
	struct box *b = gw_box(r, NULL);

	assert_int_equal(box_set_classifier(b, mode, NULL), 0);
	memset(&e, 0, sizeof(e));
	if (rules_parse_buffer(t->buf, t->len, "random", family, ext_registry_default(), NULL, 0,
			       &rs, &e) < 0) {
		rules_error_print(&e, stderr);
		fprintf(stderr, "%s", t->buf);
		fail();
	}
	box_set_ruleset(b, rs, family);
	box_set_trace_all(b, true);
	return b;
}

static char *counters(struct box *b, int family)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	assert_non_null(f);
	rules_print(box_ruleset(b, family), f, RULES_PRINT_COUNTERS);
	fclose(f);
	return s;
}

static void same_outcome(const struct rec *a, const struct rec *b, int va, int vb, const char *spec,
			 const char *rules)
{
	bool same = va == vb && a->nxmit == b->nxmit && a->ndeliver == b->ndeliver &&
		    a->ndrop == b->ndrop && a->ntrace == b->ntrace;

	for (unsigned i = 0; same && i < a->nxmit && i < REC_MAX; i++)
		same = a->xmit_oif[i] == b->xmit_oif[i] && a->xmit[i]->mark == b->xmit[i]->mark;
	for (unsigned i = 0; same && i < a->ndrop && i < REC_MAX; i++)
		same = a->drop[i].kind == b->drop[i].kind && a->drop[i].table == b->drop[i].table &&
		       a->drop[i].rulenum == b->drop[i].rulenum &&
		       !strcmp(a->drop[i].chain ? a->drop[i].chain : "",
			       b->drop[i].chain ? b->drop[i].chain : "");
	for (unsigned i = 0; same && i < a->ntrace && i < 32; i++)
		same = !strcmp(a->trace[i], b->trace[i]);
	if (!same) {
		fprintf(stderr, "packet %s: linear verdict %d, compiled %d\n%s", spec, va, vb,
			rules);
		for (unsigned i = 0; i < a->ntrace && i < 32; i++)
			fprintf(stderr, "  linear:   %s\n", a->trace[i]);
		for (unsigned i = 0; i < b->ntrace && i < 32; i++)
			fprintf(stderr, "  compiled: %s\n", b->trace[i]);
		fail();
	}
}

/* PACKETS random packets through both boxes: the same outcome each, the same counters. */
static void same_boxes(struct box *lin, struct box *com, struct rec *ra, struct rec *rb, int family,
		       const char *rules)
{
	char *ca, *cb;

	for (unsigned i = 0; i < PACKETS; i++) {
		char spec[256];
		int ifx = 1 + (int)below(2), va, vb;

		make_packet(spec, sizeof(spec), family);
		va = box_receive(lin, ifx, mk(spec));
		vb = box_receive(com, ifx, mk(spec));
		same_outcome(ra, rb, va, vb, spec, rules);
		rec_free(ra);
		rec_free(rb);
	}
	ca = counters(lin, family);
	cb = counters(com, family);
	assert_string_equal(ca, cb);
	free(ca);
	free(cb);
}

/* The ruleset text with a few FORWARD rules changed: one deleted, and a copy of one put
 * before another (a reload that the compiled box applies by cls_update, not a rebuild). */
static void mutate(const struct text *t, struct text *out)
{
	const char *fwd[4096];
	unsigned n = 0, del, src, at;

	for (const char *l = t->buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, "-A FORWARD ", 11) && n < 4096)
			fwd[n++] = l;
	del = n > 2 ? below(n) : n;
	src = n ? below(n) : 0;
	at = n ? below(n) : 0;
	for (const char *l = t->buf; l && *l;) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);

		if (n && l == fwd[at]) {
			const char *se = strchr(fwd[src], '\n');

			put(out, "%.*s\n", se ? (int)(se - fwd[src]) : (int)strlen(fwd[src]),
			    fwd[src]);
		}
		if (del == n || l != fwd[del])
			put(out, "%.*s\n", len, l);
		l = e ? e + 1 : NULL;
	}
}

static void reload(struct box *b, const struct text *t, int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error e;

	memset(&e, 0, sizeof(e));
	if (rules_parse_buffer(t->buf, t->len, "mutated", family, ext_registry_default(), NULL, 0,
			       &rs, &e) < 0) {
		rules_error_print(&e, stderr);
		fail();
	}
	box_set_ruleset(b, rs, family);
}

static unsigned updated_in_place; /* rounds whose reload took cls_update (asserted > 0) */

static void one_round(int family, unsigned round)
{
	struct text t = {0};
	struct rec ra = {0}, rb = {0};
	struct box *lin, *com;

	rng_state = 0x5eed0000u + round * 2 + (family == AF_INET6);
	make_ruleset(&t, family);
	lin = make_box(&ra, CLS_MODE_LINEAR, &t, family);
	com = make_box(&rb, CLS_MODE_COMPILED, &t, family);
	same_boxes(lin, com, &ra, &rb, family, t.buf);
	/* a reload with a few rules changed: the compiled box makes its classifiers from the
	 * running ones; same answers again */
	{
		struct text t2 = {0};
		const struct rules_ruleset *rs;
		int fi;

		mutate(&t, &t2);
		reload(lin, &t2, family);
		reload(com, &t2, family);
		rs = box_ruleset(com, family);
		fi = rules_chain_find(&rs->tables[TABLE_FILTER], "FORWARD");
		if (fi >= 0 && rs->compiled->chains[TABLE_FILTER][fi].updated)
			updated_in_place++;
		same_boxes(lin, com, &ra, &rb, family, t2.buf);
		free(t2.buf);
	}
	box_free(lin);
	box_free(com);
	free(t.buf);
}

static void test_ipv4(void **state)
{
	for (unsigned r = 0; r < ROUNDS; r++)
		one_round(AF_INET, r);
}

static void test_ipv6(void **state)
{
	for (unsigned r = 0; r < ROUNDS; r++)
		one_round(AF_INET6, r);
	/* the reloads did go through cls_update (not all: a chain may be rebuilt) */
	printf("reloads with FORWARD updated in place: %u of %u\n", updated_in_place, 2 * ROUNDS);
	assert_true(updated_in_place > 0);
}

/* The classifier was used: a compiled box reports compiled chains. */
static void test_compiled_is_used(void **state)
{
	struct text t = {0};
	struct rec r = {0};
	struct box *b;
	char *s = NULL;
	size_t n = 0;
	FILE *f;

	rng_state = 1;
	make_ruleset(&t, AF_INET);
	b = make_box(&r, CLS_MODE_COMPILED, &t, AF_INET);
	f = open_memstream(&s, &n);
	cls_ruleset_print(box_ruleset(b, AF_INET), f);
	fclose(f);
	assert_non_null(strstr(s, "ipv4 filter FORWARD: compiled"));
	free(s);
	box_free(b);
	free(t.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compiled_is_used),
	    cmocka_unit_test(test_ipv4),
	    cmocka_unit_test(test_ipv6),
	};

	(void)add_rule; /* engine_test.h helpers this test builds by text instead */
	(void)add_target;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
