// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_ctl: the control socket against a box whose conntrack table holds --entries entries
 * (1,000,000 by default), measured once (issue 7's "make bench adds").
 *
 *   parent: the box, its ctl server, and (for the data-path part) bench_engine's packet mix,
 *           all on one thread as pkttables run does it: packets, then ctl_server_process
 *   child:  a forked ctl client (src/ctl/client.h) that dumps or subscribes and reports its
 *           counts and times through a pipe
 *
 *   dump      the whole table through the socket; the child counts CT_NEW messages until
 *             DONE. Also the longest ctl_server_process call and the peak RSS growth while it
 *             runs (the server must stream, not buffer the table)
 *   events    (first, on the empty table)
 *             --events entries created and then destroyed, ctl_server_process called after
 *             every --pace of those changes; the child counts events until it has them all or
 *             hears nothing for a second, and the last CTL_CT_EVENTS_LOST total
 *   dump-inproc (only when asked for) the dump read by a client in this process, for
 *             callgrind's instructions per entry (run.sh)
 *   datapath  box_receive of the mix in batches of 64, each followed by ctl_server_process,
 *             for --seconds without a client, then while the child dumps the table: packet
 *             rates, their ratio, and the longest process call in each
 *
 * Entries are made in the box's own table with ct_entry_create (no packets).
 *
 * Raising the box's max for --entries grows its hash with it (max / 2 buckets); --buckets N
 * sets nf_conntrack_buckets instead (32768, the box's default, is what every run had before:
 * 1M entries in chains of 60 nodes, a fill ~11 times slower).
 *
 * Usage: bench_ctl [--entries N] [--events N] [--pace N] [--batch N] [--buckets N] [--seconds S]
 * [--only PART] (--batch: the server's cfg.batch, dump entries per client per process call;
 * default 256)
 * Prints "name value unit" lines.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "bench_common.h"
#include "ct/create.h"
#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "ctl/client.h"
#include "ctl/msg.h"
#include "ctl/server.h"

#define DP_BATCH 64 /* packets between two ctl_server_process calls */
#define DP_FLOWS 10000

struct opts {
	unsigned entries, events, pace, batch, buckets;
	double seconds;
	const char *only;
};

/* What a child found, written to the pipe once. */
struct child_result {
	int err; /* 0 or -errno of the client */
	uint64_t messages, lost;
	double seconds; /* dump: request to DONE; events: first to last event */
};

struct bench {
	struct opts o;
	struct box *box;
	struct ct_table *ct;
	struct ctl_server *srv;
	char path[108];
	uint64_t made; /* entries made so far (distinct tuples) */
	struct bench_set flows;
	int lan;
	uint64_t calls, slow_calls; /* ctl_server_process calls of the part, those over 1 ms */
};

static const struct box_ops ops = {
    .xmit = bench_set_xmit,
    .deliver = bench_set_deliver,
    .dropped = bench_set_dropped,
};

/* ---- the table --------------------------------------------------------------------------- */

/*
 * Entry number i, made with ct_entry_create (as conntrack -I makes one): udp 10.0.0.0+i:PORT >
 * 198.51.100.1:53, PORT = 1024 + i % 60000, apart from the data-path mix (which goes to
 * 203.0.113.0/24 and 2001:db8::/32). Returns the entry, NULL when the table refused it.
 */
static struct ct_entry *make_entry(struct bench *bn, uint64_t i)
{
	struct ct_entry_attrs a;
	struct ct_entry *e = NULL;

	memset(&a, 0, sizeof(a));
	a.orig.family = AF_INET;
	a.orig.l4proto = IPPROTO_UDP;
	a.orig.src.w[0] = htonl(0x0a000000u + (uint32_t)(i & 0xffffff));
	a.orig.dst.w[0] = htonl(0xc6336401u); /* 198.51.100.1 */
	a.orig.s.port = (uint16_t)(1024 + i % 60000);
	a.orig.d.port = 53;
	a.have = CT_ATTR_TIMEOUT; /* the clock never moves: nothing expires during the run */
	a.timeout = 120 * CT_SEC;
	if (ct_entry_create(bn->ct, &a, box_now(bn->box), &e) < 0)
		return NULL;
	return e;
}

static int fill(struct bench *bn, unsigned n)
{
	double t0 = bench_now_s(), t1;

	for (unsigned i = 0; i < n; i++)
		if (!make_entry(bn, bn->made++))
			return -ENOSPC;
	t1 = bench_now_s();
	printf("ctl_fill_entries_per_s %.0f entries/s\n", n / (t1 - t0));
	printf("ctl_table_entries %u entries\n", ct_table_stats(bn->ct)->count);
	return ct_table_stats(bn->ct)->count >= n ? 0 : -ENOSPC;
}

/* ---- memory ------------------------------------------------------------------------------ */

/* A field of /proc/self/status in kB, 0 when unknown. */
static long status_kb(const char *field)
{
	char line[256];
	long v = 0;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = atol(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* Start a new peak (VmHWM) at the current RSS; false when the kernel cannot. */
static bool reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs("5", f) >= 0;
	return fclose(f) == 0 && ok;
}

/* ---- the child --------------------------------------------------------------------------- */

struct counts {
	uint64_t messages, lost;
	double first, last;
};

static int count_msg(const struct nlmsghdr *nlh, void *priv)
{
	struct counts *c = priv;
	uint64_t v;

	if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW) ||
	    nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_DELETE)) {
		if (!c->messages++)
			c->first = bench_now_s();
		c->last = bench_now_s();
	} else if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST) &&
		   ctl_get_u64(nlh, CTL_A_EVENTS_LOST, &v)) {
		c->lost = v;
	}
	return 0;
}

static void child_dump(const char *path, struct child_result *r)
{
	unsigned char buf[256];
	struct ctl_client *c = ctl_client_open(path);
	struct counts n = {0};
	struct nlmsghdr *nlh;
	char err[256];
	double t0;

	if (!c) {
		r->err = -errno;
		return;
	}
	nlh = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET),
			    NLM_F_REQUEST | NLM_F_DUMP, ctl_client_seq(c), AF_UNSPEC, true);
	t0 = bench_now_s();
	r->err = ctl_client_request(c, nlh, count_msg, &n, err, sizeof(err), NULL);
	r->seconds = bench_now_s() - t0;
	r->messages = n.messages;
	if (r->err)
		fprintf(stderr, "bench_ctl: dump: %s %s\n", strerror(-r->err), err);
	ctl_client_close(c);
}

/* Subscribe, say so on the pipe (one byte), then count until `want` or a quiet second. */
static void child_events(const char *path, uint64_t want, int wfd, struct child_result *r)
{
	unsigned char buf[256];
	struct ctl_client *c = ctl_client_open(path);
	struct counts n = {0};
	struct nlmsghdr *nlh;
	char err[256], ready = 'r';
	int rc;

	if (!c) {
		r->err = -errno;
		return;
	}
	nlh = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS), NLM_F_REQUEST,
			    ctl_client_seq(c), AF_UNSPEC, true);
	r->err = ctl_client_request(c, nlh, NULL, NULL, err, sizeof(err), NULL);
	if (r->err) {
		fprintf(stderr, "bench_ctl: subscribe: %s %s\n", strerror(-r->err), err);
		ctl_client_close(c);
		return;
	}
	if (write(wfd, &ready, 1) != 1) {
		r->err = -errno;
		ctl_client_close(c);
		return;
	}
	while (n.messages + n.lost < want && (rc = ctl_client_recv(c, count_msg, &n, 1000)) > 0)
		;
	r->messages = n.messages;
	r->lost = n.lost;
	r->seconds = n.last - n.first;
	ctl_client_close(c);
}

/* Fork a child running `kind` ("dump" or "events"); *rfd reads its pipe. The child's pid. */
static pid_t spawn(struct bench *bn, const char *kind, uint64_t want, int *rfd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct child_result r = {0};

		close(fds[0]);
		if (!strcmp(kind, "dump"))
			child_dump(bn->path, &r);
		else
			child_events(bn->path, want, fds[1], &r);
		if (write(fds[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	*rfd = fds[0];
	return pid;
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) > 0;
}

static int reap(pid_t pid, int rfd, struct child_result *r)
{
	int st = 0;
	ssize_t n = read(rfd, r, sizeof(*r));

	close(rfd);
	waitpid(pid, &st, 0);
	if (n != (ssize_t)sizeof(*r) || !WIFEXITED(st) || WEXITSTATUS(st))
		return -EPIPE;
	return r->err;
}

/*
 * One ctl_server_process call; *max_us keeps the longest. Calls over 1 ms are counted too: on a
 * shared machine one preempted call makes the maximum, the count says whether it was one.
 */
static void process(struct bench *bn, double *max_us)
{
	double t0 = bench_now_s(), us;

	ctl_server_process(bn->srv);
	us = (bench_now_s() - t0) * 1e6;
	if (us > *max_us)
		*max_us = us;
	bn->calls++;
	bn->slow_calls += us > 1000;
}

/* "name_max_process_us" and "name_process_calls_over_1ms"; the counts start again. */
static void print_process(struct bench *bn, const char *name, double max_us)
{
	printf("%s_max_process_us %.0f us\n", name, max_us);
	printf("%s_process_calls_over_1ms %llu of %llu calls\n", name,
	       (unsigned long long)bn->slow_calls, (unsigned long long)bn->calls);
	bn->calls = bn->slow_calls = 0;
}

/* Serve (waiting in poll when there is nothing to do) until the child's pipe is readable. */
static void serve_until(struct bench *bn, int rfd, double *max_us, double limit_s)
{
	double t_end = bench_now_s() + limit_s;

	while (!readable(rfd, 0) && bench_now_s() < t_end) {
		struct pollfd p[2] = {{.fd = ctl_server_fd(bn->srv), .events = POLLIN},
				      {.fd = rfd, .events = POLLIN}};

		poll(p, 2, 100);
		process(bn, max_us);
	}
}

/* ---- the parts --------------------------------------------------------------------------- */

/*
 * The dump with the client in this process, read between process calls (no fork, no second
 * CPU): for callgrind, which counts this function alone (--toggle-collect=part_dump_inproc)
 * and so gives instructions per dumped entry, server and client together.
 */
__attribute__((noinline)) static int part_dump_inproc(struct bench *bn)
{
	static unsigned char rx[65536];
	unsigned char buf[256];
	struct ctl_client *c = ctl_client_open(bn->path);
	struct counts n = {0};
	struct nlmsghdr *req;
	bool done = false;
	ssize_t len;

	if (!c)
		return -errno;
	req = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET),
			    NLM_F_REQUEST | NLM_F_DUMP, ctl_client_seq(c), AF_UNSPEC, true);
	if (send(ctl_client_fd(c), req, req->nlmsg_len, 0) < 0) {
		ctl_client_close(c);
		return -errno;
	}
	while (!done) {
		ctl_server_process(bn->srv);
		while (!done && (len = recv(ctl_client_fd(c), rx, sizeof(rx), MSG_DONTWAIT)) > 0) {
			const struct nlmsghdr *nlh = (const void *)rx;
			int rem = (int)len;

			for (; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
				if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR)
					done = true;
				else
					n.messages +=
					    nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW);
			}
		}
	}
	ctl_client_close(c);
	printf("ctl_dump_inproc_entries %llu entries\n", (unsigned long long)n.messages);
	return n.messages == ct_table_stats(bn->ct)->count ? 0 : -EIO;
}

static int part_dump(struct bench *bn)
{
	struct child_result r;
	double max_us = 0;
	long rss0, hwm;
	bool peak_ok;
	int rfd, rc;
	pid_t pid;

	peak_ok = reset_peak();
	rss0 = status_kb("VmRSS");
	if ((pid = spawn(bn, "dump", 0, &rfd)) < 0)
		return -errno;
	serve_until(bn, rfd, &max_us, 600);
	hwm = status_kb("VmHWM");
	if ((rc = reap(pid, rfd, &r)))
		return rc;
	printf("ctl_dump_entries %llu entries\n", (unsigned long long)r.messages);
	printf("ctl_dump_entries_per_s %.0f entries/s\n", r.messages / r.seconds);
	print_process(bn, "ctl_dump", max_us);
	if (peak_ok)
		printf("ctl_dump_peak_rss_growth_kb %ld kB\n", hwm - rss0);
	if (r.messages != ct_table_stats(bn->ct)->count) {
		fprintf(stderr, "bench_ctl: the dump gave %llu entries of %u\n",
			(unsigned long long)r.messages, ct_table_stats(bn->ct)->count);
		return -EIO;
	}
	return 0;
}

static int part_events(struct bench *bn, unsigned pace, const char *name)
{
	struct ct_entry **made = calloc(bn->o.events, sizeof(*made));
	uint64_t want = 2 * (uint64_t)bn->o.events;
	struct child_result r;
	double max_us = 0, t0, t1;
	char ready, pname[64];
	int rfd, rc;
	pid_t pid;

	if (!made)
		return -ENOMEM;
	if ((pid = spawn(bn, "events", want, &rfd)) < 0) {
		free(made);
		return -errno;
	}
	serve_until(bn, rfd, &max_us, 10); /* until the child is subscribed */
	if (read(rfd, &ready, 1) != 1 || ready != 'r') {
		free(made);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -EPIPE;
	}
	t0 = bench_now_s();
	for (unsigned i = 0; i < bn->o.events; i++) {
		if (!(made[i] = make_entry(bn, bn->made++))) {
			free(made);
			return -ENOSPC;
		}
		if ((i + 1) % pace == 0)
			process(bn, &max_us);
	}
	for (unsigned i = 0; i < bn->o.events; i++) {
		ct_kill(bn->ct, made[i]);
		if ((i + 1) % pace == 0)
			process(bn, &max_us);
	}
	t1 = bench_now_s();
	serve_until(bn, rfd, &max_us, 30); /* the rest of the queue, until the child is done */
	free(made);
	if ((rc = reap(pid, rfd, &r)))
		return rc;
	printf("ctl_%s_changes_per_s %.0f changes/s\n", name, want / (t1 - t0));
	printf("ctl_%s_received %llu events\n", name, (unsigned long long)r.messages);
	/* first to last event the child saw: with a burst that includes waiting for the burst */
	printf("ctl_%s_per_s %.0f events/s\n", name, r.seconds > 0 ? r.messages / r.seconds : 0.0);
	printf("ctl_%s_lost %llu events\n", name, (unsigned long long)r.lost);
	snprintf(pname, sizeof(pname), "ctl_%s", name);
	print_process(bn, pname, max_us);
	if (r.messages + r.lost != want) {
		fprintf(stderr, "bench_ctl: %s: %llu received + %llu lost of %llu\n", name,
			(unsigned long long)r.messages, (unsigned long long)r.lost,
			(unsigned long long)want);
		return -EIO;
	}
	return 0;
}

/* Packets until `stop` is readable (or `seconds` pass when stop < 0). Returns packets/s. */
static double run_datapath(struct bench *bn, int stop, double seconds, double *max_us,
			   uint64_t *packets)
{
	uint64_t sent = 0, lost = 0;
	unsigned next = 0;
	double t0 = bench_now_s(), t;

	for (;;) {
		for (unsigned k = 0; k < DP_BATCH; k++) {
			if (!bench_set_send(&bn->flows, bn->box, bn->lan, next)) {
				lost++;
				bench_set_put(&bn->flows, next, bench_flow_packet(next));
			}
			next = (next + 1) % bn->flows.n;
		}
		sent += DP_BATCH;
		process(bn, max_us);
		t = bench_now_s();
		if (stop >= 0 ? readable(stop, 0) : t - t0 >= seconds)
			break;
	}
	if (lost)
		fprintf(stderr, "bench_ctl: %llu packets were not forwarded\n",
			(unsigned long long)lost);
	*packets = sent;
	return sent / (t - t0);
}

static int part_datapath(struct bench *bn)
{
	struct child_result r;
	double idle_us = 0, dump_us = 0, pps0, pps1;
	uint64_t n0, n1;
	int rfd, rc;
	pid_t pid;

	if (bench_set_init(&bn->flows, DP_FLOWS))
		return -ENOMEM;
	for (unsigned i = 0; i < DP_FLOWS; i++) {
		struct pkt *p = bench_flow_packet(i);

		if (!p)
			return -errno;
		bench_set_put(&bn->flows, i, p);
	}
	/* the flows' own entries first, so both runs see established connections */
	run_datapath(bn, -1, 0.05, &idle_us, &n0);
	idle_us = 0;
	bn->calls = bn->slow_calls = 0;
	pps0 = run_datapath(bn, -1, bn->o.seconds, &idle_us, &n0);
	print_process(bn, "datapath_idle", idle_us);
	if ((pid = spawn(bn, "dump", 0, &rfd)) < 0)
		return -errno;
	pps1 = run_datapath(bn, rfd, 0, &dump_us, &n1);
	if ((rc = reap(pid, rfd, &r)))
		return rc;
	print_process(bn, "datapath_during_dump", dump_us);
	printf("datapath_pps_idle %.0f packets/s\n", pps0);
	printf("datapath_pps_during_dump %.0f packets/s\n", pps1);
	printf("datapath_ratio_during_dump %.3f ratio\n", pps1 / pps0);
	printf("datapath_dump_entries_per_s %.0f entries/s\n", r.messages / r.seconds);
	printf("datapath_dump_seconds %.2f s\n", r.seconds);
	return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static int setup(struct bench *bn)
{
	struct ctl_server_config sc;
	struct ct_config cc;
	const char *dir = getenv("TMPDIR");

	bn->box = box_new("bench", &ops, &bn->flows);
	if (!bn->box || box_setup_default_gateway(bn->box) || ct_box_enable(bn->box, true))
		return -ENOMEM;
	bn->lan = box_iface_index(bn->box, "lan0");
	bn->ct = ct_box_table(bn->box);
	cc = *ct_table_config(bn->ct);
	cc.max_entries = bn->o.entries + bn->o.events + DP_FLOWS + 1024;
	if (bn->o.buckets) {
		cc.buckets = bn->o.buckets;
		cc.buckets_set = true;
	}
	ct_table_set_config(bn->ct, &cc);
	snprintf(bn->path, sizeof(bn->path), "%s/pkttables-bench-ctl-%d.sock", dir ? dir : "/tmp",
		 (int)getpid());
	ctl_server_config_default(&sc);
	if (bn->o.batch)
		sc.batch = bn->o.batch;
	bn->srv = ctl_server_new(bn->box, bn->path, &sc);
	return bn->srv ? 0 : -errno;
}

static bool wanted(const struct bench *bn, const char *part)
{
	return !bn->o.only || !strcmp(bn->o.only, part);
}

int main(int argc, char **argv)
{
	struct bench bn = {.o = {.entries = 1000000, .events = 100000, .pace = 64, .seconds = 1.0}};
	int rc = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--entries"))
			bn.o.entries = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--events"))
			bn.o.events = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--batch"))
			bn.o.batch = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--buckets"))
			bn.o.buckets = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--pace"))
			bn.o.pace = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seconds"))
			bn.o.seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--only"))
			bn.o.only = argv[i + 1];
		else {
			fprintf(stderr, "usage: bench_ctl [--entries N] [--events N] [--pace N] "
					"[--batch N] [--buckets N] [--seconds S] [--only "
					"dump|events|datapath|dump-inproc]\n");
			return 2;
		}
	}
	if (!bn.o.pace)
		bn.o.pace = 1;
	signal(SIGPIPE, SIG_IGN);
	if ((rc = setup(&bn))) {
		fprintf(stderr, "bench_ctl: set-up: %s\n", strerror(-rc));
		return 1;
	}
	/* events first, while the table is empty: the rate of the event path itself, not of
	 * entry creation in a crowded hash (see above) */
	if (wanted(&bn, "events")) {
		rc = part_events(&bn, bn.o.pace, "events");
		/* more changes between two process calls than the listener's queue holds */
		if (!rc)
			rc = part_events(&bn, 16384, "events_burst");
	}
	if (!rc && (wanted(&bn, "dump") || wanted(&bn, "datapath") || wanted(&bn, "dump-inproc")) &&
	    (rc = fill(&bn, bn.o.entries)))
		fprintf(stderr, "bench_ctl: filling the table: %s\n", strerror(-rc));
	if (!rc && wanted(&bn, "dump"))
		rc = part_dump(&bn);
	if (!rc && bn.o.only && !strcmp(bn.o.only, "dump-inproc"))
		rc = part_dump_inproc(&bn);
	if (!rc && wanted(&bn, "datapath"))
		rc = part_datapath(&bn);
	if (rc)
		fprintf(stderr, "bench_ctl: %s\n", strerror(-rc));
	ctl_server_free(bn.srv);
	box_free(bn.box);
	if (bn.flows.pkt)
		bench_set_free(&bn.flows);
	return rc ? 1 : 0;
}
