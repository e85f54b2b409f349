// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_string: pattern search speed (src/textsearch) and the cost of -m string rules.
 *
 *   bench_string scan [--seconds S | --packets SCANS] [--only NAME]
 *       one row per algorithm and payload size: NAME BYTES NS_PER_SCAN GBYTES_PER_S
 *       ts-bm-64, ts-kmp-64, ts-bm-1500, ts-kmp-1500, -icase variants, -seg3 (the 1500 bytes
 *       as three segments of a packet), multi-ac-100 / multi-hs-100 (100 patterns at once)
 *       The text is random printable ASCII, the 8-byte patterns never occur in it, so every
 *       search reads the whole text (the worst case for a search that finds nothing).
 *
 *   bench_string chain N [--separate] [--seconds S | --packets P]
 *       N (0..) string rules in FORWARD, none matching, then 1500-byte UDP frames forwarded
 *       through the box: CONFIG PACKETS NS_PER_PACKET MPPS. --separate loads the rules with
 *       RULES_PARSE_SEPARATE (each rule searches alone) instead of one pass for the chain.
 *
 * One core, no threads; times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a busy
 * machine's other programs do not count, and --seconds is CPU seconds. Figures and commands:
 * docs/textsearch.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "textsearch/multi.h"
#include "textsearch/pkt_source.h"
#include "textsearch/textsearch.h"

static uint64_t rng = 0x853c49e6748fea9bull;

/* CPU time of this thread: on a shared, loaded machine the wall clock counts other programs'
 * turns; what one core spends is what the GB/s and ns figures are about. */
static double cpu_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void printable(uint8_t *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		t[i] = (uint8_t)(0x20 + rnd(95));
}

/* A random 8-byte word of printable characters: every byte of it is common in the text, so
 * KMP's skip to the first byte stops about every 95 bytes, yet the whole word occurring in
 * 1500 random bytes has a chance of about 1500 / 95^8 (and the scan rows check it does not). */
static void word(uint8_t w[8])
{
	printable(w, 8);
}

struct scan_ctx {
	const struct ts_config *conf;
	struct ts_multi *multi;
	const uint8_t *text;
	uint32_t len;
	const struct pkt *p; /* segmented variant */
};

static int count_hit(void *arg, unsigned id, uint32_t end)
{
	(*(uint64_t *)arg)++;
	return 0;
}

static uint64_t scan_once(const struct scan_ctx *c)
{
	struct ts_flat f = {c->text, c->len};
	struct ts_pkt_range r;
	struct ts_source src = c->p ? ts_pkt_source(&r, c->p, 0, c->len) : ts_flat_source(&f);
	struct ts_state st;
	uint64_t hits = 0;

	if (c->multi) {
		ts_multi_scan(c->multi, &src, count_hit, &hits);
		return hits;
	}
	return ts_find(c->conf, &st, &src);
}

struct scan_opts {
	double seconds;
	uint64_t count;	  /* exactly this many scans (callgrind), 0: for `seconds` */
	const char *only; /* one row by name, NULL: all */
};

static void scan_row(const char *name, const struct scan_ctx *c, const struct scan_opts *o)
{
	uint64_t n = 0, sink = 0;
	double t0 = cpu_now_s(), t;

	if (o->only && strcmp(o->only, name))
		return;
	do {
		for (unsigned k = 0; k < 1024; k++)
			sink += scan_once(c);
		n += 1024;
		t = cpu_now_s() - t0;
	} while (o->count ? n < o->count : t < o->seconds);
	printf("%-22s %6u %10.1f %8.2f%s\n", name, c->len, t * 1e9 / (double)n,
	       (double)n * c->len / t / 1e9,
	       c->multi ? (sink ? " (found?)" : "")
			: (sink == (uint64_t)n * TS_NOMATCH ? "" : " (found?)"));
}

static int run_scan(const struct scan_opts *o)
{
	static const char *const algos[] = {"bm", "kmp"};
	static const uint32_t sizes[] = {64, 1500};
	uint8_t text[1500], pat[8];
	struct ts_multi_pattern mp[100];
	uint8_t words[100][8];
	char name[64];

	printable(text, sizeof(text));
	word(pat);
	for (unsigned a = 0; a < 2; a++)
		for (unsigned icase = 0; icase < 2; icase++)
			for (unsigned s = 0; s < 2; s++) {
				struct scan_ctx c = {.text = text, .len = sizes[s]};
				struct ts_config *conf;

				if (ts_prepare(algos[a], pat, 8, icase ? TS_IGNORECASE : 0, &conf))
					return 1;
				c.conf = conf;
				snprintf(name, sizeof(name), "ts-%s-%u%s", algos[a], sizes[s],
					 icase ? "-icase" : "");
				scan_row(name, &c, o);
				if (sizes[s] == 1500 && !icase) {
					uint32_t cuts[2] = {500, 1000};
					struct pkt *p = pkt_from_bytes_cuts(text, 1500, cuts, 2);

					c.p = p;
					snprintf(name, sizeof(name), "ts-%s-1500-seg3", algos[a]);
					scan_row(name, &c, o);
					pkt_free(p);
				}
				ts_destroy(conf);
			}
	for (unsigned i = 0; i < 100; i++) {
		word(words[i]);
		mp[i] = (struct ts_multi_pattern){words[i], 8, 0};
	}
	for (unsigned e = 0; e < 2; e++) {
		enum ts_multi_engine eng = e ? TS_MULTI_HS : TS_MULTI_AC;
		struct scan_ctx c = {.text = text, .len = 1500};

		if (ts_multi_build(mp, 100, eng, &c.multi)) {
			printf("multi-%s-100: not available in this build\n", e ? "hs" : "ac");
			continue;
		}
		snprintf(name, sizeof(name), "multi-%s-100", ts_multi_engine_name(c.multi));
		scan_row(name, &c, o);
		ts_multi_free(c.multi);
	}
	return 0;
}

static const struct box_ops chain_ops = {
    .xmit = bench_set_xmit,
    .deliver = bench_set_deliver,
    .dropped = bench_set_dropped,
};

static int run_chain(unsigned nrules, bool separate, double seconds, uint64_t packets)
{
	enum { NPKT = 64 };
	size_t cap = 256 + (size_t)nrules * 96;
	char *text = malloc(cap);
	struct rules_ruleset *rs = NULL;
	struct rules_error err;
	struct bench_set set;
	struct pkt_spec *spec = calloc(1, sizeof(*spec));
	struct box *b;
	size_t n;
	uint64_t sent = 0;
	double t0, t;

	if (!text || !spec || bench_set_init(&set, NPKT))
		return 1;
	n = (size_t)snprintf(text, cap,
			     "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
			     ""
			     ":OUTPUT ACCEPT [0:0]\n");
	for (unsigned i = 0; i < nrules; i++) {
		uint8_t w[8];

		/* lower-case letters only: the payload below has none, so no rule matches */
		for (unsigned k = 0; k < 8; k++)
			w[k] = (uint8_t)('a' + rnd(26));
		n += (size_t)snprintf(
		    text + n, cap - n,
		    "-A FORWARD -p udp -m string --string %.8s --algo %s -j DROP\n",
		    (const char *)w, i % 2 ? "kmp" : "bm");
	}
	n += (size_t)snprintf(text + n, cap - n, "COMMIT\n");
	if (rules_parse_buffer(text, n, "bench", AF_INET, ext_registry_default(), NULL,
			       separate ? RULES_PARSE_SEPARATE : 0, &rs, &err)) {
		rules_error_print(&err, stderr);
		return 1;
	}
	b = box_new("bench", &chain_ops, &set);
	if (!b || box_setup_default_gateway(b))
		return 1;
	box_set_ruleset(b, rs, AF_INET);
	for (unsigned i = 0; i < NPKT; i++) {
		struct pkt *p;

		pkt_spec_init(spec);
		spec->eth = true;
		spec->family = AF_INET;
		spec->src.w[0] = htonl(0x0a000002u + i);
		spec->dst.w[0] = htonl(0xc0000201u);
		spec->proto = 17;
		spec->sport = (uint16_t)(1024 + i);
		spec->dport = 9;
		spec->ttl = 255;
		spec->payload_len = 1500 - 14 - 20 - 8;
		/* printable ASCII without lower-case letters: no rule's word occurs */
		for (uint32_t k = 0; k < spec->payload_len; k++) {
			uint8_t c = (uint8_t)(0x20 + rnd(95));

			spec->payload_buf[k] = c >= 'a' && c <= 'z' ? (uint8_t)(c - 32) : c;
		}
		p = pkt_build(spec);
		if (!p)
			return 1;
		bench_set_put(&set, i, p);
	}
	/* warm up, then measure */
	for (unsigned i = 0; i < NPKT; i++)
		if (!bench_set_send(&set, b, 1, i))
			return fprintf(stderr, "bench_string: a packet was not forwarded\n"), 1;
	t0 = cpu_now_s();
	do {
		unsigned batch = packets && packets - sent < 256 ? (unsigned)(packets - sent) : 256;

		for (unsigned k = 0; k < batch; k++)
			bench_set_send(&set, b, 1, (unsigned)(sent + k) % NPKT);
		sent += batch;
		t = cpu_now_s() - t0;
	} while (packets ? sent < packets : t < seconds);
	if (set.other)
		return fprintf(stderr, "bench_string: %llu packets dropped\n",
			       (unsigned long long)set.other),
		       1;
	printf("string-rules%u%s %llu %.1f %.3f\n", nrules, separate ? "-separate" : "",
	       (unsigned long long)sent, t * 1e9 / (double)sent, (double)sent / t / 1e6);
	box_free(b);
	bench_set_free(&set);
	free(spec);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 1;
	uint64_t packets = 0;
	bool separate = false;
	const char *only = NULL;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--packets") && i + 1 < argc)
			packets = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--separate"))
			separate = true;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
	}
	if (argc >= 2 && !strcmp(argv[1], "scan")) {
		struct scan_opts o = {.seconds = seconds, .count = packets, .only = only};

		return run_scan(&o);
	}
	if (argc >= 3 && !strcmp(argv[1], "chain"))
		return run_chain((unsigned)atoi(argv[2]), separate, seconds, packets);
	fprintf(stderr, "usage: bench_string scan [--seconds S | --packets SCANS] [--only NAME]\n"
			"       bench_string chain N [--separate] [--seconds S | --packets P]\n");
	return 2;
}
