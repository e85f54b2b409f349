/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compiled classifier against the linear scan on ClassBench sets, one core, one run:
 *
 *   bench_classify [--seconds S | --count N] NAME RULES TRACE [NAME RULES TRACE ...]
 *
 * prints CSV rows  set,rules,engine,mlookups_per_s,bytes,build_s  (engine linear|compiled;
 * compiled lookups are bursts of 64 keys through cls_first_burst plus the TCP-flags residual
 * check on candidates), then, for sets of 5000 rules or more, a comment line with the time of
 * deleting and re-inserting one rule in the middle (on a copy: cls_clone, cls_delete,
 * cls_insert), as a restore --noflush would change a chain. Every compiled answer is checked
 * against the linear one over the first packets of the trace; a mismatch exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/unit/classbench.h"

#define BURST  64
#define VERIFY 20000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned sink;
static unsigned long count; /* --count N: exactly N lookups (instruction counts), else timed */

static bool more(unsigned long done, double t, double seconds)
{
	return count ? done < count : t < seconds;
}

__attribute__((noinline)) static double run_linear(const struct cb_rule *r, unsigned nr,
						   const struct cb_pkt *p, unsigned np,
						   double seconds)
{
	unsigned long done = 0;
	double t0 = now_s(), t;
	unsigned acc = 0;

	do {
		for (unsigned i = 0; i < 256 && (!count || done < count); i++, done++)
			acc += cb_linear(r, nr, &p[done % np]);
		t = now_s() - t0;
	} while (more(done, t, seconds));
	sink = acc;
	return (double)done / t / 1e6;
}

__attribute__((noinline)) static double
run_compiled(const struct classifier *c, const struct cb_rule *r, const struct cb_pkt *p,
	     const uint32_t (*keys)[CLS_NDIMS], unsigned np, double seconds)
{
	unsigned long done = 0;
	unsigned out[BURST], acc = 0;
	double t0 = now_s(), t;

	do {
		for (unsigned k = 0; k < 64 && (!count || done < count); k++) {
			unsigned base = (unsigned)(done % np);
			unsigned m = np - base < BURST ? np - base : BURST;

			cls_first_burst(c, keys + base, m, out);
			for (unsigned i = 0; i < m; i++)
				acc += cb_compiled(c, r, &p[base + i], keys[base + i], out[i]);
			done += m;
		}
		t = now_s() - t0;
	} while (more(done, t, seconds));
	sink = acc;
	return (double)done / t / 1e6;
}

static int bench_set(const char *name, const char *rpath, const char *tpath, double seconds)
{
	unsigned nr = 0, np = 0;
	struct cb_rule *r = cb_load_rules(rpath, &nr);
	struct cb_pkt *p = cb_load_trace(tpath, 1, &np);
	struct cls_builder *b = r ? cb_builder(r, nr, true) : NULL;
	struct classifier *c = NULL;
	uint32_t(*keys)[CLS_NDIMS] = NULL;
	struct cls_build_info info;
	double t0, build_s;
	int err, rc = 1;

	if (!r || !p || !b || !np) {
		fprintf(stderr, "bench_classify: %s: cannot load %s or %s\n", name, rpath, tpath);
		goto out;
	}
	printf("%s,%u,linear,%.3f,%zu,0\n", name, nr, run_linear(r, nr, p, np, seconds),
	       (size_t)nr * sizeof(*r));
	fflush(stdout);
	t0 = now_s();
	err = cls_build(b, NULL, &c, &info);
	build_s = now_s() - t0;
	if (err) {
		printf("# %s: no compiled classifier (error %d: over the budget?)\n", name, err);
		rc = 0;
		goto out;
	}
	keys = malloc((size_t)np * sizeof(*keys));
	if (!keys)
		goto out;
	for (unsigned i = 0; i < np; i++)
		cb_key(&p[i], keys[i]);
	for (unsigned i = 0; i < np && i < VERIFY; i++)
		if (cb_compiled(c, r, &p[i], keys[i], cls_first(c, keys[i], 0)) !=
		    cb_linear(r, nr, &p[i])) {
			fprintf(stderr, "bench_classify: %s packet %u: compiled != linear\n", name,
				i);
			goto out;
		}
	printf("%s,%u,compiled,%.3f,%zu,%.4f\n", name, nr,
	       run_compiled(c, r, p, (const uint32_t(*)[CLS_NDIMS])keys, np, seconds), info.bytes,
	       build_s);
	if (nr >= 5000) {
		/* Measured on a build without final rules, as it always was (deleting a final
		 * rule also puts back the rules it hid: bench_cls_update times whole reloads). */
		struct cls_builder *nb = cb_builder(r, nr, false);
		struct classifier *base = NULL, *d = NULL;
		struct cls_build_info ninfo;
		double t1, t2, t3, t4;

		t1 = now_s();
		if (!nb || cls_build(nb, NULL, &base, &ninfo)) {
			cls_builder_free(nb);
			goto out;
		}
		t2 = now_s();
		d = cls_clone(base);
		t3 = now_s();
		if (!d || cls_delete(d, nr / 2) || cls_insert(d, nr / 2, nb, nr / 2)) {
			cls_free(d);
			cls_free(base);
			cls_builder_free(nb);
			goto out;
		}
		t4 = now_s();
		printf(
		    "# %s update (build without final rules: %.1f ms, %zu bytes): clone %.2f ms, "
		    "delete + insert of rule %u %.2f ms\n",
		    name, (t2 - t1) * 1e3, ninfo.bytes, (t3 - t2) * 1e3, nr / 2, (t4 - t3) * 1e3);
		cls_free(d);
		cls_free(base);
		cls_builder_free(nb);
	}
	rc = 0;
out:
	fflush(stdout);
	free(keys);
	cls_free(c);
	cls_builder_free(b);
	free(r);
	free(p);
	return rc;
}

int main(int argc, char **argv)
{
	double seconds = 1;
	int i = 1, rc = 0;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--count"))
			count = strtoul(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (argc - i < 3 || (argc - i) % 3) {
		fprintf(stderr,
			"usage: bench_classify [--seconds S | --count N] NAME RULES TRACE ...\n");
		return 2;
	}
	printf("set,rules,engine,mlookups_per_s,bytes,build_s\n");
	for (; i + 2 < argc; i += 3)
		rc |= bench_set(argv[i], argv[i + 1], argv[i + 2], seconds);
	return rc;
}
