// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Seed helper of make-corpus.py (not a fuzz target): each line of stdin is a packet text;
 * the built packet is written to DIR/NNN.bin (raw IP, or Ethernet when the text asks for it),
 * preceded by one byte: 0x00 for Ethernet, 0x01 for raw IP. Lines that do not build are skipped.
 * Built from src/pkt alone: cc -Isrc tests/fuzz/spec2bin.c src/pkt/(star).c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt/build.h"

int main(int argc, char **argv)
{
	static struct pkt_spec s;
	static uint8_t flat[PKT_MAX_LEN + 1];
	char line[4096], path[4096], err[256];
	unsigned n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: spec2bin DIR < texts\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct pkt *p;
		FILE *f;

		line[strcspn(line, "\n")] = '\0';
		if (pkt_spec_parse(line, &s, err, sizeof(err)) < 0)
			continue;
		p = pkt_build(&s);
		if (!p)
			continue;
		flat[0] = s.eth ? 0x00 : 0x01;
		if (pkt_copy_out(p, 0, flat + 1, p->len) == 0) {
			snprintf(path, sizeof(path), "%s/spec-%03u.bin", argv[1], n++);
			f = fopen(path, "wb");
			if (!f || fwrite(flat, 1, p->len + 1, f) != p->len + 1 || fclose(f))
				return 1;
		}
		pkt_free(p);
	}
	return 0;
}
