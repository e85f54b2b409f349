// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m tcp, udp, icmp, icmp6 and multiport read ports, TCP flags and ICMP type and code from the
 * parse result (pkt_info) when the parser found the transport header whole, and from the
 * packet's bytes otherwise. Both ways on the same random packets (fragments first and later,
 * truncated headers, IPv6 extension headers, IPv4 options, packets cut into segments): the
 * answer and the hotdrop must be the same. The bytes' way is taken by handing the matches a
 * copy of the parse result that names another protocol and carries wrong decoded fields,
 * which that way never reads.
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

#include "l4_frames.h"
#include "rules/rules.h"

static const char *const rules4[] = {
    "-p tcp -m tcp --dport 1000:40000",
    "-p tcp -m tcp ! --sport 0:32767 --dport 0:50000",
    "-p tcp -m tcp --tcp-flags SYN,ACK ACK",
    "-p tcp -m tcp ! --tcp-flags ALL NONE --sport 1:65535",
    "-p tcp --syn",
    "-p tcp -m tcp --tcp-option 2",
    "-p udp -m udp --sport 100:40000",
    "-p udp -m udp ! --dport 0:20000",
    "-p icmp -m icmp --icmp-type 8",
    "-p icmp -m icmp --icmp-type 3/1",
    "-p icmp -m icmp --icmp-type destination-unreachable",
    "-p icmp -m icmp ! --icmp-type 11",
    "-p tcp -m multiport --dports 1:20000,30000:40000",
    "-p udp -m multiport ! --sports 0:30000",
    "-p tcp -m multiport --ports 1000:20000",
};

static const char *const rules6[] = {
    "-p tcp -m tcp --dport 1000:40000",
    "-p tcp -m tcp --tcp-flags SYN,RST,ACK,FIN SYN --dport 0:30000",
    "-p tcp -m tcp ! --tcp-flags ACK ACK",
    "-p udp -m udp --sport 100:40000 --dport 30000:65535",
    "-p ipv6-icmp -m icmp6 --icmpv6-type 128",
    "-p ipv6-icmp -m icmp6 --icmpv6-type 1/3",
    "-p ipv6-icmp -m icmp6 --icmpv6-type destination-unreachable",
    "-p ipv6-icmp -m icmp6 ! --icmpv6-type 135",
    "-p udp -m multiport --dports 1:20000,30000:40000",
};

static const struct rules_rule *load(struct rules_ruleset **rs, int fam, const char *rule)
{
	char buf[512];
	struct rules_error err;
	int t, c;

	snprintf(buf, sizeof(buf), "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT %s\nCOMMIT\n", rule);
	if (rules_parse_buffer(buf, strlen(buf), "test", fam, ext_registry_default(), NULL, 0, rs,
			       &err) < 0) {
		rules_error_print(&err, stderr);
		fail_msg("rule did not load: %s", rule);
	}
	t = rules_table_by_name("filter");
	c = rules_chain_find(&(*rs)->tables[t], "INPUT");
	assert_true(c >= 0);
	return &(*rs)->tables[t].chains[c].rules[0];
}

/* The rule's matches, ANDed, with `info` as the parse result. */
static bool run(const struct rules_rule *r, struct pkt *p, const struct pkt_info *info,
		bool *hotdrop)
{
	struct ext_pkt_ctx ctx = {
	    .pkt = p,
	    .info = info,
	    .family = info->family,
	    .hook = HOOK_INPUT,
	    .table = TABLE_FILTER,
	    .in = "lan0",
	    .out = "",
	};
	bool ok = true;

	for (unsigned i = 0; i < r->nmatches && ok; i++)
		ok = r->matches[i].match->match(&ctx, &r->matches[i]);
	*hotdrop = ctx.hotdrop;
	return ok;
}

static void test_info_equals_bytes(void **state)
{
	struct rules_ruleset *rs4[sizeof(rules4) / sizeof(rules4[0])];
	struct rules_ruleset *rs6[sizeof(rules6) / sizeof(rules6[0])];
	const struct rules_rule *r4[sizeof(rs4) / sizeof(rs4[0])],
	    *r6[sizeof(rs6) / sizeof(rs6[0])];
	unsigned decoded = 0, hits = 0, drops = 0, later = 0, ext = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rs4) / sizeof(rs4[0]); i++)
		r4[i] = load(&rs4[i], AF_INET, rules4[i]);
	for (size_t i = 0; i < sizeof(rs6) / sizeof(rs6[0]); i++)
		r6[i] = load(&rs6[i], AF_INET6, rules6[i]);
	rng_state = 0x5851f42d4c957f2dull;
	for (unsigned round = 0; round < 6000; round++) {
		struct frame f;
		struct pkt *p;
		struct pkt_info other;
		bool v4;
		size_t n;

		make_frame(&f);
		p = packet(&f, rnd() % 8 == 0 ? 1 + rnd() % 40 : 0);
		v4 = p->info.family == AF_INET;
		if (p->info.family != AF_INET && p->info.family != AF_INET6) {
			pkt_free(p);
			continue;
		}
		other = p->info;
		other.l4proto = 0xfd; /* experimental: no parser, so the bytes are read */
		other.has_ports = false;
		other.sport = (uint16_t)~other.sport;
		other.dport = (uint16_t)(other.dport + 1);
		other.tcp_flags = (uint8_t)~other.tcp_flags;
		other.icmp_type = (uint8_t)(other.icmp_type + 1);
		other.icmp_code = (uint8_t)~other.icmp_code;
		decoded += p->info.has_l4;
		later += p->info.frag_off != 0;
		ext += p->info.n_exthdr != 0;
		n = v4 ? sizeof(rs4) / sizeof(rs4[0]) : sizeof(rs6) / sizeof(rs6[0]);
		for (size_t i = 0; i < n; i++) {
			const struct rules_rule *r = v4 ? r4[i] : r6[i];
			bool d1, d2, m1 = run(r, p, &p->info, &d1), m2 = run(r, p, &other, &d2);

			if (m1 != m2 || d1 != d2)
				fail_msg("round %u, rule '%s': parse result %d/%d, bytes %d/%d",
					 round, v4 ? rules4[i] : rules6[i], m1, d1, m2, d2);
			hits += m1;
			drops += d1;
		}
		pkt_free(p);
	}
	for (size_t i = 0; i < sizeof(rs4) / sizeof(rs4[0]); i++)
		rules_ruleset_free(rs4[i]);
	for (size_t i = 0; i < sizeof(rs6) / sizeof(rs6[0]); i++)
		rules_ruleset_free(rs6[i]);
	/* the cases were there: decoded headers, matches, hotdrops, later fragments, IPv6
	 * extension headers */
	assert_true(decoded > 4000);
	assert_true(hits > 5000);
	assert_true(drops > 500);
	assert_true(later > 200);
	assert_true(ext > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_info_equals_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
