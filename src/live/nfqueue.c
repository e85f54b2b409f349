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
#include "live/workers.h"
#include "pkt/pkt.h"
#include "rules/rules.h"

#define LIVE_NFQ_WAIT_MS 100
#define LIVE_NFQ_MAX	 64 /* queues N..M */

struct live_nfqueue;

struct live_nfq_worker {
	struct live_nfqueue *q;
	unsigned id;
};

struct live_nfqueue {
	struct box *box;
	struct nfqueue *nfq[LIVE_NFQ_MAX]; /* queue queue_num + i; worker i % nworkers */
	unsigned nq, nworkers;
	struct live_nfq_worker w[LIVE_MAX_WORKERS];
	struct live_pool pool;
	bool pool_ready;
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

static void box_lock(void *arg, bool take)
{
	struct live_nfqueue *q = arg;

	if (take) {
		live_pool_lock(&q->pool);
		box_set_time(q->box, io_monotonic_ns()); /* under the lock: never backwards */
	} else {
		live_pool_unlock(&q->pool);
	}
}

/* Queues first..last, each its own socket, and the workers that serve them. */
static int open_queues(struct live_nfqueue *q, const struct live_nfqueue_opts *o, FILE *err)
{
	unsigned last = o->last_queue > o->queue.queue_num ? o->last_queue : o->queue.queue_num;
	int rc;

	q->nq = last - o->queue.queue_num + 1;
	if (q->nq > LIVE_NFQ_MAX) {
		fprintf(err, "nfqueue %u:%u: at most %d queues\n", o->queue.queue_num, last,
			LIVE_NFQ_MAX);
		return -EINVAL;
	}
	q->nworkers = o->workers ? o->workers : live_workers_default();
	if (q->nworkers > q->nq)
		q->nworkers = q->nq; /* a worker without a queue would only wait */
	if ((rc = live_pool_init(&q->pool, q->nworkers)) < 0)
		return rc;
	q->pool_ready = true;
	for (unsigned i = 0; i < q->nq; i++) {
		struct nfqueue_opts qo = o->queue;

		qo.queue_num = o->queue.queue_num + i;
		qo.box_lock = box_lock;
		qo.box_lock_arg = q;
		if ((rc = nfqueue_open(&qo, q->box, err, &q->nfq[i])) < 0)
			return rc;
	}
	for (unsigned i = 0; i < q->nworkers; i++)
		q->w[i] = (struct live_nfq_worker){.q = q, .id = i};
	return 0;
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
		rc = open_queues(q, o, err);
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
	for (unsigned i = 0; i < q->nq; i++)
		nfqueue_free(q->nfq[i]);
	if (q->pool_ready)
		live_pool_destroy(&q->pool);
	if (q->raw4 >= 0)
		close(q->raw4);
	if (q->raw6 >= 0)
		close(q->raw6);
	ctl_server_free(q->ctl); /* unlinks the socket */
	box_free(q->box);
	free(q);
}

/* A worker's loop: its queues (queue i when i % workers is its id), and for worker 0 the
 * control socket and the signal flags. Until flags->stop (worker 0) or the pool stops. */
static int worker_loop(struct live_nfq_worker *w, struct live_flags *flags,
		       const sigset_t *waitmask)
{
	struct live_nfqueue *q = w->q;
	struct pollfd pfd[LIVE_NFQ_MAX + 1];
	struct nfqueue *mine[LIVE_NFQ_MAX];
	const struct timespec wait = {0, LIVE_NFQ_WAIT_MS * 1000000L};
	unsigned n = 0;

	for (unsigned i = w->id; i < q->nq; i += q->nworkers) {
		mine[n] = q->nfq[i];
		pfd[n++] = (struct pollfd){.fd = nfqueue_fd(q->nfq[i]), .events = POLLIN};
	}
	pfd[n] =
	    (struct pollfd){.fd = !w->id && q->ctl ? ctl_server_fd(q->ctl) : -1, .events = POLLIN};
	while (!live_pool_stopping(&q->pool) && !(flags && flags->stop)) {
		int r;

		if (flags && (flags->reload || flags->dump)) {
			live_pool_lock(&q->pool);
			if (flags->reload) {
				flags->reload = 0;
				if (live_nfqueue_reload(q) == 0)
					fprintf(q->err, "pkttables: ruleset reloaded\n");
			}
			if (flags->dump) {
				flags->dump = 0;
				live_nfqueue_dump(q, q->err);
			}
			live_pool_unlock(&q->pool);
		}
		r = ppoll(pfd, n + 1, &wait, waitmask);
		if (r < 0 && errno != EINTR) {
			fprintf(q->err, "pkttables: poll: %s\n", strerror(errno));
			return -errno;
		}
		for (unsigned i = 0; r > 0 && i < n; i++) {
			int d = pfd[i].revents ? nfqueue_drain(mine[i]) : 0;

			if (d < 0) {
				fprintf(q->err, "pkttables: nfqueue: %s\n", strerror(-d));
				return d;
			}
		}
		/* between batches, under the lock: a replace here and a SIGHUP reload are both
		 * box_set_ruleset, one after the other, and no worker is in the box meanwhile */
		if (r > 0 && pfd[n].revents) {
			live_pool_lock(&q->pool);
			box_set_time(q->box, io_monotonic_ns());
			ctl_server_process(q->ctl);
			live_pool_unlock(&q->pool);
		}
	}
	return 0;
}

static int worker_thread(void *arg)
{
	return worker_loop(arg, NULL, NULL);
}

int live_nfqueue_run(struct live_nfqueue *q, struct live_flags *flags, const sigset_t *waitmask)
{
	void *args[LIVE_MAX_WORKERS];
	int rc;

	if (q->control && !q->ctl && !(q->ctl = live_control_open(q->box, q->control, q->err)))
		return -EADDRNOTAVAIL;
	if (q->nq == 1)
		fprintf(q->err, "pkttables: serving nfqueue %u\n", q->queue_num);
	else
		fprintf(q->err, "pkttables: serving nfqueue %u:%u, %u worker%s\n", q->queue_num,
			q->queue_num + q->nq - 1, q->nworkers, q->nworkers == 1 ? "" : "s");
	for (unsigned i = 0; i < q->nworkers; i++)
		args[i] = &q->w[i];
	/* the other workers inherit the caller's blocked signals: worker 0 takes them all */
	if ((rc = live_pool_start(&q->pool, worker_thread, args)) < 0) {
		fprintf(q->err, "pkttables: workers: %s\n", strerror(-rc));
		return rc;
	}
	rc = worker_loop(&q->w[0], flags, waitmask);
	if (live_pool_stop(&q->pool) < 0 && rc == 0)
		rc = -EIO; /* a worker failed (said why) */
	return rc;
}

void live_nfqueue_dump(struct live_nfqueue *q, FILE *f)
{
	struct nfqueue_stats s = {0};

	if (q->nq == 1)
		fprintf(f, "# pkttables nfqueue %u counters\n", q->queue_num);
	else
		fprintf(f, "# pkttables nfqueue %u:%u counters\n", q->queue_num,
			q->queue_num + q->nq - 1);
	for (int fam = AF_INET; fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		struct rules_ruleset *rs = box_ruleset(q->box, fam);

		if (rs)
			rules_print(rs, f, RULES_PRINT_COUNTERS);
	}
	box_print_stats(f, q->box);
	for (unsigned i = 0; i < q->nq; i++) { /* one box: the queues' counters summed */
		struct nfqueue_stats x;

		nfqueue_get_stats(q->nfq[i], &x);
		live_counters_add(&s, &x, sizeof(s));
		if (q->nq > 1)
			fprintf(f, "nfqueue %u: packets %llu (worker %u)\n", q->queue_num + i,
				(unsigned long long)x.packets, i % q->nworkers);
	}
	fprintf(f,
		"nfqueue: packets %llu accepted %llu dropped %llu stolen %llu not-judged %llu "
		"rewritten %llu remarked %llu\n"
		"nfqueue: verdicts %llu batches %llu sends %llu overruns %llu verdict-errors %llu "
		"unnamed-ifaces %llu reloads %llu (refused %llu) emitted %llu (errors %llu)\n",
		(unsigned long long)s.packets, (unsigned long long)s.accepted,
		(unsigned long long)s.dropped, (unsigned long long)s.stolen,
		(unsigned long long)s.not_ip, (unsigned long long)s.rewritten,
		(unsigned long long)s.remarked, (unsigned long long)s.verdict_msgs,
		(unsigned long long)s.batch_msgs, (unsigned long long)s.sends,
		(unsigned long long)s.overruns, (unsigned long long)s.verdict_errors,
		(unsigned long long)s.unnamed, (unsigned long long)q->reloads,
		(unsigned long long)q->reload_errors, (unsigned long long)q->emitted,
		(unsigned long long)q->emit_errors);
	for (unsigned i = 0; i < q->nq; i++)
		nfqueue_print_kernel_queue(q->nfq[i], f);
	fflush(f);
}
