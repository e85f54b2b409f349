/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conntrackd's state-synchronisation wire format (version 1, as conntrackd 1.4.7 speaks it;
 * /work/shared/SYNC-WIRE.md sections 3-5 and 9): messages, their attributes, and the strict
 * reading of a received datagram.
 *
 * A datagram is one or more messages back to back, no datagram header:
 *
 *   0       1       2               4                               8
 *   +-------+-------+---------------+-------------------------------+
 *   |ver|typ| flags |  len (BE)     |  seq (BE)                     |   base header
 *   +-------+-------+---------------+-------------------------------+
 *   |  from (BE)                    |  to (BE)                      |   ACK/NACK/RESYNC only
 *   +-------------------------------+-------------------------------+
 *   | attr len (BE) | attr id (BE)  | payload, zero-padded to 4 ... |   data messages only
 *   +---------------+---------------+-------------------------------+
 *
 * ver = 1 (high nibble), typ = 0..5 data, 10 control. Attribute len = 4 + payload (unpadded);
 * each attribute starts on a 4-byte boundary. Byte orders: addresses and the PORT groups as in
 * the packet (big-endian), u32/u16 values big-endian, except SPAT_PORT, DPAT_PORT and ICMP_ID,
 * which an x86 conntrackd writes little-endian (its htons of an already network-order value):
 * we write and read them little-endian too.
 */
#ifndef SYNC_WIRE_H
#define SYNC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ct/tuple.h"

#define SYNC_VERSION	1
#define SYNC_HDR_LEN	8
#define SYNC_CTL_LEN	16
#define SYNC_MSG_MAX	4096 /* a message we build never exceeds it */
#define SYNC_HELPER_MAX 16   /* helper name attribute: NUL included */

enum sync_type {
	SYNC_T_CT_NEW = 0,
	SYNC_T_CT_UPD = 1,
	SYNC_T_CT_DEL = 2,
	SYNC_T_EXP_NEW = 3,
	SYNC_T_EXP_UPD = 4,
	SYNC_T_EXP_DEL = 5,
	SYNC_T_CTL = 10,
	/* pkttables peers only (natmap.c): a NAT mapping. conntrackd refuses a type above 5
	 * (counted as a bad type), so it is never sent to a conntrackd peer. */
	SYNC_T_PT_MAP = 6,
};

enum sync_flag {
	SYNC_F_RESYNC = 0x02,
	SYNC_F_NACK = 0x04,
	SYNC_F_ACK = 0x08,
	SYNC_F_ALIVE = 0x10,
	SYNC_F_HELLO = 0x20,
	SYNC_F_HELLO_BACK = 0x40,
};

/* Conntrack attribute ids (message types 0-2). */
enum sync_ct_attr {
	SA_IPV4,
	SA_IPV6,
	SA_L4PROTO,
	SA_PORT,
	SA_TCP_STATE,
	SA_STATUS,
	SA_TIMEOUT,
	SA_MARK,
	SA_MASTER_IPV4,
	SA_MASTER_IPV6,
	SA_MASTER_L4PROTO,
	SA_MASTER_PORT,
	SA_SNAT_IPV4,
	SA_DNAT_IPV4,
	SA_SPAT_PORT,
	SA_DPAT_PORT,
	SA_NAT_SEQ_ADJ,
	SA_SCTP_STATE,
	SA_SCTP_VTAG_ORIG,
	SA_SCTP_VTAG_REPL,
	SA_DCCP_STATE,
	SA_DCCP_ROLE,
	SA_ICMP_TYPE,
	SA_ICMP_CODE,
	SA_ICMP_ID,
	SA_TCP_WSCALE_ORIG,
	SA_TCP_WSCALE_REPL,
	SA_HELPER_NAME,
	SA_LABELS,
	SA_SNAT_IPV6,
	SA_DNAT_IPV6,
	SA_SYNPROXY,
	SA_ZONE,
	SA_CT_MAX /* 33: an id at or above it rejects the message */
};

/* Expectation attribute ids (message types 3-5): a separate id space. */
enum sync_exp_attr {
	SE_MASTER_IPV4,
	SE_MASTER_IPV6,
	SE_MASTER_L4PROTO,
	SE_MASTER_PORT,
	SE_EXPECT_IPV4,
	SE_EXPECT_IPV6,
	SE_EXPECT_L4PROTO,
	SE_EXPECT_PORT,
	SE_MASK_IPV4,
	SE_MASK_IPV6,
	SE_MASK_L4PROTO,
	SE_MASK_PORT,
	SE_TIMEOUT,
	SE_FLAGS,
	SE_CLASS,
	SE_NAT_IPV4,
	SE_NAT_PORT,
	SE_NAT_L4PROTO,
	SE_NAT_DIR,
	SE_HELPER_NAME,
	SE_FN,
	SE_EXP_MAX /* 21 */
};

/* Kernel status bits (IPS_*) that only travel on the wire: NAT's, which pkttables keeps in
 * the binding rather than in the entry's status. */
#define SYNC_IPS_SRC_NAT      0x10
#define SYNC_IPS_DST_NAT      0x20
#define SYNC_IPS_SRC_NAT_DONE 0x80
#define SYNC_IPS_DST_NAT_DONE 0x100

/* One connection as a message carries it. `have` has bit (1 << SA_*) for each attribute. */
struct sync_flow {
	uint64_t have;
	struct ct_tuple orig; /* family, l4proto, addresses, ports or ICMP id/type/code, zone */
	uint32_t status, timeout, mark;
	uint8_t tcp_state, wscale[2], sctp_state, dccp_state, dccp_role;
	uint32_t vtag[2];
	union pt_addr snat, dnat; /* SNAT: reply destination; DNAT: reply source */
	uint16_t spat, dpat;	  /* SPAT: reply destination port; DPAT: reply source port */
	uint32_t seqadj[6], synproxy[3];
	struct ct_tuple master; /* family, l4proto, addresses, ports (SA_MASTER_*) */
	char helper[SYNC_HELPER_MAX];
	uint32_t labels[4];
};

/* One expectation as a message carries it (have: bit per SE_*). */
struct sync_exp {
	uint32_t have;
	struct ct_tuple master, expect, mask, nat;
	uint32_t timeout, flags, class_, nat_dir;
	char helper[SYNC_HELPER_MAX];
	char fn[32];
};

/* A header as read. from/to only for ACK/NACK/RESYNC (ctl_ext). */
struct sync_hdr {
	uint8_t version, type, flags;
	uint16_t len;
	uint32_t seq, from, to;
	bool ctl_ext;
};

/* What the peer accepts (SYNC-WIRE.md 14): a conntrackd before 1.4.7 rejects a whole message
 * carrying ZONE, one before 1.4.5 one carrying SYNPROXY. */
enum sync_peer_kind {
	SYNC_PEER_CONNTRACKD, /* 1.4.7 and later (the default) */
	SYNC_PEER_CONNTRACKD_146,
	SYNC_PEER_CONNTRACKD_144,
	SYNC_PEER_PKTTABLES,
};

/* Reasons a received message is refused, each with a counter (conntrackd -s network). */
enum sync_rx_error {
	SYNC_RX_TRUNCATED,   /* fewer bytes than a header: rest of the datagram dropped */
	SYNC_RX_BAD_SIZE,    /* len 0, beyond the datagram, or below its header */
	SYNC_RX_BAD_VERSION, /* version != 1 */
	SYNC_RX_BAD_HEADER,  /* the mode's classification refused it (flags/type) */
	SYNC_RX_BAD_TYPE,    /* data type above 5 */
	SYNC_RX_BAD_PAYLOAD, /* an attribute malformed, unknown, or of the wrong size */
	SYNC_RX_INCOMPLETE,  /* well-formed but names no connection (no address or protocol) */
	SYNC_RX_ERR_MAX
};

/* Write a base header (len/seq filled later by sync_hdr_set) at buf. */
void sync_hdr_put(uint8_t *buf, uint8_t type, uint8_t flags, uint16_t len, uint32_t seq);
/* A 16-byte control message (ACK/NACK/RESYNC; ALIVE uses 8 with from/to absent). */
size_t sync_ctl_put(uint8_t *buf, uint8_t flags, uint32_t seq, uint32_t from, uint32_t to);

/*
 * Encode a conntrack data message of `type` (header seq 0, flags 0) into buf (cap bytes,
 * SYNC_MSG_MAX is always enough), attributes in conntrackd's order and only those `peer`
 * accepts. Returns the length, or -ENOSPC.
 */
int sync_ct_encode(uint8_t *buf, size_t cap, uint8_t type, const struct sync_flow *f,
		   enum sync_peer_kind peer);
/* Same for an expectation. */
int sync_exp_encode(uint8_t *buf, size_t cap, uint8_t type, const struct sync_exp *x);

/*
 * Read the next message's header from d[off..len). Returns the message length (advance off by
 * it), 0 when the datagram is used up, or -(1 + SYNC_RX_*) for a framing error that stops the
 * datagram (truncated, bad size). A wrong version is reported by h->version, not here.
 */
int sync_hdr_next(const uint8_t *d, size_t len, size_t off, struct sync_hdr *h);
/* Parse the attributes of a conntrack message (msg: the whole message, len its length).
 * 0, or -(1 + SYNC_RX_BAD_PAYLOAD / SYNC_RX_INCOMPLETE). Nothing is applied here. */
int sync_ct_decode(const uint8_t *msg, size_t len, struct sync_flow *f);
int sync_exp_decode(const uint8_t *msg, size_t len, struct sync_exp *x);

/*
 * A NAT mapping (SYNC_T_PT_MAP), after the base header (seq 0, flags 0), all big-endian:
 *
 *   0 body version (1) | 1 family (4, 6) | 2 protocol | 3 mode (NAT_B_EI 1, NAT_B_AD 2)
 *   4 zone (16)        | 6 internal port (16)        | 8 external port (16) | 10 range flags
 *   12 range min port  | 14 range max port           | 16 range base port   | 18 range
 *   mapping, filtering, refresh, hairpin, netmap (8 each) | 23 zero | 24 timeout s (32)
 *   28 internal, external, remote, range min, range max address (4 or 16 bytes each)
 *
 * 56 bytes in all for IPv4, 116 for IPv6; any other length is refused.
 */
#define SYNC_MAP_MAX 116
struct nat_map_state;
int sync_map_encode(uint8_t *buf, size_t cap, const struct nat_map_state *m);
/* 0, or -(1 + SYNC_RX_BAD_SIZE / SYNC_RX_BAD_PAYLOAD). */
int sync_map_decode(const uint8_t *msg, size_t len, struct nat_map_state *m);

/* 32-bit serial order of sequence numbers. */
static inline bool sync_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}
static inline bool sync_seq_after(uint32_t a, uint32_t b)
{
	return sync_seq_before(b, a);
}

#endif
