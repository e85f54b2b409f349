/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small ext_env for extension tests: captures emitted packets and log lines. */
#ifndef TEST_EXT_FAKE_ENV_H
#define TEST_EXT_FAKE_ENV_H

#include <stdlib.h>
#include <sys/socket.h>
#include <string.h>

#include "pkt/build.h"
#include "rules/rules.h"

/*
 * The registry refers to extensions weakly, and weak references do not pull members out of a
 * static library: name them here so that the ones under test are linked in.
 */
extern const struct ext_match ext_match_limit, ext_match_hashlimit;
extern const struct ext_target ext_target_REJECT4, ext_target_REJECT6, ext_target_LOG,
	ext_target_MARK, ext_target_CLASSIFY, ext_target_DSCP, ext_target_TOS, ext_target_TCPMSS,
	ext_target_TRACE, ext_target_NFQUEUE;
__attribute__((used)) static const void *const fake_link_these[] = {
	&ext_match_limit, &ext_match_hashlimit, &ext_target_REJECT4, &ext_target_REJECT6,
	&ext_target_LOG, &ext_target_MARK, &ext_target_CLASSIFY, &ext_target_DSCP, &ext_target_TOS,
	&ext_target_TCPMSS, &ext_target_TRACE, &ext_target_NFQUEUE,
};

struct fake_box {
	struct pkt *emitted[8];
	unsigned nemitted;
	char log[8][1024];
	int level[8];
	unsigned nlog;
	uint32_t mtu;
};

static void fake_log(void *box, int level, const char *line)
{
	struct fake_box *fb = box;

	if (fb->nlog < 8) {
		snprintf(fb->log[fb->nlog], sizeof(fb->log[0]), "%s", line);
		fb->level[fb->nlog++] = level;
	}
}

static void fake_emit(void *box, struct pkt *p, const struct ext_pkt_ctx *cause)
{
	struct fake_box *fb = box;

	if (fb->nemitted < 8)
		fb->emitted[fb->nemitted++] = p;
	else
		pkt_free(p);
}

static uint32_t fake_route_mtu(void *box, int family, const union pt_addr *dst)
{
	return ((struct fake_box *)box)->mtu;
}

static const struct ext_env_ops fake_ops = {
	.log = fake_log,
	.emit = fake_emit,
	.route_mtu = fake_route_mtu,
};

static inline void fake_reset(struct fake_box *fb)
{
	for (unsigned i = 0; i < fb->nemitted; i++)
		pkt_free(fb->emitted[i]);
	memset(fb, 0, sizeof(*fb));
}

/* Parse "*table\n:CHAIN ACCEPT [0:0]\n-A CHAIN <rule>\nCOMMIT\n"; the first rule of the chain. */
static inline struct rules_rule *fake_rule(struct rules_ruleset **rs, int family, const char *table,
				    const char *chain, const char *rule)
{
	char buf[2048];
	struct rules_error err;
	int t, c;

	/* A ruleset from an earlier call is replaced: callers use one rule at a time. */
	if (*rs) {
		rules_ruleset_free(*rs);
		*rs = NULL;
	}
	snprintf(buf, sizeof(buf), "*%s\n:%s ACCEPT [0:0]\n-A %s %s\nCOMMIT\n", table, chain, chain,
		 rule);
	if (rules_parse_buffer(buf, strlen(buf), "test", family, ext_registry_default(), NULL, 0,
			       rs, &err) < 0) {
		rules_error_print(&err, stderr);
		return NULL;
	}
	t = rules_table_by_name(table);
	c = rules_chain_find(&(*rs)->tables[t], chain);
	if (c < 0 || (*rs)->tables[t].chains[c].nrules < 1)
		return NULL;
	return &(*rs)->tables[t].chains[c].rules[0];
}

static inline struct pkt *fake_pkt(const char *spec)
{
	struct pkt_spec s;
	char err[128];

	if (pkt_spec_parse(spec, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "spec: %s\n", err);
		return NULL;
	}
	return pkt_build(&s);
}

static inline void fake_ctx(struct ext_pkt_ctx *ctx, struct pkt *p, const struct ext_env *env,
		     unsigned hook, uint64_t now_ns)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->pkt = p;
	ctx->info = &p->info;
	ctx->family = p->info.family;
	ctx->hook = hook;
	ctx->in = hook == HOOK_OUTPUT ? "" : "lan0";
	ctx->out = hook == HOOK_INPUT ? "" : "wan0";
	ctx->now_ns = now_ns;
	ctx->env = env;
}

#endif
