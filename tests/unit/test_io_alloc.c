// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Replay and NFQUEUE allocate nothing per packet once warm: their packets come from the box's
 * pool (box_pkt_get) and go back to it. Counted by replacing the allocator in this program
 * (alloc_count.h; skipped under AddressSanitizer).
 *
 * - replay: the same capture of FLOWS UDP flows (each packet and its reply, SNAT, a mangle
 *   MARK, conntrack's ESTABLISHED rule) replayed with 4 and with 8 rounds of every flow: the
 *   whole of sim_replay (set-up, listing and summary included) makes as many allocations for
 *   either, so the 4 more rounds made none.
 * - NFQUEUE: netlink packet messages as the kernel sends them, through a queue without a socket
 *   (nfqueue_open_unbound / nfqueue_handle): after a first round, rounds of every flow make no
 *   allocation, the verdicts (a batch for the marked packets, a verdict with the payload for
 *   the rewritten ones) as before.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "engine/box.h"
#include "io/nfqueue.h"
#include "io/pcapio.h"
#include "pkt/build.h"
#include "rules/rules.h"
#include "sim/sim.h"

#include "alloc_count.h"

#define FLOWS 32

/* Flow i's packet (reply: its answer to the SNAT address) as raw IPv4 bytes; the length. */
static uint32_t flow_bytes(unsigned i, bool reply, uint8_t *buf, size_t cap)
{
	struct pkt_spec *s = malloc(sizeof(*s));
	struct pkt *p;
	uint32_t len;

	assert_non_null(s);
	pkt_spec_init(s);
	s->family = AF_INET;
	s->proto = 17;
	s->ttl = 64;
	s->payload_len = 32;
	pt_addr_parse(reply ? "198.51.100.1" : "10.0.0.1", &s->src);
	pt_addr_parse(reply ? "203.0.113.1" : "198.51.100.1", &s->dst);
	if (!reply)
		s->src.b[3] = (uint8_t)(1 + i);
	s->sport = reply ? 53 : (uint16_t)(1024 + i);
	s->dport = reply ? (uint16_t)(1024 + i) : 53;
	p = pkt_build(s);
	free(s);
	assert_non_null(p);
	len = p->len;
	assert_true(len <= cap);
	assert_int_equal(pkt_copy_out(p, 0, buf, len), 0);
	pkt_free(p);
	return len;
}

/* ---- replay ------------------------------------------------------------------------------ */

static const char replay_rules[] =
    "*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\n"
    "-A PREROUTING -i lan0 -j MARK --set-mark 0x1\nCOMMIT\n"
    "*nat\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -o wan0 -j SNAT --to-source 203.0.113.1\n"
    "COMMIT\n"
    "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n"
    "-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
    "-A FORWARD -i lan0 -o wan0 -j ACCEPT\nCOMMIT\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A capture of `rounds` rounds of every flow's packet and reply, 1 ms apart. */
static void write_capture(const char *path, unsigned rounds)
{
	struct pcapio_writer *w;
	uint64_t ts = 1000000000ull;
	uint8_t b[128];
	char err[256];

	assert_int_equal(pcapio_create(path, PKT_LINK_RAW, &w, err, sizeof(err)), 0);
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < FLOWS; i++)
			for (int reply = 0; reply < 2; reply++) {
				uint32_t len = flow_bytes(i, reply, b, sizeof(b));

				assert_int_equal(pcapio_write_bytes(w, b, len, ts), 0);
				ts += 1000000;
			}
	assert_int_equal(pcapio_finish(w), 0);
}

/* The summary's "forwarded N" of a replay's output. */
static unsigned long forwarded(FILE *out)
{
	char line[256];
	unsigned long n = 0;

	rewind(out);
	while (fgets(line, sizeof(line), out))
		if (sscanf(line, "  forwarded %lu", &n) == 1)
			break;
	return n;
}

/* Allocations made by one whole `pkttables replay` of `rounds` rounds (every packet printed). */
static unsigned long replay_allocs(const char *dir, unsigned rounds)
{
	char rules[256], cap[256];
	struct sim_replay_opts o;
	FILE *out = tmpfile(), *err = tmpfile();
	unsigned long n;
	int rc;

	assert_non_null(out);
	assert_non_null(err);
	snprintf(rules, sizeof(rules), "%s/rules", dir);
	snprintf(cap, sizeof(cap), "%s/in.pcap", dir);
	write_file(rules, replay_rules);
	write_capture(cap, rounds);
	memset(&o, 0, sizeof(o));
	o.rules = rules;
	o.in = cap;
	n_alloc = n_free = 0;
	counting = 1;
	rc = sim_replay(&o, out, err);
	counting = 0;
	n = n_alloc;
	assert_int_equal(rc, 0);
	/* every packet and every reply went through (NAT kept the source port) */
	assert_int_equal(forwarded(out), 2ul * FLOWS * rounds);
	fclose(out);
	fclose(err);
	unlink(rules);
	unlink(cap);
	return n;
}

static void test_replay_allocates_nothing_per_packet(void **state)
{
	char dir[] = "/tmp/pt-io-alloc-XXXXXX";
	unsigned long four, eight;

	(void)state;
	assert_non_null(mkdtemp(dir));
	four = replay_allocs(dir, 4);
	eight = replay_allocs(dir, 8);
	rmdir(dir);
	if (!ALLOC_COUNTING) /* the replays ran (under the sanitizers); nothing was counted */
		skip();
	printf("replay: %lu allocations for %u packets, %lu for %u\n", four, 4 * 2 * FLOWS, eight,
	       8 * 2 * FLOWS);
	assert_true(four > 0); /* the counting works: set-up allocates */
	assert_int_equal(eight, four);
}

/* ---- NFQUEUE ----------------------------------------------------------------------------- */

static const char nfq_rules[] = "*mangle\n:FORWARD ACCEPT [0:0]\n"
				"-A FORWARD -p udp -j MARK --set-mark 0x7\n"
				"-A FORWARD -p udp --sport 53 -j DSCP --set-dscp 10\n"
				"COMMIT\n"
				"*filter\n:FORWARD ACCEPT [0:0]\n"
				"-A FORWARD -p udp --dport 53 -j ACCEPT\nCOMMIT\n";

/* One NFQNL_MSG_PACKET message at buf, as the kernel sends it from FORWARD; its length. */
static size_t put_packet(char *buf, uint32_t id, const uint8_t *data, uint32_t len)
{
	struct nfqnl_msg_packet_hdr ph = {
	    .packet_id = htonl(id), .hw_protocol = htons(0x0800), .hook = NF_INET_FORWARD};
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	nlh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_INET;
	g->version = NFNETLINK_V0;
	g->res_id = htons(3);
	mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	mnl_attr_put(nlh, NFQA_PAYLOAD, len, data);
	return NLMSG_ALIGN(nlh->nlmsg_len);
}

struct verdicts {
	unsigned batches, singles, payloads;
	uint32_t last_batch_id, batch_mark;
};

static void read_verdicts(const void *buf, size_t n, struct verdicts *v)
{
	const struct nlmsghdr *nlh = buf;
	int left = (int)n;

	memset(v, 0, sizeof(*v));
	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		struct nlattr *a[NFQA_MAX + 1] = {0};
		const struct nfqnl_msg_verdict_hdr *vh;

		assert_int_equal(nfq_nlmsg_parse(nlh, a), MNL_CB_OK);
		assert_non_null(a[NFQA_VERDICT_HDR]);
		vh = mnl_attr_get_payload(a[NFQA_VERDICT_HDR]);
		assert_int_equal(ntohl(vh->verdict), NF_ACCEPT);
		if ((nlh->nlmsg_type & 0xff) == NFQNL_MSG_VERDICT_BATCH) {
			v->batches++;
			v->last_batch_id = ntohl(vh->id);
			assert_non_null(a[NFQA_MARK]);
			v->batch_mark = ntohl(mnl_attr_get_u32(a[NFQA_MARK]));
		} else {
			assert_int_equal(nlh->nlmsg_type & 0xff, NFQNL_MSG_VERDICT);
			v->singles++;
			v->payloads += a[NFQA_PAYLOAD] != NULL;
		}
	}
}

static void test_nfqueue_allocates_nothing_per_packet(void **state)
{
	static const struct box_ops ops = {0};
	struct rules_ruleset *rs = NULL;
	struct rules_error rerr;
	const size_t cap = (size_t)2 * FLOWS * 256;
	char *msgs = malloc(cap);
	struct nfqueue_stats st;
	struct verdicts v;
	struct nfqueue *q;
	const void *sent;
	struct box *b;
	uint32_t id = 0;
	size_t n, slen;

	(void)state;
	assert_non_null(msgs);
	b = box_new("nfq", &ops, NULL);
	assert_non_null(b);
	assert_int_equal(rules_parse_buffer(nfq_rules, strlen(nfq_rules), "nfq", AF_INET,
					    ext_registry_default(), NULL, 0, &rs, &rerr),
			 0);
	box_set_ruleset(b, rs, AF_INET);
	q = nfqueue_open_unbound(3, b);
	assert_non_null(q);
	n_alloc = n_free = 0;
	for (unsigned round = 0; round < 9; round++) {
		n = 0;
		for (unsigned i = 0; i < FLOWS; i++)
			for (int reply = 0; reply < 2; reply++) {
				uint8_t d[128];
				uint32_t len = flow_bytes(i, reply, d, sizeof(d));

				n += put_packet(msgs + n, ++id, d, len);
			}
		assert_true(n <= cap);
		counting = round > 0; /* the first round fills the pool */
		sent = nfqueue_handle(q, msgs, n, &slen);
		counting = 0;
		/* each packet ends a batch of the one before it (marked 7, unchanged) and each
		 * reply, rewritten by DSCP, is a verdict of its own with the new payload */
		read_verdicts(sent, slen, &v);
		assert_int_equal(v.batches, FLOWS);
		assert_int_equal(v.singles, FLOWS);
		assert_int_equal(v.payloads, FLOWS);
		assert_int_equal(v.batch_mark, 7);
		assert_int_equal(v.last_batch_id, id - 1);
	}
	nfqueue_get_stats(q, &st);
	assert_int_equal(st.packets, 9 * 2 * FLOWS);
	assert_int_equal(st.accepted, 9 * 2 * FLOWS);
	assert_int_equal(st.rewritten, 9 * FLOWS);
	assert_int_equal(st.remarked, 9 * 2 * FLOWS);
	nfqueue_free(q);
	box_free(b);
	free(msgs);
	if (!ALLOC_COUNTING) /* the verdicts were checked (under the sanitizers); not counted */
		skip();
	printf("nfqueue: allocations %lu, frees %lu for %u packets\n", n_alloc, n_free,
	       8 * 2 * FLOWS);
	assert_int_equal(n_alloc, 0);
	assert_int_equal(n_free, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replay_allocates_nothing_per_packet),
	    cmocka_unit_test(test_nfqueue_allocates_nothing_per_packet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
