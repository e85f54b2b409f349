// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Live mode's SIGUSR1 dump: the rules with counters, the box's counters and conntrack table,
 * and live mode's own counters summed over the workers' snapshots (live/workers.h). Printed by
 * worker 0 under the box lock.
 */
#include <stdio.h>
#include <sys/socket.h>

#include "ct/ct.h"
#include "ct/ct_plugin.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "io/afpacket.h"
#include "io/neigh.h"
#include "live/live.h"
#include "rules/rules.h"

#include "live/live_int.h"

static const char *ifname_cb(void *arg, int ifindex)
{
	const struct box_iface *ifc = box_iface(arg, ifindex);

	return ifc ? ifc->name : "?";
}

/* Summed over the workers' snapshots: per interface, and live mode's own counters. */
void live_dump(struct live *l, FILE *f)
{
	struct neigh_stats ns;
	struct live_stats s = l->st;

	fprintf(f, "# pkttables live counters\n");
	for (int fam = AF_INET; fam; fam = fam == AF_INET ? AF_INET6 : 0) {
		struct rules_ruleset *rs = box_ruleset(l->box, fam);

		if (rs)
			rules_print(rs, f, RULES_PRINT_COUNTERS);
	}
	box_print_stats(f, l->box);
	if (ct_box_table(l->box)) {
		/* the table as conntrack -L prints it; entries are counted in the stats above */
		fprintf(f, "# conntrack table\n");
		ct_dump(ct_box_table(l->box), f, box_now(l->box));
	}
	for (unsigned i = 0; i < l->nsock; i++) {
		struct afpacket_stats st = {0};

		for (unsigned k = 0; k < l->nworkers; k++)
			if (l->w[k]->rx[i])
				live_counters_add(&st, &l->w[k]->snap_port[i], sizeof(st));
		fprintf(f,
			"iface %s: rx %llu (%llu bytes) tx %llu (%llu bytes) tx-errors %llu "
			"ring-drops %llu tx-ring %llu rx-lent %llu\n",
			box_iface(l->box, (int)i + 1)->name, (unsigned long long)st.rx,
			(unsigned long long)st.rx_bytes, (unsigned long long)st.tx,
			(unsigned long long)st.tx_bytes, (unsigned long long)st.tx_errors,
			(unsigned long long)st.kernel_drops, (unsigned long long)st.tx_ring,
			(unsigned long long)st.rx_lent);
	}
	{
		/* zero-copy receive: packets made over lent frames, and those a keeper copied */
		unsigned long long lent = 0, kept = 0;

		for (unsigned k = 0; k < l->nworkers; k++) {
			lent += l->w[k]->snap_lend.lent;
			kept += l->w[k]->snap_lend.kept;
		}
		fprintf(
		    f, "zero-copy receive: %llu packets over lent frames, %llu copied to be kept\n",
		    lent, kept);
	}
	/* how the kernel spread the frames: what each worker took from its rings */
	for (unsigned k = 0; l->nworkers > 1 && k < l->nworkers; k++) {
		uint64_t rx = 0;

		for (unsigned i = 0; i < l->nsock; i++)
			rx += l->w[k]->rx[i] ? l->w[k]->snap_port[i].rx : 0;
		fprintf(f, "%s %u rx %llu%s", k ? "," : "workers:", k, (unsigned long long)rx,
			k + 1 == l->nworkers ? "\n" : "");
	}
	neigh_get_stats(l->neigh, &ns);
	fprintf(f,
		"neighbours: %u entries, %llu probes, %llu resolved, %llu failed, %llu queued, "
		"%llu queue-drops, %llu table-full\n",
		ns.entries, (unsigned long long)ns.probes, (unsigned long long)ns.resolved,
		(unsigned long long)ns.failed, (unsigned long long)ns.queued,
		(unsigned long long)ns.queue_drops, (unsigned long long)ns.table_full);
	neigh_print(l->neigh, f, box_now(l->box), ifname_cb, l->box);
	for (unsigned k = 0; k < l->nworkers; k++)
		live_counters_add(&s, &l->w[k]->snap_st, sizeof(s));
	fprintf(f,
		"live: not-for-us %llu arp/nd %llu (refused %llu, answered %llu) local-answers "
		"%llu (full %llu) nomem %llu bad-offload %llu csum-partial %llu reloads %llu "
		"(refused %llu)",
		(unsigned long long)s.not_for_us, (unsigned long long)s.ndisc_in,
		(unsigned long long)s.ndisc_bad, (unsigned long long)s.ndisc_answers,
		(unsigned long long)s.local_answers, (unsigned long long)s.local_full,
		(unsigned long long)s.nomem, (unsigned long long)s.bad_offload,
		(unsigned long long)s.csum_partial, (unsigned long long)s.reloads,
		(unsigned long long)s.reload_errors);
	if (l->nworkers > 1)
		fprintf(f, " workers %u", l->nworkers);
	fprintf(f, "\n");
	fflush(f);
}
