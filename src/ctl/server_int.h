/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the control socket server: server.c (clients, output queue, events, dump jobs, the
 * loop), server_ct.c (conntrack and expectation requests), server_rules.c (ruleset, recent,
 * classifier, sync and set requests).
 */
#ifndef CTL_SERVER_INT_H
#define CTL_SERVER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "ctl/msg.h"
#include "ctl/server.h"

#define REC_SIZE      32768u
#define EV_SLOT	      512u  /* an encoded entry takes < 400 bytes */
#define MSG_ROOM      1200u /* room asked for one entry or error message */
#define TEXT_CHUNK    16384u
#define MAX_REQUEST   (1u << 20)
#define MAX_RESTORE   ((size_t)64 << 20)
#define MAX_EPOLL_EVS 64
/* Dump entries per client per process call. The data path waits for one batch: 256 left it a
 * fifth of its idle rate during a 1M dump, 64 half, at half the dump rate (bench/README.md). */
#define CTL_DEFAULT_BATCH 64u

struct rec {
	struct rec *next;
	size_t len;
	char data[REC_SIZE];
};

enum job_kind { JOB_NONE, JOB_DUMP, JOB_DELETE };

struct client {
	int fd;
	bool denied, gone;
	uid_t uid;
	uint32_t interest;
	struct rec *out, *out_tail;
	/* a dump or delete walking the table */
	enum job_kind job;
	struct ct_table *job_table;
	uint32_t cursor, job_seq, deleted;
	bool job_filtered, job_zero; /* job_zero: CT_GET_CTRZERO, counters zeroed once queued */
	struct ctl_filter job_filter;
	/* events */
	bool subscribed, ev_filtered, lost_pending;
	uint32_t ev_mask;
	struct ctl_filter ev_filter;
	unsigned char *evq; /* event_qlen slots of EV_SLOT bytes */
	unsigned ev_head, ev_count;
	uint64_t lost;
	/* a restore in several RULES_REPLACE messages (CTL_RF_MORE): the text so far */
	char *rtext;
	size_t rlen, rcap;
	uint8_t rfamily;
	struct ctl_server *srv;
};

struct ctl_server {
	struct box *box;
	struct ctl_server_config cfg;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, epfd;
	struct client **clients;
	unsigned nclients;
	struct ct_table *sub_table; /* the table our event callback is registered with */
	size_t restore_held;	    /* bytes of every client's rtext (cfg.max_restore) */
	unsigned char *rx;	    /* one request record */
	size_t rxcap;
	unsigned char scratch[EV_SLOT];
	ctl_sync_fn sync_fn;
	void *sync_priv;
};

/* server.c: replies into a client's output queue */
void *ctl_srv_out_room(struct client *c, size_t need, size_t *room);
void ctl_srv_out_commit(struct client *c, const struct nlmsghdr *nlh);
void ctl_srv_send_error(struct client *c, const struct nlmsghdr *req, const struct ctl_error *err);
void ctl_srv_send_ack(struct client *c, const struct nlmsghdr *req);
__attribute__((format(printf, 4, 5))) void
ctl_srv_reply_error(struct client *c, const struct nlmsghdr *req, int code, const char *fmt, ...);
void ctl_srv_send_done(struct client *c, uint32_t seq);
int ctl_srv_queue_entry(struct client *c, const struct ct_entry *e, uint32_t seq, uint16_t flags);
void ctl_srv_ensure_subscription(struct ctl_server *s);
void ctl_srv_job_start(struct client *c, enum job_kind kind, const struct ctl_request *req);

/* the requests of each subsystem */
void ctl_srv_do_ct(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		   const struct ctl_request *req);
void ctl_srv_do_exp(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		    const struct ctl_request *req);
void ctl_srv_do_rules(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		      const struct ctl_request *req);
void ctl_srv_do_sync(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		     const struct ctl_request *req);
void ctl_srv_do_set(struct ctl_server *s, struct client *c, const struct nlmsghdr *nlh,
		    const struct ctl_request *req);

#endif
