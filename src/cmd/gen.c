// SPDX-License-Identifier: GPL-2.0-or-later
/* pkttables gen: argument parsing; the work is in src/gen (frames, counters, the sender). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "gen/gen.h"
#include "gen/tx.h"
#include "io/afpacket.h"
#include "io/clock.h"
#include "io/pcapio.h"

#define PCAP_EPOCH_NS 1700000000000000000ull /* fixed, so the same command writes the same file */
#define PCAP_GAP_NS   1000ull		     /* between packets when no rate is given */

static void usage(FILE *f)
{
	fputs(
	    "usage: pkttables gen (-o OUT.pcap | -i IFACE) [TRAFFIC] [-n COUNT] [-t SECONDS]\n"
	    "                     [--rate RATE] [--tx auto|ring|mmsg]\n"
	    "       pkttables gen --receive IFACE [-t SECONDS] [-n COUNT] [--flows N]\n"
	    "\n"
	    "Send seeded test traffic to a capture file or an interface, or count it on arrival.\n"
	    "Traffic:\n"
	    "  --flows N            flows (1 to 4194304; default 1); flow i sends from source\n"
	    "                       address + i %% 250, source port + i / 250\n"
	    "  --dist seq|random|zipf[:S]  which flow sends next (default seq; Zipf exponent S,\n"
	    "                       default 1.1: flow 0 the most popular)\n"
	    "  -4 | -6 | --family 4|6|46   IP version (46: even flows IPv4, odd IPv6)\n"
	    "  --proto udp|tcp|tcp-handshake|icmp   (tcp: data segments only; tcp-handshake: SYN,\n"
	    "                       SYN-ACK, ACK, then data; a live sender leaves out the "
	    "SYN-ACK)\n"
	    "  --size N|MIN-MAX|imix  frame size with FCS (default: the smallest that holds the\n"
	    "                       headers and the signature, 64 for IPv4/UDP; imix: 64/594/1518\n"
	    "                       at 7:4:1, each raised to that smallest size where needed)\n"
	    "  --vlan ID            802.1Q tag\n"
	    "  --frag N             fragment datagrams to at most N bytes of IP payload (N % 8 = "
	    "0)\n"
	    "  --src ADDR --dst ADDR --src6 ADDR --dst6 ADDR --sport N --dport N\n"
	    "  --smac MAC --dmac MAC --ttl N --seed N\n"
	    "Run:\n"
	    "  -o OUT.pcap          write a capture (pcap, nanosecond timestamps); default 1000\n"
	    "                       datagrams, timestamps from a fixed epoch at the rate given\n"
	    "  -i IFACE             send on an interface (needs root; -n or -t required)\n"
	    "  -n COUNT             datagrams to send (to receive, with --receive)\n"
	    "  -t SECONDS           how long to send (or to receive)\n"
	    "  --rate RATE          N[k|m]pps or N[k|m|g]bps (bits/s, FCS counted); default: as\n"
	    "                       fast as possible\n"
	    "  --tx auto|ring|mmsg  PACKET_TX_RING or sendmmsg (auto: the ring when it opens)\n"
	    "  --receive IFACE      count signed packets by flow: received, lost, reordered,\n"
	    "                       duplicated, latency p50/p99 (a line a second on a terminal)\n"
	    "  --quiet              no progress line\n"
	    "A summary line 'tx ...' or 'rx ...' with key=value fields ends every run.\n",
	    f);
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int bad(const char *what, const char *val)
{
	fprintf(stderr, "gen: bad %s '%s'\n", what, val);
	return 2;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* "10kpps", "1.5Mpps", "100mbps", "1gbps": one of *pps / *bps set. */
static int parse_rate(const char *s, uint64_t *pps, uint64_t *bps)
{
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || !isfinite(v))
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1e3, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1e6, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1e9, end++;
	v *= mul;
	if (!strcasecmp(end, "pps")) {
		if (v > 1e9 || v < 1)
			return -ERANGE;
		*pps = (uint64_t)v;
		*bps = 0;
	} else if (!strcasecmp(end, "bps")) {
		if (v > 1e12 || v < 512)
			return -ERANGE;
		*bps = (uint64_t)v;
		*pps = 0;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int parse_size(const char *s, struct gen_config *c)
{
	uint64_t a, b;
	const char *dash = strchr(s, '-');

	if (!strcasecmp(s, "imix")) {
		c->sizes = GEN_SIZE_IMIX;
		return 0;
	}
	if (dash) {
		char lo[32];

		if ((size_t)(dash - s) >= sizeof(lo))
			return -EINVAL;
		memcpy(lo, s, (size_t)(dash - s));
		lo[dash - s] = 0;
		if (parse_u64(lo, GEN_MAX_FRAME * 2, &a) ||
		    parse_u64(dash + 1, GEN_MAX_FRAME * 2, &b))
			return -EINVAL;
		c->sizes = GEN_SIZE_RANGE;
	} else {
		if (parse_u64(s, GEN_MAX_FRAME * 2, &a))
			return -EINVAL;
		b = a;
		c->sizes = GEN_SIZE_FIXED;
	}
	c->size_min = (unsigned)a;
	c->size_max = (unsigned)b;
	return 0;
}

static void tx_progress(void *arg, const struct gen_tx_stats *st)
{
	(void)arg;
	fprintf(stderr,
		"\r  %.0fs  sent %" PRIu64 " frames  %.3f Mpps  %.3f Gbit/s  errors %" PRIu64 "   ",
		st->seconds, st->frames,
		st->seconds > 0 ? (double)st->frames / st->seconds / 1e6 : 0,
		st->seconds > 0 ? (double)st->bytes * 8 / st->seconds / 1e9 : 0, st->errors);
}

static int run_pcap(struct gen *g, const char *path, uint64_t count, uint64_t pps, uint64_t bps)
{
	struct pcapio_writer *w;
	char err[256];
	static uint8_t buf[GEN_MAX_FRAME + 64];
	uint64_t t = PCAP_EPOCH_NS;
	int r = pcapio_create(path, PKT_LINK_ETHERNET, &w, err, sizeof(err));

	if (r) {
		fprintf(stderr, "gen: %s\n", err);
		return 1;
	}
	while (gen_datagrams(g) < count || gen_in_datagram(g)) {
		size_t len = gen_next(g, buf, t);

		if (pcapio_write_bytes(w, buf, (uint32_t)len, t)) {
			fprintf(stderr, "gen: %s: write failed\n", path);
			pcapio_finish(w);
			return 1;
		}
		if (bps)
			t += (uint64_t)((double)(len + GEN_FCS) * 8 * 1e9 / (double)bps);
		else if (pps)
			t = PCAP_EPOCH_NS +
			    (uint64_t)((double)gen_datagrams(g) * 1e9 / (double)pps);
		else
			t += PCAP_GAP_NS;
	}
	if (pcapio_finish(w)) {
		fprintf(stderr, "gen: %s: write failed\n", path);
		return 1;
	}
	printf("tx output=%s frames=%" PRIu64 " datagrams=%" PRIu64 "\n", path, gen_frames(g),
	       gen_datagrams(g));
	return 0;
}

static int run_live(struct gen *g, const struct gen_config *c, const char *ifname,
		    enum gen_tx_mode mode, struct gen_tx_opts *o, bool quiet)
{
	struct gen_tx *t;
	struct gen_tx_stats st;
	char err[256];
	int r = gen_tx_open(ifname, mode, c->size_max, &t, err, sizeof(err));

	if (r) {
		fprintf(stderr, "gen: %s\n", err);
		return 1;
	}
	if (!quiet && isatty(2))
		o->progress = tx_progress;
	r = gen_tx_run(t, g, o, &st);
	if (o->progress)
		fputc('\n', stderr);
	printf("tx iface=%s mode=%s frames=%" PRIu64 " datagrams=%" PRIu64 " bytes=%" PRIu64
	       " errors=%" PRIu64 " seconds=%.3f pps=%.0f blocked=%.2f\n",
	       ifname, gen_tx_mode(t) == GEN_TX_RING ? "ring" : "mmsg", st.frames, st.datagrams,
	       st.bytes, st.errors, st.seconds, st.seconds > 0 ? (double)st.frames / st.seconds : 0,
	       st.seconds > 0 ? (double)st.blocked_ns / 1e9 / st.seconds : 0);
	gen_tx_close(t);
	if (r) {
		fprintf(stderr, "gen: %s: the kernel stopped taking frames\n", ifname);
		return 1;
	}
	return 0;
}

struct rx_ctx {
	struct gen_rx *rx;
};

static void rx_one(void *arg, const struct afpacket_frame *f)
{
	struct rx_ctx *x = arg;

	gen_rx_frame(x->rx, f->data, f->len, true, f->tstamp_ns ? f->tstamp_ns : io_realtime_ns());
}

static void rx_line(FILE *f, const struct gen_rx_totals *t, uint64_t ring_drops, double secs,
		    bool final)
{
	fprintf(f,
		"%sreceived=%" PRIu64 " lost=%" PRIu64 " reordered=%" PRIu64 " duplicated=%" PRIu64
		" flows=%u unsigned=%" PRIu64 " ring_drops=%" PRIu64
		" p50_us=%.1f p99_us=%.1f max_us=%.1f pps=%.0f seconds=%.3f%s",
		final ? "rx " : "\r  ", t->received, t->lost, t->reordered, t->duplicated,
		t->flows_seen, t->unsigned_, ring_drops, (double)t->lat_p50_ns / 1e3,
		(double)t->lat_p99_ns / 1e3, (double)t->lat_max_ns / 1e3,
		secs > 0 ? (double)t->received / secs : 0, secs, final ? "\n" : "   ");
}

static int run_receive(const char *ifname, uint64_t count, uint64_t duration_ns, unsigned flows,
		       bool quiet)
{
	struct afpacket *a;
	struct rx_ctx x = {0};
	struct gen_rx_totals t;
	struct afpacket_stats ks;
	sigset_t none;
	bool progress = !quiet && isatty(2);
	uint64_t start, last;
	int r = afpacket_open(ifname, &a);

	if (r) {
		fprintf(stderr, "gen: %s: %s%s\n", ifname,
			r == -ENODEV ? "no such interface" : strerror(-r),
			r == -EPERM ? " (needs CAP_NET_RAW: run as root)" : "");
		return 1;
	}
	x.rx = gen_rx_new(flows);
	if (!x.rx) {
		afpacket_close(a);
		fprintf(stderr, "gen: out of memory for %u flows\n", flows);
		return 1;
	}
	/* the ring is bound: from here on no frame is missed (a test waits for this line) */
	fprintf(stderr, "gen: receiving on %s\n", ifname);
	sigemptyset(&none);
	start = last = io_monotonic_ns();
	while (!stop_flag) {
		bool ready;
		uint64_t now = io_monotonic_ns();

		if (duration_ns && now - start >= duration_ns)
			break;
		gen_rx_totals(x.rx, &t);
		if (count && t.received >= count)
			break;
		if (progress && now - last >= 1000000000ull) {
			afpacket_get_stats(a, &ks);
			rx_line(stderr, &t, ks.kernel_drops, (double)(now - start) / 1e9, false);
			last = now;
		}
		r = afpacket_poll(&a, 1, 100, &none, &ready);
		if (r <= 0)
			continue;
		while (afpacket_receive(a, 256, rx_one, &x) > 0)
			;
	}
	if (progress)
		fputc('\n', stderr);
	gen_rx_totals(x.rx, &t);
	afpacket_get_stats(a, &ks); /* frames the kernel could not put into a full ring */
	rx_line(stdout, &t, ks.kernel_drops, (double)(io_monotonic_ns() - start) / 1e9, true);
	gen_rx_free(x.rx);
	afpacket_close(a);
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_config c;
	struct gen_tx_opts o;
	const char *out = NULL, *iface = NULL, *receive = NULL;
	enum gen_tx_mode mode = GEN_TX_AUTO;
	uint64_t v, count = 0, pps = 0, bps = 0;
	double secs = 0;
	bool quiet = false, size_given = false;
	char err[256];
	struct gen *g;
	int rc;

	gen_config_init(&c);
	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-4")) {
			c.family = 4, takes = false;
		} else if (!strcmp(a, "-6")) {
			c.family = 6, takes = false;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			quiet = true, takes = false;
		} else if (!val) {
			if (a[0] != '-')
				return bad("argument", a);
			fprintf(stderr, "gen: %s needs a value\n", a);
			return 2;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			out = val;
		} else if (!strcmp(a, "-i") || !strcmp(a, "--iface")) {
			iface = val;
		} else if (!strcmp(a, "--receive")) {
			receive = val;
		} else if (!strcmp(a, "--flows")) {
			if (parse_u64(val, GEN_MAX_FLOWS, &v) || !v)
				return bad("flow count (1 to 4194304)", val);
			c.flows = (unsigned)v;
		} else if (!strcmp(a, "--dist")) {
			if (!strcmp(val, "seq"))
				c.dist = GEN_DIST_SEQ;
			else if (!strcmp(val, "random"))
				c.dist = GEN_DIST_RANDOM;
			else if (!strncmp(val, "zipf", 4) && (!val[4] || val[4] == ':')) {
				char *end;

				c.dist = GEN_DIST_ZIPF;
				if (val[4]) {
					c.zipf_s = strtod(val + 5, &end);
					if (*end || !(c.zipf_s > 0))
						return bad("Zipf exponent", val);
				}
			} else
				return bad("distribution (seq, random, zipf[:S])", val);
		} else if (!strcmp(a, "--family")) {
			if (strcmp(val, "4") && strcmp(val, "6") && strcmp(val, "46"))
				return bad("family (4, 6, 46)", val);
			c.family = atoi(val);
		} else if (!strcmp(a, "--proto")) {
			if (!strcmp(val, "udp"))
				c.proto = GEN_UDP;
			else if (!strcmp(val, "tcp"))
				c.proto = GEN_TCP, c.tcp_mode = GEN_TCP_DATA;
			else if (!strcmp(val, "tcp-handshake"))
				c.proto = GEN_TCP, c.tcp_mode = GEN_TCP_HANDSHAKE;
			else if (!strcmp(val, "icmp"))
				c.proto = GEN_ICMP;
			else
				return bad("protocol (udp, tcp, tcp-handshake, icmp)", val);
		} else if (!strcmp(a, "--size")) {
			if (parse_size(val, &c))
				return bad("size (N, MIN-MAX or imix)", val);
			size_given = true;
		} else if (!strcmp(a, "--vlan")) {
			if (parse_u64(val, 4095, &v))
				return bad("VLAN id (0 to 4095)", val);
			c.vlan = (int)v;
		} else if (!strcmp(a, "--frag")) {
			if (parse_u64(val, 65528, &v) || !v)
				return bad("fragment size", val);
			c.frag = (unsigned)v;
		} else if (!strcmp(a, "--src") || !strcmp(a, "--dst") || !strcmp(a, "--src6") ||
			   !strcmp(a, "--dst6")) {
			bool six = a[5] == '6';
			union pt_addr *dst =
			    a[2] == 's' ? (six ? &c.src6 : &c.src4) : (six ? &c.dst6 : &c.dst4);
			int fam = pt_addr_parse(val, dst);

			if (fam != (six ? AF_INET6 : AF_INET))
				return bad(six ? "IPv6 address" : "IPv4 address", val);
		} else if (!strcmp(a, "--sport") || !strcmp(a, "--dport")) {
			if (parse_u64(val, 65535, &v))
				return bad("port", val);
			*(a[2] == 's' ? &c.sport : &c.dport) = (uint16_t)v;
		} else if (!strcmp(a, "--smac") || !strcmp(a, "--dmac")) {
			if (parse_mac(val, a[2] == 's' ? c.src_mac : c.dst_mac))
				return bad("MAC address", val);
		} else if (!strcmp(a, "--ttl")) {
			if (parse_u64(val, 255, &v) || !v)
				return bad("TTL (1 to 255)", val);
			c.ttl = (uint8_t)v;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(val, UINT64_MAX, &v))
				return bad("seed", val);
			c.seed = v;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--count")) {
			if (parse_u64(val, UINT64_MAX / 2, &count) || !count)
				return bad("count", val);
		} else if (!strcmp(a, "-t") || !strcmp(a, "--duration")) {
			char *end;

			secs = strtod(val, &end);
			if (*end || !(secs > 0) || secs > 86400 * 365)
				return bad("duration in seconds", val);
		} else if (!strcmp(a, "--rate")) {
			int r = parse_rate(val, &pps, &bps);

			if (r == -ERANGE) {
				fprintf(stderr,
					"gen: rate '%s' is impossible (1 pps to 1 Gpps, 512 bit/s "
					"to 1 Tbit/s)\n",
					val);
				return 2;
			}
			if (r)
				return bad("rate (e.g. 100kpps, 1.5Mpps, 100mbps, 1gbps)", val);
		} else if (!strcmp(a, "--tx")) {
			if (!strcmp(val, "auto"))
				mode = GEN_TX_AUTO;
			else if (!strcmp(val, "ring"))
				mode = GEN_TX_RING;
			else if (!strcmp(val, "mmsg"))
				mode = GEN_TX_MMSG;
			else
				return bad("sender (auto, ring, mmsg)", val);
		} else {
			fprintf(stderr, "gen: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (takes)
			i++;
	}

	if (receive) {
		if (out || iface) {
			fprintf(stderr, "gen: --receive does not mix with -o or -i\n");
			return 2;
		}
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		return run_receive(receive, count, (uint64_t)(secs * 1e9), c.flows, quiet) ? 1 : 0;
	}
	if (!!out == !!iface) {
		fprintf(stderr, "gen: give one of -o OUT.pcap, -i IFACE or --receive IFACE\n");
		usage(stderr);
		return 2;
	}
	if (c.sizes == GEN_SIZE_IMIX)
		c.size_max = 1518;
	if (!size_given) /* the smallest frame that holds everything, 64 bytes for IPv4/UDP */
		c.size_min = c.size_max = gen_min_frame(&c, c.family == 4 ? 4 : 6);
	if (iface && !count && !(secs > 0)) {
		fprintf(stderr, "gen: a live run needs -n COUNT or -t SECONDS\n");
		return 2;
	}
	if (out && secs > 0 && !count) {
		if (!pps && !bps) {
			fprintf(stderr,
				"gen: -t with -o needs --rate (the capture's time runs at it)\n");
			return 2;
		}
	}
	g = gen_new(&c, err, sizeof(err));
	if (!g) {
		fprintf(stderr, "gen: %s\n", err);
		return 2;
	}
	if (iface) {
		struct afpacket_link l;
		int r = afpacket_link_info(iface, &l);
		unsigned l3max = c.size_max - GEN_FCS - 14 - (c.vlan >= 0 ? 4 : 0);

		if (r == -ENODEV) {
			fprintf(stderr, "gen: %s: no such interface\n", iface);
			gen_free(g);
			return 1;
		}
		if (r == 0 && l.mtu && l3max > l.mtu && !c.frag) {
			fprintf(stderr, "gen: %s: size %u is over the interface's MTU %u\n", iface,
				c.size_max, l.mtu);
			gen_free(g);
			return 1;
		}
		o.count = count;
		o.duration_ns = (uint64_t)(secs * 1e9);
		o.rate_pps = pps;
		o.rate_bps = bps;
		o.stop = &stop_flag;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		rc = run_live(g, &c, iface, mode, &o, quiet);
	} else {
		if (!count)
			count = secs > 0 ? (uint64_t)(secs * (pps ? (double)pps : 1e3)) : 1000;
		if (secs > 0 && bps && !pps) {
			/* bits/s over a duration: as many datagrams as fit, at the mean size */
			double mean =
			    c.sizes == GEN_SIZE_IMIX ? 353.8 : (c.size_min + c.size_max) / 2.0;

			count = (uint64_t)(secs * (double)bps / (mean * 8));
			if (!count)
				count = 1;
		}
		rc = run_pcap(g, out, count, pps, bps);
	}
	gen_free(g);
	return rc;
}
