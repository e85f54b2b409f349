// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables parse [-4|-6] [-c] FILE...
 *
 * Reads each file as iptables-restore would and prints it back as iptables-save -c / without
 * -c would after that restore. Every file is parsed before anything is printed, so a bad file
 * means no output at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "rules/rules.h"

static void parse_usage(FILE *f)
{
	fputs("usage: pkttables parse [-4|-6] [-c] [--help] FILE...\n"
	      "  Validate iptables-save files and print them in canonical iptables-save form.\n"
	      "  -4, -6   family (default -4); a unified file given -6 yields its IPv6 part\n"
	      "  -c       keep and print counters ([pkts:bytes] on rules), like iptables-save -c\n"
	      "  FILE     a file, or - for standard input\n"
	      "Errors: FILE:LINE: message (near 'token'), exit status 1.\n",
	      f);
}

int cmd_parse(int argc, char **argv)
{
	int family = AF_INET, nfiles = 0, status = 0;
	bool counters = false, opts_done = false;
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
	for (int i = 0; i < nfiles && !status; i++) {
		struct rules_error err;

		if (rules_parse_file(files[i], family, ext_registry_default(), NULL, 0, &sets[i],
				     &err)) {
			rules_error_print(&err, stderr);
			status = 1;
		} else if (!counters) {
			/* iptables-restore without -c starts every counter at zero */
			rules_zero_counters(sets[i]);
		}
	}
	for (int i = 0; i < nfiles && !status; i++)
		if (rules_print(sets[i], stdout, counters ? RULES_PRINT_COUNTERS : 0))
			status = 1;
	for (int i = 0; i < nfiles; i++)
		rules_ruleset_free(sets[i]);
	free(files);
	free(sets);
	if (fflush(stdout))
		status = 1;
	return status;
}
