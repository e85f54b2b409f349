// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What `pkttables sync stats` and `sync internal` print: the counters of the protocol engine
 * (proto.c) and the replicated part of the conntrack table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "ct/create.h"
#include "ct/expect.h"
#include "ct/helper.h"
#include "sync/sync_int.h"

/* ---- statistics -------------------------------------------------------------------------- */

void sync_stats_print(const struct sync *s, FILE *f)
{
	const struct sync_stats *t = &s->st;
	static const char *const mode[] = {"ftfw", "notrack", "alarm"};

	fprintf(f, "mode %s\n", mode[s->cfg.mode]);
	fprintf(f, "tx_datagrams %llu\ntx_bytes %llu\ntx_messages %llu\ntx_errors %llu\n",
		(unsigned long long)t->tx_dgrams, (unsigned long long)t->tx_bytes,
		(unsigned long long)t->tx_msgs, (unsigned long long)t->tx_errors);
	fprintf(f, "rx_datagrams %llu\nrx_bytes %llu\nrx_messages %llu\n",
		(unsigned long long)t->rx_dgrams, (unsigned long long)t->rx_bytes,
		(unsigned long long)t->rx_msgs);
	fprintf(f,
		"rx_malformed %llu\nrx_truncated %llu\nrx_bad_size %llu\nrx_bad_version %llu\n"
		"rx_bad_header %llu\nrx_bad_type %llu\nrx_bad_payload %llu\nrx_incomplete %llu\n",
		(unsigned long long)t->rx_malformed,
		(unsigned long long)t->rx_err[SYNC_RX_TRUNCATED],
		(unsigned long long)t->rx_err[SYNC_RX_BAD_SIZE],
		(unsigned long long)t->rx_err[SYNC_RX_BAD_VERSION],
		(unsigned long long)t->rx_err[SYNC_RX_BAD_HEADER],
		(unsigned long long)t->rx_err[SYNC_RX_BAD_TYPE],
		(unsigned long long)t->rx_err[SYNC_RX_BAD_PAYLOAD],
		(unsigned long long)t->rx_err[SYNC_RX_INCOMPLETE]);
	fprintf(f, "rx_auth_fail %llu\nrx_replay %llu\nseq_lost %llu\nseq_before %llu\n",
		(unsigned long long)t->rx_auth_fail, (unsigned long long)t->rx_replay,
		(unsigned long long)t->seq_lost, (unsigned long long)t->seq_before);
	fprintf(f,
		"tx_ack %llu\ntx_nack %llu\ntx_resync %llu\ntx_alive %llu\nrx_ack %llu\n"
		"rx_nack %llu\nrx_resync %llu\nrx_hello %llu\nresent %llu\n",
		(unsigned long long)t->tx_ack, (unsigned long long)t->tx_nack,
		(unsigned long long)t->tx_resync, (unsigned long long)t->tx_alive,
		(unsigned long long)t->rx_ack, (unsigned long long)t->rx_nack,
		(unsigned long long)t->rx_resync, (unsigned long long)t->rx_hello,
		(unsigned long long)t->resent);
	fprintf(f,
		"resend_queue %u\nresend_dropped %llu\ntx_queue %u\ntx_dropped %llu\n"
		"pending %u\ncoalesced %llu\n",
		s->rs.len, (unsigned long long)t->rs_dropped, s->tx.len,
		(unsigned long long)t->tx_dropped, s->npend, (unsigned long long)t->coalesced);
	fprintf(f,
		"internal_sent_new %llu\ninternal_sent_upd %llu\ninternal_sent_del %llu\n"
		"filtered %llu\n",
		(unsigned long long)t->int_sent_new, (unsigned long long)t->int_sent_upd,
		(unsigned long long)t->int_sent_del, (unsigned long long)t->filtered);
	fprintf(f,
		"external_entries %u\nexternal_new %llu\nexternal_upd %llu\nexternal_del %llu\n"
		"external_full %llu\nexternal_expired %llu\nexpectations %u\n"
		"expectations_received %llu\nexpectations_full %llu\nexpectations_committed %llu\n"
		"expectations_failed %llu\n",
		t->ext_count, (unsigned long long)t->ext_new, (unsigned long long)t->ext_upd,
		(unsigned long long)t->ext_del, (unsigned long long)t->ext_full,
		(unsigned long long)t->ext_expired, t->exp_count,
		(unsigned long long)t->exp_received, (unsigned long long)t->exp_full,
		(unsigned long long)t->exp_committed, (unsigned long long)t->exp_failed);
	fprintf(f,
		"nat_mappings_sent %llu\nnat_mappings_received %llu\nnat_mappings_applied %llu\n"
		"nat_mappings_refused %llu\nnat_mappings_forgotten %llu\n",
		(unsigned long long)t->map_tx, (unsigned long long)t->map_rx,
		(unsigned long long)t->map_applied, (unsigned long long)t->map_refused,
		(unsigned long long)t->map_forgotten);
	fprintf(f, "committed %llu\ncommit_failed %llu\ndirect_applied %llu\ndirect_failed %llu\n",
		(unsigned long long)t->committed, (unsigned long long)t->commit_failed,
		(unsigned long long)t->direct_applied, (unsigned long long)t->direct_failed);
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
