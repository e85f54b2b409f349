// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct`: which listed entries are shown and how (ct_cli_int.h).
 *
 * The box filters by what the protocol has attributes for (CTL_A_FILTER: tuple parts, mark,
 * zone, status); the rest is checked here, as conntrack checks it in userspace: --state, the NAT
 * filters -n -g -j, and address masks (--mask-src, -s ADDR/LEN).
 *
 * Output types, as conntrack 1.4.7 prints them:
 *   default    tcp      6 299 ESTABLISHED src=... dst=... sport=... dport=... src=... [ASSURED]
 *              mark=0 use=1                 (-o extended: "ipv4     2 " first; -o id: " id=N")
 *   -o save    -A -t 299 -u SEEN_REPLY,ASSURED -s A -d B -r C -q D -p tcp --sport 1 --dport 2
 *              --reply-port-src 2 --reply-port-dst 1 --state ESTABLISHED
 *              (-g/-n instead of -r/-q for a NAT-ed side; -D/-U first for deletes and updates)
 *   -o xml     <flow><meta direction="original"><layer3 ...><src/><dst/></layer3><layer4 ...>
 *              </layer4></meta><meta direction="reply">...</meta><meta direction="independent">
 *              <state/><timeout/><mark/><zone/><use/><id/><assured/><unreplied/></meta></flow>
 *
 * An entry with a timestamp (the box's `timestamp` setting) shows " delta-time=S" after its
 * mark and zone: seconds since it was confirmed (until it left, for a destroy event); -o
 * ktimestamp adds " [start=DATE]" and, once it left, " [stop=DATE]" (the box's clock as a date).
 * -o labels: " labels=NAME,NAME" last, the names connlabel.conf gives the entry's bits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "ctl/ct_cli_int.h"

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
	uint8_t kind = ctl_cli_proto_kind(c->orig.l4proto);
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

/* a and b equal under mask m (16 bytes; an IPv4 address and its mask use the first 4). */
static bool masked_equal(const union pt_addr *a, const union pt_addr *b, const union pt_addr *m)
{
	for (int i = 0; i < 4; i++)
		if ((a->w[i] ^ b->w[i]) & m->w[i])
			return false;
	return true;
}

int ctl_cli_labelmap_load(struct ctl_cli_labelmap *m)
{
	const char *path = getenv("PKTTABLES_CONNLABEL_CONF");
	char line[256];
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (!(f = fopen(path && *path ? path : "/etc/xtables/connlabel.conf", "r")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		unsigned bit;

		/* "BIT NAME", # comments; the first name a bit gets is its name */
		if (sscanf(line, "%u %31s", &bit, name) == 2 && bit < 128 && name[0] != '#' &&
		    !m->name[bit][0])
			snprintf(m->name[bit], sizeof(m->name[bit]), "%s", name);
	}
	fclose(f);
	return 0;
}

bool ctl_cli_passes(const struct ctl_ct_cli *o, const struct ctl_ct *c)
{
	bool s, d;

	for (int i = 0; i < 4; i++)
		if (o->label_want[i] && (!(c->have & CTL_C_LABELS) ||
					 (c->labels[i] & o->label_want[i]) != o->label_want[i]))
			return false;
	if ((o->opts & OB(O_STATE)) && o->cmd != CTL_CLI_UPDATE &&
	    !((c->have & CTL_C_PROTOINFO) && c->proto_state == o->state))
		return false;
	if ((o->mask.have & (CTL_T_SRC | CTL_T_DST)) && !o->expect) {
		if (c->orig.family != o->mask.t.family)
			return false;
		if ((o->mask.have & CTL_T_SRC) &&
		    !masked_equal(&c->orig.src, &o->orig.t.src, &o->mask.t.src))
			return false;
		if ((o->mask.have & CTL_T_DST) &&
		    !masked_equal(&c->orig.dst, &o->orig.t.dst, &o->mask.t.dst))
			return false;
	}
	if (o->opts & OB(O_ANY_NAT))
		return nat_passes(c, &o->snat, true) || nat_passes(c, &o->snat, false);
	s = !(o->opts & OB(O_SRC_NAT)) || nat_passes(c, &o->snat, true);
	d = !(o->opts & OB(O_DST_NAT)) || nat_passes(c, &o->dnat, false);
	return s && d;
}

/* ---- -o save ----------------------------------------------------------------------------- */

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);              \
		if (n_ > 0)                                                                        \
			off += (size_t)n_;                                                         \
	} while (0)

/* The status bits conntrack can set, in bit order, as it prints them. */
static const struct {
	uint32_t bit;
	const char *name;
} save_status[] = {
    {1u << 0, "EXPECTED"},
    {1u << 1, "SEEN_REPLY"},
    {1u << 2, "ASSURED"},
    {1u << 10, "FIXED_TIMEOUT"},
};

static size_t save_line(const struct ctl_ct *c, const char *cmd, char *buf, size_t len)
{
	const struct ct_tuple *o = &c->orig, *r = &c->reply;
	uint8_t kind = ctl_cli_proto_kind(o->l4proto);
	const char *pname = ctl_cli_proto_name(o->l4proto);
	bool dnat = (c->status & CTL_IPS_DST_NAT_DONE) && memcmp(&r->src, &o->dst, sizeof(r->src));
	bool snat = (c->status & CTL_IPS_SRC_NAT_DONE) && memcmp(&r->dst, &o->src, sizeof(r->dst));
	char a[4][64];
	size_t off = 0;
	unsigned n = 0;

	if (cmd)
		OUT("%s ", cmd);
	OUT("-t %u -u ", c->timeout);
	for (size_t i = 0; i < NITEMS(save_status); i++)
		if (c->status & save_status[i].bit)
			OUT("%s%s", n++ ? "," : "", save_status[i].name);
	if (!n)
		OUT("UNSET");
	if (c->zone)
		OUT(" -w %u", c->zone);
	pt_addr_str(o->family, &o->src, a[0], sizeof(a[0]));
	pt_addr_str(o->family, &o->dst, a[1], sizeof(a[1]));
	pt_addr_str(r->family, &r->src, a[2], sizeof(a[2]));
	pt_addr_str(r->family, &r->dst, a[3], sizeof(a[3]));
	OUT(" -s %s -d %s %s %s %s %s", a[0], a[1], dnat ? "-g" : "-r", a[2], snat ? "-n" : "-q",
	    a[3]);
	if (pname)
		OUT(" -p %s", pname);
	else
		OUT(" -p %u", o->l4proto);
	if (kind == P_PORTS || kind == P_TCP)
		OUT(" --sport %u --dport %u --reply-port-src %u --reply-port-dst %u", o->s.port,
		    o->d.port, r->s.port, r->d.port);
	if (kind == P_TCP && (c->have & CTL_C_PROTOINFO))
		OUT(" --state %s", ctl_cli_tcp_state_name(c->proto_state));
	if (ICMPISH(kind)) {
		const char *v6 = kind == P_ICMP6 ? "v6" : "";

		OUT(" --icmp%s-type %u --icmp%s-code %u --icmp%s-id %u", v6, o->d.icmp.type, v6,
		    o->d.icmp.code, v6, o->s.icmp_id);
	}
	return off;
}

/* ---- -o xml ------------------------------------------------------------------------------ */

static uint64_t tstamp_delta(const struct ctl_ct *c);

static size_t xml_dir(const struct ctl_ct *c, int dir, char *buf, size_t len)
{
	const struct ct_tuple *t = dir ? &c->reply : &c->orig;
	uint8_t kind = ctl_cli_proto_kind(t->l4proto);
	const char *pname = ctl_cli_proto_name(t->l4proto);
	bool v6 = t->family == AF_INET6;
	char s[64], d[64];
	size_t off = 0;

	pt_addr_str(t->family, &t->src, s, sizeof(s));
	pt_addr_str(t->family, &t->dst, d, sizeof(d));
	OUT("<meta direction=\"%s\"><layer3 protonum=\"%u\" protoname=\"%s\"><src>%s</src>"
	    "<dst>%s</dst></layer3><layer4 protonum=\"%u\" protoname=\"%s\">",
	    dir ? "reply" : "original", t->family, v6 ? "ipv6" : "ipv4", s, d, t->l4proto,
	    pname ? pname : "unknown");
	if (kind == P_PORTS || kind == P_TCP)
		OUT("<sport>%u</sport><dport>%u</dport>", t->s.port, t->d.port);
	OUT("</layer4>");
	if (c->have & (dir ? CTL_C_COUNTERS_REPLY : CTL_C_COUNTERS_ORIG))
		OUT("<counters><packets>%llu</packets><bytes>%llu</bytes></counters>",
		    (unsigned long long)c->packets[dir], (unsigned long long)c->bytes[dir]);
	OUT("</meta>");
	return off;
}

/* The names of the entry's labels, joined by sep, each between pre and post. */
static size_t label_names(const struct ctl_ct *c, const struct ctl_cli_labelmap *m, const char *pre,
			  const char *post, const char *sep, char *buf, size_t len)
{
	size_t off = 0;
	unsigned n = 0;

	for (unsigned b = 0; m && b < 128; b++)
		if ((c->labels[b / 32] >> (b % 32) & 1) && m->name[b][0])
			OUT("%s%s%s%s", n++ ? sep : "", pre, m->name[b], post);
	return off;
}

static size_t xml_flow(const struct ctl_ct *c, unsigned fmt, const struct ctl_cli_labelmap *names,
		       char *buf, size_t len)
{
	size_t off = 0;

	OUT("<flow>");
	off += xml_dir(c, 0, buf + off, off < len ? len - off : 0);
	off += xml_dir(c, 1, buf + off, off < len ? len - off : 0);
	OUT("<meta direction=\"independent\">");
	if ((c->have & CTL_C_PROTOINFO) && ctl_cli_proto_kind(c->orig.l4proto) == P_TCP)
		OUT("<state>%s</state>", ctl_cli_tcp_state_name(c->proto_state));
	OUT("<timeout>%u</timeout>", c->timeout);
	if (c->have & CTL_C_MARK)
		OUT("<mark>%u</mark>", c->mark);
	if (c->zone)
		OUT("<zone>%u</zone>", c->zone);
	if ((fmt & CTL_CLI_FMT_LABELS) && (c->have & CTL_C_LABELS)) {
		OUT("<labels>");
		off += label_names(c, names, "<label>", "</label>", "", buf + off,
				   off < len ? len - off : 0);
		OUT("</labels>");
	}
	if (c->have & CTL_C_USE)
		OUT("<use>%u</use>", c->use);
	if (c->have & CTL_C_ID)
		OUT("<id>%u</id>", c->id);
	if (c->status & CT_S_ASSURED)
		OUT("<assured/>");
	if (!(c->status & CT_S_SEEN_REPLY))
		OUT("<unreplied/>");
	if ((c->have & CTL_C_TSTAMP) && (fmt & CTL_CLI_FMT_KTIMESTAMP)) {
		OUT("<timestamp><start>%llu</start>", (unsigned long long)c->ts_start);
		if (c->ts_stop)
			OUT("<stop>%llu</stop>", (unsigned long long)c->ts_stop);
		OUT("</timestamp>");
	}
	if (c->have & CTL_C_TSTAMP)
		OUT("<deltatime>%llu</deltatime>", (unsigned long long)tstamp_delta(c));
	OUT("</meta></flow>");
	return off;
}

/* ---- timestamps -------------------------------------------------------------------------- */

static uint64_t tstamp_delta(const struct ctl_ct *c)
{
	uint64_t end = c->ts_stop ? c->ts_stop : c->ts_now;

	return end > c->ts_start ? (end - c->ts_start) / 1000000000ull : 0;
}

static size_t tstamp_date(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!len || !localtime_r(&s, &tm))
		return 0;
	return strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm);
}

/* " delta-time=S[ [start=DATE][ [stop=DATE]]" into the line where conntrack prints it: before
 * " helper=", " use=" or " id=" (events have no use=), else at its end. */
static size_t tstamp_insert(const struct ctl_ct *c, unsigned fmt, char *buf, size_t len, size_t off)
{
	char ts[160], d[64];
	char *at = strstr(buf, " helper=");
	size_t n, pos;

	n = (size_t)snprintf(ts, sizeof(ts), " delta-time=%llu",
			     (unsigned long long)tstamp_delta(c));
	if (fmt & CTL_CLI_FMT_KTIMESTAMP) {
		tstamp_date(c->ts_start, d, sizeof(d));
		n += (size_t)snprintf(ts + n, sizeof(ts) - n, " [start=%s]", d);
		if (c->ts_stop) {
			tstamp_date(c->ts_stop, d, sizeof(d));
			n += (size_t)snprintf(ts + n, sizeof(ts) - n, " [stop=%s]", d);
		}
	}
	if (!at)
		at = strstr(buf, " use=");
	if (!at)
		at = strstr(buf, " id=");
	pos = at ? (size_t)(at - buf) : off;
	if (off + n >= len || n >= sizeof(ts))
		return off;
	memmove(buf + pos + n, buf + pos, off - pos + 1);
	memcpy(buf + pos, ts, n);
	return off + n;
}

int ctl_cli_format(const struct ctl_ct *c, unsigned fmt, const char *save_cmd,
		   const struct ctl_cli_labelmap *names, char *buf, size_t len)
{
	int n;

	if (len)
		buf[0] = '\0';
	if (fmt & CTL_CLI_FMT_SAVE)
		return (int)save_line(c, save_cmd, buf, len);
	if (fmt & CTL_CLI_FMT_XML)
		return (int)xml_flow(c, fmt, names, buf, len);
	n = ctl_ct_format_flags(c, fmt & (CTL_FMT_EXTENDED | CTL_FMT_ID | CTL_FMT_EVENT), buf, len);
	if (n > 0 && (c->have & CTL_C_TSTAMP) && (size_t)n < len)
		n = (int)tstamp_insert(c, fmt, buf, len, (size_t)n);
	if (n > 0 && (size_t)n < len && (fmt & CTL_CLI_FMT_LABELS) && (c->have & CTL_C_LABELS) &&
	    label_names(c, names, "", "", ",", NULL, 0)) {
		size_t off = (size_t)n;

		OUT(" labels=");
		off += label_names(c, names, "", "", ",", buf + off, off < len ? len - off : 0);
		n = (int)off;
	}
	return n;
}
