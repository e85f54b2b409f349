// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sequence adjustment (src/nat/seqadj.c): the offsets recorded when a helper resizes a
 * segment, and the rewriting of sequence numbers, acknowledgements and SACK edges with the
 * checksum kept right; the TCP window check taking acknowledgements back (proto_tcp.c).
 */
#include "ct_test.h"

#include "ct/ct_int.h"
#include "nat/helper.h"
#include "nat/seqadj.h"

#define CLIENT "tcp 10.0.0.2:40000 > 192.0.2.1:21"
#define SERVER "tcp 192.0.2.1:21 > 10.0.0.2:40000"

static uint32_t rd32(const struct pkt *p, uint32_t off)
{
	uint8_t b[4];

	assert_int_equal(pkt_copy_out(p, off, b, 4), 0);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* A tracked, confirmed control connection in ESTABLISHED (client seq 1000.., server 5000..). */
static struct ct_entry *handshake(struct ct_table *t)
{
	ct_test_feed(t, CLIENT " syn seq=1000 sackok", 0);
	ct_test_feed(t, SERVER " syn,ack seq=5000 ack=1001 sackok", 0);
	ct_test_feed(t, CLIENT " ack seq=1001 ack=5001", 0);
	return ct_test_find(t, CLIENT, 0);
}

/* The packet, tracked (not confirmed again), adjusted; the caller frees it. */
static struct pkt *adjusted(struct ct_table *t, const char *text, int *err)
{
	struct pkt *p = ct_test_pkt(text);

	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	*err = nat_seqadj_apply(p);
	return p;
}

static void test_offsets(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e = handshake(t);

	(void)state;
	assert_non_null(e);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1500), 0);
	/* a segment at 1011 grew by 5: after it +5, at or before it 0 */
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1011, 5), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1001), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1011), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1037), 5);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_REPLY, 6000), 0);
	/* the same segment resized again (a retransmission): nothing moves */
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1011, 5), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1037), 5);
	/* an older one neither */
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1001, 3), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1037), 5);
	/* a later one shrinking by 2: the boundary moves, offsets compound */
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1100, -2), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1050), 5);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1100), 5);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1130), 3);
	/* acknowledgements in the receiver's numbering: 1100 + 5 is the resized one's start */
	assert_int_equal(ct_seqadj_ack_offset(e, CT_DIR_ORIGINAL, 1105), 5);
	assert_int_equal(ct_seqadj_ack_offset(e, CT_DIR_ORIGINAL, 1133), 3);
	/* a zero change adds nothing */
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_REPLY, 5100, 0), 0);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_REPLY, 5200), 0);
	ct_table_free(t);
}

static void test_apply_both_directions(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e = handshake(t);
	struct pkt *p;
	int err;

	(void)state;
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1011, 5), 0);
	/* the client's later data: seq + 5, its ack (of the server's stream) untouched */
	p = adjusted(t, CLIENT " ack,psh seq=1037 ack=5001 payload=\"QUIT\\r\\n\"", &err);
	assert_int_equal(err, 0);
	assert_int_equal(rd32(p, p->info.l4off + 4), 1042);
	assert_int_equal(rd32(p, p->info.l4off + 8), 5001);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	/* a retransmission from before the change: the old offset (none) */
	p = adjusted(t, CLIENT " ack,psh seq=1001 ack=5001 payload=\"USER ftp\\r\\n\"", &err);
	assert_int_equal(rd32(p, p->info.l4off + 4), 1001);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	/* the server acknowledges 1042 + 6 in its numbering: the client hears 1043 (accepted by
	 * the window check although 1048 is beyond what the client sent) */
	p = adjusted(t, SERVER " ack seq=5001 ack=1048", &err);
	assert_int_equal(err, 0);
	assert_int_equal(ct_pkt_ctinfo(p), CT_ESTABLISHED_REPLY);
	assert_int_equal(rd32(p, p->info.l4off + 4), 5001);
	assert_int_equal(rd32(p, p->info.l4off + 8), 1043);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	ct_table_free(t);
}

static void test_sack_edges(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e = handshake(t);
	struct pkt *p;
	int err;

	(void)state;
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_ORIGINAL, 1011, 5), 0);
	/* the client sent up to 1637 (its numbering), so the server may acknowledge 1600 */
	ct_test_feed(t, CLIENT " ack seq=1037 ack=5001 len=600", 0);
	/* NOP, SACK with two blocks (edges at odd offsets: 23, 27, 31, 35), NOPs to 24 bytes:
	 * 1500-1600 lie after the resized segment in the server's view (-5), 1005-1010 before */
	p = adjusted(t,
		     SERVER " ack seq=5001 ack=1011 tcpopt=hex:01"
			    "0512000005dc00000640"
			    "000003ed000003f2"
			    "0101010101",
		     &err);
	assert_int_equal(err, 0);
	assert_int_equal(p->info.tcp_doff, 44);
	assert_int_equal(rd32(p, p->info.l4off + 8), 1011);
	assert_int_equal(rd32(p, p->info.l4off + 23), 1495);
	assert_int_equal(rd32(p, p->info.l4off + 27), 1595);
	assert_int_equal(rd32(p, p->info.l4off + 31), 1005);
	assert_int_equal(rd32(p, p->info.l4off + 35), 1010);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	ct_table_free(t);
}

static void test_shrink_and_wrap(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e;
	struct pkt *p;
	int err;

	(void)state;
	/* sequence numbers about to wrap; the reply side's stream shrank by 3 */
	ct_test_feed(t, CLIENT " syn seq=100", 0);
	ct_test_feed(t, SERVER " syn,ack seq=4294967290 ack=101", 0);
	ct_test_feed(t, CLIENT " ack seq=101 ack=4294967291", 0);
	e = ct_test_find(t, CLIENT, 0);
	assert_int_equal(nat_seqadj_set(t, e, CT_DIR_REPLY, 4294967291, -3), 0);
	p = adjusted(t, SERVER " ack,psh seq=10 ack=101 len=4", &err);
	assert_int_equal(err, 0);
	assert_int_equal(rd32(p, p->info.l4off + 4), 7);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	/* the client acknowledges 11 in its view: 14 in the server's */
	p = adjusted(t, CLIENT " ack seq=101 ack=11", &err);
	assert_int_equal(err, 0);
	assert_int_equal(rd32(p, p->info.l4off + 8), 14);
	assert_true(pkt_l4_csum_ok(p));
	ct_pkt_release(t, p);
	pkt_free(p);
	ct_table_free(t);
}

static void test_untouched(void **state)
{
	struct ct_table *t = ct_test_table(64);
	struct pkt *p;
	int err;

	(void)state;
	/* a connection without the extension */
	handshake(t);
	p = adjusted(t, CLIENT " ack seq=1001 ack=5001", &err);
	assert_int_equal(err, 0);
	assert_int_equal(rd32(p, p->info.l4off + 4), 1001);
	ct_pkt_release(t, p);
	pkt_free(p);
	/* an untracked packet */
	p = ct_test_pkt(CLIENT " ack seq=1001 ack=5001");
	assert_int_equal(nat_seqadj_apply(p), 0);
	pkt_free(p);
	ct_table_free(t);
}

/* nat_mangle_tcp on a packet in many small segments: resized, lengths and checksums right,
 * the change recorded; then the next segment of that direction is shifted. */
static void test_mangle_nonlinear(void **state)
{
	static const char port[] = "PORT 10,0,0,2,19,137\r\n", text[] = "203,0,113,100,19,137";
	struct ct_table *t = ct_test_table(64);
	struct ct_entry *e = handshake(t);
	struct pkt *b, *p;
	uint8_t ip[4], out[64];

	(void)state;
	b = ct_test_pkt(CLIENT " ack,psh seq=1011 ack=5001 payload=\"PORT 10,0,0,2,19,137\\r\\n\"");
	p = pkt_from_bytes_split(pkt_linear_data(b), b->len, 7);
	assert_non_null(p);
	assert_true(p->nsegs > 1);
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0);
	assert_int_equal(ct_in(t, p, true, 0, 0), 0);
	assert_ptr_equal(ct_pkt_entry(p), e);
	/* "10,0,0,2,19,137" at payload offset 5 becomes 5 bytes longer */
	assert_int_equal(nat_mangle_tcp(t, p, e, CT_DIR_ORIGINAL, p->info.payload_off + 5, 15, text,
					(uint32_t)strlen(text)),
			 0);
	assert_int_equal(p->len, b->len + 5);
	assert_int_equal(p->info.l3len, 40 + sizeof(port) - 1 + 5);
	assert_int_equal(pkt_copy_out(p, 2, ip, 2), 0);
	assert_int_equal(ip[0] << 8 | ip[1], 40 + sizeof(port) - 1 + 5);
	assert_int_equal(pkt_copy_out(p, p->info.payload_off, out, 27), 0);
	assert_memory_equal(out, "PORT 203,0,113,100,19,137\r\n", 27);
	assert_true(pkt_l4_csum_ok(p));
	assert_int_equal(pkt_parse(p, PKT_LINK_RAW, true), 0); /* the IPv4 header checksum too */
	/* the segment itself keeps its number; the next one moves by 5 */
	assert_int_equal(nat_seqadj_apply(p), 0);
	assert_int_equal(rd32(p, p->info.l4off + 4), 1011);
	assert_int_equal(nat_seqadj_offset(e, CT_DIR_ORIGINAL, 1033), 5);
	ct_pkt_release(t, p);
	pkt_free(p);
	pkt_free(b);
	ct_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_offsets),    cmocka_unit_test(test_apply_both_directions),
	    cmocka_unit_test(test_sack_edges), cmocka_unit_test(test_shrink_and_wrap),
	    cmocka_unit_test(test_untouched),  cmocka_unit_test(test_mangle_nonlinear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
