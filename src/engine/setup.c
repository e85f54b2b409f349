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
 *   "conntrack set NAME VALUE"                ct_config_set (turns tracking on)
 *   "ct-timeout NAME PROTO [STATE=SEC...]"    ct_timeout_policy_set
 *   "nat set NAME VALUE"                      nat_config_set (turns tracking on)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "ct/defrag.h"
#include "engine/box.h"
#include "engine/engine_int.h"
#include "engine/setup.h"
#include "nat/nat.h"
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

int box_setup_command(struct box *b, int argc, char **argv, char *err, size_t errlen)
{
	if (!strcmp(argv[0], "iface")) {
		uint8_t mac[6];
		bool has_mac = false;
		uint32_t mtu = 0;
		int link = -1, idx;

		if (argc < 2)
			goto usage;
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
			snprintf(err, errlen, "interface '%s' exists; give mac when creating it",
				 argv[1]);
			return -1;
		}
		if (mtu)
			box_set_iface_mtu(b, idx, mtu);
		if (link >= 0)
			box_set_iface_link(b, idx, (enum pkt_link)link);
		return 0;
	}
	if (!strcmp(argv[0], "addr")) {
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
			goto usage;
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
	if (!strcmp(argv[0], "route")) {
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
			goto usage;
		if (parse_prefix(argv[1], &r.family, &r.net, &r.plen) < 0) {
			snprintf(err, errlen, "bad prefix '%s' (ADDR/PLEN or default, default6)",
				 argv[1]);
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
	if (!strcmp(argv[0], "forwarding")) {
		int family = 0;
		bool on;

		if (argc < 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off")))
			goto usage;
		on = !strcmp(argv[1], "on");
		if (argc > 2)
			family = !strcmp(argv[2], "-6") ? AF_INET6 : AF_INET;
		if (family != AF_INET6)
			box_set_forwarding(b, AF_INET, on);
		if (family != AF_INET)
			box_set_forwarding(b, AF_INET6, on);
		return 0;
	}
	if (!strcmp(argv[0], "conntrack") && argc >= 2 && !strcmp(argv[1], "set")) {
		struct ct_config c;
		int rc;

		if (argc != 4)
			goto usage;
		/* an explicit setting turns tracking on, as writing a nf_conntrack sysctl needs
		 * the module loaded */
		if (box_set_conntrack(b, true) < 0 || !box_ct(b)) {
			snprintf(err, errlen, "cannot turn conntrack on");
			return -1;
		}
		c = *ct_table_config(box_ct(b));
		rc = ct_config_set(&c, argv[2], argv[3]);
		if (rc < 0) {
			snprintf(err, errlen,
				 rc == -ENOENT ? "conntrack set: no setting '%s'"
					       : "conntrack set %s: bad value '%s'",
				 argv[2], argv[3]);
			return -1;
		}
		rc = ct_table_set_config(box_ct(b), &c); /* buckets: -ENOMEM keeps the old size */
		if (rc < 0) {
			snprintf(err, errlen, "conntrack set %s %s: %s", argv[2], argv[3],
				 strerror(-rc));
			return -1;
		}
		return 0;
	}
	if (!strcmp(argv[0], "ct-timeout")) {
		if (argc < 3)
			goto usage;
		if (box_set_conntrack(b, true) < 0 || !box_ct(b)) {
			snprintf(err, errlen, "cannot turn conntrack on");
			return -1;
		}
		if (ct_timeout_policy_set(box_ct(b), argv[1], argv[2], argc - 3, argv + 3, err,
					  errlen) < 0)
			return -1;
		return 0;
	}
	if (!strcmp(argv[0], "nat") && argc >= 2 && !strcmp(argv[1], "set")) {
		struct nat_config c;
		int rc;

		if (argc != 4)
			goto usage;
		/* the NAT table comes with tracking (nat_attach), as nf_nat with nf_conntrack */
		if (box_set_conntrack(b, true) < 0 || !box_ct(b) || !b->nat) {
			snprintf(err, errlen, "cannot turn conntrack on");
			return -1;
		}
		c = *nat_table_config(b->nat);
		rc = nat_config_set(&c, argv[2], argv[3]);
		if (rc < 0) {
			snprintf(err, errlen,
				 rc == -ENOENT	 ? "nat set: no setting '%s' (nat show lists them)"
				 : rc == -ERANGE ? "nat set %s: '%s' out of range"
						 : "nat set %s: bad value '%s'",
				 argv[2], argv[3]);
			return -1;
		}
		nat_table_set_config(b->nat, &c);
		return 0;
	}
	snprintf(err, errlen, "unknown command '%s'", argv[0]);
	return -1;
usage:
	snprintf(err, errlen, "usage: %s",
		 !strcmp(argv[0], "iface")  ? "iface NAME [mac XX:XX:XX:XX:XX:XX] [mtu N] [raw|eth]"
		 : !strcmp(argv[0], "addr") ? "addr IFACE ADDR/PLEN | addr del IFACE ADDR"
		 : !strcmp(argv[0], "route")
		     ? "route PREFIX dev IFACE [via GW] [metric N] [mtu N] | route PREFIX "
		       "blackhole|unreachable|prohibit | route del PREFIX"
		 : !strcmp(argv[0], "conntrack")  ? "conntrack set NAME VALUE"
		 : !strcmp(argv[0], "nat")	  ? "nat set NAME VALUE"
		 : !strcmp(argv[0], "ct-timeout") ? "ct-timeout NAME PROTO [STATE=SECONDS...]"
						  : "forwarding on|off [-4|-6]");
	return -1;
}

/* ---- commands ---------------------------------------------------------------------------- */

int box_print_nat_config(FILE *f, struct box *b)
{
	if (!box_ct(b) || !b->nat)
		return -ENOENT;
	nat_config_print(nat_table_config(b->nat), f);
	return 0;
}

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
	box_print_ct_stats(f, b, "  ");
}

/*
 * Conntrack, defragmentation and NAT counters, when tracking is on:
 *   conntrack entries 2 found 5 new 3 invalid 1 insert 2 ... (conntrack -S names)
 *   defrag ipv4 frags 3 reassembled 1 overlap 1                (the non-zero ones)
 *   nat mappings 2 pools 1 bindings 4 inbound_filtered 2 ...   (struct nat_stats names;
 *                                                               the non-zero ones)
 */
static void box_print_nat_stats(FILE *f, const struct box *b, const char *indent)
{
	const struct nat_stats *n = box_nat_stats(b);

	if (!n)
		return;
	const struct {
		const char *name;
		uint64_t v;
	} c[] = {
	    {"bindings", n->bindings},
	    {"null_bindings", n->null_bindings},
	    {"mappings_created", n->mappings_created},
	    {"mappings_reused", n->mappings_reused},
	    {"mappings_expired", n->mappings_expired},
	    {"port_preserved", n->port_preserved},
	    {"port_changed", n->port_changed},
	    {"source_reused", n->source_reused},
	    {"exhausted", n->exhausted},
	    {"table_full", n->table_full},
	    {"inbound", n->inbound},
	    {"inbound_filtered", n->inbound_filtered},
	    {"hairpinned", n->hairpinned},
	    {"icmp_errors", n->icmp_errors},
	    {"icmp_bad_quoted", n->icmp_bad_quoted},
	    {"syn_held", n->syn_held},
	    {"syn_held_overflow", n->syn_held_overflow},
	    {"syn_held_dropped", n->syn_held_dropped},
	    {"syn_unreachable", n->syn_unreachable},
	};

	fprintf(f, "%snat mappings %u pools %u", indent, n->mappings, n->pools);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (c[i].v)
			fprintf(f, " %s %" PRIu64, c[i].name, c[i].v);
	fputc('\n', f);
}

void box_print_ct_stats(FILE *f, const struct box *b, const char *indent)
{
	const struct ct_stats *c = box_ct_stats(b);
	const struct ct_defrag_stats *d = box_defrag_stats(b);

	if (!c || !d)
		return;
	fprintf(f,
		"%sconntrack entries %u found %" PRIu64 " new %" PRIu64 " invalid %" PRIu64
		" insert %" PRIu64 " insert_failed %" PRIu64 " drop %" PRIu64 " early_drop %" PRIu64
		" expired %" PRIu64 " clash %" PRIu64 "\n",
		indent, c->count, c->found, c->new, c->invalid, c->insert, c->insert_failed,
		c->drop, c->early_drop, c->expired, c->clash);
	for (int fam = 0; fam < 2; fam++) {
		const uint64_t *v = fam ? d->v6 : d->v4;

		fprintf(f, "%sdefrag %s", indent, fam ? "ipv6" : "ipv4");
		for (int i = 0; i < CT_DEFRAG_ST_MAX; i++)
			if (v[i] || i == CT_DEFRAG_ST_FRAGS)
				fprintf(f, " %s %" PRIu64,
					ct_defrag_stat_name((enum ct_defrag_stat)i), v[i]);
		fputc('\n', f);
	}
	box_print_nat_stats(f, b, indent);
}
