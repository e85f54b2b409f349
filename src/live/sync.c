// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `sync ...` lines of the live config, the sync link's sockets, and the control commands.
 * The protocol itself is src/sync; this file only moves its datagrams and reads its settings.
 *
 *   sync mode ftfw|notrack|alarm
 *   sync udp local ADDR peer ADDR [port N] [iface NAME]
 *   sync tcp local ADDR peer ADDR [port N] [iface NAME]
 *   sync multicast group ADDR (local ADDR | iface NAME) [port N]
 *   sync peer-kind conntrackd|conntrackd-1.4.6|conntrackd-1.4.4|pkttables
 *   sync key FILE                       (peer-kind pkttables only)
 *   sync disable-external-cache | window-tracking | startup-resync | no-local | no-nat-mappings
 *   sync ack-window N | resend-queue N | external-max N | mtu N
 *   sync refresh-time S | cache-timeout S | commit-timeout S
 *   sync tx-hold MICROSECONDS | tx-hold-update MICROSECONDS
 *   sync ignore-proto P... | ignore-addr PREFIX... | ignore-tcp-state STATE... | mark V[/M]
 */
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "live/sync.h"
#include "live/sync_tcp.h"
#include "nat/nat_plugin.h"
#include "sync/sync.h"

#define SYNC_RX_BUDGET 100 /* datagrams per wake-up (conntrackd's EventIterationLimit) */

struct live_sync {
	struct sync_config cfg;
	bool multicast, tcp, have_local, have_peer;
	int family;
	union pt_addr local, peer; /* unicast: ours and the peer's; multicast: group in peer */
	uint16_t port;
	char ifname[IF_NAMESIZE];
	char keyfile[PATH_MAX];
	struct box *box;
	struct sync *sync;
	int rx_fd, tx_fd;
	struct sockaddr_storage dst;
	socklen_t dstlen;
	struct sync_tcp *tcp_link; /* sync tcp ... */
};

/* ---- config ------------------------------------------------------------------------------ */

static int num(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || *end || end == s || *v > max ? -EINVAL : 0;
}

static int proto_num(const char *s)
{
	static const struct {
		const char *n;
		int v;
	} names[] = {{"tcp", 6},    {"udp", 17},  {"icmp", 1}, {"icmpv6", 58},
		     {"sctp", 132}, {"dccp", 33}, {"gre", 47}, {"udplite", 136}};
	unsigned long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].n))
			return names[i].v;
	return num(s, 255, &v) ? -1 : (int)v;
}

static int tcp_state_num(const char *s)
{
	static const char *const n[] = {"NONE",	    "SYN_SENT",	  "SYN_RECV", "ESTABLISHED",
					"FIN_WAIT", "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT",
					"CLOSE",    "SYN_SENT2"};

	for (int i = 0; i < 10; i++)
		if (!strcasecmp(s, n[i]))
			return i;
	return -1;
}

static int prefix(const char *s, union pt_addr *a, uint8_t *family, uint8_t *plen)
{
	char buf[128], *slash;
	unsigned long p;
	int fam;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	fam = pt_addr_parse(buf, a);
	if (fam != AF_INET && fam != AF_INET6)
		return -EINVAL;
	if (!slash)
		p = fam == AF_INET ? 32 : 128;
	else if (num(slash, fam == AF_INET ? 32 : 128, &p))
		return -EINVAL;
	*family = (uint8_t)fam;
	*plen = (uint8_t)p;
	return 0;
}

#define BAD(...)                                                                                   \
	do {                                                                                       \
		snprintf(msg, mlen, __VA_ARGS__);                                                  \
		return -EINVAL;                                                                    \
	} while (0)

static int link_words(struct live_sync *s, int argc, char **argv, char *msg, size_t mlen)
{
	bool mc = !strcmp(argv[1], "multicast");
	unsigned long v;

	s->multicast = mc;
	s->tcp = !strcmp(argv[1], "tcp");
	s->port = 3780; /* the convention of every conntrackd example (no compiled-in default) */
	for (int i = 2; i < argc; i += 2) {
		union pt_addr a;
		int fam;

		if (i + 1 >= argc)
			BAD("sync %s: '%s' needs a value", argv[1], argv[i]);
		if (!strcmp(argv[i], "port")) {
			if (num(argv[i + 1], 65535, &v) || !v)
				BAD("sync: bad port '%s'", argv[i + 1]);
			s->port = (uint16_t)v;
			continue;
		}
		if (!strcmp(argv[i], "iface")) {
			if (strlen(argv[i + 1]) >= IF_NAMESIZE)
				BAD("sync: interface name '%s' too long", argv[i + 1]);
			snprintf(s->ifname, sizeof(s->ifname), "%s", argv[i + 1]);
			continue;
		}
		fam = pt_addr_parse(argv[i + 1], &a);
		if (fam != AF_INET && fam != AF_INET6)
			BAD("sync: '%s' is not an address", argv[i + 1]);
		if (s->family && s->family != fam)
			BAD("sync: '%s' is not of the link's address family", argv[i + 1]);
		if (!strcmp(argv[i], "local")) {
			s->local = a;
			s->have_local = true;
			if (!mc || fam == AF_INET6)
				s->family = fam;
		} else if (!strcmp(argv[i], mc ? "group" : "peer")) {
			s->peer = a;
			s->have_peer = true;
			s->family = fam;
		} else {
			BAD("sync %s: unknown word '%s'", argv[1], argv[i]);
		}
	}
	if (!s->have_peer)
		BAD(mc ? "sync multicast: group ADDR is needed" : "sync %s: peer ADDR is needed",
		    argv[1]);
	if (!mc && !s->have_local)
		BAD("sync %s: local ADDR is needed", argv[1]);
	if (mc && s->family == AF_INET && !s->have_local && !s->ifname[0])
		BAD("sync multicast: local ADDR or iface NAME is needed");
	if (mc && s->family == AF_INET6 && !s->ifname[0])
		BAD("sync multicast: an IPv6 group needs iface NAME");
	return 0;
}

static int option_words(struct live_sync *s, int argc, char **argv, const char *dir, char *msg,
			size_t mlen)
{
	struct sync_config *c = &s->cfg;
	struct sync_filter *f = &c->filter;
	const char *w = argv[1];
	unsigned long v;

	if (!strcmp(w, "disable-external-cache") || !strcmp(w, "window-tracking") ||
	    !strcmp(w, "startup-resync") || !strcmp(w, "no-local") ||
	    !strcmp(w, "no-nat-mappings")) {
		if (argc != 2)
			BAD("sync %s takes no value", w);
		if (w[0] == 'd')
			c->disable_external = true;
		else if (w[0] == 'w')
			c->tcp_window_tracking = true;
		else if (w[0] == 's')
			c->startup_resync = true;
		else if (!strcmp(w, "no-local"))
			f->no_local = true;
		else
			c->no_nat_mappings = true;
		return 0;
	}
	if (argc < 3)
		BAD("sync %s: a value is needed", w);
	if (!strcmp(w, "mode")) {
		if (!strcmp(argv[2], "ftfw"))
			c->mode = SYNC_MODE_FTFW;
		else if (!strcmp(argv[2], "notrack"))
			c->mode = SYNC_MODE_NOTRACK;
		else if (!strcmp(argv[2], "alarm"))
			c->mode = SYNC_MODE_ALARM;
		else
			BAD("sync mode: '%s' is not ftfw, notrack or alarm", argv[2]);
		return 0;
	}
	if (!strcmp(w, "peer-kind")) {
		if (!strcmp(argv[2], "conntrackd"))
			c->peer = SYNC_PEER_CONNTRACKD;
		else if (!strcmp(argv[2], "conntrackd-1.4.6"))
			c->peer = SYNC_PEER_CONNTRACKD_146;
		else if (!strcmp(argv[2], "conntrackd-1.4.4"))
			c->peer = SYNC_PEER_CONNTRACKD_144;
		else if (!strcmp(argv[2], "pkttables"))
			c->peer = SYNC_PEER_PKTTABLES;
		else
			BAD("sync peer-kind: '%s' is not conntrackd, conntrackd-1.4.6, "
			    "conntrackd-1.4.4 or pkttables",
			    argv[2]);
		return 0;
	}
	if (!strcmp(w, "key")) {
		int n = argv[2][0] == '/' || !dir[0]
			    ? snprintf(s->keyfile, sizeof(s->keyfile), "%s", argv[2])
			    : snprintf(s->keyfile, sizeof(s->keyfile), "%s/%s", dir, argv[2]);

		if (n >= (int)sizeof(s->keyfile))
			BAD("sync key: path too long");
		c->auth = true;
		return 0;
	}
	if (!strcmp(w, "mark")) {
		char *slash = strchr(argv[2], '/');
		unsigned long m = 0xffffffffu;

		if (slash)
			*slash++ = '\0';
		if (num(argv[2], 0xffffffffu, &v) || (slash && num(slash, 0xffffffffu, &m)))
			BAD("sync mark: want VALUE[/MASK]");
		f->mark_value = (uint32_t)v;
		f->mark_mask = (uint32_t)m;
		f->mark_set = true;
		return 0;
	}
	if (!strcmp(w, "ignore-proto") || !strcmp(w, "ignore-addr") ||
	    !strcmp(w, "ignore-tcp-state")) {
		for (int i = 2; i < argc; i++) {
			int p;

			if (w[7] == 'p') {
				if ((p = proto_num(argv[i])) < 0)
					BAD("sync ignore-proto: '%s' is no protocol", argv[i]);
				f->proto_ignore[p / 32] |= 1u << (p % 32);
			} else if (w[7] == 'a') {
				if (f->naddr == sizeof(f->addr_ignore) / sizeof(f->addr_ignore[0]))
					BAD("sync ignore-addr: at most 16 prefixes");
				if (prefix(argv[i], &f->addr_ignore[f->naddr].addr,
					   &f->addr_ignore[f->naddr].family,
					   &f->addr_ignore[f->naddr].plen))
					BAD("sync ignore-addr: '%s' is not ADDR[/PLEN]", argv[i]);
				f->naddr++;
			} else {
				if ((p = tcp_state_num(argv[i])) < 0)
					BAD("sync ignore-tcp-state: '%s' is no TCP state", argv[i]);
				f->tcp_state_ignore |= (uint16_t)(1u << p);
			}
		}
		return 0;
	}
	{
		static const struct {
			const char *name;
			unsigned long max;
			bool seconds;
		} nums[] = {{"ack-window", 1u << 20, false},	 {"resend-queue", 1u << 24, false},
			    {"external-max", 1u << 24, false},	 {"mtu", 65535, false},
			    {"refresh-time", 86400, true},	 {"cache-timeout", 86400 * 7, true},
			    {"commit-timeout", 86400 * 7, true}, {"tx-hold", 1000000, false},
			    {"tx-hold-update", 1000000, false}};

		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
			if (strcmp(w, nums[i].name))
				continue;
			if (argc != 3 || num(argv[2], nums[i].max, &v) || (!v && i < 4))
				BAD("sync %s: want a number from 1 to %lu", w, nums[i].max);
			switch (i) {
			case 0:
				c->ack_window = (uint32_t)v;
				break;
			case 1:
				c->resend_max = (uint32_t)v;
				break;
			case 2:
				c->external_max = (uint32_t)v;
				break;
			case 3:
				c->mtu = (uint32_t)v;
				break;
			case 4:
				c->refresh_time = v * 1000000000ull;
				break;
			case 5:
				c->cache_timeout = v * 1000000000ull;
				break;
			case 6:
				c->commit_timeout = v * 1000000000ull;
				break;
			case 7:
				c->tx_hold = v * 1000ull; /* microseconds */
				break;
			default:
				c->tx_hold_update = v * 1000ull;
			}
			return 0;
		}
	}
	BAD("sync: unknown word '%s' (mode, udp, multicast, peer-kind, key, "
	    "disable-external-cache, window-tracking, startup-resync, no-local, no-nat-mappings, "
	    "ack-window, "
	    "resend-queue, external-max, mtu, refresh-time, cache-timeout, commit-timeout, "
	    "tx-hold, tx-hold-update, "
	    "ignore-proto, ignore-addr, ignore-tcp-state, mark)",
	    w);
}

int live_sync_config(struct live_sync **ls, int argc, char **argv, const char *dir, char *msg,
		     size_t mlen)
{
	struct live_sync *s = *ls;

	if (argc < 2)
		BAD("usage: sync WORD ... (docs/sync.md)");
	if (!s) {
		if (!(s = calloc(1, sizeof(*s))))
			return -ENOMEM;
		sync_config_default(&s->cfg);
		s->rx_fd = s->tx_fd = -1;
		*ls = s;
	}
	if (!strcmp(argv[1], "udp") || !strcmp(argv[1], "multicast") || !strcmp(argv[1], "tcp"))
		return link_words(s, argc, argv, msg, mlen);
	return option_words(s, argc, argv, dir, msg, mlen);
}

/* ---- sockets ----------------------------------------------------------------------------- */

static socklen_t sockaddr_of(int family, const union pt_addr *a, uint16_t port, unsigned scope,
			     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		memcpy(&in->sin_addr, a->b, 4);
		return sizeof(*in);
	}
	{
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		memcpy(&in6->sin6_addr, a->b, 16);
		in6->sin6_scope_id = scope;
		return sizeof(*in6);
	}
}

static int open_sockets(struct live_sync *s, FILE *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned ifindex = s->ifname[0] ? if_nametoindex(s->ifname) : 0;
	int one = 1, zero = 0, ttl = 1;
	union pt_addr any;

	if (s->ifname[0] && !ifindex) {
		fprintf(err, "sync: no interface '%s'\n", s->ifname);
		return -ENODEV;
	}
	if (s->tcp) {
		struct sockaddr_storage peer;
		socklen_t plen;
		unsigned scope = s->family == AF_INET6 ? ifindex : 0;
		int r;

		len = sockaddr_of(s->family, &s->local, s->port, scope, &ss);
		plen = sockaddr_of(s->family, &s->peer, s->port, scope, &peer);
		if ((r = sync_tcp_open(&s->tcp_link, &ss, len, &peer, plen, s->cfg.auth, 0)) < 0) {
			fprintf(err, "sync tcp: port %u: %s\n", s->port, strerror(-r));
			return r;
		}
		return 0;
	}
	s->rx_fd = socket(s->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s->tx_fd = socket(s->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->rx_fd < 0 || s->tx_fd < 0)
		goto fail;
	setsockopt(s->rx_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&any, 0, sizeof(any));
	len = sockaddr_of(s->family, s->multicast ? &any : &s->local, s->port,
			  s->family == AF_INET6 ? ifindex : 0, &ss);
	if (bind(s->rx_fd, (struct sockaddr *)&ss, len) < 0)
		goto fail;
	if (s->multicast && s->family == AF_INET) {
		struct ip_mreqn mr;

		memset(&mr, 0, sizeof(mr));
		memcpy(&mr.imr_multiaddr, s->peer.b, 4);
		if (s->have_local)
			memcpy(&mr.imr_address, s->local.b, 4);
		mr.imr_ifindex = (int)ifindex;
		if (setsockopt(s->rx_fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0 ||
		    setsockopt(s->tx_fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) < 0 ||
		    setsockopt(s->tx_fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero)) < 0 ||
		    setsockopt(s->tx_fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) < 0)
			goto fail;
	} else if (s->multicast) {
		struct ipv6_mreq mr;

		memcpy(&mr.ipv6mr_multiaddr, s->peer.b, 16);
		mr.ipv6mr_interface = ifindex;
		if (setsockopt(s->rx_fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0 ||
		    setsockopt(s->tx_fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex,
			       sizeof(ifindex)) < 0 ||
		    setsockopt(s->tx_fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &zero, sizeof(zero)) <
			0 ||
		    setsockopt(s->tx_fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl)) < 0)
			goto fail;
	}
	s->dstlen =
	    sockaddr_of(s->family, &s->peer, s->port, s->family == AF_INET6 ? ifindex : 0, &s->dst);
	return 0;
fail:
	fprintf(err, "sync: socket on port %u: %s\n", s->port, strerror(errno));
	return -errno;
}

static int link_send(void *priv, const void *buf, size_t len)
{
	struct live_sync *s = priv;

	if (s->tcp_link)
		return sync_tcp_send(s->tcp_link, buf, len, box_now(s->box));
	if (sendto(s->tx_fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)&s->dst, s->dstlen) < 0)
		return -errno;
	return 0;
}

static bool is_local(void *priv, int family, const union pt_addr *a)
{
	return box_is_local(priv, family, a);
}

int live_sync_start(struct live_sync *s, struct box *b, FILE *err)
{
	static const struct sync_ops ops = {.send = link_send};
	struct ct_table *ct;
	struct timespec ts;
	int r;

	if (!s->have_peer) {
		fprintf(err, "sync: no link (sync udp ..., sync tcp ... or sync multicast ...)\n");
		return -EINVAL;
	}
	if (s->cfg.auth) {
		if (s->cfg.peer != SYNC_PEER_PKTTABLES) {
			fprintf(err, "sync key: conntrackd cannot check it: give "
				     "'sync peer-kind pkttables'\n");
			return -EINVAL;
		}
		if ((r = sync_key_load(s->keyfile, s->cfg.key)) < 0) {
			fprintf(err, "sync key %s: %s\n", s->keyfile,
				r == -EINVAL ? "want 32 bytes, or 64 hex digits" : strerror(-r));
			return r;
		}
	}
	if ((r = ct_box_enable(b, true)) < 0 || !(ct = ct_box_table(b))) {
		fprintf(err, "sync: cannot turn conntrack on: %s\n", strerror(r ? -r : ENOMEM));
		return r ? r : -ENOMEM;
	}
	s->box = b;
	s->cfg.filter.local_fn = is_local;
	s->cfg.filter.local_priv = b;
	/* numbers from the wall clock, as conntrackd's time(): a restarted box starts above
	 * what it sent before (the envelope's replay window relies on it) */
	clock_gettime(CLOCK_REALTIME, &ts);
	s->cfg.seq_start = (uint32_t)ts.tv_sec;
	s->cfg.auth_counter_start = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if ((r = open_sockets(s, err)) < 0)
		return r;
	s->sync = sync_new(&s->cfg, ct, nat_box_table(b), &ops, s, box_now(b));
	if (!s->sync) {
		fprintf(err, "sync: %s\n", strerror(errno));
		return -errno;
	}
	explicit_bzero(s->cfg.key, sizeof(s->cfg.key)); /* the sync instance has its copy */
	return 0;
}

void live_sync_free(struct live_sync *s)
{
	if (!s)
		return;
	sync_free(s->sync);
	sync_tcp_free(s->tcp_link);
	if (s->rx_fd >= 0)
		close(s->rx_fd);
	if (s->tx_fd >= 0)
		close(s->tx_fd);
	free(s);
}

int live_sync_fd(const struct live_sync *s)
{
	if (s && s->sync && s->tcp_link)
		return sync_tcp_fd(s->tcp_link);
	return s && s->sync ? s->rx_fd : -1;
}

void live_sync_input(struct live_sync *s, uint64_t now)
{
	static uint8_t buf[65536];

	if (s->tcp_link) {
		sync_tcp_input(s->tcp_link, s->sync, now);
		sync_tick(s->sync, now);
		return;
	}
	for (int i = 0; i < SYNC_RX_BUDGET; i++) {
		ssize_t n = recv(s->rx_fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0)
			break;
		sync_receive(s->sync, buf, (size_t)n, now);
	}
	sync_tick(s->sync, now);
}

uint64_t live_sync_next(const struct live_sync *s)
{
	uint64_t t;

	if (!s || !s->sync)
		return UINT64_MAX;
	t = sync_next_timer(s->sync);
	if (s->tcp_link && sync_tcp_next(s->tcp_link) < t)
		t = sync_tcp_next(s->tcp_link);
	return t;
}

void live_sync_tick(struct live_sync *s, uint64_t now)
{
	if (s && s->sync && s->tcp_link)
		sync_tcp_input(s->tcp_link, s->sync, now); /* a reconnection may be due */
	if (s && s->sync)
		sync_tick(s->sync, now);
}

int live_sync_command(void *priv, const char *cmd, FILE *out)
{
	struct live_sync *s = priv;
	uint64_t now = box_now(s->box);
	char word[32], arg[32];
	int n = sscanf(cmd, "%31s %31s", word, arg);

	if (n < 1)
		return -EINVAL;
	if (!strcmp(word, "commit")) {
		fprintf(out, "committed %u\n", sync_commit(s->sync, now));
	} else if (!strcmp(word, "flush")) {
		bool in = n < 2 || !strcmp(arg, "internal"), ex = n < 2 || !strcmp(arg, "external");

		if (!in && !ex) {
			fprintf(out, "flush: internal, external or nothing (both)");
			return -EINVAL;
		}
		sync_flush(s->sync, in, ex);
	} else if (!strcmp(word, "resync")) {
		int r = sync_request_resync(s->sync, now);

		if (r < 0) {
			fprintf(out, "ALARM mode has no RESYNC");
			return r;
		}
	} else if (!strcmp(word, "bulk")) {
		fprintf(out, "queued %u\n", sync_bulk(s->sync, now));
	} else if (!strcmp(word, "stats")) {
		sync_stats_print(s->sync, out);
		if (s->tcp_link)
			sync_tcp_stats_print(s->tcp_link, out);
	} else if (!strcmp(word, "external")) {
		sync_dump_external(s->sync, out, now);
	} else if (!strcmp(word, "internal")) {
		sync_dump_internal(s->sync, out, now);
	} else {
		fprintf(out,
			"unknown command '%s' (commit, flush, resync, bulk, stats, external, "
			"internal)",
			word);
		return -EINVAL;
	}
	return 0;
}
