// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct` options (ct_cli_int.h): argv into struct ctl_ct_cli, as conntrack 1.4.7 reads it.
 *
 * Options are a table as conntrack's: the name its messages use, the long and short
 * spellings, an argument or not, and the protocol family they belong to (a port option is
 * unknown until -p names a protocol with ports, as in conntrack). Words that are no option
 * are ignored as conntrack's getopt leaves them (`conntrack -L -w 10-s 1.1.1.1` lists zone 10),
 * but for a table name right after a command.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "ctl/ct_cli_int.h"

#define OPTIONAL 2

struct cli_opt {
	const char *name; /* as conntrack's messages name it */
	const char *longs[3];
	char shrt;
	uint8_t arg;   /* 0 none, 1 required, OPTIONAL: -n[IP], -n IP, --src-nat[=IP] */
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
	[O_LABEL]      = { "label", { "label" }, 'l', true, P_ANY },
	[O_LABEL_ADD]  = { "label-add", { "label-add" }, 0, true, P_ANY },
	[O_LABEL_DEL]  = { "label-del", { "label-del" }, 0, OPTIONAL, P_ANY },
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
#define MASKS	 (OB(O_MASK_SRC) | OB(O_MASK_DST))
#define ZONES	 (OB(O_ZONE) | OB(O_ORIG_ZONE) | OB(O_REPLY_ZONE))
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
		       OB(O_OUTPUT) | OB(O_ZERO) | NAT_OPTS | MASKS | OB(O_LABEL);
	case CTL_CLI_DELETE:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_OUTPUT) | NAT_OPTS | MASKS | OB(O_LABEL);
	case CTL_CLI_EVENT:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_OUTPUT) | OB(O_EVENT_MASK) | OB(O_BUFFER) | NAT_OPTS | MASKS |
		       OB(O_LABEL);
	case CTL_CLI_GET:
		return ALWAYS | TUPLE_OPTS | OB(O_OUTPUT);
	case CTL_CLI_CREATE:
	case CTL_CLI_ADD:
		return ALWAYS | TUPLE_OPTS | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_TIMEOUT) | OB(O_OUTPUT) | OB(O_HELPER) | OB(O_SRC_NAT) | OB(O_DST_NAT) |
		       OB(O_LABEL_ADD);
	case CTL_CLI_UPDATE: /* no zone: conntrack 1.4.7 refuses -w with -U */
		return ALWAYS | (TUPLE_OPTS & ~ZONES) | OB(O_STATUS) | OB(O_MARK) | OB(O_STATE) |
		       OB(O_TIMEOUT) | OB(O_OUTPUT) | NAT_OPTS | MASKS | OB(O_LABEL) |
		       OB(O_LABEL_ADD) | OB(O_LABEL_DEL);
	case CTL_CLI_FLUSH:
		return ALWAYS | OB(O_FAMILY);
	default:
		return ALWAYS;
	}
}

/* ---- values ------------------------------------------------------------------------------ */

/* The protocols conntrack has options for; others by /etc/protocols' names or a number. */
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

/* conntrack's names, in the kernel's numbering; the kernel's 9 is SYN_SENT2, which conntrack
 * calls LISTEN when it sends it (and the kernel prints back as SYN_SENT2). */
static const char *const tcp_states[] = {
    "NONE",	  "SYN_SENT", "SYN_RECV",  "ESTABLISHED", "FIN_WAIT",
    "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE",	  "LISTEN",
};

const char *ctl_cli_tcp_state_name(uint8_t state)
{
	return state == 9 ? "SYN_SENT2" : state < NITEMS(tcp_states) ? tcp_states[state] : "NONE";
}

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
    {"save", CTL_CLI_FMT_SAVE},
    {"xml", CTL_CLI_FMT_XML},
    {"timestamp", CTL_CLI_FMT_TIMESTAMP},
    {"ktimestamp", CTL_CLI_FMT_KTIMESTAMP},
    {"labels", CTL_CLI_FMT_LABELS},
    /* what it adds is never there in a box: no event is caused by a netlink port */
    {"userspace", CTL_CLI_FMT_USERSPACE},
};

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return 2;
}

/* conntrack's exit_error(OTHER_PROBLEM, ...) while parsing: the message alone, status 1. */
static int other(char *err, size_t len, const char *msg)
{
	snprintf(err, len, "%s", msg);
	return 1;
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

/*
 * An address into a tuple part; its family must agree with what was given so far. `cidr`:
 * ADDR/LEN is taken, its prefix going to o->mask as --mask-src/--mask-dst would; else `name`
 * says the option that refuses it (NULL: then it is just a bad address).
 */
static int set_addr(struct ctl_ct_cli *o, const char *s, struct ctl_tuple *t, bool src, char *err,
		    size_t len, bool cidr, const char *name)
{
	const char *slash = strchr(s, '/');
	union pt_addr a;
	char buf[64];
	unsigned long plen = 0;
	int f;

	if (slash && !cidr && name)
		return bad(err, len, "CIDR notation unavailable for `--%s'", name);
	snprintf(buf, sizeof(buf), "%.*s", slash && cidr ? (int)(slash - s) : (int)strlen(s), s);
	if (!(f = pt_addr_parse(buf, &a)))
		return bad(err, len, "Bad IP address `%s'", s);
	if (slash && cidr) {
		if (!parse_ulong(slash + 1, f == AF_INET ? 32 : 128, &plen))
			return bad(err, len, "Invalid netmask");
		pt_mask_from_len(f, (int)plen, src ? &o->mask.t.src : &o->mask.t.dst);
		o->mask.t.family = (uint8_t)f;
		o->mask.have |= src ? CTL_T_SRC : CTL_T_DST;
		o->opts |= OB(src ? O_MASK_SRC : O_MASK_DST);
	}
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

/* -n / -g / -j's IP[:PORT] or [IPV6]:PORT (an IPv6 address whole, else split at the last
 * colon; brackets only with a port). */
static int set_nat(struct ctl_cli_nat *n, const char *s, char *err, size_t len)
{
	char addr[64];
	const char *colon;
	unsigned long port;

	n->family = (uint8_t)pt_addr_parse(s, &n->addr);
	if (n->family)
		return 0;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':' || (size_t)(close - s) >= sizeof(addr))
			return bad(err, len, "Invalid IP address `%s'", s);
		snprintf(addr, sizeof(addr), "%.*s", (int)(close - s - 1), s + 1);
		if (pt_addr_parse(addr, &n->addr) != AF_INET6)
			return bad(err, len, "Invalid IP address `%s'", addr);
		n->family = AF_INET6;
		colon = close + 1;
		goto port;
	}
	if (!(colon = strrchr(s, ':')) || (size_t)(colon - s) >= sizeof(addr))
		return bad(err, len, "Invalid IP address `%s'", s);
	snprintf(addr, sizeof(addr), "%.*s", (int)(colon - s), s);
	if (!(n->family = (uint8_t)pt_addr_parse(addr, &n->addr)))
		return bad(err, len, "Invalid IP address `%s'", addr);
port:
	if (!colon[1])
		return bad(err, len, "No port specified after `:'");
	if (!parse_ulong(colon + 1, 65535, &port) || strchr("+-", colon[1]))
		return bad(err, len, "Invalid port `%s'", colon + 1);
	n->port = (uint16_t)port;
	n->has_port = true;
	return 0;
}

const char *ctl_cli_proto_name(uint8_t num)
{
	for (size_t i = 0; i < NITEMS(protos); i++)
		if (protos[i].num == num)
			return protos[i].name;
	return NULL;
}

uint8_t ctl_cli_proto_kind(uint8_t num)
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

/* NAME[,NAME...] of connlabel.conf into bits (conntrack's names only, no numbers). */
static int labels_of(const char *v, uint32_t bits[4], char *err, size_t len)
{
	struct ctl_cli_labelmap m;
	char buf[512], *save, *w;

	ctl_cli_labelmap_load(&m);
	snprintf(buf, sizeof(buf), "%s", v);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned b;

		for (b = 0; b < 128 && strcmp(m.name[b], w); b++)
			;
		if (b == 128)
			return bad(err, len, "unknown label '%s'", w);
		bits[b / 32] |= 1u << (b % 32);
	}
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
		return set_addr(o, v, &o->orig, true, err, len, true, NULL);
	case O_DST:
		return set_addr(o, v, &o->orig, false, err, len, true, NULL);
	case O_REPLY_SRC:
		return set_addr(o, v, &o->reply, true, err, len, false, "reply-src");
	case O_REPLY_DST:
		return set_addr(o, v, &o->reply, false, err, len, false, "reply-dst");
	case O_TUPLE_SRC:
		return set_addr(o, v, &o->tuple, true, err, len, false, NULL);
	case O_TUPLE_DST:
		return set_addr(o, v, &o->tuple, false, err, len, false, NULL);
	case O_MASK_SRC:
		return set_addr(o, v, &o->mask, true, err, len, false, NULL);
	case O_MASK_DST:
		return set_addr(o, v, &o->mask, false, err, len, false, NULL);
	case O_PROTO: {
		struct protoent *pe;

		/* conntrack's order: its own protocols, /etc/protocols' names, a number */
		for (i = 0; i < NITEMS(protos) && strcasecmp(v, protos[i].name); i++)
			;
		if (i < NITEMS(protos)) {
			n = protos[i].num;
			o->l4kind = protos[i].kind;
		} else if ((pe = getprotobyname(v))) {
			n = (unsigned long)pe->p_proto & 0xff;
			o->l4kind = P_ANY;
		} else if (parse_ulong(v, 255, &n) && *v != '+') {
			o->l4kind = ctl_cli_proto_kind((uint8_t)n);
		} else {
			return bad(err, len, "`%s' unsupported protocol", v);
		}
		o->orig.t.l4proto = o->reply.t.l4proto = (uint8_t)n;
		o->tuple.t.l4proto = o->mask.t.l4proto = (uint8_t)n;
		o->orig.have |= CTL_T_PROTO;
		return 0;
	}
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
	case O_REPLY_ZONE: {
		char *end;

		/* conntrack reads the number the word starts with ("-w 10-s" is zone 10) */
		errno = 0;
		n = strtoul(v, &end, 0);
		if (end == v || errno || n > 65535)
			return bad(err, len, "Bad parameter `%s'", v);
		o->zone = (uint16_t)n;
		return 0;
	}
	case O_OUTPUT:
		if (!parse_bits(v, output_bits, NITEMS(output_bits), &bits, badname,
				sizeof(badname)))
			return bad(err, len, "Bad parameter `%s'", badname);
		o->fmt |= bits;
		if ((o->fmt & CTL_CLI_FMT_SAVE) &&
		    (o->fmt & ~(unsigned)CTL_CLI_FMT_SAVE & ~(unsigned)CTL_CLI_FMT_USERSPACE))
			return other(
			    err, len,
			    "cannot combine save output with any other output type, use -o "
			    "save only");
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
	case O_LABEL:
		return labels_of(v, o->label_want, err, len);
	case O_LABEL_ADD:
		return labels_of(v, o->label_add, err, len);
	case O_LABEL_DEL:
		if (!v) {
			memset(o->label_del, 0xff, sizeof(o->label_del)); /* every label */
			return 0;
		}
		return labels_of(v, o->label_del, err, len);
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
		/* as conntrack: by exact name, SYN_SENT2 (what -o save prints) as LISTEN */
		for (i = 0; i < NITEMS(tcp_states) && strcmp(v, tcp_states[i]); i++)
			;
		if (i == NITEMS(tcp_states) && strcmp(v, "SYN_SENT2"))
			return bad(err, len, "unknown TCP state `%s'", v);
		o->state = (uint8_t)(i == NITEMS(tcp_states) ? 9 : i);
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

/*
 * -I / -A of an entry: an original tuple (-s and -d, its ports) or only a reply one (-r and -q,
 * its ports), from which the other is made; NAT addresses of the entry's family.
 */
static int check_create(struct ctl_ct_cli *o, char *err, size_t len)
{
	uint8_t kind = o->l4kind;
	uint32_t ports = CTL_T_SPORT | CTL_T_DPORT;
	bool orig = o->orig.have & (CTL_T_SRC | CTL_T_DST);
	bool reply = o->reply.have & (CTL_T_SRC | CTL_T_DST);
	const struct ctl_cli_nat *nat[2] = {&o->snat, &o->dnat};

	if (orig || !reply) {
		if ((o->orig.have & (CTL_T_SRC | CTL_T_DST)) != (CTL_T_SRC | CTL_T_DST))
			return bad(err, len, "you have to specify `--src' and `--dst'");
	} else if ((o->reply.have & (CTL_T_SRC | CTL_T_DST)) != (CTL_T_SRC | CTL_T_DST)) {
		return bad(err, len, "you have to specify `--reply-src' and `--reply-dst'");
	}
	if (!(o->opts & OB(O_PROTO)))
		return bad(err, len, "You need to supply the `--protonum' option for this command");
	if (!(o->opts & OB(O_TIMEOUT)))
		return bad(err, len, "You need to supply the `--timeout' option for this command");
	if (kind == P_TCP && !(o->opts & OB(O_STATE)))
		return bad(err, len, "You need to supply the `--state' option for this command");
	if (kind == P_PORTS || kind == P_TCP) {
		if (!orig && (o->reply.have & ports) && (o->reply.have & ports) != ports)
			return bad(err, len,
				   "you have to specify `--reply-src-port' and `--reply-dst-port'");
		if ((orig || !(o->reply.have & ports)) && (o->orig.have & ports) != ports)
			return bad(err, len, "you have to specify `--sport' and `--dport'");
	}
	for (int i = 0; i < 2; i++)
		if ((o->opts & OB(i ? O_DST_NAT : O_SRC_NAT)) &&
		    (!nat[i]->family || nat[i]->family != o->family))
			return bad(err, len, "mismatched address family");
	if (!orig) {
		o->orig.t.family = o->reply.t.family;
		o->orig.have |= CTL_T_SRC | CTL_T_DST | (o->reply.have & ports);
		o->from_reply = true; /* the original is the reply's inverse (ct_cli.c) */
	}
	return 0;
}

/* What the commands need, after all options were read. */
static int check(struct ctl_ct_cli *o, char *err, size_t len)
{
	uint8_t kind = o->l4kind;
	uint64_t ok = allowed(o->cmd, o->expect);

	for (int i = 0; i < O_NUM; i++)
		if ((o->opts & OB(i)) && !(ok & OB(i)))
			return bad(err, len, "Illegal option `--%s' with this command",
				   opts[i].name);
	if ((o->opts & OB(O_LABEL_ADD)) && (o->opts & OB(O_LABEL_DEL)))
		return other(err, len, "cannot use --label-add and --label-del at the same time");
	if ((o->opts & OB(O_ANY_NAT)) && (o->opts & (OB(O_SRC_NAT) | OB(O_DST_NAT))))
		return bad(err, len, "cannot specify `--src-nat' or `--dst-nat' with `--any-nat'");
	if (!o->expect && (o->opts & OB(O_MASK_SRC)) && !(o->orig.have & CTL_T_SRC))
		return bad(err, len, "Can't use --mask-src without --src");
	if (!o->expect && (o->opts & OB(O_MASK_DST)) && !(o->orig.have & CTL_T_DST))
		return bad(err, len, "Can't use --mask-dst without --dst");
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
	if ((o->cmd == CTL_CLI_CREATE || o->cmd == CTL_CLI_ADD) && !o->expect) {
		int e = check_create(o, err, len);

		if (e)
			return e;
	}
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
	/* -G by the reply tuple alone (-r -q and their ports): conntrack 1.4.7 sends it and the
	 * kernel refuses it (ctl_cli.c answers as it does) */
	if (o->cmd == CTL_CLI_GET && !o->expect && !(o->orig.have & (CTL_T_SRC | CTL_T_DST)) &&
	    (o->reply.have & (CTL_T_SRC | CTL_T_DST)) == (CTL_T_SRC | CTL_T_DST) &&
	    (o->opts & OB(O_PROTO)) &&
	    ((kind != P_PORTS && kind != P_TCP) ||
	     (o->reply.have & (CTL_T_SPORT | CTL_T_DPORT)) == (CTL_T_SPORT | CTL_T_DPORT))) {
		o->get_by_reply = true;
		return 0;
	}
	if ((o->cmd == CTL_CLI_GET || (o->expect && o->cmd != CTL_CLI_LIST)) &&
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
					return bad(err, len, "unknown type `%s'", argv[i + 1]);
				i++;
			}
			continue;
		}
		if (a[0] != '-' || !a[1])
			continue; /* not an option: conntrack's getopt leaves it, unread */
		if ((id = lookup(a, o->l4kind, &v)) < 0)
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
