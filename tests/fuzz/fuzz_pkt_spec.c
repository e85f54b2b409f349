// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: text -> pkt_spec_parse -> pkt_build -> pkt_parse -> pkt_spec_format, then
 * the formatted line through parse, build and format again. The line pkt_spec_format prints is
 * canonical: it must parse, build, and format to itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/build.h"
#include "pkt/pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Build the spec and format the result into line; false when the spec does not build. The
 * built bytes are parsed again cut into small segments: the line must not change.
 */
static bool build_format(const struct pkt_spec *s, char *line, size_t len)
{
	static uint8_t flat[PKT_MAX_LEN];
	char again[8192];
	struct pkt *p = pkt_build(s), *q;
	int n;

	if (!p)
		return false;
	n = pkt_spec_format(p, line, len);
	(void)pkt_l4_csum_ok(p);
	if (n < 0 || (size_t)n >= len || pkt_copy_out(p, 0, flat, p->len) < 0) {
		pkt_free(p);
		return false;
	}
	q = pkt_from_bytes_split(flat, p->len, 7);
	if (q) {
		pkt_parse(q, s->eth ? PKT_LINK_ETHERNET : PKT_LINK_RAW, false);
		pkt_spec_format(q, again, sizeof(again));
		if (strcmp(line, again)) {
			fprintf(stderr, "segmented parse differs\n  linear: %s\n  split:  %s\n",
				line, again);
			abort();
		}
		pkt_free(q);
	}
	pkt_free(p);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pkt_spec s; /* large (payload buffer); the fuzzer is single-threaded */
	char *text, err[256], line1[8192], line2[8192];

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (pkt_spec_parse(text, &s, err, sizeof(err)) < 0 ||
	    !build_format(&s, line1, sizeof(line1)))
		goto out;
	if (pkt_spec_parse(line1, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "formatted line does not parse: %s\n  input: %s\n  line: %s\n", err,
			text, line1);
		abort();
	}
	if (!build_format(&s, line2, sizeof(line2))) {
		fprintf(stderr, "formatted line does not build\n  input: %s\n  line: %s\n", text,
			line1);
		abort();
	}
	if (strcmp(line1, line2)) {
		fprintf(stderr, "format is not a fixed point\n  input: %s\n  1st: %s\n  2nd: %s\n",
			text, line1, line2);
		abort();
	}
out:
	free(text);
	return 0;
}
