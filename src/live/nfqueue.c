// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NFQUEUE mode, the application: the box, its rulesets and control socket, and the loop that
 * waits on the queue's socket and the control socket and sees the signal flags between batches.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ctl/server.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "io/clock.h"
#include "live/nfqueue.h"
#include "pkt/pkt.h"
#include "rules/rules.h"

#define LIVE_NFQ_WAIT_MS 100

struct live_nfqueue {
	struct box *box;
	struct nfqueue *nfq;
	unsigned queue_num;
	const char *rules, *rules6;
	const char *control;	/* SPEC of the control socket, NULL: none */
	struct ctl_server *ctl; /* opened by live_nfqueue_run */
	uint64_t reloads, reload_errors;
	/* what the box makes (REJECT replies) goes to the kernel through raw sockets, header
	 * included, and the kernel routes it as its own output */
	int raw4, raw6;
	uint64_t emitted, emit_errors;
	FILE *err;
};

int live_nfqueue_reload(struct live_nfqueue *q)
{
	int rc = live_load_rules(q->box, q->rules, q->rules6, q->err);

	if (rc < 0)
		q->reload_errors++;
	else
		q->reloads++;
	return rc;
}

static void nfq_log(void *user, struct box *b, int level, const char *line)
{
	struct live_nfqueue *q = user;

	fprintf(q->err, "pkttables: log <%d> %s\n", level, line);
}

static void nfq_trace(void *user, struct box *b, const struct pkt *p, const char *line)
{
	struct live_nfqueue *q = user;

	fprintf(q->err, "pkttables: trace %s\n", line);
}

/* A packet the box made: to the kernel as a raw IP datagram, to its destination. */
static void nfq_emit(void *user, struct box *b, struct pkt *p)
{
	struct live_nfqueue *q = user;
	uint8_t buf[PKT_MAX_LEN];
	const uint8_t *d = p->len <= sizeof(buf) ? pkt_header(p, 0, p->len, buf) : NULL;
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	int fd;

	if (d && p->len >= 20 && (d[0] >> 4) == 4 && q->raw4 >= 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, d + 16, 4);
		fd = q->raw4, sl = sizeof(*sin);
	} else if (d && p->len >= 40 && (d[0] >> 4) == 6 && q->raw6 >= 0) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, d + 24, 16);
		fd = q->raw6, sl = sizeof(*sin6);
	} else {
		q->emit_errors++;
		pkt_free(p);
		return;
	}
	if (sendto(fd, d, p->len, MSG_DONTWAIT, (struct sockaddr *)&ss, sl) == (ssize_t)p->len)
		q->emitted++;
	else
		q->emit_errors++;
	pkt_free(p);
}

int live_nfqueue_open(const struct live_nfqueue_opts *o, FILE *err, struct live_nfqueue **out)
{
	static const struct box_ops ops = {.log = nfq_log, .trace = nfq_trace, .emit = nfq_emit};
	struct live_nfqueue *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	q->err = err;
	/* IPPROTO_RAW: the header is ours (IP_HDRINCL); a socket that cannot open only costs
	 * REJECT its reply (counted as emit errors) */
	q->raw4 = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	q->raw6 = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	q->queue_num = o->queue.queue_num;
	q->rules = o->rules;
	q->rules6 = o->rules6;
	q->control = o->control;
	q->box = box_new("nfqueue", &ops, q);
	if (!q->box) {
		live_nfqueue_free(q);
		return -ENOMEM;
	}
	box_set_time(q->box, io_monotonic_ns());
	io_seed_box(q->box);
	if (box_set_classifier(q->box, o->classifier, io_monotonic_s) < 0) {
		live_nfqueue_free(q);
		return -EINVAL;
	}
	rc = live_nfqueue_reload(q);
	if (rc == 0)
		rc = nfqueue_open(&o->queue, q->box, err, &q->nfq);
	if (rc < 0) {
		live_nfqueue_free(q);
		return rc;
	}
	*out = q;
	return 0;
}

void live_nfqueue_free(struct live_nfqueue *q)
{
	if (!q)
		return;
	nfqueue_free(q->nfq);
	if (q->raw4 >= 0)
		close(q->raw4);
	if (q->raw6 >= 0)
		close(q->raw6);
	ctl_server_free(q->ctl); /* unlinks the socket */
	box_free(q->box);
	free(q);
}

int live_nfqueue_run(struct live_nfqueue *q, struct live_flags *flags, const sigset_t *waitmask)
{
	struct pollfd pfd[2] = {{.fd = nfqueue_fd(q->nfq), .events = POLLIN}};
	const struct timespec wait = {0, LIVE_NFQ_WAIT_MS * 1000000L};

	if (q->control && !q->ctl && !(q->ctl = live_control_open(q->box, q->control, q->err)))
		return -EADDRNOTAVAIL;
	if (q->ctl)
		pfd[1] = (struct pollfd){.fd = ctl_server_fd(q->ctl), .events = POLLIN};
	fprintf(q->err, "pkttables: serving nfqueue %u\n", q->queue_num);
	while (!flags->stop) {
		int r;

		if (flags->reload) {
			flags->reload = 0;
			if (live_nfqueue_reload(q) == 0)
				fprintf(q->err, "pkttables: ruleset reloaded\n");
		}
		if (flags->dump) {
			flags->dump = 0;
			live_nfqueue_dump(q, q->err);
		}
		r = ppoll(pfd, q->ctl ? 2 : 1, &wait, waitmask);
		if (r < 0 && errno != EINTR) {
			fprintf(q->err, "pkttables: poll: %s\n", strerror(errno));
			return -errno;
		}
		box_set_time(q->box, io_monotonic_ns());
		if (r > 0 && pfd[0].revents && (r = nfqueue_drain(q->nfq)) < 0) {
			fprintf(q->err, "pkttables: nfqueue: %s\n", strerror(-r));
			return r;
		}
		/* on this thread, between batches: a replace here and a SIGHUP reload are both
		 * box_set_ruleset, one after the other */
		if (q->ctl && pfd[1].revents)
			ctl_server_process(q->ctl);
	}
	return 0;
}

void live_nfqueue_dump(struct live_nfqueue *q, FILE *f)
{
	const struct nfqueue_stats *s = nfqueue_stats(q->nfq);

	fprintf(f, "# pkttables nfqueue %u counters\n", q->queue_num);
	for (int fam = AF_INET; fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		struct rules_ruleset *rs = box_ruleset(q->box, fam);

		if (rs)
			rules_print(rs, f, RULES_PRINT_COUNTERS);
	}
	box_print_stats(f, q->box);
	fprintf(f,
		"nfqueue: packets %llu accepted %llu dropped %llu stolen %llu not-judged %llu "
		"rewritten %llu remarked %llu\n"
		"nfqueue: verdicts %llu batches %llu sends %llu overruns %llu verdict-errors %llu "
		"unnamed-ifaces %llu reloads %llu (refused %llu) emitted %llu (errors %llu)\n",
		(unsigned long long)s->packets, (unsigned long long)s->accepted,
		(unsigned long long)s->dropped, (unsigned long long)s->stolen,
		(unsigned long long)s->not_ip, (unsigned long long)s->rewritten,
		(unsigned long long)s->remarked, (unsigned long long)s->verdict_msgs,
		(unsigned long long)s->batch_msgs, (unsigned long long)s->sends,
		(unsigned long long)s->overruns, (unsigned long long)s->verdict_errors,
		(unsigned long long)s->unnamed, (unsigned long long)q->reloads,
		(unsigned long long)q->reload_errors, (unsigned long long)q->emitted,
		(unsigned long long)q->emit_errors);
	nfqueue_print_kernel_queue(q->nfq, f);
	fflush(f);
}
