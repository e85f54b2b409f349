// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The interactive simulator: libedit line editing, history in ~/.pkttables_history, and tab
 * completion of command names, boxes, interfaces, chains, tables and common iptables options.
 * The simulation reaches the callbacks through EL_CLIENTDATA, not a global.
 */
#include <errno.h>
#include <histedit.h>
#include <limits.h>
#include <unistd.h>
#include <wchar.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim/internal.h"

static const char *const keywords[] = {
    /* sub-commands and arguments */
    "load",
    "show",
    "flush",
    "zero",
    "pcap",
    "drop",
    "local",
    "nothing",
    "log",
    "nolog",
    "counter",
    "policy-counter",
    "queue",
    "counters",
    "chains",
    "stats",
    "routes",
    "pending",
    "boxes",
    "time",
    "on",
    "off",
    "accept",
    "repeat",
    "mark",
    "dev",
    "via",
    "metric",
    "mtu",
    "blackhole",
    "unreachable",
    "prohibit",
    "delay",
    "policy",
    "malformed",
    "<<EOF",
    "listen",
    "serve",
    "close",
    /* tables */
    "raw",
    "mangle",
    "nat",
    "filter",
    "security",
    /* packet text */
    "tcp",
    "udp",
    "icmp",
    "icmp6",
    "syn",
    "ack",
    "rst",
    "fin",
    "echo-request",
    "echo-reply",
    /* common iptables options (for rules heredocs typed in) */
    "-A",
    "-I",
    "-N",
    "-P",
    "-j",
    "-g",
    "-p",
    "-s",
    "-d",
    "-i",
    "-o",
    "-m",
    "--dport",
    "--sport",
    "--dports",
    "--sports",
    "--syn",
    "--tcp-flags",
    "--icmp-type",
    "--state",
    "--log-prefix",
    "--log-level",
    "--reject-with",
    "--set-mark",
    "--queue-num",
    "--queue-bypass",
    "--comment",
    "--limit",
    "--limit-burst",
    "ACCEPT",
    "DROP",
    "RETURN",
    "REJECT",
    "LOG",
    "MARK",
    "NFQUEUE",
    "TRACE",
    "COMMIT",
    "*filter",
    "*mangle",
    "*raw",
    NULL,
};

void sim_complete_words(struct sim *s, void (*fn)(void *arg, const char *word), void *arg)
{
	char buf[96];

	for (const struct sim_command *c = sim_commands; c->name; c++)
		fn(arg, c->name);
	for (int i = 0; keywords[i]; i++)
		fn(arg, keywords[i]);
	for (unsigned i = 0; i < s->nboxes; i++) {
		struct box *b = s->boxes[i]->box;

		fn(arg, box_name(b));
		for (unsigned k = 1; k <= box_iface_count(b); k++) {
			const struct box_iface *ifc = box_iface(b, (int)k);

			if (!ifc)
				continue;
			if (s->boxes[i] == s->cur)
				fn(arg, ifc->name);
			snprintf(buf, sizeof(buf), "%s:%s", box_name(b), ifc->name);
			fn(arg, buf);
		}
	}
	if (s->cur)
		for (int f = 0; f < 2; f++) {
			const struct rules_ruleset *rs =
			    box_ruleset(s->cur->box, f ? AF_INET6 : AF_INET);

			for (unsigned t = 0; rs && t < TABLE_MAX; t++)
				for (unsigned c = 0; c < rs->tables[t].nchains; c++)
					fn(arg, rs->tables[t].chains[c].name);
		}
}

struct completion {
	const char *prefix;
	size_t plen;
	bool first_word;
	char common[128];
	unsigned n;
	char list[2048];
	size_t listlen;
};

static void collect(void *arg, const char *word)
{
	struct completion *c = arg;
	size_t k;

	if (strncmp(word, c->prefix, c->plen))
		return;
	if (c->first_word) {
		bool cmd = false;

		for (const struct sim_command *sc = sim_commands; sc->name; sc++)
			cmd |= !strcmp(sc->name, word);
		if (!cmd)
			return;
	}
	/* the same word may come twice (a chain in two tables) */
	if (c->n && strstr(c->list, word) && c->listlen) {
		char pat[140];

		snprintf(pat, sizeof(pat), " %s ", word);
		if (strstr(c->list, pat))
			return;
	}
	if (!c->n) {
		snprintf(c->common, sizeof(c->common), "%s", word);
	} else {
		for (k = 0; c->common[k] && c->common[k] == word[k]; k++)
			;
		c->common[k] = '\0';
	}
	if (c->listlen + strlen(word) + 3 < sizeof(c->list))
		c->listlen += (size_t)snprintf(c->list + c->listlen, sizeof(c->list) - c->listlen,
					       "%s%s ", c->listlen ? "" : " ", word);
	c->n++;
}

static unsigned char complete(EditLine *el, int ch)
{
	const LineInfo *li = el_line(el);
	struct sim *s = NULL;
	struct completion c;
	const char *start = li->cursor;
	char prefix[128];

	(void)ch;
	el_get(el, EL_CLIENTDATA, &s);
	if (!s)
		return CC_ERROR;
	while (start > li->buffer && start[-1] != ' ' && start[-1] != '\t')
		start--;
	memset(&c, 0, sizeof(c));
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(li->cursor - start), start);
	c.prefix = prefix;
	c.plen = strlen(prefix);
	c.first_word = true;
	for (const char *p = li->buffer; p < start; p++)
		if (*p != ' ' && *p != '\t')
			c.first_word = false;
	sim_complete_words(s, collect, &c);
	if (!c.n)
		return CC_ERROR;
	if (c.n == 1) {
		char add[140];

		snprintf(add, sizeof(add), "%s ", c.common + c.plen);
		el_insertstr(el, add);
		return CC_REDISPLAY;
	}
	if (strlen(c.common) > c.plen) {
		el_insertstr(el, c.common + c.plen);
		return CC_REDISPLAY;
	}
	fprintf(stdout, "\n%s\n", c.list + 1);
	return CC_REDISPLAY;
}

/*
 * libedit reads keys through this: while no key is waiting, the control sockets are served,
 * so `pkttables ct -L` works against a box someone is typing commands into. Bytes are
 * decoded as the locale says (a key may be several bytes).
 */
static int getc_serving(EditLine *el, wchar_t *wc)
{
	struct sim *s = NULL;
	mbstate_t st;
	char b[MB_LEN_MAX];
	size_t n = 0;

	el_get(el, EL_CLIENTDATA, &s);
	memset(&st, 0, sizeof(st));
	for (;;) {
		ssize_t r;
		size_t k;

		if (s && sim_ctl_wait_input(s, STDIN_FILENO) < 0)
			return -1;
		r = read(STDIN_FILENO, b + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return (int)r;
		n++;
		k = mbrtowc(wc, b + n - 1, 1, &st);
		if (k == (size_t)-2 && n < sizeof(b))
			continue; /* the rest of a multibyte character */
		if (k == (size_t)-1 || k == (size_t)-2)
			*wc = (unsigned char)b[0]; /* not valid in the locale: the byte itself */
		else if (k == 0)
			*wc = 0;
		return 1;
	}
}

static char *prompt(EditLine *el)
{
	static const char normal[] = "pkttables> ", more[] = "...> ";
	struct sim *s = NULL;

	/* libedit wants char *, and never writes through it. */
	el_get(el, EL_CLIENTDATA, &s);
	return (char *)(s && s->in_heredoc ? more : normal);
}

int sim_shell(struct sim *s)
{
	EditLine *el = el_init("pkttables", stdin, stdout, stderr);
	History *hist = history_init();
	HistEvent ev;
	char histfile[PATH_MAX] = "";
	const char *home = getenv("HOME");
	unsigned n = 0;

	if (!el || !hist) {
		fprintf(stderr, "sim: cannot start line editing\n");
		if (el)
			el_end(el);
		if (hist)
			history_end(hist);
		return sim_run_stream(s, stdin, "stdin");
	}
	if (home)
		snprintf(histfile, sizeof(histfile), "%s/.pkttables_history", home);
	history(hist, &ev, H_SETSIZE, 1000);
	history(hist, &ev, H_SETUNIQUE, 1);
	if (histfile[0])
		history(hist, &ev, H_LOAD, histfile);
	el_set(el, EL_CLIENTDATA, s);
	el_set(el, EL_EDITOR, "emacs");
	el_set(el, EL_HIST, history, hist);
	el_set(el, EL_PROMPT, prompt);
	el_set(el, EL_SIGNAL, 1);
	el_set(el, EL_GETCFN, getc_serving);
	el_set(el, EL_ADDFN, "pt-complete", "complete a word", complete);
	el_set(el, EL_BIND, "^I", "pt-complete", NULL);
	el_source(el, NULL);
	fprintf(stdout,
		"pkttables simulator; 'help' lists the commands, 'quit' or Ctrl-D leaves.\n");
	for (;;) {
		int len;
		const char *line = el_gets(el, &len);
		char buf[4096];

		if (!line)
			break;
		n++;
		snprintf(buf, sizeof(buf), "%.*s", len, line);
		if (len && buf[strlen(buf) - 1] == '\n')
			buf[strlen(buf) - 1] = '\0';
		if (buf[strspn(buf, " \t")])
			history(hist, &ev, H_ENTER, buf);
		if (!s->in_heredoc && sim_is_quit(buf))
			break;
		sim_feed_line(s, buf, NULL, n);
		fflush(stdout);
	}
	fputc('\n', stdout);
	if (histfile[0])
		history(hist, &ev, H_SAVE, histfile);
	history_end(hist);
	el_end(el);
	return 0;
}
