/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sync link over TCP (sync_tcp.c): conntrackd's TCP channel, one connection per
 * direction, bounded buffers, reconnection. For src/live/sync.c.
 */
#ifndef LIVE_SYNC_TCP_H
#define LIVE_SYNC_TCP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

struct sync;
struct sync_tcp;

struct sync_tcp_stats {
	uint64_t connects;    /* connection attempts to the peer */
	uint64_t connected;   /* of which established */
	uint64_t accepts;     /* inbound connections taken */
	uint64_t disconnects; /* either connection lost */
	uint64_t tx_bytes, rx_bytes;
	uint64_t tx_dropped;	/* datagrams dropped: the send buffer was full */
	uint64_t rx_bad_frames; /* streams that could not be followed (closed) */
};

/* Listen on local; the peer is connected to when there is something to send. framed: each
 * datagram is preceded by its length (the authenticated envelope). tx_max: bytes waiting at
 * most (0: 4 MiB). 0 or -errno. */
int sync_tcp_open(struct sync_tcp **t, const struct sockaddr_storage *local, socklen_t llen,
		  const struct sockaddr_storage *peer, socklen_t plen, bool framed, size_t tx_max);
void sync_tcp_free(struct sync_tcp *t);
/* The stream alone, without sockets (tests, fuzzing): sync_tcp_feed gives it bytes as if read
 * off the accepted connection. 0, or -EPROTO when the stream cannot be followed (counted in
 * rx_bad_frames; what was buffered is dropped, as when the connection is closed). */
struct sync_tcp *sync_tcp_stream_new(bool framed, size_t tx_max);
int sync_tcp_feed(struct sync_tcp *t, struct sync *s, const uint8_t *d, size_t len, uint64_t now);
/* One descriptor (an epoll set) for the loop to poll. */
int sync_tcp_fd(const struct sync_tcp *t);
/* One datagram out. 0, or -ENOBUFS (buffer full: dropped, counted). */
int sync_tcp_send(struct sync_tcp *t, const void *buf, size_t len, uint64_t now);
/* Accept, read (received messages go to s), complete connections, write what waits. */
void sync_tcp_input(struct sync_tcp *t, struct sync *s, uint64_t now);
/* When the next connection attempt is due (UINT64_MAX: none waits). */
uint64_t sync_tcp_next(const struct sync_tcp *t);
const struct sync_tcp_stats *sync_tcp_stats(const struct sync_tcp *t);
void sync_tcp_stats_print(const struct sync_tcp *t, FILE *f);

#endif
