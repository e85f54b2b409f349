/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket of one box: a Unix SOCK_SEQPACKET listener at a path, served from the
 * caller's poll loop (no threads here).
 *
 *   poll(ctl_server_fd(s), POLLIN) ready  ->  ctl_server_process(s)
 *
 * ctl_server_fd is an epoll descriptor over the listener and every client; it is readable
 * while there is work: a request, a client that can take more of its dump or events. Each
 * ctl_server_process call does a bounded amount of it (cfg.batch entries of a dump per client,
 * at most cfg.batch requests) so the data path, driven by the same loop, never waits long.
 *
 * Access: the socket file gets cfg.mode (0600 by default); a peer whose SO_PEERCRED uid is
 * neither 0 nor the server's gets EPERM for every request.
 *
 * Threading: the box's data-path thread only (the same that runs box_receive), because
 * requests read and change the conntrack table and the ruleset in place.
 */
#ifndef CTL_SERVER_H
#define CTL_SERVER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct box;
struct ctl_server;

struct ctl_server_config {
	mode_t mode;	     /* of the socket file; 0: 0600 */
	unsigned batch;	     /* dump entries per client per process call; 0: 64 */
	unsigned event_qlen; /* events queued per listener before they are lost; 0: 4096 */
	unsigned max_clients; /* 0: 64 */
	size_t max_restore;   /* bytes of ruleset text held for CTL_RF_MORE restores, all
			       * clients together; 0: 64 MiB */
	uid_t uid;	     /* besides root, the uid allowed; (uid_t)-1: the server's euid */
};

void ctl_server_config_default(struct ctl_server_config *c);

/*
 * Who answers CTL_SUBSYS_SYNC requests (the live box's state replication): fn runs the command
 * word `cmd` and prints its answer to out; 0, or a negative errno (its text is sent as the
 * error). Without one, such requests get EOPNOTSUPP.
 */
typedef int (*ctl_sync_fn)(void *priv, const char *cmd, FILE *out);
struct ctl_server;
void ctl_server_set_sync(struct ctl_server *s, ctl_sync_fn fn, void *priv);
/* Listen at path (an existing socket file there is replaced). NULL with errno set. */
struct ctl_server *ctl_server_new(struct box *b, const char *path,
				  const struct ctl_server_config *cfg);
/* Close every client, unlink the path, unsubscribe from the table. */
void ctl_server_free(struct ctl_server *s);
int ctl_server_fd(const struct ctl_server *s);
/* Serve what is ready without blocking. Returns 0 or a negative errno of epoll itself. */
int ctl_server_process(struct ctl_server *s);
/* Work remains that does not wait for a socket (a dump with room to go on). */
int ctl_server_clients(const struct ctl_server *s);

#endif
