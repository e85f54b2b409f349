/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What live mode's files share: the application's state (struct live) and its bounds.
 * live.c runs it (receive, transmit, neighbours, the local stack, the loop, the dump);
 * config.c reads the config file into it; workers.c has the threads and the box lock.
 *
 * Who touches what: a struct live_worker belongs to its thread (its ports' receive side, its
 * staged batch, its transmit queues, its counters); everything in struct live after `pool`
 * is touched under the box lock only (pool.box_lock), by the worker that holds it (`cur`).
 */
#ifndef LIVE_LIVE_INT_H
#define LIVE_LIVE_INT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/box.h"
#include "io/ndisc.h"
#include "io/pcapio.h"
#include "io/port.h"
#include "live/live.h"
#include "live/workers.h"

#define LIVE_WAIT_MS	 100
#define LIVE_BUSY_NS	 1000000 /* a busy worker's longest run of passes without a wait */
#define LIVE_RX_BUDGET	 256
#define LIVE_TXQ	 256		/* frames per interface before a flush */
#define LIVE_LOCALQ	 LIVE_RX_BUDGET /* local answers of one burst: one per packet at most */
#define LIVE_MAX_WORDS	 32
#define LIVE_NDISC_BATCH 32   /* ARP / NS / NA frames staged with a batch */
#define LIVE_LEND_IDLE	 1024 /* a worker's idle packets for lent frames (zero-copy receive) */
#define ETH_HLEN	 14

struct live_stats {
	uint64_t not_for_us;	/* unicast frames to another MAC (promiscuous) */
	uint64_t ndisc_in;	/* ARP / NS / NA frames handled */
	uint64_t ndisc_bad;	/* ARP / NS / NA frames refused (RFC 4861 7.1 checks) */
	uint64_t ndisc_answers; /* ARP replies and NAs sent */
	uint64_t local_answers; /* echo replies, RSTs, port unreachables */
	uint64_t local_full;	/* local answers dropped: queue full */
	uint64_t neigh_drops;	/* frames dropped waiting for a next hop */
	uint64_t nomem;
	uint64_t bad_offload;  /* GSO frames whose virtio_net_hdr disagrees with their headers */
	uint64_t csum_partial; /* frames with a partial checksum (finished before the rules) */
	uint64_t reloads, reload_errors;
};

struct live_txq {
	struct pkt *p[LIVE_TXQ];
	unsigned n;
};

#define LIVE_MAX_NFLOG 8 /* `nflog GROUP FILE` lines */

struct live;

/* One data-path thread: its sockets, what it received and will send, its counters. */
struct live_worker {
	struct live *l;
	unsigned id;
	struct io_port *port[BOX_MAX_IFACES]; /* by box interface index - 1 */
	bool rx[BOX_MAX_IFACES];	      /* it receives on port[i] (else sends only) */
	struct live_txq txq[BOX_MAX_IFACES];
	/* packets over frames its rings lend (zero-copy receive); a packet kept past the burst
	 * leaves the pool (pkt_keep), so only this worker ever frees one of its packets */
	struct pkt_pool *lend;
	/* a received batch, lent by the rings or copied out of them, waiting for the box lock */
	struct pkt *stage[LIVE_RX_BUDGET];
	int stage_if[LIVE_RX_BUDGET];
	unsigned nstage;
	struct ndisc_msg nd[LIVE_NDISC_BATCH];
	int nd_if[LIVE_NDISC_BATCH];
	unsigned nnd;
	struct live_stats st; /* written by this worker only */
	/* the dump's copy (workers.h: the snapshot) */
	struct live_stats snap_st;
	struct afpacket_stats snap_port[BOX_MAX_IFACES];
	struct pkt_pool_stats snap_lend;
};

struct live {
	struct box *box;
	struct neigh_table *neigh;
	unsigned nsock;			/* interfaces (box interface index - 1) */
	int io_kind;			/* `io ...`: enum io_kind for the next ifaces */
	int iface_kind[BOX_MAX_IFACES]; /* each interface's io, opened after the config */
	unsigned iface_line[BOX_MAX_IFACES];
	uint8_t mac[BOX_MAX_IFACES][6];	 /* read without the lock: fixed before the workers */
	uint8_t kmac[BOX_MAX_IFACES][6]; /* the kernel's MAC of each interface (also taken) */
	unsigned nworkers;		 /* `workers N`; 0: live_workers_default() */
	int spread;			 /* `workers N SPREAD`: enum io_spread */
	char config[PATH_MAX];
	struct live_worker *w[LIVE_MAX_WORKERS];
	struct live_pool pool;
	/* ---- under the box lock ---- */
	struct live_worker *cur; /* the worker holding the lock */
	struct pkt *localq[LIVE_LOCALQ];
	unsigned nlocal;
	char rules[PATH_MAX], rules6[PATH_MAX];
	char control[PATH_MAX]; /* `control SPEC` (or --control): "" none */
	int cls_forced;		/* run --classifier (CLS_MODE_*), or -1: the config's line */
	struct ctl_server *ctl;
	struct live_sync *sync; /* `sync ...` lines: state replication (live/sync.c) */
	uint64_t sync_due;	/* when worker 0 next wakes for sync (box clock, ns) */
	int sync_wake;		/* eventfd worker 0 polls: sync work due before sync_due */
	uint64_t pkt_id;
	struct live_stats st; /* before the workers: reloads at start */
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
/* Open every interface's ports for l->nworkers workers; errors as FILE:LINE of its iface line. */
int live_open_ports(struct live *l);

#endif
