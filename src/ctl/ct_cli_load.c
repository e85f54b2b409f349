// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `pkttables ct`'s entry point (ct_cli.h's ctl_ct_main) and conntrack's -R / --load-file:
 * a file of command lines, one command a line, as `-L -o save` prints them, so that
 *
 *   pkttables ct -L -o save > f;  pkttables ct -R f
 *   pkttables ct -L -w 10 -o save | sed 's/-w 10/-w 11/' | pkttables ct -R -
 *
 * back up, restore or copy entries as they do with conntrack.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl/ct_cli_int.h"

/* A bad command line (status 2, with conntrack's hint) or a parse that failed otherwise (1). */
static int parse_failed(FILE *err, const char *msg, int status)
{
	fprintf(err, CTL_CLI_PREFIX "%s\n", msg);
	if (status != 2)
		return status;
	fprintf(err, "Try `conntrack -h' or 'conntrack --help' for more information.\n");
	return 2;
}

static int usage_error(FILE *err, const char *msg)
{
	return parse_failed(err, msg, 2);
}

/* ---- -R / --load-file -------------------------------------------------------------------- */

/* The commands a file may hold (conntrack's list; any other is refused by its spelling). */
static const char *load_refused(const struct ctl_ct_cli *o)
{
	static const char *const names[] = {
	    [CTL_CLI_LIST] = "-L",    [CTL_CLI_GET] = "-G",   [CTL_CLI_EVENT] = "-E",
	    [CTL_CLI_COUNT] = "-C",   [CTL_CLI_STATS] = "-S", [CTL_CLI_HELP] = "-h",
	    [CTL_CLI_VERSION] = "-V",
	};
	static char buf[32];

	if (!o->expect &&
	    (o->cmd == CTL_CLI_CREATE || o->cmd == CTL_CLI_ADD || o->cmd == CTL_CLI_UPDATE ||
	     o->cmd == CTL_CLI_DELETE || o->cmd == CTL_CLI_FLUSH))
		return NULL;
	if (o->expect) {
		static const char *const x[] = {
		    [CTL_CLI_LIST] = "-L",  [CTL_CLI_CREATE] = "-I", [CTL_CLI_DELETE] = "-D",
		    [CTL_CLI_GET] = "-G",   [CTL_CLI_FLUSH] = "-F",  [CTL_CLI_EVENT] = "-E",
		    [CTL_CLI_COUNT] = "-C", [CTL_CLI_STATS] = "-S",
		};
		snprintf(buf, sizeof(buf), "%s expect",
			 o->cmd < NITEMS(x) && x[o->cmd] ? x[o->cmd] : "-?");
		return buf;
	}
	return o->cmd < NITEMS(names) && names[o->cmd] ? names[o->cmd] : "unknown";
}

/* Split a line into words as conntrack does: blanks separate, "..." quotes (\ escapes in it).
 * The words are written into w (room bytes) and pointed to from argv. The count, or -1. */
static int split_words(const char *line, char *w, size_t room, char **argv, int max)
{
	size_t o = 0;
	int n = 0;
	bool quote = false, inword = false;

	for (const char *c = line; *c; c++) {
		if (!quote && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')) {
			if (inword) {
				w[o++] = '\0';
				inword = false;
			}
			continue;
		}
		if (!inword) {
			if (n == max || o + 1 >= room)
				return -1;
			argv[n++] = w + o;
			inword = true;
		}
		if (*c == '"') {
			quote = !quote;
			continue;
		}
		if (quote && *c == '\\' && c[1])
			c++;
		if (o + 2 >= room)
			return -1;
		w[o++] = *c;
	}
	if (inword)
		w[o++] = '\0';
	return n;
}

struct load_line {
	struct ctl_ct_cli o;
	char *words; /* what o's strings point into */
};

/*
 * conntrack -R FILE: every line parsed first (a bad one: exit 2, nothing done), then each
 * command run in order on one connection; blank lines and # comments skipped. `pre` are the
 * words before -R (--socket PATH), given to every line.
 */
static int load_file(const char *path, char **pre, int npre, FILE *out, FILE *err,
		     volatile sig_atomic_t *stop)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct load_line *lines = NULL;
	size_t n = 0, cap = 0;
	char buf[10240], msg[512];
	int status = 0;

	if (!f) {
		snprintf(msg, sizeof(msg), "Failed to open file %s for reading",
			 strcmp(path, "-") ? path : "/dev/stdin");
		return usage_error(err, msg);
	}
	while (status == 0 && fgets(buf, sizeof(buf), f)) {
		char *argv[256];
		const char *why;
		int argc;

		argv[0] = "conntrack";
		for (int i = 0; i < npre && i < 8; i++)
			argv[1 + i] = pre[i];
		if (n == cap) {
			struct load_line *nl =
			    realloc(lines, (cap = cap ? 2 * cap : 64) * sizeof(*nl));

			if (!nl) {
				status = usage_error(err, "OOM");
				break;
			}
			lines = nl;
		}
		if (!(lines[n].words = malloc(sizeof(buf)))) {
			status = usage_error(err, "OOM");
			break;
		}
		argc = split_words(buf, lines[n].words, sizeof(buf), argv + 1 + npre,
				   (int)NITEMS(argv) - 1 - npre);
		if (argc <= 0 || argv[1 + npre][0] == '#') {
			free(lines[n].words);
			if (argc < 0)
				status = usage_error(err, "too many arguments");
			continue;
		}
		if ((status =
			 ctl_ct_cli_parse(argc + 1 + npre, argv, &lines[n].o, msg, sizeof(msg)))) {
			parse_failed(err, msg, status);
		} else if ((why = load_refused(&lines[n].o))) {
			snprintf(msg, sizeof(msg), "Cannot use command `%s' with --load-file", why);
			status = usage_error(err, msg);
		}
		lines[n].o.batch = true;
		n++;
	}
	if (f != stdin)
		fclose(f);
	if (status == 0 && n) {
		const struct ctl_ct_cli **cmds = malloc(n * sizeof(*cmds));

		for (size_t i = 0; cmds && i < n; i++)
			cmds[i] = &lines[i].o;
		status = cmds ? ctl_cli_run_each(cmds, n, out, err, stop) : usage_error(err, "OOM");
		free(cmds);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i].words);
	free(lines);
	return status;
}

int ctl_ct_main(int argc, char **argv, FILE *out, FILE *err, volatile sig_atomic_t *stop)
{
	struct ctl_ct_cli o;
	char msg[256];
	int first = 1, status;

	/* -R must come first, as in conntrack; pkttables' --socket/--name may stand before it */
	while (first + 1 < argc &&
	       (!strcmp(argv[first], "--socket") || !strcmp(argv[first], "--name")))
		first += 2;
	if (first + 1 < argc && (!strcmp(argv[first], "-R") || !strcmp(argv[first], "--load-file")))
		return load_file(argv[first + 1], argv + 1, first - 1, out, err, stop);
	if ((status = ctl_ct_cli_parse(argc, argv, &o, msg, sizeof(msg))))
		return parse_failed(err, msg, status);
	return ctl_ct_cli_run(&o, out, err, stop);
}
