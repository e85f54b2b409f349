// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> packet (split into segments) -> pkt_parse -> pkt_spec_format ->
 * pkt_l4_csum_ok, for both link types. Every segment is its own malloc() block, so ASan sees a
 * read that crosses a segment boundary or runs past the end.
 *
 *   input: [c][packet bytes...]
 *           c selects the chunk sizes the packet is cut into (see chunks below)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/build.h"
#include "pkt/pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Shapes of non-linearity: one segment, tiny segments, odd ones, headers cut mid-field. */
static const uint32_t chunks[] = {65535 + 64, 1, 2, 3, 7, 13, 14, 20, 33, 40, 54, 61};

/*
 * Parse and format the bytes cut into `chunk`-byte segments; the line goes to out (if not
 * NULL). Returns what pkt_parse returned.
 */
static int check_one(const uint8_t *b, uint32_t len, uint32_t chunk, enum pkt_link link,
		     bool verify, char *out, size_t outlen)
{
	struct pkt *p = pkt_from_bytes_split(b, len, chunk);
	char line[512];
	int n, ret;

	if (!p)
		return -ENOMEM;
	ret = pkt_parse(p, link, verify);
	n = pkt_spec_format(p, line, sizeof(line));
	if (n < 0)
		abort();
	if (out)
		snprintf(out, outlen, "%s", line);
	/* A buffer too small must truncate, never overrun. */
	pkt_spec_format(p, line, 8);
	pkt_spec_format(p, line, 1);
	(void)pkt_l4_csum_ok(p);
	(void)pkt_bad_name(p->info.bad);
	pkt_free(p);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char lin[512], seg[512];
	uint32_t c1, c2;
	int r1, r2;

	if (size < 1 || size - 1 > PKT_MAX_LEN)
		return 0;
	c1 = chunks[data[0] % (sizeof(chunks) / sizeof(chunks[0]))];
	c2 = chunks[(data[0] >> 4) % (sizeof(chunks) / sizeof(chunks[0]))];
	data++;
	size--;
	/* Segments change nothing: the same verdict and the same line as one linear buffer. */
	r1 = check_one(data, (uint32_t)size, chunks[0], PKT_LINK_ETHERNET, true, lin, sizeof(lin));
	r2 = check_one(data, (uint32_t)size, c1, PKT_LINK_ETHERNET, true, seg, sizeof(seg));
	if (r1 != -ENOMEM && r2 != -ENOMEM && (r1 != r2 || strcmp(lin, seg))) {
		fprintf(stderr, "chunk %u differs from linear: %d '%s' vs %d '%s'\n", c1, r1, lin,
			r2, seg);
		abort();
	}
	r1 = check_one(data, (uint32_t)size, chunks[0], PKT_LINK_RAW, true, lin, sizeof(lin));
	r2 = check_one(data, (uint32_t)size, c2, PKT_LINK_RAW, true, seg, sizeof(seg));
	if (r1 != -ENOMEM && r2 != -ENOMEM && (r1 != r2 || strcmp(lin, seg))) {
		fprintf(stderr, "chunk %u differs from linear: %d '%s' vs %d '%s'\n", c2, r1, lin,
			r2, seg);
		abort();
	}
	check_one(data, (uint32_t)size, c2, PKT_LINK_RAW, false, NULL, 0);
	return 0;
}
