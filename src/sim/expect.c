// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Expectations: each `expect` consumes the oldest recorded outcome of its kind in a box and
 * compares it with what the script says. A packet pattern is the text form of pkt_spec_parse
 * with only the fields given compared:
 *
 *   pattern:  tcp  10.0.0.2:*  >  192.0.2.1:80  rst,ack  ttl=64   mark=0x1
 *             |    |              |             |        |        +- packet metadata
 *             |    |              |             |        +---------- KEY=VALUE: same value
 *             |    |              |             +------------------- word: present as is
 *             +----+--------------+--- by position: protocol, source, ">", destination;
 *                                      `*` anything, ADDR/PLEN a prefix, no port = any port
 *
 * The packet's side is pkt_spec_format's canonical text, so both use one vocabulary.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_plugin.h"
#include "pkt/build.h"
#include "plugins/recent_plugin.h"
#include "sim/internal.h"

#define MAX_TOK 48

struct toks {
	int n;
	char *t[MAX_TOK];
	char buf[2048];
};

/* Split on blanks, keeping "quoted parts" (payload="a b") inside one token. */
static void tokenize(const char *s, struct toks *t)
{
	char *o = t->buf, *end = t->buf + sizeof(t->buf) - 1;

	t->n = 0;
	while (*s && t->n < MAX_TOK) {
		bool q = false;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		t->t[t->n++] = o;
		while (*s && (q || (*s != ' ' && *s != '\t')) && o < end) {
			if (*s == '"')
				q = !q;
			*o++ = *s++;
		}
		*o++ = '\0';
		if (o >= end)
			break;
	}
}

/* "10.0.0.2:80", "[2001:db8::1]:80", "2001:db8::1", "10.0.0.0/8:*" -> addr, port. */
static int split_endpoint(const char *tok, char *addr, size_t alen, char *port, size_t plen)
{
	const char *colon;

	port[0] = '\0';
	if (tok[0] == '[') {
		const char *close = strchr(tok, ']');

		if (!close)
			return -1;
		snprintf(addr, alen, "%.*s", (int)(close - tok - 1), tok + 1);
		if (close[1] == ':')
			snprintf(port, plen, "%s", close + 2);
		return 0;
	}
	colon = strchr(tok, ':');
	if (colon && !strchr(colon + 1, ':')) { /* exactly one colon: IPv4 with a port */
		snprintf(addr, alen, "%.*s", (int)(colon - tok), tok);
		snprintf(port, plen, "%s", colon + 1);
		return 0;
	}
	snprintf(addr, alen, "%s", tok);
	return 0;
}

static bool endpoint_matches(const char *want, const char *have)
{
	char wa[80], wp[16], ha[80], hp[16];
	union pt_addr a, b, mask;
	int fa, fb, plen = -1;
	char *slash;

	if (!strcmp(want, "*"))
		return true;
	if (split_endpoint(want, wa, sizeof(wa), wp, sizeof(wp)) < 0 ||
	    split_endpoint(have, ha, sizeof(ha), hp, sizeof(hp)) < 0)
		return false;
	if (wp[0] && strcmp(wp, "*") && strcmp(wp, hp))
		return false;
	if (!strcmp(wa, "*"))
		return true;
	slash = strchr(wa, '/');
	if (slash) {
		*slash = '\0';
		plen = atoi(slash + 1);
	}
	fa = pt_addr_parse(wa, &a);
	fb = pt_addr_parse(ha, &b);
	if (!fa || fa != fb)
		return !strcmp(wa, ha);
	if (plen < 0)
		return pt_addr_eq(&a, &b);
	if (pt_mask_from_len(fa, plen, &mask) < 0)
		return false;
	return pt_addr_match(&b, &a, &mask);
}

static bool value_eq(const char *a, const char *b)
{
	char *ea, *eb;
	unsigned long long x, y;

	if (!strcmp(a, b))
		return true;
	errno = 0;
	x = strtoull(a, &ea, 0);
	y = strtoull(b, &eb, 0);
	return !*ea && !*eb && ea != a && eb != b && x == y;
}

/*
 * The transport payload as one word of a script line: printable bytes as they are, \r \n \t
 * \\ and \xHH for the others and for blank, '"' and '#' (which a script line would take
 * apart), e.g. payload=PORT\x20203,0,113,1,19,137\r\n
 */
static void payload_text(const struct pkt *p, char *val, size_t len)
{
	const struct pkt_info *in = &p->info;
	uint32_t end = in->l3off + in->l3len, n = 0;
	uint8_t c;

	for (uint32_t off = in->payload_off; in->has_l4 && off < end && n + 5 < len; off++) {
		if (pkt_copy_out(p, off, &c, 1))
			break;
		if (c == '\r' || c == '\n' || c == '\t' || c == '\\') {
			val[n++] = '\\';
			val[n++] = c == '\r' ? 'r' : c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		} else if (c <= 0x20 || c > 0x7e || c == '"' || c == '#') {
			n += (uint32_t)snprintf(val + n, len - n, "\\x%02x", c);
		} else {
			val[n++] = (char)c;
		}
	}
	val[n] = '\0';
}

/* Are the IPv4 header checksum and the transport checksum right? */
static bool csum_ok(const struct pkt *p)
{
	const struct pkt_info *in = &p->info;
	uint8_t hb[60];

	if (in->family == AF_INET) {
		const uint8_t *h = pkt_header(p, in->l3off, in->ihl, hb);

		if (!h || pkt_csum_fold(pkt_csum_bytes(h, in->ihl, 0)))
			return false;
	}
	return !in->has_l4 || in->is_fragment || pkt_l4_csum_ok(p);
}

/* KEY=VALUE the packet's text does not show: metadata, and IP fields at their defaults. */
static bool meta_value(const struct pkt *p, const char *key, char *val, size_t len)
{
	if (!strcmp(key, "payload"))
		payload_text(p, val, len);
	else if (!strcmp(key, "csum"))
		snprintf(val, len, "%s", csum_ok(p) ? "ok" : "bad");
	else if (!strcmp(key, "mark"))
		snprintf(val, len, "0x%" PRIx32, p->mark);
	else if (!strcmp(key, "prio") || !strcmp(key, "priority"))
		snprintf(val, len, "0x%" PRIx32, p->priority);
	else if (!strcmp(key, "ttl") || !strcmp(key, "hlim"))
		snprintf(val, len, "%u", p->info.ttl);
	else if (!strcmp(key, "tos") || !strcmp(key, "tc"))
		snprintf(val, len, "0x%x", p->info.tos);
	else if (!strcmp(key, "dscp"))
		snprintf(val, len, "0x%x", p->info.tos >> 2);
	else if (!strcmp(key, "type") && p->info.has_l4)
		snprintf(val, len, "%u", p->info.icmp_type);
	else if (!strcmp(key, "code") && p->info.has_l4)
		snprintf(val, len, "%u", p->info.icmp_code);
	else if (!strcmp(key, "iplen"))
		snprintf(val, len, "%u", p->info.l3len);
	else
		return false;
	return true;
}

int sim_pkt_matches(const struct pkt *p, const char *pattern, char *why, size_t whylen)
{
	struct toks *w = malloc(sizeof(*w)), *h = malloc(sizeof(*h));
	char text[1024];
	int rc = 1, i;

	if (!w || !h) {
		free(w);
		free(h);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	sim_pkt_text_full(p, text, sizeof(text));
	tokenize(pattern, w);
	tokenize(text, h);
	/* Positional part: protocol, source, '>', destination. */
	for (i = 0; i < w->n && i < 4; i++) {
		const char *x = w->t[i];
		const char *y = i < h->n ? h->t[i] : "";

		if (i == 0 && strchr(x, '='))
			break; /* only KEY=VALUE tokens */
		if (i == 2) {
			if (strcmp(x, ">")) {
				snprintf(why, whylen, "pattern: '>' expected between addresses");
				rc = -1;
				goto out;
			}
			continue;
		}
		if (i == 0 ? (strcmp(x, "*") && strcmp(x, y)) : !endpoint_matches(x, y)) {
			snprintf(why, whylen, "%s is '%s', expected '%s'",
				 i == 0	  ? "protocol"
				 : i == 1 ? "source"
					  : "destination",
				 y, x);
			rc = 0;
			goto out;
		}
	}
	for (; i < w->n; i++) {
		const char *x = w->t[i], *eq = strchr(x, '=');
		bool found = false;

		if (!strcmp(x, "*"))
			continue;
		for (int k = 4; k < h->n && !found; k++) {
			const char *y = h->t[k];

			if (!eq) {
				found = !strcmp(x, y);
			} else if (!strncmp(x, y, (size_t)(eq - x) + 1)) {
				if (!value_eq(eq + 1, y + (eq - x) + 1)) {
					snprintf(why, whylen, "%s, expected %s", y, x);
					rc = 0;
					goto out;
				}
				found = true;
			}
		}
		if (!found && eq) {
			char key[32], val[1024];

			snprintf(key, sizeof(key), "%.*s", (int)(eq - x), x);
			if (meta_value(p, key, val, sizeof(val))) {
				if (!value_eq(eq + 1, val)) {
					snprintf(why, whylen, "%s=%s, expected %s", key, val, x);
					rc = 0;
					goto out;
				}
				found = true;
			}
		}
		if (!found) {
			snprintf(why, whylen, "no '%s' in it", x);
			rc = 0;
			goto out;
		}
	}
out:
	free(w);
	free(h);
	return rc;
}

/* ---- the command ------------------------------------------------------------------------- */

static void join(int argc, char **argv, int from, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (int i = from; i < argc && n < len; i++) {
		bool sp = strchr(argv[i], ' ') != NULL;

		n += (size_t)snprintf(out + n, len - n, "%s%s%s%s", i > from ? " " : "",
				      sp ? "\"" : "", argv[i], sp ? "\"" : "");
	}
}

/* What is still pending in a box, one line, for failure messages. */
static void pending_summary(struct sim_box *sb, char *out, size_t len)
{
	size_t n = 0;
	char text[512], r[128];
	unsigned shown = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < sb->nout && n < len && shown < 4; i++) {
		const struct sim_outcome *o = &sb->out[i];
		const struct box_iface *ifc;

		switch (o->kind) {
		case SIM_OUT_XMIT:
			ifc = box_iface(sb->box, o->ifindex);
			n += (size_t)snprintf(out + n, len - n, "%s[out %s: %s]", shown ? " " : "",
					      ifc ? ifc->name : "?",
					      sim_pkt_text(o->pkt, text, sizeof(text)));
			break;
		case SIM_OUT_LOCAL:
			n += (size_t)snprintf(out + n, len - n, "%s[local: %s]", shown ? " " : "",
					      sim_pkt_text(o->pkt, text, sizeof(text)));
			break;
		case SIM_OUT_DROP:
			n += (size_t)snprintf(out + n, len - n, "%s[drop %s: %s]", shown ? " " : "",
					      sim_drop_text(&o->why, r, sizeof(r)),
					      o->pkt ? sim_pkt_text(o->pkt, text, sizeof(text))
						     : "");
			break;
		case SIM_OUT_QUEUE:
			n += (size_t)snprintf(out + n, len - n, "%s[queue %u]", shown ? " " : "",
					      o->qnum);
			break;
		default:
			continue;
		}
		shown++;
	}
	if (!shown)
		snprintf(out, len, "nothing happened");
}

static int find_outcome(struct sim_box *sb, enum sim_outcome_kind kind, int ifindex)
{
	for (unsigned i = 0; i < sb->nout; i++)
		if (sb->out[i].kind == kind && (ifindex <= 0 || sb->out[i].ifindex == ifindex))
			return (int)i;
	return -1;
}

/* Does drop reason `have` ("filter:INPUT:3", "policy filter:INPUT", "malformed (ip-trunc)")
 * match the words of `want`? Each given word must equal the reason's word, or be a prefix of
 * it ending at a ':' ("filter:INPUT" for any rule of the chain); parentheses are ignored. */
static bool drop_matches(const char *have, int argc, char **argv, int from)
{
	char buf[160], *save = NULL, *tok;
	int i = from;

	snprintf(buf, sizeof(buf), "%s", have);
	for (char *c = buf; *c; c++)
		if (*c == '(' || *c == ')')
			*c = ' ';
	for (tok = strtok_r(buf, " ", &save); tok && i < argc; tok = strtok_r(NULL, " ", &save)) {
		char want[96];
		size_t n;

		snprintf(want, sizeof(want), "%s", argv[i] + strspn(argv[i], "("));
		for (char *c = want; *c; c++)
			if (*c == '(' || *c == ')')
				*c = ' ';
		n = strlen(want);
		while (n && want[n - 1] == ' ')
			want[--n] = '\0';
		if (strcmp(tok, want) && !(strncmp(tok, want, n) == 0 && tok[n] == ':'))
			return false;
		i++;
	}
	return i >= argc;
}

static int expect_counter(struct sim *s, struct sim_box *sb, int argc, char **argv, bool policy)
{
	int family = AF_INET, table, ci, n = 0;
	const char *args[8];
	const struct rules_ruleset *rs;
	const struct rules_chain *ch;
	uint64_t pkts, bytes;
	bool have_p = false, have_b = false;
	uint64_t wp = 0, wb = 0;
	unsigned rulenum = 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-6"))
			family = AF_INET6;
		else if (!strcmp(argv[i], "-4"))
			family = AF_INET;
		else if (!strncmp(argv[i], "pkts=", 5))
			have_p = true, wp = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "bytes=", 6))
			have_b = true, wb = strtoull(argv[i] + 6, NULL, 0);
		else if (n < 8)
			args[n++] = argv[i];
	}
	if (n != (policy ? 2 : 3) || (!have_p && !have_b))
		return sim_errorf(s, "usage: expect %s TABLE CHAIN%s [pkts=N] [bytes=N] [-6]",
				  policy ? "policy-counter" : "counter", policy ? "" : " RULENUM");
	table = rules_table_by_name(args[0]);
	if (table < 0)
		return sim_errorf(s, "no table '%s'", args[0]);
	rs = box_ruleset(sb->box, family);
	if (!rs || !rs->tables[table].present)
		return sim_failf(s, "%s: no %s table %s", box_name(sb->box),
				 family == AF_INET ? "IPv4" : "IPv6", args[0]);
	ci = rules_chain_find(&rs->tables[table], args[1]);
	if (ci < 0)
		return sim_failf(s, "no chain %s in table %s", args[1], args[0]);
	ch = &rs->tables[table].chains[ci];
	if (policy) {
		if (!ch->builtin)
			return sim_errorf(s, "%s is a user chain: it has no policy", args[1]);
		pkts = ch->pkts;
		bytes = ch->bytes;
	} else {
		char *end;

		rulenum = (unsigned)strtoul(args[2], &end, 10);
		if (*end || rulenum == 0)
			return sim_errorf(s, "bad rule number '%s'", args[2]);
		if (rulenum > ch->nrules)
			return sim_failf(s, "%s:%s has %u rules, no rule %u", args[0], args[1],
					 ch->nrules, rulenum);
		pkts = ch->ctr[rulenum - 1].pkts;
		bytes = ch->ctr[rulenum - 1].bytes;
	}
	if ((have_p && pkts != wp) || (have_b && bytes != wb)) {
		char what[64];

		if (policy)
			snprintf(what, sizeof(what), "policy of %s:%s", args[0], args[1]);
		else
			snprintf(what, sizeof(what), "%s:%s rule %u", args[0], args[1], rulenum);
		return sim_failf(s,
				 "%s: expected%s%.0" PRIu64 "%s%.0" PRIu64 ", have pkts=%" PRIu64
				 " bytes=%" PRIu64,
				 what, have_p ? " pkts=" : "", have_p ? wp : 0,
				 have_b ? " bytes=" : "", have_b ? wb : 0, pkts, bytes);
	}
	return 0;
}

/*
 * expect conntrack off | conntrack count N | conntrack unconfirmed N | conntrack TEXT... |
 * noconntrack TEXT...: against the box's table as `show conntrack` lists it now (one
 * conntrack -L line per entry; every TEXT must be in the same line); `unconfirmed` counts the
 * entries made for packets still in the box (0 between packets).
 */
static int expect_conntrack(struct sim *s, struct sim_box *sb, int argc, char **argv, bool neg)
{
	struct ct_table *t = ct_box_table(sb->box);
	char *buf = NULL, *line, *save = NULL, pattern[1024];
	size_t len = 0;
	unsigned n = 0, want = 0;
	bool count = false, found = false;
	FILE *f;

	if (argc < 3)
		return sim_errorf(s, "usage: expect conntrack off | count N | TEXT [TEXT...] | "
				     "expect noconntrack TEXT [TEXT...]");
	if (!neg && argc == 3 && !strcmp(argv[2], "off"))
		return t ? sim_failf(s, "expected conntrack off in %s, it is on", box_name(sb->box))
			 : 0;
	if (!neg && (!strcmp(argv[2], "count") || !strcmp(argv[2], "unconfirmed"))) {
		char *end = NULL;

		if (argc == 4)
			want = (unsigned)strtoul(argv[3], &end, 10);
		if (argc != 4 || *end)
			return sim_errorf(s, "usage: expect conntrack %s N", argv[2]);
		count = true;
	}
	/* entries made and neither confirmed nor freed yet: 0 between packets, or packets
	 * dropped before confirmation leaked theirs */
	if (count && t && !strcmp(argv[2], "unconfirmed")) {
		unsigned u = ct_box_stats(sb->box)->unconfirmed;

		return u == want ? 0
				 : sim_failf(s,
					     "expected %u unconfirmed conntrack entries, there "
					     "are %u",
					     want, u);
	}
	if (!t && !neg)
		return sim_failf(s, "expected conntrack entries, conntrack is off in %s",
				 box_name(sb->box));
	if (!t)
		return 0;
	f = open_memstream(&buf, &len);
	if (!f)
		return sim_errorf(s, "out of memory");
	n = ct_dump(t, f, box_now(sb->box));
	fclose(f);
	join(argc, argv, 2, pattern, sizeof(pattern));
	for (line = strtok_r(buf, "\n", &save); line && !count && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		bool all = true;

		for (int a = 2; all && a < argc; a++)
			all = strstr(line, argv[a]) != NULL;
		if (all && neg) {
			sim_failf(s, "expected no conntrack entry with %s, got %s", pattern, line);
			free(buf);
			return -1;
		}
		found = all;
	}
	free(buf);
	if (count && n != want)
		return sim_failf(s, "expected %u conntrack entries, there are %u", want, n);
	if (!count && !neg && !found)
		return sim_failf(s, "expected a conntrack entry with %s; %u entries, none has it",
				 pattern, n);
	return 0;
}

/*
 * expect recent NAME count N | recent NAME TEXT... | norecent NAME TEXT...: against list NAME
 * of -m recent as `show recent NAME` prints it (one /proc/net/xt_recent line per address;
 * every TEXT in the same line). An absent list has no lines.
 */
static int expect_recent(struct sim *s, struct sim_box *sb, int argc, char **argv, bool neg)
{
	char *buf = NULL, *line, *save = NULL, pattern[1024];
	size_t len = 0;
	unsigned n = 0, want = 0;
	bool count = argc == 5 && !strcmp(argv[3], "count"), found = false;
	FILE *f;

	if (argc < 4)
		return sim_errorf(s, "usage: expect recent NAME count N | TEXT [TEXT...] | "
				     "expect norecent NAME TEXT [TEXT...]");
	if (count) {
		char *end = NULL;

		want = (unsigned)strtoul(argv[4], &end, 10);
		if (*end || neg)
			return sim_errorf(s, "usage: expect recent NAME count N");
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return sim_errorf(s, "out of memory");
	recent_box_print(sb->box, argv[2], f);
	fclose(f);
	join(argc, argv, 3, pattern, sizeof(pattern));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool all = true;

		n++;
		for (int a = 3; !count && all && a < argc; a++)
			all = strstr(line, argv[a]) != NULL;
		if (!count && all && neg) {
			sim_failf(s, "expected no address in recent list %s with %s, got %s",
				  argv[2], pattern, line);
			free(buf);
			return -1;
		}
		found = found || all;
	}
	free(buf);
	if (count && n != want)
		return sim_failf(s, "expected %u addresses in recent list %s, there are %u", want,
				 argv[2], n);
	if (!count && !neg && !found)
		return sim_failf(s,
				 "expected an address in recent list %s with %s; %u, none has it",
				 argv[2], pattern, n);
	return 0;
}

/* expect rules-ok | rules-error [TEXT]: how the last `rules try` went. */
static int expect_rules(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	bool ok = !strcmp(what, "rules-ok");
	char pattern[1024];

	join(argc, argv, 2, pattern, sizeof(pattern));
	if (argc == 3)
		snprintf(pattern, sizeof(pattern), "%s", argv[2]);
	if (!s->rules_tried)
		return sim_errorf(s, "expect %s: no `rules try` before it", what);
	s->rules_tried = false;
	if (ok && s->rules_error[0])
		return sim_failf(s, "expected the ruleset to load, it was refused: %s",
				 s->rules_error);
	if (!ok && !s->rules_error[0])
		return sim_failf(s, "expected the ruleset to be refused, it loaded");
	if (!ok && argc > 2 && !strstr(s->rules_error, pattern))
		return sim_failf(s, "expected a refusal with \"%s\", got: %s", pattern,
				 s->rules_error);
	return 0;
}

static int expect_conntrack_cmd(struct sim *s, struct sim_box *sb, const char *what, int argc,
				char **argv)
{
	return expect_conntrack(s, sb, argc, argv, !strcmp(what, "noconntrack"));
}

static int expect_recent_cmd(struct sim *s, struct sim_box *sb, const char *what, int argc,
			     char **argv)
{
	return expect_recent(s, sb, argc, argv, !strcmp(what, "norecent"));
}

static int expect_counter_cmd(struct sim *s, struct sim_box *sb, const char *what, int argc,
			      char **argv)
{
	return expect_counter(s, sb, argc, argv, !strcmp(what, "policy-counter"));
}

static int expect_nothing(struct sim *s, struct sim_box *sb, const char *what, int argc,
			  char **argv)
{
	char pend[1024], text[512];
	int idx, ifindex;

	if (argc > 2) {
		ifindex = box_iface_index(sb->box, argv[2]);
		if (ifindex < 0)
			return sim_errorf(s, "no interface '%s'", argv[2]);
		idx = find_outcome(sb, SIM_OUT_XMIT, ifindex);
		if (idx >= 0)
			return sim_failf(s, "expected nothing out of %s, got %s", argv[2],
					 sim_pkt_text(sb->out[idx].pkt, text, sizeof(text)));
		return 0;
	}
	for (unsigned i = 0; i < sb->nout; i++)
		if (sb->out[i].kind != SIM_OUT_LOG && sb->out[i].kind != SIM_OUT_TRACE) {
			pending_summary(sb, pend, sizeof(pend));
			return sim_failf(s, "expected nothing (more) in %s, have %s",
					 box_name(sb->box), pend);
		}
	return 0;
}

/* expect log|nolog|trace TEXT...: every word is a substring the same line must contain. */
static int expect_log(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	enum sim_outcome_kind k = !strcmp(what, "trace") ? SIM_OUT_TRACE : SIM_OUT_LOG;
	bool neg = !strcmp(what, "nolog");
	char pattern[1024];
	int idx;

	if (argc < 3)
		return sim_errorf(s, "usage: expect %s TEXT [TEXT...]", what);
	join(argc, argv, 2, pattern, sizeof(pattern));
	for (unsigned i = 0; i < sb->nout; i++) {
		bool all = sb->out[i].kind == k;

		for (int a = 2; all && a < argc; a++)
			all = strstr(sb->out[i].line, argv[a]) != NULL;
		if (!all)
			continue;
		if (neg)
			return sim_failf(s, "expected no log line with %s, got %s", pattern,
					 sb->out[i].line);
		sim_outcome_remove(sb, i);
		return 0;
	}
	if (neg)
		return 0;
	idx = find_outcome(sb, k, 0);
	return sim_failf(
	    s, "expected a %s line with %s; %s%s", k == SIM_OUT_LOG ? "log" : "TRACE", pattern,
	    idx < 0 ? "there is none" : "the first is: ", idx < 0 ? "" : sb->out[idx].line);
}

static int expect_drop(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	char pattern[1024], pend[1024], text[512], r[128];
	int idx = find_outcome(sb, SIM_OUT_DROP, 0);

	join(argc, argv, 2, pattern, sizeof(pattern));
	if (idx < 0) {
		pending_summary(sb, pend, sizeof(pend));
		return sim_failf(s, "expected drop%s%s; in %s instead: %s", argc > 2 ? " " : "",
				 pattern, box_name(sb->box), pend);
	}
	sim_drop_text(&sb->out[idx].why, r, sizeof(r));
	if (!drop_matches(r, argc, argv, 2)) {
		sim_failf(s, "expected drop %s, got drop %s of %s", pattern, r,
			  sb->out[idx].pkt ? sim_pkt_text(sb->out[idx].pkt, text, sizeof(text))
					   : "?");
		sim_outcome_remove(sb, (unsigned)idx);
		return 1;
	}
	sim_outcome_remove(sb, (unsigned)idx);
	return 0;
}

static int expect_queue(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	char pattern[1024], why[512], pend[1024];
	unsigned q;
	int idx, rc;

	if (argc < 3)
		return sim_errorf(s, "usage: expect queue N [PATTERN]");
	q = (unsigned)strtoul(argv[2], NULL, 0);
	idx = find_outcome(sb, SIM_OUT_QUEUE, 0);
	if (idx < 0) {
		pending_summary(sb, pend, sizeof(pend));
		return sim_failf(s, "expected a packet queued to %u, %s", q, pend);
	}
	if (sb->out[idx].qnum != q) {
		unsigned got = sb->out[idx].qnum;

		sim_outcome_remove(sb, (unsigned)idx);
		return sim_failf(s, "expected a packet queued to %u, it went to queue %u", q, got);
	}
	join(argc, argv, 3, pattern, sizeof(pattern));
	if (argc > 3 && sb->out[idx].pkt &&
	    (rc = sim_pkt_matches(sb->out[idx].pkt, pattern, why, sizeof(why))) != 1) {
		sim_outcome_remove(sb, (unsigned)idx);
		return rc < 0 ? sim_errorf(s, "%s", why) : sim_failf(s, "queued packet: %s", why);
	}
	sim_outcome_remove(sb, (unsigned)idx);
	return 0;
}

/* expect local [PATTERN] (ifindex 0), or expect IFACE [PATTERN]. */
static int expect_packet(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv,
			 int ifindex)
{
	char pattern[1024], why[512], pend[1024], text[512];
	bool local = ifindex == 0;
	int idx =
	    local ? find_outcome(sb, SIM_OUT_LOCAL, 0) : find_outcome(sb, SIM_OUT_XMIT, ifindex);
	int rc;

	/* The packet text is taken from the original words, rejoined. */
	join(argc, argv, 2, pattern, sizeof(pattern));
	if (idx < 0) {
		pending_summary(sb, pend, sizeof(pend));
		return sim_failf(s, "expected %s%s%s%s; in %s instead: %s",
				 local ? "local delivery" : "a packet out of ", local ? "" : what,
				 argc > 2 ? ": " : "", pattern, box_name(sb->box), pend);
	}
	rc = argc > 2 ? sim_pkt_matches(sb->out[idx].pkt, pattern, why, sizeof(why)) : 1;
	if (rc < 0)
		return sim_errorf(s, "%s", why);
	if (rc == 0) {
		sim_failf(s, "on %s expected %s\n    got %s\n    (%s)", what, pattern,
			  sim_pkt_text(sb->out[idx].pkt, text, sizeof(text)), why);
		sim_outcome_remove(sb, (unsigned)idx);
		return 1;
	}
	sim_outcome_remove(sb, (unsigned)idx);
	return 0;
}

static int expect_local(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	return expect_packet(s, sb, what, argc, argv, 0);
}

/* What `expect` takes besides an interface name: one table for dispatch and the usage line. */
struct expect_cmd {
	const char *name;
	int (*fn)(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv);
	const char *usage; /* NULL: listed with the one before */
};

static const struct expect_cmd expect_cmds[] = {
    {"drop", expect_drop, "drop [REASON]"},
    {"local", expect_local, "local [PATTERN]"},
    {"nothing", expect_nothing, "nothing [IFACE]"},
    {"log", expect_log, "log TEXT"},
    {"nolog", expect_log, "nolog TEXT"},
    {"trace", expect_log, "trace TEXT"},
    {"counter", expect_counter_cmd, "counter ..."},
    {"policy-counter", expect_counter_cmd, "policy-counter ..."},
    {"queue", expect_queue, "queue N"},
    {"conntrack", expect_conntrack_cmd, "conntrack ..."},
    {"noconntrack", expect_conntrack_cmd, "noconntrack ..."},
    {"recent", expect_recent_cmd, "recent ..."},
    {"norecent", expect_recent_cmd, "norecent ..."},
    {"rules-ok", expect_rules, "rules-ok"},
    {"rules-error", expect_rules, "rules-error [TEXT]"},
    {"set", sim_expect_sets, "set NAME ELEMENT"},
    {"noset", sim_expect_sets, "noset NAME ELEMENT"},
    {"set-count", sim_expect_sets, "set-count NAME N"},
    {"sets-ok", sim_expect_sets, "sets-ok"},
    {"sets-error", sim_expect_sets, "sets-error [TEXT]"},
    {"sync-external", sim_expect_sync, "sync-external TEXT | count N"},
    {"nosync-external", sim_expect_sync, "nosync-external TEXT"},
    {"sync-stats", sim_expect_sync, "sync-stats NAME=N"},
    {"sync-order", sim_expect_sync, "sync-order CLASS..."},
    {"sync-link", sim_expect_sync, "sync-link NAME COUNTER=N"},
    {NULL, NULL, NULL},
};

/* The names (sep ", ") or usages (sep " | ") of the table, into buf. */
static void expect_list(char *buf, size_t len, bool usage, const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct expect_cmd *c = expect_cmds; c->name && n < len; c++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? sep : "",
				      usage ? c->usage : c->name);
}

int sim_cmd_expect(struct sim *s, int argc, char **argv)
{
	struct sim_box *sb = s->cur;
	const char *what, *colon;
	char list[1024];
	int ifindex;

	if (argc < 2) {
		expect_list(list, sizeof(list), true, " | ");
		return sim_errorf(s, "usage: expect IFACE PATTERN | %s", list);
	}
	what = argv[1];
	/* BOX:IFACE, or BOX:drop / BOX:local / ... for outcomes of another box. */
	colon = strchr(what, ':');
	if (colon) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)(colon - what), what);
		sb = sim_box_find(s, name);
		if (!sb)
			return sim_errorf(s, "no box '%s'", name);
		what = colon + 1;
	}
	if (!sb)
		return sim_errorf(s, "expect: no box yet");
	for (const struct expect_cmd *c = expect_cmds; c->name; c++)
		if (!strcmp(c->name, what))
			return c->fn(s, sb, what, argc, argv);
	ifindex = box_iface_index(sb->box, what);
	if (ifindex < 0) {
		expect_list(list, sizeof(list), false, ", ");
		return sim_errorf(s, "expect: '%s' is neither an interface of %s nor one of %s",
				  what, box_name(sb->box), list);
	}
	return expect_packet(s, sb, what, argc, argv, ifindex);
}
