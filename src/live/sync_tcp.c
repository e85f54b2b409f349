// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sync link over TCP, as conntrackd's TCP channel (SYNC-WIRE.md 2.1.4, 2.1.5): each box
 * listens on its local address and port and opens its own connection to the peer's, so there
 * are two connections, one per direction; a box sends only on the connection it opened and
 * receives only on the one it accepted (a newer inbound connection replaces the current one).
 *
 *   bytes      without a key: the messages back to back, exactly as in a datagram (each
 *              message carries its length), so a conntrackd peer reads them; with a key
 *              (pkttables peers only) each sealed datagram is preceded by its length (16 bits,
 *              big-endian), since the envelope has no length of its own.
 *   sending    what cannot be written now waits in a bounded buffer (tx_max bytes); when it is
 *              full the datagram is dropped and counted (FTFW finds the gap and NACKs it).
 *              Not connected: (re)connect at most once a second, and only when there is
 *              something to send (conntrackd's rule); the buffer waits meanwhile.
 *   receiving  a message split across reads is kept and completed by the next read; a length
 *              below a header's (or a framed record above 65535) means the stream cannot be
 *              followed: counted, the connection is closed, the peer reconnects.
 *
 * All sockets sit in one epoll set whose descriptor the live loop polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/sync_tcp.h"
#include "sync/sync.h"

#define RX_CAP	       (2 * 65536 + 2)
#define RETRY_NS       1000000000ull
#define TX_MAX_DEFAULT (4u << 20)

enum { T_LISTEN = 1, T_IN, T_OUT };

struct sync_tcp {
	int ep, lfd, in_fd, out_fd;
	bool connected; /* out_fd's connect completed */
	bool framed;
	struct sockaddr_storage peer;
	socklen_t peerlen;
	uint64_t next_try;
	uint8_t *rx;
	size_t rxlen;
	uint8_t *tx;
	size_t txlen, txcap;
	struct sync_tcp_stats st;
};

static int ep_set(struct sync_tcp *t, int op, int fd, uint32_t ev, int tag)
{
	struct epoll_event e = {.events = ev, .data.u32 = (uint32_t)tag};

	return epoll_ctl(t->ep, op, fd, &e);
}

static void close_fd(struct sync_tcp *t, int *fd)
{
	if (*fd >= 0) {
		epoll_ctl(t->ep, EPOLL_CTL_DEL, *fd, NULL);
		close(*fd);
		*fd = -1;
	}
}

struct sync_tcp *sync_tcp_stream_new(bool framed, size_t tx_max)
{
	struct sync_tcp *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->ep = t->lfd = t->in_fd = t->out_fd = -1;
	t->framed = framed;
	t->txcap = tx_max ? tx_max : TX_MAX_DEFAULT;
	if (!(t->rx = malloc(RX_CAP)) || !(t->tx = malloc(t->txcap))) {
		sync_tcp_free(t);
		return NULL;
	}
	return t;
}

int sync_tcp_open(struct sync_tcp **tp, const struct sockaddr_storage *local, socklen_t llen,
		  const struct sockaddr_storage *peer, socklen_t plen, bool framed, size_t tx_max)
{
	struct sync_tcp *t = sync_tcp_stream_new(framed, tx_max);
	int one = 1, e;

	if (!t)
		return -ENOMEM;
	t->peer = *peer;
	t->peerlen = plen;
	errno = 0;
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	t->lfd = socket(local->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->ep < 0 || t->lfd < 0)
		goto fail;
	setsockopt(t->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(t->lfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (bind(t->lfd, (const struct sockaddr *)local, llen) < 0 || listen(t->lfd, 1) < 0 ||
	    ep_set(t, EPOLL_CTL_ADD, t->lfd, EPOLLIN, T_LISTEN) < 0)
		goto fail;
	*tp = t;
	return 0;
fail:
	e = errno ? -errno : -ENOMEM;
	sync_tcp_free(t);
	return e;
}

void sync_tcp_free(struct sync_tcp *t)
{
	if (!t)
		return;
	close_fd(t, &t->lfd);
	close_fd(t, &t->in_fd);
	close_fd(t, &t->out_fd);
	if (t->ep >= 0)
		close(t->ep);
	free(t->rx);
	free(t->tx);
	free(t);
}

int sync_tcp_fd(const struct sync_tcp *t)
{
	return t->ep;
}

const struct sync_tcp_stats *sync_tcp_stats(const struct sync_tcp *t)
{
	return &t->st;
}

static void out_lost(struct sync_tcp *t, uint64_t now)
{
	close_fd(t, &t->out_fd);
	if (t->connected)
		t->st.disconnects++;
	t->connected = false;
	t->next_try = now + RETRY_NS;
}

/* Start a connection to the peer when none is up or under way and a try is due. */
static void try_connect(struct sync_tcp *t, uint64_t now)
{
	int fd, one = 1;

	if (t->out_fd >= 0 || now < t->next_try)
		return;
	t->next_try = now + RETRY_NS;
	t->st.connects++;
	fd = socket(t->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&t->peer, t->peerlen) < 0 && errno != EINPROGRESS) {
		close(fd);
		return;
	}
	t->out_fd = fd;
	/* writable: the connect completed (or failed); readable: the peer closed it */
	if (ep_set(t, EPOLL_CTL_ADD, fd, EPOLLOUT | EPOLLIN, T_OUT) < 0)
		close_fd(t, &t->out_fd);
}

/* Write what waits; true when the buffer is empty. */
static bool flush_tx(struct sync_tcp *t, uint64_t now)
{
	size_t off = 0;

	while (off < t->txlen) {
		ssize_t n =
		    send(t->out_fd, t->tx + off, t->txlen - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				out_lost(t, now);
			break;
		}
		off += (size_t)n;
		t->st.tx_bytes += (uint64_t)n;
	}
	memmove(t->tx, t->tx + off, t->txlen - off);
	t->txlen -= off;
	if (t->out_fd >= 0)
		ep_set(t, EPOLL_CTL_MOD, t->out_fd, EPOLLIN | (t->txlen ? EPOLLOUT : 0), T_OUT);
	return !t->txlen;
}

int sync_tcp_send(struct sync_tcp *t, const void *buf, size_t len, uint64_t now)
{
	size_t need = len + (t->framed ? 2 : 0);

	if (len > 65535 || t->txlen + need > t->txcap) {
		t->st.tx_dropped++;
		try_connect(t, now);
		return -ENOBUFS;
	}
	if (t->framed) {
		t->tx[t->txlen++] = (uint8_t)(len >> 8);
		t->tx[t->txlen++] = (uint8_t)len;
	}
	memcpy(t->tx + t->txlen, buf, len);
	t->txlen += len;
	if (t->connected)
		flush_tx(t, now);
	else
		try_connect(t, now);
	return 0;
}

/* Hand the complete messages (or records) in the receive buffer to s; false when the stream
 * cannot be followed. */
static bool deliver(struct sync_tcp *t, struct sync *s, uint64_t now)
{
	size_t off = 0;

	if (t->framed) {
		while (t->rxlen - off >= 2) {
			size_t n = (size_t)t->rx[off] << 8 | t->rx[off + 1];

			if (!n)
				return false;
			if (t->rxlen - off - 2 < n)
				break;
			sync_receive(s, t->rx + off + 2, n, now);
			off += 2 + n;
		}
	} else {
		size_t end = 0;

		/* the complete messages at the front, given as one datagram */
		while (t->rxlen - end >= 8) {
			size_t n = (size_t)t->rx[end + 2] << 8 | t->rx[end + 3];

			if (n < 8)
				return false;
			if (t->rxlen - end < n)
				break;
			end += n;
		}
		if (end)
			sync_receive(s, t->rx, end, now);
		off = end;
	}
	memmove(t->rx, t->rx + off, t->rxlen - off);
	t->rxlen -= off;
	return true;
}

int sync_tcp_feed(struct sync_tcp *t, struct sync *s, const uint8_t *d, size_t len, uint64_t now)
{
	while (len) {
		size_t k = RX_CAP - t->rxlen < len ? RX_CAP - t->rxlen : len;

		memcpy(t->rx + t->rxlen, d, k);
		t->rxlen += k;
		t->st.rx_bytes += k;
		d += k;
		len -= k;
		if (!deliver(t, s, now)) {
			t->st.rx_bad_frames++;
			t->rxlen = 0;
			return -EPROTO;
		}
	}
	return 0;
}

static void read_in(struct sync_tcp *t, struct sync *s, uint64_t now)
{
	for (int i = 0; i < 64 && t->in_fd >= 0; i++) {
		ssize_t n = recv(t->in_fd, t->rx + t->rxlen, RX_CAP - t->rxlen, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			close_fd(t, &t->in_fd); /* the peer closed or reset it */
			t->rxlen = 0;
			t->st.disconnects++;
			return;
		}
		t->rxlen += (size_t)n;
		t->st.rx_bytes += (uint64_t)n;
		if (!deliver(t, s, now)) {
			t->st.rx_bad_frames++;
			close_fd(t, &t->in_fd); /* the peer reconnects */
			t->rxlen = 0;
			return;
		}
	}
}

void sync_tcp_input(struct sync_tcp *t, struct sync *s, uint64_t now)
{
	struct epoll_event ev[8];
	int n = epoll_wait(t->ep, ev, 8, 0);

	for (int i = 0; i < n; i++) {
		switch (ev[i].data.u32) {
		case T_LISTEN: {
			int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				break;
			close_fd(t, &t->in_fd); /* a newer connection replaces the current one */
			t->rxlen = 0;
			t->in_fd = fd;
			t->st.accepts++;
			if (ep_set(t, EPOLL_CTL_ADD, fd, EPOLLIN, T_IN) < 0)
				close_fd(t, &t->in_fd);
			break;
		}
		case T_IN:
			read_in(t, s, now);
			break;
		case T_OUT:
			if (t->out_fd < 0)
				break;
			if (!t->connected && (ev[i].events & EPOLLOUT)) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(t->out_fd, SOL_SOCKET, SO_ERROR, &err, &el);
				if (err) {
					out_lost(t, now);
					break;
				}
				t->connected = true;
				t->st.connected++;
			}
			if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
				uint8_t junk[256];
				ssize_t r = recv(t->out_fd, junk, sizeof(junk), MSG_DONTWAIT);

				/* the peer sends nothing on it: data is ignored, EOF means gone */
				if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
					out_lost(t, now);
					break;
				}
			}
			if (t->connected && t->txlen)
				flush_tx(t, now);
			break;
		}
	}
	if (!t->connected && t->txlen)
		try_connect(t, now);
}

uint64_t sync_tcp_next(const struct sync_tcp *t)
{
	return !t->connected && t->out_fd < 0 && t->txlen ? t->next_try : UINT64_MAX;
}

void sync_tcp_stats_print(const struct sync_tcp *t, FILE *f)
{
	fprintf(
	    f,
	    "tcp_connected %d\ntcp_connects %llu\ntcp_established %llu\ntcp_accepts %llu\n"
	    "tcp_disconnects %llu\ntcp_tx_bytes %llu\ntcp_tx_buffered %zu\ntcp_tx_dropped %llu\n"
	    "tcp_rx_bytes %llu\ntcp_rx_bad_frames %llu\n",
	    t->connected, (unsigned long long)t->st.connects, (unsigned long long)t->st.connected,
	    (unsigned long long)t->st.accepts, (unsigned long long)t->st.disconnects,
	    (unsigned long long)t->st.tx_bytes, t->txlen, (unsigned long long)t->st.tx_dropped,
	    (unsigned long long)t->st.rx_bytes, (unsigned long long)t->st.rx_bad_frames);
}
