// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What `pkttables sync stats` and `sync internal` print: the counters of the protocol engine
 * (proto.c) and the replicated part of the conntrack table.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "sync/sync_int.h"

/* ---- statistics -------------------------------------------------------------------------- */

/*
 * One row a line of output, in the order printed (tools and the simulator's `expect sync-stats`
 * read these names). A field is a uint64_t or uint32_t of struct sync: most are counters of
 * s->st; resend_queue, tx_queue and pending are the queues' lengths now.
 */
struct stat_row {
	const char *name;
	size_t off, size;
};

/* Where a field of struct sync is and how wide (4 or 8 bytes). */
#define FIELD(f) offsetof(struct sync, f), sizeof(((struct sync *)0)->f)

static const struct stat_row stat_rows[] = {
    {"tx_datagrams", FIELD(st.tx_dgrams)},
    {"tx_bytes", FIELD(st.tx_bytes)},
    {"tx_messages", FIELD(st.tx_msgs)},
    {"tx_errors", FIELD(st.tx_errors)},
    {"rx_datagrams", FIELD(st.rx_dgrams)},
    {"rx_bytes", FIELD(st.rx_bytes)},
    {"rx_messages", FIELD(st.rx_msgs)},
    {"rx_malformed", FIELD(st.rx_malformed)},
    {"rx_truncated", FIELD(st.rx_err[SYNC_RX_TRUNCATED])},
    {"rx_bad_size", FIELD(st.rx_err[SYNC_RX_BAD_SIZE])},
    {"rx_bad_version", FIELD(st.rx_err[SYNC_RX_BAD_VERSION])},
    {"rx_bad_header", FIELD(st.rx_err[SYNC_RX_BAD_HEADER])},
    {"rx_bad_type", FIELD(st.rx_err[SYNC_RX_BAD_TYPE])},
    {"rx_bad_payload", FIELD(st.rx_err[SYNC_RX_BAD_PAYLOAD])},
    {"rx_incomplete", FIELD(st.rx_err[SYNC_RX_INCOMPLETE])},
    {"rx_auth_fail", FIELD(st.rx_auth_fail)},
    {"rx_replay", FIELD(st.rx_replay)},
    {"seq_lost", FIELD(st.seq_lost)},
    {"seq_before", FIELD(st.seq_before)},
    {"tx_ack", FIELD(st.tx_ack)},
    {"tx_nack", FIELD(st.tx_nack)},
    {"tx_resync", FIELD(st.tx_resync)},
    {"tx_alive", FIELD(st.tx_alive)},
    {"rx_ack", FIELD(st.rx_ack)},
    {"rx_nack", FIELD(st.rx_nack)},
    {"rx_resync", FIELD(st.rx_resync)},
    {"rx_hello", FIELD(st.rx_hello)},
    {"resent", FIELD(st.resent)},
    {"resend_queue", FIELD(rs.len)},
    {"resend_dropped", FIELD(st.rs_dropped)},
    {"tx_queue", FIELD(tx.len)},
    {"tx_dropped", FIELD(st.tx_dropped)},
    {"pending", FIELD(npend)},
    {"coalesced", FIELD(st.coalesced)},
    {"internal_sent_new", FIELD(st.int_sent_new)},
    {"internal_sent_upd", FIELD(st.int_sent_upd)},
    {"internal_sent_del", FIELD(st.int_sent_del)},
    {"filtered", FIELD(st.filtered)},
    {"external_entries", FIELD(st.ext_count)},
    {"external_new", FIELD(st.ext_new)},
    {"external_upd", FIELD(st.ext_upd)},
    {"external_del", FIELD(st.ext_del)},
    {"external_full", FIELD(st.ext_full)},
    {"external_expired", FIELD(st.ext_expired)},
    {"expectations", FIELD(st.exp_count)},
    {"expectations_received", FIELD(st.exp_received)},
    {"expectations_full", FIELD(st.exp_full)},
    {"expectations_committed", FIELD(st.exp_committed)},
    {"expectations_failed", FIELD(st.exp_failed)},
    {"nat_mappings_sent", FIELD(st.map_tx)},
    {"nat_mappings_received", FIELD(st.map_rx)},
    {"nat_mappings_applied", FIELD(st.map_applied)},
    {"nat_mappings_refused", FIELD(st.map_refused)},
    {"nat_mappings_forgotten", FIELD(st.map_forgotten)},
    {"committed", FIELD(st.committed)},
    {"commit_failed", FIELD(st.commit_failed)},
    {"direct_applied", FIELD(st.direct_applied)},
    {"direct_failed", FIELD(st.direct_failed)},
};

static unsigned long long stat_value(const struct sync *s, const struct stat_row *r)
{
	const char *at = (const char *)s + r->off;
	uint64_t v64;
	uint32_t v32;

	if (r->size == sizeof(v32)) {
		memcpy(&v32, at, sizeof(v32));
		return v32;
	}
	memcpy(&v64, at, sizeof(v64));
	return v64;
}

void sync_stats_print(const struct sync *s, FILE *f)
{
	static const char *const mode[] = {"ftfw", "notrack", "alarm"};

	fprintf(f, "mode %s\n", mode[s->cfg.mode]);
	for (size_t i = 0; i < sizeof(stat_rows) / sizeof(stat_rows[0]); i++)
		fprintf(f, "%s %llu\n", stat_rows[i].name, stat_value(s, &stat_rows[i]));
}

struct dump_walk {
	struct sync *s;
	FILE *f;
	uint64_t now;
	unsigned n;
};

static enum ct_walk_action dump_visit(void *priv, struct ct_entry *e)
{
	struct dump_walk *w = priv;
	struct sync_flow fl;
	char line[512];

	if (!sync_filter_pass(w->s, e))
		return CT_WALK_NEXT;
	sync_flow_from_entry(&fl, e, w->s->cfg.tcp_window_tracking, w->now);
	sync_flow_format(&fl, line, sizeof(line));
	fprintf(w->f, "%s\n", line);
	w->n++;
	return CT_WALK_NEXT;
}

unsigned sync_dump_internal(struct sync *s, FILE *f, uint64_t now)
{
	struct dump_walk w = {.s = s, .f = f, .now = now};
	uint32_t cursor = 0;

	while (!ct_walk(s->ct, &cursor, 4096, now, dump_visit, &w))
		;
	return w.n;
}
