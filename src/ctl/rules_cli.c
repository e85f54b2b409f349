// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables rules (src/cmd/rules.c runs it): the ruleset of a running box (pkttables run, pkttables
 * sim --serve) over its control socket (docs/ctl.md, subsystem CTL_SUBSYS_RULES).
 *
 *   rules save     RULES_DUMP     text in CTL_RA_TEXT chunks, iptables-save format
 *   rules restore  RULES_REPLACE  the whole file, checked whole by the box, then swapped
 *   rules zero     RULES_ZERO     counters of a table or a chain
 *   rules policy   RULES_POLICY   a built-in chain's policy
 *   rules classifier  RULES_CLASSIFIER  per chain: compiled or linear (why), rules, build
 *                                  time, memory, rules left to the candidates (docs/classifier.md)
 *
 * The family is the message's nfgen_family: AF_INET (-4, the default) or AF_INET6 (-6).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netfilter.h>

#include "classify/ruleset.h"
#include "ctl/client.h"
#include "ctl/msg.h"
#include "ctl/rules_cli.h"
#include "rules/ext.h"
#include "rules/rules.h"

#define TEXT_ATTR_MAX 65000u /* payload of one CTL_RA_TEXT (nla_len is 16 bits) */
/* Text per RULES_REPLACE message: a larger file goes in several, CTL_RF_MORE on all but the
 * last (docs/ctl.md); small enough for a default socket send buffer (wmem_max 212992). */
#define PART_TEXT (128u << 10)

struct opts {
	const char *socket, *name;
	const char *table;
	const char *file;
	int family;
	bool counters, noflush, test, all;
	FILE *out, *err;
};

static void usage(FILE *f)
{
	fputs("usage: pkttables rules [--socket PATH | --name BOX] COMMAND ...\n"
	      "  save [-t TABLE] [-c] [-4|-6]          print the ruleset (iptables-save format)\n"
	      "  restore [-n] [-c] [-T TABLE] [-t] [-4|-6] [FILE|-]\n"
	      "                                        replace it atomically (iptables-restore)\n"
	      "  zero [CHAIN] [-t TABLE | -a] [-4|-6]  zero counters (default table filter;\n"
	      "                                        -a: every table)\n"
	      "  policy CHAIN ACCEPT|DROP [-t TABLE] [-4|-6]\n"
	      "  recent [LIST [+ADDR|-ADDR|/]]         the lists of -m recent: their names; a\n"
	      "                                        list as /proc/net/xt_recent/LIST reads;\n"
	      "                                        add/refresh, remove an address, or flush\n"
	      "  classifier [-t TABLE] [-4|-6]         how each chain is classified: compiled or\n"
	      "                                        linear (why), rules, build time, memory\n"
	      "\n"
	      "The box is the one serving --socket PATH, or the box named BOX (pkttables run's\n"
	      "`control NAME`, pkttables sim --serve NAME); default: the name \"default\".\n"
	      "  -c   save: rule counters [pkts:bytes]; restore: keep the file's counters\n"
	      "  -n   restore --noflush: the tables the file names are added to, not replaced\n"
	      "       (tables it does not name are never touched)\n"
	      "  -T   restore only this table of the file\n"
	      "  -t   restore --test: check the file here, change nothing\n"
	      "Errors in a restored file are printed as FILE:LINE: message, and nothing is "
	      "applied.\n",
	      f);
}

/* ---- talking to the box ------------------------------------------------------------------ */

static struct ctl_client *connect_box(const struct opts *o)
{
	char path[256];
	struct ctl_client *c;
	int r;

	r = ctl_socket_path(o->socket ? o->socket : o->name, path, sizeof(path));
	if (r < 0) {
		fprintf(o->err, "rules: control socket '%s': %s\n",
			o->socket ? o->socket
			: o->name ? o->name
				  : "default",
			strerror(-r));
		return NULL;
	}
	if (!(c = ctl_client_open(path)))
		fprintf(o->err, "rules: cannot connect to %s: %s\n", path, strerror(errno));
	return c;
}

/* Send a request; print the box's error. 0, or the exit status 1. */
static int request(const struct opts *o, struct ctl_client *c, struct nlmsghdr *req, ctl_msg_cb cb,
		   void *priv)
{
	char msg[1024];
	int r = ctl_client_request(c, req, cb, priv, msg, sizeof(msg), NULL);

	if (!r)
		return 0;
	if (msg[0])
		fprintf(o->err, "%s\n", msg);
	else
		fprintf(o->err, "rules: %s\n", strerror(-r));
	return 1;
}

static struct nlmsghdr *start(void *buf, size_t room, struct ctl_client *c, unsigned msg,
			      const struct opts *o)
{
	return ctl_msg_start(buf, room, CTL_TYPE(CTL_SUBSYS_RULES, msg), NLM_F_REQUEST | NLM_F_ACK,
			     ctl_client_seq(c), (uint8_t)o->family, true);
}

/* ---- save -------------------------------------------------------------------------------- */

struct text {
	char *buf;
	size_t len, cap;
};

static int text_add(struct text *t, const void *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *nb = realloc(t->buf, cap);

		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

static int collect_text(const struct nlmsghdr *nlh, void *priv)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh,
			  sizeof(struct nfgenmsg)) if (mnl_attr_get_type(a) == CTL_RA_TEXT &&
						       text_add(priv, mnl_attr_get_payload(a),
								mnl_attr_get_payload_len(a)) <
							   0) return -1;
	return 0;
}

/*
 * Print the dump as iptables-save does: each table between "# Generated by" and
 * "# Completed on" comments with the time of the save; only `table` when given.
 * 0, or 1 when that table is not there.
 */
static int print_save(const struct opts *o, const char *text, const char *table, const char *when)
{
	bool on = false, found = false;

	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (*l == '*') {
			on = !table || (n - 1 == strlen(table) && !strncmp(l + 1, table, n - 1));
			found |= on;
			if (on)
				fprintf(o->out, "# Generated by pkttables rules save on %s\n",
					when);
		}
		if (on)
			fprintf(o->out, "%.*s\n", (int)n, l);
		if (on && n == 6 && !strncmp(l, "COMMIT", 6)) {
			fprintf(o->out, "# Completed on %s\n", when);
			on = false;
		}
		l += n + (e != NULL);
	}
	if (table && !found) {
		fprintf(o->err, "rules save: table '%s' does not exist\n", table);
		return 1;
	}
	return 0;
}

static int do_save(struct ctl_client *c, const struct opts *o)
{
	char buf[512], when[64];
	struct nlmsghdr *nlh = start(buf, sizeof(buf), c, CTL_RULES_DUMP, o);
	struct text t = {0};
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (o->counters)
		mnl_attr_put_u32(nlh, CTL_RA_FLAGS, htonl(CTL_RF_COUNTERS));
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK; /* a dump ends in NLMSG_DONE */
	if ((rc = request(o, c, nlh, collect_text, &t)))
		goto out;
	if (!t.buf) {
		if (o->table) {
			fprintf(o->err, "rules save: table '%s' does not exist\n", o->table);
			rc = 1;
		}
		goto out;
	}
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", localtime_r(&now, &tm));
	rc = print_save(o, t.buf, o->table, when);
out:
	free(t.buf);
	return rc;
}

/* ---- classifier --------------------------------------------------------------------------- */

struct cls_out {
	int family;
	bool header;
	FILE *out, *err;
};

static int print_cls(const struct nlmsghdr *nlh, void *priv)
{
	static const char *const modes[] = {"auto", "linear", "compiled"};
	struct cls_out *o = priv;
	struct ctl_cls_chain m;
	struct ctl_error err;
	struct cls_chain cc;
	int mode;

	if (ctl_parse_cls(nlh, &m, &mode, &err) < 0) {
		fprintf(o->err, "rules classifier: %s\n", err.msg);
		return -1;
	}
	if (!o->header) {
		fprintf(o->out, "classifier %s\n", mode >= 0 && mode <= 2 ? modes[mode] : "?");
		o->header = true;
	}
	cc = (struct cls_chain){.why = m.why[0] ? m.why : "not compiled",
				.nrules = m.rules,
				.partial = m.partial,
				.first_partial = m.first_partial,
				.build_s = m.has_build ? (double)m.build_ns / 1e9 : -1,
				.bytes = (size_t)m.bytes,
				.updated = m.updated};
	cls_chain_print(o->out, o->family == AF_INET6 ? "ipv6" : "ipv4", m.table, m.chain,
			m.engine == CTL_CLS_ENGINE_COMPILED, &cc);
	return 0;
}

static int do_classifier(struct ctl_client *c, const struct opts *o)
{
	char buf[512];
	struct nlmsghdr *nlh = start(buf, sizeof(buf), c, CTL_RULES_CLASSIFIER, o);
	struct cls_out out = {.family = o->family, .out = o->out, .err = o->err};

	if (o->table)
		mnl_attr_put_strz(nlh, CTL_RA_TABLE, o->table);
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK; /* a dump ends in NLMSG_DONE */
	return request(o, c, nlh, print_cls, &out);
}

/* ---- restore ----------------------------------------------------------------------------- */

static int read_input(const struct opts *o, const char *file, struct text *t)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char chunk[65536];
	size_t n;

	if (!f) {
		fprintf(o->err, "rules restore: %s: %s\n", file, strerror(errno));
		return 1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (text_add(t, chunk, n) < 0) {
			fprintf(o->err, "rules restore: %s: %s\n", file, strerror(ENOMEM));
			if (f != stdin)
				fclose(f);
			return 1;
		}
	if (ferror(f)) {
		fprintf(o->err, "rules restore: %s: %s\n", file, strerror(errno));
		if (f != stdin)
			fclose(f);
		return 1;
	}
	if (f != stdin)
		fclose(f);
	if (!t->buf && text_add(t, "", 0) < 0)
		return 1;
	return 0;
}

/*
 * restore -T TABLE: keep only that table's section. Every other line becomes a comment, so the
 * box's FILE:LINE still points into the file as the user has it.
 */
static void keep_table(struct text *t, const char *table)
{
	bool on = false;

	for (char *l = t->buf; *l;) {
		char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (*l == '*')
			on = n - 1 == strlen(table) && !strncmp(l + 1, table, n - 1);
		if (!on && n) { /* a comment: the parser refuses lines of blanks */
			l[0] = '#';
			memset(l + 1, ' ', n - 1);
		}
		if (on && n >= 6 && !strncmp(l, "COMMIT", 6))
			on = false;
		l += n + (e != NULL);
	}
}

/* --test: parse here with the same parser the box uses. */
static int test_text(const struct text *t, const char *name, const struct opts *o)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error re;
	int r;

	memset(&re, 0, sizeof(re));
	r = rules_parse_buffer(t->buf, t->len, name, o->family, ext_registry_default(), NULL, 0,
			       &rs, &re);
	if (r < 0) {
		if (re.token[0])
			fprintf(o->err, "%s:%u: %s (near '%s')\n", re.file, re.line, re.msg,
				re.token);
		else
			fprintf(o->err, "%s:%u: %s\n", re.file, re.line, re.msg);
		return 1;
	}
	rules_ruleset_free(rs);
	return 0;
}

/* The line at *p (its length in *n, without the newline), *p moved past it; NULL at the end. */
static const char *next_line(const char **p, size_t *n)
{
	const char *l = *p, *e;

	if (!*l)
		return NULL;
	e = strchr(l, '\n');
	*n = e ? (size_t)(e - l) : strlen(l);
	*p = l + *n + (e != NULL);
	return l;
}

/* map[line] = v, the array grown as needed. */
static int map_set(unsigned **map, unsigned *cap, unsigned line, unsigned v)
{
	if (line >= *cap) {
		unsigned nc = (line + 1) * 2;
		unsigned *nm = realloc(*map, nc * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		*map = nm;
		*cap = nc;
	}
	(*map)[line] = v;
	return 0;
}

/*
 * Without -c the file's counters are not taken (iptables-restore): "[p:b] -A ..." loses its
 * prefix and ":CHAIN POLICY [p:b]" its counters, so new rules start at zero while the tables
 * the file does not name keep theirs (the box is asked to keep counters, CTL_RF_COUNTERS).
 */
static int strip_counters(const struct text *in, struct text *out)
{
	const char *l, *at = in->buf;
	size_t n;

	while ((l = next_line(&at, &n))) {
		const char *p = l, *end = l + n;

		if (*l == '[' && (p = memchr(l, ']', n)) && p + 1 < end && p[1] == ' ')
			p += 2;
		else
			p = l;
		if (*l == ':') {
			const char *b = memchr(l, '[', n);

			if (b && memchr(b, ']', (size_t)(end - b)))
				end = b;
		}
		if (text_add(out, p, (size_t)(end - p)) < 0 || text_add(out, "\n", 1) < 0)
			return -ENOMEM;
	}
	return text_add(out, "", 0);
}

/* The section of table `name` in a dump: the lines after "*name" up to COMMIT. */
static bool dump_section(const char *dump, const char *name, const char **from, size_t *len)
{
	const char *in = NULL, *l, *at = dump;
	size_t n;

	while ((l = next_line(&at, &n))) {
		if (*l == '*' && n - 1 == strlen(name) && !strncmp(l + 1, name, n - 1))
			in = l + n + 1;
		else if (in && n == 6 && !strncmp(l, "COMMIT", 6)) {
			*from = in;
			*len = (size_t)(l - in);
			return true;
		}
	}
	return false;
}

/*
 * restore --noflush: the tables the file names keep what they hold and get the file's chains
 * and rules added. The box's parser replaces a table it reads whole, so each "*TABLE" of the
 * file is followed by the box's current lines of that table (with their counters).
 * map[merged line] is the file's line (0: one of the box's), for error messages.
 */
static int merge_noflush(const struct text *file, const char *dump, struct text *out,
			 unsigned **map)
{
	unsigned fl = 0, ml = 0, cap = 0;
	const char *l, *at = file->buf;
	size_t n;

	*map = NULL;
	while ((l = next_line(&at, &n))) {
		const char *sec;
		size_t slen;
		char name[32];

		if (text_add(out, l, n) < 0 || text_add(out, "\n", 1) < 0 ||
		    map_set(map, &cap, ++ml, ++fl) < 0)
			return -ENOMEM;
		if (*l != '*' || n - 1 >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 1), l + 1);
		if (!dump || !dump_section(dump, name, &sec, &slen))
			continue;
		if (text_add(out, sec, slen) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < slen; k++)
			if (sec[k] == '\n' && map_set(map, &cap, ++ml, 0) < 0)
				return -ENOMEM;
	}
	if (map_set(map, &cap, ++ml, 0) < 0) /* a last line without a newline */
		return -ENOMEM;
	return text_add(out, "", 0);
}

/* "NAME:LINE: rest" of a merged text told with the file's own line. */
static void print_restore_error(const struct opts *o, const char *msg, const char *name,
				const unsigned *map, unsigned nmap)
{
	char prefix[4200];
	unsigned line;
	int k;

	if (map && sscanf(msg + strlen(name), ":%u: %n", &line, &k) == 1 &&
	    !strncmp(msg, name, strlen(name)) && line < nmap) {
		if (map[line])
			snprintf(prefix, sizeof(prefix), "%s:%u: ", name, map[line]);
		else
			snprintf(prefix, sizeof(prefix),
				 "%s: in the box's rules it is added to: ", name);
		fprintf(o->err, "%s%s\n", prefix, msg + strlen(name) + (size_t)k);
		return;
	}
	fprintf(o->err, "%s\n", msg);
}

static int do_restore(struct ctl_client *c, const struct opts *o)
{
	const char *name = strcmp(o->file, "-") ? o->file : "stdin";
	struct text t = {0}, s = {0}, m = {0}, dump = {0};
	const struct text *send = &t;
	unsigned *map = NULL, nmap = 0;
	struct nlmsghdr *nlh;
	char msg[1024];
	size_t room;
	char *buf;
	int rc, r;

	if ((rc = read_input(o, o->file, &t)))
		goto out;
	if (o->table)
		keep_table(&t, o->table);
	if (o->test) {
		rc = test_text(&t, name, o);
		goto out;
	}
	rc = 1;
	if (!o->counters) {
		if (strip_counters(&t, &s) < 0)
			goto out;
		send = &s;
	}
	if (o->noflush) {
		/* the box's current text (it may change before the replace: the replace is atomic,
		 * the read-modify-write is not, as with iptables-restore -n) */
		char dbuf[512];
		struct nlmsghdr *d = start(dbuf, sizeof(dbuf), c, CTL_RULES_DUMP, o);

		mnl_attr_put_u32(d, CTL_RA_FLAGS, htonl(CTL_RF_COUNTERS));
		d->nlmsg_flags &= (uint16_t)~NLM_F_ACK;
		if (request(o, c, d, collect_text, &dump) ||
		    merge_noflush(send, dump.buf, &m, &map) < 0)
			goto out;
		for (const char *p = m.buf; *p; p++)
			nmap += *p == '\n';
		nmap += 2; /* map has lines 1 .. newlines + 1 */
		send = &m;
	}
	room = PART_TEXT + PART_TEXT / TEXT_ATTR_MAX * 8 + strlen(name) + 256;
	if (!(buf = malloc(room)))
		goto out;
	/* the text in parts, each acknowledged; the box checks and swaps at the last one */
	for (size_t part = 0;; part += PART_TEXT) {
		size_t end = send->len - part > PART_TEXT ? part + PART_TEXT : send->len;
		/* iptables-restore: the tables the file does not name are left as they are,
		 * counters and all; those it names are replaced (or, -n, added to) */
		uint32_t fl =
		    CTL_RF_NOFLUSH | CTL_RF_COUNTERS | (end < send->len ? CTL_RF_MORE : 0);

		nlh = start(buf, room, c, CTL_RULES_REPLACE, o);
		mnl_attr_put_u32(nlh, CTL_RA_FLAGS, htonl(fl));
		mnl_attr_put_strz(nlh, CTL_RA_NAME, name);
		for (size_t off = part; off < end || off == part; off += TEXT_ATTR_MAX) {
			size_t n = end - off < TEXT_ATTR_MAX ? end - off : TEXT_ATTR_MAX;

			mnl_attr_put(nlh, CTL_RA_TEXT, n, send->buf + off);
			if (off + n >= end)
				break;
		}
		r = ctl_client_request(c, nlh, NULL, NULL, msg, sizeof(msg), NULL);
		if (r || end == send->len)
			break;
	}
	free(buf);
	rc = 0;
	if (r) {
		if (msg[0])
			print_restore_error(o, msg, name, map, nmap);
		else
			fprintf(o->err, "rules restore: %s\n", strerror(-r));
		rc = 1;
	}
out:
	free(t.buf);
	free(s.buf);
	free(m.buf);
	free(dump.buf);
	free(map);
	return rc;
}

/* ---- zero, policy ------------------------------------------------------------------------ */

static int do_zero(struct ctl_client *c, const struct opts *o, const char *chain)
{
	char buf[512];
	struct nlmsghdr *nlh = start(buf, sizeof(buf), c, CTL_RULES_ZERO, o);

	if (!o->all)
		mnl_attr_put_strz(nlh, CTL_RA_TABLE, o->table ? o->table : "filter");
	if (chain)
		mnl_attr_put_strz(nlh, CTL_RA_CHAIN, chain);
	return request(o, c, nlh, NULL, NULL);
}

static int do_policy(struct ctl_client *c, const struct opts *o, const char *chain,
		     const char *target)
{
	char buf[512];
	struct nlmsghdr *nlh;
	uint32_t policy;

	if (!strcmp(target, "ACCEPT")) {
		policy = NF_ACCEPT;
	} else if (!strcmp(target, "DROP")) {
		policy = NF_DROP;
	} else {
		fprintf(o->err, "rules policy: bad policy '%s' (ACCEPT or DROP)\n", target);
		return 2;
	}
	nlh = start(buf, sizeof(buf), c, CTL_RULES_POLICY, o);
	mnl_attr_put_strz(nlh, CTL_RA_TABLE, o->table ? o->table : "filter");
	mnl_attr_put_strz(nlh, CTL_RA_CHAIN, chain);
	mnl_attr_put_u32(nlh, CTL_RA_POLICY, htonl(policy));
	return request(o, c, nlh, NULL, NULL);
}

/* ---- recent ------------------------------------------------------------------------------ */

/* rules recent [LIST [CMD]]: print the names, a list, or write CMD to it. */
static int do_recent(struct ctl_client *c, const struct opts *o, const char *list, const char *cmd)
{
	char buf[512];
	struct nlmsghdr *nlh = start(buf, sizeof(buf), c, CTL_RULES_RECENT, o);
	struct text t = {0};
	int rc;

	if ((list && strlen(list) >= 256) || (cmd && strlen(cmd) >= 128)) {
		fprintf(o->err, "rules recent: list name or command too long\n");
		return 2;
	}
	if (list)
		mnl_attr_put_strz(nlh, CTL_RA_LIST, list);
	if (cmd) {
		mnl_attr_put(nlh, CTL_RA_TEXT, strlen(cmd), cmd);
		return request(o, c, nlh, NULL, NULL);
	}
	nlh->nlmsg_flags &= (uint16_t)~NLM_F_ACK; /* the text ends in NLMSG_DONE */
	rc = request(o, c, nlh, collect_text, &t);
	if (!rc && t.buf)
		fwrite(t.buf, 1, t.len, o->out);
	free(t.buf);
	return rc;
}

/* ---- arguments --------------------------------------------------------------------------- */

static bool is(const char *a, const char *s, const char *l)
{
	return (s && !strcmp(a, s)) || (l && !strcmp(a, l));
}

int ctl_rules_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct opts o = {.family = AF_INET, .out = out, .err = err};
	const char *cmd = NULL, *pos[2] = {NULL, NULL};
	unsigned npos = 0;
	struct ctl_client *c;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool more = i + 1 < argc;

		if (is(a, "-h", "--help")) {
			usage(o.out);
			return 0;
		} else if (is(a, NULL, "--socket") && more) {
			o.socket = argv[++i];
		} else if (is(a, NULL, "--name") && more) {
			o.name = argv[++i];
		} else if (is(a, "-4", "--ipv4")) {
			o.family = AF_INET;
		} else if (is(a, "-6", "--ipv6")) {
			o.family = AF_INET6;
		} else if (is(a, "-c", "--counters")) {
			o.counters = true;
		} else if (is(a, "-n", "--noflush") && cmd && !strcmp(cmd, "restore")) {
			o.noflush = true;
		} else if (is(a, "-T", NULL) && more && cmd && !strcmp(cmd, "restore")) {
			o.table = argv[++i];
		} else if (is(a, "-t", "--test") && cmd && !strcmp(cmd, "restore")) {
			o.test = true;
		} else if (is(a, "-t", "--table") && more) {
			o.table = argv[++i];
		} else if (is(a, "-a", "--all") && cmd && !strcmp(cmd, "zero")) {
			o.all = true;
		} else if (cmd && !strcmp(cmd, "recent") && npos == 1) {
			pos[npos++] = a; /* "-ADDR" is an argument here, not an option */
		} else if (a[0] == '-' && a[1]) {
			fprintf(o.err, "rules: unknown option '%s'\n", a);
			usage(o.err);
			return 2;
		} else if (!cmd) {
			cmd = a;
		} else if (npos < 2) {
			pos[npos++] = a;
		} else {
			fprintf(o.err, "rules: too many arguments\n");
			return 2;
		}
	}
	if (o.socket && o.name) {
		fprintf(o.err, "rules: --socket or --name, not both\n");
		return 2;
	}
	if (!cmd || (!strcmp(cmd, "save") && npos) || (!strcmp(cmd, "restore") && npos > 1) ||
	    (!strcmp(cmd, "zero") && npos > 1) || (!strcmp(cmd, "policy") && npos != 2) ||
	    (!strcmp(cmd, "classifier") && npos) ||
	    (strcmp(cmd, "save") && strcmp(cmd, "restore") && strcmp(cmd, "zero") &&
	     strcmp(cmd, "policy") && strcmp(cmd, "recent") && strcmp(cmd, "classifier"))) {
		usage(o.err);
		return 2;
	}
	if (o.all && o.table) {
		fprintf(o.err, "rules zero: -a or -t, not both\n");
		return 2;
	}
	if (o.table && rules_table_by_name(o.table) < 0) {
		fprintf(o.err, "rules: no table '%s'\n", o.table);
		return 2;
	}
	o.file = pos[0] ? pos[0] : "-";
	if (!strcmp(cmd, "restore") && o.test)
		return do_restore(NULL, &o);
	if (!(c = connect_box(&o)))
		return 1;
	if (!strcmp(cmd, "save"))
		rc = do_save(c, &o);
	else if (!strcmp(cmd, "restore"))
		rc = do_restore(c, &o);
	else if (!strcmp(cmd, "zero"))
		rc = do_zero(c, &o, pos[0]);
	else if (!strcmp(cmd, "recent"))
		rc = do_recent(c, &o, pos[0], pos[1]);
	else if (!strcmp(cmd, "classifier"))
		rc = do_classifier(c, &o);
	else
		rc = do_policy(c, &o, pos[0], pos[1]);
	ctl_client_close(c);
	return rc;
}
