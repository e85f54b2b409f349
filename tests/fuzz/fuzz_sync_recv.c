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

#include "fuzz_sync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sync_fuzz f;
	const struct sync_stats *st;
	uint64_t now = SYNC_FUZZ_NOW;

	if (size < 1 || sync_fuzz_init(&f, 1024, (enum sync_mode)(data[0] % 3)) < 0)
		return 0;
	f.sc.disable_external = data[0] & 4;
	f.sc.auth = data[0] & 8;
	if (data[0] & 16) {
		f.sc.peer = SYNC_PEER_PKTTABLES;
		f.sc.map_max = 16;
		f.nat = nat_table_new(f.ct, NULL, NULL, NULL);
	}
	if (sync_fuzz_start(&f) < 0) {
		sync_fuzz_free(&f);
		return 0;
	}
	sync_receive(f.s, data + 1, size - 1, now);
	sync_receive(f.s, data + 1, size - 1, now + 1000);
	sync_tick(f.s, now + 2000000000ull);
	st = sync_stats(f.s);
	if (st->ext_count > f.sc.external_max || st->rx_malformed > st->rx_msgs + st->rx_dgrams)
		abort();
	sync_commit(f.s, now + 3000000000ull);
	if (ct_table_stats(f.ct)->count > f.cc.max_entries)
		abort();
	if (f.nat && (st->map_applied > st->map_rx ||
		      nat_table_stats(f.nat)->mappings > nat_table_config(f.nat)->max_mappings))
		abort();
	sync_fuzz_free(&f);
	return 0;
}
