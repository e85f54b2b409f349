// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> the sync link's TCP stream reader (src/live/sync_tcp.c) and the
 * box's sync receiver behind it. The first byte picks the framing (plain messages as conntrackd
 * sends them, or length-prefixed records), the mode and the size of the pieces the rest is cut
 * into (a message split across reads must be put together). Nothing may crash or leak; a
 * stream that cannot be followed is counted and dropped.
 */
#include <stdlib.h>

#include "fuzz_sync.h"
#include "live/sync_tcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sync_fuzz f;
	struct sync_tcp *t;
	size_t piece;

	if (size < 1 || sync_fuzz_init(&f, 256, (enum sync_mode)((data[0] >> 1) % 3)) < 0)
		return 0;
	sync_fuzz_start(&f);
	t = sync_tcp_stream_new(data[0] & 1, 4096);
	if (f.s && t) {
		piece = 1 + (data[0] >> 3);
		for (size_t off = 1; off < size; off += piece) {
			size_t n = size - off < piece ? size - off : piece;

			sync_tcp_feed(t, f.s, data + off, n, SYNC_FUZZ_NOW);
		}
		if (sync_tcp_stats(t)->rx_bytes != size - 1)
			abort();
	}
	sync_tcp_free(t);
	sync_fuzz_free(&f);
	return 0;
}
