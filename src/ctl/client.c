// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control socket client (client.h). A reply arrives as datagrams that each hold one or more
 * netlink messages:
 *
 *   datagram: | nlmsghdr CT_NEW ... | nlmsghdr CT_NEW ... | ... |
 *   datagram: | ... | nlmsghdr NLMSG_DONE |          (or NLMSG_ERROR, the last message)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include "ctl/client.h"
#include "ctl/msg.h"

#define RX_SIZE 65536u

struct ctl_client {
	int fd;
	uint32_t seq;
	unsigned char *rx;
};

int ctl_socket_dir(char *buf, size_t len, int create)
{
	const char *env = getenv("PKTTABLES_RUNDIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/run/pkttables");
	else if (xdg && *xdg)
		n = snprintf(buf, len, "%s/pkttables", xdg);
	else
		n = snprintf(buf, len, "/tmp/pkttables-%u", (unsigned)getuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int ctl_socket_path(const char *spec, char *buf, size_t len)
{
	size_t dl;
	int r, n;

	if (!spec)
		spec = "default";
	if (strchr(spec, '/')) {
		n = snprintf(buf, len, "%s", spec);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
	}
	if (!*spec || *spec == '.')
		return -EINVAL;
	if ((r = ctl_socket_dir(buf, len, 0)) < 0)
		return r;
	dl = strlen(buf);
	n = snprintf(buf + dl, len - dl, "/%s.ctl", spec);
	return n < 0 || (size_t)n >= len - dl ? -ENAMETOOLONG : 0;
}

struct ctl_client *ctl_client_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ctl_client *c;
	int e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path));
	if (!(c = calloc(1, sizeof(*c))) || !(c->rx = malloc(RX_SIZE))) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->seq = 1;
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		if (c->fd >= 0)
			close(c->fd);
		free(c->rx);
		free(c);
		errno = e;
		return NULL;
	}
	return c;
}

void ctl_client_close(struct ctl_client *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->rx);
	free(c);
}

int ctl_client_fd(const struct ctl_client *c)
{
	return c->fd;
}

uint32_t ctl_client_seq(struct ctl_client *c)
{
	return c->seq++;
}

/* Read one datagram; 1, 0 on timeout, -errno. *len gets its size. */
static int recv_one(struct ctl_client *c, int timeout_ms, size_t *len)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (timeout_ms >= 0) {
		do
			r = poll(&p, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			return r < 0 ? -errno : 0;
	}
	do
		n = recv(c->fd, c->rx, RX_SIZE, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	*len = (size_t)n;
	return 1;
}

int ctl_client_recv(struct ctl_client *c, ctl_msg_cb cb, void *priv, int timeout_ms)
{
	const struct nlmsghdr *nlh;
	size_t len;
	int r = recv_one(c, timeout_ms, &len), rem;

	if (r <= 0)
		return r;
	rem = (int)len;
	for (nlh = (const void *)c->rx; ctl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
		cb(nlh, priv);
	return 1;
}

int ctl_client_request(struct ctl_client *c, const struct nlmsghdr *req, ctl_msg_cb cb, void *priv,
		       char *errmsg, size_t errlen, uint32_t *line)
{
	int stop = 0, result = 0;
	uint32_t ln = 0;

	if (errlen)
		errmsg[0] = '\0';
	if (req->nlmsg_len > 100000) { /* a big ruleset: make room for it in one datagram */
		int sz = (int)req->nlmsg_len + 4096;

		setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	if (send(c->fd, req, req->nlmsg_len, MSG_NOSIGNAL) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *nlh;
		size_t len;
		int r = recv_one(c, -1, &len), rem;

		if (r < 0)
			return r;
		rem = (int)len;
		for (nlh = (const void *)c->rx; ctl_nlmsg_ok(nlh, rem);
		     nlh = mnl_nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq) {
				/* an event, or the rest of an earlier answer: not ours */
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_DONE)
				return stop ? stop : 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				int code = -EPROTO;

				if (ctl_parse_error(nlh, &code, errmsg, errlen, &ln) < 0)
					return -EPROTO;
				if (line)
					*line = ln;
				result = code;
				return result ? result : stop;
			}
			if (!stop && cb)
				stop = cb(nlh, priv) < 0 ? -ECANCELED : 0;
		}
	}
}
