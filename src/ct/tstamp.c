// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Conntrack timestamps (tstamp.h): start at confirmation, stop at removal, both from the time
 * the table is given (a packet's, a sweep's, a control request's), never read here.
 */
#include "ct/ct_int.h"
#include "ct/tstamp.h"

void ct_tstamp_new(struct ct_table *t, struct ct_entry *e)
{
	if (t->cfg.tstamp)
		ct_ext_add(t, e, CT_EXT_TSTAMP);
}

void ct_tstamp_start(struct ct_entry *e, uint64_t now)
{
	struct ct_tstamp *ts = ct_ext_find(e, CT_EXT_TSTAMP);

	if (ts)
		ts->start = now;
}

void ct_tstamp_stop(struct ct_entry *e, uint64_t now)
{
	struct ct_tstamp *ts = ct_ext_find(e, CT_EXT_TSTAMP);

	if (ts && !ts->stop)
		ts->stop = now ? now : 1;
}

bool ct_entry_tstamp(const struct ct_entry *e, uint64_t *start, uint64_t *stop)
{
	const struct ct_tstamp *ts = ct_ext_find(e, CT_EXT_TSTAMP);

	if (!ts)
		return false;
	*start = ts->start;
	*stop = ts->stop;
	return true;
}
