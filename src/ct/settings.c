// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User-settable conntrack settings by the names of Linux's net.netfilter.nf_conntrack_*
 * sysctls, and named timeout policies (CT --timeout; what `nfct timeout add` makes).
 *
 * One table names every timeout twice: by its sysctl (udp_timeout_stream) and by the state
 * name a policy uses for it (udp replied), so settings, policies and their printing agree.
 *
 *   ct_config_set(c, "udp_timeout", "10")       c->timeouts.udp_unreplied = 10 s
 *   ct_timeout_policy_set(t, "dns", "udp", {"unreplied=5"})
 *        t->policies[id - 1] = { "dns", 17, table timeouts with udp_unreplied = 5 s }
 *   CT --timeout dns -> ct_pkt_set_timeout(p, id) -> new entry: CT_EXT_TIMEOUT -> policy
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "ct/ct_int.h"

#define PROTO_GENERIC 255

#define TO(field) offsetof(struct ct_timeouts, field)

struct ct_tmo_name {
	uint8_t l4proto;
	const char *state;  /* policy state name (nfct's) */
	const char *sysctl; /* NULL: no sysctl for it */
	uint16_t off;	    /* in struct ct_timeouts */
};

static const struct ct_tmo_name tmo_names[] = {
    {IPPROTO_TCP, "syn_sent", "tcp_timeout_syn_sent", TO(tcp[CT_TCP_SYN_SENT])},
    {IPPROTO_TCP, "syn_recv", "tcp_timeout_syn_recv", TO(tcp[CT_TCP_SYN_RECV])},
    {IPPROTO_TCP, "established", "tcp_timeout_established", TO(tcp[CT_TCP_ESTABLISHED])},
    {IPPROTO_TCP, "fin_wait", "tcp_timeout_fin_wait", TO(tcp[CT_TCP_FIN_WAIT])},
    {IPPROTO_TCP, "close_wait", "tcp_timeout_close_wait", TO(tcp[CT_TCP_CLOSE_WAIT])},
    {IPPROTO_TCP, "last_ack", "tcp_timeout_last_ack", TO(tcp[CT_TCP_LAST_ACK])},
    {IPPROTO_TCP, "time_wait", "tcp_timeout_time_wait", TO(tcp[CT_TCP_TIME_WAIT])},
    {IPPROTO_TCP, "close", "tcp_timeout_close", TO(tcp[CT_TCP_CLOSE])},
    {IPPROTO_TCP, "syn_sent2", NULL, TO(tcp[CT_TCP_SYN_SENT2])},
    {IPPROTO_TCP, "retrans", "tcp_timeout_max_retrans", TO(tcp[CT_TCP_RETRANS])},
    {IPPROTO_TCP, "unacknowledged", "tcp_timeout_unacknowledged", TO(tcp[CT_TCP_UNACK])},
    {IPPROTO_UDP, "unreplied", "udp_timeout", TO(udp_unreplied)},
    {IPPROTO_UDP, "replied", "udp_timeout_stream", TO(udp_replied)},
    {IPPROTO_ICMP, "timeout", "icmp_timeout", TO(icmp)},
    {IPPROTO_ICMPV6, "timeout", "icmpv6_timeout", TO(icmpv6)},
    {PROTO_GENERIC, "timeout", "generic_timeout", TO(generic)},
    {IPPROTO_SCTP, "closed", "sctp_timeout_closed", TO(sctp[CT_SCTP_CLOSED])},
    {IPPROTO_SCTP, "cookie_wait", "sctp_timeout_cookie_wait", TO(sctp[CT_SCTP_COOKIE_WAIT])},
    {IPPROTO_SCTP, "cookie_echoed", "sctp_timeout_cookie_echoed",
     TO(sctp[CT_SCTP_COOKIE_ECHOED])},
    {IPPROTO_SCTP, "established", "sctp_timeout_established", TO(sctp[CT_SCTP_ESTABLISHED])},
    {IPPROTO_SCTP, "shutdown_sent", "sctp_timeout_shutdown_sent",
     TO(sctp[CT_SCTP_SHUTDOWN_SENT])},
    {IPPROTO_SCTP, "shutdown_recd", "sctp_timeout_shutdown_recd",
     TO(sctp[CT_SCTP_SHUTDOWN_RECD])},
    {IPPROTO_SCTP, "shutdown_ack_sent", "sctp_timeout_shutdown_ack_sent",
     TO(sctp[CT_SCTP_SHUTDOWN_ACK_SENT])},
    {IPPROTO_SCTP, "heartbeat_sent", "sctp_timeout_heartbeat_sent",
     TO(sctp[CT_SCTP_HEARTBEAT_SENT])},
    {IPPROTO_DCCP, "request", "dccp_timeout_request", TO(dccp[CT_DCCP_REQUEST])},
    {IPPROTO_DCCP, "respond", "dccp_timeout_respond", TO(dccp[CT_DCCP_RESPOND])},
    {IPPROTO_DCCP, "partopen", "dccp_timeout_partopen", TO(dccp[CT_DCCP_PARTOPEN])},
    {IPPROTO_DCCP, "open", "dccp_timeout_open", TO(dccp[CT_DCCP_OPEN])},
    {IPPROTO_DCCP, "closereq", "dccp_timeout_closereq", TO(dccp[CT_DCCP_CLOSEREQ])},
    {IPPROTO_DCCP, "closing", "dccp_timeout_closing", TO(dccp[CT_DCCP_CLOSING])},
    {IPPROTO_DCCP, "timewait", "dccp_timeout_timewait", TO(dccp[CT_DCCP_TIMEWAIT])},
    {IPPROTO_GRE, "unreplied", "gre_timeout", TO(gre_unreplied)},
    {IPPROTO_GRE, "replied", "gre_timeout_stream", TO(gre_replied)},
};

enum set_kind { K_MAX, K_BUCKETS, K_BOOL, K_U8 };

static const struct {
	const char *name;
	enum set_kind kind;
	uint16_t off; /* in struct ct_config */
} plain_settings[] = {
    {"max", K_MAX, offsetof(struct ct_config, max_entries)},
    {"buckets", K_BUCKETS, offsetof(struct ct_config, buckets)},
    {"tcp_loose", K_BOOL, offsetof(struct ct_config, tcp_loose)},
    {"tcp_be_liberal", K_BOOL, offsetof(struct ct_config, tcp_be_liberal)},
    {"tcp_max_retrans", K_U8, offsetof(struct ct_config, tcp_max_retrans)},
    {"checksum", K_BOOL, offsetof(struct ct_config, checksum)},
    {"acct", K_BOOL, offsetof(struct ct_config, acct)},
    {"timestamp", K_BOOL, offsetof(struct ct_config, tstamp)},
    {"dccp_loose", K_BOOL, offsetof(struct ct_config, dccp_loose)},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	uint8_t l4proto;
} proto_names[] = {
    {"tcp", IPPROTO_TCP},   {"udp", IPPROTO_UDP},	{"udplite", IPPROTO_UDPLITE},
    {"icmp", IPPROTO_ICMP}, {"icmpv6", IPPROTO_ICMPV6}, {"sctp", IPPROTO_SCTP},
    {"dccp", IPPROTO_DCCP}, {"gre", IPPROTO_GRE},	{"generic", PROTO_GENERIC},
};

static const char *proto_name(uint8_t l4proto)
{
	for (unsigned i = 0; i < NELEM(proto_names); i++)
		if (proto_names[i].l4proto == l4proto)
			return proto_names[i].name;
	return "generic";
}

/* UDP-Lite has UDP's timeouts (as in Linux). */
static uint8_t tmo_proto(uint8_t l4proto)
{
	return l4proto == IPPROTO_UDPLITE ? IPPROTO_UDP : l4proto;
}

static inline uint64_t *tmo_at(struct ct_timeouts *to, uint16_t off)
{
	return (uint64_t *)((char *)to + off);
}

/* Whole seconds, as sysctl and nfct take them: 0 .. 2^31-1. */
static int parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > 0x7fffffffull)
		return -EINVAL;
	*ns = v * CT_SEC;
	return 0;
}

int ct_config_set(struct ct_config *c, const char *name, const char *value)
{
	char *end;
	unsigned long v;

	if (!strncmp(name, "net.netfilter.", 14))
		name += 14;
	if (!strncmp(name, "nf_conntrack_", 13))
		name += 13;
	if (!strcmp(name, "hashsize")) /* the module parameter: the same hash size */
		name = "buckets";
	for (unsigned i = 0; i < NELEM(tmo_names); i++) {
		if (tmo_names[i].sysctl && !strcmp(tmo_names[i].sysctl, name)) {
			uint64_t ns;

			if (parse_seconds(value, &ns) < 0)
				return -EINVAL;
			*tmo_at(&c->timeouts, tmo_names[i].off) = ns;
			if (tmo_names[i].off == TO(sctp[CT_SCTP_CLOSED]))
				c->timeouts.sctp[CT_SCTP_NONE] = ns; /* the "new" slot follows */
			return 0;
		}
	}
	for (unsigned i = 0; i < NELEM(plain_settings); i++) {
		void *f = (char *)c + plain_settings[i].off;

		if (strcmp(plain_settings[i].name, name))
			continue;
		if (!*value || *value == '-' || *value == '+')
			return -EINVAL;
		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || *end)
			return -EINVAL;
		switch (plain_settings[i].kind) {
		case K_MAX: /* Linux takes 0 as "no limit"; a table here needs a bound */
			if (v == 0 || v > UINT32_MAX)
				return -EINVAL;
			*(uint32_t *)f = (uint32_t)v;
			break;
		case K_BUCKETS: /* rounded up to a power of two by ct_table_set_config */
			if (v == 0 || v > CT_BUCKETS_MAX)
				return -EINVAL;
			*(uint32_t *)f = (uint32_t)v;
			c->buckets_set = true;
			break;
		case K_BOOL:
			*(bool *)f = v != 0;
			break;
		case K_U8:
			if (v > 255)
				return -EINVAL;
			*(uint8_t *)f = (uint8_t)v;
			break;
		}
		return 0;
	}
	return -ENOENT;
}

void ct_config_print(const struct ct_config *c, FILE *f)
{
	for (unsigned i = 0; i < NELEM(plain_settings); i++) {
		const void *p = (const char *)c + plain_settings[i].off;
		enum set_kind k = plain_settings[i].kind;
		unsigned long v = k == K_MAX || k == K_BUCKETS ? *(const uint32_t *)p
				  : k == K_BOOL		       ? *(const bool *)p
							       : *(const uint8_t *)p;

		fprintf(f, "%s = %lu\n", plain_settings[i].name, v);
	}
	for (unsigned i = 0; i < NELEM(tmo_names); i++)
		if (tmo_names[i].sysctl)
			fprintf(f, "%s = %llu\n", tmo_names[i].sysctl,
				(unsigned long long)(*tmo_at((struct ct_timeouts *)&c->timeouts,
							     tmo_names[i].off) /
						     CT_SEC));
}

/* ---- timeout policies -------------------------------------------------------------------- */

int ct_timeout_policy_find(const struct ct_table *t, const char *name)
{
	for (unsigned i = 0; i < t->npolicies; i++)
		if (!strcmp(t->policies[i].name, name))
			return (int)i + 1;
	return -ENOENT;
}

const struct ct_timeout_policy *ct_timeout_policy_get(const struct ct_table *t, int id)
{
	if (id < 1 || (unsigned)id > t->npolicies)
		return NULL;
	return &t->policies[id - 1];
}

int ct_timeout_policy_set(struct ct_table *t, const char *name, const char *proto, int nargs,
			  char **args, char *err, size_t errlen)
{
	struct ct_timeout_policy pol, *slot;
	int l4 = -1, id;

	memset(&pol, 0, sizeof(pol));
	if (!*name || strlen(name) >= CT_TIMEOUT_NAME_MAX) {
		snprintf(err, errlen, "policy name must have 1..%d characters",
			 CT_TIMEOUT_NAME_MAX - 1);
		return -EINVAL;
	}
	for (unsigned i = 0; i < NELEM(proto_names); i++)
		if (!strcmp(proto_names[i].name, proto))
			l4 = proto_names[i].l4proto;
	if (l4 < 0) {
		snprintf(err, errlen, "unknown protocol '%s' (tcp, udp, udplite, icmp, icmpv6, "
				      "sctp, dccp, gre, generic)", proto);
		return -EINVAL;
	}
	id = ct_timeout_policy_find(t, name);
	if (id > 0 && t->policies[id - 1].l4proto != l4) {
		snprintf(err, errlen, "policy '%s' exists for %s", name,
			 proto_name(t->policies[id - 1].l4proto));
		return -EBUSY;
	}
	snprintf(pol.name, sizeof(pol.name), "%s", name);
	pol.l4proto = (uint8_t)l4;
	/* unnamed states: an update keeps the policy's values, a new one takes the table's */
	pol.to = id > 0 ? t->policies[id - 1].to : t->cfg.timeouts;
	for (int a = 0; a < nargs; a++) {
		const char *eq = strchr(args[a], '=');
		bool found = false;
		uint64_t ns;

		for (unsigned i = 0; eq && i < NELEM(tmo_names); i++) {
			const struct ct_tmo_name *n = &tmo_names[i];

			if (n->l4proto != tmo_proto((uint8_t)l4) || strlen(n->state) != (size_t)(eq - args[a]) ||
			    strncmp(n->state, args[a], (size_t)(eq - args[a])))
				continue;
			if (parse_seconds(eq + 1, &ns) < 0) {
				snprintf(err, errlen, "bad timeout '%s' (seconds)", args[a]);
				return -EINVAL;
			}
			*tmo_at(&pol.to, n->off) = ns;
			if (n->off == TO(sctp[CT_SCTP_CLOSED]))
				pol.to.sctp[CT_SCTP_NONE] = ns;
			found = true;
		}
		if (!found) {
			snprintf(err, errlen, "'%s': not STATE=SECONDS with a %s state", args[a],
				 proto);
			return -EINVAL;
		}
	}
	if (id > 0) {
		t->policies[id - 1] = pol; /* in place: its connections see the new values */
		return 0;
	}
	if (t->npolicies == CT_TIMEOUT_POLICY_MAX) {
		snprintf(err, errlen, "too many timeout policies (%d)", CT_TIMEOUT_POLICY_MAX);
		return -ENOSPC;
	}
	if (!t->policies) {
		/* allocated whole once: entries point into it, so it never moves */
		t->policies = calloc(CT_TIMEOUT_POLICY_MAX, sizeof(*t->policies));
		if (!t->policies) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	slot = &t->policies[t->npolicies++];
	*slot = pol;
	return 0;
}

void ct_timeout_policy_print(const struct ct_table *t, FILE *f)
{
	for (unsigned i = 0; i < t->npolicies; i++) {
		const struct ct_timeout_policy *p = &t->policies[i];

		fprintf(f, "ct-timeout %s %s", p->name, proto_name(p->l4proto));
		for (unsigned k = 0; k < NELEM(tmo_names); k++)
			if (tmo_names[k].l4proto == tmo_proto(p->l4proto))
				fprintf(f, " %s=%llu", tmo_names[k].state,
					(unsigned long long)(*tmo_at((struct ct_timeouts *)&p->to,
								     tmo_names[k].off) /
							     CT_SEC));
		fputc('\n', f);
	}
}
