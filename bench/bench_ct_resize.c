// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_ct_resize [--entries N]: the conntrack hash's size (nf_conntrack_buckets), measured
 * once (1,000,000 entries by default). Entries are made with ct_entry_create (as `conntrack -I`
 * and bench_ctl make them: two lookups and an insert each), UDP, never expiring meanwhile.
 *
 *   fill_fixed    N entries into 32768 buckets (the default size, as every box had before)
 *   fill_auto     N entries into a table whose max was raised to N: the hash follows it
 *   rehash_oneshot_ms    the full 32768-bucket table resized to N buckets, everything moved at
 *                 once (ct_table_rehash_finish): what a one-shot rehash would stall for
 *   siphash_ns    one tuple's hash: a rehash that does not keep hashes pays it twice per entry
 *   incremental   the same resize done by the inserts that follow it (how many until it is
 *                 over, their latency) and by ct_sweep(256 buckets) calls alone (an idle box)
 *   walk_*        ct_walk over the table in steps of 256 entries (the ctl dump's batch)
 *
 * Output: "name value unit" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <netinet/in.h>

#include "ct/create.h"
#include "ct/ct.h"
#include "ct/ct_int.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void tuple_of(unsigned i, struct ct_tuple *t)
{
	ct_tuple_zero(t);
	t->family = AF_INET;
	t->l4proto = IPPROTO_UDP;
	t->src.b[0] = 10;
	t->src.b[1] = (uint8_t)(i >> 16);
	t->src.b[2] = (uint8_t)(i >> 8);
	t->src.b[3] = (uint8_t)i;
	t->dst.b[0] = 192;
	t->dst.b[2] = 2;
	t->dst.b[3] = (uint8_t)(1 + (i >> 24));
	t->s.port = (uint16_t)(1024 + i % 60000);
	t->d.port = 53;
}

static int make(struct ct_table *t, unsigned i)
{
	struct ct_entry_attrs a;

	memset(&a, 0, sizeof(a));
	tuple_of(i, &a.orig);
	a.have = CT_ATTR_TIMEOUT;
	a.timeout = 3600 * CT_SEC;
	return ct_entry_create(t, &a, 0, NULL);
}

static struct ct_table *table(unsigned max, unsigned buckets)
{
	struct ct_config c;

	ct_config_default(&c);
	c.max_entries = max;
	c.buckets = buckets;
	return ct_table_new(&c);
}

static double fill(struct ct_table *t, unsigned from, unsigned n)
{
	double t0 = now_s();

	for (unsigned i = from; i < from + n; i++)
		if (make(t, i) < 0) {
			fprintf(stderr, "bench_ct_resize: entry %u not made\n", i);
			exit(1);
		}
	return n / (now_s() - t0);
}

static enum ct_walk_action count_cb(void *priv, struct ct_entry *e)
{
	(void)e;
	++*(unsigned *)priv;
	return CT_WALK_NEXT;
}

static void walk(struct ct_table *t, const char *name)
{
	uint32_t cursor = 0;
	unsigned n = 0;
	double t0 = now_s(), t1;

	while (!ct_walk(t, &cursor, 256, 0, count_cb, &n))
		;
	t1 = now_s();
	printf("walk_%s_entries_per_s %.0f entries/s\n", name, n / (t1 - t0));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned n = 1000000;
	struct ct_table *t;
	double t0, t1, *lat;
	unsigned inserts = 0;

	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--entries"))
			n = (unsigned)strtoul(argv[i + 1], NULL, 10);

	/* before: the box's default hash, whatever max says */
	t = table(2 * n + 2, 32768);
	printf("fill_fixed_32768_entries_per_s %.0f entries/s\n", fill(t, 0, n));
	walk(t, "fixed_32768");
	{
		struct ct_tuple tu;
		volatile uint64_t sink = 0;

		tuple_of(7, &tu);
		t0 = now_s();
		for (unsigned i = 0; i < 2 * n; i++) {
			tu.s.port = (uint16_t)i;
			sink += ct_hash_tuple(t, &tu);
		}
		t1 = now_s();
		printf("siphash_ns %.1f ns/tuple\n", (t1 - t0) * 1e9 / (2.0 * n));
	}
	t0 = now_s();
	if (ct_table_resize(t, n) < 0)
		return 1;
	ct_table_rehash_finish(t);
	t1 = now_s();
	printf("rehash_oneshot_ms %.1f ms (%u entries, 32768 -> %u buckets)\n", (t1 - t0) * 1e3, n,
	       ct_table_config(t)->buckets);
	walk(t, "resized");
	ct_table_free(t);

	/* the same resize done incrementally, by the inserts that follow it */
	t = table(2 * n + 2, 32768);
	fill(t, 0, n);
	lat = calloc(n, sizeof(*lat));
	ct_table_resize(t, n);
	t0 = now_s();
	while (ct_table_resizing(t) && inserts < n) {
		double a = now_s();

		make(t, n + inserts);
		lat[inserts++] = now_s() - a;
	}
	t1 = now_s();
	qsort(lat, inserts, sizeof(*lat), cmp_double);
	printf("incremental_inserts_to_finish %u inserts\n", inserts);
	printf("incremental_total_ms %.1f ms\n", (t1 - t0) * 1e3);
	printf("incremental_insert_p50_us %.1f us\n", lat[inserts / 2] * 1e6);
	printf("incremental_insert_p99_us %.1f us\n", lat[inserts * 99 / 100] * 1e6);
	printf("incremental_insert_max_us %.1f us\n", lat[inserts - 1] * 1e6);
	ct_table_free(t);
	/* and by ct_sweep alone (an idle box: the clock moves, no new connections) */
	t = table(2 * n + 2, 32768);
	fill(t, 0, n);
	ct_table_resize(t, n);
	inserts = 0;
	while (ct_table_resizing(t) && inserts < n) {
		double a = now_s();

		ct_sweep(t, 0, 256); /* the box's BOX_CT_SWEEP_BUCKETS */
		lat[inserts++] = now_s() - a;
	}
	qsort(lat, inserts, sizeof(*lat), cmp_double);
	printf("incremental_sweeps_to_finish %u calls\n", inserts);
	printf("incremental_sweep_p50_us %.1f us\n", lat[inserts / 2] * 1e6);
	printf("incremental_sweep_max_us %.1f us\n", lat[inserts - 1] * 1e6);
	ct_table_free(t);
	free(lat);

	/* after: max raised, the hash grows with it (no nf_conntrack_buckets given) */
	t = table(65536, 0);
	{
		struct ct_config c = *ct_table_config(t);

		c.max_entries = n + 1024;
		ct_table_set_config(t, &c);
	}
	printf("auto_buckets %u buckets\n", ct_table_config(t)->buckets);
	printf("fill_auto_entries_per_s %.0f entries/s\n", fill(t, 0, n));
	walk(t, "auto");
	ct_table_free(t);
	return 0;
}
