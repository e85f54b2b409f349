/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Matches of group A (multiport ... ipv4options) through parsed rules and built packets:
 * each option matching and not matching, inversion, edge values, and truncated or split
 * packets (run under ASan: no byte outside the packet may be read).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "pkt_test.h"
#include "rules/rules.h"

/* ---- a small box: address types and a PRNG the tests control --------------------------- */

struct mbox {
	const char *last_iface; /* limit_iface of the last addr_type call */
	unsigned addr_type_calls;
	const uint32_t *rand;   /* values random() returns, in turn */
	unsigned nrand, irand;
};

static struct mbox box;

/* 10.0.0.1, 2001:db8::1: LOCAL (only on "lan0" when limited); x.x.x.255: BROADCAST;
 * 224/4, ff00::/8: MULTICAST; everything else UNICAST. */
static uint32_t mbox_addr_type(void *b, int family, const union pt_addr *a, const char *iface)
{
	static const uint8_t local6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	struct mbox *mb = b;

	mb->last_iface = iface;
	mb->addr_type_calls++;
	if (family == AF_INET) {
		if (a->b[0] == 10 && a->b[1] == 0 && a->b[2] == 0 && a->b[3] == 1)
			return !iface || !strcmp(iface, "lan0") ? EXT_RTN_LOCAL : EXT_RTN_UNICAST;
		if (a->b[3] == 255)
			return EXT_RTN_BROADCAST;
		if ((a->b[0] & 0xf0) == 224)
			return EXT_RTN_MULTICAST;
		return EXT_RTN_UNICAST;
	}
	if (!memcmp(a->b, local6, 16))
		return !iface || !strcmp(iface, "lan0") ? EXT_RTN_LOCAL : EXT_RTN_UNICAST;
	if (a->b[0] == 0xff)
		return EXT_RTN_MULTICAST;
	return EXT_RTN_UNICAST;
}

static uint32_t mbox_random(void *b)
{
	struct mbox *mb = b;

	return mb->nrand ? mb->rand[mb->irand++ % mb->nrand] : 0;
}

static const struct ext_env_ops mbox_ops = {
	.addr_type = mbox_addr_type,
	.random = mbox_random,
};
static const struct ext_env env = { &mbox_ops, &box };

/* ---- rules and packets ------------------------------------------------------------------ */

struct loaded {
	struct rules_ruleset *rs;
	struct rules_rule *r;
};

static const char *hook_chain(unsigned hook)
{
	static const char *const names[] = { "PREROUTING", "INPUT", "FORWARD", "OUTPUT",
					     "POSTROUTING" };
	return names[hook];
}

static void unload(struct loaded *l)
{
	rules_ruleset_free(l->rs);
	l->rs = NULL;
}

static int load_quiet(struct loaded *l, int fam, const char *table, unsigned hook,
		      const char *rule, bool quiet)
{
	char buf[2048];
	struct rules_error err;
	const char *chain = hook_chain(hook);
	int t, c;

	snprintf(buf, sizeof(buf), "*%s\n:%s ACCEPT [0:0]\n-A %s %s\nCOMMIT\n", table, chain,
		 chain, rule);
	l->rs = NULL;
	if (rules_parse_buffer(buf, strlen(buf), "test", fam, ext_registry_default(), NULL, 0,
			       &l->rs, &err) < 0) {
		if (!quiet) {
			print_message("rule '%s': ", rule);
			rules_error_print(&err, stderr);
		}
		return -1;
	}
	t = rules_table_by_name(table);
	c = rules_chain_find(&l->rs->tables[t], chain);
	assert_true(c >= 0);
	assert_int_equal(l->rs->tables[t].chains[c].nrules, 1);
	l->r = &l->rs->tables[t].chains[c].rules[0];
	return 0;
}

static int load_in(struct loaded *l, int fam, const char *table, unsigned hook, const char *rule)
{
	return load_quiet(l, fam, table, hook, rule, false);
}

/* A rule that must be refused at load time. */
static void refused(int fam, const char *table, unsigned hook, const char *rule)
{
	struct loaded l;

	if (!load_quiet(&l, fam, table, hook, rule, true)) {
		unload(&l);
		fail_msg("rule loaded but should be refused: %s", rule);
	}
}

static void load(struct loaded *l, int fam, const char *rule)
{
	assert_int_equal(load_in(l, fam, "filter", HOOK_INPUT, rule), 0);
}

/* All match instances of the rule, ANDed (the standard part is not looked at). */
static bool run_hook(struct loaded *l, struct pkt *p, unsigned hook, bool *hotdrop)
{
	struct ext_pkt_ctx ctx = {
		.pkt = p,
		.info = &p->info,
		.family = p->info.family,
		.hook = hook,
		.table = TABLE_FILTER,
		.in = hook == HOOK_OUTPUT ? "" : "lan0",
		.out = hook == HOOK_INPUT || hook == HOOK_PREROUTING ? "" : "wan0",
		.env = &env,
	};
	bool ok = true;

	for (unsigned i = 0; i < l->r->nmatches && ok; i++)
		ok = l->r->matches[i].match->match(&ctx, &l->r->matches[i]);
	if (hotdrop)
		*hotdrop = ctx.hotdrop;
	return ok;
}

static bool run(struct loaded *l, struct pkt *p)
{
	return run_hook(l, p, HOOK_INPUT, NULL);
}

struct mcase {
	const char *rule;
	const char *pkt;
	int want; /* 1 match, 0 no match */
};

/* Every case: load, build, match, and the same packet split into 1-byte segments. */
static void run_cases(int fam, const struct mcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct loaded l;
		struct pkt *p, *q;
		uint8_t buf[PKT_MAX_LEN];
		bool got;

		if (load_in(&l, fam, "filter", HOOK_INPUT, c[i].rule))
			fail_msg("case %zu: rule did not load: %s", i, c[i].rule);
		p = pkt_test_build(c[i].pkt);
		got = run(&l, p);
		if (got != (c[i].want == 1))
			fail_msg("case %zu: '%s' on '%s': got %d, want %d", i, c[i].rule, c[i].pkt,
				 got, c[i].want);
		/* the same bytes across many segments give the same answer */
		assert_int_equal(pkt_copy_out(p, 0, buf, p->len), 0);
		q = pkt_from_bytes_split(buf, p->len, 3);
		assert_non_null(q);
		q->info = p->info;
		assert_int_equal(run(&l, q), got);
		pkt_free(q);
		pkt_free(p);
		unload(&l);
	}
}

#define RUN_CASES(fam, c) run_cases(fam, c, sizeof(c) / sizeof(c[0]))

/* A raw IPv6 packet: fixed header, `ext` (extension headers), then 8 bytes of UDP. */
static struct pkt *v6raw(uint8_t first_nh, const uint8_t *ext, size_t extlen)
{
	uint8_t b[512] = { 0x60, 0, 0, 0, 0, 0, first_nh, 64, 0x20, 0x01, 0x0d, 0xb8,
			   [23] = 1, [24] = 0x20, [25] = 0x01, [26] = 0x0d, [27] = 0xb8, [39] = 2 };
	size_t len = 40 + extlen + 8;
	struct pkt *p;

	assert_true(len <= sizeof(b));
	b[4] = (uint8_t)((len - 40) >> 8);
	b[5] = (uint8_t)(len - 40);
	memcpy(b + 40, ext, extlen);
	b[40 + extlen + 1] = 1;  /* sport 1 */
	b[40 + extlen + 3] = 2;  /* dport 2 */
	b[40 + extlen + 5] = 8;  /* udp length */
	p = pkt_from_bytes(b, (uint32_t)len);
	assert_non_null(p);
	pkt_parse(p, PKT_LINK_RAW, false);
	return p;
}

/* ---- the matches ------------------------------------------------------------------------ */

static void test_multiport(void **state)
{
	static const struct mcase c[] = {
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:1000 > 10.0.0.1:22", 1 },
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:1000 > 10.0.0.1:80", 1 },
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:1000 > 10.0.0.1:90", 1 },
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:1000 > 10.0.0.1:443", 1 },
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:1000 > 10.0.0.1:91", 0 },
		{ "-p tcp -m multiport --dports 22,80:90,443", "tcp 10.0.0.2:22 > 10.0.0.1:79", 0 },
		{ "-p tcp -m multiport ! --dports 22,80", "tcp 10.0.0.2:1000 > 10.0.0.1:23", 1 },
		{ "-p tcp -m multiport ! --dports 22,80", "tcp 10.0.0.2:1000 > 10.0.0.1:80", 0 },
		{ "-p tcp -m multiport --sports 1024:65535", "tcp 10.0.0.2:65535 > 10.0.0.1:1", 1 },
		{ "-p tcp -m multiport --sports 1024:65535", "tcp 10.0.0.2:1023 > 10.0.0.1:2000", 0 },
		{ "-p udp -m multiport --ports 53", "udp 10.0.0.2:53 > 10.0.0.1:1000", 1 },
		{ "-p udp -m multiport --ports 53", "udp 10.0.0.2:1000 > 10.0.0.1:53", 1 },
		{ "-p udp -m multiport --ports 53", "udp 10.0.0.2:1000 > 10.0.0.1:54", 0 },
		{ "-p udp -m multiport ! --ports 53", "udp 10.0.0.2:53 > 10.0.0.1:54", 0 },
		{ "-p sctp -m multiport --dports 0", "sctp 10.0.0.2:1 > 10.0.0.1:0", 1 },
		/* a non-first fragment has no ports: no match, inverted or not */
		{ "-p udp -m multiport ! --dports 53", "udp 10.0.0.2:1 > 10.0.0.1:2 frag=off:4", 0 },
		{ "-p udp -m multiport --dports 1:65535",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 frag=off:4", 0 },
	};
	static const struct mcase c6[] = {
		{ "-p tcp -m multiport --dports 80", "tcp [2001:db8::2]:1 > [2001:db8::1]:80", 1 },
		{ "-p tcp -m multiport --dports 80", "tcp [2001:db8::2]:80 > [2001:db8::1]:81", 0 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_iprange(void **state)
{
	static const struct mcase c[] = {
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.1:1 > 10.0.0.1:2", 1 },
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.10:1 > 10.0.0.1:2", 1 },
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.11:1 > 10.0.0.1:2", 0 },
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.0:1 > 10.0.0.1:2", 0 },
		{ "-m iprange ! --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.0:1 > 10.0.0.1:2", 1 },
		{ "-m iprange ! --src-range 192.0.2.1-192.0.2.10", "udp 192.0.2.5:1 > 10.0.0.1:2", 0 },
		{ "-m iprange --dst-range 10.0.0.1", "udp 192.0.2.5:1 > 10.0.0.1:2", 1 },
		{ "-m iprange --dst-range 10.0.0.1", "udp 192.0.2.5:1 > 10.0.0.2:2", 0 },
		/* a reversed range contains nothing; inverted it contains everything */
		{ "-m iprange --src-range 192.0.2.10-192.0.2.1", "udp 192.0.2.5:1 > 10.0.0.1:2", 0 },
		{ "-m iprange ! --src-range 192.0.2.10-192.0.2.1", "udp 192.0.2.5:1 > 10.0.0.1:2", 1 },
		{ "-m iprange --src-range 0.0.0.0-255.255.255.255",
		  "udp 255.255.255.255:1 > 10.0.0.1:2", 1 },
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10 ! --dst-range 10.0.0.1-10.0.0.2",
		  "udp 192.0.2.5:1 > 10.0.0.3:2", 1 },
		{ "-m iprange --src-range 192.0.2.1-192.0.2.10 ! --dst-range 10.0.0.1-10.0.0.2",
		  "udp 192.0.2.5:1 > 10.0.0.2:2", 0 },
	};
	static const struct mcase c6[] = {
		{ "-m iprange --src-range 2001:db8::1-2001:db8::ff",
		  "udp [2001:db8::ff]:1 > [2001:db8::1]:2", 1 },
		{ "-m iprange --src-range 2001:db8::1-2001:db8::ff",
		  "udp [2001:db8::100]:1 > [2001:db8::1]:2", 0 },
		{ "-m iprange ! --dst-range 2001:db8::1-2001:db8::ff",
		  "udp [2001:db8::100]:1 > [2001:db8:1::1]:2", 1 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_addrtype(void **state)
{
	static const struct mcase c[] = {
		{ "-m addrtype --dst-type LOCAL", "udp 192.0.2.1:1 > 10.0.0.1:2", 1 },
		{ "-m addrtype --dst-type LOCAL", "udp 192.0.2.1:1 > 10.0.0.2:2", 0 },
		{ "-m addrtype ! --dst-type LOCAL", "udp 192.0.2.1:1 > 10.0.0.2:2", 1 },
		{ "-m addrtype --dst-type LOCAL,BROADCAST", "udp 192.0.2.1:1 > 10.0.0.255:2", 1 },
		{ "-m addrtype --dst-type LOCAL,BROADCAST", "udp 192.0.2.1:1 > 224.0.0.1:2", 0 },
		{ "-m addrtype ! --dst-type LOCAL,MULTICAST", "udp 192.0.2.1:1 > 224.0.0.1:2", 0 },
		{ "-m addrtype --src-type UNICAST --dst-type MULTICAST",
		  "udp 192.0.2.1:1 > 224.0.0.1:2", 1 },
		{ "-m addrtype --src-type UNICAST --dst-type MULTICAST",
		  "udp 10.0.0.1:1 > 224.0.0.1:2", 0 },
		{ "-m addrtype ! --src-type LOCAL ! --dst-type MULTICAST",
		  "udp 192.0.2.1:1 > 10.0.0.1:2", 1 },
	};
	static const struct mcase c6[] = {
		{ "-m addrtype --dst-type LOCAL", "udp [2001:db8::2]:1 > [2001:db8::1]:2", 1 },
		{ "-m addrtype --dst-type MULTICAST", "udp [2001:db8::2]:1 > [ff02::1]:2", 1 },
		{ "-m addrtype --dst-type MULTICAST", "udp [2001:db8::2]:1 > [2001:db8::1]:2", 0 },
	};
	struct loaded l;
	struct pkt *p;

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);

	/* --limit-iface-in passes the incoming interface to the routing lookup */
	load(&l, AF_INET, "-m addrtype --dst-type LOCAL --limit-iface-in");
	p = pkt_test_build("udp 192.0.2.1:1 > 10.0.0.1:2");
	assert_true(run(&l, p));
	assert_non_null(box.last_iface);
	assert_string_equal(box.last_iface, "lan0");
	pkt_free(p);
	unload(&l);

	/* --limit-iface-out in FORWARD: the outgoing one, where 10.0.0.1 is not local */
	assert_int_equal(load_in(&l, AF_INET, "filter", HOOK_FORWARD,
				 "-m addrtype --dst-type LOCAL --limit-iface-out"),
			 0);
	p = pkt_test_build("udp 192.0.2.1:1 > 10.0.0.1:2");
	assert_false(run_hook(&l, p, HOOK_FORWARD, NULL));
	assert_string_equal(box.last_iface, "wan0");
	pkt_free(p);
	unload(&l);

	/* hook and family restrictions at load time */
	refused(AF_INET, "filter", HOOK_OUTPUT, "-m addrtype --dst-type LOCAL --limit-iface-in");
	refused(AF_INET, "filter", HOOK_INPUT, "-m addrtype --dst-type LOCAL --limit-iface-out");
	refused(AF_INET6, "filter", HOOK_INPUT, "-m addrtype --dst-type BROADCAST");
}

static void test_length(void **state)
{
	static const struct mcase c[] = {
		/* 20 IP + 8 UDP + 12 payload = 40 */
		{ "-m length --length 40", "udp 10.0.0.2:1 > 10.0.0.1:2 len=12", 1 },
		{ "-m length --length 40", "udp 10.0.0.2:1 > 10.0.0.1:2 len=13", 0 },
		{ "-m length --length 40:41", "udp 10.0.0.2:1 > 10.0.0.1:2 len=13", 1 },
		{ "-m length --length :39", "udp 10.0.0.2:1 > 10.0.0.1:2 len=12", 0 },
		{ "-m length --length 41:", "udp 10.0.0.2:1 > 10.0.0.1:2 len=12", 0 },
		{ "-m length ! --length 40:60", "udp 10.0.0.2:1 > 10.0.0.1:2 len=12", 0 },
		{ "-m length ! --length 40:60", "udp 10.0.0.2:1 > 10.0.0.1:2 len=41", 1 },
		{ "-m length --length 1500:40", "udp 10.0.0.2:1 > 10.0.0.1:2 len=12", 0 },
		{ "-m length --length 0:65535", "udp 10.0.0.2:1 > 10.0.0.1:2", 1 },
	};
	static const struct mcase c6[] = {
		/* payload length 8 + 12, plus the 40-byte header */
		{ "-m length --length 60", "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=12", 1 },
		{ "-m length --length 20", "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=12", 0 },
		/* extension headers count as payload */
		{ "-m length --length 68", "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=12 ext=hop", 1 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_ttl_hl(void **state)
{
	static const struct mcase c[] = {
		{ "-m ttl --ttl-eq 64", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=64", 1 },
		{ "-m ttl --ttl-eq 64", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=63", 0 },
		{ "-m ttl --ttl 64", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=64", 1 },
		{ "-m ttl ! --ttl-eq 64", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=64", 0 },
		{ "-m ttl ! --ttl-eq 64", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=1", 1 },
		{ "-m ttl --ttl-lt 10", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=9", 1 },
		{ "-m ttl --ttl-lt 10", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=10", 0 },
		{ "-m ttl --ttl-gt 10", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=11", 1 },
		{ "-m ttl --ttl-gt 10", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=10", 0 },
		{ "-m ttl --ttl-gt 255", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=255", 0 },
		{ "-m ttl --ttl-lt 0", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=0", 0 },
		{ "-m ttl --ttl-eq 0", "udp 10.0.0.2:1 > 10.0.0.1:2 ttl=0", 1 },
	};
	static const struct mcase c6[] = {
		{ "-m hl --hl-eq 255", "udp [2001:db8::2]:1 > [2001:db8::1]:2 hlim=255", 1 },
		{ "-m hl ! --hl-eq 255", "udp [2001:db8::2]:1 > [2001:db8::1]:2 hlim=255", 0 },
		{ "-m hl --hl-lt 2", "udp [2001:db8::2]:1 > [2001:db8::1]:2 hlim=1", 1 },
		{ "-m hl --hl-gt 1", "udp [2001:db8::2]:1 > [2001:db8::1]:2 hlim=1", 0 },
		{ "-m hl --hl 7", "udp [2001:db8::2]:1 > [2001:db8::1]:2 hlim=7", 1 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_tos_dscp(void **state)
{
	static const struct mcase c[] = {
		{ "-m tos --tos 0x10", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x10", 1 },
		{ "-m tos --tos 0x10", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x11", 0 },
		{ "-m tos --tos Minimize-Delay", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xd0", 1 },
		{ "-m tos --tos Minimize-Delay", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x18", 0 },
		{ "-m tos --tos 0x10/0x3f", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x50", 1 },
		{ "-m tos ! --tos 0x08/0x3f", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x08", 0 },
		{ "-m tos ! --tos 0x08/0x3f", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x00", 1 },
		{ "-m tos --tos 0/0", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xff", 1 },
		{ "-m dscp --dscp 46", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xb8", 1 },
		{ "-m dscp --dscp 46", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xbb", 1 }, /* ECN bits */
		{ "-m dscp --dscp 46", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xb4", 0 },
		{ "-m dscp --dscp-class EF", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xb8", 1 },
		{ "-m dscp ! --dscp-class EF", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xb8", 0 },
		{ "-m dscp --dscp-class AF11", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0x28", 1 },
		{ "-m dscp --dscp 0", "udp 10.0.0.2:1 > 10.0.0.1:2", 1 },
		{ "-m dscp --dscp 63", "udp 10.0.0.2:1 > 10.0.0.1:2 tos=0xfc", 1 },
	};
	static const struct mcase c6[] = {
		{ "-m tos --tos 0xb8/0xfc", "udp [2001:db8::2]:1 > [2001:db8::1]:2 tc=0xb9", 1 },
		{ "-m tos ! --tos 0xb8/0xfc", "udp [2001:db8::2]:1 > [2001:db8::1]:2 tc=0xb9", 0 },
		{ "-m dscp --dscp-class AF21", "udp [2001:db8::2]:1 > [2001:db8::1]:2 tc=0x48", 1 },
		{ "-m dscp --dscp-class AF21", "udp [2001:db8::2]:1 > [2001:db8::1]:2 tc=0x4c", 0 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_mac(void **state)
{
	static const struct mcase c[] = {
		{ "-m mac --mac-source 00:11:22:33:44:55",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=00:11:22:33:44:55", 1 },
		{ "-m mac --mac-source 00:11:22:33:44:55",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=00:11:22:33:44:56", 0 },
		{ "-m mac --mac-source 00:11:22:aa:BB:cc",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=00:11:22:aa:bb:cc", 1 },
		{ "-m mac ! --mac-source 00:11:22:33:44:55",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=00:11:22:33:44:56", 1 },
		{ "-m mac ! --mac-source 00:11:22:33:44:55",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=00:11:22:33:44:55", 0 },
		/* no Ethernet header: no match, even inverted */
		{ "-m mac --mac-source 00:11:22:33:44:55", "udp 10.0.0.2:1 > 10.0.0.1:2", 0 },
		{ "-m mac ! --mac-source 00:11:22:33:44:55", "udp 10.0.0.2:1 > 10.0.0.1:2", 0 },
		/* behind a VLAN tag the source address is still bytes 6..11 */
		{ "-m mac --mac-source 02:00:00:00:00:09",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 smac=02:00:00:00:00:09 vlan=5", 1 },
	};
	struct loaded l;

	RUN_CASES(AF_INET, c);
	refused(AF_INET, "filter", HOOK_OUTPUT, "-m mac --mac-source 00:11:22:33:44:55");
	refused(AF_INET, "mangle", HOOK_POSTROUTING, "-m mac --mac-source 00:11:22:33:44:55");
	assert_int_equal(load_in(&l, AF_INET, "raw", HOOK_PREROUTING,
				 "-m mac --mac-source 00:11:22:33:44:55"),
			 0);
	unload(&l);
}

static void test_ipv6header(void **state)
{
	static const struct mcase c[] = {
		{ "-m ipv6header --header protocol", "udp [2001:db8::2]:1 > [2001:db8::1]:2", 1 },
		{ "-m ipv6header --header hop", "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop", 0 },
		{ "-m ipv6header --header hop,prot",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop", 1 },
		{ "-m ipv6header --header hop,dst,route,frag,prot",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,dst,rt,frag", 1 },
		{ "-m ipv6header --header hop,route,frag,prot",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,dst,rt,frag", 0 },
		{ "-m ipv6header ! --header hop,prot",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop", 0 },
		{ "-m ipv6header ! --header hop,prot",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=dst", 1 },
		/* --soft: the listed ones present (with "!": none of them), others allowed */
		{ "-m ipv6header --header frag --soft",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,frag", 1 },
		{ "-m ipv6header --header frag,route --soft",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,frag", 0 },
		{ "-m ipv6header ! --header frag,route --soft",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop", 1 },
		{ "-m ipv6header ! --header frag,route --soft",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,rt", 0 },
		{ "-m ipv6header --header ah,prot",
		  "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah", 1 },
		{ "-m ipv6header --header esp", "esp 2001:db8::2 > 2001:db8::1 spi=1", 1 },
		{ "-m ipv6header --header esp --soft", "esp 2001:db8::2 > 2001:db8::1 spi=1", 1 },
		{ "-m ipv6header --header prot --soft", "esp 2001:db8::2 > 2001:db8::1 spi=1", 0 },
	};
	static const uint8_t nonxt[] = { 59, 0, 1, 4, 0, 0, 0, 0 }; /* hop-by-hop, then none */
	struct loaded l;
	struct pkt *p;

	RUN_CASES(AF_INET6, c);
	p = v6raw(0, nonxt, sizeof(nonxt));
	load(&l, AF_INET6, "-m ipv6header --header hop,none");
	assert_true(run(&l, p));
	unload(&l);
	load(&l, AF_INET6, "-m ipv6header --header hop,prot");
	assert_false(run(&l, p));
	unload(&l);
	pkt_free(p);
}

static void test_frag(void **state)
{
	static const struct mcase c[] = {
		{ "-m frag --fragid 77", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf id=77",
		  1 },
		{ "-m frag --fragid 78:100",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf id=77", 0 },
		{ "-m frag ! --fragid 78:100",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf id=77", 1 },
		{ "-m frag --fragid 100:1",
		  "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf id=77", 0 },
		{ "-m frag --fragmore", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf", 1 },
		{ "-m frag --fraglast", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10,mf", 0 },
		{ "-m frag --fraglast", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10", 1 },
		{ "-m frag --fragfirst", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=off:10", 0 },
		{ "-m frag --fragfirst --fragmore", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=mf", 1 },
		{ "-m frag --fragres", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=mf", 1 },
		/* fraglen is accepted but, as in the kernel, never compared */
		{ "-m frag --fraglen 1234", "udp [2001:db8::2]:1 > [2001:db8::1]:2 frag=mf", 1 },
		/* behind other extension headers */
		{ "-m frag --fragid 5", "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,dst,frag id=5",
		  1 },
		/* no fragment header: no match, even inverted */
		{ "-m frag", "udp [2001:db8::2]:1 > [2001:db8::1]:2", 0 },
		{ "-m frag ! --fragid 1", "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop", 0 },
	};
	/* fragment header with the reserved byte set: --fragres fails */
	static const uint8_t resv[] = { 17, 1, 0, 1, 0, 0, 0, 9 };
	struct loaded l;
	struct pkt *p;

	RUN_CASES(AF_INET6, c);
	p = v6raw(44, resv, sizeof(resv));
	load(&l, AF_INET6, "-m frag --fragres");
	assert_false(run(&l, p));
	unload(&l);
	load(&l, AF_INET6, "-m frag --fragid 9 --fragmore");
	assert_true(run(&l, p));
	unload(&l);
	pkt_free(p);
}

static void test_rt(void **state)
{
	/* type 0, segments left 1, two addresses (hdr ext len 4: 40 bytes) */
	static const uint8_t rt0[40] = {
		17, 4, 0, 1, 0, 0, 0, 0,
		0x20, 0x01, 0x0d, 0xb8, [23] = 0xa,
		0x20, 0x01, 0x0d, 0xb8, [39] = 0xb,
	};
	static const struct {
		const char *rule;
		int want;
	} c[] = {
		{ "-m rt", 1 },
		{ "-m rt --rt-type 0", 1 },
		{ "-m rt --rt-type 2", 0 },
		{ "-m rt ! --rt-type 2", 1 },
		{ "-m rt --rt-segsleft 1", 1 },
		{ "-m rt --rt-segsleft 2:5", 0 },
		{ "-m rt ! --rt-segsleft 2:5", 1 },
		{ "-m rt --rt-segsleft 3:1", 0 },
		{ "-m rt --rt-len 40", 1 },
		{ "-m rt --rt-len 16", 0 },
		{ "-m rt ! --rt-len 16", 1 },
		{ "-m rt --rt-type 0 --rt-0-res", 1 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::a,2001:db8::b", 1 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::a", 0 },	/* strict: all of them */
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::b,2001:db8::a", 0 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::a --rt-0-not-strict", 1 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::b --rt-0-not-strict", 1 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::b,2001:db8::a --rt-0-not-strict", 0 },
		{ "-m rt --rt-type 0 --rt-0-addrs 2001:db8::c --rt-0-not-strict", 0 },
	};
	uint8_t resv[40];
	struct loaded l;
	struct pkt *p = v6raw(43, rt0, sizeof(rt0));

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		load(&l, AF_INET6, c[i].rule);
		if (run(&l, p) != (c[i].want == 1))
			fail_msg("rt case %zu: %s", i, c[i].rule);
		unload(&l);
	}
	pkt_free(p);

	memcpy(resv, rt0, sizeof(resv));
	resv[7] = 1;
	p = v6raw(43, resv, sizeof(resv));
	load(&l, AF_INET6, "-m rt --rt-type 0 --rt-0-res");
	assert_false(run(&l, p));
	unload(&l);
	pkt_free(p);

	/* no routing header: no match, even inverted */
	p = pkt_test_build("udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,frag");
	load(&l, AF_INET6, "-m rt ! --rt-type 0");
	assert_false(run(&l, p));
	unload(&l);
	pkt_free(p);
}

static void test_ah_esp(void **state)
{
	static const struct mcase c[] = {
		{ "-p ah -m ah --ahspi 7", "ah 10.0.0.2 > 10.0.0.1 spi=7", 1 },
		{ "-p ah -m ah --ahspi 8:100", "ah 10.0.0.2 > 10.0.0.1 spi=7", 0 },
		{ "-p ah -m ah ! --ahspi 8:100", "ah 10.0.0.2 > 10.0.0.1 spi=7", 1 },
		{ "-p ah -m ah --ahspi 100:1", "ah 10.0.0.2 > 10.0.0.1 spi=7", 0 },
		{ "-p ah -m ah", "ah 10.0.0.2 > 10.0.0.1 spi=4294967295", 1 },
		{ "-p esp -m esp --espspi 5", "esp 10.0.0.2 > 10.0.0.1 spi=5", 1 },
		{ "-p esp -m esp --espspi 6:9", "esp 10.0.0.2 > 10.0.0.1 spi=5", 0 },
		{ "-p esp -m esp ! --espspi 6:9", "esp 10.0.0.2 > 10.0.0.1 spi=5", 1 },
		{ "-p esp -m esp --espspi 4294967295", "esp 10.0.0.2 > 10.0.0.1 spi=4294967295", 1 },
		{ "-p esp -m esp ! --espspi 1", "esp 10.0.0.2 > 10.0.0.1 spi=1 frag=off:8", 0 },
	};
	static const struct mcase c6[] = {
		{ "-m ah --ahspi 9", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 1 },
		{ "-m ah --ahspi 10", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 0 },
		{ "-m ah ! --ahspi 10", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 1 },
		/* the builder's AH carries a 12-byte ICV: payload len 4, 24 bytes */
		{ "-m ah --ahlen 24", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 1 },
		{ "-m ah --ahlen 8", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 0 },
		{ "-m ah ! --ahlen 8", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 1 },
		{ "-m ah --ahres", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=ah spi=9", 1 },
		{ "-m ah --ahspi 9", "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,ah spi=9", 1 },
		{ "-m ah", "tcp [2001:db8::2]:1 > [2001:db8::1]:2", 0 },
		{ "-p esp -m esp --espspi 3", "esp 2001:db8::2 > 2001:db8::1 spi=3", 1 },
		{ "-p esp -m esp --espspi 3", "esp 2001:db8::2 > 2001:db8::1 spi=4", 0 },
	};
	/* AH with the reserved field set: --ahres fails */
	static const uint8_t ahres[] = { 17, 1, 0, 1, 0, 0, 0, 9, 0, 0, 0, 1 };
	struct loaded l;
	struct pkt *p;

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
	p = v6raw(51, ahres, sizeof(ahres));
	load(&l, AF_INET6, "-m ah --ahres");
	assert_false(run(&l, p));
	unload(&l);
	load(&l, AF_INET6, "-m ah --ahspi 9 --ahlen 12");
	assert_true(run(&l, p));
	unload(&l);
	pkt_free(p);
}

static void test_statistic(void **state)
{
	/* 0x7fffffff-masked draws: 0, 2^30 - 1, 2^30, 0xffffffff (-> 2^31 - 1) */
	static const uint32_t draws[] = { 0, 0x3fffffff, 0x40000000, 0xffffffff };
	static const struct {
		const char *rule;
		const char *hits; /* one char per packet, for draws[] in turn */
	} c[] = {
		{ "-m statistic --mode random --probability 0.5", "1100" },
		{ "-m statistic --mode random ! --probability 0.5", "0011" },
		{ "-m statistic --mode random --probability 0", "0000" },
		{ "-m statistic --mode random --probability 1", "1111" },
		{ "-m statistic --mode nth --every 3 --packet 0", "100100" },
		{ "-m statistic --mode nth --every 3 --packet 2", "001001" },
		{ "-m statistic --mode nth ! --every 3 --packet 1", "101101" },
		{ "-m statistic --mode nth --every 1 --packet 0", "1111" },
	};
	struct pkt *p = pkt_test_build("udp 10.0.0.2:1 > 10.0.0.1:2");

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct loaded l;

		box.rand = draws;
		box.nrand = 4;
		box.irand = 0;
		load(&l, AF_INET, c[i].rule);
		for (size_t k = 0; c[i].hits[k]; k++)
			if (run(&l, p) != (c[i].hits[k] == '1'))
				fail_msg("statistic case %zu packet %zu: %s", i, k, c[i].rule);
		unload(&l);
	}
	box.nrand = 0;
	pkt_free(p);
}

static void test_u32(void **state)
{
	static const struct mcase c[] = {
		/* protocol byte */
		{ "-m u32 --u32 \"6&0xFF=17\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 --u32 \"6&0xFF=6\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		{ "-m u32 --u32 \"6&0xFF=1,6,17\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 --u32 \"6&0xFF=6:17\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 ! --u32 \"6&0xFF=17\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		/* source address word */
		{ "-m u32 --u32 \"12=0x0a000002\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		/* UDP destination port through the header length, with and without options */
		{ "-m u32 --u32 \"6&0xFF=17 && 0>>22&0x3C@0&0xFFFF=53\"",
		  "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 --u32 \"6&0xFF=17 && 0>>22&0x3C@0&0xFFFF=53\"",
		  "udp 10.0.0.2:1 > 10.0.0.1:53 ipopt=rr", 1 },
		{ "-m u32 --u32 \"6&0xFF=17 && 0>>22&0x3C@0&0xFFFF=53\"",
		  "udp 10.0.0.2:1 > 10.0.0.1:54", 0 },
		/* "<<" and chained "@": the TCP data offset, then the first payload word */
		{ "-m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x41424344\"",
		  "tcp 10.0.0.2:1 > 10.0.0.1:80 payload=hex:41424344", 1 },
		{ "-m u32 --u32 \"0&0xff<<8=0x1c00\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		/* a word beyond the datagram: false, and inverted true */
		{ "-m u32 --u32 \"28=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		{ "-m u32 --u32 \"24>>16=8\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 }, /* last word */
		{ "-m u32 ! --u32 \"28=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 --u32 \"0>>22&0x3C@4>>16=8\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
		{ "-m u32 --u32 \"0>>22&0x3C@8=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		{ "-m u32 --u32 \"4294967295=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		{ "-m u32 --u32 \"0@4294967295=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		{ "-m u32 --u32 \"0&0xffffffff@0=0\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 0 },
		/* shift counts of 32 or more wrap, as on the kernel's hardware */
		{ "-m u32 --u32 \"0>>32=0x4500001c\"", "udp 10.0.0.2:1 > 10.0.0.1:53", 1 },
	};
	static const struct mcase c6[] = {
		{ "-m u32 --u32 \"4>>8&0xFF=58\"", "icmp6 2001:db8::2 > 2001:db8::1 echo-request", 1 },
		{ "-m u32 --u32 \"4>>8&0xFF=58\"", "udp [2001:db8::2]:1 > [2001:db8::1]:2", 0 },
	};

	RUN_CASES(AF_INET, c);
	RUN_CASES(AF_INET6, c6);
}

static void test_ipv4options(void **state)
{
	static const struct mcase c[] = {
		{ "-m ipv4options --flags lsrr", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=lsrr", 1 },
		{ "-m ipv4options --flags lsrr", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=rr", 0 },
		{ "-m ipv4options --flags lsrr,ssrr", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=lsrr", 0 },
		{ "-m ipv4options --flags lsrr,ssrr --any", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=lsrr",
		  1 },
		{ "-m ipv4options --flags !lsrr", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=rr", 1 },
		{ "-m ipv4options --flags !lsrr", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=lsrr", 0 },
		{ "-m ipv4options --flags record-route,!ssrr",
		  "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=nop,rr", 1 },
		{ "-m ipv4options --flags 7,20", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=rr,ra", 1 },
		{ "-m ipv4options --flags router-alert", "udp 10.0.0.2:1 > 10.0.0.1:2", 0 },
		/* NOP is skipped, never recorded (xtables-addons) */
		{ "-m ipv4options --flags nop", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=nop,rr", 0 },
		{ "-m ipv4options", "udp 10.0.0.2:1 > 10.0.0.1:2", 1 },
		{ "-m ipv4options --any", "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=rr", 0 },
	};

	RUN_CASES(AF_INET, c);
}

/* ---- truncation: every prefix of each packet, reparsed, and with the stale info ---------- */

static const struct {
	int fam;
	const char *rule;
	const char *pkt;
} trunc_cases[] = {
	{ AF_INET, "-p tcp -m multiport --dports 80", "tcp 10.0.0.2:1 > 10.0.0.1:80" },
	{ AF_INET, "-m length --length 0:100", "udp 10.0.0.2:1 > 10.0.0.1:2" },
	{ AF_INET, "-m mac --mac-source 02:00:00:00:00:01", "udp 10.0.0.2:1 > 10.0.0.1:2 eth" },
	{ AF_INET, "-p ah -m ah --ahspi 1", "ah 10.0.0.2 > 10.0.0.1 spi=1" },
	{ AF_INET, "-p esp -m esp --espspi 1", "esp 10.0.0.2 > 10.0.0.1 spi=1" },
	{ AF_INET, "-m u32 --u32 \"0>>22&0x3C@12>>26&0x3C@0=0x41424344\"",
	  "tcp 10.0.0.2:1 > 10.0.0.1:80 payload=hex:41424344" },
	{ AF_INET, "-m ipv4options --flags lsrr,ssrr --any",
	  "udp 10.0.0.2:1 > 10.0.0.1:2 ipopt=rr,lsrr" },
	{ AF_INET6, "-m ipv6header --header hop,dst,route,frag,prot",
	  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,dst,rt,frag" },
	{ AF_INET6, "-m frag --fragid 0:10 --fragmore",
	  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,frag frag=mf" },
	{ AF_INET6, "-m rt --rt-type 0 --rt-len 8 --rt-0-res",
	  "udp [2001:db8::2]:1 > [2001:db8::1]:2 ext=hop,rt" },
	{ AF_INET6, "-m ah --ahspi 9 --ahlen 24 --ahres",
	  "tcp [2001:db8::2]:1 > [2001:db8::1]:2 ext=dst,ah spi=9" },
	{ AF_INET6, "-m length --length 60", "udp [2001:db8::2]:1 > [2001:db8::1]:2 len=12" },
	{ AF_INET6, "-m u32 --u32 \"0>>22&0x3C@0>>28=6\"", "udp [2001:db8::2]:1 > [2001:db8::1]:2" },
};

static void test_truncated(void **state)
{
	for (size_t i = 0; i < sizeof(trunc_cases) / sizeof(trunc_cases[0]); i++) {
		struct loaded l;
		struct pkt *full = pkt_test_build(trunc_cases[i].pkt);
		uint8_t buf[PKT_MAX_LEN];
		uint32_t len = full->len;

		load(&l, trunc_cases[i].fam, trunc_cases[i].rule);
		if (!run(&l, full))
			fail_msg("truncation case %zu does not match whole: %s", i,
				 trunc_cases[i].rule);
		assert_int_equal(pkt_copy_out(full, 0, buf, len), 0);
		for (uint32_t cut = 0; cut < len; cut++) {
			/* each prefix in its own block: ASan reports any read past `cut` */
			struct pkt *p = pkt_from_bytes(buf, cut);
			bool hotdrop;

			assert_non_null(p);
			pkt_parse(p, full->info.l2off == UINT32_MAX ? PKT_LINK_RAW
								     : PKT_LINK_ETHERNET,
				  false);
			run_hook(&l, p, HOOK_INPUT, &hotdrop);
			/* info that still describes the whole packet: reads must stay bounded */
			p->info = full->info;
			run_hook(&l, p, HOOK_INPUT, &hotdrop);
			pkt_free(p);
		}
		pkt_free(full);
		unload(&l);
	}
}

/* ---- printing of a few forms the core does not make itself ------------------------------ */

static void test_print(void **state)
{
	static const struct {
		int fam;
		const char *rule, *want;
	} c[] = {
		{ AF_INET, "-p tcp -m multiport --destination-ports 22,80:90",
		  "-p tcp -m multiport --dports 22,80:90" },
		{ AF_INET, "-m tos --tos Minimize-Delay", "-m tos --tos 0x10/0x3f" },
		{ AF_INET, "-m dscp --dscp-class EF", "-m dscp --dscp 0x2e" },
		{ AF_INET, "-m mac --mac-source 0:1:2:a:B:c", "-m mac --mac-source 00:01:02:0a:0b:0c" },
		{ AF_INET, "-m statistic --mode random --probability 0.1",
		  "-m statistic --mode random --probability 0.10000000009" },
		{ AF_INET, "-m u32 --u32 \"6 & 0xFF = 17 && 0>>22&0x3C@0>>16=53:54\"",
		  "-m u32 --u32 \"0x6&0xff=0x11&&0x0>>0x16&0x3c@0x0>>0x10=0x35:0x36\"" },
		{ AF_INET, "-m ipv4options --any --flags ssrr,!lsrr",
		  "-m ipv4options --flags !3,9 --any" },
		{ AF_INET6, "-m ipv6header --header frag,hop,prot --soft",
		  "-m ipv6header --header hop-by-hop,ipv6-frag,protocol --soft" },
		{ AF_INET6, "-m frag ! --fragid 0:4294967295 --fraglast", "-m frag --fraglast" },
		{ AF_INET6, "-m rt --rt-0-addrs 2001:DB8::1 --rt-type 0", NULL }, /* order */
		{ AF_INET6, "-m rt --rt-type 0 --rt-0-addrs 2001:DB8::1,::2 --rt-0-not-strict",
		  "-m rt --rt-type 0 --rt-0-addrs 2001:db8::1,::2 --rt-0-not-strict" },
		{ AF_INET6, "-m ah --ahlen 0 --ahspi 1:2", "-m ah --ahspi 1:2" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct loaded l;
		char *s = NULL;
		size_t n = 0;
		FILE *f;

		if (!c[i].want) {
			refused(c[i].fam, "filter", HOOK_INPUT, c[i].rule);
			continue;
		}
		load(&l, c[i].fam, c[i].rule);
		f = open_memstream(&s, &n);
		assert_non_null(f);
		assert_int_equal(rules_print_rule(l.rs, TABLE_FILTER, l.r, f), 0);
		fclose(f);
		assert_string_equal(s, c[i].want);
		free(s);
		unload(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiport),  cmocka_unit_test(test_iprange),
		cmocka_unit_test(test_addrtype),   cmocka_unit_test(test_length),
		cmocka_unit_test(test_ttl_hl),	   cmocka_unit_test(test_tos_dscp),
		cmocka_unit_test(test_mac),	   cmocka_unit_test(test_ipv6header),
		cmocka_unit_test(test_frag),	   cmocka_unit_test(test_rt),
		cmocka_unit_test(test_ah_esp),	   cmocka_unit_test(test_statistic),
		cmocka_unit_test(test_u32),	   cmocka_unit_test(test_ipv4options),
		cmocka_unit_test(test_truncated),  cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
