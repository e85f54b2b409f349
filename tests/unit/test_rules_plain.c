/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules' standard parts as rows of masked words (rules/plain.h) against the reference test
 * (rules_ip_match, what the traversal used for every rule before): random rules with masks,
 * interfaces ('+', long names), protocols, -f and '!' on random packets, rule by rule and as a
 * chain; the same at the box, linear and compiled, verdicts, drop positions and counters of
 * long chains of rules the packets mostly fail; and the counters beside the rules
 * (struct rules_chain.ctr) through parse, insert, delete, zero, save and the traversal.
 */
#include <stdio.h>

#include "classify/ruleset.h"
#include "engine_test.h"
#include "rules/plain.h"
#include "rules_test.h"

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static unsigned pick(unsigned n)
{
	return rnd() % n;
}

/* ---- random rules and packets -------------------------------------------------------------- */

static const char *const anchors4[] = {"10.0.0.0",     "10.1.2.0",    "172.16.5.0", "192.0.2.0",
				       "198.51.100.0", "203.0.113.0", "100.64.0.0", "8.8.8.0"};
static const char *const anchors6[] = {
    "fd00::", "fd00:0:0:1::", "2001:db8::", "2001:db8:1::", "2001:db8:ffff::", "fc00::1:0"};
static const char *const names[] = {
    "",	     "lo",	"lan0",		 "wan0",	  "eth0",
    "eth10", "lan",	"verylongname1", "verylongname2", "veth1234abcd",
    "wan",   "verylong"};

/* An address near one of the anchors (random low bits). */
static void rand_addr(int family, union pt_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		assert_true(pt_addr_parse(anchors4[pick(8)], a));
		a->b[3] = (uint8_t)(pick(4) ? pick(4) : rnd());
		if (!pick(4))
			a->b[2] ^= (uint8_t)rnd();
	} else {
		assert_true(pt_addr_parse(anchors6[pick(6)], a));
		a->b[15] = (uint8_t)(pick(4) ? pick(4) : rnd());
		if (!pick(4))
			a->b[7] ^= (uint8_t)rnd();
		if (!pick(6))
			a->b[12] ^= (uint8_t)rnd();
	}
}

/* A mask: a prefix (often), none, all, or random bits. */
static void rand_mask(int family, union pt_addr *m)
{
	unsigned bits = family == AF_INET ? 32 : 128, len;

	memset(m, 0, sizeof(*m));
	switch (pick(6)) {
	case 0:
		return; /* any */
	case 1:
		for (unsigned i = 0; i < bits / 8; i++)
			m->b[i] = (uint8_t)rnd();
		break;
	default:
		len = pick(bits + 1);
		for (unsigned i = 0; i < len; i++)
			m->b[i / 8] |= (uint8_t)(0x80 >> (i % 8));
	}
	if (family == AF_INET && !pick(40)) /* no parser makes it; the reference reads it */
		m->b[4 + pick(12)] = 0xff;
}

static void rand_iface(char name[RULES_IFNAME_MAX], uint8_t *len, bool *wild)
{
	const char *n = names[pick(sizeof(names) / sizeof(names[0]))];

	memset(name, 0, RULES_IFNAME_MAX);
	*wild = false;
	*len = 0;
	if (!pick(3))
		return; /* no -i */
	*wild = pick(3) == 0;
	snprintf(name, RULES_IFNAME_MAX, "%s", n);
	if (*wild && n[0] && pick(2)) /* a shorter prefix: "verylong+", "la+" */
		name[pick((unsigned)strlen(n)) + 1] = '\0';
	*len = (uint8_t)strlen(name);
}

static void rand_ip(int family, struct rules_ipmatch *ip)
{
	static const uint16_t protos[] = {0, 0, 6, 17, 1, 58, 132};

	memset(ip, 0, sizeof(*ip));
	if (pick(3)) {
		rand_addr(family, &ip->src);
		rand_mask(family, &ip->smsk);
	}
	if (pick(3)) {
		rand_addr(family, &ip->dst);
		rand_mask(family, &ip->dmsk);
	}
	rand_iface(ip->in, &ip->in_len, &ip->in_wild);
	rand_iface(ip->out, &ip->out_len, &ip->out_wild);
	ip->proto = protos[pick(7)];
	ip->frag = !pick(5);
	if (pick(2))
		ip->inv =
		    (uint8_t)(rnd() & rnd() & 0x3f); /* every combination, '!' of nothing too */
}

struct rpkt {
	struct pkt_info info;
	const char *in, *out;
};

static void rand_pkt(int family, struct rpkt *p)
{
	static const uint8_t protos[] = {6, 17, 1, 58, 132};

	memset(p, 0, sizeof(*p));
	p->info.family = (uint8_t)family;
	rand_addr(family, &p->info.src);
	rand_addr(family, &p->info.dst);
	p->info.l4proto = protos[pick(5)];
	p->info.frag_off = (uint16_t)(pick(4) ? 0 : pick(3));
	if (family == AF_INET6 && !pick(8))
		p->info.bad = PKT_BAD_EXTHDR;
	p->in = names[pick(sizeof(names) / sizeof(names[0]))];
	p->out = names[pick(sizeof(names) / sizeof(names[0]))];
}

/* rules_plain_name and rules_plain_name16 agree on every name (a 16-byte, NUL-padded array). */
static void test_name_words(void **state)
{
	char buf[16];
	uint64_t a[2], b[2];

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		memset(buf, 0, sizeof(buf));
		snprintf(buf, sizeof(buf), "%s", names[i]);
		rules_plain_name(names[i], a);
		rules_plain_name16(buf, b);
		assert_memory_equal(a, b, sizeof(a));
		assert_memory_equal(a, buf, sizeof(a));
		/* bytes after the NUL are not part of the name */
		memset(buf + strlen(buf) + 1, 'x', sizeof(buf) - strlen(buf) - 1);
		rules_plain_name16(buf, b);
		assert_memory_equal(a, b, sizeof(a));
	}
	memcpy(buf, "fifteen-bytes-1", 16);
	rules_plain_name(buf, a);
	rules_plain_name16(buf, b);
	assert_memory_equal(a, b, sizeof(a));
}

#define NRULES 96
#define NPKTS  400

/* A FORWARD chain of n rules with these standard parts, its rows made. */
static struct rules_ruleset *chain_of(int family, const struct rules_ipmatch *ips, unsigned n,
				      unsigned *fwd)
{
	struct rules_ruleset *rs = rules_ruleset_new(family);

	assert_non_null(rs);
	*fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD);
	for (unsigned i = 0; i < n; i++)
		add_target(rs, TABLE_FILTER, *fwd, RULES_T_NONE, 0)->ip = ips[i];
	assert_int_equal(rules_ruleset_prepare(rs), 0);
	return rs;
}

/* Each rule alone, and the chain's next passing rule, as the reference says. */
static void check_family(int family, unsigned rounds)
{
	const unsigned w = family == AF_INET ? RULES_PLAIN_W4 : RULES_PLAIN_W6;
	unsigned matched = 0, hot = 0, more = 0;

	for (unsigned round = 0; round < rounds; round++) {
		struct rules_ipmatch ips[NRULES];
		struct rules_ruleset *rs;
		const struct rules_plain *pl;
		unsigned fwd;

		for (unsigned i = 0; i < NRULES; i++)
			rand_ip(family, &ips[i]);
		rs = chain_of(family, ips, NRULES, &fwd);
		pl = &rs->tables[TABLE_FILTER].chains[fwd].plain;
		assert_int_equal(pl->nrules, NRULES);
		for (unsigned i = 0; i < NRULES; i++)
			more += pl->exact[i].ntests != 0;
		for (unsigned n = 0; n < NPKTS; n++) {
			struct rpkt p;
			struct rules_plain_key k;
			uint64_t inw[2], outw[2];
			unsigned first = NRULES;

			rand_pkt(family, &p);
			rules_plain_name(p.in, inw);
			rules_plain_name(p.out, outw);
			rules_plain_key(&k, family, &p.info, inw, outw);
			for (unsigned i = 0; i < NRULES; i++) {
				bool hd = false;
				bool want =
				    rules_ip_match(family, &ips[i], &p.info, p.in, p.out, &hd);

				if (hd) {
					/* only the reference drops at once: the traversal asks it
					 */
					assert_true(family == AF_INET6 &&
						    p.info.bad == PKT_BAD_EXTHDR);
					hot++;
					continue;
				}
				if (family == AF_INET6 && p.info.bad == PKT_BAD_EXTHDR)
					continue;
				if (want && first == NRULES)
					first = i;
				matched += want;
				if (rules_plain_exact(&pl->exact[i], &k) != want ||
				    rules_plain_pass(pl, i, &k, w) != want)
					fail_msg(
					    "rule %u (inv 0x%x) packet %u: reference %d, exact %d, "
					    "row %d (round %u)",
					    i, ips[i].inv, n, want,
					    rules_plain_exact(&pl->exact[i], &k),
					    rules_plain_pass(pl, i, &k, w), round);
			}
			if (family == AF_INET6 && p.info.bad == PKT_BAD_EXTHDR)
				continue;
			assert_int_equal(rules_plain_next(pl, 0, NRULES, &k, w), first);
			if (first < NRULES)
				assert_int_equal(rules_plain_next(pl, first + 1, first + 1, &k, w),
						 first + 1);
		}
		rules_ruleset_free(rs);
	}
	/* the random cases reach every branch: some pass, some need more, some hotdrop */
	assert_true(matched > rounds * NPKTS / 4);
	assert_true(more > rounds * NRULES / 4);
	if (family == AF_INET6)
		assert_true(hot > 0);
}

static void test_rows_against_reference(void **state)
{
	rng_state = 0x9e3779b97f4a7c15ull;
	check_family(AF_INET, 40);
	check_family(AF_INET6, 40);
}

/* ---- the box: verdicts and counters of long chains ----------------------------------------- */

static bool routes_to_lan(int family, const union pt_addr *d)
{
	if (family == AF_INET6)
		return (d->b[0] & 0xfe) == 0xfc;
	return d->b[0] == 10 || (d->b[0] == 172 && (d->b[1] & 0xf0) == 16) ||
	       (d->b[0] == 192 && d->b[1] == 168);
}

/*
 * n random rules in FORWARD (count only, a few ACCEPT/DROP), random policy; random packets
 * both ways through the gateway box. Each packet's verdict, where it was dropped and every
 * counter as rules_ip_match over the chain says.
 */
static void check_box(int family, int cls_mode, unsigned n, unsigned npkts)
{
	static const char *const proto[] = {"tcp", "udp", "icmp"};
	struct rules_ipmatch *ips = calloc(n, sizeof(*ips));
	struct rules_counter *want = calloc(n, sizeof(*want));
	struct rules_counter pol = {0, 0};
	struct rec r = {0};
	struct box *b = gw_box(&r, NULL);
	struct rules_ruleset *rs = rules_ruleset_new(family);
	unsigned fwd = builtin(rs, TABLE_FILTER, HOOK_FORWARD), stops = 0;
	const struct rules_chain *c;

	assert_non_null(ips);
	assert_non_null(want);
	assert_int_equal(box_set_classifier(b, cls_mode, NULL), 0);
	for (unsigned i = 0; i < n; i++) {
		unsigned t = pick(40);
		struct rules_rule *rule = add_target(rs, TABLE_FILTER, fwd,
						     t == 0   ? RULES_T_ACCEPT
						     : t == 1 ? RULES_T_DROP
							      : RULES_T_NONE,
						     0);

		rand_ip(family, &rule->ip);
		rule->ip.frag = family == AF_INET && rule->ip.frag;
		/* no names the box does not have: a packet's interfaces are lan0 and wan0 */
		ips[i] = rule->ip;
	}
	rs->tables[TABLE_FILTER].chains[fwd].policy = pick(2) ? EXT_ACCEPT : EXT_DROP;
	box_set_ruleset(b, rs, family);
	c = &rs->tables[TABLE_FILTER].chains[fwd];
	for (unsigned k = 0; k < npkts; k++) {
		union pt_addr s, d;
		char spec[256], sa[64], da[64];
		bool from_lan = pick(2), tolan, hd = false;
		const char *pr = proto[pick(3)];
		struct pkt *p, *q;
		int v, expect = c->policy;
		unsigned at = 0;

		rand_addr(family, &s);
		rand_addr(family, &d);
		tolan = routes_to_lan(family, &d);
		pt_addr_str(family, &s, sa, sizeof(sa));
		pt_addr_str(family, &d, da, sizeof(da));
		if (!strcmp(pr, "icmp"))
			snprintf(spec, sizeof(spec), "%s %s > %s echo-request eth",
				 family == AF_INET ? "icmp" : "icmp6", sa, da);
		else
			snprintf(spec, sizeof(spec),
				 family == AF_INET ? "%s %s:%u > %s:%u%s eth"
						   : "%s [%s]:%u > [%s]:%u%s eth",
				 pr, sa, 1024 + pick(100), da, 1 + pick(100),
				 family == AF_INET && !pick(6) ? " frag=off:8" : "");
		p = mk(spec);
		q = mk(spec);
		assert_int_equal(pkt_parse(q, PKT_LINK_ETHERNET, false), 0);
		for (unsigned i = 0; i < n; i++) {
			if (!rules_ip_match(family, &ips[i], &q->info, from_lan ? "lan0" : "wan0",
					    tolan ? "lan0" : "wan0", &hd))
				continue;
			want[i].pkts++;
			want[i].bytes += q->info.l3len;
			if (c->rules[i].target.kind == RULES_T_ACCEPT ||
			    c->rules[i].target.kind == RULES_T_DROP) {
				expect = c->rules[i].target.kind == RULES_T_ACCEPT ? EXT_ACCEPT
										   : EXT_DROP;
				at = i + 1;
				break;
			}
		}
		assert_false(hd); /* packets the builder makes have whole headers */
		if (!at) {
			pol.pkts++;
			pol.bytes += q->info.l3len;
		}
		stops += at != 0;
		v = box_receive(b, from_lan ? 1 : 2, p);
		if (v != expect)
			fail_msg("packet %u '%s' from %s: verdict %d, expected %d (rule %u)", k,
				 spec, from_lan ? "lan0" : "wan0", v, expect, at);
		if (v == EXT_DROP) {
			assert_int_equal(r.ndrop, 1);
			assert_int_equal(r.drop[0].kind, at ? BOX_DROP_RULE : BOX_DROP_POLICY);
			assert_int_equal(r.drop[0].rulenum, at);
		} else {
			assert_int_equal(r.nxmit, 1);
			assert_int_equal(r.xmit_oif[0], tolan ? 1 : 2);
		}
		pkt_free(q);
		rec_free(&r);
	}
	for (unsigned i = 0; i < n; i++)
		if (c->ctr[i].pkts != want[i].pkts || c->ctr[i].bytes != want[i].bytes)
			fail_msg(
			    "rule %u: counters %llu:%llu, expected %llu:%llu", i + 1,
			    (unsigned long long)c->ctr[i].pkts, (unsigned long long)c->ctr[i].bytes,
			    (unsigned long long)want[i].pkts, (unsigned long long)want[i].bytes);
	assert_int_equal(c->pkts, pol.pkts);
	assert_int_equal(c->bytes, pol.bytes);
	assert_true(stops > 0 && pol.pkts > 0); /* both ends of the chain were reached */
	box_free(b);
	free(ips);
	free(want);
}

static void test_box_long_chains(void **state)
{
	rng_state = 0x2545f4914f6cdd1dull;
	check_box(AF_INET, CLS_MODE_LINEAR, 300, 600);
	check_box(AF_INET, CLS_MODE_COMPILED, 300, 600);
	check_box(AF_INET6, CLS_MODE_LINEAR, 300, 600);
	check_box(AF_INET6, CLS_MODE_COMPILED, 300, 600);
}

/* ---- counters beside the rules -------------------------------------------------------------- */

/* text, or with base: base's tables and the text's (iptables-restore --noflush). */
static struct rules_ruleset *parse(const char *text, const struct rules_ruleset *base)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;

	if (rules_parse_buffer(text, strlen(text), "test", AF_INET, ext_registry_default(), base,
			       base ? RULES_PARSE_NOFLUSH : 0, &rs, &err)) {
		rules_error_print(&err, stderr);
		fail();
	}
	return rs;
}

static void assert_saved_has(const struct rules_ruleset *rs, const char *line)
{
	char *s = rules_test_print(rs, RULES_PRINT_COUNTERS);

	if (!strstr(s, line))
		fail_msg("'%s' not in:\n%s", line, s);
	free(s);
}

static void test_counters(void **state)
{
	static const char *const text = "*filter\n"
					":INPUT ACCEPT [0:0]\n"
					":FORWARD DROP [7:700]\n"
					":OUTPUT ACCEPT [0:0]\n"
					"[1:100] -A FORWARD -s 10.0.0.0/8 -p udp -j ACCEPT\n"
					"[2:200] -A FORWARD -p tcp -j DROP\n"
					"-A FORWARD -c 3 300 -i lan0 -j ACCEPT\n"
					"[4:400] -A FORWARD -c 9 9 -s 192.0.2.1,192.0.2.2 -j DROP\n"
					"COMMIT\n";
	struct rules_ruleset *rs = parse(text, NULL), *rs2;
	char edited[1024];
	struct rules_chain *c;
	struct rec r = {0};
	struct box *b;
	int fwd = rules_chain_find(&rs->tables[TABLE_FILTER], "FORWARD");

	assert_true(fwd >= 0);
	c = &rs->tables[TABLE_FILTER].chains[fwd];
	assert_int_equal(c->nrules, 5);
	/* [p:b] wins over -c; a rule made two by a list gets the counters twice */
	assert_int_equal(c->ctr[0].pkts, 1);
	assert_int_equal(c->ctr[1].bytes, 200);
	assert_int_equal(c->ctr[2].pkts, 3);
	assert_int_equal(c->ctr[2].bytes, 300);
	assert_int_equal(c->ctr[3].pkts, 4);
	assert_int_equal(c->ctr[4].pkts, 4);
	assert_saved_has(rs, ":FORWARD DROP [7:700]\n");
	assert_saved_has(rs, "\n[1:100] -A FORWARD -s 10.0.0.0/8 -p udp -j ACCEPT\n[2:200] -A "
			     "FORWARD -p tcp -j DROP\n[3:300] -A FORWARD -i "
			     "lan0 -j ACCEPT\n[4:400] -A FORWARD -s 192.0.2.1/32 -j DROP\n[4:400]");

	/* edits move the counters with their rules */
	snprintf(edited, sizeof(edited), "%.*s%s", (int)(strlen(text) - strlen("COMMIT\n")), text,
		 "-I FORWARD 2 -d 192.0.2.9/32 -j DROP\n-D FORWARD 1\n"
		 "-R FORWARD 3 -i lan1 -j ACCEPT\nCOMMIT\n");
	rs2 = parse(edited, NULL);
	c = &rs2->tables[TABLE_FILTER].chains[fwd];
	assert_int_equal(c->nrules, 5);
	assert_int_equal(c->ctr[0].pkts, 0);
	assert_int_equal(c->ctr[1].pkts, 2);
	assert_int_equal(c->ctr[2].pkts, 0); /* replaced: new counters */
	assert_int_equal(c->ctr[3].pkts, 4);
	assert_saved_has(rs2, "\n[0:0] -A FORWARD -d 192.0.2.9/32 -j DROP\n[2:200] -A FORWARD -p "
			      "tcp -j DROP\n[0:0] -A FORWARD -i lan1 -j ACCEPT\n[4:400]");
	/* -Z FORWARD in a file */
	rules_ruleset_free(rs2);
	snprintf(edited, sizeof(edited), "%.*s%s", (int)(strlen(text) - strlen("COMMIT\n")), text,
		 "-Z FORWARD\nCOMMIT\n");
	rs2 = parse(edited, NULL);
	c = &rs2->tables[TABLE_FILTER].chains[fwd];
	assert_int_equal(c->pkts, 0);
	for (unsigned i = 0; i < c->nrules; i++)
		assert_int_equal(c->ctr[i].pkts + c->ctr[i].bytes, 0);
	/* a base ruleset read back (--noflush, other tables) keeps its counters */
	rules_ruleset_free(rs2);
	rs2 = parse("*mangle\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n", rs);
	assert_saved_has(rs2, "\n[1:100] -A FORWARD -s 10.0.0.0/8 -p udp -j ACCEPT\n[2:200]");
	rules_ruleset_free(rs2);

	/* the traversal counts in ctr: a UDP packet from 10/8 passes rule 1 */
	b = gw_box(&r, NULL);
	box_set_ruleset(b, rs, AF_INET);
	assert_int_equal(box_receive(b, 1, mk("udp 10.0.0.2:1 > 198.51.100.7:2 len=10 eth")),
			 EXT_ACCEPT);
	/* TCP from 10/8 fails rule 1 in its standard part and is dropped by rule 2 */
	assert_int_equal(box_receive(b, 1, mk("tcp 10.0.0.2:1 > 198.51.100.7:2 eth")), EXT_DROP);
	assert_int_equal(r.drop[0].rulenum, 2);
	c = &rs->tables[TABLE_FILTER].chains[fwd];
	assert_int_equal(c->ctr[0].pkts, 2);
	assert_int_equal(c->ctr[0].bytes, 100 + 38);
	assert_int_equal(c->ctr[1].pkts, 3);
	assert_int_equal(c->ctr[1].bytes, 200 + 40);
	assert_int_equal(c->ctr[2].pkts, 3);
	assert_saved_has(rs, "[2:138] -A FORWARD -s 10.0.0.0/8 -p udp -j ACCEPT\n[3:240] -A "
			     "FORWARD -p tcp -j DROP\n[3:300]");
	rules_chain_zero_counters(c);
	assert_saved_has(rs, ":FORWARD DROP [0:0]\n");
	assert_saved_has(rs, "\n[0:0] -A FORWARD -s 10.0.0.0/8 -p udp -j ACCEPT\n[0:0] -A FORWARD "
			     "-p tcp -j DROP\n[0:0]");
	rec_free(&r);
	box_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name_words),
	    cmocka_unit_test(test_rows_against_reference),
	    cmocka_unit_test(test_box_long_chains),
	    cmocka_unit_test(test_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
