/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live mode: one box forwarding between real interfaces (`pkttables run --config FILE`).
 *
 *   AF_PACKET ring --frame--> not for our MAC? skip
 *                             ARP / NS / NA?  answer for our addresses, learn neighbours
 *                             else box_receive --ops.xmit--> next hop --neigh--> tx queue
 *                                             --ops.deliver--> local stack (echo, RST, unreach.)
 *   tx queue --sendmmsg--> interface                 (flushed after every batch)
 *
 * One thread does all of it (the box's data-path thread). Signals only set flags (struct
 * live_flags) that the loop checks between batches; the wait is bounded (100 ms) and sees
 * signals at once through the mask given to ppoll. The box's clock follows CLOCK_MONOTONIC.
 * The config file is described in docs/live.md.
 */
#ifndef LIVE_LIVE_H
#define LIVE_LIVE_H

#include <signal.h>
#include <stdio.h>

struct live;

/* Set by signal handlers, read and cleared by the loop. */
struct live_flags {
	volatile sig_atomic_t stop;   /* SIGTERM, SIGINT */
	volatile sig_atomic_t reload; /* SIGHUP */
	volatile sig_atomic_t dump;   /* SIGUSR1 */
};

/*
 * Read the config file, open its interfaces and load its rulesets. Errors are printed to err
 * as FILE:LINE: message. 0 and *out, or a negative errno. `classifier`: how rulesets are
 * compiled (a CLS_MODE_*, run's --classifier), or -1 for the config's `classifier` line
 * (default auto).
 */
int live_open(const char *config, int classifier, FILE *err, struct live **out);
void live_free(struct live *l);

/*
 * Forward until flags->stop. `waitmask` is the signal mask while waiting (the caller blocks
 * the signals it handles everywhere else, so none is lost between a check and the wait).
 * Returns 0, or a negative errno when the interfaces fail.
 */
int live_run(struct live *l, struct live_flags *flags, const sigset_t *waitmask);

/*
 * Parse the ruleset files again and install them all at once; when any fails to parse, the
 * running rulesets stay and the error is printed as FILE:LINE. 0 or -EINVAL.
 */
int live_reload(struct live *l);

/*
 * The reload itself, for any box: parse `rules` (iptables-save; its -6 rules give IPv6 when
 * there is no `rules6`) and `rules6` (either NULL or "" for none) and install them all at once.
 * Errors go to err as FILE:LINE. 0 or -EINVAL (nothing changed).
 */
struct box;
int live_load_rules(struct box *b, const char *rules, const char *rules6, FILE *err);

/*
 * Serve the box on a control socket at SPEC (a path, or a name: ctl_socket_path), instead of
 * the config's `control` line. Opened by live_run. 0 or -ENAMETOOLONG.
 */
int live_set_control(struct live *l, const char *spec);
/* A control socket for any box (live or NFQUEUE): the path printed to err. NULL on error
 * (printed). */
struct ctl_server;
struct ctl_server *live_control_open(struct box *b, const char *spec, FILE *err);

/* Counters (rules with counters, box, interfaces, neighbours) as text. */
void live_dump(struct live *l, FILE *f);

#endif
