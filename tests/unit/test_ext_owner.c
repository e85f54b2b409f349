/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * -m owner on packets with and without a socket: the NFQUEUE metadata (pkt->sk, sk_uid,
 * sk_gid) decides, and a packet the box makes itself (no socket) matches only rules whose
 * options are all inverted, as xt_owner decides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "rules/rules.h"

static struct rules_ruleset *load(const char *rule, struct rules_rule **r)
{
	char buf[512];
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	int t, c;

	snprintf(buf, sizeof(buf), "*filter\n:OUTPUT ACCEPT [0:0]\n-A OUTPUT %s\nCOMMIT\n", rule);
	if (rules_parse_buffer(buf, strlen(buf), "test", AF_INET, ext_registry_default(), NULL, 0,
			       &rs, &err) < 0)
		fail_msg("rule '%s': %s", rule, err.msg);
	t = rules_table_by_name("filter");
	c = rules_chain_find(&rs->tables[t], "OUTPUT");
	*r = &rs->tables[t].chains[c].rules[0];
	return rs;
}

/* sk: -1 no socket, else the uid (gid = uid + 1000) */
static bool run(const char *rule, long sk)
{
	struct pkt_spec s;
	char err[128];
	struct rules_rule *r;
	struct rules_ruleset *rs = load(rule, &r);
	struct pkt *p;
	bool ok = true;

	assert_int_equal(pkt_spec_parse("udp 10.0.0.1:1 > 10.0.0.2:2", &s, err, sizeof(err)), 0);
	p = pkt_build(&s);
	assert_non_null(p);
	if (sk >= 0) {
		p->sk = true;
		p->sk_uid = (uint32_t)sk;
		p->sk_gid = (uint32_t)sk + 1000;
	}
	{
		struct ext_pkt_ctx ctx = {.pkt = p,
					  .info = &p->info,
					  .family = AF_INET,
					  .hook = HOOK_OUTPUT,
					  .table = TABLE_FILTER,
					  .in = "",
					  .out = "wan0"};

		for (unsigned i = 0; i < r->nmatches && ok; i++)
			ok = r->matches[i].match->match(&ctx, &r->matches[i]);
	}
	pkt_free(p);
	rules_ruleset_free(rs);
	return ok;
}

static void test_owner_socket(void **state)
{
	(void)state;
	assert_true(run("-m owner --uid-owner 1000", 1000));
	assert_false(run("-m owner --uid-owner 1000", 1001));
	assert_true(run("-m owner ! --uid-owner 1000", 1001));
	assert_false(run("-m owner ! --uid-owner 1000", 1000));
	assert_true(run("-m owner --uid-owner 1000-2000", 2000));
	assert_false(run("-m owner --uid-owner 1000-2000", 2001));
	assert_true(run("-m owner --gid-owner 2000", 1000));
	assert_true(run("-m owner --gid-owner 2000 --suppl-groups", 1000));
	assert_false(run("-m owner --gid-owner 2000", 1001));
	assert_true(run("-m owner --uid-owner 0 --gid-owner 1000", 0));
	assert_false(run("-m owner --uid-owner 0 --gid-owner 1001", 0));
	assert_true(run("-m owner --socket-exists", 0));
	assert_false(run("-m owner ! --socket-exists", 0));
	assert_false(run("-m owner ! --socket-exists --uid-owner 0", 0));
}

static void test_owner_no_socket(void **state)
{
	(void)state;
	/* what the box makes itself: no socket */
	assert_false(run("-m owner --socket-exists", -1));
	assert_true(run("-m owner ! --socket-exists", -1));
	assert_false(run("-m owner --uid-owner 0", -1));
	assert_true(run("-m owner ! --uid-owner 0", -1));
	assert_false(run("-m owner ! --uid-owner 0 --gid-owner 0", -1));
	assert_true(run("-m owner ! --uid-owner 0 ! --gid-owner 0", -1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_owner_socket),
	    cmocka_unit_test(test_owner_no_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
