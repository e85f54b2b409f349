/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live box's state replication (src/sync) on a real sync link: the `sync ...` lines of the
 * config file, the UDP sockets (unicast or multicast, IPv4 or IPv6), and the commands
 * `pkttables sync --name BOX CMD` sends over the control socket. docs/sync.md.
 *
 *   receive: one UDP socket bound to the local address (unicast) or the group's port
 *            (multicast, joined on the interface), read by the live loop's poll
 *   send:    a second, unbound UDP socket to the peer or the group (TTL 1, no loopback),
 *            as conntrackd does: the source port is ephemeral
 */
#ifndef LIVE_SYNC_H
#define LIVE_SYNC_H

#include <stdint.h>
#include <stdio.h>

struct box;
struct live_sync;

/* One `sync WORD ...` line (argv[0] is "sync"); *ls is made on the first. 0 or -EINVAL with
 * msg. */
int live_sync_config(struct live_sync **ls, int argc, char **argv, const char *dir, char *msg,
		     size_t mlen);
/* Open the sockets and start replicating the box's table (tracking is turned on). 0 or <0,
 * the reason printed to err. */
int live_sync_start(struct live_sync *ls, struct box *b, FILE *err);
void live_sync_free(struct live_sync *ls);
/* The receive socket, for the loop's poll; -1 before start. */
int live_sync_fd(const struct live_sync *ls);
/* Read what waits on the socket (bounded), then run the timers and send what is queued. */
void live_sync_input(struct live_sync *ls, uint64_t now);
void live_sync_tick(struct live_sync *ls, uint64_t now);
/* When the sync next has something to do (box clock, ns; UINT64_MAX: nothing, or no sync). */
uint64_t live_sync_next(const struct live_sync *ls);
/* A control-socket command (ctl_sync_fn): commit, flush [internal|external], resync, bulk,
 * stats, external, internal. */
int live_sync_command(void *priv, const char *cmd, FILE *out);

#endif
