/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator: boxes, the wires between them, virtual time, and the script language that
 * drives them (docs/simulator.md). Also the pieces `pkttables replay` shares with it: packet
 * text, drop reasons, counter listings, link framing.
 *
 *   script line --> sim_feed_line --> command --> box_receive / box_output / box_advance
 *                                                     |
 *          box_ops callbacks (xmit, deliver, dropped, log, trace, queue) record "outcomes"
 *          per box; a packet sent out of an interface with a wire is queued as a delivery to
 *          the peer box, and the queue is run to empty after every command (no re-entry into
 *          a box while it is processing a packet). `expect` consumes recorded outcomes.
 *
 * Time: one clock for the whole simulation; every box's clock is set from it. It moves only
 * with `time +N`.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/box.h"
#include "engine/setup.h" /* box_setup_command, box_read_file, box_print_stats */
#include "pkt/pkt.h"
#include "rules/rules.h"

struct sim;

enum {
	SIM_QUIET = 1 << 0,	  /* do not print packet events as they happen */
	SIM_INTERACTIVE = 1 << 1, /* a shell: errors do not stop anything */
	SIM_REPLAY = 1 << 2,	  /* no NFQUEUE handler: queued packets follow the box's rule */
};

/* A new, empty simulation printing to `out` (events, show) and `err` (errors). */
struct sim *sim_new(FILE *out, FILE *err, unsigned flags);
void sim_free(struct sim *s);

/*
 * Feed one line of script (no trailing newline needed). `file`/`line` are used in messages.
 * Returns 0 (ok, or the line was part of a heredoc), 1 when an expectation failed, -1 on an
 * error in the command (message printed as FILE:LINE: ...). Relative paths in commands are
 * resolved against sim_set_dir().
 */
int sim_feed_line(struct sim *s, const char *text, const char *file, unsigned line);
/* True while a heredoc (rules <<EOF) is open and waiting for its terminator. */
bool sim_in_heredoc(const struct sim *s);
/* Directory relative paths in commands are taken from ("" = the current one). */
void sim_set_dir(struct sim *s, const char *dir);
/*
 * Run a whole script. Stops at the first failed expectation or error (unless interactive) and
 * returns 1; 0 when every line ran.
 */
int sim_run_stream(struct sim *s, FILE *f, const char *name);
/* true if the line is "quit" or "exit" (surrounding blanks allowed). */
bool sim_is_quit(const char *line);
/* The interactive shell (libedit): history in ~/.pkttables_history, completion. */
int sim_shell(struct sim *s);

/* Names the shell completes: commands, boxes, interfaces, chains. Calls fn for each. */
void sim_complete_words(struct sim *s, void (*fn)(void *arg, const char *word), void *arg);

/* ---- control sockets (ctl.c) ------------------------------------------------------------ */

/*
 * Serve box `box` (NULL: the current one) over a control socket at SPEC, a path or a box name
 * (ctl_socket_path). Its path goes to `path`. 0, or -1 with the message printed.
 */
int sim_ctl_listen(struct sim *s, const char *box, const char *spec, char *path, size_t len);
/* Open control sockets. */
unsigned sim_ctl_count(const struct sim *s);
/* Answer requests for `ms` wall milliseconds (-1: until the stop flag is set). 0 or -errno. */
int sim_ctl_serve(struct sim *s, long ms);
/* Answer requests until `fd` is readable (1) or the stop flag is set (0); -errno. */
int sim_ctl_wait_input(struct sim *s, int fd);
/* A flag (set by a signal handler) that ends sim_ctl_serve and sim_ctl_wait_input. */
void sim_set_stop(struct sim *s, volatile sig_atomic_t *stop);
/* CLS_MODE_* (classify/ruleset.h) for every box, now and made later: how the rulesets they
 * load from now on are compiled (the script's `classifier` command does the same). */
void sim_set_classifier(struct sim *s, int mode);

/* ---- shared with replay ------------------------------------------------------------------ */

/* One-line text of a packet, as pkt_spec_format prints it. Returns buf. */
const char *sim_pkt_text(const struct pkt *p, char *buf, size_t len);
/*
 * A drop reason as printed: "filter:FORWARD:7", "policy filter:INPUT", "malformed (ip-trunc)",
 * "noroute", "ttl", "hotdrop filter:INPUT:2", ... Returns buf.
 */
const char *sim_drop_text(const struct box_drop *d, char *buf, size_t len);
/*
 * Per-rule counters like `iptables -L -v -x -n`, every present table and chain, with rule
 * numbers, pkts, bytes, target and the rule text. `only_table` < 0: all tables.
 */
void sim_print_counters(FILE *f, const struct rules_ruleset *rs, int only_table);
void sim_print_routes(FILE *f, const struct box *b);

/*
 * Make `p` framed as `want`: strip the Ethernet header from an Ethernet frame (raw), or
 * prepend one (src, dst MACs; ethertype from the IP version) to a raw IP packet. Returns p
 * itself when nothing changes, a new packet otherwise (p is then freed), NULL on ENOMEM (p
 * freed too). `have` is the packet's current framing.
 */
struct pkt *sim_frame(struct pkt *p, enum pkt_link have, enum pkt_link want, const uint8_t src[6],
		      const uint8_t dst[6]);
/* Framing of a packet as the box hands it out: Ethernet if it carries an Ethernet header. */
enum pkt_link sim_pkt_link(const struct pkt *p);

/* Load a rules file (or buffer) into a box for `family` (0: v4, and v6 too if unified).
 * Errors are printed as FILE:LINE: message (near 'token'); returns 0 or -EINVAL. */
int sim_load_rules(struct box *b, const char *buf, size_t len, const char *name, int family,
		   FILE *err);


/* ---- replay ----------------------------------------------------------------------------- */

struct sim_replay_opts {
	const char *rules;    /* iptables-save file (IPv4; IPv6 too when unified) */
	const char *rules6;   /* ip6tables-save file, NULL: from `rules` if unified */
	const char *sets;     /* `ipset save` file, loaded before the rules, or NULL */
	const char *box;      /* simulator script defining the box, NULL: default gateway */
	const char *in;	      /* capture */
	const char *out;      /* pcap of everything that left the box, or NULL */
	const char *verdicts; /* kernel-comparable verdict file, or NULL */
	bool trace, save, quiet;
	bool progress; /* progress on stderr for long captures */
	int classifier; /* CLS_MODE_* (0: auto) */
};

/* Run a capture through a box; prints to out, errors to err. Returns the exit status. */
int sim_replay(const struct sim_replay_opts *o, FILE *out, FILE *err);

#endif
