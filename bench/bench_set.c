// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_set: what a -m set lookup costs per set type, and what a big set weighs.
 *
 *   build/bench/bench_set [--elements N] [--seconds S] [--memory M]
 *
 * Per type, a set of N elements (default 100000; bitmap types their whole range of 65536,
 * list:set two hash:ip members) and 4096 packets, half of whose keys are in the set, are
 * made; set_match_pkt (what -m set calls) is timed over the packets again and again for S
 * seconds (default 0.5) of the process's CPU time (a machine busy with other work inflates
 * that less than wall time). hash:net is given elements of 8 prefix lengths (/16 .. /30), so its
 * lookups try up to 8 of them. Then a hash:ip of M elements (default 1000000) is filled and
 * its size printed: set_memsize (what `ipset list` prints as Size in memory) and the growth
 * of the process's resident memory.
 * Output: one line per type: name, elements, ns per lookup, hit ratio; then the memory line.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pkt/build.h"
#include "set/set.h"
#include "set/set_cmd.h"

#define NPKT 4096

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static int cmd(struct set_table *t, const char *line)
{
	char buf[256], *argv[16], err[256], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = strtok_r(buf, " ", &save); p && argc < 16; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	if (set_cmd_line(t, argc, argv, NULL, 0, 0, stdout, err, sizeof(err))) {
		fprintf(stderr, "bench_set: %s: %s\n", line, err);
		exit(1);
	}
	return 0;
}

/* Element i of a type, as text; the packet of key i (dst side), as a spec. */
static void elem_text(const char *type, unsigned i, char *buf, size_t len)
{
	unsigned a = i >> 16 & 0xff, b = i >> 8 & 0xff, c = i & 0xff;
	static const unsigned lens[8] = {16, 18, 20, 22, 24, 26, 28, 30};

	if (!strcmp(type, "hash:ip") || !strcmp(type, "bitmap:ip"))
		snprintf(buf, len, "10.%u.%u.%u", a, b, c);
	else if (!strcmp(type, "hash:net"))
		snprintf(buf, len, "10.%u.%u.%u/%u", a, b, c & 0xfc, lens[i % 8]);
	else if (!strcmp(type, "hash:ip,port"))
		snprintf(buf, len, "10.%u.%u.%u,tcp:%u", a, b, c, 1000 + i % 50);
	else if (!strcmp(type, "hash:net,port"))
		snprintf(buf, len, "10.%u.%u.%u/24,tcp:%u", a, b, 0, 1000 + i % 50);
	else if (!strcmp(type, "hash:ip,port,ip"))
		snprintf(buf, len, "10.%u.%u.%u,tcp:%u,192.0.2.1", a, b, c, 1000 + i % 50);
	else if (!strcmp(type, "hash:ip,port,net"))
		snprintf(buf, len, "10.%u.%u.%u,tcp:%u,192.0.2.0/24", a, b, c, 1000 + i % 50);
	else if (!strcmp(type, "hash:net,iface"))
		snprintf(buf, len, "10.%u.%u.0/24,wan%u", a, b, i % 4);
	else if (!strcmp(type, "bitmap:port"))
		snprintf(buf, len, "%u", i & 0xffff);
	else
		buf[0] = '\0';
}

static struct pkt *key_pkt(const char *type, unsigned i)
{
	unsigned a = i >> 16 & 0xff, b = i >> 8 & 0xff, c = i & 0xff;
	char spec[200], err[128];
	struct pkt_spec s;

	if (!strcmp(type, "hash:net"))
		c &= 0xfc;
	if (!strcmp(type, "bitmap:port"))
		snprintf(spec, sizeof(spec), "tcp 192.0.2.1:999 > 10.0.0.1:%u syn", i & 0xffff);
	else
		snprintf(spec, sizeof(spec), "tcp 192.0.2.1:999 > 10.%u.%u.%u:%u syn", a, b, c,
			 1000 + i % 50);
	if (pkt_spec_parse(spec, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_set: %s: %s\n", spec, err);
		exit(1);
	}
	return pkt_build(&s);
}

static void bench_type(const char *type, unsigned n, double seconds)
{
	static const uint64_t key[2] = {1, 2};
	struct set_table *t = set_table_new(key);
	struct pkt *pk[NPKT];
	char line[256], el[128];
	struct set_match_opts mo = {.dim = 3, .dirs = 0x4}; /* dst, dst, src */
	const char *iface[NPKT];
	unsigned long long lookups = 0, hits = 0;
	double t0, t1;
	int id;

	if (!strcmp(type, "bitmap:ip")) {
		n = 65536;
		cmd(t, "create s bitmap:ip range 10.0.0.0/16");
	} else if (!strcmp(type, "bitmap:port")) {
		n = 65536;
		cmd(t, "create s bitmap:port range 0-65535");
	} else if (!strcmp(type, "list:set")) {
		cmd(t, "create m1 hash:ip maxelem 1000000");
		cmd(t, "create m2 hash:ip maxelem 1000000");
		cmd(t, "create s list:set");
		cmd(t, "add s m1");
		cmd(t, "add s m2");
	} else {
		snprintf(line, sizeof(line), "create s %s maxelem %u", type, n * 2);
		cmd(t, line);
	}
	id = set_find(t, "s");
	for (unsigned i = 0; i < n; i += 2) { /* the even keys: half the packets hit */
		char *argv[3] = {"add", "s", el}, err[256];

		if (!strcmp(type, "list:set")) {
			snprintf(el, sizeof(el), "10.%u.%u.%u", i >> 16 & 0xff, i >> 8 & 0xff,
				 i & 0xff);
			argv[1] = i % 4 ? "m2" : "m1";
		} else {
			elem_text(type, i, el, sizeof(el));
		}
		if (set_cmd_line(t, 3, argv, NULL, 0, 0, stdout, err, sizeof(err)) &&
		    !strstr(err, "already added")) {
			fprintf(stderr, "bench_set: add %s: %s\n", el, err);
			exit(1);
		}
	}
	for (unsigned i = 0; i < NPKT; i++) {
		unsigned k = (unsigned)(((uint64_t)i * 2654435761u) % n);

		pk[i] = key_pkt(type, k);
		iface[i] = k % 4 == 0 ? "wan0" : k % 4 == 1 ? "wan1" : k % 4 == 2 ? "wan2" : "wan3";
	}
	if (!strcmp(type, "hash:net,iface"))
		mo.dirs = 0; /* dst, dst: the out interface */
	t0 = now_s();
	do {
		for (unsigned i = 0; i < NPKT; i++) {
			struct set_pkt sp = {pk[i], AF_INET, "lan0", iface[i], 0, 40};

			hits += set_match_pkt(t, id, &sp, &mo);
		}
		lookups += NPKT;
		t1 = now_s();
	} while (t1 - t0 < seconds);
	printf("%-18s %9u %8.1f ns %6.2f\n", type, n, (t1 - t0) * 1e9 / (double)lookups,
	       (double)hits / (double)lookups);
	for (unsigned i = 0; i < NPKT; i++)
		pkt_free(pk[i]);
	set_table_free(t);
}

static void bench_memory(unsigned m)
{
	static const uint64_t key[2] = {3, 4};
	struct set_table *t = set_table_new(key);
	long before = rss_kb(), after;
	char line[64];
	struct set_key k;
	struct set_elem_opts o = {0};
	struct set *s;
	double t0 = now_s(), t1;

	snprintf(line, sizeof(line), "create big hash:ip maxelem %u", m);
	cmd(t, line);
	s = set_get(t, set_find(t, "big"));
	memset(&k, 0, sizeof(k));
	for (unsigned i = 0; i < m; i++) {
		k.ip[0].w[0] = htonl(0x0a000000u + i);
		if (set_add(t, s, &k, &o, 0, 0)) {
			fprintf(stderr, "bench_set: add %u failed\n", i);
			exit(1);
		}
	}
	t1 = now_s();
	after = rss_kb();
	printf("hash:ip %u elements: set_memsize %.1f MiB (%.1f bytes/element), resident +%.1f "
	       "MiB, hashsize %u, filled in %.2f s (%.0f ns/add)\n",
	       m, (double)set_memsize(s) / 1048576.0, (double)set_memsize(s) / m,
	       (double)(after - before) / 1024.0, set_params(s)->hashsize, t1 - t0,
	       (t1 - t0) * 1e9 / m);
	set_table_free(t);
}

int main(int argc, char **argv)
{
	static const char *const types[] = {
	    "hash:ip",	       "hash:net",	   "hash:ip,port",   "hash:net,port",
	    "hash:ip,port,ip", "hash:ip,port,net", "hash:net,iface", "bitmap:ip",
	    "bitmap:port",     "list:set",
	};
	unsigned n = 100000, m = 1000000;
	double seconds = 0.5;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--elements"))
			n = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--memory"))
			m = (unsigned)strtoul(argv[i + 1], NULL, 10);
	}
	printf("%-18s %9s %11s %6s\n", "type", "elements", "lookup", "hits");
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		bench_type(types[i], n, seconds);
	bench_memory(m);
	return 0;
}
