// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct` (ct_cli.h): conntrack(8)'s command line over the control socket.
 *
 *   command          request(s)                                         prints
 *   -L               CT_GET|DUMP + CTL_A_FILTER                         lines, "N flow entries
 *                                                                        have been shown."
 *   -L expect        EXP_GET|DUMP                                       "N expectations ..."
 *   -G               CT_GET tuple                                       the line
 *   -D, -U           CT_GET|DUMP + filter, then CT_DELETE / CT_NEW per  each entry (as conntrack
 *                    entry by its original tuple (as conntrack 1.4.7)    1.4.7; 0 of them: exit 1)
 *   -I, -A           CT_NEW|CREATE(|EXCL) tuple + attributes            "1 flow entries have been
 *                                                                        created."
 *   -I/-D/-G expect  EXP_NEW / EXP_DELETE / EXP_GET
 *   -F               CT_FLUSH (expect: dump, delete each)
 *   -C, -S           CT_GET_STATS, CT_GET_STATS_CPU
 *   -E               CT_EVENTS + filter, then events until *stop
 *
 * Options are a table as conntrack's: the name its messages use, the long and short
 * spellings, an argument or not, and the protocol family they belong to (a port option is
 * unknown until -p names a protocol with ports, as in conntrack).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <linux/netlink.h>

#include "ct/create.h"
#include "ct/expect.h"
#include "ctl/client.h"
#include "ctl/ct_cli.h"

enum {
	O_SRC,
	O_DST,
	O_REPLY_SRC,
	O_REPLY_DST,
	O_PROTO,
	O_FAMILY,
	O_TIMEOUT,
	O_STATUS,
	O_MARK,
	O_ZONE,
	O_ORIG_ZONE,
	O_REPLY_ZONE,
	O_OUTPUT,
	O_EVENT_MASK,
	O_BUFFER,
	O_TUPLE_SRC,
	O_TUPLE_DST,
	O_MASK_SRC,
	O_MASK_DST,
	O_SOCKET,
	O_NAME,
	O_ZERO,
	O_HELPER,
	O_SRC_NAT,
	O_DST_NAT,
	O_ANY_NAT,
	/* protocol options */
	O_SPORT,
	O_DPORT,
	O_REPLY_SPORT,
	O_REPLY_DPORT,
	O_STATE,
	O_ICMP_TYPE,
	O_ICMP_CODE,
	O_ICMP_ID,
	O_ICMP6_TYPE,
	O_ICMP6_CODE,
	O_ICMP6_ID,
	O_TUPLE_SPORT,
	O_TUPLE_DPORT,
	O_MASK_SPORT,
	O_MASK_DPORT,
	O_NUM
};
#define OB(o)	 (1ull << (o))
#define OPTIONAL 2

enum { P_ANY, P_PORTS, P_TCP, P_ICMP, P_ICMP6 };
#define ICMPISH(k) ((k) == P_ICMP || (k) == P_ICMP6)

struct cli_opt {
	const char *name; /* as conntrack's messages name it */
	const char *longs[3];
	char shrt;
	uint8_t arg; /* 0 none, 1 required, OPTIONAL: -n[IP], -n IP, --src-nat[=IP] */
	uint8_t proto; /* P_*: only after -p names such a protocol */
};

/* clang-format off */
static const struct cli_opt opts[O_NUM] = {
	[O_SRC]        = { "src", { "src", "orig-src" }, 's', true, P_ANY },
	[O_DST]        = { "dst", { "dst", "orig-dst" }, 'd', true, P_ANY },
	[O_REPLY_SRC]  = { "reply-src", { "reply-src" }, 'r', true, P_ANY },
	[O_REPLY_DST]  = { "reply-dst", { "reply-dst" }, 'q', true, P_ANY },
	[O_PROTO]      = { "protonum", { "proto", "protonum" }, 'p', true, P_ANY },
	[O_FAMILY]     = { "family", { "family" }, 'f', true, P_ANY },
	[O_TIMEOUT]    = { "timeout", { "timeout" }, 't', true, P_ANY },
	[O_STATUS]     = { "status", { "status" }, 'u', true, P_ANY },
	[O_MARK]       = { "mark", { "mark" }, 'm', true, P_ANY },
	[O_ZONE]       = { "zone", { "zone" }, 'w', true, P_ANY },
	[O_ORIG_ZONE]  = { "orig-zone", { "orig-zone" }, 0, true, P_ANY },
	[O_REPLY_ZONE] = { "reply-zone", { "reply-zone" }, 0, true, P_ANY },
	[O_OUTPUT]     = { "output", { "output" }, 'o', true, P_ANY },
	[O_EVENT_MASK] = { "event-mask", { "event-mask" }, 'e', true, P_ANY },
	[O_BUFFER]     = { "buffer-size", { "buffer-size" }, 'b', true, P_ANY },
	[O_TUPLE_SRC]  = { "tuple-src", { "tuple-src" }, 0, true, P_ANY },
	[O_TUPLE_DST]  = { "tuple-dst", { "tuple-dst" }, 0, true, P_ANY },
	[O_MASK_SRC]   = { "mask-src", { "mask-src" }, 0, true, P_ANY },
	[O_MASK_DST]   = { "mask-dst", { "mask-dst" }, 0, true, P_ANY },
	[O_SOCKET]     = { "socket", { "socket" }, 0, true, P_ANY },
	[O_NAME]       = { "name", { "name" }, 0, true, P_ANY },
	[O_ZERO]       = { "zero", { "zero" }, 'z', false, P_ANY },
	[O_HELPER]     = { "helper", { "helper" }, 0, true, P_ANY },
	[O_SRC_NAT]    = { "src-nat", { "src-nat" }, 'n', OPTIONAL, P_ANY },
	[O_DST_NAT]    = { "dst-nat", { "dst-nat" }, 'g', OPTIONAL, P_ANY },
	[O_ANY_NAT]    = { "any-nat", { "any-nat" }, 'j', OPTIONAL, P_ANY },
	[O_SPORT]      = { "sport", { "sport", "orig-port-src" }, 0, true, P_PORTS },
	[O_DPORT]      = { "dport", { "dport", "orig-port-dst" }, 0, true, P_PORTS },
	[O_REPLY_SPORT]= { "reply-port-src", { "reply-port-src" }, 0, true, P_PORTS },
	[O_REPLY_DPORT]= { "reply-port-dst", { "reply-port-dst" }, 0, true, P_PORTS },
	[O_STATE]      = { "state", { "state" }, 0, true, P_TCP },
	[O_ICMP_TYPE]  = { "icmp-type", { "icmp-type" }, 0, true, P_ICMP },
	[O_ICMP_CODE]  = { "icmp-code", { "icmp-code" }, 0, true, P_ICMP },
	[O_ICMP_ID]    = { "icmp-id", { "icmp-id" }, 0, true, P_ICMP },
	[O_ICMP6_TYPE] = { "icmpv6-type", { "icmpv6-type" }, 0, true, P_ICMP6 },
	[O_ICMP6_CODE] = { "icmpv6-code", { "icmpv6-code" }, 0, true, P_ICMP6 },
	[O_ICMP6_ID]   = { "icmpv6-id", { "icmpv6-id" }, 0, true, P_ICMP6 },
	[O_TUPLE_SPORT]= { "tuple-port-src", { "tuple-port-src" }, 0, true, P_PORTS },
	[O_TUPLE_DPORT]= { "tuple-port-dst", { "tuple-port-dst" }, 0, true, P_PORTS },
	[O_MASK_SPORT] = { "mask-port-src", { "mask-port-src" }, 0, true, P_PORTS },
	[O_MASK_DPORT] = { "mask-port-dst", { "mask-port-dst" }, 0, true, P_PORTS },
};
/* clang-format on */

struct cli_cmd {
	char shrt;
	const char *longname;
	enum ctl_cli_cmd cmd;
};

static const struct cli_cmd cmds[] = {
    {'L', "dump", CTL_CLI_LIST},     {'G', "get", CTL_CLI_GET},
    {'D', "delete", CTL_CLI_DELETE}, {'I', "create", CTL_CLI_CREATE},
    {'A', "add", CTL_CLI_ADD},	     {'U', "update", CTL_CLI_UPDATE},
    {'E', "event", CTL_CLI_EVENT},   {'F', "flush", CTL_CLI_FLUSH},
    {'C', "count", CTL_CLI_COUNT},   {'S', "stats", CTL_CLI_STATS},
    {'h', "help", CTL_CLI_HELP},     {'V', "version", CTL_CLI_VERSION},
};

#define TUPLE_OPTS                                                                                 \
	(OB(O_SRC) | OB(O_DST) | OB(O_REPLY_SRC) | OB(O_REPLY_DST) | OB(O_PROTO) | OB(O_SPORT) |   \
	 OB(O_DPORT) | OB(O_REPLY_SPORT) | OB(O_REPLY_DPORT) | OB(O_ICMP_TYPE) | OB(O_ICMP_CODE) | \
	 OB(O_ICMP_ID) | OB(O_ICMP6_TYPE) | OB(O_ICMP6_CODE) | OB(O_ICMP6_ID) | OB(O_FAMILY) |     \
	 OB(O_ZONE) | OB(O_ORIG_ZONE) | OB(O_REPLY_ZONE))
#define ALWAYS	 (OB(O_SOCKET) | OB(O_NAME))
#define NAT_OPTS (OB(O_SRC_NAT) | OB(O_DST_NAT) | OB(O_ANY_NAT))
/* What -z is refused with (as conntrack): the counters of every entry dumped are zeroed */
#define ZERO_FILTERS ((TUPLE_OPTS & ~OB(O_FAMILY)) | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE))

/* What each command takes (conntrack's commands_v_options, in spirit). */
static uint64_t allowed(enum ctl_cli_cmd c, bool expect)
{
	if (expect) {
		switch (c) {
		case CTL_CLI_CREATE:
			return ALWAYS | TUPLE_OPTS | OB(O_TIMEOUT) | OB(O_TUPLE_SRC) |
			       OB(O_TUPLE_DST) | OB(O_MASK_SRC) | OB(O_MASK_DST) |
			       OB(O_TUPLE_SPORT) | OB(O_TUPLE_DPORT) | OB(O_MASK_SPORT) |
			       OB(O_MASK_DPORT);
		case CTL_CLI_GET:
		case CTL_CLI_DELETE:
			return ALWAYS | TUPLE_OPTS | OB(O_OUTPUT);
		case CTL_CLI_LIST:
			return ALWAYS | OB(O_FAMILY) | OB(O_OUTPUT);
		default:
			return ALWAYS | OB(O_FAMILY);
		}
	}
	switch (c) {
	case CTL_CLI_LIST:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_OUTPUT) | OB(O_ZERO) | NAT_OPTS;
	case CTL_CLI_DELETE:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_OUTPUT) | NAT_OPTS;
	case CTL_CLI_EVENT:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_OUTPUT) | OB(O_EVENT_MASK) | OB(O_BUFFER) | NAT_OPTS;
	case CTL_CLI_GET:
		return ALWAYS | TUPLE_OPTS | OB(O_OUTPUT);
	case CTL_CLI_CREATE:
	case CTL_CLI_ADD:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_TIMEOUT) | OB(O_OUTPUT) | OB(O_HELPER);
	case CTL_CLI_UPDATE:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_TIMEOUT) | OB(O_OUTPUT) | NAT_OPTS;
	case CTL_CLI_FLUSH:
		return ALWAYS | OB(O_FAMILY);
	default:
		return ALWAYS;
	}
}

/* ---- values ------------------------------------------------------------------------------ */

struct cli_proto {
	const char *name;
	uint8_t num, kind;
};

static const struct cli_proto protos[] = {
    {"tcp", IPPROTO_TCP, P_TCP},	   {"udp", IPPROTO_UDP, P_PORTS},
    {"udplite", IPPROTO_UDPLITE, P_PORTS}, {"sctp", IPPROTO_SCTP, P_PORTS},
    {"dccp", IPPROTO_DCCP, P_PORTS},	   {"icmp", IPPROTO_ICMP, P_ICMP},
    {"icmpv6", IPPROTO_ICMPV6, P_ICMP6},   {"gre", IPPROTO_GRE, P_ANY},
};

static const char *const tcp_states[] = {
    "NONE",	  "SYN_SENT", "SYN_RECV",  "ESTABLISHED", "FIN_WAIT",
    "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",	  "LISTEN",
};

struct cli_bit {
	const char *name;
	uint32_t bit;
};

static const struct cli_bit status_bits[] = {
    {"EXPECTED", 1u << 0},	 {"SEEN_REPLY", 1u << 1}, {"ASSURED", 1u << 2},
    {"FIXED_TIMEOUT", 1u << 10}, {"OFFLOAD", 1u << 14},	  {"UNSET", 0},
};

static const struct cli_bit event_bits[] = {
    {"ALL", CTL_EV_NEW | CTL_EV_UPDATE | CTL_EV_DESTROY},
    {"NEW", CTL_EV_NEW},
    {"UPDATES", CTL_EV_UPDATE},
    {"DESTROY", CTL_EV_DESTROY},
};

static const struct cli_bit output_bits[] = {
    {"extended", CTL_FMT_EXTENDED},
    {"id", CTL_FMT_ID},
    /* what these add is never there in a box: no label, no event caused by a netlink port */
    {"userspace", 0},
    {"labels", 0},
};

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return 2;
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return *s && !*end && !errno && *v <= max && *s != '-';
}

/* "A,B,C" of names in the table, OR-ed. false at the first unknown one (*badname). */
static bool parse_bits(const char *s, const struct cli_bit *t, size_t n, uint32_t *out,
		       char *badname, size_t badlen)
{
	char buf[256], *save, *w;

	snprintf(buf, sizeof(buf), "%s", s);
	*out = 0;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < n && strcasecmp(w, t[i].name); i++)
			;
		if (i == n) {
			snprintf(badname, badlen, "%s", w);
			return false;
		}
		*out |= t[i].bit;
	}
	return true;
}

#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

/* An address into a tuple part; its family must agree with what was given so far. */
static int set_addr(struct ctl_ct_cli *o, const char *s, struct ctl_tuple *t, bool src, char *err,
		    size_t len)
{
	union pt_addr a;
	int f = pt_addr_parse(s, &a);

	if (!f)
		return bad(err, len, "Bad IP address `%s'", s);
	if (o->family && o->family != f)
		return bad(err, len, "mismatched address family");
	o->family = (uint8_t)f;
	t->t.family = (uint8_t)f;
	if (src)
		t->t.src = a;
	else
		t->t.dst = a;
	t->have |= src ? CTL_T_SRC : CTL_T_DST;
	return 0;
}

/* -n / -g / -j's IP[:PORT] (an IPv6 address whole, else split at the last colon). */
static int set_nat(struct ctl_cli_nat *n, const char *s, char *err, size_t len)
{
	char addr[64];
	const char *colon;
	unsigned long port;

	n->family = (uint8_t)pt_addr_parse(s, &n->addr);
	if (n->family)
		return 0;
	if (!(colon = strrchr(s, ':')) || (size_t)(colon - s) >= sizeof(addr))
		return bad(err, len, "Invalid IP address `%s'", s);
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - s), s);
	if (!(n->family = (uint8_t)pt_addr_parse(addr, &n->addr)))
		return bad(err, len, "Invalid IP address `%s'", addr);
	if (!parse_ulong(colon + 1, 65535, &port))
		return bad(err, len, "Invalid port `%s'", colon + 1);
	n->port = (uint16_t)port;
	n->has_port = true;
	return 0;
}

static uint8_t proto_kind(uint8_t num)
{
	for (size_t i = 0; i < NITEMS(protos); i++)
		if (protos[i].num == num)
			return protos[i].kind;
	return P_ANY;
}

static bool proto_fits(uint8_t want, uint8_t have)
{
	return want == P_ANY || want == have || (want == P_PORTS && have == P_TCP);
}

static int set_port(const char *s, const char *name, struct ctl_tuple *t, uint32_t bit, char *err,
		    size_t len)
{
	unsigned long v;

	if (!parse_ulong(s, 65535, &v))
		return bad(err, len, "Bad parameter `%s' for --%s", s, name);
	if (bit == CTL_T_SPORT)
		t->t.s.port = (uint16_t)v;
	else
		t->t.d.port = (uint16_t)v;
	t->have |= bit;
	return 0;
}

/* One option with its argument. */
static int take(struct ctl_ct_cli *o, int id, const char *v, char *err, size_t len)
{
	unsigned long n;
	uint32_t bits;
	char badname[64];
	char *slash;
	size_t i;

	switch (id) {
	case O_SRC:
		return set_addr(o, v, &o->orig, true, err, len);
	case O_DST:
		return set_addr(o, v, &o->orig, false, err, len);
	case O_REPLY_SRC:
		return set_addr(o, v, &o->reply, true, err, len);
	case O_REPLY_DST:
		return set_addr(o, v, &o->reply, false, err, len);
	case O_TUPLE_SRC:
		return set_addr(o, v, &o->tuple, true, err, len);
	case O_TUPLE_DST:
		return set_addr(o, v, &o->tuple, false, err, len);
	case O_MASK_SRC:
		return set_addr(o, v, &o->mask, true, err, len);
	case O_MASK_DST:
		return set_addr(o, v, &o->mask, false, err, len);
	case O_PROTO:
		for (i = 0; i < NITEMS(protos) && strcasecmp(v, protos[i].name); i++)
			;
		if (i < NITEMS(protos))
			n = protos[i].num;
		else if (!parse_ulong(v, 255, &n))
			return bad(err, len, "`%s' unsupported protocol", v);
		o->orig.t.l4proto = o->reply.t.l4proto = (uint8_t)n;
		o->tuple.t.l4proto = o->mask.t.l4proto = (uint8_t)n;
		o->orig.have |= CTL_T_PROTO;
		return 0;
	case O_FAMILY:
		n = !strcmp(v, "ipv4") ? AF_INET : !strcmp(v, "ipv6") ? AF_INET6 : 0;
		if (!n)
			return bad(err, len, "`%s' unsupported protocol", v);
		if (o->family && o->family != n)
			return bad(err, len, "mismatched address family");
		o->family = (uint8_t)n;
		return 0;
	case O_TIMEOUT:
		if (!parse_ulong(v, 0xffffffffu, &n))
			return bad(err, len, "Bad parameter `%s'", v);
		o->timeout = (uint32_t)n;
		return 0;
	case O_STATUS:
		if (!parse_bits(v, status_bits, NITEMS(status_bits), &o->status, badname,
				sizeof(badname)))
			return bad(err, len, "Bad parameter `%s'", badname);
		return 0;
	case O_MARK:
		o->mark_mask = 0xffffffffu;
		if ((slash = strchr(v, '/'))) {
			char buf[64];
			unsigned long m;

			snprintf(buf, sizeof(buf), "%.*s", (int)(slash - v), v);
			if (!parse_ulong(buf, 0xffffffffu, &n) ||
			    !parse_ulong(slash + 1, 0xffffffffu, &m))
				return bad(err, len, "Bad parameter `%s'", v);
			o->mark_mask = (uint32_t)m;
		} else if (!parse_ulong(v, 0xffffffffu, &n)) {
			return bad(err, len, "Bad parameter `%s'", v);
		}
		o->mark = (uint32_t)n;
		return 0;
	case O_ZONE:
	case O_ORIG_ZONE:
	case O_REPLY_ZONE:
		if (!parse_ulong(v, 65535, &n))
			return bad(err, len, "Bad parameter `%s'", v);
		o->zone = (uint16_t)n;
		return 0;
	case O_OUTPUT:
		if (!parse_bits(v, output_bits, NITEMS(output_bits), &bits, badname,
				sizeof(badname)))
			return bad(err, len, "output format `%s' is not supported", badname);
		o->fmt |= bits;
		return 0;
	case O_EVENT_MASK:
		if (!parse_bits(v, event_bits, NITEMS(event_bits), &o->event_mask, badname,
				sizeof(badname)))
			return bad(err, len, "Bad parameter `%s'", badname);
		return 0;
	case O_BUFFER:
		return parse_ulong(v, 0xffffffffu, &n) ? 0 : bad(err, len, "Bad parameter `%s'", v);
	case O_SOCKET:
	case O_NAME:
		o->socket = v;
		return 0;
	case O_ZERO:
		return 0;
	case O_SRC_NAT:
	case O_ANY_NAT: /* -j IP: either side's address */
		return v ? set_nat(&o->snat, v, err, len) : 0;
	case O_DST_NAT:
		return v ? set_nat(&o->dnat, v, err, len) : 0;
	case O_HELPER:
		o->helper = v;
		return 0;
	case O_SPORT:
		return set_port(v, opts[id].name, &o->orig, CTL_T_SPORT, err, len);
	case O_DPORT:
		return set_port(v, opts[id].name, &o->orig, CTL_T_DPORT, err, len);
	case O_REPLY_SPORT:
		return set_port(v, opts[id].name, &o->reply, CTL_T_SPORT, err, len);
	case O_REPLY_DPORT:
		return set_port(v, opts[id].name, &o->reply, CTL_T_DPORT, err, len);
	case O_TUPLE_SPORT:
		return set_port(v, opts[id].name, &o->tuple, CTL_T_SPORT, err, len);
	case O_TUPLE_DPORT:
		return set_port(v, opts[id].name, &o->tuple, CTL_T_DPORT, err, len);
	case O_MASK_SPORT:
		return set_port(v, opts[id].name, &o->mask, CTL_T_SPORT, err, len);
	case O_MASK_DPORT:
		return set_port(v, opts[id].name, &o->mask, CTL_T_DPORT, err, len);
	case O_STATE:
		for (i = 0; i < NITEMS(tcp_states) && strcasecmp(v, tcp_states[i]); i++)
			;
		if (i == NITEMS(tcp_states))
			return bad(err, len, "Bad parameter `%s'", v);
		o->state = (uint8_t)(i == 9 ? 0 : i); /* LISTEN is the kernel's NONE slot */
		return 0;
	case O_ICMP6_TYPE:
	case O_ICMP6_CODE:
	case O_ICMP6_ID:
		id -= O_ICMP6_TYPE - O_ICMP_TYPE; /* the same fields, other names (conntrack's) */
						  /* fall through */
	case O_ICMP_TYPE:
	case O_ICMP_CODE:
	case O_ICMP_ID:
		if (!parse_ulong(v, id == O_ICMP_ID ? 65535 : 255, &n))
			return bad(err, len, "Bad parameter `%s'", v);
		if (id == O_ICMP_TYPE) {
			o->orig.t.d.icmp.type = (uint8_t)n;
			o->orig.have |= CTL_T_ICMP_TYPE;
		} else if (id == O_ICMP_CODE) {
			o->orig.t.d.icmp.code = (uint8_t)n;
			o->orig.have |= CTL_T_ICMP_CODE;
		} else {
			o->orig.t.s.icmp_id = (uint16_t)n;
			o->orig.have |= CTL_T_SPORT;
		}
		return 0;
	}
	return 0;
}

/* "-X", "--name", "--name=value": the option's id, or -1. *inl gets an inline value. */
static int lookup(const char *a, uint8_t kind, const char **inl)
{
	*inl = NULL;
	if (a[0] == '-' && a[1] == '-') {
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t nl = eq ? (size_t)(eq - name) : strlen(name);

		for (int i = 0; i < O_NUM; i++)
			for (int k = 0; k < 3 && opts[i].longs[k]; k++)
				if (strlen(opts[i].longs[k]) == nl &&
				    !strncmp(opts[i].longs[k], name, nl) &&
				    proto_fits(opts[i].proto, kind)) {
					*inl = eq ? eq + 1 : NULL;
					return i;
				}
		return -1;
	}
	if (a[0] == '-' && a[1] && a[1] != '-')
		for (int i = 0; i < O_NUM; i++)
			if (opts[i].shrt == a[1] && (!a[2] || opts[i].arg == OPTIONAL)) {
				*inl = a[2] ? a + 2 : NULL; /* -n1.2.3.4 */
				return i;
			}
	return -1;
}

static int command_of(const char *a)
{
	for (size_t i = 0; i < NITEMS(cmds); i++)
		if ((a[0] == '-' && a[1] == cmds[i].shrt && !a[2]) ||
		    (a[0] == '-' && a[1] == '-' && !strcmp(a + 2, cmds[i].longname)))
			return (int)i;
	return -1;
}

/* What the commands need, after all options were read. */
static int check(struct ctl_ct_cli *o, char *err, size_t len)
{
	uint8_t kind = proto_kind(o->orig.t.l4proto);
	uint64_t ok = allowed(o->cmd, o->expect);

	for (int i = 0; i < O_NUM; i++)
		if ((o->opts & OB(i)) && !(ok & OB(i)))
			return bad(err, len, "Illegal option `--%s' with this command",
				   opts[i].name);
	if ((o->opts & OB(O_ANY_NAT)) && (o->opts & (OB(O_SRC_NAT) | OB(O_DST_NAT))))
		return bad(err, len, "cannot specify `--src-nat' or `--dst-nat' with `--any-nat'");
	if ((o->opts & OB(O_ZERO)) && (o->opts & ZERO_FILTERS))
		return bad(err, len, "Can't use -z with filtering parameters");
	if (o->opts & (OB(O_ZONE) | OB(O_ORIG_ZONE) | OB(O_REPLY_ZONE))) {
		o->orig.t.zone = o->reply.t.zone = o->zone;
		if (o->cmd == CTL_CLI_LIST || o->cmd == CTL_CLI_DELETE || o->cmd == CTL_CLI_EVENT ||
		    o->cmd == CTL_CLI_UPDATE)
			o->orig.have |= CTL_T_ZONE;
	}
	if (o->reply.have & (CTL_T_SRC | CTL_T_DST | CTL_T_SPORT | CTL_T_DPORT))
		o->reply.have |= o->orig.have & CTL_T_PROTO;
	if (ICMPISH(kind) && (o->cmd == CTL_CLI_CREATE || o->cmd == CTL_CLI_ADD ||
			      o->cmd == CTL_CLI_GET || (o->expect && o->cmd == CTL_CLI_DELETE)))
		o->orig.have |= CTL_T_SPORT; /* the id is optional: 0 */
	if (o->cmd == CTL_CLI_CREATE || o->cmd == CTL_CLI_ADD) {
		const char *need =
		    !(o->opts & OB(O_PROTO))					? "protonum"
		    : !(o->orig.have & CTL_T_SRC)				? "src"
		    : !(o->orig.have & CTL_T_DST)				? "dst"
		    : !(o->opts & OB(O_TIMEOUT))				? "timeout"
		    : (kind == P_TCP && !o->expect && !(o->opts & OB(O_STATE))) ? "state"
		    : (kind == P_ICMP && !(o->opts & OB(O_ICMP_TYPE)))		? "icmp-type"
		    : (kind == P_ICMP && !(o->opts & OB(O_ICMP_CODE)))		? "icmp-code"
		    : (kind == P_ICMP6 && !(o->opts & OB(O_ICMP6_TYPE)))	? "icmpv6-type"
		    : (kind == P_ICMP6 && !(o->opts & OB(O_ICMP6_CODE)))	? "icmpv6-code"
										: NULL;

		if (!need && o->expect)
			need = !(o->tuple.have & CTL_T_SRC)   ? "tuple-src"
			       : !(o->tuple.have & CTL_T_DST) ? "tuple-dst"
			       : !(o->mask.have & CTL_T_SRC)  ? "mask-src"
			       : !(o->mask.have & CTL_T_DST)  ? "mask-dst"
							      : NULL;
		if (need)
			return bad(err, len,
				   "You need to supply the `--%s' option for this command", need);
	}
	if ((o->cmd == CTL_CLI_CREATE || o->cmd == CTL_CLI_ADD || o->cmd == CTL_CLI_GET ||
	     (o->expect && o->cmd == CTL_CLI_DELETE)) &&
	    (kind == P_PORTS || kind == P_TCP) &&
	    (o->orig.have & (CTL_T_SPORT | CTL_T_DPORT)) != (CTL_T_SPORT | CTL_T_DPORT))
		return bad(err, len, "you have to specify `--sport' and `--dport'");
	if (o->cmd == CTL_CLI_GET || (o->expect && o->cmd == CTL_CLI_DELETE)) {
		const char *need = !(o->opts & OB(O_PROTO))	 ? "protonum"
				   : !(o->orig.have & CTL_T_SRC) ? "src"
				   : !(o->orig.have & CTL_T_DST) ? "dst"
								 : NULL;

		if (need)
			return bad(err, len,
				   "You need to supply the `--%s' option for this command", need);
	}
	if (o->expect && o->cmd == CTL_CLI_UPDATE)
		return bad(err, len, "Can't update expectations");
	if (o->expect && o->cmd == CTL_CLI_STATS)
		return bad(err, len, "Invalid commands combination");
	if (o->expect && o->cmd == CTL_CLI_EVENT)
		return bad(err, len, "expectation events are not served by pkttables");
	return 0;
}

int ctl_ct_cli_parse(int argc, char **argv, struct ctl_ct_cli *o, char *err, size_t len)
{
	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int c = command_of(a), id, r;

		if (c >= 0) {
			if (o->cmd != CTL_CLI_NONE)
				return bad(err, len, "Invalid commands combination");
			o->cmd = cmds[c].cmd;
			/* "-L expect": a table name may follow the command */
			if (i + 1 < argc && argv[i + 1][0] != '-') {
				if (!strcmp(argv[i + 1], "expect"))
					o->expect = true;
				else if (!strcmp(argv[i + 1], "dying") ||
					 !strcmp(argv[i + 1], "unconfirmed"))
					o->empty_table = true;
				else if (strcmp(argv[i + 1], "conntrack"))
					return bad(err, len, "Bad parameter `%s'", argv[i + 1]);
				i++;
			}
			continue;
		}
		if ((id = lookup(a, proto_kind(o->orig.t.l4proto), &v)) < 0)
			return bad(err, len, "unknown option `%s'", a);
		if (opts[id].arg == OPTIONAL && !v && i + 1 < argc && argv[i + 1][0] != '-')
			v = argv[++i]; /* -n 1.2.3.4, as conntrack takes it */
		else if (opts[id].arg == 1 && !v) {
			if (i + 1 >= argc)
				return bad(err, len, "option `%s' requires an argument", a);
			v = argv[++i];
		}
		o->opts |= OB(id);
		if ((r = take(o, id, v, err, len)))
			return r;
	}
	if (o->cmd == CTL_CLI_NONE)
		o->cmd = CTL_CLI_HELP;
	return check(o, err, len);
}

/* ---- talking to the box ------------------------------------------------------------------ */

struct run {
	const struct ctl_ct_cli *o;
	struct ctl_client *cl;
	FILE *out, *err;
	unsigned n;
	/* -D / -U: the entries the dump found */
	struct ct_tuple *found;
	unsigned nfound, capfound;
	bool collect;
	struct ctl_stats st; /* -C, -S */
	char line[640];
};

static int fail_op(struct run *r, int code, const char *msg)
{
	if (code == -ENOENT && r->o->expect)
		fprintf(r->err,
			CTL_CLI_PREFIX "Operation failed: such expectation doesn't exist\n");
	else if (code == -ENOENT)
		fprintf(r->err, CTL_CLI_PREFIX "Operation failed: such conntrack doesn't exist\n");
	else if (code == -EEXIST && !r->o->expect)
		fprintf(r->err, CTL_CLI_PREFIX
			"Operation failed: Such conntrack exists, try -U to update\n");
	else
		fprintf(r->err, CTL_CLI_PREFIX "Operation failed: %s%s%s\n", strerror(-code),
			msg && *msg ? " (" : "", msg && *msg ? msg : "");
	(void)msg;
	return 1;
}

static struct nlmsghdr *start(struct run *r, void *buf, size_t room, uint16_t type, uint16_t flags,
			      uint8_t family)
{
	return ctl_msg_start(buf, room, type, (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | flags),
			     ctl_client_seq(r->cl), family, true);
}

/* The filter of -L/-D/-U/-E: the tuple parts given, mark, zone, status. */
static void put_filter(struct run *r, struct nlmsghdr *nlh, size_t room)
{
	const struct ctl_ct_cli *o = r->o;
	struct ctl_filter f;

	memset(&f, 0, sizeof(f));
	f.orig = o->orig;
	f.reply = o->reply;
	f.reply.have &= ~(uint32_t)CTL_T_PROTO;
	if (f.reply.have)
		f.reply.have |= o->orig.have & CTL_T_PROTO;
	if ((o->opts & OB(O_MARK)) && o->cmd != CTL_CLI_UPDATE) {
		f.have |= CTL_FH_MARK;
		f.mark = o->mark & o->mark_mask;
		f.mark_mask = o->mark_mask;
	}
	if ((o->opts & OB(O_STATUS)) && o->cmd != CTL_CLI_UPDATE) {
		f.have |= CTL_FH_STATUS;
		f.status = f.status_mask = o->status;
	}
	if (f.orig.have || f.reply.have || f.have)
		ctl_put_filter(nlh, room, &f);
}

/*
 * Is the entry source-NAT-ed (src) or destination-NAT-ed, to n's address / port when given?
 * libnetfilter_conntrack's test: the manip's _DONE status bit, and the reply tuple's address
 * (port) differs from the original's; an address or port given must be the reply's.
 */
static bool nat_passes(const struct ctl_ct *c, const struct ctl_cli_nat *n, bool src)
{
	const union pt_addr *was = src ? &c->orig.src : &c->orig.dst;
	const union pt_addr *now = src ? &c->reply.dst : &c->reply.src;
	uint16_t pwas = src ? c->orig.s.port : c->orig.d.port;
	uint16_t pnow = src ? c->reply.d.port : c->reply.s.port;
	uint8_t kind = proto_kind(c->orig.l4proto);
	bool done = c->status & (src ? CTL_IPS_SRC_NAT_DONE : CTL_IPS_DST_NAT_DONE);
	bool addr_nat = done && memcmp(was, now, sizeof(*was));
	bool port_nat = done && (kind == P_PORTS || kind == P_TCP) && pwas != pnow;

	if (n->family &&
	    !(addr_nat && n->family == c->orig.family && !memcmp(&n->addr, now, sizeof(*now))))
		return false;
	if (n->has_port && !(port_nat && n->port == pnow))
		return false;
	return n->family || n->has_port || addr_nat || port_nat;
}

/* Client-side filters the protocol has no attribute for (--state, -n -g -j). */
static bool passes(const struct ctl_ct_cli *o, const struct ctl_ct *c)
{
	bool s, d;

	if ((o->opts & OB(O_STATE)) && o->cmd != CTL_CLI_UPDATE &&
	    !((c->have & CTL_C_PROTOINFO) && c->proto_state == o->state))
		return false;
	if (o->opts & OB(O_ANY_NAT))
		return nat_passes(c, &o->snat, true) || nat_passes(c, &o->snat, false);
	s = !(o->opts & OB(O_SRC_NAT)) || nat_passes(c, &o->snat, true);
	d = !(o->opts & OB(O_DST_NAT)) || nat_passes(c, &o->dnat, false);
	return s && d;
}

static int on_entry(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_ct c;

	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW) || ctl_parse_ct(nlh, &c, &e))
		return 0;
	if (!passes(r->o, &c))
		return 0;
	if (r->collect) {
		if (r->nfound == r->capfound) {
			unsigned cap = r->capfound ? 2 * r->capfound : 64;
			struct ct_tuple *n = realloc(r->found, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->found = n;
			r->capfound = cap;
		}
		r->found[r->nfound++] = c.orig;
		return 0;
	}
	ctl_ct_format_flags(&c, r->o->fmt & (CTL_FMT_EXTENDED | CTL_FMT_ID), r->line,
			    sizeof(r->line));
	fprintf(r->out, "%s\n", r->line);
	r->n++;
	return 0;
}

static int on_exp(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_exp x;

	if (nlh->nlmsg_type != CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW) || ctl_parse_exp(nlh, &x, &e))
		return 0;
	if (r->collect) {
		if (r->nfound == r->capfound) {
			unsigned cap = r->capfound ? 2 * r->capfound : 64;
			struct ct_tuple *n = realloc(r->found, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->found = n;
			r->capfound = cap;
		}
		r->found[r->nfound++] = x.tuple.t;
		return 0;
	}
	ctl_exp_format(&x, r->line, sizeof(r->line));
	fprintf(r->out, "%s\n", r->line);
	r->n++;
	return 0;
}

static int request(struct run *r, const struct nlmsghdr *nlh, ctl_msg_cb cb)
{
	char msg[512];

	return ctl_client_request(r->cl, nlh, cb, r, msg, sizeof(msg), NULL);
}

static int request_msg(struct run *r, const struct nlmsghdr *nlh, ctl_msg_cb cb, char *msg,
		       size_t len)
{
	return ctl_client_request(r->cl, nlh, cb, r, msg, len, NULL);
}

/* A tuple as a lookup key (every part its protocol has). */
static struct ctl_tuple key(const struct ct_tuple *t)
{
	struct ctl_tuple k = {.t = *t, .have = CTL_T_SRC | CTL_T_DST | CTL_T_PROTO};
	uint8_t kind = proto_kind(t->l4proto);

	if (kind == P_PORTS || kind == P_TCP)
		k.have |= CTL_T_SPORT | CTL_T_DPORT;
	else if (ICMPISH(kind))
		k.have |= CTL_T_SPORT | CTL_T_ICMP_TYPE | CTL_T_ICMP_CODE;
	if (t->zone)
		k.have |= CTL_T_ZONE;
	return k;
}

static int dump(struct run *r, bool collect)
{
	char buf[2048];
	uint16_t type = (r->o->opts & OB(O_ZERO)) ? CTL_CT_GET_CTRZERO : CTL_CT_GET;
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, type), NLM_F_DUMP, r->o->family);

	put_filter(r, nlh, sizeof(buf));
	r->collect = collect;
	return request(r, nlh, on_entry);
}

static int do_list(struct run *r)
{
	int e;

	/* a box's data path runs between requests: no entry is half made or half gone then */
	if (r->o->empty_table) {
		fprintf(r->err, CTL_CLI_PREFIX "0 flow entries have been shown.\n");
		return 0;
	}
	if (r->o->expect) {
		char buf[256];

		e = request(r,
			    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_GET),
				  NLM_F_DUMP, r->o->family),
			    on_exp);
		if (e < 0)
			return fail_op(r, e, NULL);
		fprintf(r->err, CTL_CLI_PREFIX "%u expectations have been shown.\n", r->n);
		return 0;
	}
	if ((e = dump(r, false)) < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been shown.\n", r->n);
	return 0;
}

static int get_one(struct run *r, const struct ct_tuple *t)
{
	char buf[1024];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_GET), 0, t->family);
	struct ctl_tuple k = key(t);

	ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &k);
	r->collect = false;
	return request(r, nlh, on_entry);
}

static int do_get(struct run *r)
{
	const struct ctl_ct_cli *o = r->o;
	int e;

	if (o->expect) {
		char buf[1024];
		struct nlmsghdr *nlh =
		    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_GET), 0, o->family);
		struct ctl_tuple k = key(&o->orig.t);

		ctl_put_tuple(nlh, sizeof(buf), CTA_EXPECT_TUPLE, &k);
		if ((e = request(r, nlh, on_exp)) < 0)
			return fail_op(r, e, NULL);
		fprintf(r->err, CTL_CLI_PREFIX "%u expectations have been shown.\n", r->n);
		return 0;
	}
	if ((e = get_one(r, &o->orig.t)) < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been shown.\n", r->n);
	return 0;
}

/* -D and -U: every entry the filter takes, by its original tuple, as conntrack 1.4.7 does. */
static int do_each(struct run *r, bool del)
{
	const struct ctl_ct_cli *o = r->o;
	unsigned done = 0;
	int e;

	if ((e = dump(r, true)) < 0)
		return fail_op(r, e, NULL);
	for (unsigned i = 0; i < r->nfound; i++) {
		char buf[1024];
		struct nlmsghdr *nlh = start(
		    r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, del ? CTL_CT_DELETE : CTL_CT_NEW),
		    0, r->found[i].family);
		struct ctl_tuple k = key(&r->found[i]);
		struct ctl_ct c;

		if (del) {
			/* printed as it was, before it goes */
			if (get_one(r, &r->found[i]) < 0)
				continue;
			ctl_put_tuple(nlh, sizeof(buf), CTA_TUPLE_ORIG, &k);
		} else {
			memset(&c, 0, sizeof(c));
			c.have = CTL_C_ORIG;
			c.orig = r->found[i];
			if (o->opts & OB(O_MARK)) {
				c.have |= CTL_C_MARK | CTL_C_MARK_MASK;
				c.mark = o->mark;
				c.mark_mask = o->mark_mask;
			}
			if (o->opts & OB(O_TIMEOUT)) {
				c.have |= CTL_C_TIMEOUT;
				c.timeout = o->timeout;
			}
			if (o->opts & OB(O_STATUS)) {
				c.have |= CTL_C_STATUS;
				c.status = o->status;
			}
			if ((o->opts & OB(O_STATE)) && r->found[i].l4proto == IPPROTO_TCP) {
				c.have |= CTL_C_PROTOINFO;
				c.proto_state = o->state;
			}
			ctl_put_ct(nlh, sizeof(buf), &c);
		}
		if (request(r, nlh, NULL) < 0)
			continue;
		if (!del)
			get_one(r, &r->found[i]); /* printed as it is now */
		done++;
	}
	fprintf(r->err, CTL_CLI_PREFIX "%u flow entries have been %s.\n", done,
		del ? "deleted" : "updated");
	return done ? 0 : 1;
}

static int do_create(struct run *r)
{
	const struct ctl_ct_cli *o = r->o;
	char buf[2048], msg[512];
	struct nlmsghdr *nlh;
	int e;

	if (o->expect) {
		struct ctl_exp x;

		memset(&x, 0, sizeof(x));
		x.master = key(&o->orig.t);
		x.tuple = o->tuple;
		x.tuple.t.l4proto = o->orig.t.l4proto;
		x.tuple.have |= CTL_T_PROTO;
		if (proto_kind(o->orig.t.l4proto) != P_ANY)
			x.tuple.have |= CTL_T_SPORT | CTL_T_DPORT;
		x.mask = o->mask;
		x.mask.t.l4proto = o->orig.t.l4proto;
		x.mask.have |= CTL_T_PROTO | CTL_T_DPORT;
		x.mask.t.d.all = 0xffff;
		if (!(o->mask.have & CTL_T_SPORT) && proto_kind(o->orig.t.l4proto) != P_ANY)
			x.mask.have |= CTL_T_SPORT;
		x.timeout = o->timeout;
		x.have = CTL_X_MASTER | CTL_X_TUPLE | CTL_X_MASK | CTL_X_TIMEOUT;
		nlh = start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_NEW),
			    NLM_F_CREATE | NLM_F_EXCL, o->family);
		ctl_put_exp(nlh, sizeof(buf), &x);
		if ((e = request_msg(r, nlh, NULL, msg, sizeof(msg))) < 0)
			return fail_op(r, e, NULL);
		return 0; /* conntrack 1.4.7 says nothing when it made one */
	} else {
		struct ctl_ct c;

		memset(&c, 0, sizeof(c));
		c.have = CTL_C_ORIG | CTL_C_TIMEOUT;
		c.orig = o->orig.t;
		c.timeout = o->timeout;
		if (o->reply.have & (CTL_T_SRC | CTL_T_DST)) {
			struct ct_tuple inv;

			/* the parts of the reply not given are those of the inverse */
			if (ct_tuple_invert(&o->orig.t, &inv) < 0)
				inv = o->orig.t;
			c.reply = inv;
			if (o->reply.have & CTL_T_SRC)
				c.reply.src = o->reply.t.src;
			if (o->reply.have & CTL_T_DST)
				c.reply.dst = o->reply.t.dst;
			if (o->reply.have & CTL_T_SPORT)
				c.reply.s.port = o->reply.t.s.port;
			if (o->reply.have & CTL_T_DPORT)
				c.reply.d.port = o->reply.t.d.port;
			c.have |= CTL_C_REPLY;
		}
		if (o->opts & OB(O_STATUS)) {
			c.have |= CTL_C_STATUS;
			c.status = o->status;
		}
		if (o->opts & OB(O_MARK)) {
			c.have |= CTL_C_MARK;
			c.mark = o->mark;
		}
		if (o->opts & OB(O_STATE)) {
			c.have |= CTL_C_PROTOINFO;
			c.proto_state = o->state;
		}
		if (o->zone) {
			c.have |= CTL_C_ZONE;
			c.zone = o->zone;
		}
		if (o->helper) {
			c.have |= CTL_C_HELPER;
			snprintf(c.helper, sizeof(c.helper), "%s", o->helper);
		}
		nlh = start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_NEW),
			    NLM_F_CREATE | (o->cmd == CTL_CLI_CREATE ? NLM_F_EXCL : 0),
			    o->orig.t.family);
		if (ctl_put_ct(nlh, sizeof(buf), &c) < 0)
			return fail_op(r, -EMSGSIZE, NULL);
		if ((e = request_msg(r, nlh, NULL, msg, sizeof(msg))) < 0)
			return fail_op(r, e, NULL);
		fprintf(r->err, CTL_CLI_PREFIX "1 flow entries have been created.\n");
		return 0;
	}
}

static int delete_exp(struct run *r, const struct ct_tuple *t)
{
	char buf[1024];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_DELETE), 0, t->family);
	struct ctl_tuple k = key(t);

	ctl_put_tuple(nlh, sizeof(buf), CTA_EXPECT_TUPLE, &k);
	return request(r, nlh, NULL);
}

static int do_delete(struct run *r)
{
	int e;

	if (!r->o->expect)
		return do_each(r, true);
	if ((e = delete_exp(r, &r->o->orig.t)) < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "1 expectations have been deleted.\n");
	return 0;
}

static int do_flush(struct run *r)
{
	char buf[256];
	int e;

	if (r->o->expect) {
		r->collect = true;
		e = request(r,
			    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_GET),
				  NLM_F_DUMP, r->o->family),
			    on_exp);
		if (e < 0)
			return fail_op(r, e, NULL);
		for (unsigned i = 0; i < r->nfound; i++)
			delete_exp(r, &r->found[i]);
		fprintf(r->err, CTL_CLI_PREFIX "expectation table has been emptied.\n");
		return 0;
	}
	e = request(
	    r, start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_FLUSH), 0, r->o->family),
	    NULL);
	if (e < 0)
		return fail_op(r, e, NULL);
	fprintf(r->err, CTL_CLI_PREFIX "connection tracking table has been emptied.\n");
	return 0;
}

static int on_stats(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;

	ctl_parse_stats(nlh, &r->st, &e);
	return 0;
}

static int do_stats(struct run *r, bool count)
{
	char buf[256];
	int e;

	if (count && r->o->expect) {
		r->collect = true;
		e = request(r,
			    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_EXP, CTL_EXP_GET),
				  NLM_F_DUMP, r->o->family),
			    on_exp);
		if (e < 0)
			return fail_op(r, e, NULL);
		fprintf(r->out, "%u\n", r->nfound);
		return 0;
	}
	e = request(r,
		    start(r, buf, sizeof(buf),
			  CTL_TYPE(CTL_SUBSYS_CT, count ? CTL_CT_GET_STATS : CTL_CT_GET_STATS_CPU),
			  0, AF_UNSPEC),
		    on_stats);
	if (e < 0)
		return fail_op(r, e, NULL);
	if (count) {
		fprintf(r->out, "%u\n", r->st.entries);
		return 0;
	}
	/* one data path thread: one "cpu", in conntrack's layout */
	fprintf(
	    r->out,
	    "cpu=%-4u\tfound=%llu invalid=%llu insert=%llu insert_failed=%llu drop=%llu "
	    "early_drop=%llu error=%u search_restart=%llu clash_resolve=%llu chaintoolong=%u \n",
	    0u, (unsigned long long)r->st.found, (unsigned long long)r->st.invalid,
	    (unsigned long long)r->st.insert, (unsigned long long)r->st.insert_failed,
	    (unsigned long long)r->st.drop, (unsigned long long)r->st.early_drop, 0u,
	    (unsigned long long)r->st.search_restart, (unsigned long long)r->st.clash, 0u);
	return 0;
}

/* ---- events ------------------------------------------------------------------------------ */

static int on_event(const struct nlmsghdr *nlh, void *priv)
{
	struct run *r = priv;
	struct ctl_error e;
	struct ctl_ct c;
	uint64_t lost;
	const char *kind;

	if (nlh->nlmsg_type == CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS_LOST) &&
	    ctl_get_u64(nlh, CTL_A_EVENTS_LOST, &lost)) {
		fprintf(r->err,
			"WARNING: We have hit ENOBUFS! We are losing events.\n"
			"%llu events lost so far: this listener is too slow.\n",
			(unsigned long long)lost);
		return 0;
	}
	if (ctl_parse_ct(nlh, &c, &e) < 0 || !passes(r->o, &c))
		return 0;
	if (CTL_MSG(nlh->nlmsg_type) == CTL_CT_DELETE)
		kind = "[DESTROY]";
	else if (nlh->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL))
		kind = "[NEW]";
	else
		kind = "[UPDATE]";
	ctl_ct_format_flags(&c, CTL_FMT_EVENT | (r->o->fmt & (CTL_FMT_EXTENDED | CTL_FMT_ID)),
			    r->line, sizeof(r->line));
	fprintf(r->out, "%9s %s\n", kind, r->line);
	fflush(r->out);
	r->n++;
	return 0;
}

static int do_event(struct run *r, volatile sig_atomic_t *stop)
{
	char buf[2048];
	struct nlmsghdr *nlh =
	    start(r, buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_CT, CTL_CT_EVENTS), 0, r->o->family);
	int e;

	if (r->o->event_mask)
		mnl_attr_put_u32(nlh, CTL_A_EVENT_MASK, htonl(r->o->event_mask));
	put_filter(r, nlh, sizeof(buf));
	if ((e = request(r, nlh, NULL)) < 0)
		return fail_op(r, e, NULL);
	while (!stop || !*stop) {
		e = ctl_client_recv(r->cl, on_event, r, 200);
		if (e == -ECONNRESET) {
			break;
		}
		if (e < 0 && e != -EINTR) {
			fprintf(r->err, CTL_CLI_PREFIX "Operation failed: %s\n", strerror(-e));
			break;
		}
	}
	fprintf(r->err, CTL_CLI_PREFIX "%u flow events have been shown.\n", r->n);
	return 0;
}

static void usage(FILE *f)
{
	fputs("Command line interface for the connection tracking system of a pkttables box.\n"
	      "Usage: pkttables ct [--socket PATH | --name BOX] [commands] [options]\n"
	      "   (the commands, options and output of conntrack(8), version 1.4.7)\n\n"
	      "Commands:\n"
	      "  -L [table] [options]\t\tList conntrack or expectation table\n"
	      "  -G [table] parameters\t\tGet conntrack or expectation\n"
	      "  -D [table] parameters\t\tDelete conntrack or expectation\n"
	      "  -I [table] parameters\t\tCreate a conntrack or expectation\n"
	      "  -U [table] parameters\t\tUpdate a conntrack\n"
	      "  -E [table] [options]\t\tShow events\n"
	      "  -F [table]\t\t\tFlush table\n"
	      "  -C [table]\t\t\tShow counter\n"
	      "  -S\t\t\t\tShow statistics\n\n"
	      "Tables: conntrack, expect\n\n"
	      "Options: -s -d -r -q -p -f -t -u -m -w --sport --dport --reply-port-src\n"
	      "  --reply-port-dst --state --icmp-type --icmp-code --icmp-id -o extended,id\n"
	      "  -e NEW,UPDATES,DESTROY --tuple-src --tuple-dst --mask-src --mask-dst\n"
	      "  --tuple-port-src --tuple-port-dst --mask-port-src --mask-port-dst\n"
	      "  --socket PATH, --name BOX   the box (default: the box named \"default\")\n",
	      f);
}

int ctl_ct_cli_run(const struct ctl_ct_cli *o, FILE *out, FILE *err, volatile sig_atomic_t *stop)
{
	struct run r = {.o = o, .out = out, .err = err};
	char path[256];
	int e, status;

	if (o->cmd == CTL_CLI_HELP) {
		usage(out);
		return 0;
	}
	if (o->cmd == CTL_CLI_VERSION) {
		fprintf(out, "conntrack v1.4.7 (conntrack-tools) (pkttables ct)\n");
		return 0;
	}
	if ((e = ctl_socket_path(o->socket, path, sizeof(path))) < 0) {
		fprintf(err, CTL_CLI_PREFIX "Bad parameter `%s': %s\n", o->socket ? o->socket : "",
			strerror(-e));
		return 2;
	}
	if (!(r.cl = ctl_client_open(path))) {
		fprintf(err, CTL_CLI_PREFIX "Can't open handler: %s: %s\n", path, strerror(errno));
		return 1;
	}
	switch (o->cmd) {
	case CTL_CLI_LIST:
		status = do_list(&r);
		break;
	case CTL_CLI_GET:
		status = do_get(&r);
		break;
	case CTL_CLI_DELETE:
		status = do_delete(&r);
		break;
	case CTL_CLI_CREATE:
	case CTL_CLI_ADD:
		status = do_create(&r);
		break;
	case CTL_CLI_UPDATE:
		status = do_each(&r, false);
		break;
	case CTL_CLI_FLUSH:
		status = do_flush(&r);
		break;
	case CTL_CLI_COUNT:
		status = do_stats(&r, true);
		break;
	case CTL_CLI_STATS:
		status = do_stats(&r, false);
		break;
	case CTL_CLI_EVENT:
		status = do_event(&r, stop);
		break;
	default:
		status = 2;
	}
	free(r.found);
	ctl_client_close(r.cl);
	return status;
}

int ctl_ct_main(int argc, char **argv, FILE *out, FILE *err, volatile sig_atomic_t *stop)
{
	struct ctl_ct_cli o;
	char msg[256];

	if (ctl_ct_cli_parse(argc, argv, &o, msg, sizeof(msg))) {
		fprintf(err, CTL_CLI_PREFIX "%s\n", msg);
		fprintf(err, "Try `conntrack -h' or 'conntrack --help' for more information.\n");
		return 2;
	}
	return ctl_ct_cli_run(&o, out, err, stop);
}
