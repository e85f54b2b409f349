// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udp_flood ADDR PORT SECONDS [SIZE]: send SIZE-byte (64) UDP datagrams to ADDR:PORT as fast as
 * one thread can for SECONDS, 64 per sendmmsg, and print how many went out. bench/live.sh
 * counts what arrives at the far side; iperf3 -u would measure its own receiver instead.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = {.sin_family = AF_INET};
	struct mmsghdr msgs[BATCH];
	struct iovec iov;
	static char payload[1472];
	unsigned long long sent = 0;
	double secs, end;
	size_t size = 64;
	int fd;

	if (argc < 4 || inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: udp_flood ADDR PORT SECONDS [SIZE]\n");
		return 2;
	}
	to.sin_port = htons((unsigned short)atoi(argv[2]));
	secs = atof(argv[3]);
	if (argc > 4)
		size = (size_t)atoi(argv[4]);
	if (secs <= 0 || secs > 600 || size < 1 || size > sizeof(payload)) {
		fprintf(stderr, "udp_flood: SECONDS in (0, 600], SIZE in [1, %zu]\n",
			sizeof(payload));
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("udp_flood");
		return 1;
	}
	iov = (struct iovec){payload, size};
	for (int i = 0; i < BATCH; i++)
		msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov, .msg_iovlen = 1}};
	end = now_s() + secs;
	while (now_s() < end) {
		int n = sendmmsg(fd, msgs, BATCH, 0);

		if (n > 0)
			sent += (unsigned long long)n;
		else if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != ECONNREFUSED)
			break;
	}
	printf("%llu\n", sent);
	close(fd);
	return 0;
}
