/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pkttables ct` inside (ct_cli.h is the outside): the option ids the three files share.
 *
 *   ct_cli_opts.c   argv -> struct ctl_ct_cli: the option table, values, what each command needs
 *   ct_cli_show.c   what a listed entry must pass (filters the protocol has no attribute for)
 *                   and how it is printed (-o default|extended|id|save|xml|...)
 *   ct_cli.c        the commands: requests to the box, summaries, exit statuses
 *   ct_cli_load.c   ctl_ct_main, -R files
 */
#ifndef CTL_CT_CLI_INT_H
#define CTL_CT_CLI_INT_H

#include "ctl/client.h"
#include "ctl/ct_cli.h"

enum {
	O_SRC,
	O_DST,
	O_REPLY_SRC,
	O_REPLY_DST,
	O_PROTO,
	O_FAMILY,
	O_TIMEOUT,
	O_STATUS,
	O_MARK,
	O_ZONE,
	O_ORIG_ZONE,
	O_REPLY_ZONE,
	O_OUTPUT,
	O_EVENT_MASK,
	O_BUFFER,
	O_TUPLE_SRC,
	O_TUPLE_DST,
	O_MASK_SRC,
	O_MASK_DST,
	O_SOCKET,
	O_NAME,
	O_ZERO,
	O_HELPER,
	O_SRC_NAT,
	O_DST_NAT,
	O_ANY_NAT,
	O_LABEL,
	O_LABEL_ADD,
	O_LABEL_DEL,
	/* protocol options */
	O_SPORT,
	O_DPORT,
	O_REPLY_SPORT,
	O_REPLY_DPORT,
	O_STATE,
	O_ICMP_TYPE,
	O_ICMP_CODE,
	O_ICMP_ID,
	O_ICMP6_TYPE,
	O_ICMP6_CODE,
	O_ICMP6_ID,
	O_TUPLE_SPORT,
	O_TUPLE_DPORT,
	O_MASK_SPORT,
	O_MASK_DPORT,
	O_NUM
};
#define OB(o) (1ull << (o))

/* What -p named, for which options exist (a port option only after -p tcp, ...). */
enum { P_ANY, P_PORTS, P_TCP, P_ICMP, P_ICMP6 };
#define ICMPISH(k) ((k) == P_ICMP || (k) == P_ICMP6)

#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

/* P_* of a protocol number (P_ANY: none of the protocols conntrack has options for). */
uint8_t ctl_cli_proto_kind(uint8_t num);
/* conntrack's name of a protocol it has options for (NULL: print the number). */
const char *ctl_cli_proto_name(uint8_t num);
/* conntrack's name of a TCP state (LISTEN is SYN_SENT2's number in the kernel). */
const char *ctl_cli_tcp_state_name(uint8_t state);

/* ---- ct_cli.c ---------------------------------------------------------------------------- */

/* Run the commands in order on one connection (to cmds[0]'s box). 0, or 1 when one failed. */
int ctl_cli_run_each(const struct ctl_ct_cli *const *cmds, size_t n, FILE *out, FILE *err,
		     volatile sig_atomic_t *stop);

/* ---- ct_cli_show.c ----------------------------------------------------------------------- */

/* Does the entry pass what only the client can check: --state, -n/-g/-j, address masks? */
bool ctl_cli_passes(const struct ctl_ct_cli *o, const struct ctl_ct *c);
/* An entry as -o asks (fmt: CTL_FMT_* | CTL_CLI_FMT_*); `save_cmd` starts a -o save line
 * ("-A", "-D", "-U", NULL: none); `names` the labels' (-o labels). The length written, as
 * snprintf. */
int ctl_cli_format(const struct ctl_ct *c, unsigned fmt, const char *save_cmd,
		   const struct ctl_cli_labelmap *names, char *buf, size_t len);
/* The XML document's head and tail around -o xml entries. */
#define CTL_CLI_XML_HEAD "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<conntrack>\n"
#define CTL_CLI_XML_TAIL "</conntrack>\n"

#endif
