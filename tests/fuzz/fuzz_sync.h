/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the sync fuzzers (fuzz_sync_recv.c, fuzz_sync_tcp.c) share: a box's conntrack table and
 * the sync instance on it, whose datagrams go nowhere, with small queues and caches so that
 * every limit is reached by short inputs.
 */
#ifndef PT_FUZZ_SYNC_H
#define PT_FUZZ_SYNC_H

#include "ct/ct.h"
#include "nat/nat.h"
#include "sync/sync.h"

#define SYNC_FUZZ_NOW (1700000000ull * 1000000000ull)

struct sync_fuzz {
	struct ct_config cc;
	struct sync_config sc;
	struct ct_table *ct;
	struct nat_table *nat; /* NULL unless the fuzzer makes one before sync_fuzz_start */
	struct sync *s;
};

static inline int sync_fuzz_sink(void *priv, const void *buf, size_t len)
{
	(void)priv;
	(void)buf;
	return len ? 0 : -1;
}

/* A conntrack table of max_entries and a sync config in mode (both there to change before
 * sync_fuzz_start). 0, or -1 when the table could not be made. */
static inline int sync_fuzz_init(struct sync_fuzz *f, uint32_t max_entries, enum sync_mode mode)
{
	*f = (struct sync_fuzz){0};
	ct_config_default(&f->cc);
	f->cc.max_entries = max_entries;
	if (!(f->ct = ct_table_new(&f->cc)))
		return -1;
	sync_config_default(&f->sc);
	f->sc.mode = mode;
	f->sc.external_max = 64;
	f->sc.resend_max = 64;
	return 0;
}

/* The sync instance on f's tables: 0, or -1 (f->s NULL). */
static inline int sync_fuzz_start(struct sync_fuzz *f)
{
	static const struct sync_ops ops = {.send = sync_fuzz_sink};

	f->s = sync_new(&f->sc, f->ct, f->nat, &ops, NULL, SYNC_FUZZ_NOW);
	return f->s ? 0 : -1;
}

/* Everything sync_fuzz_init and sync_fuzz_start made (any of it may be missing). */
static inline void sync_fuzz_free(struct sync_fuzz *f)
{
	sync_free(f->s);
	nat_table_free(f->nat);
	ct_table_free(f->ct);
}

#endif
