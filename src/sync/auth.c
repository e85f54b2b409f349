// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The authenticated envelope pkttables boxes may put around their datagrams (conntrackd has
 * none: SYNC-WIRE.md 1.6, so it is for pkttables peers only). HMAC-SHA-256 from libsodium,
 * a shared 32-byte key read from a file, and a 64-message replay window on a counter that
 * only grows (it starts from the box clock, so a restarted sender stays ahead of what the
 * receiver saw):
 *
 *   0        4                    12                     12+n       12+n+32
 *   +--------+--------------------+----------------------+----------+
 *   | "PTs1" | counter (u64, BE)  | messages (n bytes)   | HMAC     |  HMAC over bytes 0..12+n
 *   +--------+--------------------+----------------------+----------+
 *
 * A datagram whose MAC does not verify, or whose counter is at or below the window's bottom
 * or already seen in it, is counted and dropped before any of it is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sync/sync_int.h"

_Static_assert(SYNC_KEY_LEN == crypto_auth_hmacsha256_KEYBYTES, "HMAC-SHA-256 key size");
_Static_assert(SYNC_AUTH_MAC == crypto_auth_hmacsha256_BYTES, "HMAC-SHA-256 tag size");

static const uint8_t magic[4] = {'P', 'T', 's', '1'};

int sync_auth_init(void)
{
	return sodium_init() < 0 ? -EIO : 0;
}

size_t sync_auth_seal(struct sync *s, uint8_t *buf, size_t payload_len, uint64_t now)
{
	uint64_t c = now > s->auth_counter ? now : s->auth_counter + 1;

	s->auth_counter = c;
	memcpy(buf, magic, 4);
	for (int i = 0; i < 8; i++)
		buf[4 + i] = (uint8_t)(c >> (56 - 8 * i));
	crypto_auth_hmacsha256(buf + SYNC_AUTH_HDR + payload_len, buf, SYNC_AUTH_HDR + payload_len,
			       s->cfg.key);
	return payload_len + SYNC_AUTH_OVERHEAD;
}

int sync_auth_open(struct sync *s, const uint8_t *buf, size_t len, const uint8_t **payload,
		   size_t *plen)
{
	uint64_t c = 0, d;

	if (len < SYNC_AUTH_OVERHEAD || memcmp(buf, magic, 4) ||
	    crypto_auth_hmacsha256_verify(buf + len - SYNC_AUTH_MAC, buf, len - SYNC_AUTH_MAC,
					  s->cfg.key) != 0) {
		s->st.rx_auth_fail++;
		return -EBADMSG;
	}
	for (int i = 0; i < 8; i++)
		c = c << 8 | buf[4 + i];
	if (!s->replay_init || c > s->replay_top) {
		d = s->replay_init ? c - s->replay_top : 64;
		s->replay_bits = d >= 64 ? 1 : (s->replay_bits << d) | 1;
		s->replay_top = c;
		s->replay_init = true;
	} else {
		d = s->replay_top - c;
		if (d >= 64 || (s->replay_bits >> d & 1)) {
			s->st.rx_replay++;
			return -EALREADY;
		}
		s->replay_bits |= 1ull << d;
	}
	*payload = buf + SYNC_AUTH_HDR;
	*plen = len - SYNC_AUTH_OVERHEAD;
	return 0;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

int sync_key_load(const char *path, uint8_t key[SYNC_KEY_LEN])
{
	uint8_t raw[256];
	ssize_t n;
	size_t a = 0, b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, raw, sizeof(raw));
	close(fd);
	if (n < 0)
		return -EIO;
	if (n == SYNC_KEY_LEN) {
		memcpy(key, raw, SYNC_KEY_LEN);
		sodium_memzero(raw, sizeof(raw));
		return 0;
	}
	b = (size_t)n;
	while (a < b && (raw[a] == ' ' || raw[a] == '\n' || raw[a] == '\t' || raw[a] == '\r'))
		a++;
	while (b > a && (raw[b - 1] == ' ' || raw[b - 1] == '\n' || raw[b - 1] == '\t' ||
			 raw[b - 1] == '\r'))
		b--;
	if (b - a != 2 * SYNC_KEY_LEN)
		return -EINVAL;
	for (size_t i = 0; i < SYNC_KEY_LEN; i++) {
		int hi = hexval(raw[a + 2 * i]), lo = hexval(raw[a + 2 * i + 1]);

		if (hi < 0 || lo < 0) {
			sodium_memzero(raw, sizeof(raw));
			return -EINVAL;
		}
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	sodium_memzero(raw, sizeof(raw));
	return 0;
}
