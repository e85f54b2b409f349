/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The client side of the control socket: connect, send one request, read its answer.
 *
 *   request --> [data message]* then NLMSG_DONE (dumps) or NLMSG_ERROR (0: ACK, <0: error)
 *
 * Blocking; one request at a time per connection. Events (after CTL_CT_EVENTS) are read with
 * ctl_client_recv.
 */
#ifndef CTL_CLIENT_H
#define CTL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;
struct ctl_client;

/* Called for each data message of a reply; a negative return stops the reading (and is
 * returned once the reply has been read to its end). */
typedef int (*ctl_msg_cb)(const struct nlmsghdr *nlh, void *priv);

/*
 * Where the control socket of a box is. `spec` with a '/' is a path and taken as it is; any
 * other spec is a box name, whose socket is DIR/NAME.ctl with DIR the first of
 * $PKTTABLES_RUNDIR, /run/pkttables (euid 0), $XDG_RUNTIME_DIR/pkttables,
 * /tmp/pkttables-UID. NULL spec: the name "default". 0, or -ENAMETOOLONG / -EINVAL (a name
 * that is empty or starts with '.').
 */
int ctl_socket_path(const char *spec, char *buf, size_t len);
/* The directory of ctl_socket_path for names (made, mode 0700, when missing): 0 or -errno. */
int ctl_socket_dir(char *buf, size_t len, int create);

/* NULL with errno set. */
struct ctl_client *ctl_client_open(const char *path);
void ctl_client_close(struct ctl_client *c);
int ctl_client_fd(const struct ctl_client *c);
/* A sequence number for the next request. */
uint32_t ctl_client_seq(struct ctl_client *c);
/*
 * Send the request and read the answer to its end. Returns 0, the error code of the reply
 * (with its extended-ack text in errmsg, and *line for a ruleset error when line != NULL),
 * or -errno of the socket.
 */
int ctl_client_request(struct ctl_client *c, const struct nlmsghdr *req, ctl_msg_cb cb, void *priv,
		       char *errmsg, size_t errlen, uint32_t *line);
/* Read one datagram (waiting up to timeout_ms, -1: forever) and call cb for each message in
 * it. 1 when something was read, 0 on timeout, -errno; -ECONNRESET when the server closed. */
int ctl_client_recv(struct ctl_client *c, ctl_msg_cb cb, void *priv, int timeout_ms);

#endif
