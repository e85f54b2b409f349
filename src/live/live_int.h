/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What live mode's files share: the application's state (struct live) and its bounds.
 * live.c runs it (receive, transmit, neighbours, the local stack, the loop, the dump);
 * config.c reads the config file into it.
 */
#ifndef LIVE_LIVE_INT_H
#define LIVE_LIVE_INT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/box.h"
#include "io/pcapio.h"
#include "io/port.h"
#include "live/live.h"

#define LIVE_WAIT_MS   100
#define LIVE_RX_BUDGET 256
#define LIVE_TXQ       256 /* frames per interface before a flush */
#define LIVE_LOCALQ    64  /* local answers made while handling one batch */
#define LIVE_MAX_WORDS 32
#define ETH_HLEN       14

struct live_stats {
	uint64_t not_for_us;	/* unicast frames to another MAC (promiscuous) */
	uint64_t ndisc_in;	/* ARP / NS / NA frames handled */
	uint64_t ndisc_bad;	/* ARP / NS / NA frames refused (RFC 4861 7.1 checks) */
	uint64_t ndisc_answers; /* ARP replies and NAs sent */
	uint64_t local_answers; /* echo replies, RSTs, port unreachables */
	uint64_t local_full;	/* local answers dropped: queue full */
	uint64_t neigh_drops;	/* frames dropped waiting for a next hop */
	uint64_t nomem;
	uint64_t reloads, reload_errors;
};

struct live_txq {
	struct pkt *p[LIVE_TXQ];
	unsigned n;
};

#define LIVE_MAX_NFLOG 8 /* `nflog GROUP FILE` lines */

struct live {
	struct box *box;
	struct neigh_table *neigh;
	struct io_port *sock[BOX_MAX_IFACES]; /* by box interface index - 1 */
	int io_kind;			      /* `io ...`: enum io_kind for the next ifaces */
	struct live_txq txq[BOX_MAX_IFACES];
	unsigned nsock;
	struct pkt *localq[LIVE_LOCALQ];
	unsigned nlocal;
	char rules[PATH_MAX], rules6[PATH_MAX];
	char control[PATH_MAX]; /* `control SPEC` (or --control): "" none */
	int cls_forced;		/* run --classifier (CLS_MODE_*), or -1: the config's line */
	struct ctl_server *ctl;
	struct live_sync *sync; /* `sync ...` lines: state replication (live/sync.c) */
	uint64_t pkt_id;
	struct live_stats st;
	FILE *err;
	/* `nflog GROUP FILE` lines: what -j NFLOG hands to GROUP, as raw IP into a pcap */
	struct {
		unsigned group;
		struct pcapio_writer *w;
	} nflog[LIVE_MAX_NFLOG];
	unsigned nnflog;
};

/* Read the config file at path into l (box setup lines, interfaces, files, sync...); an error
 * is reported as FILE:LINE: message on l->err. 0 or -errno. */
int live_read_config(struct live *l, const char *path);

#endif
