// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Setting a box up from text, and its counters as text: what the simulator, `replay --box`
 * and live mode (`pkttables run`'s config file) share, so a box reads and prints the same in
 * all three without live mode depending on the simulator.
 *
 *   "iface NAME [mac M] [mtu N] [raw|eth]"   box_add_iface, box_set_iface_mtu/_link
 *   "addr IFACE ADDR/PLEN" | "addr del ..."   box_add_addr / box_del_addr
 *   "route PREFIX dev IFACE [via GW] ..."     box_add_route / box_del_route
 *   "forwarding on|off [-4|-6]"               box_set_forwarding
 *   and the plug-ins' verbs (box_plugin_ops.setup), e.g. src/ct's "conntrack set NAME VALUE"
 *   and "ct-timeout NAME PROTO [STATE=SEC...]", src/nat's "nat set NAME VALUE"
 *
 * One table of {name, fn, usage} per owner: the engine's below, each plug-in's in its ops.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/box.h"
#include "engine/engine_int.h"
#include "engine/setup.h"
#include "pkt/pkt.h"

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char c;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &c) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -1;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

static int parse_prefix(const char *s, int *family, union pt_addr *a, int *plen)
{
	char buf[128];
	char *slash;

	if (!strcmp(s, "default") || !strcmp(s, "default4")) {
		*family = AF_INET;
		memset(a, 0, sizeof(*a));
		*plen = 0;
		return 0;
	}
	if (!strcmp(s, "default6")) {
		*family = AF_INET6;
		memset(a, 0, sizeof(*a));
		*plen = 0;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	*family = pt_addr_parse(buf, a);
	if (!*family)
		return -1;
	if (slash) {
		char *end;
		long n = strtol(slash, &end, 10);

		if (*end || n < 0 || n > (*family == AF_INET ? 32 : 128))
			return -1;
		*plen = (int)n;
	} else {
		*plen = *family == AF_INET ? 32 : 128;
	}
	return 0;
}

int box_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (cap - n < 4096) {
			char *nb = realloc(b, cap ? cap * 2 : 8192);

			if (!nb) {
				free(b);
				fclose(f);
				return -ENOMEM;
			}
			b = nb;
			cap = cap ? cap * 2 : 8192;
		}
		got = fread(b + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static int usage(const char *name, char *err, size_t errlen);

static int setup_iface(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	uint8_t mac[6];
	bool has_mac = false;
	uint32_t mtu = 0;
	int link = -1, idx;

	if (argc < 2)
		return usage(argv[0], err, errlen);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "mac") && i + 1 < argc) {
			if (parse_mac(argv[++i], mac) < 0) {
				snprintf(err, errlen, "bad MAC address '%s'", argv[i]);
				return -1;
			}
			has_mac = true;
		} else if (!strcmp(argv[i], "mtu") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 0);

			if (*end || v < 68 || v > 65535) {
				snprintf(err, errlen, "bad MTU '%s' (68..65535)", argv[i]);
				return -1;
			}
			mtu = (uint32_t)v;
		} else if (!strcmp(argv[i], "raw")) {
			link = PKT_LINK_RAW;
		} else if (!strcmp(argv[i], "eth")) {
			link = PKT_LINK_ETHERNET;
		} else {
			snprintf(err, errlen, "iface: unknown option '%s'", argv[i]);
			return -1;
		}
	}
	idx = box_iface_index(b, argv[1]);
	if (idx < 0) {
		if (strlen(argv[1]) >= BOX_IFNAME_MAX) {
			snprintf(err, errlen, "interface name '%s' too long", argv[1]);
			return -1;
		}
		idx = box_add_iface(b, argv[1], has_mac ? mac : NULL);
		if (idx < 0) {
			snprintf(err, errlen, "cannot add interface '%s': %s", argv[1],
				 strerror(-idx));
			return -1;
		}
	} else if (has_mac) {
		snprintf(err, errlen, "interface '%s' exists; give mac when creating it", argv[1]);
		return -1;
	}
	if (mtu)
		box_set_iface_mtu(b, idx, mtu);
	if (link >= 0)
		box_set_iface_link(b, idx, (enum pkt_link)link);
	return 0;
}

static int setup_addr(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	union pt_addr a;
	int family, plen, idx, rc;

	if (argc == 4 && !strcmp(argv[1], "del")) {
		/* addr del IFACE ADDR[/PLEN]: as `ip addr del` (MASQUERADE forgets it) */
		idx = box_iface_index(b, argv[2]);
		if (idx < 0 || parse_prefix(argv[3], &family, &a, &plen) < 0 ||
		    box_del_addr(b, idx, family, &a) < 0) {
			snprintf(err, errlen, "no address %s on '%s'", argv[3], argv[2]);
			return -1;
		}
		return 0;
	}
	if (argc != 3)
		return usage(argv[0], err, errlen);
	idx = box_iface_index(b, argv[1]);
	if (idx < 0) {
		snprintf(err, errlen, "no interface '%s'", argv[1]);
		return -1;
	}
	if (parse_prefix(argv[2], &family, &a, &plen) < 0) {
		snprintf(err, errlen, "bad address '%s' (ADDR/PLEN)", argv[2]);
		return -1;
	}
	rc = box_add_addr(b, idx, family, &a, plen);
	if (rc < 0) {
		snprintf(err, errlen, "cannot add address %s: %s", argv[2], strerror(-rc));
		return -1;
	}
	return 0;
}

static int setup_route(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	struct box_route r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (argc >= 3 && !strcmp(argv[1], "del")) {
		if (parse_prefix(argv[2], &r.family, &r.net, &r.plen) < 0) {
			snprintf(err, errlen, "bad prefix '%s'", argv[2]);
			return -1;
		}
		rc = box_del_route(b, r.family, &r.net, r.plen);
		if (rc < 0) {
			snprintf(err, errlen, "no route %s", argv[2]);
			return -1;
		}
		return 0;
	}
	if (argc < 3)
		return usage(argv[0], err, errlen);
	if (parse_prefix(argv[1], &r.family, &r.net, &r.plen) < 0) {
		snprintf(err, errlen, "bad prefix '%s' (ADDR/PLEN or default, default6)", argv[1]);
		return -1;
	}
	r.type = BOX_RT_UNICAST;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "dev") && i + 1 < argc) {
			r.oif = box_iface_index(b, argv[++i]);
			if (r.oif < 0) {
				snprintf(err, errlen, "no interface '%s'", argv[i]);
				return -1;
			}
		} else if (!strcmp(argv[i], "via") && i + 1 < argc) {
			if (pt_addr_parse(argv[++i], &r.gw) != r.family) {
				snprintf(err, errlen, "bad gateway '%s'", argv[i]);
				return -1;
			}
		} else if (!strcmp(argv[i], "metric") && i + 1 < argc) {
			r.metric = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "mtu") && i + 1 < argc) {
			r.mtu = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "blackhole")) {
			r.type = BOX_RT_BLACKHOLE;
		} else if (!strcmp(argv[i], "unreachable")) {
			r.type = BOX_RT_UNREACHABLE;
		} else if (!strcmp(argv[i], "prohibit")) {
			r.type = BOX_RT_PROHIBIT;
		} else if (!strcmp(argv[i], "local")) {
			r.type = BOX_RT_LOCAL;
		} else {
			snprintf(err, errlen, "route: unknown option '%s'", argv[i]);
			return -1;
		}
	}
	if (r.type == BOX_RT_UNICAST && !r.oif) {
		snprintf(err, errlen,
			 "route %s: give dev IFACE (or blackhole, unreachable, "
			 "prohibit)",
			 argv[1]);
		return -1;
	}
	rc = box_add_route(b, &r);
	if (rc < 0) {
		snprintf(err, errlen, "cannot add route %s: %s", argv[1], strerror(-rc));
		return -1;
	}
	return 0;
}

static int setup_forwarding(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	int family = 0;
	bool on;

	if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off")))
		return usage(argv[0], err, errlen);
	on = !strcmp(argv[1], "on");
	if (argc > 2)
		family = !strcmp(argv[2], "-6") ? AF_INET6 : AF_INET;
	if (family != AF_INET6)
		box_set_forwarding(b, AF_INET, on);
	if (family != AF_INET)
		box_set_forwarding(b, AF_INET6, on);
	return 0;
}

/* The engine's own verbs; plug-ins add theirs (box_plugin_ops.setup: conntrack set, ct-timeout,
 * nat set). */
static const struct box_setup_cmd engine_setup[] = {
    {"iface", setup_iface, "iface NAME [mac XX:XX:XX:XX:XX:XX] [mtu N] [raw|eth]"},
    {"addr", setup_addr, "addr IFACE ADDR/PLEN | addr del IFACE ADDR"},
    {"route", setup_route,
     "route PREFIX dev IFACE [via GW] [metric N] [mtu N] | route PREFIX "
     "blackhole|unreachable|prohibit | route del PREFIX"},
    {"forwarding", setup_forwarding, "forwarding on|off [-4|-6]"},
    {NULL, NULL, NULL},
};

static int usage(const char *name, char *err, size_t errlen)
{
	for (const struct box_setup_cmd *c = engine_setup; c->name; c++)
		if (!strcmp(c->name, name))
			snprintf(err, errlen, "usage: %s", c->usage);
	return -1;
}

int box_setup_command(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	const struct box_setup_cmd *c;

	for (c = engine_setup; c->name; c++)
		if (!strcmp(c->name, argv[0]))
			return c->fn(b, argc, argv, err, errlen);
	c = box_plugins_setup_cmd(b, argv[0]);
	if (c)
		return c->fn(b, argc, argv, err, errlen);
	snprintf(err, errlen, "unknown command '%s'", argv[0]);
	return -1;
}

/* ---- commands ---------------------------------------------------------------------------- */

void box_print_stats(FILE *f, const struct box *b)
{
	const struct box_stats *st = box_stats(b);
	uint64_t dropped = 0, malformed = 0;

	for (int i = 0; i < BOX_DROP_MAX; i++)
		dropped += st->dropped[i];
	for (int i = 0; i < PKT_BAD_MAX; i++)
		malformed += st->malformed[i];
	fprintf(f,
		"received %" PRIu64 ", forwarded %" PRIu64 ", delivered %" PRIu64 ", sent %" PRIu64
		", out %" PRIu64 ", dropped %" PRIu64 ", queued %" PRIu64 ", generated %" PRIu64
		"\n",
		st->received, st->forwarded, st->delivered, st->sent_local, st->xmit, dropped,
		st->queued, st->emitted);
	for (int i = 0; i < BOX_DROP_MAX; i++)
		if (st->dropped[i])
			fprintf(f, "  dropped %-10s %" PRIu64 "\n",
				box_drop_kind_name((enum box_drop_kind)i), st->dropped[i]);
	if (malformed)
		for (int i = 1; i < PKT_BAD_MAX; i++)
			if (st->malformed[i])
				fprintf(f, "  malformed %-10s %" PRIu64 "\n",
					pkt_bad_name((enum pkt_bad)i), st->malformed[i]);
	box_print_plugin_stats(f, b, "  ");
}

void box_print_plugin_stats(FILE *f, const struct box *b, const char *indent)
{
	box_plugins_stats(b, f, indent);
}
