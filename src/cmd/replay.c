// SPDX-License-Identifier: GPL-2.0-or-later
/* pkttables replay: argument parsing; the work is sim_replay() (src/sim/replay.c). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "sim/sim.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: pkttables replay --rules FILE [--rules6 FILE] [--sets FILE] [--box SETUP]\n"
	    "                        IN.pcap\n"
	    "                        [-o OUT.pcap] [--trace] [--verdicts FILE] [--save] [--quiet]\n"
	    "                        [--classifier auto|linear|compiled]\n"
	    "\n"
	    "Run a pcap/pcapng capture through a box and print, per packet, where it went.\n"
	    "  --rules FILE     iptables-save ruleset (IPv4; also IPv6 when the file is unified)\n"
	    "  --rules6 FILE    ip6tables-save ruleset for IPv6\n"
	    "  --sets FILE      ipset save file: the sets -m set / -j SET name (docs/sets.md)\n"
	    "  --box SETUP      simulator script defining the box (iface, addr, route ...);\n"
	    "                   default: lan0 (10/8 172.16/12 192.168/16 fc00::/7), wan0 (rest)\n"
	    "  -o OUT.pcap      write every packet that left the box, in order\n"
	    "  --trace          TRACE lines for every rule each packet traversed\n"
	    "  --verdicts FILE  one line per packet, in the format of tests/diff/*.kernel\n"
	    "  --save           counters as iptables-save -c instead of a listing\n"
	    "  --quiet          no per-packet lines: counters and summary only\n" CMD_CLASSIFIER_HELP,
	    f);
}

int cmd_replay(int argc, char **argv)
{
	struct sim_replay_opts o;
	const char *classifier = NULL;

	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **val = NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--rules")) {
			val = &o.rules;
		} else if (!strcmp(a, "--rules6")) {
			val = &o.rules6;
		} else if (!strcmp(a, "--sets")) {
			val = &o.sets;
		} else if (!strcmp(a, "--box")) {
			val = &o.box;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			val = &o.out;
		} else if (!strcmp(a, "--verdicts")) {
			val = &o.verdicts;
		} else if (!strcmp(a, "--classifier")) {
			val = &classifier;
		} else if (!strcmp(a, "--trace")) {
			o.trace = true;
		} else if (!strcmp(a, "--save")) {
			o.save = true;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			o.quiet = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "replay: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (!o.in) {
			o.in = a;
		} else {
			fprintf(stderr, "replay: one capture only ('%s' and '%s')\n", o.in, a);
			return 2;
		}
		if (val) {
			if (i + 1 >= argc) {
				fprintf(stderr, "replay: %s needs an argument\n", a);
				return 2;
			}
			*val = argv[++i];
		}
	}
	if (!o.in || (!o.rules && !o.rules6)) {
		fprintf(stderr, "replay: give --rules FILE and a capture\n");
		usage(stderr);
		return 2;
	}
	o.classifier = cmd_classifier_mode("replay", classifier);
	if (o.classifier < 0)
		return 2;
	o.progress = isatty(STDERR_FILENO);
	return sim_replay(&o, stdout, stderr);
}
