/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the simulator: what the files of src/sim share. Not for other layers (use sim.h).
 *
 *   struct sim
 *     boxes[] ----> struct sim_box { box, outcomes[], links[], captures[], queue handlers }
 *     wire[]        deliveries in flight: (to box, to iface, due time, packet), FIFO by due
 *     now           the one clock
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <limits.h>
#include <signal.h>

#include "ct/ct.h"
#include "io/pcapio.h"
#include "sim/sim.h"

struct ctl_server;
struct sim_sync;
struct sim_sync_link;

#define SIM_MAX_BOXES	 32
#define SIM_MAX_OUTCOMES 4096 /* per box; older ones are forgotten (and counted) beyond it */
#define SIM_MAX_QUEUES	 16
#define SIM_MAX_CAPTURES 16
/* sim_capture.ifindex of `capture nflog GROUP FILE`: the packets -j NFLOG hands to GROUP */
#define SIM_CAP_NFLOG(group) (-1 - (int)(group))
#define SIM_MAX_WIRE	     100000 /* deliveries run per command: stops forwarding loops */
#define SIM_MAX_SYNC_LINKS   8

enum sim_outcome_kind {
	SIM_OUT_XMIT,  /* left through ifindex */
	SIM_OUT_LOCAL, /* delivered to the box */
	SIM_OUT_DROP,  /* dropped, why */
	SIM_OUT_LOG,   /* a LOG line */
	SIM_OUT_TRACE, /* a TRACE line */
	SIM_OUT_QUEUE, /* handed to an NFQUEUE handler */
};

struct sim_outcome {
	enum sim_outcome_kind kind;
	int ifindex;	     /* XMIT */
	struct pkt *pkt;     /* XMIT, LOCAL, DROP: a copy; NULL otherwise */
	struct box_drop why; /* DROP (chain points into chain[]) */
	char chain[RULES_CHAIN_NAME_MAX + 1];
	char *line;	/* LOG, TRACE: malloc()ed */
	unsigned qnum;	/* QUEUE */
	int verdict;	/* QUEUE: what the handler said */
	bool generated; /* XMIT: made by the box (no input interface) */
};

struct sim_queue_handler {
	bool used;
	unsigned num;
	int verdict; /* EXT_ACCEPT, EXT_DROP, EXT_REPEAT */
	bool set_mark;
	uint32_t mark;
	uint64_t count;
};

struct sim_link {
	struct sim_box *peer; /* NULL: nothing at the other end */
	int peer_if;
	uint64_t delay_ns;
};

struct sim_capture {
	int ifindex;
	struct pcapio_writer *w;
	char path[PATH_MAX];
};

struct sim_box {
	struct sim *sim;
	struct box *box;
	struct sim_outcome *out;
	unsigned nout, cap;
	uint64_t forgotten;
	struct sim_link links[BOX_MAX_IFACES + 1];
	struct sim_capture caps[SIM_MAX_CAPTURES];
	unsigned ncaps;
	struct sim_queue_handler queues[SIM_MAX_QUEUES];
	struct ctl_server *ctl; /* its control socket, or NULL (ctl.c) */
	char ctl_path[108];
	struct sim_sync *sync; /* its end of a sync link, or NULL (sync_link.c) */
	bool dead;	       /* killed: takes no packets until restarted */
};

struct sim_wire_item {
	struct sim_box *to;
	int ifindex;
	uint64_t due;
	uint64_t seq;
	struct pkt *pkt;
};

struct sim {
	FILE *out, *err;
	unsigned flags;
	struct sim_box *boxes[SIM_MAX_BOXES];
	unsigned nboxes;
	struct sim_box *cur;
	uint64_t now;
	bool trace;

	struct sim_wire_item *wire;
	unsigned nwire, wirecap;
	uint64_t wireseq;

	struct sim_sync_link *synclinks[SIM_MAX_SYNC_LINKS]; /* sync links (sync_link.c) */
	unsigned nsynclinks;

	volatile sig_atomic_t *stop; /* set by a signal: stop serving (sim_set_stop) */
	int cls_mode;		     /* CLS_MODE_* given to every box (classifier.c) */

	/* the command being run, for messages */
	const char *file;
	unsigned line;
	char dir[PATH_MAX];
	char tmpdir[PATH_MAX]; /* @tmp/, made on first use */

	/* the last `rules try`: its error, "" if it loaded */
	bool rules_tried;
	char rules_error[512];

	/* the last `sets try ipset ...`: its error, "" if it succeeded */
	bool sets_tried;
	char sets_error[512];

	/* an open heredoc: `rules [-4|-6] <<TERM` */
	bool in_heredoc;
	char heredoc_term[32];
	int heredoc_family;
	bool heredoc_try;
	unsigned heredoc_line;
	char *heredoc_buf;
	size_t heredoc_len, heredoc_cap;
};

/* world.c */
struct sim_box *sim_box_new(struct sim *s, const char *name);
struct sim_box *sim_box_find(struct sim *s, const char *name);
void sim_box_clear_outcomes(struct sim_box *sb);
void sim_outcome_remove(struct sim_box *sb, unsigned i);
/* Run the wire until nothing is due at the current time. */
void sim_run_wire(struct sim *s);
/* Move the clock to ns, stepping through every sync timer and datagram due before it. */
void sim_set_now(struct sim *s, uint64_t ns);
/* Set every box's clock to ns and run the wire (one step of sim_set_now). */
void sim_clock_to(struct sim *s, uint64_t ns);
void sim_reset(struct sim *s);
/* Receive a packet on a box's interface (frames it for the interface first). */
int sim_inject(struct sim_box *sb, int ifindex, struct pkt *p);
int sim_send(struct sim_box *sb, struct pkt *p);
void sim_event_line(struct sim_box *sb, const char *what, const struct pkt *p);

/* fragment.c: cut a whole IPv4/IPv6 datagram (raw IP) into fragments of `size` bytes of
 * fragmentable data (a multiple of 8), IPv6 with identification `id6`. Returns how many are
 * in out[], -EINVAL (not IP, bad size), -ENOSPC (more than max), -ENOMEM. */
#define SIM_MAX_FRAGS 64
int sim_fragment(const struct pkt *p, uint32_t size, uint32_t id6, struct pkt **out, unsigned max);

/* The packet's text with its link fields (smac=, dmac=) too. */
const char *sim_pkt_text_full(const struct pkt *p, char *buf, size_t len);

/* script.c */
int sim_errorf(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sim_failf(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sim_path(struct sim *s, const char *path, char *out, size_t len);

/* expect.c */
int sim_cmd_expect(struct sim *s, int argc, char **argv);
/* Does the packet match the pattern text? why gets a reason when not. -1: bad pattern. */
int sim_pkt_matches(const struct pkt *p, const char *pattern, char *why, size_t whylen);

/* sync_link.c: sync links between boxes (sync_link.h) */
/* Tick every sync instance and deliver the datagrams due, until nothing is due now. */
void sim_sync_settle(struct sim *s);
/* Step the clock to every sync event up to `to` (sim_set_now does the last step). */
void sim_sync_advance(struct sim *s, uint64_t to);
/* Forget every sync link and instance (before the boxes and their tables go). */
void sim_sync_reset(struct sim *s);
/* sync_cmd.c: expect [BOX:]sync-external|nosync-external|sync-stats|sync-order, sync-link */
int sim_expect_sync(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv);
/* sync_cmd.c: show sync */
int sim_sync_show(struct sim *s);

/* ctl.c */
int sim_cmd_ctl(struct sim *s, int argc, char **argv);
/* sets.c */
int sim_cmd_sets(struct sim *s, int argc, char **argv);
int sim_expect_sets(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv);
/* classifier.c */
int sim_cmd_classifier(struct sim *s, int argc, char **argv);
void sim_show_classifier(struct sim *s, struct box *b);

/* script.c: a command line split into words. */
#define MAX_ARGS 64
struct words {
	int argc;
	char *argv[MAX_ARGS];
	const char *rest[MAX_ARGS]; /* the original line from the start of word i */
	char buf[4096];
};
/* The rest of the line from word i, as typed. */
void sim_rest_of(const struct words *w, int i, char *out, size_t len);
/* The current box, made ("box") when there is none yet; NULL (error printed) on ENOMEM. */
struct sim_box *sim_cur_box(struct sim *s);
/* "IFACE" in the current box or "BOX:IFACE". 0, or -1 with the error printed. */
int sim_resolve_iface(struct sim *s, const char *spec, struct sim_box **sbp, int *ifindex);
/* "+30s", "500ms", "+1.5s", "2m", "10us", "7ns" -> nanoseconds. 0 or -1. */
int sim_parse_duration(const char *s, uint64_t *ns);
/* "-4" AF_INET, "-6" AF_INET6, else -1. */
int sim_rules_family_arg(const char *a);
/* inject.c: inject IFACE ..., send [BOX:] PACKET */
int sim_cmd_inject(struct sim *s, struct words *w);
int sim_cmd_send(struct sim *s, struct words *w);
/* sync_cmd.c: sync ..., kill BOX, restart BOX */
int sim_cmd_sync(struct sim *s, struct words *w);
int sim_cmd_kill(struct sim *s, struct words *w);
int sim_cmd_restart(struct sim *s, struct words *w);
/* show.c: show WHAT */
int sim_cmd_show(struct sim *s, struct words *w);

/* script.c: the simulator's commands; dispatch, help and completion (shell.c) read the table. */
struct sim_command {
	const char *name;
	int (*fn)(struct sim *s, struct words *w); /* NULL: handled by the reader (quit) */
	const char *usage;			   /* for help; NULL: not listed */
};
extern const struct sim_command sim_commands[];

#endif
