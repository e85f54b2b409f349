// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Control messages, the conntrack subsystem (docs/ctl.md): entries, filters, statistics.
 *
 * An entry (CTL_CT_NEW reply or event), every value big-endian as in ctnetlink:
 *
 *   nlmsghdr | nfgenmsg {AF_INET, 0, 0}
 *   CTA_TUPLE_ORIG (1) ---+- CTA_TUPLE_IP (1) ----+- CTA_IP_V4_SRC (1)  4 bytes
 *                         |                       +- CTA_IP_V4_DST (2)  4 bytes
 *                         +- CTA_TUPLE_PROTO (2) -+- CTA_PROTO_NUM (1)  u8
 *                                                 +- CTA_PROTO_SRC_PORT (2) be16
 *                                                 +- CTA_PROTO_DST_PORT (3) be16
 *   CTA_TUPLE_REPLY (2)   (the same)
 *   CTA_STATUS (3) be32   CTA_TIMEOUT (7) be32 s   CTA_MARK (8) be32   CTA_USE (11) be32
 *   CTA_ID (12) be32      CTA_ZONE (18) be16
 *   CTA_PROTOINFO (4) -- CTA_PROTOINFO_TCP (1) -- CTA_PROTOINFO_TCP_STATE (1) u8
 *   CTA_COUNTERS_ORIG (9) / _REPLY (10) -- CTA_COUNTERS_PACKETS (1) be64, _BYTES (2) be64
 *   CTA_TIMESTAMP (20) -- CTA_TIMESTAMP_START (1) be64 ns, _STOP (2), CTL_TS_NOW (64)
 *   CTA_LABELS (22) 16 bytes, CTA_LABELS_MASK (23) 16 bytes (host-order 32-bit words)
 *   CTA_NAT_SRC (6) / CTA_NAT_DST (13), in a CT_NEW that creates:
 *     +- CTA_NAT_V4_MINIP (1) 4 bytes, CTA_NAT_V4_MAXIP (2)  or  CTA_NAT_V6_MINIP (4) 16, _MAXIP
 * (5)
 *     +- CTA_NAT_PROTO (3) -- CTA_PROTONAT_PORT_MIN (1) be16, CTA_PROTONAT_PORT_MAX (2) be16
 *
 * A tuple's own nesting is drawn in msg.c. Validation (the tables below) comes first, as msg.c
 * does it; decode_ct reads only what passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/helper.h"
#include "ct/labels.h"
#include "ct/tstamp.h"
#include "ctl/msg_int.h"
#include "nat/nat.h"

/* ---- validation tables ------------------------------------------------------------------- */

static const struct ctl_pol counters_pol[] = {
    [CTA_COUNTERS_PACKETS] = {MNL_TYPE_U64, 0, "CTA_COUNTERS_PACKETS", NULL},
    [CTA_COUNTERS_BYTES] = {MNL_TYPE_U64, 0, "CTA_COUNTERS_BYTES", NULL},
};
static const struct ctl_level counters_level = LEVEL(counters_pol);

static const struct ctl_pol tstamp_pol[CTL_TS_NOW + 1] = {
    [CTA_TIMESTAMP_START] = {MNL_TYPE_U64, 0, "CTA_TIMESTAMP_START", NULL},
    [CTA_TIMESTAMP_STOP] = {MNL_TYPE_U64, 0, "CTA_TIMESTAMP_STOP", NULL},
    [CTL_TS_NOW] = {MNL_TYPE_U64, 0, "CTL_TS_NOW", NULL},
};
static const struct ctl_level tstamp_level = LEVEL(tstamp_pol);

static const struct ctl_pol tcp_pol[] = {
    [CTA_PROTOINFO_TCP_STATE] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_STATE", NULL},
    [CTA_PROTOINFO_TCP_WSCALE_ORIGINAL] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_WSCALE_ORIGINAL",
					   NULL},
    [CTA_PROTOINFO_TCP_WSCALE_REPLY] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_TCP_WSCALE_REPLY", NULL},
    [CTA_PROTOINFO_TCP_FLAGS_ORIGINAL] = {MNL_TYPE_BINARY, 2, "CTA_PROTOINFO_TCP_FLAGS_ORIGINAL",
					  NULL},
    [CTA_PROTOINFO_TCP_FLAGS_REPLY] = {MNL_TYPE_BINARY, 2, "CTA_PROTOINFO_TCP_FLAGS_REPLY", NULL},
};
static const struct ctl_level tcp_level = LEVEL(tcp_pol);

static const struct ctl_pol sctp_pol[] = {
    [CTA_PROTOINFO_SCTP_STATE] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_SCTP_STATE", NULL},
    [CTA_PROTOINFO_SCTP_VTAG_ORIGINAL] = {MNL_TYPE_U32, 0, "CTA_PROTOINFO_SCTP_VTAG_ORIGINAL",
					  NULL},
    [CTA_PROTOINFO_SCTP_VTAG_REPLY] = {MNL_TYPE_U32, 0, "CTA_PROTOINFO_SCTP_VTAG_REPLY", NULL},
};
static const struct ctl_level sctp_level = LEVEL(sctp_pol);

static const struct ctl_pol dccp_pol[] = {
    [CTA_PROTOINFO_DCCP_STATE] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_DCCP_STATE", NULL},
    [CTA_PROTOINFO_DCCP_ROLE] = {MNL_TYPE_U8, 0, "CTA_PROTOINFO_DCCP_ROLE", NULL},
    [CTA_PROTOINFO_DCCP_HANDSHAKE_SEQ] = {MNL_TYPE_U64, 0, "CTA_PROTOINFO_DCCP_HANDSHAKE_SEQ",
					  NULL},
};
static const struct ctl_level dccp_level = LEVEL(dccp_pol);

static const struct ctl_pol protoinfo_pol[] = {
    [CTA_PROTOINFO_TCP] = {MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_TCP", &tcp_level},
    [CTA_PROTOINFO_DCCP] = {MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_DCCP", &dccp_level},
    [CTA_PROTOINFO_SCTP] = {MNL_TYPE_NESTED, 0, "CTA_PROTOINFO_SCTP", &sctp_level},
};
static const struct ctl_level protoinfo_level = LEVEL(protoinfo_pol);

static const struct ctl_pol filter_pol[] = {
    [CTL_F_TUPLE_ORIG] = {MNL_TYPE_NESTED, 0, "CTL_F_TUPLE_ORIG", &ctl_tuple_level},
    [CTL_F_TUPLE_REPLY] = {MNL_TYPE_NESTED, 0, "CTL_F_TUPLE_REPLY", &ctl_tuple_level},
    [CTL_F_MARK] = {MNL_TYPE_U32, 0, "CTL_F_MARK", NULL},
    [CTL_F_MARK_MASK] = {MNL_TYPE_U32, 0, "CTL_F_MARK_MASK", NULL},
    [CTL_F_ZONE] = {MNL_TYPE_U16, 0, "CTL_F_ZONE", NULL},
    [CTL_F_STATUS] = {MNL_TYPE_U32, 0, "CTL_F_STATUS", NULL},
    [CTL_F_STATUS_MASK] = {MNL_TYPE_U32, 0, "CTL_F_STATUS_MASK", NULL},
};
static const struct ctl_level filter_level = LEVEL(filter_pol);

static const struct ctl_pol help_pol[] = {
    [CTA_HELP_NAME] = {MNL_TYPE_NUL_STRING, 0, "CTA_HELP_NAME", NULL},
};
static const struct ctl_level help_level = LEVEL(help_pol);

static const struct ctl_pol protonat_pol[] = {
    [CTA_PROTONAT_PORT_MIN] = {MNL_TYPE_U16, 0, "CTA_PROTONAT_PORT_MIN", NULL},
    [CTA_PROTONAT_PORT_MAX] = {MNL_TYPE_U16, 0, "CTA_PROTONAT_PORT_MAX", NULL},
};
static const struct ctl_level protonat_level = LEVEL(protonat_pol);

static const struct ctl_pol nat_pol[] = {
    [CTA_NAT_V4_MINIP] = {MNL_TYPE_BINARY, 4, "CTA_NAT_V4_MINIP", NULL},
    [CTA_NAT_V4_MAXIP] = {MNL_TYPE_BINARY, 4, "CTA_NAT_V4_MAXIP", NULL},
    [CTA_NAT_PROTO] = {MNL_TYPE_NESTED, 0, "CTA_NAT_PROTO", &protonat_level},
    [CTA_NAT_V6_MINIP] = {MNL_TYPE_BINARY, 16, "CTA_NAT_V6_MINIP", NULL},
    [CTA_NAT_V6_MAXIP] = {MNL_TYPE_BINARY, 16, "CTA_NAT_V6_MAXIP", NULL},
};
static const struct ctl_level nat_level = LEVEL(nat_pol);

static const struct ctl_pol ct_pol[CTL_A_MAX + 1] = {
    [CTA_NAT_SRC] = {MNL_TYPE_NESTED, 0, "CTA_NAT_SRC", &nat_level},
    [CTA_NAT_DST] = {MNL_TYPE_NESTED, 0, "CTA_NAT_DST", &nat_level},
    [CTA_TUPLE_ORIG] = {MNL_TYPE_NESTED, 0, "CTA_TUPLE_ORIG", &ctl_tuple_level},
    [CTA_TUPLE_REPLY] = {MNL_TYPE_NESTED, 0, "CTA_TUPLE_REPLY", &ctl_tuple_level},
    [CTA_STATUS] = {MNL_TYPE_U32, 0, "CTA_STATUS", NULL},
    [CTA_PROTOINFO] = {MNL_TYPE_NESTED, 0, "CTA_PROTOINFO", &protoinfo_level},
    [CTA_HELP] = {MNL_TYPE_NESTED, 0, "CTA_HELP", &help_level},
    [CTA_TIMEOUT] = {MNL_TYPE_U32, 0, "CTA_TIMEOUT", NULL},
    [CTA_MARK] = {MNL_TYPE_U32, 0, "CTA_MARK", NULL},
    [CTA_COUNTERS_ORIG] = {MNL_TYPE_NESTED, 0, "CTA_COUNTERS_ORIG", &counters_level},
    [CTA_COUNTERS_REPLY] = {MNL_TYPE_NESTED, 0, "CTA_COUNTERS_REPLY", &counters_level},
    [CTA_USE] = {MNL_TYPE_U32, 0, "CTA_USE", NULL},
    [CTA_ID] = {MNL_TYPE_U32, 0, "CTA_ID", NULL},
    [CTA_ZONE] = {MNL_TYPE_U16, 0, "CTA_ZONE", NULL},
    [CTA_TIMESTAMP] = {MNL_TYPE_NESTED, 0, "CTA_TIMESTAMP", &tstamp_level},
    [CTA_LABELS] = {MNL_TYPE_BINARY, 16, "CTA_LABELS", NULL},
    [CTA_LABELS_MASK] = {MNL_TYPE_BINARY, 16, "CTA_LABELS_MASK", NULL},
    [CTA_MARK_MASK] = {MNL_TYPE_U32, 0, "CTA_MARK_MASK", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
    [CTL_A_FILTER] = {MNL_TYPE_NESTED, 0, "CTL_A_FILTER", &filter_level},
    [CTL_A_EVENT_MASK] = {MNL_TYPE_U32, 0, "CTL_A_EVENT_MASK", NULL},
    [CTL_A_COUNT] = {MNL_TYPE_U32, 0, "CTL_A_COUNT", NULL},
    [CTL_A_EVENTS_LOST] = {MNL_TYPE_U64, 0, "CTL_A_EVENTS_LOST", NULL},
};
const struct ctl_level ctl_ct_level = LEVEL(ct_pol);

static const struct ctl_pol stats_cpu_pol[CTL_A_MAX + 1] = {
    [CTA_STATS_FOUND] = {MNL_TYPE_U32, 0, "CTA_STATS_FOUND", NULL},
    [CTA_STATS_NEW] = {MNL_TYPE_U32, 0, "CTA_STATS_NEW", NULL},
    [CTA_STATS_INVALID] = {MNL_TYPE_U32, 0, "CTA_STATS_INVALID", NULL},
    [CTA_STATS_INSERT] = {MNL_TYPE_U32, 0, "CTA_STATS_INSERT", NULL},
    [CTA_STATS_INSERT_FAILED] = {MNL_TYPE_U32, 0, "CTA_STATS_INSERT_FAILED", NULL},
    [CTA_STATS_DROP] = {MNL_TYPE_U32, 0, "CTA_STATS_DROP", NULL},
    [CTA_STATS_EARLY_DROP] = {MNL_TYPE_U32, 0, "CTA_STATS_EARLY_DROP", NULL},
    [CTA_STATS_ERROR] = {MNL_TYPE_U32, 0, "CTA_STATS_ERROR", NULL},
    [CTA_STATS_SEARCH_RESTART] = {MNL_TYPE_U32, 0, "CTA_STATS_SEARCH_RESTART", NULL},
    [CTA_STATS_CLASH_RESOLVE] = {MNL_TYPE_U32, 0, "CTA_STATS_CLASH_RESOLVE", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
    [CTL_A_EVENTS_LOST] = {MNL_TYPE_U64, 0, "CTL_A_EVENTS_LOST", NULL},
};
const struct ctl_level ctl_stats_cpu_level = LEVEL(stats_cpu_pol);

static const struct ctl_pol stats_global_pol[CTL_A_MAX + 1] = {
    [CTA_STATS_GLOBAL_ENTRIES] = {MNL_TYPE_U32, 0, "CTA_STATS_GLOBAL_ENTRIES", NULL},
    [CTA_STATS_GLOBAL_MAX_ENTRIES] = {MNL_TYPE_U32, 0, "CTA_STATS_GLOBAL_MAX_ENTRIES", NULL},
    [CTL_A_VERSION] = {MNL_TYPE_U32, 0, "CTL_A_VERSION", NULL},
};
const struct ctl_level ctl_stats_global_level = LEVEL(stats_global_pol);

/* ---- protocol states --------------------------------------------------------------------- */

/* The trackers' state names, in the kernel's numbering (the CTA_PROTOINFO_*_STATE values). */
static const char *const tcp_states[] = {
    "NONE",	  "SYN_SENT", "SYN_RECV",  "ESTABLISHED", "FIN_WAIT",
    "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",	  "SYN_SENT2",
};
static const char *const sctp_states[] = {
    "NONE",	     "CLOSED",	      "COOKIE_WAIT",	   "COOKIE_ECHOED",  "ESTABLISHED",
    "SHUTDOWN_SENT", "SHUTDOWN_RECD", "SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT",
};
static const char *const dccp_states[] = {
    "NONE", "REQUEST", "RESPOND", "PARTOPEN", "OPEN", "CLOSEREQ", "CLOSING", "TIMEWAIT",
};

struct proto_desc {
	uint8_t num;
	const char *name;
	const char *const *states;
	unsigned nstates;
	uint16_t info_attr; /* CTA_PROTOINFO_TCP ... */
};

#define STATES(a) a, sizeof(a) / sizeof(a[0])
static const struct proto_desc protos[] = {
    {IPPROTO_TCP, "tcp", STATES(tcp_states), CTA_PROTOINFO_TCP},
    {IPPROTO_UDP, "udp", NULL, 0, 0},
    {IPPROTO_ICMP, "icmp", NULL, 0, 0},
    {IPPROTO_ICMPV6, "icmpv6", NULL, 0, 0},
    {IPPROTO_UDPLITE, "udplite", NULL, 0, 0},
    {IPPROTO_SCTP, "sctp", STATES(sctp_states), CTA_PROTOINFO_SCTP},
    {IPPROTO_DCCP, "dccp", STATES(dccp_states), CTA_PROTOINFO_DCCP},
    {IPPROTO_GRE, "gre", NULL, 0, 0},
};
static const struct proto_desc generic = {0, "unknown", NULL, 0, 0};

static const struct proto_desc *proto_desc(uint8_t num)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].num == num)
			return &protos[i];
	return &generic;
}

/* ---- entries ----------------------------------------------------------------------------- */

/*
 * The IPS_* NAT bits of an entry, from its NAT binding: IPS_SRC_NAT when the binding changes the
 * source, IPS_DST_NAT the destination, each with its _DONE bit (libnetfilter_conntrack's
 * "is SNAT" needs both); a _DONE bit alone for a manip the binding decided as no change (the
 * other manip of `conntrack -I --src-nat`, as the kernel's null binding). Unlike the kernel,
 * which sets the _DONE bits of every connection that passed a NAT hook, a connection no NAT
 * rule or request touched has no binding and so no bits.
 */
static uint32_t ctl_nat_status(const struct ct_entry *e)
{
	unsigned nat = nat_entry_status(e), done = nat_entry_decided(e) | nat;
	uint32_t st = 0;

	if (nat & NAT_STATUS_SRC)
		st |= CTL_IPS_SRC_NAT;
	if (nat & NAT_STATUS_DST)
		st |= CTL_IPS_DST_NAT;
	if (done & NAT_STATUS_SRC)
		st |= CTL_IPS_SRC_NAT_DONE;
	if (done & NAT_STATUS_DST)
		st |= CTL_IPS_DST_NAT_DONE;
	return st;
}

void ctl_ct_from_entry(struct ctl_ct *c, const struct ct_entry *e, uint64_t now)
{
	struct ct_labels labels;
	const struct proto_desc *pd;
	const char *st;

	memset(c, 0, sizeof(*c));
	c->orig = *ct_entry_tuple(e, CT_DIR_ORIGINAL);
	c->reply = *ct_entry_tuple(e, CT_DIR_REPLY);
	c->status = ct_entry_status(e) | ctl_nat_status(e);
	c->timeout = (uint32_t)(ct_entry_expires_in(e, now) / CT_SEC);
	c->mark = ct_entry_mark(e);
	c->use = ct_entry_use(e);
	c->id = (uint32_t)ct_entry_id(e);
	c->zone = ct_entry_zone(e);
	c->have = CTL_C_ORIG | CTL_C_REPLY | CTL_C_STATUS | CTL_C_TIMEOUT | CTL_C_MARK | CTL_C_USE |
		  CTL_C_ID;
	if (c->zone)
		c->have |= CTL_C_ZONE;
	pd = proto_desc(c->orig.l4proto);
	if (pd->states && (st = ct_entry_proto_state(e))) {
		for (unsigned i = 0; i < pd->nstates; i++)
			if (!strcmp(pd->states[i], st)) {
				c->proto_state = (uint8_t)i;
				c->have |= CTL_C_PROTOINFO;
			}
	}
	if (ct_entry_helper(e)) {
		snprintf(c->helper, sizeof(c->helper), "%s", ct_entry_helper(e)->name);
		c->have |= CTL_C_HELPER;
	}
	if (ct_entry_counters(e, CT_DIR_ORIGINAL, &c->packets[0], &c->bytes[0]))
		c->have |= CTL_C_COUNTERS_ORIG;
	if (ct_entry_counters(e, CT_DIR_REPLY, &c->packets[1], &c->bytes[1]))
		c->have |= CTL_C_COUNTERS_REPLY;
	if (ct_entry_tstamp(e, &c->ts_start, &c->ts_stop)) {
		c->ts_now = now;
		c->have |= CTL_C_TSTAMP;
	}
	if (ct_entry_labels(e, &labels) &&
	    (labels.words[0] | labels.words[1] | labels.words[2] | labels.words[3])) {
		memcpy(c->labels, labels.words, sizeof(c->labels)); /* as ctnetlink: when any */
		c->have |= CTL_C_LABELS;
	}
}

static int put_tstamp(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTA_TIMESTAMP);

	if (!n || !mnl_attr_put_u64_check(nlh, room, CTA_TIMESTAMP_START, htobe64(c->ts_start)) ||
	    (c->ts_stop &&
	     !mnl_attr_put_u64_check(nlh, room, CTA_TIMESTAMP_STOP, htobe64(c->ts_stop))) ||
	    !mnl_attr_put_u64_check(nlh, room, CTL_TS_NOW, htobe64(c->ts_now))) {
		if (n)
			mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

/* ct_entry_format's line from the decoded attributes (the dump test compares them). */
int ctl_ct_format(const struct ctl_ct *c, char *buf, size_t len)
{
	return ctl_ct_format_flags(c, 0, buf, len);
}

/* libnetfilter_conntrack's default output, through ct_line_format (ctl/msg.h's CTL_FMT_* are
 * its CT_LINE_* flags). */
int ctl_ct_format_flags(const struct ctl_ct *c, unsigned flags, char *buf, size_t len)
{
	const struct proto_desc *pd = proto_desc(c->orig.l4proto);
	struct ct_line l = {
	    .proto = pd->name,
	    .tuple = {&c->orig, &c->reply},
	    .timeout = c->timeout,
	    .counters = {c->have & CTL_C_COUNTERS_ORIG, c->have & CTL_C_COUNTERS_REPLY},
	    .packets = {c->packets[0], c->packets[1]},
	    .bytes = {c->bytes[0], c->bytes[1]},
	    .status = c->status,
	    .mark = c->mark,
	    .no_mark = !(c->have & CTL_C_MARK), /* a destroy event of an unmarked entry */
	    .use = c->use,
	    .id = c->id,
	    .zone = c->zone,
	    .helper = (c->have & CTL_C_HELPER) ? c->helper : NULL,
	};

	if (pd->states && (c->have & CTL_C_PROTOINFO))
		l.state = c->proto_state < pd->nstates ? pd->states[c->proto_state] : "?";
	if (!(c->have & CTL_C_ID))
		flags &= ~(unsigned)CTL_FMT_ID;
	return ct_line_format(&l, flags, buf, len);
}

static int put_counters(struct nlmsghdr *nlh, size_t room, uint16_t type, uint64_t packets,
			uint64_t bytes)
{
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, type);

	if (!n)
		return -EMSGSIZE;
	if (!mnl_attr_put_u64_check(nlh, room, CTA_COUNTERS_PACKETS, htobe64(packets)) ||
	    !mnl_attr_put_u64_check(nlh, room, CTA_COUNTERS_BYTES, htobe64(bytes))) {
		mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static int put_protoinfo(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	const struct proto_desc *pd = proto_desc(c->orig.l4proto);
	struct nlattr *n, *m;

	if (!pd->info_attr)
		return 0;
	if (!(n = mnl_attr_nest_start_check(nlh, room, CTA_PROTOINFO)))
		return -EMSGSIZE;
	if (!(m = mnl_attr_nest_start_check(nlh, room, pd->info_attr)) ||
	    !mnl_attr_put_u8_check(nlh, room, 1 /* CTA_PROTOINFO_*_STATE */, c->proto_state)) {
		mnl_attr_nest_cancel(nlh, n);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, m);
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static int put_nat(struct nlmsghdr *nlh, size_t room, uint16_t type, const struct ctl_nat *n)
{
	struct nlattr *nest = mnl_attr_nest_start_check(nlh, room, type), *proto;
	bool v6 = n->family == AF_INET6;
	size_t alen = v6 ? 16 : 4;
	bool ok = nest != NULL;

	if (ok && n->family) {
		ok = mnl_attr_put_check(nlh, room, v6 ? CTA_NAT_V6_MINIP : CTA_NAT_V4_MINIP, alen,
					n->min.b) &&
		     mnl_attr_put_check(nlh, room, v6 ? CTA_NAT_V6_MAXIP : CTA_NAT_V4_MAXIP, alen,
					n->max.b);
	}
	if (ok && n->has_port) {
		proto = mnl_attr_nest_start_check(nlh, room, CTA_NAT_PROTO);
		ok = proto &&
		     mnl_attr_put_u16_check(nlh, room, CTA_PROTONAT_PORT_MIN, htons(n->min_port)) &&
		     mnl_attr_put_u16_check(nlh, room, CTA_PROTONAT_PORT_MAX, htons(n->max_port));
		if (ok)
			mnl_attr_nest_end(nlh, proto);
	}
	if (!ok) {
		if (nest)
			mnl_attr_nest_cancel(nlh, nest);
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, nest);
	return 0;
}

int ctl_put_ct(struct nlmsghdr *nlh, size_t room, const struct ctl_ct *c)
{
	uint32_t len0 = nlh->nlmsg_len;
	struct ctl_tuple t;
	bool ok = true;

	if (c->have & CTL_C_ORIG) {
		t.t = c->orig;
		t.have = ctl_tuple_full_have(&c->orig);
		ok = ok && !ctl_put_tuple(nlh, room, CTA_TUPLE_ORIG, &t);
	}
	if (c->have & CTL_C_REPLY) {
		t.t = c->reply;
		t.have = ctl_tuple_full_have(&c->reply);
		ok = ok && !ctl_put_tuple(nlh, room, CTA_TUPLE_REPLY, &t);
	}
	if (c->have & CTL_C_STATUS)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_STATUS, htonl(c->status));
	if (c->have & CTL_C_PROTOINFO)
		ok = ok && !put_protoinfo(nlh, room, c);
	if (c->have & CTL_C_TIMEOUT)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_TIMEOUT, htonl(c->timeout));
	if (c->have & CTL_C_MARK)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_MARK, htonl(c->mark));
	if (c->have & CTL_C_COUNTERS_ORIG)
		ok = ok && !put_counters(nlh, room, CTA_COUNTERS_ORIG, c->packets[0], c->bytes[0]);
	if (c->have & CTL_C_COUNTERS_REPLY)
		ok = ok && !put_counters(nlh, room, CTA_COUNTERS_REPLY, c->packets[1], c->bytes[1]);
	if (c->have & CTL_C_USE)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_USE, htonl(c->use));
	if (c->have & CTL_C_ID)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_ID, htonl(c->id));
	if (c->have & CTL_C_ZONE)
		ok = ok && mnl_attr_put_u16_check(nlh, room, CTA_ZONE, htons(c->zone));
	if (c->have & CTL_C_MARK_MASK)
		ok = ok && mnl_attr_put_u32_check(nlh, room, CTA_MARK_MASK, htonl(c->mark_mask));
	if (c->have & CTL_C_TSTAMP)
		ok = ok && !put_tstamp(nlh, room, c);
	if (c->have & CTL_C_LABELS)
		ok = ok && mnl_attr_put_check(nlh, room, CTA_LABELS, sizeof(c->labels), c->labels);
	if (c->have & CTL_C_LABELS_MASK)
		ok = ok && mnl_attr_put_check(nlh, room, CTA_LABELS_MASK, sizeof(c->labels_mask),
					      c->labels_mask);
	for (int i = 0; i < 2; i++)
		if (ok && (c->have & (i ? CTL_C_NAT_DST : CTL_C_NAT_SRC)))
			ok = !put_nat(nlh, room, i ? CTA_NAT_DST : CTA_NAT_SRC, &c->nat[i]);
	if (ok && (c->have & CTL_C_HELPER)) {
		struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTA_HELP);

		ok = n && mnl_attr_put_strz_check(nlh, room, CTA_HELP_NAME, c->helper);
		if (ok)
			mnl_attr_nest_end(nlh, n);
	}
	if (!ok) {
		nlh->nlmsg_len = len0;
		return -EMSGSIZE;
	}
	return 0;
}

/* CTA_NAT_SRC/DST: an address range of one family (both ends, or one for both), a port range
 * (MAX defaults to MIN, as ctnetlink), min <= max. */
static int decode_nat(const struct nlattr *attr, uint8_t family, struct ctl_nat *n,
		      struct ctl_error *err)
{
	const struct nlattr *nb[CTA_NAT_V6_MAXIP + 1];
	const char *name = mnl_attr_get_type(attr) == CTA_NAT_SRC ? "CTA_NAT_SRC" : "CTA_NAT_DST";
	bool v4 = false, v6 = false;

	ctl_validate_level(&nat_level, attr, NULL, "", nb, err, 0);
	v4 = nb[CTA_NAT_V4_MINIP] || nb[CTA_NAT_V4_MAXIP];
	v6 = nb[CTA_NAT_V6_MINIP] || nb[CTA_NAT_V6_MAXIP];
	/* the message's family, when it names one (the server checks the entry's) */
	if ((v4 && v6) || (family && v4 && family != AF_INET) ||
	    (family && v6 && family != AF_INET6))
		return ctl_fail(err, -EINVAL, attr, "%s: addresses not of the family %u", name,
				family);
	if (v4 || v6) {
		const struct nlattr *lo = nb[v4 ? CTA_NAT_V4_MINIP : CTA_NAT_V6_MINIP];
		const struct nlattr *hi = nb[v4 ? CTA_NAT_V4_MAXIP : CTA_NAT_V6_MAXIP];
		size_t alen = v4 ? 4 : 16;

		n->family = v4 ? AF_INET : AF_INET6;
		memcpy(n->min.b, mnl_attr_get_payload(lo ? lo : hi), alen);
		memcpy(n->max.b, mnl_attr_get_payload(hi ? hi : lo), alen);
		if (pt_addr_cmp(&n->min, &n->max) > 0)
			return ctl_fail(err, -EINVAL, attr,
					"%s: the address range ends before it starts", name);
	}
	if (nb[CTA_NAT_PROTO]) {
		const struct nlattr *pb[CTA_PROTONAT_PORT_MAX + 1];

		ctl_validate_level(&protonat_level, nb[CTA_NAT_PROTO], NULL, "", pb, err, 0);
		if (pb[CTA_PROTONAT_PORT_MIN] || pb[CTA_PROTONAT_PORT_MAX]) {
			const struct nlattr *lo = pb[CTA_PROTONAT_PORT_MIN];
			const struct nlattr *hi = pb[CTA_PROTONAT_PORT_MAX];

			n->min_port = ntohs(mnl_attr_get_u16(lo ? lo : hi));
			n->max_port = ntohs(mnl_attr_get_u16(hi ? hi : lo));
			n->has_port = true;
			if (n->min_port > n->max_port)
				return ctl_fail(err, -EINVAL, attr,
						"%s: the port range ends before it starts", name);
		}
	}
	return 0;
}

static int decode_ct(const struct nlattr *const *tb, uint8_t family, struct ctl_ct *c,
		     struct ctl_error *err)
{
	struct ctl_tuple t;
	int r;

	memset(c, 0, sizeof(*c));
	if (tb[CTA_TUPLE_ORIG]) {
		if ((r = ctl_decode_tuple(tb[CTA_TUPLE_ORIG], &t, family, "CTA_TUPLE_ORIG", err)) <
		    0)
			return r;
		c->orig = t.t;
		if (ctl_tuple_complete(&t))
			c->have |= CTL_C_ORIG;
		else
			return ctl_fail(err, -EINVAL, tb[CTA_TUPLE_ORIG],
					"CTA_TUPLE_ORIG: incomplete");
	}
	if (tb[CTA_TUPLE_REPLY]) {
		if ((r = ctl_decode_tuple(tb[CTA_TUPLE_REPLY], &t, family, "CTA_TUPLE_REPLY",
					  err)) < 0)
			return r;
		c->reply = t.t;
		if (ctl_tuple_complete(&t))
			c->have |= CTL_C_REPLY;
		else
			return ctl_fail(err, -EINVAL, tb[CTA_TUPLE_REPLY],
					"CTA_TUPLE_REPLY: incomplete");
	}
	if (tb[CTA_STATUS]) {
		c->status = ntohl(mnl_attr_get_u32(tb[CTA_STATUS]));
		c->have |= CTL_C_STATUS;
	}
	if (tb[CTA_TIMEOUT]) {
		c->timeout = ntohl(mnl_attr_get_u32(tb[CTA_TIMEOUT]));
		c->have |= CTL_C_TIMEOUT;
	}
	if (tb[CTA_MARK]) {
		c->mark = ntohl(mnl_attr_get_u32(tb[CTA_MARK]));
		c->have |= CTL_C_MARK;
	}
	if (tb[CTA_USE]) {
		c->use = ntohl(mnl_attr_get_u32(tb[CTA_USE]));
		c->have |= CTL_C_USE;
	}
	if (tb[CTA_ID]) {
		c->id = ntohl(mnl_attr_get_u32(tb[CTA_ID]));
		c->have |= CTL_C_ID;
	}
	if (tb[CTA_ZONE]) {
		c->zone = ntohs(mnl_attr_get_u16(tb[CTA_ZONE]));
		c->have |= CTL_C_ZONE;
	}
	if (tb[CTA_MARK_MASK]) {
		c->mark_mask = ntohl(mnl_attr_get_u32(tb[CTA_MARK_MASK]));
		c->have |= CTL_C_MARK_MASK;
	}
	if (tb[CTA_HELP]) {
		const struct nlattr *hb[CTA_HELP_MAX + 1];

		ctl_validate_level(&help_level, tb[CTA_HELP], NULL, "", hb, err, 0);
		if (hb[CTA_HELP_NAME]) {
			snprintf(c->helper, sizeof(c->helper), "%s",
				 mnl_attr_get_str(hb[CTA_HELP_NAME]));
			c->have |= CTL_C_HELPER;
		}
	}
	/* NAT addresses are of the entry's family: the header's, or in a message of family 0
	 * the tuple's, when it has one */
	if (!family && (c->have & (CTL_C_ORIG | CTL_C_REPLY)))
		family = (c->have & CTL_C_ORIG) ? c->orig.family : c->reply.family;
	for (int i = 0; i < 2; i++)
		if (tb[i ? CTA_NAT_DST : CTA_NAT_SRC] &&
		    (r = decode_nat(tb[i ? CTA_NAT_DST : CTA_NAT_SRC], family, &c->nat[i], err)) <
			0)
			return r;
		else if (tb[i ? CTA_NAT_DST : CTA_NAT_SRC])
			c->have |= i ? CTL_C_NAT_DST : CTL_C_NAT_SRC;
	/* a zone is part of the tuple: from CTA_ZONE unless the tuple named its own */
	if (c->have & CTL_C_ZONE) {
		c->orig.zone = c->orig.zone ? c->orig.zone : c->zone;
		c->reply.zone = c->reply.zone ? c->reply.zone : c->zone;
	}
	if (tb[CTA_PROTOINFO]) {
		const struct nlattr *pi[CTA_PROTOINFO_MAX + 1];

		ctl_validate_level(&protoinfo_level, tb[CTA_PROTOINFO], NULL, "", pi, err, 0);
		for (int i = CTA_PROTOINFO_TCP; i <= CTA_PROTOINFO_SCTP; i++) {
			const struct nlattr *st[CTA_PROTOINFO_TCP_MAX + 1];
			const struct ctl_level *lv = protoinfo_pol[i].nest;

			if (!pi[i])
				continue;
			/* every protocol's STATE is number 1 and a u8; its table has room for it */
			ctl_validate_level(lv, pi[i], NULL, "", st, err, 0);
			if (st[1]) {
				c->proto_state = mnl_attr_get_u8(st[1]);
				c->have |= CTL_C_PROTOINFO;
			}
		}
	}
	if (tb[CTA_LABELS]) {
		memcpy(c->labels, mnl_attr_get_payload(tb[CTA_LABELS]), sizeof(c->labels));
		c->have |= CTL_C_LABELS;
	}
	if (tb[CTA_LABELS_MASK]) {
		memcpy(c->labels_mask, mnl_attr_get_payload(tb[CTA_LABELS_MASK]),
		       sizeof(c->labels_mask));
		c->have |= CTL_C_LABELS_MASK;
	}
	if (tb[CTA_TIMESTAMP]) {
		const struct nlattr *ts[CTL_TS_NOW + 1];

		ctl_validate_level(&tstamp_level, tb[CTA_TIMESTAMP], NULL, "", ts, err, 0);
		c->ts_start =
		    ts[CTA_TIMESTAMP_START] ? ctl_attr_get_be64(ts[CTA_TIMESTAMP_START]) : 0;
		c->ts_stop = ts[CTA_TIMESTAMP_STOP] ? ctl_attr_get_be64(ts[CTA_TIMESTAMP_STOP]) : 0;
		c->ts_now = ts[CTL_TS_NOW] ? ctl_attr_get_be64(ts[CTL_TS_NOW]) : 0;
		c->have |= CTL_C_TSTAMP;
	}
	for (int d = 0; d < 2; d++) {
		const struct nlattr *a = tb[d ? CTA_COUNTERS_REPLY : CTA_COUNTERS_ORIG];
		const struct nlattr *ctb[CTA_COUNTERS_MAX + 1];

		if (!a)
			continue;
		ctl_validate_level(&counters_level, a, NULL, "", ctb, err, 0);
		if (ctb[CTA_COUNTERS_PACKETS])
			c->packets[d] = ctl_attr_get_be64(ctb[CTA_COUNTERS_PACKETS]);
		if (ctb[CTA_COUNTERS_BYTES])
			c->bytes[d] = ctl_attr_get_be64(ctb[CTA_COUNTERS_BYTES]);
		c->have |= d ? CTL_C_COUNTERS_REPLY : CTL_C_COUNTERS_ORIG;
	}
	return 0;
}

/* ---- filters ----------------------------------------------------------------------------- */

int ctl_put_filter(struct nlmsghdr *nlh, size_t room, const struct ctl_filter *f)
{
	uint32_t len0 = nlh->nlmsg_len;
	struct nlattr *n = mnl_attr_nest_start_check(nlh, room, CTL_A_FILTER);
	bool ok = n != NULL;

	if (ok && f->orig.have)
		ok = !ctl_put_tuple(nlh, room, CTL_F_TUPLE_ORIG, &f->orig);
	if (ok && f->reply.have)
		ok = !ctl_put_tuple(nlh, room, CTL_F_TUPLE_REPLY, &f->reply);
	if (ok && (f->have & CTL_FH_MARK))
		ok = mnl_attr_put_u32_check(nlh, room, CTL_F_MARK, htonl(f->mark)) &&
		     mnl_attr_put_u32_check(nlh, room, CTL_F_MARK_MASK, htonl(f->mark_mask));
	if (ok && (f->have & CTL_FH_ZONE))
		ok = mnl_attr_put_u16_check(nlh, room, CTL_F_ZONE, htons(f->zone));
	if (ok && (f->have & CTL_FH_STATUS))
		ok = mnl_attr_put_u32_check(nlh, room, CTL_F_STATUS, htonl(f->status)) &&
		     mnl_attr_put_u32_check(nlh, room, CTL_F_STATUS_MASK, htonl(f->status_mask));
	if (!ok) {
		nlh->nlmsg_len = len0;
		return -EMSGSIZE;
	}
	mnl_attr_nest_end(nlh, n);
	return 0;
}

static int decode_filter(const struct nlattr *nest, uint8_t family, struct ctl_filter *f,
			 struct ctl_error *err)
{
	const struct nlattr *tb[CTL_F_MAX + 1];
	int r;

	memset(f, 0, sizeof(*f));
	f->family = family;
	ctl_validate_level(&filter_level, nest, NULL, "CTL_A_FILTER", tb, err, 0);
	if (tb[CTL_F_TUPLE_ORIG] &&
	    (r = ctl_decode_tuple(tb[CTL_F_TUPLE_ORIG], &f->orig, family,
				  "CTL_A_FILTER.CTL_F_TUPLE_ORIG", err)) < 0)
		return r;
	if (tb[CTL_F_TUPLE_REPLY] &&
	    (r = ctl_decode_tuple(tb[CTL_F_TUPLE_REPLY], &f->reply, family,
				  "CTL_A_FILTER.CTL_F_TUPLE_REPLY", err)) < 0)
		return r;
	if (tb[CTL_F_MARK]) {
		f->have |= CTL_FH_MARK;
		f->mark = ntohl(mnl_attr_get_u32(tb[CTL_F_MARK]));
		f->mark_mask = tb[CTL_F_MARK_MASK] ? ntohl(mnl_attr_get_u32(tb[CTL_F_MARK_MASK]))
						   : 0xffffffffu;
	} else if (tb[CTL_F_MARK_MASK]) {
		return ctl_missing(err, CTL_F_MARK, nest,
				   "CTL_A_FILTER.CTL_F_MARK (with its mask)");
	}
	if (tb[CTL_F_ZONE]) {
		f->have |= CTL_FH_ZONE;
		f->zone = ntohs(mnl_attr_get_u16(tb[CTL_F_ZONE]));
	}
	if (tb[CTL_F_STATUS]) {
		f->have |= CTL_FH_STATUS;
		f->status = ntohl(mnl_attr_get_u32(tb[CTL_F_STATUS]));
		f->status_mask = tb[CTL_F_STATUS_MASK]
				     ? ntohl(mnl_attr_get_u32(tb[CTL_F_STATUS_MASK]))
				     : f->status;
	}
	return 0;
}

static bool tuple_part_match(const struct ctl_tuple *p, const struct ct_tuple *t)
{
	size_t alen = t->family == AF_INET ? 4 : 16;

	if (p->have & (CTL_T_SRC | CTL_T_DST)) {
		if (p->t.family != t->family)
			return false;
		if ((p->have & CTL_T_SRC) && memcmp(&p->t.src, &t->src, alen))
			return false;
		if ((p->have & CTL_T_DST) && memcmp(&p->t.dst, &t->dst, alen))
			return false;
	}
	if ((p->have & CTL_T_PROTO) && p->t.l4proto != t->l4proto)
		return false;
	if ((p->have & CTL_T_SPORT) && p->t.s.all != t->s.all)
		return false;
	if ((p->have & CTL_T_DPORT) && p->t.d.port != t->d.port)
		return false;
	if ((p->have & CTL_T_ICMP_TYPE) && p->t.d.icmp.type != t->d.icmp.type)
		return false;
	if ((p->have & CTL_T_ICMP_CODE) && p->t.d.icmp.code != t->d.icmp.code)
		return false;
	if ((p->have & CTL_T_ZONE) && p->t.zone != t->zone)
		return false;
	return true;
}

bool ctl_filter_match(const struct ctl_filter *f, const struct ct_entry *e)
{
	const struct ct_tuple *o = ct_entry_tuple(e, CT_DIR_ORIGINAL);

	if (f->family && f->family != o->family)
		return false;
	if (!tuple_part_match(&f->orig, o) ||
	    !tuple_part_match(&f->reply, ct_entry_tuple(e, CT_DIR_REPLY)))
		return false;
	if ((f->have & CTL_FH_MARK) && (ct_entry_mark(e) & f->mark_mask) != f->mark)
		return false;
	if ((f->have & CTL_FH_ZONE) && ct_entry_zone(e) != f->zone)
		return false;
	if ((f->have & CTL_FH_STATUS) && (ct_entry_status(e) & f->status_mask) != f->status)
		return false;
	return true;
}

int ctl_put_stats_cpu(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s)
{
	const struct {
		uint16_t type;
		uint64_t v;
	} v[] = {
	    {CTA_STATS_FOUND, s->found},
	    {CTA_STATS_NEW, s->new},
	    {CTA_STATS_INVALID, s->invalid},
	    {CTA_STATS_INSERT, s->insert},
	    {CTA_STATS_INSERT_FAILED, s->insert_failed},
	    {CTA_STATS_DROP, s->drop},
	    {CTA_STATS_EARLY_DROP, s->early_drop},
	    {CTA_STATS_ERROR, 0},
	    {CTA_STATS_SEARCH_RESTART, s->search_restart},
	    {CTA_STATS_CLASH_RESOLVE, s->clash},
	};

	/* 32 bits on the wire, as ctnetlink's per-cpu counters */
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!mnl_attr_put_u32_check(nlh, room, v[i].type, htonl((uint32_t)v[i].v)))
			return -EMSGSIZE;
	if (!mnl_attr_put_u64_check(nlh, room, CTL_A_EVENTS_LOST, htobe64(s->events_lost)))
		return -EMSGSIZE;
	return 0;
}

int ctl_put_stats_global(struct nlmsghdr *nlh, size_t room, const struct ctl_stats *s)
{
	if (!mnl_attr_put_u32_check(nlh, room, CTA_STATS_GLOBAL_ENTRIES, htonl(s->entries)) ||
	    !mnl_attr_put_u32_check(nlh, room, CTA_STATS_GLOBAL_MAX_ENTRIES, htonl(s->max_entries)))
		return -EMSGSIZE;
	return 0;
}

int ctl_decode_ct_request(const struct nlattr *const *tb, struct ctl_request *req,
			  struct ctl_error *err)
{
	unsigned m = CTL_MSG(req->type);
	int r;

	if ((r = decode_ct(tb, req->family, &req->ct, err)) < 0)
		return r;
	req->has_ct = req->ct.have & (CTL_C_ORIG | CTL_C_REPLY);
	if (tb[CTL_A_FILTER]) {
		if ((r = decode_filter(tb[CTL_A_FILTER], req->family, &req->filter, err)) < 0)
			return r;
		req->has_filter = true;
	}
	if (tb[CTL_A_EVENT_MASK])
		req->event_mask = ntohl(mnl_attr_get_u32(tb[CTL_A_EVENT_MASK]));
	if ((m == CTL_CT_GET || m == CTL_CT_GET_CTRZERO) && !(req->flags & NLM_F_DUMP) &&
	    !req->has_ct)
		return ctl_missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG (or NLM_F_DUMP)");
	if (m == CTL_CT_DELETE && !req->has_ct && !req->has_filter)
		return ctl_missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG (or CTL_A_FILTER)");
	if (m == CTL_CT_NEW && !req->has_ct)
		return ctl_missing(err, CTA_TUPLE_ORIG, NULL, "CTA_TUPLE_ORIG");
	if (m == CTL_CT_EVENTS_LOST)
		return ctl_fail(err, -EOPNOTSUPP, NULL, "%s: not a request this server takes",
				ctl_msg_name(req->type));
	return 0;
}

int ctl_parse_ct(const struct nlmsghdr *nlh, struct ctl_ct *c, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = ctl_check_message(nlh, tb, err)) < 0)
		return r;
	if (CTL_SUBSYS(nlh->nlmsg_type) != CTL_SUBSYS_CT ||
	    (CTL_MSG(nlh->nlmsg_type) != CTL_CT_NEW && CTL_MSG(nlh->nlmsg_type) != CTL_CT_DELETE))
		return ctl_fail(err, -EINVAL, NULL, "%s carries no entry",
				ctl_msg_name(nlh->nlmsg_type));
	return decode_ct(tb, ctl_msg_family(nlh), c, err);
}

int ctl_parse_stats(const struct nlmsghdr *nlh, struct ctl_stats *s, struct ctl_error *err)
{
	const struct nlattr *tb[CTL_A_MAX + 1];
	int r;

	memset(err, 0, sizeof(*err));
	if ((r = ctl_check_message(nlh, tb, err)) < 0)
		return r;
	if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET_STATS)) {
		if (tb[CTA_STATS_GLOBAL_ENTRIES])
			s->entries = ntohl(mnl_attr_get_u32(tb[CTA_STATS_GLOBAL_ENTRIES]));
		if (tb[CTA_STATS_GLOBAL_MAX_ENTRIES])
			s->max_entries = ntohl(mnl_attr_get_u32(tb[CTA_STATS_GLOBAL_MAX_ENTRIES]));
		return 0;
	}
	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET_STATS_CPU))
		return ctl_fail(err, -EINVAL, NULL, "not a statistics message");
#define G(a, f)                                                                                    \
	do {                                                                                       \
		if (tb[a])                                                                         \
			s->f = ntohl(mnl_attr_get_u32(tb[a]));                                     \
	} while (0)
	G(CTA_STATS_FOUND, found);
	G(CTA_STATS_NEW, new);
	G(CTA_STATS_INVALID, invalid);
	G(CTA_STATS_INSERT, insert);
	G(CTA_STATS_INSERT_FAILED, insert_failed);
	G(CTA_STATS_DROP, drop);
	G(CTA_STATS_EARLY_DROP, early_drop);
	G(CTA_STATS_SEARCH_RESTART, search_restart);
	G(CTA_STATS_CLASH_RESOLVE, clash);
#undef G
	if (tb[CTL_A_EVENTS_LOST])
		s->events_lost = ctl_attr_get_be64(tb[CTL_A_EVENTS_LOST]);
	return 0;
}
