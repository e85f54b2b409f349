/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * In-memory replay benchmark: a generated mix (64- and 1500-byte frames, 10k flows, TCP and
 * UDP, IPv4 and IPv6) forwarded by the default gateway box through one configuration:
 *
 *   none      no ruleset at all (the baseline)
 *   empty     raw, mangle and filter present, no rules, policies ACCEPT
 *   rulesN    a firewall-like filter FORWARD chain of N rules the traffic does not match
 *             (addresses, ports, interfaces, multiport, icmp types), then the ACCEPT policy,
 *             with the box's default classifier (auto: chains of 32 rules or more compiled)
 *   rulesN-linear  the same scanned rule by rule: the cost of linear traversal the 2004
 *             workshop measured
 *
 * Usage: bench_engine CONFIG [--packets N] [--seconds S]
 * Prints: CONFIG PACKETS NS_PER_PACKET MPPS
 *
 * Packets are built once and reused: the box hands each forwarded packet back through
 * ops.xmit, so the loop measures the engine, not malloc. TTL starts at 255 and a packet is
 * reused at most 250 times.
 */
#include "bench_common.h"
#include "classify/ruleset.h"

#define FLOWS 10000
#define MAX_REUSE 250

struct pool {
	struct pkt **pkts;
	unsigned n, head, tail; /* ring of packets ready to send */
	uint64_t xmit, other;
};

static void bench_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct pool *pl = user;

	(void)b;
	(void)oif;
	pl->xmit++;
	pl->pkts[pl->tail++ % pl->n] = p;
}

static void bench_deliver(void *user, struct box *b, struct pkt *p)
{
	struct pool *pl = user;

	(void)b;
	pl->other++;
	pkt_free(p);
}

static void bench_dropped(void *user, struct box *b, const struct pkt *p,
			  const struct box_drop *why)
{
	struct pool *pl = user;

	(void)b;
	(void)p;
	(void)why;
	pl->other++;
}

static const struct box_ops bench_ops = {
	.xmit = bench_xmit,
	.deliver = bench_deliver,
	.dropped = bench_dropped,
};

/* Rule i of a FORWARD chain whose rules never match the generated traffic. */
static int rule4(char *buf, size_t len, unsigned i)
{
	unsigned a = i & 0xff, b = (i >> 8) & 0xff;

	switch (i % 6) {
	case 0: /* another subnet's host to a server port */
		return snprintf(buf, len,
				"-A FORWARD -s 172.16.%u.%u/32 -d 192.0.2.%u/32 -p tcp -m tcp "
				"--dport %u -j ACCEPT\n",
				b, a, a, 1000 + i % 5000);
	case 1: /* inside hosts, but a port the traffic never uses */
		return snprintf(buf, len, "-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --dport %u -j DROP\n",
				2000 + i % 20000);
	case 2: /* inbound from the wan side */
		return snprintf(buf, len,
				"-A FORWARD -i wan0 -o lan0 -p udp -m udp --dport %u -j ACCEPT\n",
				3000 + i % 20000);
	case 3: /* a set of ports */
		return snprintf(buf, len,
				"-A FORWARD -p tcp -m multiport --dports %u,%u,%u:%u -j REJECT "
				"--reject-with tcp-reset\n",
				5000 + a, 6000 + a, 7000 + a, 7010 + a);
	case 4: /* icmp */
		return snprintf(buf, len,
				"-A FORWARD -d 198.51.100.%u/32 -p icmp -m icmp --icmp-type 8 -j ACCEPT\n",
				a);
	default: /* a destination network */
		return snprintf(buf, len, "-A FORWARD -d 100.%u.%u.0/24 -j DROP\n", 64 + b % 64, a);
	}
}

/* The IPv6 counterpart: the same shape with v6 addresses (the same code path runs it). */
static int rule6(char *buf, size_t len, unsigned i)
{
	switch (i % 3) {
	case 0:
		return snprintf(buf, len, "-A FORWARD -s fd01::%x/128 -p tcp -m tcp --dport %u -j ACCEPT\n",
				i, 1000 + i % 5000);
	case 1:
		return snprintf(buf, len, "-A FORWARD -s fd00::/64 -p tcp -m tcp --dport %u -j DROP\n",
				2000 + i % 20000);
	default:
		return snprintf(buf, len, "-A FORWARD -d 2001:db8:ffff:%x::/64 -j DROP\n", i);
	}
}

/* raw, mangle and filter with ACCEPT policies, and n rules from `rule` in filter FORWARD. */
static char *make_ruleset(unsigned n, int (*rule)(char *, size_t, unsigned))
{
	size_t cap = 1024 + (size_t)n * 160, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
#define OUT(...) (len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__))
	OUT("*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n");
	OUT("*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	    ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n");
	OUT("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n");
	for (unsigned i = 0; i < n && len < cap; i++)
		len += (size_t)rule(buf + len, cap - len, i);
	OUT("COMMIT\n");
#undef OUT
	if (len >= cap) { /* the size estimate above was wrong: fail rather than truncate */
		free(buf);
		return NULL;
	}
	return buf;
}

int main(int argc, char **argv)
{
	const char *config;
	uint64_t max_packets = 0;
	double seconds = 1.0;
	unsigned nrules = 0;
	bool with_rules, linear;
	struct pool pl = { 0 };
	struct box *b;
	int lan;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_engine none|empty|rulesN[-linear] [--packets N] "
				"[--seconds S]\n");
		return 2;
	}
	config = argv[1];
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--packets"))
			max_packets = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
	}
	with_rules = strcmp(config, "none") != 0;
	/* rulesN: the box's default classifier (auto: compiled); rulesN-linear: the scan */
	linear = strstr(config, "-linear") != NULL;
	if (!strncmp(config, "rules", 5))
		nrules = (unsigned)strtoul(config + 5, NULL, 10);
	else if (with_rules && strcmp(config, "empty")) {
		fprintf(stderr, "bench_engine: unknown configuration '%s'\n", config);
		return 2;
	}

	b = box_new("bench", &bench_ops, &pl);
	if (b && linear)
		box_set_classifier(b, CLS_MODE_LINEAR, NULL);
	if (!b || box_setup_default_gateway(b)) {
		fprintf(stderr, "bench_engine: cannot set up the box\n");
		return 1;
	}
	if (with_rules) {
		char *r4 = make_ruleset(nrules, rule4), *r6 = make_ruleset(nrules, rule6);

		if (!r4 || !r6 || bench_load_rules(b, r4, AF_INET) ||
		    bench_load_rules(b, r6, AF_INET6))
			return 1;
		free(r4);
		free(r6);
	}
	lan = box_iface_index(b, "lan0");

	pl.n = FLOWS * 2; /* room for every packet: the ring never overflows */
	pl.pkts = calloc(pl.n, sizeof(*pl.pkts));
	if (!pl.pkts)
		return 1;
	for (unsigned i = 0; i < FLOWS; i++) {
		pl.pkts[pl.tail++] = bench_flow_packet(i);
		if (!pl.pkts[i]) {
			fprintf(stderr, "bench_engine: pkt_build failed for flow %u\n", i);
			return 1;
		}
	}

	uint64_t limit = max_packets ? max_packets : (uint64_t)FLOWS * MAX_REUSE;
	uint64_t sent = 0;
	double t0 = bench_now_s(), t1 = t0;

	while (sent < limit && pl.head != pl.tail) {
		struct pkt *p = pl.pkts[pl.head++ % pl.n];

		box_receive(b, lan, p);
		sent++;
		if (!max_packets && (sent & 1023) == 0) {
			t1 = bench_now_s();
			if (t1 - t0 >= seconds)
				break;
		}
	}
	t1 = bench_now_s();
	if (pl.xmit != sent) {
		fprintf(stderr, "bench_engine: %s: %llu of %llu packets were not forwarded\n",
			config, (unsigned long long)(sent - pl.xmit), (unsigned long long)sent);
		return 1;
	}
	printf("%s %llu %.1f %.3f\n", config, (unsigned long long)sent, (t1 - t0) * 1e9 / sent,
	       sent / (t1 - t0) / 1e6);

	while (pl.head != pl.tail)
		pkt_free(pl.pkts[pl.head++ % pl.n]);
	free(pl.pkts);
	box_free(b);
	return 0;
}
