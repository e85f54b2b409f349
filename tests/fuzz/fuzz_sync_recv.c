// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> a box's sync receiver, as a datagram off the sync link. The first
 * byte picks the mode (FTFW, NOTRACK, ALARM), direct mode, the authenticated envelope and a
 * pkttables peer with a NAT table (so NAT mapping messages are read and taken in);
 * the rest is the datagram, fed twice (the second time its numbers are old). Whatever it holds,
 * nothing may crash or leak, a refused message changes no table, and the counters add up.
 * Then the external cache is committed into the table, which must stay consistent.
 */
#include <stdlib.h>
#include <string.h>

#include "ct/ct.h"
#include "nat/nat.h"
#include "sync/sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *priv, const void *buf, size_t len)
{
	(void)priv;
	(void)buf;
	return len ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sync_ops ops = {.send = sink};
	struct ct_config cc;
	struct sync_config sc;
	struct ct_table *ct;
	struct nat_table *nat = NULL;
	struct sync *s;
	uint64_t now = 1700000000ull * 1000000000ull;
	const struct sync_stats *st;

	if (size < 1)
		return 0;
	ct_config_default(&cc);
	cc.max_entries = 1024;
	ct = ct_table_new(&cc);
	if (!ct)
		return 0;
	sync_config_default(&sc);
	sc.mode = (enum sync_mode)(data[0] % 3);
	sc.disable_external = data[0] & 4;
	sc.auth = data[0] & 8;
	sc.external_max = 64;
	sc.resend_max = 64;
	if (data[0] & 16) {
		sc.peer = SYNC_PEER_PKTTABLES;
		sc.map_max = 16;
		nat = nat_table_new(ct, NULL, NULL, NULL);
	}
	s = sync_new(&sc, ct, nat, &ops, NULL, now);
	if (!s) {
		nat_table_free(nat);
		ct_table_free(ct);
		return 0;
	}
	sync_receive(s, data + 1, size - 1, now);
	sync_receive(s, data + 1, size - 1, now + 1000);
	sync_tick(s, now + 2000000000ull);
	st = sync_stats(s);
	if (st->ext_count > sc.external_max || st->rx_malformed > st->rx_msgs + st->rx_dgrams)
		abort();
	sync_commit(s, now + 3000000000ull);
	if (ct_table_stats(ct)->count > cc.max_entries)
		abort();
	if (nat && (st->map_applied > st->map_rx ||
		    nat_table_stats(nat)->mappings > nat_table_config(nat)->max_mappings))
		abort();
	sync_free(s);
	nat_table_free(nat);
	ct_table_free(ct);
	return 0;
}
