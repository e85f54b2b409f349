// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The script language: one command per line, `#` starts a comment, words split on blanks,
 * "double quotes" group words. Packet text (inject, send, expect) is taken verbatim from the
 * rest of the line and given to pkt_spec_parse. Every command is documented in
 * docs/simulator.md; keep the two in step.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ct/ct_plugin.h"
#include "nat/nat_plugin.h"
#include "plugins/load.h"
#include "sim/internal.h"
#include "sim/sync_link.h"

int sim_errorf(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->file)
		fprintf(s->err, "%s:%u: ", s->file, s->line);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
	return -1;
}

int sim_failf(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->file)
		fprintf(s->err, "%s:%u: ", s->file, s->line);
	fputs("expectation failed: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
	return 1;
}

/* ---- words ------------------------------------------------------------------------------- */

/* Split a line; returns 0, or -1 (unterminated quote, too long). Comments end the line. */
static int split(const char *line, struct words *w)
{
	const char *p = line;
	char *o = w->buf, *end = w->buf + sizeof(w->buf) - 1;

	w->argc = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			return 0;
		if (w->argc == MAX_ARGS)
			return -1;
		w->rest[w->argc] = p;
		w->argv[w->argc++] = o;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
			if (o >= end)
				return -1;
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1])
						p++;
					if (o >= end)
						return -1;
					*o++ = *p++;
				}
				if (*p != '"')
					return -1;
				p++;
				continue;
			}
			*o++ = *p++;
		}
		*o++ = '\0';
	}
}

/* The rest of the line from word i, with a trailing comment and blanks removed. */
void sim_rest_of(const struct words *w, int i, char *out, size_t len)
{
	const char *p = w->rest[i];
	size_t n = 0;
	bool q = false;

	while (p[n] && (q || p[n] != '#')) {
		if (p[n] == '"')
			q = !q;
		n++;
	}
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

/* ---- helpers ----------------------------------------------------------------------------- */

struct sim_box *sim_cur_box(struct sim *s)
{
	if (!s->cur) {
		s->cur = sim_box_new(s, "box");
		if (!s->cur)
			sim_errorf(s, "out of memory");
	}
	return s->cur;
}

/* "IFACE" in the current box or "BOX:IFACE". */
int sim_resolve_iface(struct sim *s, const char *spec, struct sim_box **sbp, int *ifindex)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	struct sim_box *sb;

	if (colon) {
		snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
		sb = sim_box_find(s, name);
		if (!sb)
			return sim_errorf(s, "no box '%s'", name);
		spec = colon + 1;
	} else {
		sb = sim_cur_box(s);
		if (!sb)
			return -1;
	}
	*ifindex = box_iface_index(sb->box, spec);
	if (*ifindex < 0)
		return sim_errorf(s, "box '%s' has no interface '%s'", box_name(sb->box), spec);
	*sbp = sb;
	return 0;
}

/* "+30s", "500ms", "+1.5s", "2m", "10us", "7ns" -> nanoseconds. */
int sim_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtod(s, &end);
	if (!strcmp(end, "s") || !*end)
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "ns"))
		;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else
		return -1;
	if (v < 0 || v > 1.8e19)
		return -1;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

int sim_load_rules(struct box *b, const char *buf, size_t len, const char *name, int family,
		   FILE *err)
{
	struct box_load_error e;
	char msg[sizeof(e.parse) + sizeof(e.refused)];

	if (box_load_ruleset(b, buf, len, name, family, &e) < 0) {
		box_load_error_format(&e, msg, sizeof(msg));
		fprintf(err, "%s\n", msg);
		return -EINVAL;
	}
	return 0;
}

static int cmd_box(struct sim *s, struct words *w)
{
	struct sim_box *sb;

	if (w->argc != 2)
		return sim_errorf(s, "usage: box NAME");
	sb = sim_box_find(s, w->argv[1]);
	if (!sb)
		sb = sim_box_new(s, w->argv[1]);
	if (!sb)
		return sim_errorf(s, "cannot create box '%s' (at most %d)", w->argv[1],
				  SIM_MAX_BOXES);
	s->cur = sb;
	return 0;
}

static int cmd_setup(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);
	char err[256];

	if (!sb)
		return -1;
	if (box_setup_command(sb->box, w->argc, w->argv, err, sizeof(err)) < 0)
		return sim_errorf(s, "%s", err);
	return 0;
}

static int cmd_link(struct sim *s, struct words *w)
{
	struct sim_box *a, *b;
	int ia, ib;
	uint64_t delay = 0;

	if (w->argc != 3 && !(w->argc == 5 && !strcmp(w->argv[3], "delay")))
		return sim_errorf(s, "usage: link BOXA:IFACE BOXB:IFACE [delay DURATION]");
	if (!strchr(w->argv[1], ':') || !strchr(w->argv[2], ':'))
		return sim_errorf(s, "link: give both ends as BOX:IFACE");
	if (sim_resolve_iface(s, w->argv[1], &a, &ia) < 0 ||
	    sim_resolve_iface(s, w->argv[2], &b, &ib) < 0)
		return -1;
	if (w->argc == 5 && sim_parse_duration(w->argv[4], &delay) < 0)
		return sim_errorf(s, "bad delay '%s' (e.g. 10ms)", w->argv[4]);
	if (a->links[ia].peer || b->links[ib].peer)
		return sim_errorf(s, "link: %s or %s is already wired", w->argv[1], w->argv[2]);
	/* A wire runs both ways. */
	a->links[ia] = (struct sim_link){b, ib, delay};
	b->links[ib] = (struct sim_link){a, ia, delay};
	return 0;
}

static int heredoc_append(struct sim *s, const char *text, size_t n)
{
	if (s->heredoc_len + n + 2 > s->heredoc_cap) {
		size_t cap = (s->heredoc_cap + n + 2) * 2;
		char *b = realloc(s->heredoc_buf, cap);

		if (!b)
			return -1;
		s->heredoc_buf = b;
		s->heredoc_cap = cap;
	}
	memcpy(s->heredoc_buf + s->heredoc_len, text, n);
	s->heredoc_len += n;
	if (!n || text[n - 1] != '\n')
		s->heredoc_buf[s->heredoc_len++] = '\n';
	s->heredoc_buf[s->heredoc_len] = '\0';
	return 0;
}

int sim_rules_family_arg(const char *a)
{
	if (!strcmp(a, "-4"))
		return AF_INET;
	if (!strcmp(a, "-6"))
		return AF_INET6;
	return -1;
}

/*
 * Load a ruleset for a script command. `try`: a failure is not an error of the script but
 * remembered for `expect rules-error` (the test of a reload that must be refused).
 */
static int script_load(struct sim *s, struct sim_box *sb, const char *buf, size_t len,
		       const char *name, int family, bool try)
{
	char *msg = NULL;
	size_t n = 0;
	FILE *m;
	int rc;

	if (!try)
		return sim_load_rules(sb->box, buf, len, name, family, s->err);
	m = open_memstream(&msg, &n);
	if (!m)
		return -ENOMEM;
	rc = sim_load_rules(sb->box, buf, len, name, family, m);
	fclose(m);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	snprintf(s->rules_error, sizeof(s->rules_error), "%s", rc < 0 ? (n ? msg : "failed") : "");
	s->rules_tried = true;
	if (rc < 0 && !(s->flags & SIM_QUIET))
		fprintf(s->out, "  [%s] rules refused: %s\n", box_name(sb->box), s->rules_error);
	free(msg);
	return 0;
}

static int cmd_rules(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);
	int family = 0;
	bool try = false;

	if (!sb)
		return -1;
	if (w->argc >= 2 && !strcmp(w->argv[1], "try")) {
		try = true;
		memmove(&w->argv[1], &w->argv[2], (size_t)(w->argc - 2) * sizeof(w->argv[0]));
		memmove(&w->rest[1], &w->rest[2], (size_t)(w->argc - 2) * sizeof(w->rest[0]));
		w->argc--;
	}
	if (w->argc >= 2 && !strncmp(w->argv[w->argc - 1], "<<", 2)) {
		const char *term = w->argv[w->argc - 1] + 2;

		for (int i = 1; i < w->argc - 1; i++) {
			family = sim_rules_family_arg(w->argv[i]);
			if (family < 0)
				return sim_errorf(s, "usage: rules [-4|-6] <<EOF");
		}
		if (!*term || strlen(term) >= sizeof(s->heredoc_term))
			return sim_errorf(s, "rules <<TERM: give a terminator word (e.g. <<EOF)");
		snprintf(s->heredoc_term, sizeof(s->heredoc_term), "%s", term);
		s->heredoc_family = family;
		s->heredoc_try = try;
		s->heredoc_line = s->line;
		s->heredoc_len = 0;
		s->in_heredoc = true;
		/* Start with one empty line per script line before the heredoc's first line, so
		 * the parser's line numbers are the script's: errors read SCRIPT:LINE. */
		for (unsigned i = 0; i < s->line; i++)
			if (heredoc_append(s, "", 0) < 0)
				return sim_errorf(s, "out of memory");
		return 0;
	}
	if (w->argc >= 3 && !strcmp(w->argv[1], "load")) {
		char path[PATH_MAX], name[PATH_MAX];
		char *buf;
		size_t len;
		int rc;

		if (w->argc > 4 ||
		    (w->argc == 4 && (family = sim_rules_family_arg(w->argv[3])) < 0))
			return sim_errorf(s, "usage: rules load FILE [-4|-6]");
		sim_path(s, w->argv[2], path, sizeof(path));
		rc = box_read_file(path, &buf, &len);
		if (rc < 0)
			return sim_errorf(s, "%s: %s", path, strerror(-rc));
		snprintf(name, sizeof(name), "%s", path);
		rc = script_load(s, sb, buf, len, name, family, try);
		free(buf);
		return rc < 0 ? sim_errorf(s, "rules load %s: nothing changed", w->argv[2]) : 0;
	}
	if (w->argc >= 2 && !strcmp(w->argv[1], "show")) {
		int f = AF_INET, table = -1;

		for (int i = 2; i < w->argc; i++) {
			if (sim_rules_family_arg(w->argv[i]) > 0)
				f = sim_rules_family_arg(w->argv[i]);
			else if ((table = rules_table_by_name(w->argv[i])) < 0)
				return sim_errorf(s, "no table '%s'", w->argv[i]);
		}
		if (!box_ruleset(sb->box, f)) {
			fprintf(s->out, "# no %s rules\n", f == AF_INET ? "IPv4" : "IPv6");
			return 0;
		}
		if (table < 0) {
			rules_print(box_ruleset(sb->box, f), s->out, RULES_PRINT_COUNTERS);
		} else {
			/* One table: print all, keep the section of that table. */
			char *text = NULL;
			size_t n = 0;
			FILE *m = open_memstream(&text, &n);
			bool on = false;
			char *save = NULL;

			if (!m)
				return sim_errorf(s, "out of memory");
			rules_print(box_ruleset(sb->box, f), m, RULES_PRINT_COUNTERS);
			fclose(m);
			for (char *l = strtok_r(text, "\n", &save); l;
			     l = strtok_r(NULL, "\n", &save)) {
				if (l[0] == '*')
					on = !strcmp(l + 1, rules_table_name((unsigned)table));
				if (on)
					fprintf(s->out, "%s\n", l);
				if (on && !strcmp(l, "COMMIT"))
					on = false;
			}
			free(text);
		}
		return 0;
	}
	if (w->argc >= 2 && !strcmp(w->argv[1], "flush")) {
		family = w->argc > 2 ? sim_rules_family_arg(w->argv[2]) : 0;
		if (family != AF_INET6)
			box_set_ruleset(sb->box, NULL, AF_INET);
		if (family != AF_INET)
			box_set_ruleset(sb->box, NULL, AF_INET6);
		return 0;
	}
	if (w->argc >= 2 && !strcmp(w->argv[1], "zero")) {
		for (int f = 0; f < 2; f++) {
			struct rules_ruleset *rs = box_ruleset(sb->box, f ? AF_INET6 : AF_INET);

			if (rs)
				rules_zero_counters(rs);
		}
		return 0;
	}
	return sim_errorf(
	    s, "usage: rules [try] load FILE [-4|-6] | rules [try] [-4|-6] <<EOF | rules show "
	       "[TABLE] [-6] | rules flush [-4|-6] | rules zero");
}

static int heredoc_line(struct sim *s, const char *text)
{
	const char *p = text;
	size_t n = strlen(text);
	int rc;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, s->heredoc_term, strlen(s->heredoc_term)) &&
	    !p[strspn(p + strlen(s->heredoc_term), " \t\r\n") + strlen(s->heredoc_term)]) {
		struct sim_box *sb = sim_cur_box(s);

		s->in_heredoc = false;
		if (!sb)
			return -1;
		rc = script_load(s, sb, s->heredoc_buf ? s->heredoc_buf : "", s->heredoc_len,
				 s->file ? s->file : "stdin", s->heredoc_family, s->heredoc_try);
		s->line = s->heredoc_line;
		return rc < 0 ? sim_errorf(s, "rules: nothing changed") : 0;
	}
	if (heredoc_append(s, text, n) < 0)
		return sim_errorf(s, "out of memory");
	return 0;
}

static int cmd_time(struct sim *s, struct words *w)
{
	uint64_t d;

	if (w->argc != 2 || sim_parse_duration(w->argv[1], &d) < 0)
		return sim_errorf(s, "usage: time +DURATION (e.g. +30s, +500ms, +2m)");
	sim_set_now(s, s->now + d);
	return 0;
}

static int cmd_capture(struct sim *s, struct words *w)
{
	struct sim_box *sb;
	int ifindex;
	char path[PATH_MAX], err[512];
	const struct box_iface *ifc;
	struct sim_capture *c;

	if (w->argc == 4 && !strcmp(w->argv[1], "nflog")) {
		/* capture nflog GROUP FILE|off: what -j NFLOG hands to GROUP, as raw IP */
		char *end;
		unsigned long g = strtoul(w->argv[2], &end, 10);

		if (*end || g > 65535 || !(sb = sim_cur_box(s)))
			return sim_errorf(s, "usage: capture nflog GROUP FILE.pcap | off");
		ifindex = SIM_CAP_NFLOG(g);
		w->argv[1] = w->argv[2];
		w->argv[2] = w->argv[3];
	} else if (w->argc != 3) {
		return sim_errorf(s, "usage: capture IFACE FILE.pcap | capture IFACE off | capture "
				     "nflog GROUP FILE.pcap");
	} else if (sim_resolve_iface(s, w->argv[1], &sb, &ifindex) < 0) {
		return -1;
	}
	for (unsigned i = 0; i < sb->ncaps; i++)
		if (sb->caps[i].ifindex == ifindex) {
			pcapio_finish(sb->caps[i].w);
			sb->caps[i] = sb->caps[--sb->ncaps];
			break;
		}
	if (!strcmp(w->argv[2], "off"))
		return 0;
	if (sb->ncaps == SIM_MAX_CAPTURES)
		return sim_errorf(s, "too many captures (%d)", SIM_MAX_CAPTURES);
	ifc = ifindex > 0 ? box_iface(sb->box, ifindex) : NULL;
	c = &sb->caps[sb->ncaps];
	sim_path(s, w->argv[2], path, sizeof(path));
	if (pcapio_create(path, ifc ? ifc->link : PKT_LINK_RAW, &c->w, err, sizeof(err)) < 0)
		return sim_errorf(s, "%s", err);
	c->ifindex = ifindex;
	snprintf(c->path, sizeof(c->path), "%s", path);
	sb->ncaps++;
	return 0;
}

static int cmd_queue(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);
	struct sim_queue_handler q = {.used = true, .verdict = EXT_ACCEPT};
	char *end;
	unsigned long n;
	int slot = -1;

	if (!sb)
		return -1;
	if (w->argc < 3)
		goto usage;
	n = strtoul(w->argv[1], &end, 0);
	if (*end || n > 65535)
		goto usage;
	q.num = (unsigned)n;
	for (int i = 2; i < w->argc; i++) {
		if (!strcmp(w->argv[i], "accept"))
			q.verdict = EXT_ACCEPT;
		else if (!strcmp(w->argv[i], "drop"))
			q.verdict = EXT_DROP;
		else if (!strcmp(w->argv[i], "repeat"))
			q.verdict = EXT_REPEAT;
		else if (!strcmp(w->argv[i], "off"))
			q.used = false;
		else if (!strcmp(w->argv[i], "mark") && i + 1 < w->argc) {
			q.mark = (uint32_t)strtoul(w->argv[++i], &end, 0);
			if (*end)
				goto usage;
			q.set_mark = true;
		} else
			goto usage;
	}
	for (int i = 0; i < SIM_MAX_QUEUES; i++)
		if (sb->queues[i].used && sb->queues[i].num == q.num)
			slot = i;
	for (int i = 0; slot < 0 && i < SIM_MAX_QUEUES; i++)
		if (!sb->queues[i].used)
			slot = i;
	if (slot < 0)
		return sim_errorf(s, "too many queue handlers (%d)", SIM_MAX_QUEUES);
	sb->queues[slot] = q;
	return 0;
usage:
	return sim_errorf(s, "usage: queue N accept|drop|repeat [mark VALUE] | queue N mark VALUE "
			     "| queue N off");
}

static int cmd_trace(struct sim *s, struct words *w)
{
	if (w->argc != 2 || (strcmp(w->argv[1], "on") && strcmp(w->argv[1], "off")))
		return sim_errorf(s, "usage: trace on|off");
	s->trace = !strcmp(w->argv[1], "on");
	for (unsigned i = 0; i < s->nboxes; i++)
		box_set_trace_all(s->boxes[i]->box, s->trace);
	return 0;
}

static int cmd_conntrack(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);

	if (!sb)
		return -1;
	if (w->argc == 2 && (!strcmp(w->argv[1], "on") || !strcmp(w->argv[1], "off"))) {
		if (!strcmp(w->argv[1], "off") && sb->sync && sb->sync->link && !sb->dead)
			return sim_errorf(s, "conntrack off: %s's sync needs it (kill the box)",
					  box_name(sb->box));
		if (ct_box_enable(sb->box, !strcmp(w->argv[1], "on")) < 0)
			return sim_errorf(s, "cannot turn conntrack on");
		return 0;
	}
	if (w->argc >= 2 && !strcmp(w->argv[1], "set"))
		return cmd_setup(s, w);
	if (w->argc == 2 && !strcmp(w->argv[1], "flush")) {
		if (ct_box_table(sb->box))
			ct_flush(ct_box_table(sb->box));
		return 0;
	}
	return sim_errorf(s, "usage: conntrack on|off|flush | conntrack set NAME VALUE");
}

/* nat set NAME VALUE (box_setup_command) | nat show (every setting, docs/nat.md) */
static int cmd_nat(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);

	if (!sb)
		return -1;
	if (w->argc >= 2 && !strcmp(w->argv[1], "set"))
		return cmd_setup(s, w);
	if (w->argc == 2 && !strcmp(w->argv[1], "show")) {
		if (nat_box_print_config(s->out, sb->box) < 0)
			return sim_errorf(s, "conntrack (and so NAT) is off in %s",
					  box_name(sb->box));
		return 0;
	}
	return sim_errorf(s, "usage: nat set NAME VALUE | nat show");
}

static int cmd_echo(struct sim *s, struct words *w)
{
	char text[2048] = "";

	if (w->argc > 1)
		sim_rest_of(w, 1, text, sizeof(text));
	fprintf(s->out, "%s\n", text);
	return 0;
}

static int cmd_seed(struct sim *s, struct words *w)
{
	struct sim_box *sb = sim_cur_box(s);

	if (!sb)
		return -1;
	if (w->argc != 2)
		return sim_errorf(s, "usage: seed N");
	box_seed(sb->box, strtoull(w->argv[1], NULL, 0));
	return 0;
}

static int cmd_expect(struct sim *s, struct words *w)
{
	return sim_cmd_expect(s, w->argc, w->argv);
}

static int cmd_ctl(struct sim *s, struct words *w)
{
	return sim_cmd_ctl(s, w->argc, w->argv);
}

static int cmd_sets(struct sim *s, struct words *w)
{
	return sim_cmd_sets(s, w->argc, w->argv);
}

static int cmd_classifier(struct sim *s, struct words *w)
{
	return sim_cmd_classifier(s, w->argc, w->argv);
}

static int cmd_reset(struct sim *s, struct words *w)
{
	sim_reset(s);
	return 0;
}

static int cmd_help(struct sim *s, struct words *w);

/*
 * The simulator's commands: dispatch, `help` and tab completion (shell.c) all read this
 * table. A usage may hold several lines ("\n  " between them); NULL keeps a name out of help.
 * quit and exit have no function: the reader ends the session on them (sim_is_quit).
 */
const struct sim_command sim_commands[] = {
    {"box", cmd_box, "box NAME                         create or select a box"},
    {"iface", cmd_setup, "iface NAME [mac M] [mtu N] [raw] an interface of the current box"},
    {"addr", cmd_setup,
     "addr IFACE ADDR/PLEN             a local address (and its connected route)"},
    {"route", cmd_setup,
     "route PREFIX dev IFACE [via GW]  | route PREFIX blackhole|unreachable|prohibit"},
    {"forwarding", cmd_setup, "forwarding on|off [-4|-6]        ip_forward"},
    {"link", cmd_link, "link BOXA:IFACE BOXB:IFACE [delay D]   a wire"},
    {"rules", cmd_rules,
     "rules load FILE [-4|-6] | rules [-4|-6] <<EOF ... EOF | rules show [TABLE]"},
    {"inject", sim_cmd_inject,
     "inject IFACE PACKET | inject IFACE pcap FILE\n"
     "  inject IFACE fragments SIZE [reverse|I,J,...] PACKET   cut into fragments"},
    {"send", sim_cmd_send, "send [BOX:] PACKET                from the box itself (OUTPUT)"},
    {"expect", cmd_expect,
     "expect IFACE PATTERN | expect drop [REASON] | expect local [PATTERN]\n"
     "  expect nothing | expect log TEXT | expect counter TABLE CHAIN N pkts=P bytes=B\n"
     "  expect policy-counter TABLE CHAIN pkts=P bytes=B | expect queue N"},
    {"time", cmd_time, "time +DURATION                   move the clock (30s, 500ms, 2m)"},
    {"show", sim_cmd_show,
     "show counters|chains|log|stats|routes|pending|boxes|conntrack|time|classifier"},
    {"classifier", cmd_classifier,
     "classifier auto|linear|compiled  how rules loaded from now on are classified"},
    {"capture", cmd_capture, "capture IFACE FILE.pcap | capture IFACE off"},
    {"queue", cmd_queue, "queue N accept|drop|repeat [mark V]   the NFQUEUE handler"},
    {"conntrack", cmd_conntrack,
     "conntrack on|off|flush           connection tracking (on when rules use it)\n"
     "  conntrack set NAME VALUE         a nf_conntrack sysctl (udp_timeout 10, max 2)"},
    {"ct-timeout", cmd_setup,
     "ct-timeout NAME PROTO S=SEC...   a timeout policy for CT --timeout NAME"},
    {"nat", cmd_nat, "nat set NAME VALUE | nat show    NAT settings (docs/nat.md)"},
    {"recent", cmd_setup,
     "recent NAME +ADDR|-ADDR|/        edit a -m recent list (show recent [NAME])"},
    {"ctl", cmd_ctl,
     "ctl listen [BOX] SPEC | ctl close [BOX]   a control socket (path or name)\n"
     "  ctl serve MS | ctl show          answer ct/rules requests for MS wall ms"},
    {"sets", cmd_sets, "sets load FILE | sets [try] ipset ARGS... | sets show [NAME]   ipsets"},
    {"trace", cmd_trace, "trace on|off                     TRACE every packet in every box"},
    {"echo", cmd_echo, "echo TEXT                        print TEXT"},
    {"seed", cmd_seed, "seed N                           seed the box's random generator"},
    {"sync", sim_cmd_sync,
     "sync link NAME BOX BOX... [mode M] [delay D] [loss P%] [dup P%] [seed N]   a sync link\n"
     "  sync link NAME down|up|deliver|flush|drop next N|dup next N|reorder next|replay BOX\n"
     "  sync [BOX:]set SETTING VALUE | sync [BOX:]commit|flush|resync|bulk|stats|external"},
    {"kill", sim_cmd_kill, "kill BOX                         the box dies: state lost"},
    {"restart", sim_cmd_restart, "restart BOX                      a killed box starts again"},
    {"reset", cmd_reset, "reset                            forget boxes, wires and time"},
    {"help", cmd_help, "help                             this list"},
    {"quit", NULL, "quit | exit                      end the session or script"},
    {"exit", NULL, NULL},
    {NULL, NULL, NULL},
};

static int cmd_help(struct sim *s, struct words *w)
{
	fputs("commands (docs/simulator.md has them all, with examples):\n", s->out);
	for (const struct sim_command *c = sim_commands; c->name; c++)
		if (c->usage)
			fprintf(s->out, "  %s\n", c->usage);
	return 0;
}

int sim_feed_line(struct sim *s, const char *text, const char *file, unsigned line)
{
	const struct sim_command *cmd;
	struct words *w;
	const char *c;
	int rc;

	s->file = file;
	s->line = line;
	if (s->in_heredoc)
		return heredoc_line(s, text);
	w = malloc(sizeof(*w));
	if (!w)
		return sim_errorf(s, "out of memory");
	if (split(text, w) < 0) {
		free(w);
		return sim_errorf(s, "unterminated quote or line too long");
	}
	if (!w->argc) {
		free(w);
		return 0;
	}
	c = w->argv[0];
	for (cmd = sim_commands; cmd->name && (!cmd->fn || strcmp(cmd->name, c)); cmd++)
		;
	if (cmd->name) {
		rc = cmd->fn(s, w);
		/* what the command changed in a table (conntrack flush, a commit) leaves now */
		if (s->nsynclinks)
			sim_sync_settle(s);
	} else
		rc = sim_errorf(s, "unknown command '%s' (try help)", c);
	free(w);
	return rc;
}

/* "quit" or "exit" alone on a line ends a shell session or a script (its remaining lines are
 * not run), with the status the script had so far. */
bool sim_is_quit(const char *line)
{
	size_t a = strspn(line, " \t"), n = strcspn(line + a, " \t\r");

	if (line[a + n + strspn(line + a + n, " \t\r")])
		return false;
	return (n == 4 && !strncmp(line + a, "quit", 4)) ||
	       (n == 4 && !strncmp(line + a, "exit", 4));
}

int sim_run_stream(struct sim *s, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0;
	int rc = 0;

	while (getline(&line, &cap, f) >= 0) {
		size_t len = strlen(line);

		n++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!s->in_heredoc && sim_is_quit(line))
			break;
		rc = sim_feed_line(s, line, name, n);
		if (rc != 0 && !(s->flags & SIM_INTERACTIVE))
			break;
		rc = 0;
	}
	if (!rc && s->in_heredoc) {
		s->line = s->heredoc_line;
		s->file = name;
		rc = sim_errorf(s, "rules <<%s: no line '%s' ends it", s->heredoc_term,
				s->heredoc_term);
		s->in_heredoc = false;
	}
	free(line);
	return rc ? 1 : 0;
}
