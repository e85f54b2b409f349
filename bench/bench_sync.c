// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_sync: what state replication costs, measured once (ratios within one run count).
 *
 *   short     --conns N short TCP connections (SYN, SYN-ACK, ACK, FIN-ACK, FIN-ACK, ACK, then
 *             TIME_WAIT runs out) through a conntrack table with sync (FTFW) to a peer sync
 *             instance in the same process: sync datagrams and bytes per connection, sent by
 *             the box and by the peer (its ACKs). The box's sync runs after every packet
 *             (a lone connection: nothing to pack together), the worst case for bytes.
 *   rate      the same connections, timed, with sync off and on (sync runs after every 256
 *             packets, as the live loop does after a batch): connections per second, ratio.
 *   latency   two sync instances on real UDP sockets over loopback, one thread: from the
 *             creation of a connection on A (conntrack -I style) to its presence in B's
 *             external cache, --samples times: p50, p99, max in microseconds.
 *   bulk      --bulk N connections in A's table; B asks for a RESYNC; time until all N are
 *             in B's external cache (datagrams handed over in memory, no socket).
 *
 * Usage: bench_sync [--conns N] [--samples N] [--bulk N] [--only rate-off|rate-on]
 * Output: "name value unit" lines.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "ct/create.h"
#include "ct/ct.h"
#include "bench_common.h"
#include "pkt/build.h"
#include "sync/sync.h"

#define SEC 1000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static void feed(struct ct_table *t, struct pkt *p, uint64_t now)
{
	ct_in(t, p, false, 0, now);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	p->ct = NULL;
	p->ctinfo = 0;
}

static struct ct_table *table(unsigned max)
{
	struct ct_config c;
	struct ct_table *t;

	ct_config_default(&c);
	c.max_entries = max;
	c.checksum = false;
	c.seed[0] = 1;
	if (!(t = ct_table_new(&c)))
		exit(1);
	return t;
}

/* ---- an in-memory link: datagrams queued, handed to the peer by pump() ------------------
 * (never from inside send: the sender is in the middle of its own transmit) */

struct mem_dgram {
	struct mem_dgram *next;
	size_t len;
	uint8_t d[];
};

struct mem_side {
	struct sync *peer;
	uint64_t *now;
	uint64_t dgrams, bytes;
	struct mem_dgram *head, **tail;
};

static int mem_send(void *priv, const void *buf, size_t len)
{
	struct mem_side *m = priv;
	struct mem_dgram *g;

	m->dgrams++;
	m->bytes += len;
	if (!m->peer)
		return 0;
	if (!(g = malloc(sizeof(*g) + len)))
		return -ENOMEM;
	g->next = NULL;
	g->len = len;
	memcpy(g->d, buf, len);
	if (!m->tail)
		m->tail = &m->head;
	*m->tail = g;
	m->tail = &g->next;
	return 0;
}

/* Deliver what both sides sent, and what that made them send, until both are quiet. */
static void pump(struct mem_side *a, struct mem_side *b)
{
	for (int moved = 1; moved;) {
		moved = 0;
		for (int k = 0; k < 2; k++) {
			struct mem_side *m = k ? b : a;
			struct mem_dgram *g = m->head;

			m->head = NULL;
			m->tail = &m->head;
			while (g) {
				struct mem_dgram *next = g->next;

				sync_receive(m->peer, g->d, g->len, *m->now);
				free(g);
				g = next;
				moved = 1;
			}
		}
	}
}

static const struct sync_ops mem_ops = {.send = mem_send};

#define PKTS 6

static struct pkt **short_conns(unsigned n)
{
	struct pkt **v = malloc(sizeof(*v) * n * PKTS);
	char t[200];

	if (!v)
		exit(1);
	for (unsigned i = 0; i < n; i++) {
		unsigned a = 1 + i / 50000, port = 1024 + i % 50000;
		const char *f[PKTS] = {"syn seq=1000 win=64240",
				       "syn,ack seq=5000 ack=1001 win=65160",
				       "ack seq=1001 ack=5001 win=502",
				       "fin,ack seq=1001 ack=5001 win=502",
				       "fin,ack seq=5001 ack=1002 win=509",
				       "ack seq=1002 ack=5002 win=502"};

		for (int k = 0; k < PKTS; k++) {
			bool in = k == 1 || k == 4;

			if (in)
				snprintf(t, sizeof(t), "tcp 192.0.2.1:80 > 10.0.%u.%u:%u %s",
					 a / 256, a % 256, port, f[k]);
			else
				snprintf(t, sizeof(t), "tcp 10.0.%u.%u:%u > 192.0.2.1:80 %s",
					 a / 256, a % 256, port, f[k]);
			v[i * PKTS + k] = bench_spec_packet(t);
		}
	}
	return v;
}

/* hold, hold_upd: sync_config's tx_hold and tx_hold_update (UINT64_MAX: the default) */
static void bench_short(unsigned n, struct pkt **pk, const char *name, uint64_t hold_new,
			uint64_t hold)
{
	struct ct_table *ta = table(n * 2), *tb = table(n * 2);
	struct sync_config sc;
	uint64_t now = 1700000000ull * SEC;
	struct mem_side sa = {.now = &now}, sb = {.now = &now};
	struct sync *a, *b;
	uint64_t msgs0;

	sync_config_default(&sc);
	if (hold_new != UINT64_MAX)
		sc.tx_hold = hold_new;
	if (hold != UINT64_MAX)
		sc.tx_hold_update = hold;
	hold = sc.tx_hold_update == SYNC_TX_HOLD_AUTO ? 500000 : sc.tx_hold_update;
	if (hold < sc.tx_hold)
		hold = sc.tx_hold;
	a = sync_new(&sc, ta, NULL, &mem_ops, &sa, now);
	b = sync_new(&sc, tb, NULL, &mem_ops, &sb, now);
	sa.peer = b;
	sb.peer = a;
	for (int i = 0; i < 3000; i++) { /* handshake, then counting starts */
		now += 1000000;
		sync_tick(a, now);
		sync_tick(b, now);
		pump(&sa, &sb);
	}
	sa.dgrams = sa.bytes = sb.dgrams = sb.bytes = 0;
	msgs0 = sync_stats(a)->tx_msgs;
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < PKTS; k++) {
			now += 10000; /* 10 us apart */
			feed(ta, pk[i * PKTS + k], now);
			sync_tick(a, now);
			sync_tick(b, now);
			pump(&sa, &sb);
		}
	}
	now += 121 * SEC; /* TIME_WAIT runs out: the DESTROY events */
	while (ct_sweep(ta, now, 1u << 20))
		;
	for (int i = 0; i < 2; i++) {
		now += hold + 1000000;
		sync_tick(a, now);
		sync_tick(b, now);
		pump(&sa, &sb);
	}
	printf("short_%s_conns %u conns\n", name, n);
	printf("short_%s_msgs_per_conn %.2f messages\n", name,
	       (double)(sync_stats(a)->tx_msgs - msgs0) / n);
	printf("short_%s_dgrams_per_conn %.2f datagrams\n", name, (double)sa.dgrams / n);
	printf("short_%s_bytes_per_conn %.1f bytes_udp_payload\n", name, (double)sa.bytes / n);
	printf("short_%s_bytes_per_conn_wire %.1f bytes_with_eth_ip_udp_headers\n", name,
	       (double)(sa.bytes + sa.dgrams * (20 + 8 + 14)) / n);
	printf("short_%s_peer_bytes_per_conn %.1f bytes_udp_payload\n", name, (double)sb.bytes / n);
	printf("short_%s_external_left %u entries\n", name, sync_stats(b)->ext_count);
	sync_free(a);
	sync_free(b);
	ct_table_free(ta);
	ct_table_free(tb);
}

static double run_rate(unsigned n, struct pkt **pk, bool with_sync)
{
	struct ct_table *ta = table(n * 2);
	struct sync_config sc;
	uint64_t now = 1700000000ull * SEC, t0, t1;
	struct mem_side sa = {.now = &now};
	struct sync *a = NULL;
	unsigned batch = 0;

	sync_config_default(&sc);
	sc.resend_max = 1u << 20;
	if (with_sync)
		a = sync_new(&sc, ta, NULL, &mem_ops, &sa, now);
	t0 = mono_ns();
	for (unsigned i = 0; i < n; i++) {
		for (int k = 0; k < PKTS; k++) {
			now += 1000;
			feed(ta, pk[i * PKTS + k], now);
			if (a && ++batch == 256) {
				sync_tick(a, now);
				batch = 0;
			}
		}
	}
	if (a)
		sync_tick(a, now);
	t1 = mono_ns();
	sync_free(a);
	ct_table_free(ta);
	return (double)n / ((double)(t1 - t0) / 1e9);
}

/* ---- latency over loopback --------------------------------------------------------------- */

struct udp_side {
	int fd;
	struct sockaddr_in to;
};

static int udp_send(void *priv, const void *buf, size_t len)
{
	struct udp_side *u = priv;

	return sendto(u->fd, buf, len, 0, (struct sockaddr *)&u->to, sizeof(u->to)) < 0 ? -errno
											: 0;
}

static const struct sync_ops udp_ops = {.send = udp_send};

static int udp_open(uint16_t port, uint16_t peer, struct udp_side *u)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (u->fd < 0 || bind(u->fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	u->to = a;
	u->to.sin_port = htons(peer);
	return 0;
}

static void drain(struct udp_side *u, struct sync *s)
{
	uint8_t buf[65536];
	ssize_t n;

	while ((n = recv(u->fd, buf, sizeof(buf), 0)) > 0)
		sync_receive(s, buf, (size_t)n, mono_ns());
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static void bench_latency(unsigned samples)
{
	struct ct_table *ta = table(samples * 2 + 16), *tb = table(16);
	struct udp_side ua, ub;
	struct sync_config sc;
	struct sync *a, *b;
	uint64_t *lat = malloc(sizeof(*lat) * samples), t0;
	uint16_t pa = (uint16_t)(20000 + getpid() % 20000), pb = (uint16_t)(pa + 1);

	if (!lat || udp_open(pa, pb, &ua) < 0 || udp_open(pb, pa, &ub) < 0) {
		printf("latency_skipped 1 no_loopback_udp\n");
		free(lat);
		return;
	}
	sync_config_default(&sc);
	a = sync_new(&sc, ta, NULL, &udp_ops, &ua, mono_ns());
	b = sync_new(&sc, tb, NULL, &udp_ops, &ub, mono_ns());
	/* the handshake: ALIVE|HELLO each way at 1 s, HELLO_BACK right after */
	t0 = mono_ns();
	while (mono_ns() - t0 < 1300000000ull) {
		struct pollfd p[2] = {{.fd = ua.fd, .events = POLLIN},
				      {.fd = ub.fd, .events = POLLIN}};

		poll(p, 2, 10);
		drain(&ua, a);
		drain(&ub, b);
		sync_tick(a, mono_ns());
		sync_tick(b, mono_ns());
	}
	for (unsigned i = 0; i < samples; i++) {
		struct ct_entry_attrs at;
		uint64_t start, until;

		memset(&at, 0, sizeof(at));
		ct_tuple_zero(&at.orig);
		at.orig.family = AF_INET;
		pt_addr_parse("10.1.0.1", &at.orig.src);
		pt_addr_parse("10.2.0.1", &at.orig.dst);
		at.orig.l4proto = 17;
		at.orig.s.port = (uint16_t)(1024 + i % 60000);
		at.orig.src.b[2] = (uint8_t)(i / 60000);
		at.orig.d.port = 53;
		at.have = CT_ATTR_TIMEOUT;
		at.timeout = 600 * SEC;
		start = mono_ns();
		ct_entry_create(ta, &at, start, NULL);
		sync_tick(a, mono_ns()); /* the live loop's step after a batch */
		until = start + SEC;
		while (!sync_external_find(b, &at.orig) && mono_ns() < until) {
			struct pollfd p = {.fd = ub.fd, .events = POLLIN};

			poll(&p, 1, 1);
			drain(&ub, b);
		}
		lat[i] = mono_ns() - start;
		drain(&ua, a); /* its ACKs */
	}
	qsort(lat, samples, sizeof(*lat), cmp_u64);
	printf("latency_samples %u connections\n", samples);
	printf("latency_p50 %.1f us\n", lat[samples / 2] / 1e3);
	printf("latency_p99 %.1f us\n", lat[samples * 99 / 100] / 1e3);
	printf("latency_max %.1f us\n", lat[samples - 1] / 1e3);
	sync_free(a);
	sync_free(b);
	ct_table_free(ta);
	ct_table_free(tb);
	close(ua.fd);
	close(ub.fd);
	free(lat);
}

static void bench_bulk(unsigned n)
{
	struct ct_table *ta = table(n + 16), *tb = table(16);
	struct sync_config sc;
	uint64_t now = 1700000000ull * SEC, t0, t1;
	struct mem_side sa = {.now = &now}, sb = {.now = &now};
	struct sync *a, *b;
	struct ct_entry_attrs at;

	memset(&at, 0, sizeof(at));
	ct_tuple_zero(&at.orig);
	at.orig.family = AF_INET;
	at.orig.l4proto = 6;
	at.orig.d.port = 443;
	pt_addr_parse("192.0.2.80", &at.orig.dst);
	at.have = CT_ATTR_TIMEOUT | CT_ATTR_PROTO_STATE | CT_ATTR_STATUS;
	at.timeout = 3600 * SEC;
	at.proto_state = 3;
	at.status = 6;
	for (unsigned i = 0; i < n; i++) {
		at.orig.src.b[0] = 10;
		at.orig.src.b[1] = (uint8_t)(i >> 16);
		at.orig.src.b[2] = (uint8_t)(i >> 8);
		at.orig.src.b[3] = (uint8_t)i;
		at.orig.s.port = (uint16_t)(1024 + (i >> 24));
		if (ct_entry_create(ta, &at, now, NULL) < 0)
			exit(1);
	}
	sync_config_default(&sc);
	sc.external_max = n + 16;
	sc.resend_max = n + 16;
	sc.tx_max = 1u << 20;
	a = sync_new(&sc, ta, NULL, &mem_ops, &sa, now);
	b = sync_new(&sc, tb, NULL, &mem_ops, &sb, now);
	sa.peer = b;
	sb.peer = a;
	for (int i = 0; i < 3000; i++) {
		now += 1000000;
		sync_tick(a, now);
		sync_tick(b, now);
		pump(&sa, &sb);
	}
	t0 = mono_ns();
	sync_request_resync(b, now);
	pump(&sa, &sb);
	while (sync_stats(b)->ext_count < n && mono_ns() - t0 < 60 * SEC) {
		now += 1000000;
		sync_tick(a, now);
		sync_tick(b, now);
		pump(&sa, &sb);
	}
	t1 = mono_ns();
	printf("bulk_entries %u received_%u\n", n, sync_stats(b)->ext_count);
	printf("bulk_seconds %.2f s\n", (double)(t1 - t0) / 1e9);
	printf("bulk_datagrams %llu datagrams\n", (unsigned long long)sa.dgrams);
	sync_free(a);
	sync_free(b);
	ct_table_free(ta);
	ct_table_free(tb);
}

int main(int argc, char **argv)
{
	unsigned conns = 20000, samples = 2000, bulk = 1000000;
	const char *only = NULL;
	struct pkt **pk;
	double off, on;

	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned v = (unsigned)strtoul(argv[i + 1], NULL, 0);

		if (!strcmp(argv[i], "--conns"))
			conns = v ? v : 1;
		else if (!strcmp(argv[i], "--samples"))
			samples = v ? v : 1;
		else if (!strcmp(argv[i], "--bulk"))
			bulk = v;
		else if (!strcmp(argv[i], "--only"))
			only = argv[i + 1];
	}
	pk = short_conns(conns);
	if (only) {
		/* one rate run, for instruction counts (callgrind at two sizes: the difference
		 * over the difference in connections is the cost of one) */
		run_rate(conns, pk, !strcmp(only, "rate-on"));
		return 0;
	}
	bench_short(conns, pk, "default", UINT64_MAX, UINT64_MAX);
	bench_short(conns, pk, "nohold", 0, 0);
	bench_short(conns, pk, "hold500", 500000, 500000);
	/* alternating, the best of three each: a shared machine's noise only slows runs down */
	off = on = 0;
	for (int r = 0; r < 3; r++) {
		double x = run_rate(conns, pk, false), y = run_rate(conns, pk, true);

		off = x > off ? x : off;
		on = y > on ? y : on;
	}
	printf("rate_sync_off %.0f conns_per_s\n", off);
	printf("rate_sync_on %.0f conns_per_s\n", on);
	printf("rate_ratio %.3f on_over_off\n", on / off);
	for (unsigned i = 0; i < conns * PKTS; i++)
		pkt_free(pk[i]);
	free(pk);
	bench_latency(samples);
	if (bulk)
		bench_bulk(bulk);
	return 0;
}
