// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cutting a whole datagram into fragments, for `inject IFACE fragments SIZE ...`: the test of
 * defragmentation needs fragments whose transport header and checksum cover the datagram.
 *
 * IPv4 (RFC 791): the header (options too) is repeated, MF and the offset set, the total
 * length and the header checksum made again.
 *
 *   | IPv4 header | fragmentable part: transport header + data ......................... |
 *   | IPv4 hdr MF off 0 | SIZE bytes |  | IPv4 hdr MF off SIZE/8 | SIZE bytes |  | ... rest |
 *
 * IPv6 (RFC 8200 4.5): the fixed header is the unfragmentable part (the test packets carry no
 * hop-by-hop or routing header); a fragment header follows it in every fragment:
 *
 *   | IPv6 hdr nh=44 | frag: nh, 0, offset|M, id | SIZE bytes of what followed the header |
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim/internal.h"

static struct pkt *cut4(const uint8_t *d, uint32_t hl, uint32_t off, uint32_t len, bool more)
{
	struct pkt *f = pkt_alloc(hl + len);
	uint8_t *b;
	uint16_t fo, sum;

	if (!f)
		return NULL;
	b = pkt_linear_data(f);
	memcpy(b, d, hl);
	memcpy(b + hl, d + hl + off, len);
	b[2] = (uint8_t)((hl + len) >> 8);
	b[3] = (uint8_t)(hl + len);
	fo = (uint16_t)((b[6] << 8 | b[7]) & 0x4000); /* keep DF */
	fo |= (uint16_t)((more ? 0x2000 : 0) | off / 8);
	b[6] = (uint8_t)(fo >> 8);
	b[7] = (uint8_t)fo;
	b[10] = b[11] = 0;
	sum = pkt_csum_fold(pkt_csum_bytes(b, hl, 0));
	b[10] = (uint8_t)(sum >> 8);
	b[11] = (uint8_t)sum;
	return f;
}

static struct pkt *cut6(const uint8_t *d, uint32_t id, uint32_t off, uint32_t len, bool more)
{
	struct pkt *f = pkt_alloc(40 + 8 + len);
	uint8_t *b;
	uint16_t plen = (uint16_t)(8 + len), fo = (uint16_t)(off | (more ? 1 : 0));

	if (!f)
		return NULL;
	b = pkt_linear_data(f);
	memcpy(b, d, 40);
	b[4] = (uint8_t)(plen >> 8);
	b[5] = (uint8_t)plen;
	b[6] = 44;
	b[40] = d[6];
	b[41] = 0;
	b[42] = (uint8_t)(fo >> 8);
	b[43] = (uint8_t)fo;
	b[44] = (uint8_t)(id >> 24);
	b[45] = (uint8_t)(id >> 16);
	b[46] = (uint8_t)(id >> 8);
	b[47] = (uint8_t)id;
	memcpy(b + 48, d + 40 + off, len);
	return f;
}

int sim_fragment(const struct pkt *p, uint32_t size, uint32_t id6, struct pkt **out, unsigned max)
{
	uint8_t *d;
	uint32_t hl, total, off = 0;
	unsigned n = 0;
	int fam;

	if (!size || size % 8 || p->len < 20)
		return -EINVAL;
	d = malloc(p->len);
	if (!d)
		return -ENOMEM;
	if (pkt_copy_out(p, 0, d, p->len)) {
		free(d);
		return -EINVAL;
	}
	fam = d[0] >> 4;
	if (fam == 4) {
		hl = (uint32_t)(d[0] & 15) * 4;
		total = (uint32_t)(d[2] << 8 | d[3]);
	} else if (fam == 6 && p->len >= 40) {
		hl = 40;
		total = 40 + (uint32_t)(d[4] << 8 | d[5]);
	} else {
		free(d);
		return -EINVAL;
	}
	if (total > p->len || total <= hl) {
		free(d);
		return -EINVAL;
	}
	while (off < total - hl) {
		uint32_t len = total - hl - off < size ? total - hl - off : size;
		bool more = off + len < total - hl;

		if (n == max) {
			while (n)
				pkt_free(out[--n]);
			free(d);
			return -ENOSPC;
		}
		out[n] = fam == 4 ? cut4(d, hl, off, len, more) : cut6(d, id6, off, len, more);
		if (!out[n]) {
			while (n)
				pkt_free(out[--n]);
			free(d);
			return -ENOMEM;
		}
		out[n]->tstamp_ns = p->tstamp_ns;
		n++;
		off += len;
	}
	free(d);
	return (int)n;
}
