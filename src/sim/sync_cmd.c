// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's sync commands (docs/simulator.md, "Sync links"):
 *
 *   sync link NAME BOX BOX [BOX...] [mode ftfw|notrack|alarm] [delay D] [loss P%] [dup P%]
 *            [seed N]                                   declare a link; sync starts on them
 *   sync link NAME delay D | loss P% | dup P% | seed N | drop next N [from BOX] |
 *            dup next N [from BOX] | reorder next [from BOX] | down | up | deliver | flush |
 *            replay BOX [K]                              what the link does from now
 *   sync [BOX:]set SETTING VALUE                         a setting, used when the box (re)starts
 *   sync [BOX:]commit|flush [internal|external]|resync|bulk|stats|external|internal
 *   kill BOX, restart BOX
 *
 * and the expectations on them: [BOX:]sync-external, nosync-external, sync-stats, sync-order;
 * sync-link NAME COUNTER=N.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sync_link.h"

static const char *const mode_names[] = {"ftfw", "notrack", "alarm"};
static const char *const class_names[] = {"conn", "expect", "related"};

static int mode_by_name(const char *n)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(n, mode_names[i]))
			return i;
	return -1;
}

/* "10%" or "10" -> 10 (0..100) */
static int parse_pct(const char *a, unsigned *v)
{
	char *end;
	unsigned long n = strtoul(a, &end, 10);

	if (end == a || (*end && strcmp(end, "%")) || n > 100)
		return -1;
	*v = (unsigned)n;
	return 0;
}

static int parse_uint(const char *a, uint64_t *v)
{
	char *end;

	if (!*a || *a == '-')
		return -1;
	*v = strtoull(a, &end, 0);
	return *end ? -1 : 0;
}

/* "BOX:VERB" or "VERB" (the current box). */
static struct sim_box *box_of(struct sim *s, const char *word, const char **verb)
{
	const char *colon = strchr(word, ':');
	struct sim_box *sb;
	char name[64];

	if (!colon) {
		*verb = word;
		return sim_cur_box(s);
	}
	snprintf(name, sizeof(name), "%.*s", (int)(colon - word), word);
	sb = sim_box_find(s, name);
	if (!sb)
		sim_errorf(s, "no box '%s'", name);
	*verb = colon + 1;
	return sb;
}

/* ---- settings ---------------------------------------------------------------------------- */

enum set_kind { SET_U32, SET_TIME, SET_BOOL, SET_PEER };

struct sync_setting {
	const char *name;
	enum set_kind kind;
	size_t off;
};

#define CFG(f) offsetof(struct sync_config, f)
/* The live config's `sync` lines (docs/sync.md) that make sense without sockets; durations
 * take a unit (tx-hold 500us, refresh-time 5s). */
static const struct sync_setting settings[] = {
    {"ack-window", SET_U32, CFG(ack_window)},
    {"resend-queue", SET_U32, CFG(resend_max)},
    {"external-max", SET_U32, CFG(external_max)},
    {"mtu", SET_U32, CFG(mtu)},
    {"tx-hold", SET_TIME, CFG(tx_hold)},
    {"refresh-time", SET_TIME, CFG(refresh_time)},
    {"cache-timeout", SET_TIME, CFG(cache_timeout)},
    {"commit-timeout", SET_TIME, CFG(commit_timeout)},
    {"alive-interval", SET_TIME, CFG(alive_interval)},
    {"seq-start", SET_U32, CFG(seq_start)}, /* the first sequence number (else from the clock) */
    {"window-tracking", SET_BOOL, CFG(tcp_window_tracking)},
    {"disable-external-cache", SET_BOOL, CFG(disable_external)},
    {"startup-resync", SET_BOOL, CFG(startup_resync)},
    {"no-local", SET_BOOL, CFG(filter.no_local)},
    {"peer-kind", SET_PEER, CFG(peer)},
    {NULL, SET_U32, 0},
};

static const char *const peer_names[] = {
    [SYNC_PEER_CONNTRACKD] = "conntrackd",
    [SYNC_PEER_CONNTRACKD_146] = "conntrackd-1.4.6",
    [SYNC_PEER_CONNTRACKD_144] = "conntrackd-1.4.4",
    [SYNC_PEER_PKTTABLES] = "pkttables",
};

static int set_one(struct sim *s, struct sync_config *c, const char *name, const char *val)
{
	const struct sync_setting *t;
	char *p = (char *)c;
	uint64_t v;

	for (t = settings; t->name && strcmp(t->name, name); t++)
		;
	if (!t->name)
		return sim_errorf(s, "sync set: no setting '%s'", name);
	switch (t->kind) {
	case SET_U32:
		if (parse_uint(val, &v) < 0 || !v || v > UINT32_MAX)
			return sim_errorf(s, "sync set %s: bad number '%s'", name, val);
		*(uint32_t *)(p + t->off) = (uint32_t)v;
		return 0;
	case SET_TIME:
		if (sim_parse_duration(val, &v) < 0)
			return sim_errorf(s, "sync set %s: bad duration '%s'", name, val);
		*(uint64_t *)(p + t->off) = v;
		return 0;
	case SET_BOOL:
		if (strcmp(val, "on") && strcmp(val, "off"))
			return sim_errorf(s, "sync set %s: on or off, not '%s'", name, val);
		*(bool *)(p + t->off) = !strcmp(val, "on");
		return 0;
	case SET_PEER:
		for (unsigned i = 0; i < sizeof(peer_names) / sizeof(peer_names[0]); i++)
			if (!strcmp(val, peer_names[i])) {
				c->peer = (enum sync_peer_kind)i;
				return 0;
			}
		return sim_errorf(s, "sync set peer-kind: no kind '%s'", val);
	}
	return -1;
}

/* ---- the link ---------------------------------------------------------------------------- */

/* Link options from word i on (shared by the declaration and later changes). */
static int link_options(struct sim *s, struct sim_sync_link *l, struct words *w, int i)
{
	for (; i < w->argc; i++) {
		const char *o = w->argv[i], *a = i + 1 < w->argc ? w->argv[i + 1] : NULL;
		struct sim_sync_next *next = NULL;
		uint64_t v;

		if (!strcmp(o, "down") || !strcmp(o, "up")) {
			l->down = !strcmp(o, "down");
			if (l->down)
				sim_sync_link_drain(s, l, false); /* what was on it is lost */
			continue;
		}
		if (!strcmp(o, "deliver") || !strcmp(o, "flush")) {
			sim_sync_link_drain(s, l, !strcmp(o, "deliver"));
			continue;
		}
		if (!a)
			return sim_errorf(s, "sync link %s: '%s' wants a value", l->name, o);
		i++;
		if (!strcmp(o, "delay")) {
			if (sim_parse_duration(a, &l->delay) < 0)
				return sim_errorf(s, "sync link: bad delay '%s'", a);
		} else if (!strcmp(o, "loss") || (!strcmp(o, "dup") && strcmp(a, "next"))) {
			unsigned *pct = !strcmp(o, "loss") ? &l->loss_pct : &l->dup_pct;

			if (!strcmp(a, "off"))
				*pct = 0;
			else if (parse_pct(a, pct) < 0)
				return sim_errorf(s, "sync link: bad %s '%s' (0%%..100%%)", o, a);
		} else if (!strcmp(o, "seed")) {
			if (parse_uint(a, &v) < 0)
				return sim_errorf(s, "sync link: bad seed '%s'", a);
			l->rng = v ? v : 1;
		} else if (!strcmp(o, "drop") || !strcmp(o, "dup") || !strcmp(o, "reorder")) {
			/* drop next N [from BOX] | dup next N [from BOX] | reorder next [from BOX]
			 */
			bool reorder = !strcmp(o, "reorder");

			next = reorder ? &l->reorder : !strcmp(o, "drop") ? &l->drop : &l->dup;
			if (strcmp(a, "next"))
				return sim_errorf(s, "usage: sync link NAME %s next%s [from BOX]",
						  o, reorder ? "" : " N");
			v = 1;
			if (!reorder && (i + 1 >= w->argc || parse_uint(w->argv[++i], &v) < 0))
				return sim_errorf(s, "sync link: %s next N: give a number", o);
			next->n = (unsigned)v;
			next->from = NULL;
			if (i + 2 < w->argc && !strcmp(w->argv[i + 1], "from")) {
				next->from = sim_box_find(s, w->argv[i + 2]);
				if (!next->from)
					return sim_errorf(s, "no box '%s'", w->argv[i + 2]);
				i += 2;
			}
		} else if (!strcmp(o, "replay")) {
			/* replay BOX [K]: the K-th last datagram BOX sent goes again (K = 1) */
			struct sim_box *from = sim_box_find(s, a);
			unsigned k = 1;

			if (!from)
				return sim_errorf(s, "no box '%s'", a);
			if (i + 1 < w->argc && parse_uint(w->argv[i + 1], &v) == 0)
				k = (unsigned)v, i++;
			for (unsigned h = 1; h <= SIM_SYNC_HIST && h <= l->hpos; h++) {
				unsigned at = (l->hpos - h) % SIM_SYNC_HIST;

				if (l->hist[at].from == from && !--k) {
					sim_sync_link_put(l, from, l->hist[at].d, l->hist[at].len,
							  true);
					break;
				}
			}
			if (k)
				return sim_errorf(s,
						  "sync link %s: %s sent fewer datagrams than "
						  "that (the last %d are kept)",
						  l->name, a, SIM_SYNC_HIST);
		} else {
			return sim_errorf(s, "sync link %s: unknown option '%s'", l->name, o);
		}
	}
	sim_sync_settle(s);
	return 0;
}

static int cmd_link(struct sim *s, struct words *w)
{
	struct sim_box *boxes[SIM_SYNC_MAX_MEMBERS];
	struct sim_sync_link *l;
	unsigned n = 0;
	int i = 3, mode = SYNC_MODE_FTFW;

	if (w->argc < 3)
		return sim_errorf(s, "usage: sync link NAME BOX BOX [BOX...] [mode M] [delay D] "
				     "[loss P%%] [dup P%%] [seed N] | sync link NAME OPTION...");
	if ((l = sim_sync_link_find(s, w->argv[2])))
		return link_options(s, l, w, 3);
	for (; i < w->argc && sim_box_find(s, w->argv[i]); i++) {
		if (n == SIM_SYNC_MAX_MEMBERS)
			return sim_errorf(s, "sync link: at most %d boxes", SIM_SYNC_MAX_MEMBERS);
		boxes[n++] = sim_box_find(s, w->argv[i]);
		for (unsigned k = 0; k + 1 < n; k++)
			if (boxes[k] == boxes[n - 1])
				return sim_errorf(s, "sync link: %s twice", w->argv[i]);
	}
	if (n < 2 && i < w->argc)
		return sim_errorf(s, "sync link %s: give two boxes or more (no box '%s')",
				  w->argv[2], w->argv[i]);
	if (n < 2)
		return sim_errorf(s, "sync link %s: give two boxes or more", w->argv[2]);
	if (i + 1 < w->argc && !strcmp(w->argv[i], "mode")) {
		if ((mode = mode_by_name(w->argv[i + 1])) < 0)
			return sim_errorf(s, "sync link: mode ftfw, notrack or alarm, not '%s'",
					  w->argv[i + 1]);
		i += 2;
	}
	if (sim_sync_link_new(s, w->argv[2], boxes, n, (enum sync_mode)mode) < 0)
		return -1;
	return link_options(s, sim_sync_link_find(s, w->argv[2]), w, i);
}

/* ---- sync [BOX:]VERB --------------------------------------------------------------------- */

int sim_cmd_sync(struct sim *s, struct words *w)
{
	struct sim_box *sb;
	struct sync *y;
	const char *verb;
	uint64_t now;

	if (w->argc < 2)
		return sim_errorf(s, "usage: sync link ... | sync [BOX:]set SETTING VALUE | sync "
				     "[BOX:]commit|flush|resync|bulk|stats|external|internal");
	if (!strcmp(w->argv[1], "link"))
		return cmd_link(s, w);
	if (!(sb = box_of(s, w->argv[1], &verb)))
		return -1;
	if (!strcmp(verb, "set")) {
		if (w->argc != 4)
			return sim_errorf(s, "usage: sync [BOX:]set SETTING VALUE");
		if (!sb->sync) {
			if (!(sb->sync = calloc(1, sizeof(*sb->sync))))
				return sim_errorf(s, "out of memory");
			sync_config_default(&sb->sync->cfg);
			sb->sync->sb = sb;
		}
		return set_one(s, &sb->sync->cfg, w->argv[2], w->argv[3]);
	}
	if (!sb->sync || !sb->sync->link)
		return sim_errorf(s, "%s is on no sync link", box_name(sb->box));
	if (!(y = sb->sync->sync))
		return sim_errorf(s, "%s is dead", box_name(sb->box));
	now = box_now(sb->box);
	if (!strcmp(verb, "commit") && w->argc == 2) {
		unsigned n = sync_commit(y, now);

		if (!(s->flags & SIM_QUIET))
			fprintf(s->out, "  [%s] committed %u\n", box_name(sb->box), n);
	} else if (!strcmp(verb, "flush") && w->argc <= 3) {
		bool in = w->argc == 2 || !strcmp(w->argv[2], "internal");
		bool ex = w->argc == 2 || !strcmp(w->argv[2], "external");

		if (!in && !ex)
			return sim_errorf(s, "usage: sync [BOX:]flush [internal|external]");
		sync_flush(y, in, ex);
	} else if (!strcmp(verb, "resync") && w->argc == 2) {
		if (sync_request_resync(y, now) < 0)
			return sim_errorf(s, "sync resync: ALARM mode has no RESYNC");
	} else if (!strcmp(verb, "bulk") && w->argc == 2) {
		unsigned n = sync_bulk(y, now);

		if (!(s->flags & SIM_QUIET))
			fprintf(s->out, "  [%s] bulk of %u\n", box_name(sb->box), n);
	} else if (!strcmp(verb, "stats") && w->argc == 2) {
		sync_stats_print(y, s->out);
	} else if (!strcmp(verb, "external") && w->argc == 2) {
		sync_dump_external(y, s->out, now);
	} else if (!strcmp(verb, "internal") && w->argc == 2) {
		sync_dump_internal(y, s->out, now);
	} else {
		return sim_errorf(s,
				  "sync: unknown '%s' (link, set, commit, flush [internal|"
				  "external], resync, bulk, stats, external, internal)",
				  w->argv[1]);
	}
	sim_sync_settle(s);
	return 0;
}

static int kill_or_restart(struct sim *s, struct words *w, bool kill)
{
	struct sim_box *sb;

	if (w->argc != 2)
		return sim_errorf(s, "usage: %s BOX", kill ? "kill" : "restart");
	if (!(sb = sim_box_find(s, w->argv[1])))
		return sim_errorf(s, "no box '%s'", w->argv[1]);
	if ((kill ? sim_sync_kill(s, sb) : sim_sync_restart(s, sb)) < 0)
		return -1;
	sim_sync_settle(s);
	return 0;
}

int sim_cmd_kill(struct sim *s, struct words *w)
{
	return kill_or_restart(s, w, true);
}

int sim_cmd_restart(struct sim *s, struct words *w)
{
	return kill_or_restart(s, w, false);
}

/* ---- expectations ------------------------------------------------------------------------ */

/* "NAME=N", "NAME>=N", "NAME<=N", "NAME>N", "NAME<N", "NAME!=N" against the "name value"
 * lines of text. 0 pass, 1 failed (reported), -1 bad word. */
static int compare(struct sim *s, const char *text, const char *cond, const char *whose)
{
	static const char *const ops[] = {">=", "<=", "!=", "=", ">", "<"};
	char name[64], look[80];
	const char *op = NULL, *at;
	size_t nlen;
	uint64_t want, have;
	bool ok;

	nlen = strcspn(cond, "=<>!");
	for (unsigned i = 0; i < 6 && !op; i++)
		if (!strncmp(cond + nlen, ops[i], strlen(ops[i])))
			op = ops[i];
	if (!op || !nlen || nlen >= sizeof(name) || parse_uint(cond + nlen + strlen(op), &want) < 0)
		return sim_errorf(s, "expect: '%s' is not NAME=N (or >=, <=, >, <, !=)", cond);
	snprintf(name, sizeof(name), "%.*s", (int)nlen, cond);
	snprintf(look, sizeof(look), "\n%s ", name);
	at = strstr(text, look);
	if (!at)
		return sim_errorf(s, "expect: %s has no counter '%s'", whose, name);
	have = strtoull(at + strlen(look), NULL, 10);
	ok = !strcmp(op, ">=")	 ? have >= want
	     : !strcmp(op, "<=") ? have <= want
	     : !strcmp(op, "!=") ? have != want
	     : !strcmp(op, "=")	 ? have == want
	     : !strcmp(op, ">")	 ? have > want
				 : have < want;
	return ok ? 0 : sim_failf(s, "%s: expected %s, %s is %" PRIu64, whose, cond, name, have);
}

/* The "name value" lines of a box's sync counters (sync_stats_print), with a leading newline
 * so every name is found as "\nNAME ". */
static char *stats_text(struct sync *y)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('\n', f);
	sync_stats_print(y, f);
	fclose(f);
	return buf;
}

static char *link_text(const struct sim_sync_link *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f,
		"\nsent %" PRIu64 "\nlost %" PRIu64 "\nduplicated %" PRIu64 "\nreordered %" PRIu64
		"\ndelivered %" PRIu64 "\nreplayed %" PRIu64 "\nto_dead %" PRIu64
		"\nin_flight %u\n",
		l->sent, l->lost, l->duplicated, l->reordered, l->delivered, l->replayed,
		l->to_dead, l->nq);
	fclose(f);
	return buf;
}

static int expect_counters(struct sim *s, char *text, int argc, char **argv, int first,
			   const char *whose)
{
	int rc = 0;

	if (!text)
		return sim_errorf(s, "out of memory");
	if (argc <= first)
		rc = sim_errorf(s, "usage: expect %s NAME=N...", argv[1]);
	for (int i = first; i < argc && !rc; i++)
		rc = compare(s, text, argv[i], whose);
	free(text);
	return rc;
}

/* expect [BOX:]sync-external TEXT... | count N, nosync-external TEXT...: the external cache as
 * `sync external` lists it (every TEXT a word of the same line). */
static int expect_external(struct sim *s, struct sync *y, int argc, char **argv, bool neg,
			   uint64_t now)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	unsigned n, want = 0;
	bool count = !neg && argc == 4 && !strcmp(argv[2], "count"), found = false;
	FILE *f;

	if (argc < 3)
		return sim_errorf(s, "usage: expect %s TEXT... | count N", argv[1]);
	if (count && sscanf(argv[3], "%u", &want) != 1)
		return sim_errorf(s, "usage: expect sync-external count N");
	if (!(f = open_memstream(&buf, &len)))
		return sim_errorf(s, "out of memory");
	n = sync_dump_external(y, f, now);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line && !count && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		bool all = true;

		/* whole words: sport=1000 is not sport=10000 */
		for (int a = 2; all && a < argc; a++) {
			const char *p = line;
			size_t k = strlen(argv[a]);

			all = false;
			while (!all && (p = strstr(p, argv[a]))) {
				all = (p == line || p[-1] == ' ') && (!p[k] || p[k] == ' ');
				p++;
			}
		}
		if (all && neg) {
			sim_failf(s, "expected no external entry like that, got %s", line);
			free(buf);
			return 1;
		}
		found = all;
	}
	free(buf);
	if (count)
		return n == want
			   ? 0
			   : sim_failf(s, "expected %u external entries, there are %u", want, n);
	if (!neg && !found)
		return sim_failf(s,
				 "expected an external entry with every word of the line; "
				 "%u entries, none has them",
				 n);
	return 0;
}

/* expect [BOX:]sync-order CLASS...: the classes (conn, expect, related) of the data messages
 * the box received since the last such expectation, a run of one class counted once. */
static int expect_order(struct sim *s, struct sim_sync *e, int argc, char **argv)
{
	char have[256] = "", want[256] = "";
	size_t hn = 0, wn = 0;
	int rc;

	for (unsigned i = 0; i < e->norder; i++)
		hn += (size_t)snprintf(have + hn, sizeof(have) - hn, "%s%s", i ? " " : "",
				       class_names[e->order[i]]);
	for (int a = 2; a < argc; a++) {
		bool known = false;

		for (int c = 0; c < 3; c++)
			known = known || !strcmp(argv[a], class_names[c]);
		if (!known)
			return sim_errorf(s, "expect sync-order: conn, expect or related, not '%s'",
					  argv[a]);
		wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%s%s", a > 2 ? " " : "",
				       argv[a]);
	}
	rc = strcmp(have, want) || e->order_overflow
		 ? sim_failf(s, "expected data messages in the order '%s', %s received '%s'%s",
			     want, box_name(e->sb->box), have, e->order_overflow ? "..." : "")
		 : 0;
	e->norder = 0;
	e->order_overflow = false;
	return rc;
}

int sim_expect_sync(struct sim *s, struct sim_box *sb, const char *what, int argc, char **argv)
{
	struct sim_sync_link *l;
	char whose[96];

	if (!strcmp(what, "sync-link")) {
		if (argc < 3 || !(l = sim_sync_link_find(s, argv[2])))
			return sim_errorf(s,
					  "usage: expect sync-link NAME COUNTER=N... (no link "
					  "'%s')",
					  argc < 3 ? "" : argv[2]);
		snprintf(whose, sizeof(whose), "sync link %s", l->name);
		return expect_counters(s, link_text(l), argc, argv, 3, whose);
	}
	if (!sb->sync || !sb->sync->link)
		return sim_errorf(s, "expect %s: %s is on no sync link", what, box_name(sb->box));
	if (!strcmp(what, "sync-order"))
		return expect_order(s, sb->sync, argc, argv);
	if (!sb->sync->sync)
		return sim_failf(s, "expect %s: %s is dead", what, box_name(sb->box));
	if (!strcmp(what, "sync-stats")) {
		snprintf(whose, sizeof(whose), "sync of %s", box_name(sb->box));
		return expect_counters(s, stats_text(sb->sync->sync), argc, argv, 2, whose);
	}
	return expect_external(s, sb->sync->sync, argc, argv, !strcmp(what, "nosync-external"),
			       box_now(sb->box));
}

/* ---- show sync --------------------------------------------------------------------------- */

int sim_sync_show(struct sim *s)
{
	for (unsigned k = 0; k < s->nsynclinks; k++) {
		const struct sim_sync_link *l = s->synclinks[k];
		char *t = link_text(l);

		fprintf(s->out, "sync link %s mode %s:", l->name, mode_names[l->mode]);
		for (unsigned i = 0; i < l->n; i++)
			fprintf(s->out, " %s%s", box_name(l->member[i]->box),
				l->member[i]->dead ? "(dead)" : "");
		fprintf(s->out, " delay %" PRIu64 "ns loss %u%% dup %u%%%s\n", l->delay,
			l->loss_pct, l->dup_pct, l->down ? " DOWN" : "");
		for (char *p = t ? t + 1 : NULL; p && *p;) {
			size_t n = strcspn(p, "\n");

			fprintf(s->out, "  %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
		free(t);
	}
	return 0;
}
