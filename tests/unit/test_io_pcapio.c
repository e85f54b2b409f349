// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcapio: what is written reads back byte for byte with nanosecond time stamps, segmented
 * packets are written whole, Linux cooked headers are stripped, and broken files fail with a
 * message naming the file (and the packet).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/pcapio.h"

static char dir[] = "/tmp/pt-pcapio-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char p[64];
	static const char *const names[] = {"a.pcap", "a.pcapng", "g.pcap", "t.pcap", "sll.pcap"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	return rmdir(dir);
}

static const uint8_t ip4[28] = {
    0x45, 0,  0,   28, 0, 0, 0,	   0,	 64, 17, 0, 0, 192, 168,
    1,	  10, 192, 0,  2, 1, 0x13, 0x88, 0,  53, 0, 8, 0,   0,
};

/* Written as `name` (pcap, or pcapng by its ending), read back through libpcap's reader. */
static void roundtrip(const char *name)
{
	struct pcapio_writer *w;
	struct pcapio_reader *r;
	struct pkt *p, *seg;
	char path[64], err[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(pcapio_create(path, PKT_LINK_RAW, &w, err, sizeof(err)), 0);
	p = pkt_from_bytes(ip4, sizeof(ip4));
	seg = pkt_from_bytes_split(ip4, sizeof(ip4), 5);
	assert_non_null(p);
	assert_non_null(seg);
	assert_int_equal(pcapio_write(w, p, 1767225600123456789ull), 0);
	assert_int_equal(pcapio_write(w, seg, 1767225601000000001ull), 0);
	assert_int_equal(pcapio_writer_count(w), 2);
	assert_int_equal(pcapio_finish(w), 0);
	pkt_free(p);
	pkt_free(seg);

	assert_int_equal(pcapio_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(pcapio_link(r), PKT_LINK_RAW);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), 1);
	assert_int_equal(p->tstamp_ns, 1767225600123456789ull);
	assert_int_equal(p->id, 1);
	assert_int_equal(p->len, sizeof(ip4));
	assert_memory_equal(pkt_linear_data(p), ip4, sizeof(ip4));
	pkt_free(p);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), 1);
	assert_int_equal(p->tstamp_ns, 1767225601000000001ull);
	assert_int_equal(p->id, 2);
	assert_memory_equal(pkt_linear_data(p), ip4, sizeof(ip4));
	pkt_free(p);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), 0);
	assert_null(p);
	pcapio_close(r);
}

static void test_roundtrip_ns(void **state)
{
	(void)state;
	roundtrip("a.pcap");
}

/* pcapng is written by pcapio itself: libpcap must read it back the same */
static void test_roundtrip_pcapng(void **state)
{
	(void)state;
	roundtrip("a.pcapng");
}

static void test_errors(void **state)
{
	struct pcapio_reader *r;
	struct pcapio_writer *w;
	struct pkt *p;
	char path[64], tpath[64], err[256];
	FILE *f;
	long size;
	char *buf;

	(void)state;
	assert_int_equal(pcapio_open("/nonexistent/x.pcap", &r, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.pcap"));
	assert_int_equal(pcapio_open(dir, &r, err, sizeof(err)), -EISDIR);

	snprintf(path, sizeof(path), "%s/g.pcap", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a capture\n", f);
	fclose(f);
	assert_int_equal(pcapio_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "g.pcap"));

	/* A file cut in the middle of its second record. */
	snprintf(path, sizeof(path), "%s/t.pcap", dir);
	assert_int_equal(pcapio_create(path, PKT_LINK_RAW, &w, err, sizeof(err)), 0);
	p = pkt_from_bytes(ip4, sizeof(ip4));
	pcapio_write(w, p, 1);
	pcapio_write(w, p, 2);
	pkt_free(p);
	assert_int_equal(pcapio_finish(w), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc((size_t)size);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	snprintf(tpath, sizeof(tpath), "%s", path);
	f = fopen(tpath, "wb");
	assert_non_null(f);
	fwrite(buf, 1, (size_t)size - 10, f);
	fclose(f);
	free(buf);
	assert_int_equal(pcapio_open(tpath, &r, err, sizeof(err)), 0);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), 1);
	pkt_free(p);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "packet 2"));
	pcapio_close(r);
}

/* A hand-made Linux cooked capture: the 16-byte header goes, the IP packet stays. */
static void test_linux_sll(void **state)
{
	struct pcapio_reader *r;
	struct pkt *p;
	char path[64], err[256];
	FILE *f;
	/* pcap header, microsecond magic, link type 113 (LINUX_SLL) */
	static const uint8_t hdr[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2,    0,    4, 0, 0,   0, 0, 0,
					0,    0,    0,	  0,	0xff, 0xff, 0, 0, 113, 0, 0, 0};
	static const uint8_t rec[16] = {10, 0, 0, 0, 7, 0, 0, 0, 44, 0, 0, 0, 44, 0, 0, 0};
	static const uint8_t sll[16] = {0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00};

	(void)state;
	snprintf(path, sizeof(path), "%s/sll.pcap", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(hdr, 1, sizeof(hdr), f);
	fwrite(rec, 1, sizeof(rec), f);
	fwrite(sll, 1, sizeof(sll), f);
	fwrite(ip4, 1, sizeof(ip4), f);
	fclose(f);
	assert_int_equal(pcapio_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(pcapio_link(r), PKT_LINK_RAW);
	assert_int_equal(pcapio_next(r, &p, err, sizeof(err)), 1);
	/* microseconds in the file become nanoseconds */
	assert_int_equal(p->tstamp_ns, 10000007000ull);
	assert_int_equal(p->len, sizeof(ip4));
	assert_memory_equal(pkt_linear_data(p), ip4, sizeof(ip4));
	pkt_free(p);
	pcapio_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_ns),
	    cmocka_unit_test(test_roundtrip_pcapng),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_linux_sll),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
