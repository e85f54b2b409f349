/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DPDK's rte_acl on the ClassBench sets bench_classify measures, for the comparison in
 * docs/classifier.md. Built only when pkg-config finds libdpdk (make bench installs Debian's
 * dpdk-dev); pkttables itself never links DPDK.
 *
 *   bench_acl [--seconds S] NAME RULES TRACE [NAME RULES TRACE ...]
 *
 * prints CSV rows  set,rules,engine,mlookups_per_s,bytes,build_s  (no header) for the scalar
 * algorithm (engine rte_acl-scalar) and for the fastest vector one this CPU runs (engine
 * rte_acl-sse|avx2|avx512x16|avx512x32); the others as comment lines. Lookups are bursts of
 * 64 through rte_acl_classify, one category, on one thread. bytes: what the context takes of
 * DPDK's heap once built (rules and runtime structure; the build's own scratch memory is
 * freed by then); build_s: rte_acl_add_rules and rte_acl_build. Every answer is checked
 * against a linear scan over the first packets of the trace; a mismatch exits 1.
 *
 * EAL is started without hugepages, devices or files (--no-huge --no-pci --no-shconf), with
 * PT_ACL_MEM_MB (default 4096) MiB of heap (the 100k sets' contexts take up to about 1 GiB),
 * and with 512-bit vectors allowed, so the AVX-512 algorithms run where the CPU has them.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "../tests/unit/classbench.h"

#define BURST  64
#define VERIFY 20000

/* The input rte_acl reads: fields in network byte order, each 4-byte group readable whole. */
struct acl_key {
	uint8_t proto;
	uint8_t pad[3];
	uint32_t src, dst;
	uint16_t sport, dport;
	uint16_t flags, pad2;
};

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, F_FLAGS, F_NUM };

RTE_ACL_RULE_DEF(acl_rule, F_NUM);

static const struct rte_acl_field_def acl_fields[F_NUM] = {
    {.type = RTE_ACL_FIELD_TYPE_BITMASK,
     .size = 1,
     .field_index = F_PROTO,
     .input_index = 0,
     .offset = offsetof(struct acl_key, proto)},
    {.type = RTE_ACL_FIELD_TYPE_MASK,
     .size = 4,
     .field_index = F_SRC,
     .input_index = 1,
     .offset = offsetof(struct acl_key, src)},
    {.type = RTE_ACL_FIELD_TYPE_MASK,
     .size = 4,
     .field_index = F_DST,
     .input_index = 2,
     .offset = offsetof(struct acl_key, dst)},
    {.type = RTE_ACL_FIELD_TYPE_RANGE,
     .size = 2,
     .field_index = F_SPORT,
     .input_index = 3,
     .offset = offsetof(struct acl_key, sport)},
    {.type = RTE_ACL_FIELD_TYPE_RANGE,
     .size = 2,
     .field_index = F_DPORT,
     .input_index = 3,
     .offset = offsetof(struct acl_key, dport)},
    {.type = RTE_ACL_FIELD_TYPE_BITMASK,
     .size = 4, /* flags and pad2: a 4-byte group of its own */
     .field_index = F_FLAGS,
     .input_index = 4,
     .offset = offsetof(struct acl_key, flags)},
};

static const struct {
	enum rte_acl_classify_alg alg;
	const char *name;
} algs[] = {
    {RTE_ACL_CLASSIFY_SCALAR, "scalar"},       {RTE_ACL_CLASSIFY_SSE, "sse"},
    {RTE_ACL_CLASSIFY_AVX2, "avx2"},	       {RTE_ACL_CLASSIFY_AVX512X16, "avx512x16"},
    {RTE_ACL_CLASSIFY_AVX512X32, "avx512x32"},
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint32_t sink;

static size_t heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	size_t sum = 0;

	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (!rte_malloc_get_socket_stats(s, &st))
			sum += st.heap_allocsz_bytes;
	return sum;
}

static void rule_of(const struct cb_rule *r, unsigned i, struct acl_rule *a)
{
	unsigned sl = (unsigned)__builtin_popcount(r->smask),
		 dl = (unsigned)__builtin_popcount(r->dmask);

	memset(a, 0, sizeof(*a));
	a->data.category_mask = 1;
	a->data.priority = RTE_ACL_MAX_PRIORITY - (int32_t)i; /* the first rule wins */
	a->data.userdata = i + 1;			      /* 0 is "no match" */
	a->field[F_PROTO].value.u8 = r->proto & r->pmask;
	a->field[F_PROTO].mask_range.u8 = r->pmask;
	a->field[F_SRC].value.u32 = r->src;
	a->field[F_SRC].mask_range.u32 = sl;
	a->field[F_DST].value.u32 = r->dst;
	a->field[F_DST].mask_range.u32 = dl;
	a->field[F_SPORT].value.u16 = r->splo;
	a->field[F_SPORT].mask_range.u16 = r->sphi;
	a->field[F_DPORT].value.u16 = r->dplo;
	a->field[F_DPORT].mask_range.u16 = r->dphi;
	a->field[F_FLAGS].value.u32 = (uint32_t)(r->flags & r->fmask) << 16;
	a->field[F_FLAGS].mask_range.u32 = (uint32_t)r->fmask << 16;
}

static double run(const struct rte_acl_ctx *ctx, const uint8_t **data, unsigned np, double seconds)
{
	unsigned long done = 0;
	uint32_t res[BURST], acc = 0;
	double t0 = now_s(), t;

	do {
		for (unsigned k = 0; k < 64; k++) {
			unsigned base = (unsigned)(done % np);
			unsigned m = np - base < BURST ? np - base : BURST;

			rte_acl_classify(ctx, data + base, res, m, 1);
			for (unsigned i = 0; i < m; i++)
				acc += res[i];
			done += m;
		}
		t = now_s() - t0;
	} while (t < seconds);
	sink = acc;
	return (double)done / t / 1e6;
}

static int bench_set(const char *name, const char *rpath, const char *tpath, double seconds)
{
	unsigned nr = 0, np = 0;
	struct cb_rule *r = cb_load_rules(rpath, &nr);
	struct cb_pkt *p = cb_load_trace(tpath, 1, &np);
	struct acl_key *keys = NULL;
	const uint8_t **data = NULL;
	struct rte_acl_ctx *ctx = NULL;
	struct acl_rule rule;
	struct rte_acl_config cfg;
	double t0, build_s, best = 0;
	const char *best_name = NULL;
	size_t heap0, bytes;
	int rc = 1;

	if (!r || !p || !np) {
		fprintf(stderr, "bench_acl: %s: cannot load %s or %s\n", name, rpath, tpath);
		goto out;
	}
	keys = calloc(np, sizeof(*keys));
	data = calloc(np, sizeof(*data));
	if (!keys || !data)
		goto out;
	for (unsigned i = 0; i < np; i++) {
		keys[i] = (struct acl_key){.proto = p[i].proto,
					   .src = htonl(p[i].src),
					   .dst = htonl(p[i].dst),
					   .sport = htons(p[i].sport),
					   .dport = htons(p[i].dport),
					   .flags = htons(p[i].flags)};
		data[i] = (const uint8_t *)&keys[i];
	}
	heap0 = heap_bytes();
	t0 = now_s();
	ctx = rte_acl_create(&(struct rte_acl_param){.name = name,
						     .socket_id = SOCKET_ID_ANY,
						     .rule_size = RTE_ACL_RULE_SZ(F_NUM),
						     .max_rule_num = nr});
	if (!ctx) {
		fprintf(stderr, "bench_acl: %s: rte_acl_create failed\n", name);
		goto out;
	}
	for (unsigned i = 0; i < nr; i++) {
		rule_of(&r[i], i, &rule);
		if (rte_acl_add_rules(ctx, (const struct rte_acl_rule *)&rule, 1)) {
			fprintf(stderr, "bench_acl: %s: rule %u refused\n", name, i);
			goto out;
		}
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.num_categories = 1;
	cfg.num_fields = F_NUM;
	memcpy(cfg.defs, acl_fields, sizeof(acl_fields));
	if (rte_acl_build(ctx, &cfg)) {
		printf("# %s: rte_acl_build failed (out of memory?)\n", name);
		rc = 0;
		goto out;
	}
	build_s = now_s() - t0;
	bytes = heap_bytes() - heap0;
	for (unsigned a = 0; a < sizeof(algs) / sizeof(algs[0]); a++) {
		double mlps;

		if (rte_acl_set_ctx_classify(ctx, algs[a].alg))
			continue; /* not on this CPU */
		for (unsigned i = 0; i < np && i < VERIFY; i += BURST) {
			uint32_t res[BURST];
			unsigned m = np - i < BURST ? np - i : BURST;

			rte_acl_classify(ctx, data + i, res, m, 1);
			for (unsigned j = 0; j < m; j++)
				if ((res[j] ? res[j] - 1 : nr) != cb_linear(r, nr, &p[i + j])) {
					fprintf(stderr,
						"bench_acl: %s %s packet %u: %u != linear %u\n",
						name, algs[a].name, i + j, res[j] ? res[j] - 1 : nr,
						cb_linear(r, nr, &p[i + j]));
					goto out;
				}
		}
		mlps = run(ctx, data, np, seconds);
		if (algs[a].alg == RTE_ACL_CLASSIFY_SCALAR) {
			printf("%s,%u,rte_acl-scalar,%.3f,%zu,%.4f\n", name, nr, mlps, bytes,
			       build_s);
		} else {
			printf("# %s rte_acl-%s %.3f Mlookups/s\n", name, algs[a].name, mlps);
			if (mlps > best)
				best = mlps, best_name = algs[a].name;
		}
		fflush(stdout);
	}
	if (best_name)
		printf("%s,%u,rte_acl-%s,%.3f,%zu,%.4f\n", name, nr, best_name, best, bytes,
		       build_s);
	rc = 0;
out:
	fflush(stdout);
	rte_acl_free(ctx);
	free(data);
	free(keys);
	free(r);
	free(p);
	return rc;
}

int main(int argc, char **argv)
{
	double seconds = 1;
	int i = 1, rc = 0;
	char mem[32];
	const char *mb = getenv("PT_ACL_MEM_MB");
	char *eal[] = {argv[0],
		       "--no-huge",
		       "--no-pci",
		       "--no-shconf",
		       "--no-telemetry",
		       "-m",
		       mem,
		       "--log-level=*:warning",
		       "-l",
		       "0",
		       "--force-max-simd-bitwidth=512",
		       NULL};
	int neal = (int)(sizeof(eal) / sizeof(eal[0])) - 1;

	snprintf(mem, sizeof(mem), "%s", mb && *mb ? mb : "4096");
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
		else
			break;
	}
	if (argc - i < 3 || (argc - i) % 3) {
		fprintf(stderr, "usage: bench_acl [--seconds S] NAME RULES TRACE ...\n");
		return 2;
	}
	if (rte_eal_init(neal, eal) < 0) {
		fprintf(stderr, "bench_acl: EAL did not start\n");
		return 1;
	}
	for (; i + 2 < argc; i += 3)
		rc |= bench_set(argv[i], argv[i + 1], argv[i + 2], seconds);
	rte_eal_cleanup();
	return rc;
}
