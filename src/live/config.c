// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live mode's config file: one command per line (docs/live.md). Box-setup lines go through
 * box_setup_command, as the simulator's do; the rest (iface, io, rules, sets, control, sync,
 * nflog, ...) set up the application.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "classify/ruleset.h"
#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "io/afpacket.h"
#include "io/clock.h"
#include "io/pcapio.h"
#include "io/port.h"
#include "live/live_int.h"
#include "live/sync.h"
#include "rules/rules.h"
#include "set/set_plugin.h"

/* ---- config file ------------------------------------------------------------------------- */

static int split_words(char *line, char **w)
{
	int n = 0;
	char *s = strchr(line, '#');

	if (s)
		*s = '\0';
	for (s = strtok(line, " \t\r\n"); s && n < LIVE_MAX_WORDS; s = strtok(NULL, " \t\r\n"))
		w[n++] = s;
	return s ? -E2BIG : n;
}

/* A path relative to the config file's directory. 0 or -ENAMETOOLONG. */
static int resolve_path(char *out, size_t len, const char *dir, const char *p)
{
	int n;

	if (p[0] == '/' || !dir[0])
		n = snprintf(out, len, "%s", p);
	else
		n = snprintf(out, len, "%s/%s", dir, p);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * The MAC pkttables speaks from on an AF_PACKET interface unless told otherwise: the kernel's
 * with the locally administered bit set, the group bit clear and bit 2 of the first octet
 * flipped, so it always differs from the kernel's. Frames to it reach the kernel's own stack as
 * PACKET_OTHERHOST (the interface is promiscuous), which ip_rcv drops at once; frames to the
 * kernel's MAC would each be routed by the namespace's stack first (docs/live.md).
 */
static void own_mac(const uint8_t kernel[6], uint8_t mac[6])
{
	memcpy(mac, kernel, 6);
	mac[0] = (uint8_t)(((kernel[0] ^ 0x04) | 0x02) & 0xfe);
}

/* iface NAME [mac own|kernel|MAC] [mtu N]: the kernel's MTU and, with AF_PACKET, a MAC of
 * pkttables' own (own_mac; AF_XDP and auto: the kernel's) unless the line says otherwise. Its
 * sockets are opened after the whole file is read (live_open_ports): `workers` may come later. */
static int config_iface(struct live *l, unsigned lineno, int argc, char **argv, char *msg,
			size_t mlen)
{
	struct afpacket_link link;
	uint8_t derived[6];
	const uint8_t *mac;
	char macs[18], mtus[12];
	char *args[LIVE_MAX_WORDS + 4];
	int rc, n = 0, idx;

	if (argc < 2) {
		snprintf(msg, mlen, "usage: iface NAME [mac own|kernel|MAC] [mtu N]");
		return -EINVAL;
	}
	if (box_iface_index(l->box, argv[1]) > 0) {
		snprintf(msg, mlen, "interface '%s' given twice", argv[1]);
		return -EEXIST;
	}
	rc = afpacket_link_info(argv[1], &link);
	if (rc < 0) {
		snprintf(msg, mlen, "interface '%s': %s", argv[1], strerror(-rc));
		return rc;
	}
	/* `mac own` and `mac kernel` are words of this line only: the setup line gets the MAC */
	mac = link.mac;
	if (io_kind_afpacket(l->io_kind)) {
		own_mac(link.mac, derived);
		mac = derived;
	}
	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], "mac") && !strcmp(argv[i + 1], "kernel"))
			mac = link.mac;
		else if (!strcmp(argv[i], "mac") && !strcmp(argv[i + 1], "own")) {
			own_mac(link.mac, derived);
			mac = derived;
		}
	snprintf(macs, sizeof(macs), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	snprintf(mtus, sizeof(mtus), "%u", link.mtu);
	args[n++] = argv[0];
	args[n++] = argv[1];
	args[n++] = "mac";
	args[n++] = macs;
	args[n++] = "mtu";
	args[n++] = mtus;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "mac") && i + 1 < argc &&
		    (!strcmp(argv[i + 1], "kernel") || !strcmp(argv[i + 1], "own"))) {
			i++;
			continue;
		}
		args[n++] = argv[i];
	}
	if (box_setup_command(l->box, n, args, msg, mlen) < 0)
		return -EINVAL;
	idx = box_iface_index(l->box, argv[1]);
	if (idx < 1 || (unsigned)idx != l->nsock + 1) {
		snprintf(msg, mlen, "interface '%s': unexpected index", argv[1]);
		return -EINVAL;
	}
	l->iface_kind[l->nsock] = l->io_kind;
	l->iface_line[l->nsock] = lineno;
	memcpy(l->mac[l->nsock], box_iface(l->box, idx)->mac, 6);
	memcpy(l->kmac[l->nsock], link.mac, 6);
	l->nsock++;
	return 0;
}

int live_open_ports(struct live *l)
{
	struct io_port *ports[LIVE_MAX_WORKERS];
	bool rx[LIVE_MAX_WORKERS];
	char msg[512];

	for (unsigned i = 0; i < l->nsock; i++) {
		const char *name = box_iface(l->box, (int)i + 1)->name;
		int rc =
		    io_port_open_workers(name, (enum io_kind)l->iface_kind[i], l->nworkers,
					 (enum io_spread)l->spread, ports, rx, msg, sizeof(msg));

		if (rc < 0) {
			fprintf(l->err, "%s:%u: %s\n", l->config, l->iface_line[i], msg);
			return rc;
		}
		for (unsigned w = 0; w < l->nworkers; w++) {
			l->w[w]->port[i] = ports[w];
			l->w[w]->rx[i] = rx[w];
		}
	}
	return 0;
}

static int config_line(struct live *l, const char *dir, unsigned lineno, int argc, char **argv,
		       char *msg, size_t mlen)
{
	if (!strcmp(argv[0], "iface"))
		return config_iface(l, lineno, argc, argv, msg, mlen);
	if (!strcmp(argv[0], "workers")) { /* workers N [hash|cpu|rr]: live/workers.h */
		char *end = NULL;
		unsigned long n = argc >= 2 ? strtoul(argv[1], &end, 10) : 0;
		int spread = argc == 3 ? io_spread_parse(argv[2]) : IO_SPREAD_HASH;

		if (argc < 2 || argc > 3 || !end || *end || n < 1 || n > LIVE_MAX_WORKERS ||
		    spread < 0) {
			snprintf(msg, mlen, "usage: workers N [hash|cpu|rr] (N from 1 to %d)",
				 LIVE_MAX_WORKERS);
			return -EINVAL;
		}
		l->nworkers = (unsigned)n;
		l->spread = spread;
		return 0;
	}
	if (!strcmp(argv[0], "io")) { /* for the iface lines after it */
		/* io afpacket sendmmsg, io afpacket copy: the old ways of sending and of
		 * receiving, for comparison (docs/live.md) */
		l->io_kind = io_kind_parse_words(argc - 1, argv + 1);
		if (l->io_kind < 0) {
			snprintf(
			    msg, mlen,
			    "usage: io afpacket|afxdp|auto (afpacket [txring|sendmmsg] [copy])");
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(argv[0], "rules") || !strcmp(argv[0], "rules6")) {
		char *dst = argv[0][5] ? l->rules6 : l->rules;

		if (argc != 2) {
			snprintf(msg, mlen, "usage: %s FILE", argv[0]);
			return -EINVAL;
		}
		if (resolve_path(dst, PATH_MAX, dir, argv[1]) < 0) {
			snprintf(msg, mlen, "path too long");
			return -ENAMETOOLONG;
		}
		return 0;
	}
	if (!strcmp(argv[0], "classifier")) {
		int mode = argc == 2 ? cls_mode_parse(argv[1]) : -1;

		if (mode < 0) {
			snprintf(msg, mlen, "usage: classifier auto|linear|compiled");
			return -EINVAL;
		}
		if (l->cls_forced < 0)
			box_set_classifier(l->box, mode, io_monotonic_s);
		return 0;
	}
	if (!strcmp(argv[0], "sets")) {
		char path[PATH_MAX], *buf;
		size_t len;
		int rc;

		if (argc != 2) {
			snprintf(msg, mlen, "usage: sets FILE");
			return -EINVAL;
		}
		if (resolve_path(path, sizeof(path), dir, argv[1]) < 0) {
			snprintf(msg, mlen, "path too long");
			return -ENAMETOOLONG;
		}
		if ((rc = box_read_file(path, &buf, &len)) < 0) {
			snprintf(msg, mlen, "%.400s: %s", path, strerror(-rc));
			return rc;
		}
		rc = set_box_restore(l->box, buf, len, path, l->err);
		free(buf);
		if (rc < 0)
			snprintf(msg, mlen, "sets %s: refused", argv[1]);
		return rc;
	}
	if (!strcmp(argv[0], "control")) {
		if (argc != 2) {
			snprintf(msg, mlen, "usage: control PATH|NAME");
			return -EINVAL;
		}
		/* a path is the config's (relative to it); a name is ctl_socket_path's */
		if (!strchr(argv[1], '/'))
			dir = "";
		if (resolve_path(l->control, PATH_MAX, dir, argv[1]) < 0) {
			snprintf(msg, mlen, "path too long");
			return -ENAMETOOLONG;
		}
		return 0;
	}
	if (!strcmp(argv[0], "sync"))
		return live_sync_config(&l->sync, argc, argv, dir, msg, mlen);
	if (!strcmp(argv[0], "nflog")) { /* nflog GROUP FILE.pcap */
		char path[PATH_MAX], *end = NULL;
		unsigned long g = argc == 3 ? strtoul(argv[1], &end, 10) : 0;
		int rc;

		if (argc != 3 || !end || *end || g > 65535) {
			snprintf(msg, mlen, "usage: nflog GROUP FILE.pcap");
			return -EINVAL;
		}
		if (l->nnflog == LIVE_MAX_NFLOG) {
			snprintf(msg, mlen, "at most %d nflog lines", LIVE_MAX_NFLOG);
			return -ENOSPC;
		}
		if (resolve_path(path, sizeof(path), dir, argv[2]) < 0) {
			snprintf(msg, mlen, "path too long");
			return -ENAMETOOLONG;
		}
		rc = pcapio_create(path, PKT_LINK_RAW, &l->nflog[l->nnflog].w, msg, mlen);
		if (rc < 0)
			return rc;
		l->nflog[l->nnflog++].group = (unsigned)g;
		return 0;
	}
	if (!strcmp(argv[0], "addr") || !strcmp(argv[0], "route") ||
	    !strcmp(argv[0], "forwarding") || !strcmp(argv[0], "conntrack") ||
	    !strcmp(argv[0], "ct-timeout") || !strcmp(argv[0], "nat") || !strcmp(argv[0], "recent"))
		return box_setup_command(l->box, argc, argv, msg, mlen) < 0 ? -EINVAL : 0;
	snprintf(
	    msg, mlen,
	    "unknown keyword '%s' (iface, io, workers, addr, route, forwarding, conntrack set, "
	    "ct-timeout, nat set, recent, rules, rules6, sets, control, sync, classifier, nflog)",
	    argv[0]);
	return -EINVAL;
}

int live_read_config(struct live *l, const char *path)
{
	char dir[PATH_MAX], line[1024], msg[512], *w[LIVE_MAX_WORDS], *slash;
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f) {
		fprintf(l->err, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(l->config, sizeof(l->config), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		int n;

		lineno++;
		n = split_words(line, w);
		if (n == 0)
			continue;
		msg[0] = '\0';
		rc = n < 0 ? -E2BIG : config_line(l, dir, lineno, n, w, msg, sizeof(msg));
		if (rc < 0) {
			fprintf(l->err, "%s:%u: %s\n", path, lineno,
				msg[0] ? msg : "too many words");
			break;
		}
	}
	fclose(f);
	if (rc == 0 && l->nsock == 0) {
		fprintf(l->err, "%s: no interface (iface NAME)\n", path);
		rc = -EINVAL;
	}
	return rc;
}
