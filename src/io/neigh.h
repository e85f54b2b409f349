/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The neighbour table of live mode: which MAC an IPv4 / IPv6 next hop on an interface has, as
 * ARP and neighbour discovery found out, and the packets waiting while that is asked.
 *
 *   (no entry) --output--> INCOMPLETE --reply--> REACHABLE --reachable_ns--> STALE
 *                           | probe every retrans_ns,              | used: unicast probe,
 *                           | max_probes, then FAILED: queued       | still sent to the MAC;
 *                           | packets dropped, entry removed        | no answer within
 *                           v                                       | max_probes*retrans_ns:
 *                        (removed)  <-------------------------------+ removed
 *
 * Bounded: at most max_entries entries (when full, a new next hop is refused and counted),
 * at most queue_len packets waiting per entry (the oldest is dropped, as the kernel's
 * unres_qlen does). Time is always an argument; nothing here reads a clock.
 */
#ifndef IO_NEIGH_H
#define IO_NEIGH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt/pkt.h"

struct neigh_table;

struct neigh_params {
	unsigned max_entries;  /* default 1024 */
	unsigned queue_len;    /* packets waiting per unresolved entry, default 16 */
	uint64_t retrans_ns;   /* between probes, default 1 s */
	unsigned max_probes;   /* default 3 */
	uint64_t reachable_ns; /* an answer is trusted this long, default 30 s */
};

struct neigh_stats {
	uint64_t probes;      /* solicitations asked for (multicast and unicast) */
	uint64_t resolved;    /* entries that got an answer */
	uint64_t failed;      /* entries given up */
	uint64_t queued;      /* packets that had to wait */
	uint64_t queue_drops; /* dropped: queue full (oldest) or resolution failed */
	uint64_t table_full;  /* a next hop refused: no room for its entry */
	unsigned entries;
};

/* What the table asks its user to do. All optional (NULL: nothing). */
struct neigh_ops {
	/* Ask for `addr` on `ifindex`: broadcast / multicast when mac is NULL, else unicast. */
	void (*probe)(void *arg, int ifindex, int family, const union pt_addr *addr,
		      const uint8_t *mac);
	/* A waiting packet can go now: to `mac` on `ifindex`. Takes ownership. */
	void (*send)(void *arg, int ifindex, struct pkt *p, const uint8_t mac[6]);
	/* A waiting packet is given up (queue full or no answer). Takes ownership. */
	void (*drop)(void *arg, int ifindex, struct pkt *p, bool unresolved);
};

/* params may be NULL (defaults); zero fields take their default too. NULL on ENOMEM. */
struct neigh_table *neigh_new(const struct neigh_params *params, const struct neigh_ops *ops,
			      void *arg);
/* Frees every waiting packet (without calling ops.drop) and the table. */
void neigh_free(struct neigh_table *t);

enum neigh_result {
	NEIGH_SEND,   /* *mac is filled: send the packet now (the caller keeps it) */
	NEIGH_QUEUED, /* the table holds the packet until the answer (or the drop) */
	NEIGH_DROPPED /* refused (table full); the packet was handed to ops.drop */
};

/*
 * The packet p leaves on ifindex toward next hop addr. SEND with the MAC (a stale entry also
 * asks for a unicast probe), or QUEUED (taking p; a new entry asks for its first probe at
 * once), or DROPPED.
 */
enum neigh_result neigh_output(struct neigh_table *t, int ifindex, int family,
			       const union pt_addr *addr, struct pkt *p, uint64_t now,
			       uint8_t mac[6]);

/*
 * addr on ifindex is at mac. `create`: make an entry when there is none (an ARP request or a
 * neighbour solicitation addressed to us: the asker will be talked to next); otherwise only an
 * existing entry is updated. Waiting packets are sent through ops.send.
 */
void neigh_update(struct neigh_table *t, int ifindex, int family, const union pt_addr *addr,
		  const uint8_t mac[6], bool create, uint64_t now);

/* Timers: probes again, gives up, expires. Call at least every retrans_ns / 4 or so. */
void neigh_tick(struct neigh_table *t, uint64_t now);

/* The MAC known for addr (REACHABLE or STALE), without side effects. 0 or -ENOENT. */
int neigh_lookup(const struct neigh_table *t, int ifindex, int family, const union pt_addr *addr,
		 uint8_t mac[6]);

void neigh_get_stats(const struct neigh_table *t, struct neigh_stats *st);
/* Like `ip neigh`: "192.0.2.2 dev 1 lladdr 02:..:01 REACHABLE (age 1.2 s)". */
void neigh_print(const struct neigh_table *t, FILE *f, uint64_t now,
		 const char *(*ifname)(void *arg, int ifindex), void *arg);

#endif
