// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_nat: what NAT costs (issue 6's "make bench adds"), on the default gateway box with
 * wan0 = 192.0.2.1/24 and 2001:db8:ffff::1/64, conntrack on in every configuration.
 *
 * Translation of established flows: bench_engine's mix (10k flows, IPv4 and IPv6, TCP and UDP,
 * 64- and 1500-byte frames), each flow's first packet sent once to make its connection (and
 * binding), then the measured loop: the flow's packet out of lan0 and its reply into wan0.
 *
 *   plain       no nat table: conntrack only (the baseline)
 *   snat        -t nat -A POSTROUTING -o wan0 -j SNAT --to-source 192.0.2.1 (2001:db8:ffff::1)
 *   masquerade  -t nat -A POSTROUTING -o wan0 -j MASQUERADE
 *
 * New bindings: --packets new UDP connections (IPv4, 64 bytes), each its own internal endpoint,
 * built before the clock starts, sent once:
 *
 *   new-plain   conntrack only
 *   new-snat    SNAT, endpoint-independent mapping (the default): a mapping per connection
 *   new-apd     SNAT --mapping address-port-dependent (Linux's per-connection allocation)
 *   new-full    SNAT --to-source 192.0.2.1:1024-65535 (64512 ports) with 60000 bindings made
 *               first, every internal host on source port 40000 (so no port is kept): the
 *               search for a free port in a nearly full pool
 *
 * Usage: bench_nat CONFIG [--packets N] [--seconds S]
 * Prints: CONFIG PACKETS NS_PER_PACKET MPPS_OR_MCONN DROPPED
 * (new-*: PACKETS is connections, the rate is millions of connections per second). --packets
 * bounds the measured part only, so callgrind's counts at two sizes give instructions per
 * packet (run.sh).
 */
#include "bench_common.h"
#include "ct/ct.h"
#include "ct/ct_plugin.h"

#define FLOWS	     10000
#define FULL_PREFILL 60000
#define FULL_SPORT   40000

struct nat_bench {
	struct box *box;
	int lan, wan;
	struct bench_set out, in; /* established: flow i's packet and its reply */
	unsigned translated;	  /* established: flows that left from a wan0 address */
	uint64_t xmit, dropped;	  /* new bindings: packets out, packets dropped */
};

/* ---- rules ------------------------------------------------------------------------------- */

/* The nat table text for `config` and family, NULL for none. */
static char *nat_rules(const char *config, int family, char *buf, size_t len)
{
	const char *to = family == AF_INET6 ? "2001:db8:ffff::1" : "192.0.2.1";
	const char *head = "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n"
			   ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n";

	if (!strcmp(config, "snat") || !strcmp(config, "new-snat"))
		snprintf(buf, len, "%s-A POSTROUTING -o wan0 -j SNAT --to-source %s\nCOMMIT\n",
			 head, to);
	else if (!strcmp(config, "masquerade"))
		snprintf(buf, len, "%s-A POSTROUTING -o wan0 -j MASQUERADE\nCOMMIT\n", head);
	else if (!strcmp(config, "new-apd"))
		snprintf(buf, len,
			 "%s-A POSTROUTING -o wan0 -j SNAT --to-source %s "
			 "--mapping address-port-dependent\nCOMMIT\n",
			 head, to);
	else if (!strcmp(config, "new-full") && family == AF_INET)
		snprintf(
		    buf, len,
		    "%s-A POSTROUTING -o wan0 -p udp -j SNAT --to-source %s:1024-65535\nCOMMIT\n",
		    head, to);
	else
		return NULL;
	return buf;
}

/* ---- the box ----------------------------------------------------------------------------- */

static void est_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct nat_bench *nb = user;

	bench_set_xmit(oif == nb->lan ? &nb->in : &nb->out, b, oif, p);
}

static void est_deliver(void *user, struct box *b, struct pkt *p)
{
	bench_set_deliver(&((struct nat_bench *)user)->out, b, p);
}

static void est_dropped(void *user, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	bench_set_dropped(&((struct nat_bench *)user)->out, b, p, why);
}

static const struct box_ops est_ops = {
    .xmit = est_xmit,
    .deliver = est_deliver,
    .dropped = est_dropped,
};

static void new_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	((struct nat_bench *)user)->xmit++;
	pkt_free(p);
}

static void new_deliver(void *user, struct box *b, struct pkt *p)
{
	((struct nat_bench *)user)->dropped++;
	pkt_free(p);
}

static void new_dropped(void *user, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	((struct nat_bench *)user)->dropped++;
}

static const struct box_ops new_ops = {
    .xmit = new_xmit,
    .deliver = new_deliver,
    .dropped = new_dropped,
};

static int setup(struct nat_bench *nb, const char *config, const struct box_ops *ops)
{
	union pt_addr a4, a6;
	struct ct_config cc;
	char text[512];
	int rc;

	nb->box = box_new("bench", ops, nb);
	if (!nb->box || box_setup_default_gateway(nb->box))
		return -ENOMEM;
	nb->lan = box_iface_index(nb->box, "lan0");
	nb->wan = box_iface_index(nb->box, "wan0");
	memset(&a4, 0, sizeof(a4));
	pt_addr_parse("192.0.2.1", &a4);
	pt_addr_parse("2001:db8:ffff::1", &a6);
	if ((rc = box_add_addr(nb->box, nb->wan, AF_INET, &a4, 24)) < 0 ||
	    (rc = box_add_addr(nb->box, nb->wan, AF_INET6, &a6, 64)) < 0)
		return rc;
	if ((rc = ct_box_enable(nb->box, true)))
		return rc;
	/* room for every connection; TCP replies of the generated mix carry made-up numbers */
	cc = *ct_table_config(ct_box_table(nb->box));
	cc.max_entries = 4 * (FLOWS + FULL_PREFILL);
	cc.tcp_be_liberal = true;
	ct_table_set_config(ct_box_table(nb->box), &cc);
	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET6 : AF_INET;

		if (nat_rules(config, family, text, sizeof(text)) &&
		    (rc = bench_load_rules(nb->box, text, family)))
			return rc;
	}
	return 0;
}

/* ---- established flows ------------------------------------------------------------------- */

/* The reply to flow i's packet p as it left (translated or not). NULL on failure. */
static struct pkt *reply_to(struct nat_bench *nb, unsigned i, struct pkt *p)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	uint16_t ports[2];
	union pt_addr src, dst;
	struct pkt *r = NULL;

	if (!s)
		return NULL;
	if (pkt_parse(p, PKT_LINK_ETHERNET, false) == 0 &&
	    pkt_copy_out(p, p->info.l4off, ports, sizeof(ports)) == 0) {
		src = p->info.src;
		dst = p->info.dst;
		nb->translated += box_is_local(nb->box, p->info.family, &src);
		bench_flow_spec(i, s);
		s->src = dst;
		s->dst = src;
		s->sport = ntohs(ports[1]);
		s->dport = ntohs(ports[0]);
		r = pkt_build(s);
	}
	free(s);
	return r;
}

static int established(struct nat_bench *nb, const char *config, uint64_t max, double seconds)
{
	uint64_t limit = max ? max : UINT64_MAX, sent = 0, lost = 0;
	double t0, t1;
	unsigned i = 0;

	if (bench_set_init(&nb->out, FLOWS) || bench_set_init(&nb->in, FLOWS))
		return -ENOMEM;
	for (unsigned f = 0; f < FLOWS; f++) {
		struct pkt *p = bench_flow_packet(f);

		if (!p)
			return -errno;
		bench_set_put(&nb->out, f, p);
		if (!bench_set_send(&nb->out, nb->box, nb->lan, f) ||
		    !(p = reply_to(nb, f, nb->out.pkt[f])))
			return -EIO;
		bench_set_put(&nb->in, f, p);
		if (!bench_set_send(&nb->in, nb->box, nb->wan, f))
			return -EIO;
	}
	if (nb->translated != (strcmp(config, "plain") ? FLOWS : 0)) {
		fprintf(stderr, "bench_nat: %s: %u of %u flows were source-translated\n", config,
			nb->translated, FLOWS);
		return -EIO;
	}
	t0 = bench_now_s();
	t1 = t0;
	while (sent < limit) {
		lost += !bench_set_send(&nb->out, nb->box, nb->lan, i);
		lost += !bench_set_send(&nb->in, nb->box, nb->wan, i);
		if (lost)
			break;
		sent += 2;
		i = (i + 1) % FLOWS;
		if (!max && (sent & 1023) == 0 && (t1 = bench_now_s()) - t0 >= seconds)
			break;
	}
	t1 = bench_now_s();
	if (lost) {
		fprintf(stderr, "bench_nat: %s: a packet of flow %u was not forwarded\n", config,
			i);
		return -EIO;
	}
	printf("%s %llu %.1f %.3f 0\n", config, (unsigned long long)sent, (t1 - t0) * 1e9 / sent,
	       sent / (t1 - t0) / 1e6);
	return 0;
}

/* ---- new bindings ------------------------------------------------------------------------ */

/* New connection j: udp 10.0.0.0+j:sport > 203.0.113.(j % 200):53, 64-byte frame. */
static struct pkt *new_packet(unsigned j, bool same_port)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	struct pkt *p;

	if (!s)
		return NULL;
	pkt_spec_init(s);
	s->eth = true;
	s->family = AF_INET;
	s->src.w[0] = htonl(0x0a000000u + j + 1);
	s->dst.w[0] = htonl(0xcb007100u | (j % 200));
	s->proto = 17;
	s->sport = same_port ? FULL_SPORT : (uint16_t)(1024 + j % 60000);
	s->dport = 53;
	s->payload_len = 64 - 14 - 20 - 8;
	p = pkt_build(s);
	free(s);
	return p;
}

static int new_bindings(struct nat_bench *nb, const char *config, unsigned n)
{
	bool full = !strcmp(config, "new-full");
	unsigned first = full ? FULL_PREFILL : 0;
	struct pkt **pk = calloc(n, sizeof(*pk));
	double t0, t1;

	if (!pk)
		return -ENOMEM;
	for (unsigned j = 0; j < first; j++) { /* the pool fills up */
		struct pkt *p = new_packet(j, full);

		if (!p) {
			free(pk);
			return -ENOMEM;
		}
		box_receive(nb->box, nb->lan, p);
	}
	if (nb->xmit != first) {
		fprintf(stderr, "bench_nat: %s: %llu of %u prefill connections went out\n", config,
			(unsigned long long)nb->xmit, first);
		free(pk);
		return -EIO;
	}
	nb->xmit = nb->dropped = 0;
	for (unsigned j = 0; j < n; j++)
		if (!(pk[j] = new_packet(first + j, full))) {
			free(pk);
			return -ENOMEM;
		}
	t0 = bench_now_s();
	for (unsigned j = 0; j < n; j++)
		box_receive(nb->box, nb->lan, pk[j]);
	t1 = bench_now_s();
	free(pk);
	printf("%s %u %.1f %.3f %llu\n", config, n, (t1 - t0) * 1e9 / n, n / (t1 - t0) / 1e6,
	       (unsigned long long)nb->dropped);
	return 0;
}

int main(int argc, char **argv)
{
	struct nat_bench nb = {0};
	uint64_t max = 0;
	double seconds = 1.0;
	const char *config;
	bool new;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_nat plain|snat|masquerade|new-plain|new-snat|new-apd|"
				"new-full [--packets N] [--seconds S]\n");
		return 2;
	}
	config = argv[1];
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--packets"))
			max = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seconds"))
			seconds = atof(argv[i + 1]);
	}
	new = !strncmp(config, "new-", 4);
	if (strcmp(config, "plain") && strcmp(config, "snat") && strcmp(config, "masquerade") &&
	    strcmp(config, "new-plain") && strcmp(config, "new-snat") &&
	    strcmp(config, "new-apd") && strcmp(config, "new-full")) {
		fprintf(stderr, "bench_nat: unknown configuration '%s'\n", config);
		return 2;
	}
	if ((rc = setup(&nb, config, new ? &new_ops : &est_ops))) {
		fprintf(stderr, "bench_nat: set-up: %s\n", strerror(-rc));
		return 1;
	}
	if (new)
		rc = new_bindings(&nb, config,
				  (unsigned)(max			   ? max
					     : !strcmp(config, "new-full") ? 4000
									   : 50000));
	else
		rc = established(&nb, config, max, seconds);
	box_free(nb.box);
	if (!new) {
		bench_set_free(&nb.out);
		bench_set_free(&nb.in);
	}
	if (rc)
		fprintf(stderr, "bench_nat: %s: %s\n", config, strerror(-rc));
	return rc ? 1 : 0;
}
