/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rewriting the DS field (IPv4 TOS byte, IPv6 traffic class), for the DSCP and TOS targets.
 *
 *   IPv4:  byte 1 is the TOS; the header checksum (bytes 10-11) is updated incrementally
 *          over the 16-bit word [version/IHL | TOS].
 *   IPv6:   0                   1
 *          |ver(4)|  traffic class (8) | flow label (20) ...
 *          the class straddles bytes 0 and 1; there is no header checksum.
 */
#ifndef EXT_DSFIELD_H
#define EXT_DSFIELD_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

#include "pkt/pkt.h"

/* Current DS field of a parsed packet. */
static inline uint8_t ext_dsfield_get(const struct pkt *p)
{
	return p->info.tos;
}

/* Set the DS field to `nv`. 0, or -EFAULT when the header is not there. */
static inline int ext_dsfield_set(struct pkt *p, uint8_t nv)
{
	uint32_t off = p->info.l3off;
	uint8_t b[12];
	const uint8_t *h;

	if (p->info.family == AF_INET) {
		uint16_t oldw, neww, check;

		h = pkt_header(p, off, 12, b);
		if (!h)
			return -EFAULT;
		oldw = (uint16_t)(h[0] << 8 | h[1]);
		neww = (uint16_t)(h[0] << 8 | nv);
		check = (uint16_t)(h[10] << 8 | h[11]);
		check = htons(pkt_csum_replace2(check, oldw, neww));
		if (pkt_store(p, off + 1, &nv, 1) < 0 || pkt_store(p, off + 10, &check, 2) < 0)
			return -EFAULT;
	} else {
		uint8_t w[2];

		h = pkt_header(p, off, 2, b);
		if (!h)
			return -EFAULT;
		w[0] = (uint8_t)((h[0] & 0xf0) | nv >> 4);
		w[1] = (uint8_t)((h[1] & 0x0f) | (nv & 0x0f) << 4);
		if (pkt_store(p, off, w, 2) < 0)
			return -EFAULT;
	}
	p->info.tos = nv;
	return 0;
}

#endif
