// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> the sync link's TCP stream reader (src/live/sync_tcp.c) and the
 * box's sync receiver behind it. The first byte picks the framing (plain messages as conntrackd
 * sends them, or length-prefixed records), the mode and the size of the pieces the rest is cut
 * into (a message split across reads must be put together). Nothing may crash or leak; a
 * stream that cannot be followed is counted and dropped.
 */
#include <stdlib.h>

#include "ct/ct.h"
#include "live/sync_tcp.h"
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
	struct sync_tcp *t;
	struct sync *s;
	uint64_t now = 1700000000ull * 1000000000ull;
	size_t piece;

	if (size < 1)
		return 0;
	ct_config_default(&cc);
	cc.max_entries = 256;
	if (!(ct = ct_table_new(&cc)))
		return 0;
	sync_config_default(&sc);
	sc.mode = (enum sync_mode)((data[0] >> 1) % 3);
	sc.external_max = 64;
	sc.resend_max = 64;
	s = sync_new(&sc, ct, NULL, &ops, NULL, now);
	t = sync_tcp_stream_new(data[0] & 1, 4096);
	if (s && t) {
		piece = 1 + (data[0] >> 3);
		for (size_t off = 1; off < size; off += piece) {
			size_t n = size - off < piece ? size - off : piece;

			sync_tcp_feed(t, s, data + off, n, now);
		}
		if (sync_tcp_stats(t)->rx_bytes != size - 1)
			abort();
	}
	sync_tcp_free(t);
	sync_free(s);
	ct_table_free(ct);
	return 0;
}
