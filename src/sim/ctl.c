// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's control sockets: a box of the simulation served over ctl/server.h, so
 * `pkttables ct` and `pkttables rules` work against it as against `pkttables run`.
 *
 *   ctl listen [BOX] SPEC   open BOX's socket (SPEC a path, or a name: ctl_socket_path)
 *   ctl close [BOX]         close it (the socket file is removed)
 *   ctl serve MS            answer requests for MS wall milliseconds, then go on
 *
 * Scripts stay deterministic: requests are answered only inside `ctl serve` (and by
 * `pkttables sim --serve` after the script, and while the shell waits for a key), never
 * between two commands, and serving never moves the simulation's clock. The wall-clock
 * deadline of `ctl serve` is a timerfd, so nothing here reads a clock.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "ctl/client.h"
#include "ctl/server.h"
#include "sim/internal.h"

#define SERVE_TICK_MS 200 /* longest wait before the stop flag is looked at again */

void sim_set_stop(struct sim *s, volatile sig_atomic_t *stop)
{
	s->stop = stop;
}

static struct sim_box *ctl_box(struct sim *s, const char *name)
{
	struct sim_box *sb;

	if (name) {
		if (!(sb = sim_box_find(s, name)))
			sim_errorf(s, "no box '%s'", name);
		return sb;
	}
	if (!s->cur)
		sim_errorf(s, "no box yet (box NAME first)");
	return s->cur;
}

static int ctl_listen(struct sim *s, const char *box, const char *spec, char *path, size_t len)
{
	struct sim_box *sb = ctl_box(s, box);
	char dir[256], p[sizeof(sb->ctl_path)];
	int r;

	if (!sb)
		return -1;
	if ((r = ctl_socket_path(spec, p, sizeof(p))) < 0)
		return sim_errorf(s, "control socket '%s': %s", spec, strerror(-r));
	if (!strchr(spec, '/') && (r = ctl_socket_dir(dir, sizeof(dir), 1)) < 0)
		return sim_errorf(s, "control socket directory %s: %s", dir, strerror(-r));
	if (sb->ctl) {
		if (!strcmp(sb->ctl_path, p))
			goto done;
		ctl_server_free(sb->ctl);
		sb->ctl = NULL;
	}
	for (unsigned i = 0; i < s->nboxes; i++)
		if (s->boxes[i]->ctl && !strcmp(s->boxes[i]->ctl_path, p))
			return sim_errorf(s, "%s is already box %s's control socket", p,
					  box_name(s->boxes[i]->box));
	if (!(sb->ctl = ctl_server_new(sb->box, p, NULL)))
		return sim_errorf(s, "control socket %s: %s", p, strerror(errno));
	snprintf(sb->ctl_path, sizeof(sb->ctl_path), "%s", p);
done:
	if (path)
		snprintf(path, len, "%s", sb->ctl_path);
	return 0;
}

/* From outside a script (sim --serve): messages without a script line. */
int sim_ctl_listen(struct sim *s, const char *box, const char *spec, char *path, size_t len)
{
	s->file = NULL;
	return ctl_listen(s, box, spec, path, len);
}

static int ctl_close(struct sim *s, const char *box)
{
	struct sim_box *sb = ctl_box(s, box);

	if (!sb)
		return -1;
	ctl_server_free(sb->ctl); /* unlinks the socket */
	sb->ctl = NULL;
	sb->ctl_path[0] = '\0';
	return 0;
}

unsigned sim_ctl_count(const struct sim *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nboxes; i++)
		n += s->boxes[i]->ctl != NULL;
	return n;
}

/*
 * Serve the open sockets until `fd` is readable (1), `tfd` is (0), or *s->stop is set (0).
 * -errno when poll fails. With nothing to wait for, returns 0 at once.
 */
static int serve_until(struct sim *s, int fd, int tfd)
{
	for (;;) {
		struct pollfd p[SIM_MAX_BOXES + 2];
		struct sim_box *who[SIM_MAX_BOXES + 2];
		unsigned n = 0;
		int r;

		if (s->stop && *s->stop)
			return 0;
		if (fd >= 0) {
			who[n] = NULL;
			p[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
		}
		if (tfd >= 0) {
			who[n] = NULL;
			p[n++] = (struct pollfd){.fd = tfd, .events = POLLIN};
		}
		for (unsigned i = 0; i < s->nboxes; i++)
			if (s->boxes[i]->ctl) {
				who[n] = s->boxes[i];
				p[n++] = (struct pollfd){.fd = ctl_server_fd(s->boxes[i]->ctl),
							 .events = POLLIN};
			}
		if (fd < 0 && tfd < 0 && !s->stop)
			return 0; /* nothing would ever end the wait */
		r = poll(p, n, SERVE_TICK_MS);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* every server that is ready first: a deadline that comes with requests still
		 * answers them (ctl serve 0) */
		for (unsigned i = 0; i < n && r > 0; i++)
			if (p[i].revents && who[i])
				ctl_server_process(who[i]->ctl);
		for (unsigned i = 0; i < n && r > 0; i++)
			if (p[i].revents && !who[i])
				return p[i].fd == fd ? 1 : 0;
	}
}

int sim_ctl_serve(struct sim *s, long ms)
{
	struct itimerspec its = {0};
	int tfd, r;

	fflush(s->out); /* whoever waits for a line printed before the serving sees it */
	if (ms < 0)
		return serve_until(s, -1, -1);
	if ((tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) < 0)
		return -errno;
	its.it_value.tv_sec = ms / 1000;
	its.it_value.tv_nsec = (ms % 1000) * 1000000L;
	if (!ms)
		its.it_value.tv_nsec = 1; /* 0 would disarm it: serve what is ready, once */
	if (timerfd_settime(tfd, 0, &its, NULL) < 0) {
		r = -errno;
		close(tfd);
		return r;
	}
	r = serve_until(s, -1, tfd);
	close(tfd);
	return r < 0 ? r : 0;
}

int sim_ctl_wait_input(struct sim *s, int fd)
{
	if (!sim_ctl_count(s))
		return 1;
	return serve_until(s, fd, -1);
}

int sim_cmd_ctl(struct sim *s, int argc, char **argv)
{
	char path[256], *end;
	long ms;
	int r;

	if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "listen")) {
		const char *spec = argv[argc - 1];
		char rel[sizeof(path)];

		/* a path in a script is the script's (relative to it, or @tmp/); a name is not */
		if (strchr(spec, '/')) {
			sim_path(s, spec, rel, sizeof(rel));
			spec = rel;
		}
		if (ctl_listen(s, argc == 4 ? argv[2] : NULL, spec, path, sizeof(path)) < 0)
			return -1;
		if (s->flags & SIM_INTERACTIVE)
			fprintf(s->out, "serving %s\n", path);
		return 0;
	}
	if (argc >= 2 && argc <= 3 && !strcmp(argv[1], "close"))
		return ctl_close(s, argc == 3 ? argv[2] : NULL);
	if (argc == 3 && !strcmp(argv[1], "serve")) {
		ms = strtol(argv[2], &end, 10);
		if (*end || end == argv[2] || ms < 0 || ms > 3600000)
			return sim_errorf(s, "ctl serve: '%s' is not a number of milliseconds",
					  argv[2]);
		if ((r = sim_ctl_serve(s, ms)) < 0)
			return sim_errorf(s, "ctl serve: %s", strerror(-r));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "show")) {
		for (unsigned i = 0; i < s->nboxes; i++)
			if (s->boxes[i]->ctl)
				fprintf(s->out, "%s %s clients=%d\n", box_name(s->boxes[i]->box),
					s->boxes[i]->ctl_path,
					ctl_server_clients(s->boxes[i]->ctl));
		return 0;
	}
	return sim_errorf(s, "usage: ctl listen [BOX] SPEC | ctl close [BOX] | ctl serve MS | "
			     "ctl show");
}
