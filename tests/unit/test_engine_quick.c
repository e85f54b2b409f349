// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The quick walk of a table's built-in chain (src/engine/traverse.c: quick_walk, for a packet
 * that is not traced, in a chain scanned rule by rule) against the general traversal
 * (do_table_general) on the same inputs: two boxes with the same random rulesets, one of them
 * tracing every packet (TRACE takes the general traversal at every table), fed the same random
 * packets (forwarded both ways, for the box, from the box, the box's own to itself through lo; IPv4
 * and IPv6; flows that repeat, so conntrack sees established ones). The rulesets are random text:
 * the standard part (-s -d -i -o -p -f, with '!'), matches (mark, conntrack, statistic, length,
 * limit, tcp, udp, multiport, comment), targets that decide, that go on (MARK, CONNMARK, LOG,
 * TRACE), that jump or go to user chains (the quick walk hands over there), RETURN, REJECT and
 * NFQUEUE with --queue-bypass, and a probe target put in at random places, which records what it
 * sees (table, hook, chain, rule number, interfaces, mark) and answers RETURN, DROP or CONTINUE,
 * sometimes after it changed the packet's destination (the traversal must take the packet's key
 * again); a probe match, first in some rules, records the same and answers as the length and rule
 * number say (or drops the packet at once, as a match that finds it malformed). After every packet
 * the verdicts, the drop records, what left and was delivered (interface, length, mark), the
 * probes' records and every chain's and rule's counters must agree. A third box compiles every
 * chain (the compiled classifier's walk, which the quick walk leaves alone) and does not trace
 * every packet: its TRACE lines (from -j TRACE) must be the quick box's too.
 */
#include "engine_test.h"

#include <stdio.h>

#include "classify/ruleset.h"
#include "rules/ext.h"

#define ROUNDS	  150
#define PACKETS	  40
#define RULES_MAX 8

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define PICK(s, a) ((a)[rnd(s) % (sizeof(a) / sizeof((a)[0]))])

struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < t->cap - t->len);
	t->len += (size_t)n;
}

/* One random rule of `chain` in `table` (user chains U1, U2 exist in each table; U1 may go to
 * U2, never back), after "-A chain". */
static void random_rule(struct text *t, uint64_t *s, bool v6, const char *table, const char *chain,
			bool filter_hook)
{
	static const char *const src4[] = {"10.0.0.0/8", "10.0.0.2/32", "198.51.100.0/24",
					   "192.0.2.0/24"};
	static const char *const src6[] = {"fd00::/64", "fd00::2/128", "2001:db8::/32",
					   "2001:db8:ffff::/48"};
	static const char *const ifs[] = {"lan0", "wan0", "lan+", "wan+", "eth9", "lo", "l+"};
	static const char *const protos[] = {"tcp", "udp", "icmp"};
	const char *proto = NULL;
	bool is_user = chain[0] == 'U';
	unsigned k;

	put(t, "-A %s", chain);
	if (rnd(s) % 3 == 0)
		put(t, "%s -s %s", rnd(s) % 4 ? "" : " !", v6 ? PICK(s, src6) : PICK(s, src4));
	if (rnd(s) % 4 == 0)
		put(t, "%s -d %s", rnd(s) % 4 ? "" : " !", v6 ? PICK(s, src6) : PICK(s, src4));
	if (rnd(s) % 3 == 0 && strcmp(chain, "OUTPUT") && strcmp(chain, "POSTROUTING"))
		put(t, "%s -i %s", rnd(s) % 4 ? "" : " !", PICK(s, ifs));
	if (rnd(s) % 4 == 0 && strcmp(chain, "PREROUTING") && strcmp(chain, "INPUT"))
		put(t, "%s -o %s", rnd(s) % 4 ? "" : " !", PICK(s, ifs));
	if (rnd(s) % 3 == 0) {
		proto = PICK(s, protos);
		if (v6 && !strcmp(proto, "icmp"))
			proto = "ipv6-icmp";
		if (rnd(s) % 5 == 0) {
			put(t, " ! -p %s", proto);
			proto = NULL;
		} else {
			put(t, " -p %s", proto);
		}
	}
	if (!v6 && rnd(s) % 12 == 0)
		put(t, " -f");
	for (unsigned m = rnd(s) % 3; m; m--) {
		switch (rnd(s) % 9) {
		case 0:
			put(t, " -m mark %s--mark 0x%x/0x3", rnd(s) % 4 ? "" : "! ",
			    (unsigned)(rnd(s) % 4));
			break;
		case 1:
			put(t, " -m conntrack --ctstate %s",
			    rnd(s) % 2 ? "ESTABLISHED" : "NEW,RELATED");
			break;
		case 2:
			put(t, " -m statistic --mode nth --every %u --packet 0",
			    (unsigned)(rnd(s) % 4 + 2));
			break;
		case 3:
			put(t, " -m length --length %u:%u", (unsigned)(rnd(s) % 200),
			    (unsigned)(rnd(s) % 1400 + 200));
			break;
		case 4:
			put(t, " -m limit --limit %u/sec --limit-burst %u",
			    (unsigned)(rnd(s) % 5 + 1), (unsigned)(rnd(s) % 4 + 1));
			break;
		case 5:
			if (proto && !strcmp(proto, "tcp"))
				put(t, " -m tcp --dport %u:%u", (unsigned)(rnd(s) % 2000),
				    (unsigned)(rnd(s) % 60000 + 2000));
			break;
		case 6:
			if (proto && !strcmp(proto, "udp"))
				put(t, " -m udp --sport %u", rnd(s) % 2 ? 53u : 1100u);
			break;
		case 7:
			if (proto && (!strcmp(proto, "udp") || !strcmp(proto, "tcp")))
				put(t, " -m multiport --ports 53,443,%u",
				    (unsigned)(rnd(s) % 8 + 1024));
			break;
		default:
			put(t, " -m comment --comment c%u", (unsigned)(rnd(s) % 9));
		}
	}
	k = (unsigned)(rnd(s) % 16);
	switch (k) {
	case 0:
	case 1:
		put(t, " -j ACCEPT");
		break;
	case 2:
		put(t, " -j DROP");
		break;
	case 3:
		put(t, " -j RETURN");
		break;
	case 4:
		break; /* no target: counts only */
	case 5:
	case 6:
		if (!strcmp(chain, "U2"))
			put(t, " -j MARK --set-xmark 0x%x/0x3", (unsigned)(rnd(s) % 4));
		else
			put(t, " -%c %s", rnd(s) % 3 ? 'j' : 'g',
			    is_user || rnd(s) % 2 ? "U2" : "U1");
		break;
	case 7:
	case 8:
		put(t, " -j MARK --set-xmark 0x%x/0x3", (unsigned)(rnd(s) % 4));
		break;
	case 9:
		put(t, " -j CONNMARK --set-mark %u", (unsigned)(rnd(s) % 4));
		break;
	case 10:
		put(t, " -j LOG --log-prefix q");
		break;
	case 11:
		if (!strcmp(table, "raw"))
			put(t, " -j TRACE");
		break;
	case 12:
		if (filter_hook)
			put(t, " -j REJECT");
		break;
	case 13:
		put(t, " -j NFQUEUE --queue-num 3 --queue-bypass");
		break;
	default:
		put(t, " -j %s", rnd(s) % 2 ? "ACCEPT" : "DROP");
	}
	put(t, "\n");
}

/* What the probe targets saw, per box (ctx->env tells the boxes apart). */
#define PROBE_MAX 64
struct probe_log {
	const struct ext_env *env;
	unsigned n;
	struct {
		unsigned table, hook, rulenum;
		int family;
		char chain[32], in[16], out[16];
		uint32_t mark;
	} e[PROBE_MAX];
};

static struct probe_log probes[3];

static void probe_record(struct ext_pkt_ctx *ctx)
{
	struct probe_log *l = NULL;

	for (unsigned i = 0; i < 3; i++)
		if (probes[i].env == ctx->env)
			l = &probes[i];
	assert_non_null(l);
	if (l->n < PROBE_MAX) {
		l->e[l->n].table = ctx->table;
		l->e[l->n].hook = ctx->hook;
		l->e[l->n].rulenum = ctx->rulenum;
		l->e[l->n].family = ctx->family;
		snprintf(l->e[l->n].chain, sizeof(l->e[0].chain), "%s", ctx->chain);
		snprintf(l->e[l->n].in, sizeof(l->e[0].in), "%s", ctx->in);
		snprintf(l->e[l->n].out, sizeof(l->e[0].out), "%s", ctx->out);
		l->e[l->n].mark = ctx->pkt->mark;
	}
	l->n++;
}

/* The probe as a match: recorded, then true or false as the packet's length and the rule's
 * number say. */
static bool probe_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	(void)inst;
	probe_record(ctx);
	if ((ctx->info->l3len + ctx->rulenum) % 29 == 0) /* as a match that finds it malformed */
		ctx->hotdrop = true;
	return (ctx->info->l3len + ctx->rulenum) % 3 != 0;
}

static int probe_target(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	unsigned len = ctx->info->l3len;

	(void)inst;
	probe_record(ctx);
	ctx->pkt->mark ^= len & 3;
	if (len % 11 == 4) /* another destination: the rules after this see it */
		ctx->pkt->info.dst.b[ctx->family == AF_INET ? 3 : 15] ^= 1;
	switch (len % 6) {
	case 0:
		return EXT_RETURN;
	case 1:
		return EXT_DROP;
	default:
		return EXT_CONTINUE;
	}
}

static const struct ext_target probe = {.name = "PROBE", .target = probe_target};
static const struct ext_match probe_m = {.name = "probe", .match = probe_match};

/* The probe match put first into rule r. */
static void add_probe_match(struct rules_rule *r)
{
	struct ext_instance *m = malloc((r->nmatches + 1) * sizeof(*m));

	assert_non_null(m);
	memset(m, 0, sizeof(*m));
	m->match = &probe_m;
	if (r->nmatches)
		memcpy(m + 1, r->matches, r->nmatches * sizeof(*m));
	free(r->matches);
	r->matches = m;
	r->nmatches++;
}

/* A probe rule put in at a random place of some chains of rs. */
static void add_probes(struct rules_ruleset *rs, uint64_t seed)
{
	for (unsigned t = 0; t < TABLE_MAX; t++) {
		struct rules_table *tb = &rs->tables[t];

		for (unsigned ci = 0; tb->present && ci < tb->nchains; ci++) {
			struct rules_chain *c = &tb->chains[ci];
			unsigned at;

			for (unsigned i = 0; i < c->nrules; i++)
				if (rnd(&seed) % 5 == 0)
					add_probe_match(&c->rules[i]);
			if (rnd(&seed) % 3)
				continue;
			at = (unsigned)(rnd(&seed) % (c->nrules + 1));
			c->rules = realloc(c->rules, (c->nrules + 1) * sizeof(*c->rules));
			c->ctr = realloc(c->ctr, (c->nrules + 1) * sizeof(*c->ctr));
			assert_non_null(c->rules);
			assert_non_null(c->ctr);
			memmove(&c->rules[at + 1], &c->rules[at],
				(c->nrules - at) * sizeof(*c->rules));
			memmove(&c->ctr[at + 1], &c->ctr[at], (c->nrules - at) * sizeof(*c->ctr));
			memset(&c->rules[at], 0, sizeof(c->rules[at]));
			c->rules[at].target.kind = RULES_T_EXT;
			c->rules[at].target.ext.target = &probe;
			c->ctr[at] = (struct rules_counter){0, 0};
			c->nrules++;
			c->cap = c->nrules;
		}
	}
}

static void compare_probes(const struct probe_log *x, const struct probe_log *y)
{
	assert_int_equal(x->n, y->n);
	for (unsigned i = 0; i < x->n && i < PROBE_MAX; i++) {
		assert_int_equal(x->e[i].table, y->e[i].table);
		assert_int_equal(x->e[i].hook, y->e[i].hook);
		assert_int_equal(x->e[i].rulenum, y->e[i].rulenum);
		assert_int_equal(x->e[i].family, y->e[i].family);
		assert_int_equal(x->e[i].mark, y->e[i].mark);
		assert_string_equal(x->e[i].chain, y->e[i].chain);
		assert_string_equal(x->e[i].in, y->e[i].in);
		assert_string_equal(x->e[i].out, y->e[i].out);
	}
}

/* A random ruleset of family fam from seed (the same seed, the same text). */
static struct rules_ruleset *random_ruleset(int fam, uint64_t seed)
{
	static const struct {
		const char *name;
		const char *chains[5];
	} tables[] = {
	    {"raw", {"PREROUTING", "OUTPUT"}},
	    {"mangle", {"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"}},
	    {"filter", {"INPUT", "FORWARD", "OUTPUT"}},
	    {"security", {"INPUT", "FORWARD", "OUTPUT"}},
	};
	struct text t = {.cap = 64 * 1024};
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	bool v6 = fam == AF_INET6;

	t.buf = malloc(t.cap);
	assert_non_null(t.buf);
	for (unsigned i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		bool filter = !strcmp(tables[i].name, "filter");

		if (rnd(&seed) % 5 == 0)
			continue; /* the table absent */
		put(&t, "*%s\n", tables[i].name);
		for (unsigned c = 0; c < 5 && tables[i].chains[c]; c++)
			put(&t, ":%s %s [0:0]\n", tables[i].chains[c],
			    rnd(&seed) % 4 ? "ACCEPT" : "DROP");
		put(&t, ":U1 - [0:0]\n:U2 - [0:0]\n");
		for (unsigned c = 0; c < 5 && tables[i].chains[c]; c++)
			for (unsigned n = (unsigned)(rnd(&seed) % RULES_MAX); n; n--)
				random_rule(&t, &seed, v6, tables[i].name, tables[i].chains[c],
					    filter);
		for (unsigned n = (unsigned)(rnd(&seed) % 4); n; n--)
			random_rule(&t, &seed, v6, tables[i].name, "U1", filter);
		for (unsigned n = (unsigned)(rnd(&seed) % 4); n; n--)
			random_rule(&t, &seed, v6, tables[i].name, "U2", filter);
		put(&t, "COMMIT\n");
	}
	if (rules_parse_buffer(t.buf, t.len, "quick", fam, ext_registry_default(), NULL, 0, &rs,
			       &err)) {
		rules_error_print(&err, stderr);
		fprintf(stderr, "%.*s", (int)t.len, t.buf);
		fail();
	}
	free(t.buf);
	add_probes(rs, seed);
	return rs;
}

struct side {
	struct rec r;
	struct box *b;
};

static void side_init(struct side *s, bool traced)
{
	memset(s, 0, sizeof(*s));
	s->b = gw_box_wan(&s->r, traced);
}

static void compare_traces(const struct rec *x, const struct rec *y)
{
	assert_int_equal(x->ntrace, y->ntrace);
	for (unsigned i = 0; i < x->ntrace && i < 32; i++)
		assert_string_equal(x->trace[i], y->trace[i]);
}

static void test_quick_as_general(void **state)
{
	struct side *side[3];
	uint64_t s = 0x2545f4914f6cdd1dull;
	unsigned decided = 0, probed = 0, traced = 0;

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		side[k] = calloc(1, sizeof(*side[k]));
		assert_non_null(side[k]);
		side_init(side[k], k == 1); /* 0: quick, 1: traces every packet, 2: compiled */
		probes[k].env = box_ext_env(side[k]->b);
	}
	assert_int_equal(box_set_classifier(side[2]->b, CLS_MODE_COMPILED, NULL), 0);
	for (unsigned round = 0; round < ROUNDS; round++) {
		uint64_t seed4 = rnd(&s), seed6 = rnd(&s);

		for (unsigned k = 0; k < 3; k++) {
			box_set_ruleset(side[k]->b, random_ruleset(AF_INET, seed4), AF_INET);
			box_set_ruleset(side[k]->b, random_ruleset(AF_INET6, seed6), AF_INET6);
		}
		for (unsigned i = 0; i < PACKETS; i++) {
			uint64_t ps = rnd(&s) | 1;
			int v[3];

			for (unsigned k = 0; k < 3; k++) {
				uint64_t pk = ps;
				bool out;
				int ifx;
				struct pkt *p = gw_random_packet(&pk, 12, 8, &out, &ifx);

				if (ps % 16 == 1) { /* the box's own to itself: through "lo" */
					char spec[96];

					pkt_free(p);
					snprintf(spec, sizeof(spec),
						 ps & 32 ? "udp 192.0.2.1:%u > 192.0.2.1:53 len=%u"
							 : "udp [2001:db8:ffff::1]:%u > "
							   "[2001:db8:ffff::1]:53 len=%u",
						 (unsigned)(ps >> 8) % 8 + 1024,
						 (unsigned)(ps >> 16) % 1400);
					p = mk(spec);
					out = true;
				}

				probes[k].n = 0;
				v[k] = out ? box_output(side[k]->b, p)
					   : box_receive(side[k]->b, ifx, p);
			}
			for (unsigned k = 1; k < 3; k++) {
				assert_int_equal(v[0], v[k]);
				rec_compare(&side[0]->r, &side[k]->r);
				box_compare_counters(side[0]->b, side[k]->b, AF_INET);
				box_compare_counters(side[0]->b, side[k]->b, AF_INET6);
				compare_probes(&probes[0], &probes[k]);
			}
			compare_traces(&side[0]->r, &side[2]->r);
			decided += side[0]->r.ndrop;
			probed += probes[0].n;
			traced += side[0]->r.ntrace;
			for (unsigned k = 0; k < 3; k++)
				rec_free(&side[k]->r);
		}
	}
	/* the rulesets decided, the probes ran, TRACE traced */
	assert_true(decided > 0);
	assert_true(probed > 0);
	assert_true(traced > 0);
	for (unsigned k = 0; k < 3; k++) {
		box_free(side[k]->b);
		free(side[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quick_as_general),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
