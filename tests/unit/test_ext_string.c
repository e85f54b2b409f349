// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m string through the box: random chains of 1..60 string rules (bm and kmp, --string and
 * --hex-string, --icase, !, --from/--to windows) in mangle PREROUTING (where the datagram is
 * still as it came: FORWARD sees the TTL decremented) over random UDP datagrams (IPv4 and IPv6)
 * cut into up to 16 segments, received once each. Every rule has no target, so every rule
 * is evaluated and its packet counter says whether it matched; that must be what a naive
 * search of the datagram finds: an occurrence lying wholly in [from, to) counted from the IP
 * header (Linux 6.18), folded as Linux's toupper with --icase. Chains of two or more rules run
 * compiled together (one scan), a single rule (or a chain loaded with RULES_PARSE_SEPARATE)
 * alone: both must agree with the reference. A MARK target in the middle of a chain empties
 * the scan memo (the packet may have changed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "engine/box.h"
#include "pkt/build.h"
#include "rules/rules.h"
#include "textsearch/textsearch.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

struct rule {
	uint8_t pat[16];
	uint32_t len;
	uint16_t from, to;
	bool icase, inv;
};

static void xmit(void *u, struct box *b, int oif, struct pkt *p)
{
	pkt_free(p);
}

static const struct box_ops ops = {.xmit = xmit};

static bool naive(const struct rule *r, const uint8_t *ip, uint32_t iplen)
{
	uint32_t end = r->to < iplen ? r->to : iplen;
	bool found = false;

	for (uint32_t s = r->from; !found && s + r->len <= end; s++) {
		found = true;
		for (uint32_t k = 0; k < r->len && found; k++)
			found = r->icase ? ts_fold(ip[s + k]) == ts_fold(r->pat[k])
					 : ip[s + k] == r->pat[k];
	}
	return found != r->inv;
}

/* A pattern as --string when printable and safe in quotes, else as --hex-string. */
static int print_rule(char *buf, size_t len, const struct rule *r, bool mark)
{
	/* a third of the rules have another match first (then a failed string test is not
	 * the rule's first failure: the traversal may not skip past it) */
	int n = snprintf(buf, len, "-A PREROUTING%s -m string --algo %s %s",
			 rnd(3) ? "" : " -m length --length 0:65535", rnd(2) ? "bm" : "kmp",
			 r->inv ? "! " : "");
	bool plain = true;

	for (uint32_t k = 0; k < r->len; k++)
		plain &= r->pat[k] >= 'a' && r->pat[k] <= 'z';
	if (plain) {
		n += snprintf(buf + n, len - n, "--string %.*s", (int)r->len, (const char *)r->pat);
	} else {
		n += snprintf(buf + n, len - n, "--hex-string \"|");
		for (uint32_t k = 0; k < r->len; k++)
			n += snprintf(buf + n, len - n, "%02x%s", r->pat[k], rnd(2) ? " " : "");
		n += snprintf(buf + n, len - n, "|\"");
	}
	n += snprintf(buf + n, len - n, " --from %u --to %u%s%s\n", r->from, r->to,
		      r->icase ? " --icase" : "", mark ? " -j MARK --set-mark 1" : "");
	return n;
}

static void one_round(int family, unsigned nrules)
{
	static const uint8_t letters[] = {'a', 'b', 'A', 'B', 0xdf, 0xbf, 0xff, 0x00};
	static char text[65536];
	struct rule rules[60];
	uint8_t ip[1600];
	char spec[128];
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	struct pkt_spec ps;
	struct pkt *lin, *p;
	uint32_t cuts[PKT_MAX_SEGS], ncuts = 0, iplen, l3off, n = 0;
	unsigned alpha = 3 + rnd(6), markat = rnd(3) ? UINT32_MAX : rnd(nrules);
	struct box *b;
	int c, fam_cmp;

	/* the packet: a UDP datagram of random bytes */
	snprintf(spec, sizeof(spec), "udp %s len=%u eth",
		 family == AF_INET ? "10.0.0.2:1000 > 192.0.2.1:2000"
				   : "[fd00::2]:1000 > [2001:db8::1]:2000",
		 20 + rnd(1200));
	assert_int_equal(pkt_spec_parse(spec, &ps, text, 128), 0);
	lin = pkt_build(&ps);
	assert_non_null(lin);
	assert_int_equal(pkt_parse(lin, PKT_LINK_ETHERNET, false), 0);
	for (uint32_t o = lin->info.payload_off; o < lin->len; o++) {
		uint8_t v = letters[rnd(alpha)];

		assert_int_equal(pkt_store(lin, o, &v, 1), 0);
	}
	l3off = lin->info.l3off;
	iplen = lin->info.l3len;
	assert_int_equal(pkt_copy_out(lin, l3off, ip, iplen), 0);
	/* the rules: patterns from the datagram or random, windows around it */
	n = (uint32_t)snprintf(text, sizeof(text), "*mangle\n:PREROUTING ACCEPT [0:0]\n");
	for (unsigned i = 0; i < nrules; i++) {
		struct rule *r = &rules[i];

		r->len = 1 + rnd(rnd(4) ? 4 : sizeof(r->pat));
		if (rnd(2) && iplen > r->len) {
			memcpy(r->pat, ip + rnd(iplen - r->len), r->len);
		} else {
			for (uint32_t k = 0; k < r->len; k++)
				r->pat[k] = letters[rnd(alpha)];
		}
		r->from = rnd(3) ? 0 : (uint16_t)rnd(iplen + 4);
		r->to = rnd(3) ? UINT16_MAX : (uint16_t)(r->from + rnd(iplen + 4 - r->from + 1));
		r->icase = rnd(2);
		r->inv = !rnd(4);
		n += (uint32_t)print_rule(text + n, sizeof(text) - n, r, i == markat);
	}
	n += (uint32_t)snprintf(text + n, sizeof(text) - n, "COMMIT\n");
	/* a third of the rounds with every rule searching alone (RULES_PARSE_SEPARATE) */
	if (rules_parse_buffer(text, n, "random", family, ext_registry_default(), NULL,
			       rnd(3) ? 0 : RULES_PARSE_SEPARATE, &rs, &err)) {
		rules_error_print(&err, stderr);
		fail_msg("ruleset refused:\n%s", text);
	}
	/* cut into segments */
	for (unsigned i = 0, k = rnd(PKT_MAX_SEGS); i < k; i++) {
		uint32_t cut = 1 + rnd(lin->len - 1);
		unsigned j = 0;

		while (j < ncuts && cuts[j] < cut)
			j++;
		if (j < ncuts && cuts[j] == cut)
			continue;
		memmove(cuts + j + 1, cuts + j, (ncuts - j) * sizeof(cuts[0]));
		cuts[j] = cut;
		ncuts++;
	}
	p = pkt_from_bytes_cuts(pkt_linear_data(lin), lin->len, cuts, ncuts);
	assert_non_null(p);
	pkt_free(lin);

	b = box_new("gw", &ops, NULL);
	assert_non_null(b);
	assert_int_equal(box_setup_default_gateway(b), 0);
	box_set_ruleset(b, rs, family);
	box_receive(b, 1, p);
	c = rules_chain_find(&rs->tables[TABLE_MANGLE], "PREROUTING");
	assert_true(c >= 0);
	fam_cmp = 0;
	for (unsigned i = 0; i < nrules; i++) {
		bool want = naive(&rules[i], ip, iplen);
		uint64_t got = rs->tables[TABLE_MANGLE].chains[c].ctr[i].pkts;

		if (got != want) {
			fprintf(stderr, "%s", text);
			fail_msg(
			    "family %d, %u rules, rule %u: counted %llu, reference %d (iplen %u)",
			    family, nrules, i + 1, (unsigned long long)got, want, iplen);
		}
		fam_cmp++;
	}
	assert_int_equal(fam_cmp, nrules);
	box_free(b);
}

static void test_random_chains(void **state)
{
	static const unsigned sizes[] = {1, 2, 3, 7, 20, 60};

	(void)state;
	for (unsigned iter = 0; iter < 300; iter++)
		one_round(iter & 1 ? AF_INET6 : AF_INET, sizes[iter % 6]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_chains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
