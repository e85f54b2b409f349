/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel log line of a packet, in the exact format of the kernel's nf_log (nf_log_syslog),
 * for -j LOG and for TRACE. One line; every field ends with a space, the last one too.
 *
 *   PREFIX IN=lan0 OUT= MAC=<dst>:<src>:<type> SRC=10.0.0.2 DST=10.0.0.1 LEN=60 TOS=0x00
 *   PREC=0x00 TTL=64 ID=9776 DF PROTO=TCP SPT=34412 DPT=80 WINDOW=64240 RES=0x00 SYN URGP=0
 *
 * IPv6: SRC/DST fully expanded, "LEN=<payload+40> TC=.. HOPLIMIT=.. FLOWLBL=..", extension
 * headers walked. ICMP errors quote the inner packet in brackets, once. MAC= only when there is
 * an input interface (empty on raw-IP links).
 */
#ifndef PKT_LOG_H
#define PKT_LOG_H

#include <stddef.h>

#include "pkt/pkt.h"

/* What the line shows besides the defaults: LOG's --log-* flags (TRACE uses the first three). */
enum {
	PKT_LOG_TCPSEQ = 1 << 0,    /* SEQ= ACK= */
	PKT_LOG_TCPOPT = 1 << 1,    /* OPT (<hex>) after the TCP header */
	PKT_LOG_IPOPT = 1 << 2,	    /* IPv4 options, IPv6 extension headers */
	PKT_LOG_UID = 1 << 3,	    /* UID= GID= of the owning socket (pkt_log_opts.uid) */
	PKT_LOG_MACDECODE = 1 << 4, /* MACSRC= MACDST= MACPROTO= instead of MAC= */
};

struct pkt_log_opts {
	const char *prefix;   /* written first, as given; NULL: none */
	const char *in, *out; /* interface names; NULL or "" when none */
	unsigned flags;	      /* PKT_LOG_* */
	long uid;	      /* printed with PKT_LOG_UID when >= 0 */
};

/*
 * pkt_log_format - write the log line of p (parsed: p->info) into buf (len bytes, cut short
 * and always terminated). Returns the length written.
 */
size_t pkt_log_format(char *buf, size_t len, const struct pkt *p, const struct pkt_log_opts *o);

#endif
