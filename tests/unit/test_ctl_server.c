// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket against a real box: a socket under /tmp, a table of 10k entries, and a
 * raw client driven in the same thread as the server (send, ctl_server_process, read what
 * arrived) so that the batching is visible and deterministic.
 */
#include "ct/ct_plugin.h"
#include "ct_test.h"
#include "ctl_test.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netfilter.h>
#include <linux/netlink.h>

#include "ctl/client.h"
#include "ctl/msg.h"
#include "ctl/server.h"
#include "engine/box.h"

#define N 10000

struct fx {
	struct box *b;
	struct ct_table *t;
	struct ctl_server *s;
	int fd;
	char path[108];
};

/* What a request got back. */
struct answer {
	bool done;	  /* NLMSG_DONE or NLMSG_ERROR seen */
	int error;	  /* of the NLMSG_ERROR */
	char msg[512];	  /* its text */
	uint32_t line;
	unsigned entries; /* CT_NEW messages */
	unsigned datagrams;
	uint32_t count; /* CTL_A_COUNT */
	uint64_t lost;	/* CTL_A_EVENTS_LOST */
	bool lost_seen;
	char *text; /* CTL_RA_TEXT, concatenated */
	size_t text_len;
	char **lines;
	unsigned nlines;
};

static struct fx *fx_new(const struct ctl_server_config *cfg)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->b = box_new("b", NULL, NULL);
	assert_int_equal(ct_box_enable(f->b, true), 0);
	f->t = ct_box_table(f->b);
	assert_non_null(f->t);
	f->fd = ctl_test_serve(f->b, "ctl-test", cfg, &f->s, f->path, sizeof(f->path));
	return f;
}

static void fx_free(struct fx *f)
{
	close(f->fd);
	ctl_server_free(f->s);
	box_free(f->b);
	free(f);
}

static void fill(struct fx *f, unsigned n)
{
	char pkt[128];

	for (unsigned i = 0; i < n; i++) {
		snprintf(pkt, sizeof(pkt), "udp 10.%u.%u.%u:%u > 192.0.2.1:53", (i >> 16) & 255,
			 (i >> 8) & 255, i & 255, 1024 + i % 50000);
		ct_test_feed(f->t, pkt, 0);
		if (i % 4 == 0) {
			struct ct_entry *e = ct_test_find(f->t, pkt, 0);

			ct_entry_set_mark(e, 1);
		}
	}
	assert_int_equal(ct_table_stats(f->t)->count, n);
}

static void answer_free(struct answer *a)
{
	for (unsigned i = 0; i < a->nlines; i++)
		free(a->lines[i]);
	free(a->lines);
	free(a->text);
	memset(a, 0, sizeof(*a));
}

static void take(struct answer *a, const struct nlmsghdr *nlh)
{
	struct ctl_ct c;
	struct ctl_error err;
	char line[512];
	uint64_t v;
	uint32_t u;

	if (nlh->nlmsg_type == NLMSG_DONE) {
		a->done = true;
	} else if (nlh->nlmsg_type == NLMSG_ERROR) {
		assert_int_equal(ctl_parse_error(nlh, &a->error, a->msg, sizeof(a->msg), &a->line),
				 0);
		a->done = true;
	} else if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW) ||
		   (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_DELETE) &&
		    !ctl_get_u32(nlh, CTL_A_COUNT, &u))) {
		assert_int_equal(ctl_parse_ct(nlh, &c, &err), 0);
		a->entries++;
		ctl_ct_format(&c, line, sizeof(line));
		a->lines = realloc(a->lines, (a->nlines + 1) * sizeof(*a->lines));
		a->lines[a->nlines++] = strdup(line);
	} else if (ctl_get_u32(nlh, CTL_A_COUNT, &u)) {
		a->count = u;
	} else if (ctl_get_u64(nlh, CTL_A_EVENTS_LOST, &v) &&
		   nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST)) {
		a->lost = v;
		a->lost_seen = true;
	} else if (CTL_SUBSYS(nlh->nlmsg_type) == CTL_SUBSYS_RULES) {
		const struct nlattr *at;

		mnl_attr_for_each(at, nlh, sizeof(struct nfgenmsg))
		{
			size_t l = mnl_attr_get_payload_len(at);

			a->text = realloc(a->text, a->text_len + l + 1);
			memcpy(a->text + a->text_len, mnl_attr_get_payload(at), l);
			a->text_len += l;
			a->text[a->text_len] = '\0';
		}
	}
}

/* Read every datagram waiting; returns how many. */
static unsigned drain(struct fx *f, struct answer *a)
{
	static unsigned char rx[65536];
	unsigned n = 0;
	ssize_t len;

	while ((len = recv(f->fd, rx, sizeof(rx), MSG_DONTWAIT)) > 0) {
		int rem = (int)len;
		const struct nlmsghdr *nlh;

		n++;
		a->datagrams++;
		for (nlh = (const void *)rx; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
			take(a, nlh);
	}
	return n;
}

/* Serve until the answer is complete; returns the number of process calls it took. */
static unsigned serve(struct fx *f, struct answer *a)
{
	unsigned calls = 0;

	while (!a->done) {
		struct pollfd p = { .fd = ctl_server_fd(f->s), .events = POLLIN };

		poll(&p, 1, 100);
		ctl_server_process(f->s);
		calls++;
		drain(f, a);
		if (calls > 100000)
			fail_msg("no answer after %u calls", calls);
	}
	return calls;
}

static void send_req(struct fx *f, const struct nlmsghdr *nlh)
{
	assert_int_equal(send(f->fd, nlh, nlh->nlmsg_len, 0), (ssize_t)nlh->nlmsg_len);
}

static unsigned char buf[1 << 16];

static struct nlmsghdr *req(uint16_t subsys, uint16_t msg, uint16_t flags, uint8_t family)
{
	return ctl_msg_start(buf, sizeof(buf), CTL_TYPE(subsys, msg), NLM_F_REQUEST | flags, 7,
			     family, true);
}

/* Send a request and serve it until its answer is complete. */
static void ask(struct fx *f, const struct nlmsghdr *nlh, struct answer *a)
{
	send_req(f, nlh);
	serve(f, a);
}

/* A request whose answer is `error` (0: none) with a message naming `names` (or NULL). */
static void expect_answer(struct fx *f, const struct nlmsghdr *nlh, int error, const char *names)
{
	struct answer a = {0};

	ask(f, nlh, &a);
	assert_int_equal(a.error, error);
	if (names)
		assert_non_null(strstr(a.msg, names));
	answer_free(&a);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct lines {
	char **v;
	unsigned n;
};

static enum ct_walk_action collect(void *priv, struct ct_entry *e)
{
	struct lines *l = priv;
	char line[512];

	ct_entry_format(e, 0, line, sizeof(line));
	l->v[l->n++] = strdup(line);
	return CT_WALK_NEXT;
}

static void test_dump_10k(void **state)
{
	struct ctl_server_config cfg;
	struct answer a = { 0 };
	struct lines want = { calloc(N, sizeof(char *)), 0 };
	uint32_t cursor = 0;
	struct fx *f;
	unsigned calls;

	ctl_server_config_default(&cfg);
	cfg.batch = 256;
	f = fx_new(&cfg);
	fill(f, N);
	send_req(f, req(CTL_SUBSYS_CT, CTL_CT_GET, NLM_F_DUMP, AF_UNSPEC));
	/* one process call serves one batch, not the table */
	ctl_server_process(f->s);
	drain(f, &a);
	assert_false(a.done);
	assert_true(a.entries > 0 && a.entries < 2 * 256 + 64);
	calls = serve(f, &a);
	assert_int_equal(a.error, 0);
	assert_int_equal(a.entries, N);
	assert_true(calls >= N / 256 / 2);
	/* complete and exact: the lines the table itself prints */
	while (!ct_walk(f->t, &cursor, 1000, 0, collect, &want))
		;
	assert_int_equal(want.n, N);
	qsort(want.v, want.n, sizeof(char *), cmp_str);
	qsort(a.lines, a.nlines, sizeof(char *), cmp_str);
	for (unsigned i = 0; i < N; i++) {
		assert_string_equal(a.lines[i], want.v[i]);
		free(want.v[i]);
	}
	free(want.v);
	answer_free(&a);
	fx_free(f);
}

static void test_get_delete_flush(void **state)
{
	struct fx *f = fx_new(NULL);
	struct answer a = { 0 };
	struct ctl_tuple tu;
	struct ctl_filter flt;
	struct nlmsghdr *nlh;

	fill(f, 1000);
	/* get by tuple */
	memset(&tu, 0, sizeof(tu));
	tu.t.family = AF_INET;
	tu.t.l4proto = IPPROTO_UDP;
	inet_pton(AF_INET, "10.0.0.5", &tu.t.src);
	inet_pton(AF_INET, "192.0.2.1", &tu.t.dst);
	tu.t.s.port = 1029;
	tu.t.d.port = 53;
	tu.have = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO | CTL_T_SPORT | CTL_T_DPORT;
	nlh = req(CTL_SUBSYS_CT, CTL_CT_GET, 0, AF_INET);
	ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &tu);
	ask(f, nlh, &a);
	assert_int_equal(a.error, 0);
	assert_int_equal(a.entries, 1);
	assert_non_null(strstr(a.lines[0], "src=10.0.0.5 dst=192.0.2.1 sport=1029 dport=53"));
	answer_free(&a);
	/* delete it, then it is gone */
	nlh = req(CTL_SUBSYS_CT, CTL_CT_DELETE, 0, AF_INET);
	ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &tu);
	ask(f, nlh, &a);
	assert_int_equal(a.error, 0);
	assert_int_equal(ct_table_stats(f->t)->count, 999);
	answer_free(&a);
	expect_answer(f, nlh, -ENOENT, NULL);
	/* delete by filter: mark 1 (every 4th, but #5 was not one of them) */
	nlh = req(CTL_SUBSYS_CT, CTL_CT_DELETE, 0, AF_INET);
	memset(&flt, 0, sizeof(flt));
	flt.have = CTL_FH_MARK;
	flt.mark = 1;
	flt.mark_mask = 0xffffffff;
	ctl_put_filter(nlh, sizeof(buf), &flt);
	ask(f, nlh, &a);
	assert_int_equal(a.error, 0);
	assert_int_equal(a.count, 250);
	assert_int_equal(ct_table_stats(f->t)->count, 749);
	answer_free(&a);
	/* by address: a dump with a filter sees exactly one */
	nlh = req(CTL_SUBSYS_CT, CTL_CT_GET, NLM_F_DUMP, AF_INET);
	memset(&flt, 0, sizeof(flt));
	flt.orig.t.family = AF_INET;
	inet_pton(AF_INET, "10.0.3.7", &flt.orig.t.src);
	flt.orig.have = CTL_T_SRC;
	ctl_put_filter(nlh, sizeof(buf), &flt);
	ask(f, nlh, &a);
	assert_int_equal(a.entries, 1);
	answer_free(&a);
	/* statistics */
	expect_answer(f, req(CTL_SUBSYS_CT, CTL_CT_GET_STATS, 0, AF_UNSPEC), 0, NULL);
	/* flush */
	ask(f, req(CTL_SUBSYS_CT, CTL_CT_FLUSH, 0, AF_UNSPEC), &a);
	assert_int_equal(a.error, 0);
	assert_int_equal(a.count, 749);
	assert_int_equal(ct_table_stats(f->t)->count, 0);
	answer_free(&a);
	fx_free(f);
}

static void test_events_slow_listener(void **state)
{
	struct ctl_server_config cfg;
	struct answer a = { 0 };
	struct fx *f;
	char pkt[96];

	ctl_server_config_default(&cfg);
	cfg.event_qlen = 8;
	f = fx_new(&cfg);
	expect_answer(f, req(CTL_SUBSYS_CT, CTL_CT_EVENTS, 0, AF_UNSPEC), 0, NULL);
	/* 100 new connections while nobody serves the socket: 8 fit, 92 are lost */
	for (unsigned i = 0; i < 100; i++) {
		snprintf(pkt, sizeof(pkt), "tcp 10.1.0.%u:4000 > 192.0.2.9:80 syn seq=1 win=100", i);
		ct_test_feed(f->t, pkt, 0);
	}
	for (int i = 0; i < 20; i++) {
		ctl_server_process(f->s);
		drain(f, &a);
	}
	assert_int_equal(a.entries, 8);
	assert_true(a.lost_seen);
	assert_int_equal(a.lost, 92);
	assert_non_null(strstr(a.lines[0], "SYN_SENT src=10.1.0.0"));
	answer_free(&a);
	/* the statistics say it too */
	send_req(f, req(CTL_SUBSYS_CT, CTL_CT_GET_STATS_CPU, 0, AF_UNSPEC));
	a.done = false;
	serve(f, &a);
	assert_int_equal(a.error, 0);
	answer_free(&a);
	/* a destroy reaches the listener as CT_DELETE */
	ct_flush(f->t);
	for (int i = 0; i < 40; i++) {
		ctl_server_process(f->s);
		drain(f, &a);
	}
	assert_true(a.entries >= 8);
	answer_free(&a);
	fx_free(f);
}

static const char good[] = "*filter\n"
			   ":INPUT ACCEPT [0:0]\n"
			   ":FORWARD DROP [0:0]\n"
			   ":OUTPUT ACCEPT [0:0]\n"
			   "[3:180] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
			   "COMMIT\n";
static const char bad[] = "*filter\n"
			  ":INPUT ACCEPT [0:0]\n"
			  "-A INPUT -p tcp --dport 22 -j NOSUCHTARGET\n"
			  "COMMIT\n";

static void replace(struct fx *f, struct answer *a, const char *text, uint32_t flags)
{
	struct nlmsghdr *nlh = req(CTL_SUBSYS_RULES, CTL_RULES_REPLACE, 0, AF_INET);

	mnl_attr_put(nlh, CTL_RA_TEXT, strlen(text), text);
	mnl_attr_put_strz(nlh, CTL_RA_NAME, "new.rules");
	mnl_attr_put_u32(nlh, CTL_RA_FLAGS, htonl(flags));
	ask(f, nlh, a);
}

static void dump_rules(struct fx *f, struct answer *a)
{
	struct nlmsghdr *nlh = req(CTL_SUBSYS_RULES, CTL_RULES_DUMP, 0, AF_INET);

	mnl_attr_put_u32(nlh, CTL_RA_FLAGS, htonl(CTL_RF_COUNTERS));
	ask(f, nlh, a);
}

static void test_rules(void **state)
{
	struct fx *f = fx_new(NULL);
	struct answer a = { 0 };
	struct nlmsghdr *nlh;
	char *before;

	replace(f, &a, good, CTL_RF_COUNTERS);
	assert_int_equal(a.error, 0);
	answer_free(&a);
	dump_rules(f, &a);
	assert_non_null(a.text);
	assert_non_null(strstr(a.text, "[3:180] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT"));
	assert_non_null(strstr(a.text, ":FORWARD DROP"));
	before = strdup(a.text);
	answer_free(&a);
	/* a broken ruleset: file:line in the reply, nothing changed */
	replace(f, &a, bad, 0);
	assert_int_equal(a.error, -EINVAL);
	assert_int_equal(a.line, 3);
	if (!strstr(a.msg, "new.rules:3:"))
		fail_msg("message '%s'", a.msg);
	answer_free(&a);
	dump_rules(f, &a);
	assert_string_equal(a.text, before);
	free(before);
	answer_free(&a);
	/* zero the counters */
	expect_answer(f, req(CTL_SUBSYS_RULES, CTL_RULES_ZERO, 0, AF_INET), 0, NULL);
	dump_rules(f, &a);
	assert_non_null(strstr(a.text, "[0:0] -A INPUT -p tcp"));
	answer_free(&a);
	/* a policy */
	nlh = req(CTL_SUBSYS_RULES, CTL_RULES_POLICY, 0, AF_INET);
	mnl_attr_put_strz(nlh, CTL_RA_TABLE, "filter");
	mnl_attr_put_strz(nlh, CTL_RA_CHAIN, "INPUT");
	mnl_attr_put_u32(nlh, CTL_RA_POLICY, htonl(NF_DROP));
	expect_answer(f, nlh, 0, NULL);
	dump_rules(f, &a);
	assert_non_null(strstr(a.text, ":INPUT DROP"));
	answer_free(&a);
	/* a chain that does not exist */
	nlh = req(CTL_SUBSYS_RULES, CTL_RULES_POLICY, 0, AF_INET);
	mnl_attr_put_strz(nlh, CTL_RA_TABLE, "filter");
	mnl_attr_put_strz(nlh, CTL_RA_CHAIN, "NOPE");
	mnl_attr_put_u32(nlh, CTL_RA_POLICY, htonl(NF_DROP));
	expect_answer(f, nlh, -ENOENT, "CTL_RA_CHAIN");
	fx_free(f);
}

static void test_malformed_survives(void **state)
{
	struct fx *f = fx_new(NULL);
	struct answer a = { 0 };
	struct nlmsghdr *nlh;
	unsigned char junk[64];

	/* bytes that are no message */
	memset(junk, 0xa5, sizeof(junk));
	assert_int_equal(send(f->fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	serve(f, &a);
	assert_int_equal(a.error, -EINVAL);
	answer_free(&a);
	/* no version */
	nlh = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_FLUSH), NLM_F_REQUEST,
			    3, 0, false);
	expect_answer(f, nlh, -EINVAL, "CTL_A_VERSION");
	/* a bad attribute */
	nlh = req(CTL_SUBSYS_CT, CTL_CT_GET, NLM_F_DUMP, AF_INET);
	mnl_attr_put(nlh, CTA_MARK, 2, "ab");
	expect_answer(f, nlh, -EINVAL, "CTA_MARK");
	/* expectations: a dump of none; a delete must say which */
	expect_answer(f, req(CTL_SUBSYS_EXP, CTL_EXP_GET, NLM_F_DUMP, AF_INET), 0, NULL);
	expect_answer(f, req(CTL_SUBSYS_EXP, CTL_EXP_DELETE, 0, AF_INET), -EINVAL,
		      "CTA_EXPECT_TUPLE");
	/* a create needs its timeout (ctnetlink requires one); with it, the entry is there */
	{
		struct ctl_ct c = { .have = CTL_C_ORIG };

		c.orig.family = AF_INET;
		c.orig.l4proto = IPPROTO_UDP;
		c.orig.src.b[0] = 10, c.orig.src.b[3] = 9;
		c.orig.dst.b[0] = 192, c.orig.dst.b[2] = 2, c.orig.dst.b[3] = 1;
		c.orig.s.port = 4000;
		c.orig.d.port = 53;
		nlh = req(CTL_SUBSYS_CT, CTL_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, AF_INET);
		assert_int_equal(ctl_put_ct(nlh, sizeof(buf), &c), 0);
		expect_answer(f, nlh, -EINVAL, "CTA_TIMEOUT");
		c.have |= CTL_C_TIMEOUT;
		c.timeout = 30;
		nlh = req(CTL_SUBSYS_CT, CTL_CT_NEW, NLM_F_CREATE | NLM_F_EXCL, AF_INET);
		assert_int_equal(ctl_put_ct(nlh, sizeof(buf), &c), 0);
		expect_answer(f, nlh, 0, NULL);
		assert_non_null(ct_test_find(f->t, "udp 192.0.2.1:53 > 10.0.0.9:4000", 0));
		expect_answer(f, nlh, -EEXIST, NULL); /* again, with NLM_F_EXCL */
	}
	/* and the server still answers */
	expect_answer(f, req(CTL_SUBSYS_CT, CTL_CT_GET_STATS, 0, AF_UNSPEC), 0, NULL);
	fx_free(f);
}

/* The socket file's mode, and SO_PEERCRED for a peer that gets past it. */
static void test_access(void **state)
{
	struct fx *f = fx_new(NULL);
	struct stat st;
	pid_t pid;
	int status = -1;

	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	if (geteuid() != 0) {
		/* refusing someone else needs a second uid: only root can make one */
		fx_free(f);
		skip();
	}
	chmod(f->path, 0666);
	pid = fork();
	if (pid == 0) {
		struct ctl_client *c;
		char msg[256];
		unsigned char b[256];
		struct nlmsghdr *nlh;
		int r;

		if (setuid(65534) < 0)
			_exit(10);
		if (!(c = ctl_client_open(f->path)))
			_exit(11);
		nlh = ctl_msg_start(b, sizeof(b), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_FLUSH),
				    NLM_F_REQUEST, 1, 0, true);
		r = ctl_client_request(c, nlh, NULL, NULL, msg, sizeof(msg), NULL);
		_exit(r == -EPERM && strstr(msg, "uid 65534") ? 0 : 12);
	}
	for (int i = 0; i < 5000; i++) {
		ctl_server_process(f->s);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(1000);
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_10k),
		cmocka_unit_test(test_get_delete_flush),
		cmocka_unit_test(test_events_slow_listener),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_malformed_survives),
		cmocka_unit_test(test_access),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
