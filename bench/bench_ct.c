// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_ct [--flows N] [--rounds R]: conntrack cost, measured once (a ratio machine, not a
 * lab): new connections per second (ct_in + ct_confirm + release of a first packet), the
 * lookup+update cost per packet of known UDP and TCP flows, and entries per GB
 * (sizeof the entry + its share of the bucket array; malloc's own overhead not counted).
 * Output: "name value unit" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ct/ct.h"
#include "bench_common.h"
#include "pkt/build.h"

static void feed(struct ct_table *t, struct pkt *p, uint64_t now)
{
	ct_in(t, p, false, 0, now);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	p->ct = NULL;
	p->ctinfo = 0;
}

int main(int argc, char **argv)
{
	unsigned flows = 10000, rounds = 50;
	struct pkt **out, **in, **tcp;
	struct ct_config c;
	struct ct_table *t;
	char txt[160];
	double t0, t1;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--flows"))
			flows = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = (unsigned)atoi(argv[i + 1]);
	}
	out = calloc(flows, sizeof(*out));
	in = calloc(flows, sizeof(*in));
	tcp = calloc(flows, sizeof(*tcp));
	for (unsigned i = 0; i < flows; i++) {
		snprintf(txt, sizeof(txt), "udp 10.%u.%u.%u:%u > 192.0.2.1:53 len=32",
			 i >> 16 & 255, i >> 8 & 255, i & 255, 1024 + i % 60000);
		out[i] = bench_spec_packet(txt);
		snprintf(txt, sizeof(txt), "udp 192.0.2.1:53 > 10.%u.%u.%u:%u len=32",
			 i >> 16 & 255, i >> 8 & 255, i & 255, 1024 + i % 60000);
		in[i] = bench_spec_packet(txt);
		snprintf(txt, sizeof(txt),
			 "tcp 10.%u.%u.%u:%u > 192.0.2.1:80 ack seq=1 ack=1 win=500", i >> 16 & 255,
			 i >> 8 & 255, i & 255, 1024 + i % 60000);
		tcp[i] = bench_spec_packet(txt);
	}
	ct_config_default(&c);
	c.max_entries = 4 * flows;
	t = ct_table_new(&c);

	t0 = bench_now_s();
	for (unsigned i = 0; i < flows; i++)
		feed(t, out[i], 0);
	t1 = bench_now_s();
	printf("new_connections_per_s %.0f conn/s\n", flows / (t1 - t0));
	for (unsigned i = 0; i < flows; i++)
		feed(t, in[i], 1);
	t0 = bench_now_s();
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < flows; i++)
			feed(t, (r & 1) ? in[i] : out[i], 2 + r);
	t1 = bench_now_s();
	printf("udp_lookup_update_ns %.1f ns/packet\n", (t1 - t0) * 1e9 / ((double)rounds * flows));
	for (unsigned i = 0; i < flows; i++)
		feed(t, tcp[i], 100); /* loose pickup */
	t0 = bench_now_s();
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < flows; i++)
			feed(t, tcp[i], 101 + r);
	t1 = bench_now_s();
	printf("tcp_lookup_update_ns %.1f ns/packet\n", (t1 - t0) * 1e9 / ((double)rounds * flows));
	{
		/* buckets: max_entries / 2 rounded up to a power of two, one pointer each */
		uint64_t b = 16;

		while (b < c.max_entries / 2)
			b <<= 1;
		printf("entry_bytes %zu bytes\n", ct_entry_size());
		printf("entries_per_gb %.0f entries\n",
		       1e9 /
			   ((double)ct_entry_size() + (double)b * sizeof(void *) / c.max_entries));
	}
	printf("table_count %u entries\n", ct_table_stats(t)->count);
	ct_table_free(t);
	for (unsigned i = 0; i < flows; i++) {
		pkt_free(out[i]);
		pkt_free(in[i]);
		pkt_free(tcp[i]);
	}
	free(out);
	free(in);
	free(tcp);
	return 0;
}
