/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the control-socket unit tests: a box served at a socket under /tmp and a raw client
 * connected to it, both driven in the test's own thread. */
#ifndef TESTS_UNIT_CTL_TEST_H
#define TESTS_UNIT_CTL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctl/server.h"
#include "engine/box.h"

/* Serve b at /tmp/pt-NAME-PID.sock (written to path), connect a non-blocking SEQPACKET client
 * and let the server accept it. *s gets the server; returns the client's socket. */
static inline int ctl_test_serve(struct box *b, const char *name,
				 const struct ctl_server_config *cfg, struct ctl_server **s,
				 char *path, size_t len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	snprintf(path, len, "/tmp/pt-%s-%d.sock", name, (int)getpid());
	assert_true(strlen(path) < sizeof(sa.sun_path));
	*s = ctl_server_new(b, path, cfg);
	assert_non_null(*s);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	memcpy(sa.sun_path, path, strlen(path));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ctl_server_process(*s); /* accept */
	return fd;
}

#endif
