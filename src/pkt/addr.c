// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Addresses of either family in one 16-byte union. IPv4 uses b[0..3] and leaves the rest zero,
 * so comparisons and masks work on all 16 bytes whatever the family.
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/pkt.h"

int pt_addr_parse(const char *s, union pt_addr *a)
{
	union pt_addr tmp;

	memset(&tmp, 0, sizeof(tmp));
	if (inet_pton(AF_INET, s, tmp.b) == 1) {
		*a = tmp;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, tmp.b) == 1) {
		*a = tmp;
		return AF_INET6;
	}
	return 0;
}

const char *pt_addr_str(int family, const union pt_addr *a, char *buf, size_t len)
{
	if (len == 0)
		return buf;
	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, a->b, buf, (socklen_t)len))
		buf[0] = '\0';
	return buf;
}

static int family_bits(int family)
{
	return family == AF_INET ? 32 : family == AF_INET6 ? 128 : -1;
}

int pt_mask_from_len(int family, int len, union pt_addr *mask)
{
	int bits = family_bits(family);
	int i;

	if (bits < 0 || len < 0 || len > bits)
		return -1;
	memset(mask, 0, sizeof(*mask));
	for (i = 0; i < len / 8; i++)
		mask->b[i] = 0xff;
	if (len % 8)
		mask->b[i] = (uint8_t)(0xff << (8 - len % 8));
	return 0;
}

int pt_mask_len(int family, const union pt_addr *mask)
{
	int bits = family_bits(family);
	int n = 0, i;

	if (bits < 0)
		return -1;
	/* Count leading ones, then require that nothing else is set. */
	for (i = 0; i < bits && (mask->b[i / 8] & (0x80 >> (i % 8))); i++)
		n++;
	for (; i < bits; i++)
		if (mask->b[i / 8] & (0x80 >> (i % 8)))
			return -1;
	return n;
}

bool pt_addr_match(const union pt_addr *a, const union pt_addr *net, const union pt_addr *mask)
{
	int i;

	for (i = 0; i < 4; i++)
		if ((a->w[i] & mask->w[i]) != (net->w[i] & mask->w[i]))
			return false;
	return true;
}

bool pt_addr_eq(const union pt_addr *a, const union pt_addr *b)
{
	return memcmp(a->b, b->b, sizeof(a->b)) == 0;
}

int pt_addr_cmp(const union pt_addr *a, const union pt_addr *b)
{
	/* Bytes are in network order, so memcmp orders them as big-endian numbers. */
	return memcmp(a->b, b->b, sizeof(a->b));
}
