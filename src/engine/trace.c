/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TRACE lines: the kernel's log line (pkt_log_format) with the flags the TRACE target uses (TCP
 * sequence numbers, TCP options, IP options; no UID: a box has no local sockets), after
 * "TRACE: table:chain:type:rulenum ". The kernel ends the line with a space; it is removed
 * here so that lines compare cleanly.
 */
#include <string.h>

#include "engine/engine_int.h"
#include "pkt/log.h"

static const char *const table_names[TABLE_MAX] = {
    [TABLE_RAW] = "raw",       [TABLE_MANGLE] = "mangle",     [TABLE_NAT] = "nat",
    [TABLE_FILTER] = "filter", [TABLE_SECURITY] = "security",
};

void box_trace(struct box *b, const struct pkt *p, unsigned table, const char *chain,
	       const char *comment, unsigned rulenum, const char *in, const char *out)
{
	char prefix[96], line[1024];
	struct pkt_log_opts o = {.prefix = prefix,
				 .in = in,
				 .out = out,
				 .uid = -1,
				 .flags = PKT_LOG_TCPSEQ | PKT_LOG_TCPOPT | PKT_LOG_IPOPT};
	size_t n;

	if (!b->ops.trace)
		return;
	snprintf(prefix, sizeof(prefix), "TRACE: %s:%s:%s:%u ",
		 table < TABLE_MAX ? table_names[table] : "?", chain, comment, rulenum);
	n = pkt_log_format(line, sizeof(line), p, &o);
	if (n && line[n - 1] == ' ')
		line[n - 1] = '\0';
	b->ops.trace(b->user, b, p, line);
}
