/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pkttables ct`: conntrack-tools' `conntrack` over the control socket, its options, output
 * and exit statuses (0 done, 1 the operation failed, 2 a bad command line).
 *
 *   argv --ctl_ct_cli_parse--> struct ctl_ct_cli --ctl_ct_cli_run--> requests (client.h)
 *                                                                     lines on out, summary on err
 *
 * Here, not in src/cmd, so the unit tests reach all of it; src/cmd/ct.c only adds signals.
 */
#ifndef CTL_CT_CLI_H
#define CTL_CT_CLI_H

#include <signal.h>
#include <stdio.h>

#include "ctl/msg.h"

enum ctl_cli_cmd {
	CTL_CLI_NONE,
	CTL_CLI_LIST,	/* -L */
	CTL_CLI_GET,	/* -G */
	CTL_CLI_DELETE, /* -D */
	CTL_CLI_CREATE, /* -I */
	CTL_CLI_ADD,	/* -A: create, or update when it exists */
	CTL_CLI_UPDATE, /* -U */
	CTL_CLI_EVENT,	/* -E */
	CTL_CLI_FLUSH,	/* -F */
	CTL_CLI_COUNT,	/* -C */
	CTL_CLI_STATS,	/* -S */
	CTL_CLI_HELP,
	CTL_CLI_VERSION,
};

/* -n / -g / -j [IP[:PORT]]: what the NAT-ed side must have become (family 0: any address). */
struct ctl_cli_nat {
	union pt_addr addr;
	uint16_t port;
	uint8_t family;
	bool has_port;
};

/* -o beyond msg.h's CTL_FMT_EXTENDED / CTL_FMT_ID (conntrack's output types). */
enum {
	CTL_CLI_FMT_SAVE = 1 << 8, /* conntrack command lines: -R reads them back */
	CTL_CLI_FMT_XML = 1 << 9,
	CTL_CLI_FMT_TIMESTAMP = 1 << 10,  /* events: the time received, "[sec.usec]\t" first */
	CTL_CLI_FMT_KTIMESTAMP = 1 << 11, /* the entry's start (and stop) times */
	CTL_CLI_FMT_LABELS = 1 << 12,
	CTL_CLI_FMT_USERSPACE = 1 << 13,
};

struct ctl_ct_cli {
	enum ctl_cli_cmd cmd;
	bool batch;	    /* a line of a -R file: no summary, no entries is no failure */
	bool from_reply;    /* -I -r -q ... alone: the original is the reply's inverse */
	bool get_by_reply;  /* -G -r -q ... alone: answered as the kernel does (EINVAL) */
	bool expect;	    /* the expectation table ("-L expect") */
	bool empty_table;   /* -L dying / unconfirmed: always empty between two requests */
	const char *socket; /* --socket PATH / --name BOX (NULL: the default box) */
	unsigned fmt;	    /* CTL_FMT_* */
	uint32_t event_mask;
	uint8_t family;		      /* -f, or of the addresses given; 0 both */
	uint8_t l4kind;		      /* whose options -p made available (ct_cli_int.h's P_*) */
	uint64_t opts;		      /* CLI_O_* given (ct_cli.c) */
	struct ctl_tuple orig, reply; /* -s -d -p --sport ...; -r -q --reply-port-* */
	struct ctl_tuple tuple;	      /* expectations: --tuple-* */
	struct ctl_tuple mask;	      /* --mask-*, CIDR of -s/-d: expectations' mask, filters' */
	uint32_t mark, mark_mask, status, timeout;
	uint16_t zone;
	uint8_t state;	    /* --state, the kernel's TCP state number */
	const char *helper; /* -I --helper NAME (pkttables' own: conntrack 1.4.7 has none) */
	struct ctl_cli_nat snat, dnat; /* -n (and -j), -g; -I: the NAT-ed reply */
	/* -l (entries with all these), --label-add, --label-del (none named: every label) */
	uint32_t label_want[4], label_add[4], label_del[4];
};

/* Label names, from connlabel.conf ("BIT NAME" lines): $PKTTABLES_CONNLABEL_CONF, else
 * /etc/xtables/connlabel.conf, the file conntrack and iptables read. */
struct ctl_cli_labelmap {
	char name[128][32]; /* "" where the file names no label */
};
/* 0, or -errno when the file cannot be read (the map is then empty). */
int ctl_cli_labelmap_load(struct ctl_cli_labelmap *m);

/* The summary prefix conntrack prints on stderr: "conntrack v1.4.7 (conntrack-tools): ". */
#define CTL_CLI_PREFIX "conntrack v1.4.7 (conntrack-tools): "

/* Fill o from argv (argv[0] is the command name). 0, or 2 with the message (no prefix) in err
 * (1: a parse conntrack fails without its usage hint, as -o save,id). */
int ctl_ct_cli_parse(int argc, char **argv, struct ctl_ct_cli *o, char *err, size_t errlen);
/* Do it. `stop` (may be NULL) ends -E when it becomes non-zero. The exit status. */
int ctl_ct_cli_run(const struct ctl_ct_cli *o, FILE *out, FILE *err, volatile sig_atomic_t *stop);
/* parse + run, with conntrack's messages for a bad command line; `-R FILE|-` (--load-file)
 * as its first command runs the file's lines (stdin for "-"). The exit status. */
int ctl_ct_main(int argc, char **argv, FILE *out, FILE *err, volatile sig_atomic_t *stop);

#endif
