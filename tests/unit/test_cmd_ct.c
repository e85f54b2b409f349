// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct` (src/ctl/ct_cli.c): option parsing as conntrack(8) does it, and every command
 * end to end against a box served in a child process (the client blocks, so the server cannot
 * share its thread), with the output compared line by line.
 *
 * `test_cmd_ct --serve PATH` is that child on its own: a box with conntrack on, served at PATH
 * with the box clock following real time, until SIGTERM (tests/netns/run-ct-tools.sh uses it
 * when `pkttables sim --serve` is not there).
 */
#include "ct/ct_plugin.h"
#include "ct_test.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ct/helper.h"
#include "ctl/ct_cli.h"
#include "ctl/server.h"
#include "engine/box.h"

/* ---- the served box ---------------------------------------------------------------------- */

static volatile sig_atomic_t serve_stop;

static void on_term(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CT_SEC + (uint64_t)ts.tv_nsec;
}

/* An FTP control connection with the ftp helper (what -I expect needs for a master). */
static void ftp_master(struct ct_table *t, uint64_t now)
{
	struct pkt *p = ct_test_pkt("tcp 10.0.0.2:40000 > 192.0.2.1:21 syn");

	ct_pkt_set_helper(p, &ct_helper_ftp);
	ct_in(t, p, true, 0, now);
	ct_confirm(t, p, now);
	ct_pkt_release(t, p);
	pkt_free(p);
}

/* Serve a fresh box at path until SIGTERM; writes one byte to ready_fd once listening.
 * tstamp: the box's conntrack timestamps on (nf_conntrack_timestamp). */
static int serve(const char *path, int ready_fd, bool with_ftp, bool tstamp)
{
	struct sigaction sa = {.sa_handler = on_term};
	struct box *b = box_new("ct", NULL, NULL);
	struct ctl_server *s;
	uint64_t t0 = mono_ns();

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (!b || ct_box_enable(b, true) < 0)
		return 1;
	if (tstamp) {
		struct ct_config cfg = *ct_table_config(ct_box_table(b));

		cfg.tstamp = true;
		ct_table_set_config(ct_box_table(b), &cfg);
	}
	/* the kernel's clock is not at 0 either; and time only moves forward from here */
	box_set_time(b, 1000 * CT_SEC);
	if (with_ftp)
		ftp_master(ct_box_table(b), box_now(b));
	if (!(s = ctl_server_new(b, path, NULL))) {
		perror(path);
		return 1;
	}
	if (ready_fd >= 0 && write(ready_fd, "x", 1) != 1)
		return 1;
	while (!serve_stop) {
		struct pollfd p = {.fd = ctl_server_fd(s), .events = POLLIN};

		poll(&p, 1, 50);
		box_set_time(b, 1000 * CT_SEC + (mono_ns() - t0));
		ct_sweep(ct_box_table(b), box_now(b), 64);
		ctl_server_process(s);
	}
	ctl_server_free(s);
	box_free(b);
	return 0;
}

struct child {
	pid_t pid;
	char path[108];
	bool tstamp; /* the box's timestamps on */
};

static void child_start(struct child *c, bool with_ftp)
{
	int fds[2];
	char x;

	if (!c->path[0])
		snprintf(c->path, sizeof(c->path), "/tmp/pt-cmd-ct-%d.sock", (int)getpid());
	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		/* a failed test never reaches child_stop: the box goes with its test */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0);
		close(fds[0]);
		_exit(serve(c->path, fds[1], with_ftp, c->tstamp));
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &x, 1), 1);
	close(fds[0]);
}

static void child_stop(struct child *c)
{
	int st;

	kill(c->pid, SIGTERM);
	assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- running the command ----------------------------------------------------------------- */

struct result {
	int status;
	char *out, *err;
	size_t outlen, errlen;
};

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* Run `pkttables ct --socket PATH <words>` (words split at spaces). */
static struct result run_ct(const struct child *c, const char *words, volatile sig_atomic_t *stop)
{
	struct result r = {0};
	char buf[1024], *argv[64], *save, *w;
	int argc = 0;
	FILE *out = open_memstream(&r.out, &r.outlen), *err = open_memstream(&r.err, &r.errlen);

	argv[argc++] = "ct";
	if (c) {
		argv[argc++] = "--socket";
		argv[argc++] = (char *)c->path;
	}
	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, " ", &save); w && argc < 63; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	r.status = ctl_ct_main(argc, argv, out, err, stop);
	fclose(out);
	fclose(err);
	return r;
}

#define P CTL_CLI_PREFIX

static void expect_run(const struct child *c, const char *words, int status, const char *out,
		       const char *err)
{
	struct result r = run_ct(c, words, NULL);

	if (r.status != status || (out && strcmp(r.out, out)) || (err && strcmp(r.err, err)))
		fail_msg("ct %s: status %d\n--- out:\n%s--- err:\n%s--- wanted %d\n%s---\n%s",
			 words, r.status, r.out, r.err, status, out ? out : "(any)",
			 err ? err : "(any)");
	result_free(&r);
}

/* ---- parsing ----------------------------------------------------------------------------- */

static void test_parse(void **state)
{
	struct ctl_ct_cli o;
	char err[256];
	char *a1[] = {"ct", "-L", "expect", NULL};
	char *a2[] = {"ct", "-L",  "-p", "tcp",		"--dport", "80",
		      "-m", "1/3", "-o", "extended,id", NULL};
	char *a3[] = {"ct",	   "-I",	  "-p", "icmp",		 "-s", "10.0.0.2", "-d",
		      "192.0.2.1", "--icmp-type", "8",	"--icmp-code=0", "-t", "30",	   NULL};

	assert_int_equal(ctl_ct_cli_parse(3, a1, &o, err, sizeof(err)), 0);
	assert_int_equal(o.cmd, CTL_CLI_LIST);
	assert_true(o.expect);
	assert_int_equal(ctl_ct_cli_parse(10, a2, &o, err, sizeof(err)), 0);
	assert_int_equal(o.orig.t.l4proto, IPPROTO_TCP);
	assert_int_equal(o.orig.t.d.port, 80);
	assert_int_equal(o.orig.have, CTL_T_PROTO | CTL_T_DPORT);
	assert_int_equal(o.mark, 1);
	assert_int_equal(o.mark_mask, 3);
	assert_int_equal(o.fmt, CTL_FMT_EXTENDED | CTL_FMT_ID);
	assert_int_equal(ctl_ct_cli_parse(13, a3, &o, err, sizeof(err)), 0);
	assert_int_equal(o.orig.t.d.icmp.type, 8);
	assert_int_equal(o.orig.have & CTL_T_SPORT, CTL_T_SPORT); /* the id: 0 */
	assert_int_equal(o.timeout, 30);
}

/* conntrack's messages and exit status 2 for a bad command line, word for word. */
static void test_parse_errors(void **state)
{
	static const struct {
		const char *words, *msg;
	} cases[] = {
	    {"-L --bogus", "unknown option `--bogus'"},
	    {"-L -p foo", "`foo' unsupported protocol"},
	    {"-L --sport 80", "unknown option `--sport'"},
	    {"-L -p udp --state ESTABLISHED", "unknown option `--state'"},
	    {"-C -p tcp", "Illegal option `--protonum' with this command"},
	    {"-L -G", "Invalid commands combination"},
	    {"-L -z -p udp", "Can't use -z with filtering parameters"},
	    {"-L -z -m 1", "Can't use -z with filtering parameters"},
	    {"-D -z", "Illegal option `--zero' with this command"},
	    {"-L -n -j", "cannot specify `--src-nat' or `--dst-nat' with `--any-nat'"},
	    {"-L -g 1.2.3.4 -j", "cannot specify `--src-nat' or `--dst-nat' with `--any-nat'"},
	    {"-L -n foo", "Invalid IP address `foo'"},
	    {"-L -n :80", "Invalid IP address `'"},
	    {"-L -n 1.2.3.4:x", "Invalid port `x'"},
	    {"-C -n", "Illegal option `--src-nat' with this command"},
	    {"-L expect -g", "Illegal option `--dst-nat' with this command"},
	    {"-L -o bogus", "Bad parameter `bogus'"},

	    {"-L -s 1.1.1.1/33", "Invalid netmask"},
	    {"-L -r 1.1.1.0/24", "CIDR notation unavailable for `--reply-src'"},
	    {"-L --mask-src 255.0.0.0", "Can't use --mask-src without --src"},
	    {"-L -s 1.1.1.1 --mask-src ffff::", "mismatched address family"},
	    {"-G -s 1.1.1.1/24 -d 2.2.2.2 -p udp --sport 1 --dport 2",
	     "Illegal option `--mask-src' with this command"},
	    {"-L -p igmp --sport 1", "unknown option `--sport'"},
	    {"-L -p 300", "`300' unsupported protocol"},
	    {"-L -p tcp --state syn_sent2", "unknown TCP state `syn_sent2'"},
	    {"-C foo", "unknown type `foo'"},
	    {"-L --dst-nat [2001:db8::1]:", "No port specified after `:'"},
	    {"-I -s 2001:db8::1 -d 2001:db8::2 --dst-nat 3.3.3.3 -p udp --sport 1 --dport 2 -t 5",
	     "mismatched address family"},
	    {"-I -s 1.1.1.1 -p udp --sport 1 --dport 2 -t 5",
	     "you have to specify `--src' and `--dst'"},
	    {"-I -r 1.1.1.1 -p udp -t 5", "you have to specify `--reply-src' and `--reply-dst'"},
	    {"-I -r 1.1.1.1 -q 2.2.2.2 -p tcp --reply-port-src 10 --state LISTEN -t 50",
	     "you have to specify `--reply-src-port' and `--reply-dst-port'"},
	    {"-E expect", "expectation events are not served by pkttables"},
	    {"-E -e FOO", "Bad parameter `FOO'"},
	    {"-L -s 10.0.0.2 -f ipv6", "mismatched address family"},
	    {"-I -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 1 --dport 2",
	     "You need to supply the `--timeout' option for this command"},
	    {"-I -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1 --dport 2 -t 10",
	     "You need to supply the `--state' option for this command"},
	    {"-I -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1 -t 10 --state ESTABLISHED",
	     "you have to specify `--sport' and `--dport'"},
	};
	char want[512];

	/* conntrack stops there with status 1 and without its usage hint */
	expect_run(NULL, "-L -o save,id", 1, "",
		   P "cannot combine save output with any other output type, use -o save only\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want),
			 P "%s\nTry `conntrack -h' or 'conntrack --help' for more information.\n",
			 cases[i].msg);
		expect_run(NULL, cases[i].words, 2, "", want);
	}
}

/* ---- end to end -------------------------------------------------------------------------- */

#define TCP_I "-p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 1234 --dport 80"
#define UDP_I "-p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5000 --dport 53"
#define V6_I  "-p tcp -s 2001:db8::2 -d 2001:db8::1 --sport 1 --dport 22"
#define TCP_L                                                                                      \
	"tcp      6 299 ESTABLISHED src=10.0.0.2 dst=192.0.2.1 sport=1234 dport=80 src=192.0.2.1 " \
	"dst=10.0.0.2 sport=80 dport=1234 [ASSURED] mark=5 use=1\n"
#define UDP_L                                                                                      \
	"udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] src=192.0.2.1 " \
	"dst=10.0.0.2 sport=53 dport=5000 mark=0 use=1\n"
#define V6_L                                                                                       \
	"tcp      6 99 ESTABLISHED src=2001:db8::2 dst=2001:db8::1 sport=1 dport=22 "              \
	"src=2001:db8::1 dst=2001:db8::2 sport=22 dport=1 mark=0 zone=3 use=1\n"
#define ICMP_L                                                                                     \
	"icmp     1 29 src=10.0.0.2 dst=192.0.2.1 type=8 code=0 id=77 [UNREPLIED] src=192.0.2.1 "  \
	"dst=10.0.0.2 type=0 code=0 id=77 mark=0 use=1\n"

/* Timeouts count down in seconds: a line made just now shows timeout - 1, as the kernel's. */
static void test_create_list_get(void **state)
{
	struct child c = {0};
	struct result r;

	child_start(&c, false);
	expect_run(&c, "-I " TCP_I " --state ESTABLISHED -t 300 -u ASSURED,SEEN_REPLY -m 5", 0, "",
		   P "1 flow entries have been created.\n");
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", P "1 flow entries have been created.\n");
	expect_run(&c, "-I " V6_I " --state ESTABLISHED -t 100 -u SEEN_REPLY --zone 3", 0, "",
		   NULL);
	expect_run(&c,
		   "-I -p icmp -s 10.0.0.2 -d 192.0.2.1 --icmp-type 8 --icmp-code 0 "
		   "--icmp-id 77 -t 30",
		   0, "", NULL);
	expect_run(&c, "-I " UDP_I " -t 30", 1, "",
		   P "Operation failed: Such conntrack exists, try -U to update\n");
	/* creation order (the table's walk order is by hash): compare sorted */
	r = run_ct(&c, "-L", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, P "4 flow entries have been shown.\n");
	assert_non_null(strstr(r.out, TCP_L));
	assert_non_null(strstr(r.out, UDP_L));
	assert_non_null(strstr(r.out, V6_L));
	assert_non_null(strstr(r.out, ICMP_L));
	result_free(&r);
	expect_run(&c, "-L -p udp", 0, UDP_L, P "1 flow entries have been shown.\n");
	expect_run(&c, "-L -f ipv6", 0, V6_L, P "1 flow entries have been shown.\n");
	expect_run(&c, "-L -m 5", 0, TCP_L, P "1 flow entries have been shown.\n");
	expect_run(&c, "-L -w 3", 0, V6_L, NULL);
	expect_run(&c, "-L -p tcp --state ESTABLISHED -u ASSURED", 0, TCP_L, NULL);
	expect_run(&c, "-L -p udp -o extended", 0, "ipv4     2 " UDP_L,
		   P "1 flow entries have been shown.\n");
	expect_run(&c, "-G " UDP_I, 0, UDP_L, P "1 flow entries have been shown.\n");
	expect_run(&c, "-G -p udp -s 10.0.0.2 -d 192.0.2.1 --sport 5001 --dport 53", 1, "",
		   P "Operation failed: such conntrack doesn't exist\n");
	expect_run(&c, "-C", 0, "4\n", "");
	/* made by -I, none is NAT-ed (the kernel's are not either: run-ct-tools.sh) */
	expect_run(&c, "-L -n", 0, "", P "0 flow entries have been shown.\n");
	expect_run(&c, "-L -j 10.0.0.2 -p udp", 0, "", P "0 flow entries have been shown.\n");
	/* no accounting: -z lists as -L does (CT_GET_CTRZERO served) */
	r = run_ct(&c, "-L -z", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, P "4 flow entries have been shown.\n");
	result_free(&r);
	expect_run(&c, "-L dying", 0, "", P "0 flow entries have been shown.\n");
	r = run_ct(&c, "-S", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "cpu=0   \tfound=0 invalid=0 insert=4 insert_failed=0 drop=0 "
				   "early_drop=0 error=0 search_restart=0 clash_resolve=0 "
				   "chaintoolong=0 \n");
	result_free(&r);
	child_stop(&c);
}

static void test_update_delete_flush(void **state)
{
	struct child c = {0};

	child_start(&c, false);
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", NULL);
	expect_run(&c, "-I -p udp -s 10.0.0.3 -d 192.0.2.1 --sport 5000 --dport 53 -t 30", 0, "",
		   NULL);
	expect_run(&c, "-U " UDP_I " -m 7", 0,
		   "udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
		   "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=7 use=1\n",
		   P "1 flow entries have been updated.\n");
	/* -m X/M in -U: the bits of M cleared, then X XOR-ed in */
	expect_run(&c, "-U " UDP_I " -m 0x10/0x3", 0, NULL, NULL);
	expect_run(&c, "-L -m 0x14", 0, NULL, P "1 flow entries have been shown.\n");
	expect_run(&c, "-U -p tcp -m 1", 1, "", P "0 flow entries have been updated.\n");
	expect_run(&c, "-D -p udp -s 10.0.0.3", 0,
		   "udp      17 29 src=10.0.0.3 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
		   "src=192.0.2.1 dst=10.0.0.3 sport=53 dport=5000 mark=0 use=1\n",
		   P "1 flow entries have been deleted.\n");
	expect_run(&c, "-D -p tcp", 1, "", P "0 flow entries have been deleted.\n");
	expect_run(&c, "-F", 0, "", P "connection tracking table has been emptied.\n");
	expect_run(&c, "-C", 0, "0\n", "");
	child_stop(&c);
}

static void test_expect(void **state)
{
	struct child c = {0};
	const char *line = "199 proto=6 src=192.0.2.1 dst=10.0.0.2 sport=0 dport=5001 "
			   "mask-src=255.255.255.255 mask-dst=255.255.255.255 sport=0 dport=65535 "
			   "master-src=10.0.0.2 master-dst=192.0.2.1 sport=40000 dport=21 "
			   "class=0 helper=ftp\n";

	child_start(&c, true);
	expect_run(&c, "-L expect", 0, "", P "0 expectations have been shown.\n");
	/* a master without a helper cannot expect, as in the kernel */
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", NULL);
	expect_run(&c,
		   "-I expect " UDP_I " --tuple-src 192.0.2.1 --tuple-dst 10.0.0.2 "
		   "--tuple-port-src 0 --tuple-port-dst 5001 --mask-src 255.255.255.255 "
		   "--mask-dst 255.255.255.255 --mask-port-src 0 --mask-port-dst 65535 -t 200",
		   1, "", NULL);
	expect_run(&c,
		   "-I expect -p tcp -s 10.0.0.2 -d 192.0.2.1 --sport 40000 --dport 21 "
		   "--tuple-src 192.0.2.1 --tuple-dst 10.0.0.2 --tuple-port-src 0 "
		   "--tuple-port-dst 5001 --mask-src 255.255.255.255 --mask-dst 255.255.255.255 "
		   "--mask-port-src 0 --mask-port-dst 65535 -t 200",
		   0, "", "");
	expect_run(&c, "-L expect", 0, line, P "1 expectations have been shown.\n");
	expect_run(&c, "-C expect", 0, "1\n", "");
	expect_run(&c, "-D expect -p tcp -s 192.0.2.1 -d 10.0.0.2 --sport 0 --dport 5001", 0, "",
		   P "1 expectations have been deleted.\n");
	expect_run(&c, "-D expect -p tcp -s 192.0.2.1 -d 10.0.0.2 --sport 0 --dport 5001", 1, "",
		   P "Operation failed: such expectation doesn't exist\n");
	expect_run(&c, "-L expect", 0, "", P "0 expectations have been shown.\n");
	child_stop(&c);
}

struct ev_run {
	const struct child *c;
	volatile sig_atomic_t stop;
	struct result r;
};

static void *ev_thread(void *arg)
{
	struct ev_run *e = arg;

	e->r = run_ct(e->c, "-E -p udp", &e->stop);
	return NULL;
}

static void test_events(void **state)
{
	struct child c = {0};
	struct ev_run e = {.c = &c};
	pthread_t th;
	struct result cnt;

	child_start(&c, false);
	assert_int_equal(pthread_create(&th, NULL, ev_thread, &e), 0);
	/* the subscription must be in place before the first -I: a local socket needs far less
	 * than this pause */
	usleep(200 * 1000);
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", NULL);
	expect_run(&c, "-I " TCP_I " --state ESTABLISHED -t 300", 0, "", NULL);
	expect_run(&c, "-U " UDP_I " -m 7", 0, NULL, NULL);
	expect_run(&c, "-D " UDP_I, 0, NULL, NULL);
	/* one more request: the server has handled everything before it, events included */
	cnt = run_ct(&c, "-C", NULL);
	result_free(&cnt);
	usleep(300 * 1000);
	e.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(e.r.status, 0);
	assert_string_equal(
	    e.r.out,
	    "    [NEW] udp      17 30 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
	    "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=0\n"
	    " [UPDATE] udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
	    "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=7\n"
	    "[DESTROY] udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
	    "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=7\n");
	assert_string_equal(e.r.err, P "3 flow events have been shown.\n");
	result_free(&e.r);
	child_stop(&c);
}

/* --name BOX finds the socket where a named box serves; -A creates, then updates. */
/* The lines of a -o save listing, timeouts out ("-t N" counts down), sorted: a table's content. */
static char *save_content(const char *text)
{
	char *copy = strdup(text), *lines[64], *save, *l, *out;
	size_t n = 0, len = strlen(text) + 1;

	assert_non_null(copy);
	for (l = strtok_r(copy, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save)) {
		char *u = strstr(l, " -u ");

		assert_non_null(u);
		lines[n++] = u;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *t = lines[j];

			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	out = calloc(1, len);
	assert_non_null(out);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(copy);
	return out;
}

/* -L -o save, -F, -R of the listing: the same table (conntrack's backup and restore). Masks
 * and CIDR pick what -L/-D take; -U -u adds a status bit; an update that changes nothing
 * is not counted. */
static void test_save_restore(void **state)
{
	struct child c = {0};
	struct result r;
	char path[64], *before, *after;
	FILE *f;

	child_start(&c, false);
	expect_run(&c, "-I " TCP_I " --state ESTABLISHED -t 300 -u ASSURED,SEEN_REPLY -m 5", 0, "",
		   NULL);
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", NULL);
	expect_run(&c, "-I " V6_I " --state LISTEN -t 100 -u SEEN_REPLY --zone 3", 0, "", NULL);
	expect_run(&c,
		   "-I -p icmp -s 10.0.0.2 -d 192.0.2.1 --icmp-type 8 --icmp-code 0 "
		   "--icmp-id 77 -t 30",
		   0, "", NULL);
	expect_run(&c, "-I -t 40 -s 0.0.0.0 -d 224.0.0.22 -p igmp -w 9", 0, "", NULL);
	expect_run(&c,
		   "-I -r 198.51.100.7 -q 203.0.113.1 -p udp --reply-port-src 53 "
		   "--reply-port-dst 999 -t 30",
		   0, "", NULL);
	/* NAT on create: saved with -n, which -R reads back as --src-nat */
	expect_run(&c,
		   "-I -p udp -s 10.0.7.1 -d 198.51.100.9 --sport 4000 --dport 53 -t 30 "
		   "--src-nat 203.0.113.9",
		   0, "", NULL);
	r = run_ct(&c, "-L -o save", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, P "7 flow entries have been shown.\n");
	assert_non_null(strstr(r.out, "-s 10.0.7.1 -d 198.51.100.9 -r 198.51.100.9 -n 203.0.113.9 "
				      "-p udp --sport 4000 --dport 53 --reply-port-src 53 "
				      "--reply-port-dst 4000\n"));
	assert_non_null(strstr(r.out, "-w 3 -s 2001:db8::2 -d 2001:db8::1 -r 2001:db8::1 -q "
				      "2001:db8::2 -p tcp --sport 1 --dport 22 --reply-port-src 22 "
				      "--reply-port-dst 1 --state SYN_SENT2\n"));
	assert_non_null(strstr(r.out, "-u UNSET -w 9 -s 0.0.0.0 -d 224.0.0.22 -r 224.0.0.22 -q "
				      "0.0.0.0 -p 2\n"));
	assert_non_null(strstr(r.out, "-s 203.0.113.1 -d 198.51.100.7 -r 198.51.100.7 -q "
				      "203.0.113.1 -p udp --sport 999 --dport 53"));
	before = save_content(r.out);
	snprintf(path, sizeof(path), "/tmp/pt-cmd-ct-save-%d", (int)getpid());
	assert_non_null(f = fopen(path, "w"));
	fputs(r.out, f);
	fclose(f);
	result_free(&r);
	expect_run(&c, "-F", 0, "", NULL);
	expect_run(&c, "-C", 0, "0\n", "");
	r = run_ct(&c, "-R", NULL); /* no file: as conntrack, -R alone is no option */
	assert_int_equal(r.status, 2);
	result_free(&r);
	{
		char words[128];

		snprintf(words, sizeof(words), "-R %s", path);
		expect_run(&c, words, 0, "", "");
		/* again: the lines are -A, which takes an entry that exists as done */
		expect_run(&c, words, 0, "", "");
	}
	r = run_ct(&c, "-L -o save", NULL);
	after = save_content(r.out);
	assert_string_equal(after, before);
	result_free(&r);
	free(before);
	free(after);
	unlink(path);
	/* masks: CIDR and --mask-src pick by prefix; the rest is left */
	expect_run(&c, "-L -s 10.0.0.0/8 -d 192.0.2.1/32 -p udp", 0, NULL,
		   P "1 flow entries have been shown.\n");
	expect_run(&c, "-L -s 10.0.1.0 --mask-src 255.255.255.0", 0, "",
		   P "0 flow entries have been shown.\n");
	expect_run(&c, "-L -s 2001:db8::/32 -o extended -p tcp", 0, NULL,
		   P "1 flow entries have been shown.\n");
	r = run_ct(&c, "-D -s 10.0.0.0/24", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, P "3 flow entries have been deleted.\n");
	result_free(&r);
	expect_run(&c, "-C", 0, "4\n", "");
	/* loaded back NAT-ed: the filter finds it (the port was kept, so not as IP:PORT) */
	r = run_ct(&c, "-L --src-nat 203.0.113.9 -o save", NULL);
	assert_non_null(strstr(r.out, " -u UNSET -s 10.0.7.1 -d 198.51.100.9 -r 198.51.100.9 -n "
				      "203.0.113.9 -p udp --sport 4000 --dport 53 "
				      "--reply-port-src 53 --reply-port-dst 4000\n"));
	assert_string_equal(r.err, P "1 flow entries have been shown.\n");
	result_free(&r);
	expect_run(&c, "-L --src-nat 203.0.113.9:4000", 0, "",
		   P "0 flow entries have been shown.\n");
	/* -U -u adds the bit to the entry's; the same again changes nothing: not counted */
	expect_run(&c, "-U -p udp -s 203.0.113.1 -u ASSURED", 0, NULL,
		   P "1 flow entries have been updated.\n");
	expect_run(&c, "-L -p udp -u SEEN_REPLY", 0, "", NULL);
	expect_run(&c, "-U -p udp -s 203.0.113.1 -u ASSURED", 1, "",
		   P "0 flow entries have been updated.\n");
	child_stop(&c);
}

/* Timestamps (the box's `timestamp` setting) under the box's clock: the entry's start is the
 * box time it was made (1000 s here), delta-time counts from it, -o ktimestamp prints the start
 * as a date, a delete the stop too; -o xml carries them. */
static void test_timestamps(void **state)
{
	struct child c = {.tstamp = true};
	struct result r;

	setenv("TZ", "UTC", 1);
	tzset();
	child_start(&c, false);
	expect_run(&c, "-I " UDP_I " -t 30", 0, "", NULL);
	r = run_ct(&c, "-L -o ktimestamp", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(
	    strstr(r.out, "mark=0 delta-time=0 [start=Thu Jan  1 00:16:40 1970] use=1\n"));
	result_free(&r);
	r = run_ct(&c, "-L", NULL);
	assert_non_null(strstr(r.out, "mark=0 delta-time=0 use=1\n"));
	result_free(&r);
	r = run_ct(&c, "-L -o xml,ktimestamp", NULL);
	assert_non_null(strstr(r.out, "<timestamp><start>1000"));
	assert_non_null(strstr(r.out, "</timestamp><deltatime>0</deltatime></meta></flow>\n"));
	result_free(&r);
	r = run_ct(&c, "-D -p udp -o ktimestamp", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, " [start=Thu Jan  1 00:16:40 1970] use=1\n"));
	result_free(&r);
	child_stop(&c);
	unsetenv("TZ");
}

/* Labels by connlabel.conf's names: -I --label-add gives an entry its labels (and room for
 * them), -U --label-add / --label-del change them, -l picks by them, -o labels prints them;
 * an entry made without room takes none (the kernel's ENOSPC), unknown names are refused. */
static void test_labels(void **state)
{
	struct child c = {0};
	char conf[64];
	FILE *f;

	snprintf(conf, sizeof(conf), "/tmp/pt-cmd-ct-labels-%d", (int)getpid());
	assert_non_null(f = fopen(conf, "w"));
	fputs("# bit name\n0 eth0-in\n1 eth1-in\n2 bulk\n127 last\n", f);
	fclose(f);
	setenv("PKTTABLES_CONNLABEL_CONF", conf, 1);
	child_start(&c, false);
	expect_run(&c, "-I " UDP_I " -t 30 --label-add bulk,eth0-in", 0, "",
		   P "1 flow entries have been created.\n");
	expect_run(&c, "-I " TCP_I " --state ESTABLISHED -t 30", 0, "", NULL);
	expect_run(&c, "-L -p udp -o labels", 0,
		   "udp      17 29 src=10.0.0.2 dst=192.0.2.1 sport=5000 dport=53 [UNREPLIED] "
		   "src=192.0.2.1 dst=10.0.0.2 sport=53 dport=5000 mark=0 use=1 "
		   "labels=eth0-in,bulk\n",
		   NULL);
	expect_run(&c, "-L -l bulk", 0, UDP_L, P "1 flow entries have been shown.\n");
	expect_run(&c, "-L -l bulk,last", 0, "", P "0 flow entries have been shown.\n");
	expect_run(&c, "-U -p udp --label-add last", 0, NULL,
		   P "1 flow entries have been updated.\n");
	expect_run(&c, "-U -p udp --label-add last", 1, "",
		   P "0 flow entries have been updated.\n");
	expect_run(&c, "-U -p udp --label-del eth0-in", 0, NULL, NULL);
	expect_run(&c, "-L -l last -o labels,id -p udp", 0, NULL,
		   P "1 flow entries have been shown.\n");
	{
		struct result r = run_ct(&c, "-L -p udp -o labels", NULL);

		assert_non_null(strstr(r.out, " use=1 labels=bulk,last\n"));
		result_free(&r);
		r = run_ct(&c, "-L -p udp -o xml,labels", NULL);
		assert_non_null(strstr(r.out, "<mark>0</mark><labels><label>bulk</label><label>last"
					      "</label></labels><use>1</use>"));
		result_free(&r);
	}
	expect_run(&c, "-U -p udp --label-del", 0, NULL, NULL);
	expect_run(&c, "-L -p udp -o labels", 0, UDP_L, NULL);
	/* the TCP entry was made without labels: no room for them */
	expect_run(&c, "-U -p tcp --label-add bulk", 1, "",
		   P "0 flow entries have been updated.\n");
	expect_run(NULL, "-L -l nosuch", 2, "",
		   P "unknown label 'nosuch'\nTry `conntrack -h' or 'conntrack --help' for more "
		     "information.\n");
	expect_run(NULL, "-U --label-add bulk --label-del last", 1, "",
		   P "cannot use --label-add and --label-del at the same time\n");
	child_stop(&c);
	unsetenv("PKTTABLES_CONNLABEL_CONF");
	unlink(conf);
}

static void test_name_and_add(void **state)
{
	struct child c = {0};
	char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/pt-cmd-ct-dir-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("PKTTABLES_RUNDIR", dir, 1);
	snprintf(c.path, sizeof(c.path), "%s/edge.ctl", dir);
	child_start(&c, false);
	/* conntrack 1.4.7's -A: -I that takes an existing entry as done, leaving it as it was */
	expect_run(NULL, "--name edge -A " UDP_I " -t 30", 0, "",
		   P "1 flow entries have been added.\n");
	expect_run(NULL, "--name edge -A " UDP_I " -t 30 -m 9", 0, "",
		   P "0 flow entries have been added.\n");
	expect_run(NULL, "--name edge -L -m 9", 0, "", P "0 flow entries have been shown.\n");
	expect_run(NULL, "--name nosuch -C", 1, "", NULL);
	child_stop(&c);
	unsetenv("PKTTABLES_RUNDIR");
	rmdir(dir);
}

static void test_no_box(void **state)
{
	struct child c = {.path = "/tmp/pt-cmd-ct-nobody.sock"};
	struct result r = run_ct(&c, "-L", NULL);

	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "Can't open handler"));
	result_free(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_create_list_get), cmocka_unit_test(test_update_delete_flush),
	    cmocka_unit_test(test_expect),	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_save_restore),    cmocka_unit_test(test_timestamps),
	    cmocka_unit_test(test_labels),	    cmocka_unit_test(test_name_and_add),
	    cmocka_unit_test(test_no_box),
	};

	if (argc == 3 && !strcmp(argv[1], "--serve"))
		return serve(argv[2], -1, false, false);
	if (argc == 3 && !strcmp(argv[1], "--serve-tstamp"))
		return serve(argv[2], -1, false, true);
	if (argc == 3 && !strcmp(argv[1], "--serve-ftp"))
		return serve(argv[2], -1, true, false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
