// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket server (server.h): requests in, replies, dumps and events out.
 *
 *   request  --> parse (msg.c) --> error?  NLMSG_ERROR naming the attribute
 *                               \-> run    data messages ..., then NLMSG_ERROR 0 (ACK)
 *                                          or, for a dump, NLM_F_MULTI messages ..., NLMSG_DONE
 *
 * Per client, output waits in a queue of records (one SOCK_SEQPACKET datagram each, several
 * netlink messages packed in it, at most REC_SIZE bytes):
 *
 *   out: [rec]->[rec]->...   sent head first while the socket takes them
 *   job: a dump or delete-by-filter with its ct_walk cursor; one batch is produced only when
 *        `out` is empty, so a slow reader holds at most one batch of memory and no table lock
 *   evq: a ring of encoded events (cfg.event_qlen); full: the event is counted as lost and a
 *        CTL_CT_EVENTS_LOST message with the running total goes out before the next ones
 *
 * While a client has output pending or a job running its requests are not read (back-pressure).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ct/ct_plugin.h"
#include "ctl/server_int.h"

void ctl_server_set_sync(struct ctl_server *s, ctl_sync_fn fn, void *priv)
{
	s->sync_fn = fn;
	s->sync_priv = priv;
}

void ctl_server_config_default(struct ctl_server_config *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = 0600;
	c->batch = CTL_DEFAULT_BATCH;
	c->event_qlen = 4096;
	c->max_clients = 64;
	c->uid = (uid_t)-1;
}

/* ---- output ------------------------------------------------------------------------------ */

/* Room for a message of up to `need` bytes at the end of the queue; NULL on ENOMEM. */
void *ctl_srv_out_room(struct client *c, size_t need, size_t *room)
{
	struct rec *r = c->out_tail;

	if (!r || REC_SIZE - r->len < need) {
		if (!(r = malloc(sizeof(*r))))
			return NULL;
		r->next = NULL;
		r->len = 0;
		if (c->out_tail)
			c->out_tail->next = r;
		else
			c->out = r;
		c->out_tail = r;
	}
	*room = REC_SIZE - r->len;
	return r->data + r->len;
}

void ctl_srv_out_commit(struct client *c, const struct nlmsghdr *nlh)
{
	c->out_tail->len += MNL_ALIGN(nlh->nlmsg_len);
}

void ctl_srv_send_error(struct client *c, const struct nlmsghdr *req, const struct ctl_error *err)
{
	size_t room;
	void *p = ctl_srv_out_room(c, MSG_ROOM, &room);

	if (p && ctl_put_error(p, room, req, err) > 0)
		ctl_srv_out_commit(c, p);
}

void ctl_srv_send_ack(struct client *c, const struct nlmsghdr *req)
{
	ctl_srv_send_error(c, req, NULL);
}

void ctl_srv_reply_error(struct client *c, const struct nlmsghdr *req, int code, const char *fmt,
			 ...)
{
	struct ctl_error err;
	va_list ap;

	memset(&err, 0, sizeof(err));
	err.code = code;
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	ctl_srv_send_error(c, req, &err);
}

void ctl_srv_send_done(struct client *c, uint32_t seq)
{
	size_t room;
	void *p = ctl_srv_out_room(c, 64, &room);
	struct nlmsghdr *nlh;

	if (p && (nlh = ctl_put_done(p, room, seq)))
		ctl_srv_out_commit(c, nlh);
}

/* An entry as a CTL_CT_NEW message into the queue. */
int ctl_srv_queue_entry(struct client *c, const struct ct_entry *e, uint32_t seq, uint16_t flags)
{
	struct ctl_ct cc;
	struct nlmsghdr *nlh;
	size_t room;
	void *p = ctl_srv_out_room(c, MSG_ROOM, &room);

	if (!p)
		return -ENOMEM;
	ctl_ct_from_entry(&cc, e, box_now(c->srv->box));
	nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW), flags, seq,
			    ct_entry_tuple(e, CT_DIR_ORIGINAL)->family, false);
	if (!nlh || ctl_put_ct(nlh, room, &cc) < 0)
		return -EMSGSIZE;
	ctl_srv_out_commit(c, nlh);
	return 0;
}

/* ---- clients ----------------------------------------------------------------------------- */

static bool client_busy(const struct client *c)
{
	return c->out || c->job != JOB_NONE;
}

static void client_update_interest(struct client *c)
{
	uint32_t want = 0;
	struct epoll_event ev;

	if (!client_busy(c))
		want |= EPOLLIN;
	if (c->out || c->job != JOB_NONE || c->ev_count || c->lost_pending)
		want |= EPOLLOUT;
	if (want == c->interest)
		return;
	ev.events = want;
	ev.data.ptr = c;
	if (epoll_ctl(c->srv->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->interest = want;
}

static void client_free(struct client *c)
{
	struct rec *r, *n;

	for (r = c->out; r; r = n) {
		n = r->next;
		free(r);
	}
	epoll_ctl(c->srv->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->srv->restore_held -= c->rcap;
	free(c->rtext);
	free(c->evq);
	free(c);
}

static void client_drop(struct ctl_server *s, unsigned i)
{
	client_free(s->clients[i]);
	s->clients[i] = s->clients[--s->nclients];
}

/* ---- events ------------------------------------------------------------------------------ */

static void event_cb(void *priv, uint32_t events, const struct ct_entry *e,
		     enum ct_destroy_reason why)
{
	struct ctl_server *s = priv;
	uint32_t kind = (events & CT_EV_DESTROY) ? CTL_EV_DESTROY
			: (events & CT_EV_NEW)	 ? CTL_EV_NEW
						 : CTL_EV_UPDATE;
	struct nlmsghdr *nlh = NULL;
	struct ctl_ct cc;

	(void)why;
	for (unsigned i = 0; i < s->nclients; i++) {
		struct client *c = s->clients[i];

		if (!c->subscribed || !(c->ev_mask & kind) ||
		    (c->ev_filtered && !ctl_filter_match(&c->ev_filter, e)))
			continue;
		if (!nlh) { /* encoded once, for every listener that wants it */
			uint16_t type = CTL_TYPE(
			    CTL_SUBSYS_CT, kind == CTL_EV_DESTROY ? CTL_CT_DELETE : CTL_CT_NEW);
			uint16_t flags = kind == CTL_EV_NEW ? NLM_F_CREATE | NLM_F_EXCL : 0;

			ctl_ct_from_entry(&cc, e, box_now(s->box));
			/* as ctnetlink: a destroy event carries the mark only when there is one */
			if (kind == CTL_EV_DESTROY && !(events & CT_EV_MARK) && !cc.mark)
				cc.have &= ~(uint32_t)CTL_C_MARK;
			nlh = ctl_msg_start(s->scratch, sizeof(s->scratch), type, flags, 0,
					    cc.orig.family, false);
			if (!nlh || ctl_put_ct(nlh, sizeof(s->scratch), &cc) < 0)
				return;
		}
		if (c->ev_count == s->cfg.event_qlen) {
			c->lost++;
			c->lost_pending = true;
			continue;
		}
		memcpy(c->evq + (size_t)((c->ev_head + c->ev_count) % s->cfg.event_qlen) * EV_SLOT,
		       nlh, nlh->nlmsg_len);
		if (c->ev_count++ == 0)
			client_update_interest(c);
	}
}

void ctl_srv_ensure_subscription(struct ctl_server *s)
{
	struct ct_table *t = ct_box_table(s->box);

	if (t && t != s->sub_table && ct_event_subscribe(t, event_cb, s) == 0)
		s->sub_table = t;
}

/* Move queued events into output records (they follow any reply already queued). */
static void events_to_out(struct ctl_server *s, struct client *c)
{
	size_t room;
	void *p;

	if (c->lost_pending && (p = ctl_srv_out_room(c, MSG_ROOM, &room))) {
		struct nlmsghdr *nlh = ctl_msg_start(
		    p, room, CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST), 0, 0, AF_UNSPEC, false);

		if (nlh && mnl_attr_put_u64_check(nlh, room, CTL_A_EVENTS_LOST, htobe64(c->lost))) {
			ctl_srv_out_commit(c, nlh);
			c->lost_pending = false;
		}
	}
	/* up to a record's worth at a time: the ring keeps the rest (and counts losses) */
	while (c->ev_count) {
		const struct nlmsghdr *ev = (const void *)(c->evq + (size_t)c->ev_head * EV_SLOT);

		if (c->out_tail && REC_SIZE - c->out_tail->len < ev->nlmsg_len)
			break;
		if (!(p = ctl_srv_out_room(c, ev->nlmsg_len, &room)))
			break;
		memcpy(p, ev, ev->nlmsg_len);
		ctl_srv_out_commit(c, p);
		c->ev_head = (c->ev_head + 1) % s->cfg.event_qlen;
		c->ev_count--;
	}
}

/* ---- jobs: dumps and deletes in batches -------------------------------------------------- */

static enum ct_walk_action job_cb(void *priv, struct ct_entry *e)
{
	struct client *c = priv;

	if (c->job_filtered && !ctl_filter_match(&c->job_filter, e))
		return CT_WALK_NEXT;
	if (c->job == JOB_DELETE) {
		c->deleted++;
		return CT_WALK_KILL;
	}
	/* zeroed only once its message is queued: a failed queue must not lose the counts */
	if (!ctl_srv_queue_entry(c, e, c->job_seq, NLM_F_MULTI) && c->job_zero)
		ct_entry_zero_counters(e);
	return CT_WALK_NEXT;
}

static void job_finish(struct client *c)
{
	struct nlmsghdr req = {.nlmsg_seq = c->job_seq};

	if (c->job == JOB_DUMP) {
		ctl_srv_send_done(c, c->job_seq);
	} else {
		size_t room;
		void *p = ctl_srv_out_room(c, MSG_ROOM, &room);
		struct nlmsghdr *nlh;

		if (p &&
		    (nlh = ctl_msg_start(p, room, CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_DELETE), 0,
					 c->job_seq, AF_UNSPEC, false)) &&
		    mnl_attr_put_u32_check(nlh, room, CTL_A_COUNT, htonl(c->deleted)))
			ctl_srv_out_commit(c, nlh);
		ctl_srv_send_ack(c, &req);
	}
	c->job = JOB_NONE;
}

static void job_step(struct ctl_server *s, struct client *c)
{
	struct ct_table *t = ct_box_table(s->box);

	if (c->job == JOB_NONE || c->out)
		return;
	if (!t || t != c->job_table) { /* tracking went off (or never was on): nothing more */
		job_finish(c);
		return;
	}
	if (ct_walk(t, &c->cursor, s->cfg.batch, box_now(s->box), job_cb, c))
		job_finish(c);
}

void ctl_srv_job_start(struct client *c, enum job_kind kind, const struct ctl_request *req)
{
	c->job = kind;
	c->job_table = ct_box_table(c->srv->box);
	c->cursor = 0;
	c->deleted = 0;
	c->job_seq = req->seq;
	c->job_zero = CTL_MSG(req->type) == CTL_CT_GET_CTRZERO;
	c->job_filtered = req->has_filter;
	if (req->has_filter)
		c->job_filter = req->filter;
	else
		memset(&c->job_filter, 0, sizeof(c->job_filter));
	if (!req->has_filter && req->family) { /* conntrack -L -f ipv6 */
		c->job_filtered = true;
		c->job_filter.family = req->family;
	}
}

/* ---- reading requests -------------------------------------------------------------------- */

static void handle_message(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh)
{
	struct ctl_request req;
	struct ctl_error err;

	if (c->denied) {
		ctl_srv_reply_error(c, nlh, -EPERM, "uid %u may not use this socket",
				    (unsigned)c->uid);
		return;
	}
	if (ctl_parse_request(nlh, &req, &err) < 0) {
		ctl_srv_send_error(c, nlh, &err);
		return;
	}
	switch (CTL_SUBSYS(req.type)) {
	case CTL_SUBSYS_CT:
		ctl_srv_do_ct(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_RULES:
		ctl_srv_do_rules(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_SYNC:
		ctl_srv_do_sync(s, c, nlh, &req);
		break;
	case CTL_SUBSYS_SET:
		ctl_srv_do_set(s, c, nlh, &req);
		break;
	default:
		ctl_srv_do_exp(s, c, nlh, &req);
	}
}

/* Read one record and serve the messages in it. false: the client is gone. */
static bool client_read(struct ctl_server *s, struct client *c)
{
	ssize_t n = recv(c->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	const struct nlmsghdr *nlh;
	int rem;

	if (n == 0)
		return false;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if ((size_t)n > MAX_REQUEST) {
		/* dropped, but its header kept: the answer carries the request's seq, which is
		 * what the client waits for */
		struct nlmsghdr h;
		bool whole = recv(c->fd, &h, sizeof(h), MSG_DONTWAIT) == (ssize_t)sizeof(h);

		ctl_srv_reply_error(c, whole ? &h : NULL, -EMSGSIZE,
				    "request of %zd bytes (at most %u)", n, MAX_REQUEST);
		return true;
	}
	if ((size_t)n > s->rxcap) {
		unsigned char *nb = realloc(s->rx, (size_t)n);

		if (!nb)
			return false;
		s->rx = nb;
		s->rxcap = (size_t)n;
	}
	n = recv(c->fd, s->rx, s->rxcap, MSG_DONTWAIT);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR);
	rem = (int)n;
	for (nlh = (const void *)s->rx; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
		handle_message(s, c, nlh);
	if (rem > 0)
		ctl_srv_reply_error(c, NULL, -EINVAL, "%d bytes that are not a netlink message",
				    rem);
	return true;
}

/* Send queued records until the socket is full. false: the client is gone. */
static bool client_flush(struct client *c)
{
	while (c->out) {
		struct rec *r = c->out;
		ssize_t n = send(c->fd, r->data, r->len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
		c->out = r->next;
		if (!c->out)
			c->out_tail = NULL;
		free(r);
	}
	return true;
}

static void accept_clients(struct ctl_server *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct ucred cr;
		socklen_t crl = sizeof(cr);
		struct epoll_event ev;
		struct client *c;

		if (fd < 0)
			return;
		if (s->nclients == s->cfg.max_clients || !(c = calloc(1, sizeof(*c)))) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->srv = s;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0) {
			c->denied = true;
			c->uid = (uid_t)-1;
		} else {
			c->uid = cr.uid;
			c->denied = !(cr.uid == 0 || cr.uid == s->cfg.uid);
		}
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->interest = EPOLLIN;
		s->clients[s->nclients++] = c;
	}
}

int ctl_server_process(struct ctl_server *s)
{
	struct epoll_event evs[MAX_EPOLL_EVS];
	int n = epoll_wait(s->epfd, evs, MAX_EPOLL_EVS, 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct client *c = evs[i].data.ptr;

		if (!c) {
			accept_clients(s);
			continue;
		}
		/* a hang-up is noticed by the read (0) or the send (EPIPE) below */
		if ((evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !client_busy(c) &&
		    !client_read(s, c))
			c->gone = true; /* dropped below, where the list is walked */
	}
	for (unsigned i = 0; i < s->nclients;) {
		struct client *c = s->clients[i];

		if (c->gone) {
			client_drop(s, i);
			continue;
		}
		if (c->subscribed)
			ctl_srv_ensure_subscription(s);
		job_step(s, c);
		if (!c->out)
			events_to_out(s, c);
		if (!client_flush(c)) {
			client_drop(s, i);
			continue;
		}
		/* the socket took it all: more events now, but a dump's next batch waits for the
		 * next call (one batch per client per call bounds the data path's wait) */
		if (!c->out && c->job == JOB_NONE) {
			events_to_out(s, c);
			if (!client_flush(c)) {
				client_drop(s, i);
				continue;
			}
		}
		client_update_interest(c);
		i++;
	}
	return 0;
}

/* ---- the server -------------------------------------------------------------------------- */

struct ctl_server *ctl_server_new(struct box *b, const char *path,
				  const struct ctl_server_config *cfg)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct ctl_server *s;
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	struct stat st;
	int e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->box = b;
	if (cfg)
		s->cfg = *cfg;
	else
		ctl_server_config_default(&s->cfg);
	if (!s->cfg.mode)
		s->cfg.mode = 0600;
	if (!s->cfg.batch)
		s->cfg.batch = CTL_DEFAULT_BATCH;
	if (!s->cfg.max_restore)
		s->cfg.max_restore = MAX_RESTORE;
	if (!s->cfg.event_qlen)
		s->cfg.event_qlen = 4096;
	if (!s->cfg.max_clients)
		s->cfg.max_clients = 64;
	if (s->cfg.uid == (uid_t)-1)
		s->cfg.uid = geteuid();
	snprintf(s->path, sizeof(s->path), "%s", path);
	memcpy(sa.sun_path, path, strlen(path));
	s->lfd = s->epfd = -1;
	if (!(s->clients = calloc(s->cfg.max_clients, sizeof(*s->clients))))
		goto fail;
	/* replace a stale socket, never anything else */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			errno = EEXIST;
			goto fail;
		}
		unlink(path);
	}
	s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	/* before listen(): nobody can connect while the file still has the umask's mode */
	if (chmod(path, s->cfg.mode) < 0 || listen(s->lfd, 16) < 0)
		goto fail_unlink;
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) < 0)
		goto fail_unlink;
	return s;
fail_unlink:
	e = errno;
	unlink(path);
	errno = e;
fail:
	e = errno;
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->clients);
	free(s);
	errno = e;
	return NULL;
}

void ctl_server_free(struct ctl_server *s)
{
	if (!s)
		return;
	while (s->nclients)
		client_drop(s, s->nclients - 1);
	if (s->sub_table && s->sub_table == ct_box_table(s->box))
		ct_event_unsubscribe(s->sub_table, event_cb, s);
	close(s->lfd);
	close(s->epfd);
	unlink(s->path);
	free(s->clients);
	free(s->rx);
	free(s);
}

int ctl_server_fd(const struct ctl_server *s)
{
	return s->epfd;
}

int ctl_server_clients(const struct ctl_server *s)
{
	return (int)s->nclients;
}
