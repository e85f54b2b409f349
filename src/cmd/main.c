/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build/pkttables COMMAND [ARGS]: dispatch to the subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify/ruleset.h"
#include "cmd/cmd.h"
#include "cmd/version.h"

int cmd_classifier_mode(const char *cmd, const char *arg)
{
	const char *env = getenv("PT_CLASSIFIER");
	int mode;

	if (!arg)
		arg = env && *env ? env : "auto";
	mode = cls_mode_parse(arg);
	if (mode < 0)
		fprintf(stderr, "%s: --classifier: '%s' is not auto, linear or compiled\n", cmd,
			arg);
	return mode;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"parse", cmd_parse, "validate rulesets and print them in canonical iptables-save form"},
    {"replay", cmd_replay, "run a pcap/pcapng capture through a ruleset"},
    {"sim", cmd_sim, "the simulator: a shell, or a regression test given a script"},
    {"run", cmd_run, "live: forward between real interfaces (AF_PACKET) with a ruleset"},
    {"ct", cmd_ct, "conntrack(8) against a running box: list, get, create, delete, events"},
    {"rules", cmd_rules, "a running box's ruleset: save, restore (atomic), zero, policy"},
    {"sync", cmd_sync, "a running box's state replication: commit, flush, resync, bulk, stats"},
    {"ipset", cmd_ipset,
     "ipset(8) against a running box's sets: create, add, test, list, swap ..."},
    {"gen", cmd_gen, "packet generator: seeded flows to a pcap or an interface; --receive counts"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pkttables COMMAND [ARGS]   (pkttables COMMAND --help for details)\n"
		   "       pkttables --version\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pkttables %s\n", PKTTABLES_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "pkttables: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
