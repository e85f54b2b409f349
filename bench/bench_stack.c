// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_stack: the workshop's rows (issue 12): what each part of a firewall costs as a share of
 * plain forwarding, on 10k established flows through the default gateway box (wan0 =
 * 192.0.2.1/24, 2001:db8:ffff::1/64). Each flow is a TCP ACK (70 %) or UDP (30 %) stream from
 * 10/8 (fd00::/64) to 203.0.113.x (2001:db8:N::1); its first packet and the reply are sent once
 * before the clock starts, then the measured loop sends the flow's packet out of lan0 and its
 * reply into wan0, flow after flow.
 *
 *   forward        no tables at all
 *   conntrack      conntrack on, filter FORWARD: -m conntrack --ctstate ESTABLISHED -j ACCEPT
 *   empty          raw, mangle, nat and filter present, no rules (policies ACCEPT)
 *   full           conntrack, SNAT to wan0's address, a mangle PREROUTING MARK rule, a 20-rule
 *                  filter FORWARD chain with the ESTABLISHED rule first (policy DROP)
 *   full-rules1000 full with 1000 rules the traffic does not match before the ESTABLISHED rule
 *                  (the box's default classifier, auto: the 1020-rule FORWARD chain is
 *                  compiled; --classifier prints what each chain got)
 *   full-rules1000-linear  the same, every chain scanned rule by rule
 *   full-plain1000 full with 1000 rules before the ESTABLISHED rule that fail in their
 *                  standard part (-s -d with masks, -i -o, -p, some with '!'), scanned rule by
 *                  rule: (full-plain1000 - full) / 1000 is what one such rule costs
 *
 * NAME is 64-byte IPv4 frames; NAME-v6 64-byte IPv6 (as small as the headers allow: 74 bytes
 * for TCP); NAME-1500 1500-byte IPv4 frames. NAME-burst (also NAME-v6-burst, ...) sends the
 * same traffic through box_receive_burst, 32 flows' packets out of lan0 in one burst, then
 * their 32 replies into wan0 in another.
 *
 * Usage: bench_stack CONFIG [--packets N] [--seconds S] [--flows N]
 * --flows: how many established flows the traffic cycles through (10,000; 32 to 1,000,000),
 * for the cache's share of the cost (conntrack entries and packets beyond the caches).
 * Prints: CONFIG PACKETS NS_PER_PACKET MPPS
 * --packets bounds the measured part only, so callgrind's counts at two sizes give instructions
 * per packet (run.sh).
 */
#include "bench_common.h"
#include "classify/ruleset.h"
#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "nat/nat.h"
#include "nat/nat_plugin.h"

#define FLOWS 10000 /* --flows' default */

struct stack_bench {
	struct box *box;
	int lan, wan;
	bool bursts;		  /* packets come back by their id (p->id: the flow) */
	unsigned flows;		  /* established flows the traffic cycles through (--flows) */
	struct bench_set out, in; /* flow i's packet and its reply */
};

struct stack_config {
	bool conntrack, tables, nat, mark, established;
	unsigned filler; /* non-matching rules before the ESTABLISHED rule */
	unsigned after;	 /* non-matching rules after it (full: 19, so the chain has 20) */
	bool plain;	 /* the filler rules are plain_rule's, not filler_rule's */
	bool linear;	 /* every chain scanned rule by rule (no compiled classifier) */
	bool v6;
	unsigned frame;
	unsigned burst; /* packets per box_receive_burst; 0: box_receive */
	unsigned flows; /* --flows */
};

#define STACK_BURST 32

/* ---- rules ------------------------------------------------------------------------------- */

/* Rule i of the rules the traffic does not match (other subnets, ports, interfaces). */
static int filler_rule(char *buf, size_t len, unsigned i, bool v6)
{
	unsigned a = i & 0xff, b = (i >> 8) & 0xff;

	if (v6)
		switch (i % 3) {
		case 0:
			return snprintf(buf, len,
					"-A FORWARD -s fd01::%x/128 -p tcp -m tcp --dport %u -j "
					"ACCEPT\n",
					i, 1000 + i % 5000);
		case 1:
			return snprintf(
			    buf, len, "-A FORWARD -s fd00::/64 -p tcp -m tcp --dport %u -j DROP\n",
			    2000 + i % 20000);
		default:
			return snprintf(buf, len, "-A FORWARD -d 2001:db8:ffff:%x::/64 -j DROP\n",
					i);
		}
	switch (i % 4) {
	case 0:
		return snprintf(buf, len,
				"-A FORWARD -s 172.16.%u.%u/32 -d 192.0.2.%u/32 -p tcp -m tcp "
				"--dport %u -j ACCEPT\n",
				b, a, a, 1000 + i % 5000);
	case 1:
		return snprintf(buf, len,
				"-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --dport %u -j DROP\n",
				2000 + i % 20000);
	case 2:
		return snprintf(buf, len,
				"-A FORWARD -i wan0 -o lan0 -p udp -m udp --sport %u -j ACCEPT\n",
				3000 + i % 20000);
	default:
		return snprintf(buf, len, "-A FORWARD -d 100.%u.%u.0/24 -j DROP\n", 64 + b % 64, a);
	}
}

/*
 * Rule i of rules without matches (-m) that every packet of the traffic fails in its standard
 * part: packets out of lan0 to wan0 from 10/8 (fd00::/64) to 203.0.113.x (2001:db8:N::1),
 * replies into wan0 out of lan0. A quarter fail on an inverted field ('!') only.
 */
static int plain_rule(char *buf, size_t len, unsigned i, bool v6)
{
	unsigned a = i & 0xff, b = (i >> 8) & 0xff;

	switch (i % 8) {
	case 0: /* another subnet's host to another host */
		return v6 ? snprintf(buf, len, "-A FORWARD -s fd01::%x/128 -p tcp -j ACCEPT\n", i)
			  : snprintf(
				buf, len,
				"-A FORWARD -s 172.16.%u.%u/32 -d 192.0.2.%u/32 -p tcp -j ACCEPT\n",
				b, a, a);
	case 1: /* inside addresses coming in from outside */
		return snprintf(buf, len, "-A FORWARD -s %s -i wan0 -p tcp -j DROP\n",
				v6 ? "fd00::/64" : "10.0.0.0/8");
	case 2: /* the right interfaces, another protocol */
		return snprintf(buf, len, "-A FORWARD -i wan0 -o lan0 -p %s -j ACCEPT\n",
				v6 ? "ipv6-icmp" : "icmp");
	case 3: /* anything not from inside going out: fails on the '!' going out */
		return snprintf(buf, len, "-A FORWARD ! -s %s -o wan0 -j DROP\n",
				v6 ? "fd00::/64" : "10.0.0.0/8");
	case 4: /* a destination network */
		return v6 ? snprintf(buf, len, "-A FORWARD -d 2001:db8:fffe:%x::/64 -j DROP\n", i)
			  : snprintf(buf, len, "-A FORWARD -d 100.%u.%u.0/24 -j DROP\n",
				     64 + b % 64, a);
	case 5: /* between inside interfaces */
		return snprintf(buf, len, "-A FORWARD -i lan+ -o lan+ -j DROP\n");
	case 6: /* from outside to anywhere but inside: fails on the '!' coming back */
		return snprintf(buf, len, "-A FORWARD -s %s ! -o lan0 -p udp -j DROP\n",
				v6 ? "2001:db8::/32" : "203.0.113.0/24");
	default: /* to inside, but from the inside interface, not UDP */
		return snprintf(buf, len, "-A FORWARD -d %s -i lan0 ! -p udp -j DROP\n",
				v6 ? "fd00::/64" : "10.0.0.0/8");
	}
}

/* The ruleset of cfg for family; NULL for none (forward) or on failure. */
static char *stack_rules(const struct stack_config *cfg, int family)
{
	bool v6 = family == AF_INET6;
	size_t cap = 4096 + (size_t)(cfg->filler + cfg->after) * 160, len = 0;
	char *buf;

	if (!cfg->tables)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		return NULL;
#define OUT(...) (len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__))
	OUT("*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n");
	OUT("*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	    ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n");
	if (cfg->mark)
		OUT("-A PREROUTING -i lan0 -j MARK --set-mark 0x1\n");
	OUT("COMMIT\n");
	OUT("*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
	    ":POSTROUTING ACCEPT [0:0]\n");
	/* one address has 64k ports a protocol: above 30,000 flows, an address per 30,000 */
	if (cfg->nat && cfg->flows <= 30000)
		OUT("-A POSTROUTING -o wan0 -j SNAT --to-source %s\n",
		    v6 ? "2001:db8:ffff::1" : "192.0.2.1");
	else if (cfg->nat)
		OUT("-A POSTROUTING -o wan0 -j SNAT --to-source %s-%s%x\n",
		    v6 ? "2001:db8:ffff::1" : "192.0.2.1", v6 ? "2001:db8:ffff::" : "192.0.2.",
		    cfg->flows / 30000 + 1);
	OUT("COMMIT\n");
	OUT("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD %s [0:0]\n:OUTPUT ACCEPT [0:0]\n",
	    cfg->nat ? "DROP" : "ACCEPT");
	for (unsigned i = 0; i < cfg->filler && len < cap; i++)
		len += (size_t)(cfg->plain ? plain_rule : filler_rule)(buf + len, cap - len, i, v6);
	if (cfg->established)
		OUT("-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n");
	for (unsigned i = 0; i < cfg->after && len < cap; i++)
		len += (size_t)filler_rule(buf + len, cap - len, cfg->filler + i, v6);
	if (cfg->nat) /* the policy drops: new connections from inside are let out */
		OUT("-A FORWARD -i lan0 -o wan0 -j ACCEPT\n");
	OUT("COMMIT\n");
#undef OUT
	if (len >= cap) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int parse_config(const char *name, struct stack_config *cfg)
{
	char base[64], unburst[64];
	const char *dash;
	size_t n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->frame = 64;
	n = strlen(name);
	if (n > 6 && !strcmp(name + n - 6, "-burst")) {
		cfg->burst = STACK_BURST;
		if (n - 6 >= sizeof(unburst))
			return -EINVAL;
		memcpy(unburst, name, n - 6);
		unburst[n - 6] = 0;
		name = unburst;
	}
	dash = strstr(name, "-v6");
	if (!dash)
		dash = strstr(name, "-1500");
	n = dash ? (size_t)(dash - name) : strlen(name);
	if (n >= sizeof(base))
		return -EINVAL;
	memcpy(base, name, n);
	base[n] = 0;
	if (dash && !strcmp(dash, "-v6"))
		cfg->v6 = true;
	else if (dash && !strcmp(dash, "-1500"))
		cfg->frame = 1500;
	else if (dash)
		return -EINVAL;
	if (!strcmp(base, "forward"))
		return 0;
	cfg->tables = true;
	if (!strcmp(base, "empty"))
		return 0;
	cfg->conntrack = cfg->established = true;
	if (!strcmp(base, "conntrack"))
		return 0;
	cfg->nat = cfg->mark = true;
	cfg->after = 19;
	if (!strcmp(base, "full"))
		return 0;
	if (!strcmp(base, "full-rules1000") || !strcmp(base, "full-rules1000-linear")) {
		cfg->filler = 1000;
		cfg->linear = base[14] != '\0';
		return 0;
	}
	if (!strcmp(base, "full-plain1000")) {
		cfg->filler = 1000;
		cfg->plain = cfg->linear = true;
		return 0;
	}
	return -EINVAL;
}

/* ---- the box ----------------------------------------------------------------------------- */

static void stack_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	struct stack_bench *sb = user;
	struct bench_set *s = oif == sb->lan ? &sb->in : &sb->out;

	if (sb->bursts) { /* the packet's number is its flow */
		s->xmit++;
		s->pkt[p->id] = p;
		return;
	}
	bench_set_xmit(s, b, oif, p);
}

static void stack_deliver(void *user, struct box *b, struct pkt *p)
{
	bench_set_deliver(&((struct stack_bench *)user)->out, b, p);
}

static void stack_dropped(void *user, struct box *b, const struct pkt *p,
			  const struct box_drop *why)
{
	bench_set_dropped(&((struct stack_bench *)user)->out, b, p, why);
}

static const struct box_ops stack_ops = {
    .xmit = stack_xmit,
    .deliver = stack_deliver,
    .dropped = stack_dropped,
};

static int setup(struct stack_bench *sb, const struct stack_config *cfg)
{
	union pt_addr a4, a6;
	int rc;

	sb->box = box_new("bench", &stack_ops, sb);
	if (!sb->box || box_setup_default_gateway(sb->box))
		return -ENOMEM;
	if (cfg->linear)
		box_set_classifier(sb->box, CLS_MODE_LINEAR, NULL);
	sb->lan = box_iface_index(sb->box, "lan0");
	sb->wan = box_iface_index(sb->box, "wan0");
	memset(&a4, 0, sizeof(a4));
	pt_addr_parse("192.0.2.1", &a4);
	pt_addr_parse("2001:db8:ffff::1", &a6);
	if ((rc = box_add_addr(sb->box, sb->wan, AF_INET, &a4, 24)) < 0 ||
	    (rc = box_add_addr(sb->box, sb->wan, AF_INET6, &a6, 64)) < 0)
		return rc;
	if (cfg->conntrack) {
		struct ct_config cc;

		if ((rc = ct_box_enable(sb->box, true)))
			return rc;
		/* room for every flow; the TCP streams are picked up in the middle and their
		 * replies carry made-up sequence numbers */
		cc = *ct_table_config(ct_box_table(sb->box));
		cc.max_entries = 4 * sb->flows;
		cc.tcp_be_liberal = true;
		ct_table_set_config(ct_box_table(sb->box), &cc);
	}
	if (cfg->nat && nat_box_table(sb->box)) {
		struct nat_config nc = *nat_table_config(nat_box_table(sb->box));

		if (nc.max_mappings < 2 * sb->flows)
			nc.max_mappings = 2 * sb->flows;
		nat_table_set_config(nat_box_table(sb->box), &nc);
	}
	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET6 : AF_INET;
		char *text = stack_rules(cfg, family);

		if (cfg->tables && !text)
			return -ENOMEM;
		rc = text ? bench_load_rules(sb->box, text, family) : 0;
		free(text);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- traffic ----------------------------------------------------------------------------- */

static void flow_spec(unsigned i, const struct stack_config *cfg, struct pkt_spec *s)
{
	uint32_t hdr;

	bench_flow_spec(i, s);
	if (cfg->v6 && s->family != AF_INET6) {
		char a[64], d[64];

		snprintf(a, sizeof(a), "fd00::%x:%x", i >> 8, i & 0xff);
		snprintf(d, sizeof(d), "2001:db8:%x::1", i % 97);
		pt_addr_parse(a, &s->src);
		pt_addr_parse(d, &s->dst);
		s->family = AF_INET6;
	} else if (!cfg->v6 && s->family != AF_INET) {
		memset(&s->src, 0, sizeof(s->src));
		memset(&s->dst, 0, sizeof(s->dst));
		s->src.w[0] = htonl(0x0a000000u | (i << 2 & 0xffffff) | 2);
		s->dst.w[0] = htonl(0xcb007100u | (i % 200));
		s->family = AF_INET;
	}
	hdr = 14 + (cfg->v6 ? 40 : 20) + (s->proto == 17 ? 8 : 20);
	s->payload_len = cfg->frame > hdr ? cfg->frame - hdr : 0;
}

/* The reply to flow i's packet p as it left (translated or not). NULL on failure. */
static struct pkt *reply_to(unsigned i, const struct stack_config *cfg, struct pkt *p)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	uint16_t ports[2];
	struct pkt *r = NULL;

	if (!s)
		return NULL;
	if (pkt_parse(p, PKT_LINK_ETHERNET, false) == 0 &&
	    pkt_copy_out(p, p->info.l4off, ports, sizeof(ports)) == 0) {
		flow_spec(i, cfg, s);
		s->src = p->info.dst;
		s->dst = p->info.src;
		s->sport = ntohs(ports[1]);
		s->dport = ntohs(ports[0]);
		s->seq = i * 104729u;
		s->ack = i * 7919u;
		r = pkt_build(s);
	}
	free(s);
	return r;
}

/*
 * The measured loop, a function of its own so that a profile can be limited to it:
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=stack_loop \
 *       build/bench/bench_stack full --packets 20000
 * seconds 0: until limit packets. Returns the packets sent; *lost counts those not forwarded.
 */
__attribute__((noinline)) static uint64_t stack_loop(struct stack_bench *sb, uint64_t limit,
						     double seconds, unsigned *flow, uint64_t *lost)
{
	double t0 = bench_now_s();
	uint64_t sent = 0;
	unsigned i = *flow;

	while (sent < limit) {
		*lost += !bench_set_send(&sb->out, sb->box, sb->lan, i);
		*lost += !bench_set_send(&sb->in, sb->box, sb->wan, i);
		if (*lost)
			break;
		sent += 2;
		i = (i + 1) % sb->flows;
		if (seconds > 0 && (sent & 1023) == 0 && bench_now_s() - t0 >= seconds)
			break;
	}
	*flow = i;
	return sent;
}

/* Flows i..i+n-1 (mod flows) of set s into ifindex as one burst; false if one did not come
 * back. */
static bool burst_send(struct bench_set *s, struct box *b, int ifindex, unsigned i, unsigned n,
		       unsigned flows)
{
	struct pkt *v[STACK_BURST] = {NULL};

	for (unsigned k = 0; k < n; k++) {
		unsigned f = (i + k) % flows;
		struct pkt *p = s->pkt[f];

		pkt_store(p, 0, s->hdr[f], s->hlen[f]);
		p->mark = 0;
		p->priority = 0;
		p->trace = false;
		p->ct = NULL;
		p->ctinfo = 0;
		p->l4_csum_verified = false;
		p->id = f;
		s->pkt[f] = NULL;
		v[k] = p;
	}
	box_receive_burst(b, ifindex, v, n, NULL);
	for (unsigned k = 0; k < n; k++)
		if (!s->pkt[(i + k) % flows])
			return false;
	return true;
}

/* stack_loop with bursts of cfg->burst flows: their packets out, then their replies in. */
__attribute__((noinline)) static uint64_t stack_loop_burst(struct stack_bench *sb, uint64_t limit,
							   double seconds, unsigned *flow,
							   uint64_t *lost, unsigned burst)
{
	double t0 = bench_now_s();
	uint64_t sent = 0;
	unsigned i = *flow;

	while (sent < limit) {
		unsigned n = limit - sent < 2u * burst ? (unsigned)(limit - sent + 1) / 2 : burst;

		*lost += !burst_send(&sb->out, sb->box, sb->lan, i, n, sb->flows);
		*lost += !burst_send(&sb->in, sb->box, sb->wan, i, n, sb->flows);
		if (*lost)
			break;
		sent += 2 * n;
		i = (i + n) % sb->flows;
		if (seconds > 0 && (sent & 1023) < 2 * burst && bench_now_s() - t0 >= seconds)
			break;
	}
	*flow = i;
	return sent;
}

static int run(struct stack_bench *sb, const char *name, const struct stack_config *cfg,
	       uint64_t max, double seconds)
{
	uint64_t limit = max ? max : UINT64_MAX, sent = 0, lost = 0;
	struct pkt_spec *s = malloc(sizeof(*s));
	double t0, t1;
	unsigned i = 0;

	if (!s || bench_set_init(&sb->out, sb->flows) || bench_set_init(&sb->in, sb->flows)) {
		free(s);
		return -ENOMEM;
	}
	for (unsigned f = 0; f < sb->flows; f++) {
		struct pkt *p;

		flow_spec(f, cfg, s);
		if (!(p = pkt_build(s))) {
			free(s);
			return -errno;
		}
		bench_set_put(&sb->out, f, p);
		if (!bench_set_send(&sb->out, sb->box, sb->lan, f) ||
		    !(p = reply_to(f, cfg, sb->out.pkt[f]))) {
			free(s);
			return -EIO;
		}
		bench_set_put(&sb->in, f, p);
		if (!bench_set_send(&sb->in, sb->box, sb->wan, f)) {
			free(s);
			return -EIO;
		}
	}
	free(s);
	t0 = bench_now_s();
	if (cfg->burst) {
		sb->bursts = true;
		sent = stack_loop_burst(sb, limit, max ? 0 : seconds, &i, &lost, cfg->burst);
	} else {
		sent = stack_loop(sb, limit, max ? 0 : seconds, &i, &lost);
	}
	t1 = bench_now_s();
	if (lost) {
		fprintf(stderr, "bench_stack: %s: a packet of flow %u was not forwarded\n", name,
			i);
		return -EIO;
	}
	printf("%s %llu %.1f %.3f\n", name, (unsigned long long)sent, (t1 - t0) * 1e9 / sent,
	       sent / (t1 - t0) / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	struct stack_bench sb = {.flows = FLOWS};
	struct stack_config cfg;
	uint64_t max = 0;
	double seconds = 1.0;
	bool show_cls = false;
	int rc;

	if (argc < 2 || parse_config(argv[1], &cfg)) {
		fprintf(stderr, "usage: bench_stack forward|conntrack|empty|full|full-rules1000"
				"[-linear]|full-plain1000[-v6|-1500][-burst] [--packets N] "
				"[--seconds S] [--flows N] [--classifier]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--classifier"))
			show_cls = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--packets"))
			max = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && !strcmp(argv[i], "--seconds"))
			seconds = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--flows"))
			sb.flows = (unsigned)strtoul(argv[++i], NULL, 10);
	}
	cfg.flows = sb.flows;
	if (sb.flows < STACK_BURST || sb.flows > 1000000) {
		fprintf(stderr, "bench_stack: --flows: %u to 1000000\n", STACK_BURST);
		return 2;
	}
	if ((rc = setup(&sb, &cfg))) {
		fprintf(stderr, "bench_stack: set-up: %s\n", strerror(-rc));
		return 1;
	}
	if (show_cls) /* what each chain got: compiled, or linear and why */
		cls_ruleset_print(box_ruleset(sb.box, cfg.v6 ? AF_INET6 : AF_INET), stderr);
	rc = run(&sb, argv[1], &cfg, max, seconds);
	box_free(sb.box);
	bench_set_free(&sb.out);
	bench_set_free(&sb.in);
	if (rc)
		fprintf(stderr, "bench_stack: %s: %s\n", argv[1], strerror(-rc));
	return rc ? 1 : 0;
}
