/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one changed rule of a big chain costs when a ruleset is reloaded (rules restore
 * --noflush, a control socket's restore, a live reload): the rules are read as iptables-save
 * text into a new ruleset, whose chains are compiled before it is published. A chain that
 * differs from the running one's in a few rules is made from a copy of the running
 * classifier (cls_ruleset_compile_from -> cls_update), not built anew.
 *
 *   bench_cls_update NAME RULES [NAME RULES ...]      (ClassBench filter sets)
 *
 * For each set: a filter FORWARD chain of the set's rules (-s -d -p and ports; the TCP flags
 * left out), then the same with one rule added in the middle, and with one deleted. Prints
 *   set,rules,change,parse_ms,compile_full_ms,compile_incremental_ms
 * compile_full: cls_ruleset_compile of the changed ruleset alone; compile_incremental: with
 * the running ruleset given (the chain's classifier cloned and changed). Medians of 5 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "../tests/unit/classbench.h"
#include "classify/ruleset.h"
#include "rules/ext.h"
#include "rules/rules.h"

#define RUNS 5

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_d);
	return v[RUNS / 2];
}

static void rule_text(FILE *f, const struct cb_rule *r)
{
	fprintf(f, "-A FORWARD");
	if (r->smask)
		fprintf(f, " -s %u.%u.%u.%u/%d", r->src >> 24, r->src >> 16 & 255,
			r->src >> 8 & 255, r->src & 255, __builtin_popcount(r->smask));
	if (r->dmask)
		fprintf(f, " -d %u.%u.%u.%u/%d", r->dst >> 24, r->dst >> 16 & 255,
			r->dst >> 8 & 255, r->dst & 255, __builtin_popcount(r->dmask));
	if (r->pmask == 0xff && (r->proto == 6 || r->proto == 17))
		fprintf(f, " -p %s -m %s --sport %u:%u --dport %u:%u",
			r->proto == 6 ? "tcp" : "udp", r->proto == 6 ? "tcp" : "udp", r->splo,
			r->sphi, r->dplo, r->dphi);
	else if (r->pmask == 0xff)
		fprintf(f, " -p %u", r->proto);
	fprintf(f, " -j ACCEPT\n");
}

/* The ruleset text of rules r[0..n) with `skip` left out (n: none) and `extra` put before
 * rule `at` (NULL: none). */
static char *ruleset_text(const struct cb_rule *r, unsigned n, unsigned skip,
			  const struct cb_rule *extra, unsigned at, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	fprintf(f, "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n");
	for (unsigned i = 0; i < n; i++) {
		if (extra && i == at)
			rule_text(f, extra);
		if (i != skip)
			rule_text(f, &r[i]);
	}
	fprintf(f, "COMMIT\n");
	fclose(f);
	return buf;
}

static struct rules_ruleset *parse(const char *text, size_t len, double *ms)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	double t0 = now_s();

	if (rules_parse_buffer(text, len, "bench", AF_INET, ext_registry_default(), NULL, 0, &rs,
			       &err) < 0) {
		rules_error_print(&err, stderr);
		return NULL;
	}
	*ms = (now_s() - t0) * 1e3;
	return rs;
}

static int bench_change(const char *name, unsigned nr, const struct rules_ruleset *base,
			const char *text, size_t len, const char *change)
{
	double parse_ms[RUNS], full[RUNS], inc[RUNS];
	const struct cls_chain *cc = NULL;

	for (unsigned k = 0; k < RUNS; k++) {
		struct rules_ruleset *a = parse(text, len, &parse_ms[k]);
		struct rules_ruleset *b = parse(text, len, &parse_ms[k]);
		double t0, t1, t2;

		if (!a || !b) {
			rules_ruleset_free(a);
			rules_ruleset_free(b);
			return 1;
		}
		t0 = now_s();
		cls_ruleset_compile(a, CLS_MODE_AUTO, NULL, NULL);
		t1 = now_s();
		cls_ruleset_compile_from(b, base, CLS_MODE_AUTO, NULL, NULL);
		t2 = now_s();
		full[k] = (t1 - t0) * 1e3;
		inc[k] = (t2 - t1) * 1e3;
		cc = &b->compiled->chains[TABLE_FILTER]
					 [rules_chain_find(&b->tables[TABLE_FILTER], "FORWARD")];
		if (!cc->cls || !cc->updated) {
			fprintf(stderr, "bench_cls_update: %s %s: not updated in place (%s)\n",
				name, change, cc->cls ? "rebuilt" : cc->why);
			rules_ruleset_free(a);
			rules_ruleset_free(b);
			return 1;
		}
		rules_ruleset_free(a);
		rules_ruleset_free(b);
	}
	printf("%s,%u,%s,%.2f,%.2f,%.2f\n", name, nr, change, median(parse_ms), median(full),
	       median(inc));
	fflush(stdout);
	return 0;
}

static int bench_set(const char *name, const char *path)
{
	unsigned nr = 0;
	struct cb_rule *r = cb_load_rules(path, &nr);
	struct rules_ruleset *base = NULL;
	char *t0 = NULL, *t1 = NULL, *t2 = NULL;
	size_t l0, l1, l2;
	double ms;
	int rc = 1;

	if (!r || nr < 4) {
		fprintf(stderr, "bench_cls_update: %s: cannot load %s\n", name, path);
		goto out;
	}
	t0 = ruleset_text(r, nr, nr, NULL, 0, &l0);
	t1 = ruleset_text(r, nr, nr, &r[nr - 2], nr / 2, &l1); /* one added */
	t2 = ruleset_text(r, nr, nr / 2 + 1, NULL, 0, &l2);    /* one deleted */
	if (!t0 || !t1 || !t2 || !(base = parse(t0, l0, &ms)))
		goto out;
	cls_ruleset_compile(base, CLS_MODE_AUTO, NULL, NULL);
	rc = bench_change(name, nr, base, t1, l1, "add") |
	     bench_change(name, nr, base, t2, l2, "delete");
out:
	rules_ruleset_free(base);
	free(t0);
	free(t1);
	free(t2);
	free(r);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "usage: bench_cls_update NAME RULES [NAME RULES ...]\n");
		return 2;
	}
	printf("set,rules,change,parse_ms,compile_full_ms,compile_incremental_ms\n");
	for (int i = 1; i + 1 < argc; i += 2)
		rc |= bench_set(argv[i], argv[i + 1]);
	return rc;
}
