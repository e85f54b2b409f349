// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building and strictly reading conntrackd's messages (wire.h draws the format). Reading never
 * trusts a length: every attribute is checked against the message end and against the size
 * its id must have before anything is taken from it, and a message with one bad attribute is
 * refused whole, as conntrackd refuses it (SYNC-WIRE.md 9, steps 8-8c).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "nat/nat.h"
#include "sync/wire.h"

/* ---- small helpers ----------------------------------------------------------------------- */

/* A tuple is four attributes in a row, in this order, in both kinds of message: from SA_IPV4,
 * SA_MASTER_IPV4, SE_MASTER_IPV4, SE_EXPECT_IPV4 and SE_MASK_IPV4. */
enum tuple_attr { TUPLE_IPV4, TUPLE_IPV6, TUPLE_L4PROTO, TUPLE_PORT };
#define TUPLE_FROM(P)                                                                              \
	(P##IPV6 - P##IPV4 == TUPLE_IPV6 && P##L4PROTO - P##IPV4 == TUPLE_L4PROTO &&               \
	 P##PORT - P##IPV4 == TUPLE_PORT)
_Static_assert(TUPLE_FROM(SA_) && TUPLE_FROM(SA_MASTER_) && TUPLE_FROM(SE_MASTER_) &&
		   TUPLE_FROM(SE_EXPECT_) && TUPLE_FROM(SE_MASK_),
	       "the tuple attributes of wire.h are in TUPLE_* order");

/* big-endian stores of any alignment (one store each, not one per byte) */
static inline void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}
static inline void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}
static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void sync_hdr_put(uint8_t *buf, uint8_t type, uint8_t flags, uint16_t len, uint32_t seq)
{
	buf[0] = (uint8_t)(SYNC_VERSION << 4 | (type & 0x0f));
	buf[1] = flags;
	put16(buf + 2, len);
	put32(buf + 4, seq);
}

size_t sync_ctl_put(uint8_t *buf, uint8_t flags, uint32_t seq, uint32_t from, uint32_t to)
{
	if (!(flags & (SYNC_F_ACK | SYNC_F_NACK | SYNC_F_RESYNC))) {
		sync_hdr_put(buf, SYNC_T_CTL, flags, SYNC_HDR_LEN, seq);
		return SYNC_HDR_LEN;
	}
	sync_hdr_put(buf, SYNC_T_CTL, flags, SYNC_CTL_LEN, seq);
	put32(buf + 8, from);
	put32(buf + 12, to);
	return SYNC_CTL_LEN;
}

/* ---- building ---------------------------------------------------------------------------- */

struct out {
	uint8_t *buf;
	size_t cap, off;
	bool full;
	bool chk; /* false: the caller knows the buffer holds the longest message (no checks) */
};

/* One attribute: len (4 + n, unpadded), id, payload, zero padding to 4 bytes (the caller
 * writes all n payload bytes: only the last word, which holds the padding, is zeroed). */
static inline uint8_t *attr(struct out *o, unsigned id, size_t n)
{
	size_t padded = (4 + n + 3) & ~(size_t)3;
	uint8_t *p;

	if (o->chk && (o->full || o->off + padded > o->cap)) {
		o->full = true;
		return NULL;
	}
	p = o->buf + o->off;
	put32(p, (uint32_t)(4 + n) << 16 | id);
	if (n & 3)
		memset(p + padded - 4, 0, 4);
	o->off += padded;
	return p + 4;
}

static inline void attr_u8(struct out *o, unsigned id, uint8_t v)
{
	uint8_t *p = attr(o, id, 1);

	if (p)
		p[0] = v;
}
static inline void attr_u32(struct out *o, unsigned id, uint32_t v)
{
	uint8_t *p = attr(o, id, 4);

	if (p)
		put32(p, v);
}
/* HOST-SWAPPED attributes (SPAT, DPAT, ICMP_ID): little-endian, as x86 conntrackd sends. */
static inline void attr_u16_le(struct out *o, unsigned id, uint16_t v)
{
	uint8_t *p = attr(o, id, 2);

	if (p) {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
	}
}
static inline void attr_addrs(struct out *o, unsigned id, int family, const union pt_addr *a,
			      const union pt_addr *b)
{
	size_t n = family == AF_INET ? 4 : 16;
	uint8_t *p = attr(o, id, 2 * n);

	if (p && n == 4) { /* constant sizes: inline stores, not a call */
		memcpy(p, a->b, 4);
		memcpy(p + 4, b->b, 4);
	} else if (p) {
		memcpy(p, a->b, 16);
		memcpy(p + 16, b->b, 16);
	}
}
static inline void attr_addr(struct out *o, unsigned id, int family, const union pt_addr *a)
{
	size_t n = family == AF_INET ? 4 : 16;
	uint8_t *p = attr(o, id, n);

	if (p && n == 4)
		memcpy(p, a->b, 4);
	else if (p)
		memcpy(p, a->b, 16);
}
static inline void attr_ports(struct out *o, unsigned id, uint16_t s, uint16_t d)
{
	uint8_t *p = attr(o, id, 4);

	if (p) {
		put16(p, s);
		put16(p + 2, d);
	}
}
/* A tuple as its four attributes (TUPLE_* from base): addresses of family, protocol, ports. */
static inline void attr_tuple(struct out *o, unsigned base, int family, const struct ct_tuple *t,
			      bool ports)
{
	attr_addrs(o, base + (family == AF_INET ? TUPLE_IPV4 : TUPLE_IPV6), family, &t->src,
		   &t->dst);
	attr_u8(o, base + TUPLE_L4PROTO, t->l4proto);
	if (ports)
		attr_ports(o, base + TUPLE_PORT, t->s.port, t->d.port);
}
static void attr_str(struct out *o, unsigned id, const char *s, size_t max)
{
	size_t n = strnlen(s, max - 1);
	uint8_t *p = attr(o, id, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
}

/* Protocols whose tuple has a port pair on the wire (SYNC-WIRE.md 4.3, PORT). */
static bool proto_has_ports(uint8_t l4)
{
	return l4 == 6 || l4 == 17 || l4 == 132 || l4 == 33;
}
static bool proto_is_icmp(uint8_t l4)
{
	return l4 == 1 || l4 == 58;
}

#define HAS(f, id) (((f)->have >> (id)) & 1)

/*
 * The longest connection message sync_ct_encode can build: header 8, addresses (IPv6) 36,
 * status 8, L4 protocol 8, ports 8, protocol state 24 (TCP state and both window scales, or
 * SCTP, or ICMP), timeout 8, mark 8, master 52, SNAT 20, DNAT 20, SPAT 8, DPAT 8, sequence
 * adjustment 28, helper 16 (at most 11 characters and the NUL), labels 20, synproxy 16,
 * zone 8: 304 bytes. A buffer at least CT_ENC_BOUND long needs no check per attribute.
 */
#define CT_ENC_BOUND 320

static inline __attribute__((always_inline)) int ct_encode(uint8_t *buf, size_t cap, uint8_t type,
							   const struct sync_flow *f,
							   enum sync_peer_kind peer, bool chk)
{
	struct out o = {.buf = buf, .cap = cap, .off = SYNC_HDR_LEN, .chk = chk};
	const struct ct_tuple *t = &f->orig;
	bool v4 = t->family == AF_INET;
	uint8_t l4 = t->l4proto;

	attr_addrs(&o, v4 ? SA_IPV4 : SA_IPV6, t->family, &t->src, &t->dst);
	if (HAS(f, SA_STATUS)) /* a DEL needs the tuple only (SYNC-WIRE.md 11.1) */
		attr_u32(&o, SA_STATUS, f->status);
	attr_u8(&o, SA_L4PROTO, l4);
	if (proto_has_ports(l4))
		attr_ports(&o, SA_PORT, t->s.port, t->d.port);
	if (l4 == 6 && HAS(f, SA_TCP_STATE)) {
		attr_u8(&o, SA_TCP_STATE, f->tcp_state);
		if (HAS(f, SA_TCP_WSCALE_ORIG)) {
			attr_u8(&o, SA_TCP_WSCALE_ORIG, f->wscale[0]);
			attr_u8(&o, SA_TCP_WSCALE_REPL, f->wscale[1]);
		}
	} else if (l4 == 132 && HAS(f, SA_SCTP_STATE)) {
		attr_u8(&o, SA_SCTP_STATE, f->sctp_state);
		attr_u32(&o, SA_SCTP_VTAG_ORIG, f->vtag[0]);
		attr_u32(&o, SA_SCTP_VTAG_REPL, f->vtag[1]);
	} else if (l4 == 33 && HAS(f, SA_DCCP_STATE)) {
		attr_u8(&o, SA_DCCP_STATE, f->dccp_state);
		attr_u8(&o, SA_DCCP_ROLE, f->dccp_role);
	} else if (proto_is_icmp(l4)) {
		attr_u8(&o, SA_ICMP_TYPE, t->d.icmp.type);
		attr_u8(&o, SA_ICMP_CODE, t->d.icmp.code);
		attr_u16_le(&o, SA_ICMP_ID, t->s.icmp_id);
	}
	if (HAS(f, SA_TIMEOUT))
		attr_u32(&o, SA_TIMEOUT, f->timeout);
	if (HAS(f, SA_MARK))
		attr_u32(&o, SA_MARK, f->mark);
	if (HAS(f, SA_MASTER_L4PROTO))
		attr_tuple(&o, SA_MASTER_IPV4, f->master.family, &f->master,
			   proto_has_ports(f->master.l4proto));
	if (HAS(f, SA_SNAT_IPV4) || HAS(f, SA_SNAT_IPV6))
		attr_addr(&o, v4 ? SA_SNAT_IPV4 : SA_SNAT_IPV6, t->family, &f->snat);
	if (HAS(f, SA_DNAT_IPV4) || HAS(f, SA_DNAT_IPV6))
		attr_addr(&o, v4 ? SA_DNAT_IPV4 : SA_DNAT_IPV6, t->family, &f->dnat);
	if (HAS(f, SA_SPAT_PORT))
		attr_u16_le(&o, SA_SPAT_PORT, f->spat);
	if (HAS(f, SA_DPAT_PORT))
		attr_u16_le(&o, SA_DPAT_PORT, f->dpat);
	if (HAS(f, SA_NAT_SEQ_ADJ)) {
		uint8_t *p = attr(&o, SA_NAT_SEQ_ADJ, 24);

		for (int i = 0; p && i < 6; i++)
			put32(p + 4 * i, f->seqadj[i]);
	}
	if (HAS(f, SA_HELPER_NAME) && f->helper[0])
		attr_str(&o, SA_HELPER_NAME, f->helper, SYNC_HELPER_MAX - 4);
	if (HAS(f, SA_LABELS) && (f->labels[0] | f->labels[1] | f->labels[2] | f->labels[3])) {
		uint8_t *p = attr(&o, SA_LABELS, 16);

		for (int i = 0; p && i < 4; i++)
			put32(p + 4 * i, f->labels[i]);
	}
	if (HAS(f, SA_SYNPROXY) && peer != SYNC_PEER_CONNTRACKD_144) {
		uint8_t *p = attr(&o, SA_SYNPROXY, 12);

		for (int i = 0; p && i < 3; i++)
			put32(p + 4 * i, f->synproxy[i]);
	}
	if (HAS(f, SA_ZONE) && t->zone && peer != SYNC_PEER_CONNTRACKD_146 &&
	    peer != SYNC_PEER_CONNTRACKD_144) {
		uint8_t *p = attr(&o, SA_ZONE, 2);

		if (p)
			put16(p, t->zone);
	}
	if (o.full || o.off > 0xffff)
		return -ENOSPC;
	sync_hdr_put(buf, type, 0, (uint16_t)o.off, 0);
	return (int)o.off;
}

int sync_ct_encode(uint8_t *buf, size_t cap, uint8_t type, const struct sync_flow *f,
		   enum sync_peer_kind peer)
{
	if (cap >= CT_ENC_BOUND)
		return ct_encode(buf, cap, type, f, peer, false);
	if (cap < SYNC_HDR_LEN)
		return -ENOSPC;
	return ct_encode(buf, cap, type, f, peer, true);
}

int sync_exp_encode(uint8_t *buf, size_t cap, uint8_t type, const struct sync_exp *x)
{
	struct out o = {.buf = buf, .cap = cap, .off = SYNC_HDR_LEN, .chk = true};
	int family = x->master.family;
	bool ports = proto_has_ports(x->master.l4proto); /* the master's, for all three */

	if (cap < SYNC_HDR_LEN)
		return -ENOSPC;
	attr_tuple(&o, SE_MASTER_IPV4, family, &x->master, ports);
	attr_tuple(&o, SE_EXPECT_IPV4, family, &x->expect, ports);
	attr_tuple(&o, SE_MASK_IPV4, family, &x->mask, ports);
	if (x->have & (1u << SE_TIMEOUT))
		attr_u32(&o, SE_TIMEOUT, x->timeout);
	attr_u32(&o, SE_FLAGS, x->flags);
	if (x->have & (1u << SE_CLASS))
		attr_u32(&o, SE_CLASS, x->class_);
	if (x->helper[0])
		attr_str(&o, SE_HELPER_NAME, x->helper, SYNC_HELPER_MAX - 4);
	if (o.full)
		return -ENOSPC;
	sync_hdr_put(buf, type, 0, (uint16_t)o.off, 0);
	return (int)o.off;
}

/* ---- reading ----------------------------------------------------------------------------- */

#define ERR(e) (-(1 + (e)))

int sync_hdr_next(const uint8_t *d, size_t len, size_t off, struct sync_hdr *h)
{
	size_t left = len - off;

	if (off >= len)
		return 0;
	if (left < SYNC_HDR_LEN)
		return ERR(SYNC_RX_TRUNCATED);
	h->version = d[off] >> 4;
	h->type = d[off] & 0x0f;
	h->flags = d[off + 1];
	h->len = get16(d + off + 2);
	h->seq = get32(d + off + 4);
	h->from = h->to = 0;
	if (h->len == 0 || h->len > left)
		return ERR(SYNC_RX_BAD_SIZE);
	h->ctl_ext =
	    h->type == SYNC_T_CTL && (h->flags & (SYNC_F_ACK | SYNC_F_NACK | SYNC_F_RESYNC));
	if (h->ctl_ext) {
		if (left < SYNC_CTL_LEN)
			return ERR(SYNC_RX_TRUNCATED);
		if (h->len < SYNC_CTL_LEN)
			return ERR(SYNC_RX_BAD_SIZE);
		h->from = get32(d + off + 8);
		h->to = get32(d + off + 12);
	} else if (h->len < SYNC_HDR_LEN) {
		return ERR(SYNC_RX_BAD_SIZE);
	}
	return h->len;
}

/*
 * Sizes the receiver requires (attribute len, header included): > 0 exact, < 0 a maximum
 * (-max), for labels a maximum whose payload must also be whole words.
 */
static const int16_t ct_size[SA_CT_MAX] = {
    [SA_IPV4] = 12,
    [SA_IPV6] = 36,
    [SA_L4PROTO] = 5,
    [SA_PORT] = 8,
    [SA_TCP_STATE] = 5,
    [SA_STATUS] = 8,
    [SA_TIMEOUT] = 8,
    [SA_MARK] = 8,
    [SA_MASTER_IPV4] = 12,
    [SA_MASTER_IPV6] = 36,
    [SA_MASTER_L4PROTO] = 5,
    [SA_MASTER_PORT] = 8,
    [SA_SNAT_IPV4] = 8,
    [SA_DNAT_IPV4] = 8,
    [SA_SPAT_PORT] = 6,
    [SA_DPAT_PORT] = 6,
    [SA_NAT_SEQ_ADJ] = 28,
    [SA_SCTP_STATE] = 5,
    [SA_SCTP_VTAG_ORIG] = 8,
    [SA_SCTP_VTAG_REPL] = 8,
    [SA_DCCP_STATE] = 5,
    [SA_DCCP_ROLE] = 5,
    [SA_ICMP_TYPE] = 5,
    [SA_ICMP_CODE] = 5,
    [SA_ICMP_ID] = 6,
    [SA_TCP_WSCALE_ORIG] = 5,
    [SA_TCP_WSCALE_REPL] = 5,
    [SA_HELPER_NAME] = -SYNC_HELPER_MAX,
    [SA_LABELS] = -1028,
    [SA_SNAT_IPV6] = 20,
    [SA_DNAT_IPV6] = 20,
    [SA_SYNPROXY] = 16,
    [SA_ZONE] = 6,
};

static const int16_t exp_size[SE_EXP_MAX] = {
    [SE_MASTER_IPV4] = 12, [SE_MASTER_IPV6] = 36, [SE_MASTER_L4PROTO] = 5, [SE_MASTER_PORT] = 8,
    [SE_EXPECT_IPV4] = 12, [SE_EXPECT_IPV6] = 36, [SE_EXPECT_L4PROTO] = 5, [SE_EXPECT_PORT] = 8,
    [SE_MASK_IPV4] = 12,   [SE_MASK_IPV6] = 36,	  [SE_MASK_L4PROTO] = 5,   [SE_MASK_PORT] = 8,
    [SE_TIMEOUT] = 8,	   [SE_FLAGS] = 8,	  [SE_CLASS] = 8,	   [SE_NAT_IPV4] = 12,
    [SE_NAT_PORT] = 8,	   [SE_NAT_L4PROTO] = 5,  [SE_NAT_DIR] = 8,	   [SE_HELPER_NAME] = -16,
    [SE_FN] = -32,
};

typedef void (*attr_fn)(void *obj, unsigned id, const uint8_t *p, size_t n);

/*
 * Walk the attributes while more than 4 bytes remain (as conntrackd does), checking each
 * before fn sees it. A string attribute must hold its NUL. 0 or ERR(SYNC_RX_BAD_PAYLOAD).
 */
static int walk(const uint8_t *msg, size_t len, const int16_t *sizes, unsigned max, attr_fn fn,
		void *obj, uint64_t *seen)
{
	size_t off = SYNC_HDR_LEN;

	while (len - off > 4) {
		uint16_t alen = get16(msg + off), id = get16(msg + off + 2);
		size_t n;

		if (alen < 4 || alen > len - off || id >= max)
			return ERR(SYNC_RX_BAD_PAYLOAD);
		if (sizes[id] > 0 ? alen != sizes[id] : alen > -sizes[id])
			return ERR(SYNC_RX_BAD_PAYLOAD);
		n = alen - 4u;
		if ((sizes == exp_size ? (id == SE_HELPER_NAME || id == SE_FN)
				       : id == SA_HELPER_NAME) &&
		    (n == 0 || memchr(msg + off + 4, 0, n) == NULL))
			return ERR(SYNC_RX_BAD_PAYLOAD);
		if ((*seen >> id) & 1)
			return ERR(SYNC_RX_BAD_PAYLOAD); /* twice: which one would apply? */
		*seen |= 1ull << id;
		fn(obj, id, msg + off + 4, n);
		off += (alen + 3u) & ~3u;
		if (off > len)
			off = len;
	}
	return 0;
}

static void get_addrs(struct ct_tuple *t, int family, const uint8_t *p)
{
	size_t n = family == AF_INET ? 4 : 16;

	t->family = (uint8_t)family;
	memcpy(t->src.b, p, n);
	memcpy(t->dst.b, p + n, n);
}

/* Attribute TUPLE_* `which` of a tuple. */
static void get_tuple_attr(struct ct_tuple *t, unsigned which, const uint8_t *p)
{
	switch (which) {
	case TUPLE_IPV4:
		get_addrs(t, AF_INET, p);
		break;
	case TUPLE_IPV6:
		get_addrs(t, AF_INET6, p);
		break;
	case TUPLE_L4PROTO:
		t->l4proto = p[0];
		break;
	case TUPLE_PORT:
		t->s.port = get16(p);
		t->d.port = get16(p + 2);
		break;
	}
}

static uint16_t get16_le(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void ct_attr(void *obj, unsigned id, const uint8_t *p, size_t n)
{
	struct sync_flow *f = obj;

	switch (id) {
	case SA_IPV4:
	case SA_IPV6:
	case SA_L4PROTO:
	case SA_PORT:
		get_tuple_attr(&f->orig, id - SA_IPV4, p);
		break;
	case SA_TCP_STATE:
		f->tcp_state = p[0];
		break;
	case SA_STATUS:
		f->status = get32(p);
		break;
	case SA_TIMEOUT:
		f->timeout = get32(p);
		break;
	case SA_MARK:
		f->mark = get32(p);
		break;
	case SA_MASTER_IPV4:
	case SA_MASTER_IPV6:
	case SA_MASTER_L4PROTO:
	case SA_MASTER_PORT:
		get_tuple_attr(&f->master, id - SA_MASTER_IPV4, p);
		break;
	case SA_SNAT_IPV4:
	case SA_SNAT_IPV6:
		memcpy(f->snat.b, p, n);
		break;
	case SA_DNAT_IPV4:
	case SA_DNAT_IPV6:
		memcpy(f->dnat.b, p, n);
		break;
	case SA_SPAT_PORT:
		f->spat = get16_le(p);
		break;
	case SA_DPAT_PORT:
		f->dpat = get16_le(p);
		break;
	case SA_NAT_SEQ_ADJ:
		for (int i = 0; i < 6; i++)
			f->seqadj[i] = get32(p + 4 * i);
		break;
	case SA_SCTP_STATE:
		f->sctp_state = p[0];
		break;
	case SA_SCTP_VTAG_ORIG:
		f->vtag[0] = get32(p);
		break;
	case SA_SCTP_VTAG_REPL:
		f->vtag[1] = get32(p);
		break;
	case SA_DCCP_STATE:
		f->dccp_state = p[0];
		break;
	case SA_DCCP_ROLE:
		f->dccp_role = p[0];
		break;
	case SA_ICMP_TYPE:
		f->orig.d.icmp.type = p[0];
		break;
	case SA_ICMP_CODE:
		f->orig.d.icmp.code = p[0];
		break;
	case SA_ICMP_ID:
		f->orig.s.icmp_id = get16_le(p);
		break;
	case SA_TCP_WSCALE_ORIG:
		f->wscale[0] = p[0];
		break;
	case SA_TCP_WSCALE_REPL:
		f->wscale[1] = p[0];
		break;
	case SA_HELPER_NAME:
		memcpy(f->helper, p, n); /* n <= 12, NUL checked by walk */
		break;
	case SA_LABELS:
		/* 0 bytes or not whole words: ignored, the message still counts (4.5.3); bits
		 * beyond the 128 pkttables keeps are dropped */
		if (n == 0 || n % 4) {
			f->have &= ~(1ull << SA_LABELS);
			break;
		}
		for (size_t i = 0; i < 4 && i < n / 4; i++)
			f->labels[i] = get32(p + 4 * i);
		break;
	case SA_SYNPROXY:
		for (int i = 0; i < 3; i++)
			f->synproxy[i] = get32(p + 4 * i);
		break;
	case SA_ZONE:
		f->orig.zone = get16(p);
		break;
	}
}

int sync_ct_decode(const uint8_t *msg, size_t len, struct sync_flow *f)
{
	uint64_t seen = 0;
	int r;

	memset(f, 0, sizeof(*f));
	ct_tuple_zero(&f->orig);
	ct_tuple_zero(&f->master);
	r = walk(msg, len, ct_size, SA_CT_MAX, ct_attr, f, &seen);
	if (r)
		return r;
	f->have |= seen;
	if (!(seen & (1ull << SA_LABELS)))
		f->have &= ~(1ull << SA_LABELS);
	/* a connection needs exactly one address family and its protocol; a protocol with
	 * ports needs them (a tuple of zero ports would name a different connection) */
	if (((seen >> SA_IPV4) & 1) == ((seen >> SA_IPV6) & 1) || !((seen >> SA_L4PROTO) & 1))
		return ERR(SYNC_RX_INCOMPLETE);
	if (proto_has_ports(f->orig.l4proto) && !((seen >> SA_PORT) & 1))
		return ERR(SYNC_RX_INCOMPLETE);
	if (((seen >> SA_MASTER_IPV4) & 1) && ((seen >> SA_MASTER_IPV6) & 1))
		return ERR(SYNC_RX_BAD_PAYLOAD);
	/* NAT addresses must be of the flow's family */
	if (f->orig.family == AF_INET && (seen & ((1ull << SA_SNAT_IPV6) | (1ull << SA_DNAT_IPV6))))
		return ERR(SYNC_RX_BAD_PAYLOAD);
	if (f->orig.family == AF_INET6 &&
	    (seen & ((1ull << SA_SNAT_IPV4) | (1ull << SA_DNAT_IPV4))))
		return ERR(SYNC_RX_BAD_PAYLOAD);
	if ((seen & ((1ull << SA_MASTER_IPV4) | (1ull << SA_MASTER_IPV6))) &&
	    !((seen >> SA_MASTER_L4PROTO) & 1))
		return ERR(SYNC_RX_INCOMPLETE);
	f->master.zone = f->orig.zone;
	return 0;
}

static void exp_attr(void *obj, unsigned id, const uint8_t *p, size_t n)
{
	struct sync_exp *x = obj;

	switch (id) {
	case SE_MASTER_IPV4:
	case SE_MASTER_IPV6:
	case SE_MASTER_L4PROTO:
	case SE_MASTER_PORT:
		get_tuple_attr(&x->master, id - SE_MASTER_IPV4, p);
		break;
	case SE_EXPECT_IPV4:
	case SE_EXPECT_IPV6:
	case SE_EXPECT_L4PROTO:
	case SE_EXPECT_PORT:
		get_tuple_attr(&x->expect, id - SE_EXPECT_IPV4, p);
		break;
	case SE_MASK_IPV4:
	case SE_MASK_IPV6:
	case SE_MASK_L4PROTO:
	case SE_MASK_PORT:
		get_tuple_attr(&x->mask, id - SE_MASK_IPV4, p);
		break;
	case SE_TIMEOUT:
		x->timeout = get32(p);
		break;
	case SE_FLAGS:
		x->flags = get32(p);
		break;
	case SE_CLASS:
		x->class_ = get32(p);
		break;
	case SE_NAT_IPV4:
		get_addrs(&x->nat, AF_INET, p);
		break;
	case SE_NAT_PORT:
		x->nat.s.port = get16(p);
		x->nat.d.port = get16(p + 2);
		break;
	case SE_NAT_L4PROTO:
		x->nat.l4proto = p[0];
		break;
	case SE_NAT_DIR:
		x->nat_dir = get32(p);
		break;
	case SE_HELPER_NAME:
		memcpy(x->helper, p, n);
		break;
	case SE_FN:
		memcpy(x->fn, p, n);
		break;
	}
}

int sync_exp_decode(const uint8_t *msg, size_t len, struct sync_exp *x)
{
	uint64_t seen = 0;
	int r;

	memset(x, 0, sizeof(*x));
	ct_tuple_zero(&x->master);
	ct_tuple_zero(&x->expect);
	ct_tuple_zero(&x->mask);
	ct_tuple_zero(&x->nat);
	r = walk(msg, len, exp_size, SE_EXP_MAX, exp_attr, x, &seen);
	if (r)
		return r;
	x->have = (uint32_t)seen;
	if (!(seen & ((1u << SE_MASTER_IPV4) | (1u << SE_MASTER_IPV6))) ||
	    !(seen & ((1u << SE_EXPECT_IPV4) | (1u << SE_EXPECT_IPV6))) ||
	    !((seen >> SE_MASTER_L4PROTO) & 1) || !((seen >> SE_EXPECT_L4PROTO) & 1))
		return ERR(SYNC_RX_INCOMPLETE);
	if (x->master.family != x->expect.family)
		return ERR(SYNC_RX_BAD_PAYLOAD);
	return 0;
}

/* ---- NAT mappings (pkttables peers only) ------------------------------------------------- */

int sync_map_encode(uint8_t *buf, size_t cap, const struct nat_map_state *m)
{
	size_t al = m->family == AF_INET ? 4 : 16, len = SYNC_HDR_LEN + 28 + 5 * al;
	const struct nat_range *r = &m->range;
	uint8_t *p = buf + SYNC_HDR_LEN;
	uint64_t sec = (m->timeout + 999999999ull) / 1000000000ull;

	if ((m->family != AF_INET && m->family != AF_INET6) || cap < len)
		return -ENOSPC;
	memset(p, 0, 28);
	p[0] = 1;
	p[1] = m->family == AF_INET ? 4 : 6;
	p[2] = m->l4proto;
	p[3] = m->mode;
	put16(p + 4, m->zone);
	put16(p + 6, m->int_port);
	put16(p + 8, m->ext_port);
	put16(p + 10, r->flags);
	put16(p + 12, r->min_port);
	put16(p + 14, r->max_port);
	put16(p + 16, r->base_port);
	p[18] = r->mapping;
	p[19] = r->filtering;
	p[20] = r->refresh;
	p[21] = r->hairpin;
	p[22] = r->netmap;
	put32(p + 24, sec > 0xffffffffu ? 0xffffffffu : (uint32_t)sec);
	p += 28;
	memcpy(p, m->int_addr.b, al);
	memcpy(p + al, m->ext_addr.b, al);
	memcpy(p + 2 * al, m->remote.b, al);
	memcpy(p + 3 * al, r->min_addr.b, al);
	memcpy(p + 4 * al, r->max_addr.b, al);
	sync_hdr_put(buf, SYNC_T_PT_MAP, 0, (uint16_t)len, 0);
	return (int)len;
}

int sync_map_decode(const uint8_t *msg, size_t len, struct nat_map_state *m)
{
	const uint8_t *p = msg + SYNC_HDR_LEN;
	struct nat_range *r = &m->range;
	size_t al;
	uint32_t sec;

	memset(m, 0, sizeof(*m));
	if (len < SYNC_HDR_LEN + 28)
		return ERR(SYNC_RX_BAD_SIZE);
	if (p[0] != 1 || (p[1] != 4 && p[1] != 6) || p[23])
		return ERR(SYNC_RX_BAD_PAYLOAD);
	al = p[1] == 4 ? 4 : 16;
	if (len != SYNC_HDR_LEN + 28 + 5 * al)
		return ERR(SYNC_RX_BAD_SIZE);
	m->family = p[1] == 4 ? AF_INET : AF_INET6;
	m->l4proto = p[2];
	m->mode = p[3];
	m->zone = get16(p + 4);
	m->int_port = get16(p + 6);
	m->ext_port = get16(p + 8);
	r->flags = get16(p + 10);
	r->min_port = get16(p + 12);
	r->max_port = get16(p + 14);
	r->base_port = get16(p + 16);
	r->mapping = p[18];
	r->filtering = p[19];
	r->refresh = p[20];
	r->hairpin = p[21];
	r->netmap = p[22];
	r->family = m->family;
	sec = get32(p + 24);
	/* a day at most: a TCP mapping is 2 h 4 min by default */
	if (!sec || sec > 86400 || !m->int_port || !m->ext_port ||
	    (m->mode != NAT_B_EI && m->mode != NAT_B_AD) || r->mapping > NAT_B_APD ||
	    r->filtering > NAT_B_APD || r->refresh > NAT_REFRESH_BOTH ||
	    r->hairpin > NAT_HAIRPIN_OFF || r->netmap > 1)
		return ERR(SYNC_RX_BAD_PAYLOAD);
	m->timeout = (uint64_t)sec * 1000000000ull;
	p += 28;
	memcpy(m->int_addr.b, p, al);
	memcpy(m->ext_addr.b, p + al, al);
	memcpy(m->remote.b, p + 2 * al, al);
	memcpy(r->min_addr.b, p + 3 * al, al);
	memcpy(r->max_addr.b, p + 4 * al, al);
	return 0;
}
