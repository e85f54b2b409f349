// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables parse [-4|-6] [-c] [--sets FILE] FILE...
 *
 * Reads each file as iptables-restore would and prints it back as iptables-save -c / without
 * -c would after that restore. Every file is parsed before anything is printed, so a bad file
 * means no output at all. With --sets, the sets file (`ipset save` form) is read first, as
 * `ipset restore` would, and printed first as `ipset save` prints it; the rules' -m set and
 * -j SET must name its sets (of their family, with enough src/dst flags).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "engine/setup.h"
#include "ext/set_bind.h"
#include "rules/rules.h"
#include "set/set.h"
#include "set/set_cmd.h"

static void parse_usage(FILE *f)
{
	fputs("usage: pkttables parse [-4|-6] [-c] [--sets FILE] [--help] FILE...\n"
	      "  Validate iptables-save files and print them in canonical iptables-save form.\n"
	      "  -4, -6   family (default -4); a unified file given -6 yields its IPv6 part\n"
	      "  -c       keep and print counters ([pkts:bytes] on rules), like iptables-save -c\n"
	      "  --sets FILE  an `ipset save` file: printed first as ipset save prints it; the\n"
	      "           rules' -m set / -j SET are checked against its sets\n"
	      "  FILE     a file, or - for standard input\n"
	      "Errors: FILE:LINE: message (near 'token'), exit status 1.\n",
	      f);
}

int cmd_parse(int argc, char **argv)
{
	int family = AF_INET, nfiles = 0, status = 0;
	bool counters = false, opts_done = false;
	const char *sets_file = NULL;
	struct set_table *st = NULL;
	struct rules_ruleset **sets;
	char **files;

	files = calloc((size_t)argc, sizeof(*files));
	sets = calloc((size_t)argc, sizeof(*sets));
	if (!files || !sets) {
		fprintf(stderr, "pkttables parse: out of memory\n");
		free(files);
		free(sets);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			parse_usage(stdout);
			free(files);
			free(sets);
			return 0;
		} else if (!opts_done && !strcmp(a, "-4")) {
			family = AF_INET;
		} else if (!opts_done && !strcmp(a, "-6")) {
			family = AF_INET6;
		} else if (!opts_done && !strcmp(a, "-c")) {
			counters = true;
		} else if (!opts_done && !strcmp(a, "--sets") && i + 1 < argc) {
			sets_file = argv[++i];
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr, "pkttables parse: unknown option '%s'\n", a);
			parse_usage(stderr);
			free(files);
			free(sets);
			return 2;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (!nfiles) {
		parse_usage(stderr);
		free(files);
		free(sets);
		return 2;
	}
	if (sets_file) {
		static const uint64_t no_key[2];
		char *buf, msg[512];
		size_t len;
		unsigned line;
		int rc = box_read_file(sets_file, &buf, &len);

		if (rc < 0) {
			fprintf(stderr, "pkttables parse: %s: %s\n", sets_file, strerror(-rc));
			status = 1;
		} else if (!(st = set_table_new(no_key))) {
			status = 1;
		} else if (set_restore(st, buf, len, false, 0, stdout, msg, sizeof(msg), &line)) {
			fprintf(stderr, "%s:%u: %s\n", sets_file, line, msg);
			status = 1;
		}
		if (rc >= 0)
			free(buf);
	}
	for (int i = 0; i < nfiles && !status; i++) {
		struct rules_error err;

		memset(&err, 0, sizeof(err));
		if (rules_parse_file(files[i], family, ext_registry_default(), NULL, 0, &sets[i],
				     &err)) {
			rules_error_print(&err, stderr);
			status = 1;
		} else if (ext_set_bind(st, sets[i], &err)) {
			snprintf(err.file, sizeof(err.file), "%s", files[i]);
			rules_error_print(&err, stderr);
			status = 1;
		} else if (!counters) {
			/* iptables-restore without -c starts every counter at zero */
			rules_zero_counters(sets[i]);
		}
	}
	if (st && !status) {
		char *av[1] = {"save"}, msg[256];

		set_cmd_line(st, 1, av, NULL, 0, 0, stdout, msg, sizeof(msg));
	}
	for (int i = 0; i < nfiles && !status; i++)
		if (rules_print(sets[i], stdout, counters ? RULES_PRINT_COUNTERS : 0))
			status = 1;
	for (int i = 0; i < nfiles; i++)
		rules_ruleset_free(sets[i]);
	set_table_free(st);
	free(files);
	free(sets);
	if (fflush(stdout))
		status = 1;
	return status;
}
