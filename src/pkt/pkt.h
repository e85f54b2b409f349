/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pkt: the packet buffer and its parsers.
 *
 * A packet is a list of segments (non-linear, like an skb with frags). Headers are read with
 * pkt_header(), which returns a pointer into the segment when the bytes are contiguous and
 * otherwise copies them into a caller buffer, so nothing ever reads out of bounds.
 *
 *   struct pkt
 *   +-----------+     seg[0]              seg[1]             seg[2]
 *   | seg[]     |---> [eth|ip|tc] ------> [p hdr|payload] -> [payload...]
 *   | nsegs,len |     offsets are counted from the first byte of seg[0]
 *   | info      |     info.l3off = start of IPv4/IPv6 header (0 for raw-IP packets)
 *   +-----------+     info.l4off = start of the transport header (after IPv6 ext headers)
 *
 * This layer knows nothing about rules, boxes or time.
 */
#ifndef PKT_PKT_H
#define PKT_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PKT_MAX_SEGS 16
#define PKT_MAX_LEN  (65535 + 64) /* parenthesised: it is used in expressions */

/* One address of either family. IPv4 lives in the first 4 bytes, the rest is zero. */
union pt_addr {
	uint8_t b[16];
	uint16_t h[8];
	uint32_t w[4];
};

struct pkt_seg {
	uint8_t *data;
	uint32_t len;
};

/* Why parsing stopped short. Counted by the engine; never fatal to the process. */
enum pkt_bad {
	PKT_OK = 0,
	PKT_BAD_L2_TRUNC,   /* Ethernet/VLAN header cut short */
	PKT_BAD_L2_PROTO,   /* not IPv4/IPv6 (ARP etc.): not an IP packet */
	PKT_BAD_IP_TRUNC,   /* IP header cut short */
	PKT_BAD_IP_VERSION, /* version field does not match the link type */
	PKT_BAD_IP_HLEN,    /* IPv4 IHL < 5 or beyond the packet */
	PKT_BAD_IP_LEN,	    /* total/payload length larger than the captured data */
	PKT_BAD_IP_CSUM,    /* IPv4 header checksum wrong */
	PKT_BAD_IP_OPTIONS, /* malformed IPv4 option list */
	PKT_BAD_EXTHDR,	    /* malformed or truncated IPv6 extension header chain */
	PKT_BAD_L4_TRUNC,   /* transport header cut short (first fragment or unfragmented) */
	PKT_BAD_L4_HLEN,    /* TCP data offset < 5 or beyond the segment */
	PKT_BAD_MAX
};

/* Bits of pkt_info.ip6_exthdrs, one per extension header type seen (ipv6header match). */
enum {
	PKT_EH_HOPOPTS = 1 << 0, /* 0 */
	PKT_EH_DSTOPTS = 1 << 1, /* 60 */
	PKT_EH_ROUTING = 1 << 2, /* 43 */
	PKT_EH_FRAG = 1 << 3,	 /* 44 */
	PKT_EH_AUTH = 1 << 4,	 /* 51 */
	PKT_EH_ESP = 1 << 5,	 /* 50 */
	PKT_EH_NONE = 1 << 6,	 /* 59 */
	PKT_EH_PROTO = 1 << 7,	 /* an upper-layer protocol header follows */
};

/* Big-endian (network order) fields of header bytes the caller knows are there. */
static inline uint16_t pkt_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t pkt_get32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void pkt_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* The TCP header's flags, byte 13 (pkt_info.tcp_flags). */
enum {
	PKT_TCP_FIN = 0x01,
	PKT_TCP_SYN = 0x02,
	PKT_TCP_RST = 0x04,
	PKT_TCP_PSH = 0x08,
	PKT_TCP_ACK = 0x10,
	PKT_TCP_URG = 0x20,
	PKT_TCP_ECE = 0x40,
	PKT_TCP_CWR = 0x80
};

/*
 * What the parser found. Filled by pkt_parse(); read by matches. Offsets are absolute
 * (from byte 0 of the packet). Fields for layers that were not reached are zero.
 */
struct pkt_info {
	uint8_t family;	  /* AF_INET or AF_INET6; 0 if not IP */
	uint8_t l4proto;  /* IPPROTO_*; for IPv6 the first non-extension header */
	uint8_t ttl;	  /* IPv4 TTL or IPv6 hop limit */
	uint8_t tos;	  /* IPv4 TOS byte or IPv6 traffic class */
	uint16_t l2proto; /* ethertype after VLAN tags (host order), 0 for raw IP */
	uint16_t vlan;	  /* outermost VLAN id, 0xffff if untagged */
	uint32_t l2off;	  /* start of the Ethernet header (0), or UINT32_MAX for raw IP */
	uint32_t l3off;
	uint32_t l3len; /* IP datagram length per its header (<= bytes present) */
	uint32_t l4off; /* transport header start; valid when has_l4 */
	uint32_t l4len; /* bytes from l4off to the end of the IP datagram */
	uint8_t ihl;	/* IPv4 header length in bytes */
	union pt_addr src, dst;

	/* fragmentation (IPv4 header fields, or the IPv6 fragment header) */
	bool is_fragment;      /* MF set or offset != 0 */
	bool more_frags;       /* MF */
	bool dont_frag;	       /* IPv4 DF */
	uint16_t frag_off;     /* in 8-byte units */
	uint32_t frag_id;      /* IPv4 id or IPv6 fragment identification */
	uint32_t frag_hdr_off; /* IPv6: offset of the fragment header, 0 if none */

	/* IPv6 extension headers seen, in order */
	uint16_t ip6_exthdrs; /* PKT_EH_* bits */
	uint8_t n_exthdr;
	uint8_t exthdr_type[8];
	uint32_t exthdr_off[8];

	/* transport: valid when has_l4 (the first fragment or an unfragmented packet) */
	bool has_l4;
	bool has_ports;		      /* TCP, UDP, UDP-Lite, SCTP, DCCP */
	uint16_t sport, dport;	      /* host order */
	uint8_t tcp_flags;	      /* PKT_TCP_FIN ... PKT_TCP_CWR */
	uint8_t tcp_doff;	      /* TCP header length in bytes */
	uint8_t icmp_type, icmp_code; /* ICMP or ICMPv6 */
	uint16_t icmp_id; /* ICMP/ICMPv6: the identifier field (PKT_ICMP_ID_OFF, host order), which
			   * a query and its answer carry (pkt_icmp_has_id); NAT keeps it current */
	uint32_t payload_off; /* first byte after the transport header */

	enum pkt_bad bad; /* PKT_OK if everything parsed cleanly */
};

/*
 * Metadata: what travels with a packet through the box besides its bytes, set by the box and by
 * targets. Listed once, here; struct pkt holds it both as `meta` (copied whole: pkt_clone,
 * pkt_reframe) and, through an anonymous member of the same layout, as plain fields (p->mark).
 */
#define PKT_META_FIELDS                                                                            \
	uint32_t mark;                                                                             \
	uint32_t priority; /* CLASSIFY */                                                          \
	int iif, oif;	   /* interface indexes in the box, 0 = none */                            \
	uint64_t tstamp_ns;                                                                        \
	uint64_t id; /* number of the packet in its source (pcap packet number, ...) */            \
	bool trace;  /* TRACE target hit: print each rule traversed */                             \
	/* The local socket that sent it, as NFQUEUE reports it (NFQA_UID/NFQA_GID: the            \
	 * fsuid and fsgid of the socket's file); sk false: none known (-m owner, --log-uid). */   \
	bool sk;                                                                                   \
	uint32_t sk_uid, sk_gid;                                                                   \
	void *ct; /* conntrack entry (src/ct), NULL if untracked */                                \
	uint32_t ctinfo;                                                                           \
	/* Made by defragmentation: its largest fragment (IP bytes), the size it leaves cut to     \
	 * and the one the forwarding MTU check uses (the kernel's IPCB frag_max_size); 0 else. */ \
	uint16_t frag_max_size;

struct pkt_meta {
	PKT_META_FIELDS
};

/*
 * A packet. The segments point into memory the packet owns (pkt_alloc, pkt_from_bytes) or that
 * a caller lends (pkt_init_segs); `own` is what pkt_free releases.
 */
struct pkt {
	struct pkt_seg seg[PKT_MAX_SEGS];
	unsigned nsegs;
	uint32_t len;
	void *own[PKT_MAX_SEGS]; /* buffers to free() on pkt_free, may be NULL */

	struct pkt_info info;

	union {
		struct pkt_meta meta;
		struct {
			PKT_META_FIELDS
		};
	};
	/* The transport checksum is known to be right: the kernel or the NIC verified it
	 * (AF_PACKET's TP_STATUS_CSUM_VALID, NFQUEUE without NFQA_SKB_CSUM_NOTVERIFIED) or
	 * pkt_l4_csum_check did. Whoever rewrites the packet keeps the checksum right. Not part of
	 * the metadata a copy takes over: a new packet's bytes are verified on their own. */
	bool l4_csum_verified;
	/* Offload state, as an skb carries it (src/pkt/gso.h; AF_PACKET's virtio_net_hdr):
	 * gso_size != 0: a GSO packet, one packet for rules and conntrack standing for segments of
	 * gso_size payload bytes each, cut by the kernel on output or by pkt_gso_segment;
	 * csum_partial: CHECKSUM_PARTIAL, the TCP/UDP checksum field holds only the pseudo-header
	 * sum (folded, not complemented), the rest is the device's or pkt_l4_csum_update's.
	 * Byte copies of the packet (pkt_clone, pkt_reframe) keep them; fragments never have them.
	 */
	uint16_t gso_size;
	uint8_t gso_type; /* PKT_GSO_TCP or PKT_GSO_UDP_L4, | PKT_GSO_ECN */
	bool csum_partial;
	/* Its bytes may differ from what it was made with: set by pkt_store*, pkt_splice and a
	 * pkt_trim that cuts, and by any code that writes a packet's bytes through a pointer of
	 * its own (NAT's nat_rewrite_fast, the forwarding path's TTL); never cleared. Not set: the
	 * bytes are those it was made with (NFQUEUE sends no payload; test_pkt_written). */
	bool written;
	/* The pool the packet came from (pkt_pool_get): pkt_free gives it back. NULL: malloc. */
	struct pkt_pool *pool;
};

/* ---- buffer ------------------------------------------------------------------------------ */

/*
 * Invariants: nsegs <= PKT_MAX_SEGS, len == sum of seg[i].len, own[i] is NULL or the malloc()ed
 * block holding seg[i].data (never shared between two segments). Zero-length segments are
 * allowed. Packets are at most PKT_MAX_LEN bytes.
 */

/* A packet with one owned, zeroed linear segment of `len` bytes. NULL on ENOMEM or len too big. */
struct pkt *pkt_alloc(uint32_t len);
/* A packet with one linear owned segment holding a copy of `len` bytes. NULL on ENOMEM. */
struct pkt *pkt_from_bytes(const void *data, uint32_t len);
/*
 * A packet whose data is split into segments of at most `chunk` bytes (tests of non-linearity),
 * each in its own malloc() block so that ASan sees any read across a boundary. When more than
 * PKT_MAX_SEGS segments would be needed, the last segment holds all that remains.
 */
struct pkt *pkt_from_bytes_split(const void *data, uint32_t len, uint32_t chunk);
/*
 * A packet cut at the `ncuts` ascending offsets in `cuts` (0 < cut < len; ncuts < PKT_MAX_SEGS),
 * each segment in its own malloc() block. NULL on ENOMEM or bad cuts.
 */
struct pkt *pkt_from_bytes_cuts(const void *data, uint32_t len, const uint32_t *cuts,
				unsigned ncuts);
/*
 * Initialise a caller-provided struct pkt (e.g. on the stack, for a packet in an AF_PACKET ring)
 * over lent segments: nothing is owned. 0, or -EINVAL (too many segments, too long). Such a
 * packet is released with pkt_release(), not pkt_free().
 */
int pkt_init_segs(struct pkt *p, const struct pkt_seg *segs, unsigned nsegs);
/*
 * An exact copy (data, parse result and metadata, including the ct pointer as is), linear.
 * NULL on ENOMEM.
 */
struct pkt *pkt_clone(const struct pkt *p);
/* Free the owned buffers and the struct itself (packets from pkt_alloc/from_bytes/clone/build);
 * a packet of a pool goes back to it. */
void pkt_free(struct pkt *p);

/*
 * A pool of packets with one linear buffer of `bufsize` bytes each, at most `max` kept idle
 * (more are freed as they come back). For one thread. NULL on ENOMEM or a bad size.
 */
struct pkt_pool *pkt_pool_new(unsigned max, uint32_t bufsize);
/* Free the idle packets now and the pool when its last packet out comes back (pkt_free). */
void pkt_pool_free(struct pkt_pool *pp);
/* pkt_from_bytes from the pool: an idle packet, or a new one kept when it comes back. A frame
 * longer than the pool's buffers (or pp NULL) gets a packet of its own. NULL on ENOMEM. */
struct pkt *pkt_pool_get(struct pkt_pool *pp, const void *data, uint32_t len);
/*
 * A packet of the pool over `len` bytes at `data` that the caller lends (a frame in a receive
 * ring): nothing is copied, the block's buffer is unused. The bytes must stay valid (and may be
 * written: NAT, TTL) until the packet is freed, or until pkt_keep made it own them. NULL on
 * ENOMEM or pp NULL.
 */
struct pkt *pkt_pool_lend(struct pkt_pool *pp, uint8_t *data, uint32_t len);
/* What pkt_free does with a pool's packet. */
void pkt_pool_put(struct pkt *p);
/* `data` is the buffer of p's pool block (p->pool set). For pkt_lent. */
bool pkt_pool_buffer(const struct pkt *p, const uint8_t *data);
/* Take p's block out of its pool (pkt_keep): p is a plain malloc'd packet from then on. */
void pkt_pool_detach(struct pkt *p);

struct pkt_pool_stats {
	uint64_t gets;	 /* packets handed out */
	uint64_t reused; /* ... of them idle ones (no allocation) */
	uint64_t made;	 /* blocks allocated */
	uint64_t freed;	 /* blocks freed on return (more than max idle, or the pool closing) */
	uint64_t out;	 /* handed out and not back yet */
	uint64_t lent;	 /* of gets: packets over lent bytes (pkt_pool_lend) */
	uint64_t kept;	 /* blocks taken out by pkt_keep (freed as plain packets) */
	unsigned idle;
};
void pkt_pool_stats(const struct pkt_pool *pp, struct pkt_pool_stats *st);
/* Free only the owned buffers (linearize/splice may have made some) of a pkt_init_segs packet. */
void pkt_release(struct pkt *p);
/*
 * Whether some of p's bytes are lent (pkt_pool_lend, pkt_init_segs): not in a buffer p owns.
 * A lent packet lives only as long as the loan (an AF_PACKET receive burst).
 */
bool pkt_lent(const struct pkt *p);
/*
 * Make p own its bytes, for whoever keeps it past the loan (a neighbour-resolution queue,
 * defragmentation, a record): a lent packet's bytes are copied into one buffer of its own (made
 * linear; offsets stay valid) and a pool's block leaves the pool, so that any thread may free
 * it. A no-op for a packet that owns its bytes. 0, or -ENOMEM (p unchanged).
 */
int pkt_keep(struct pkt *p);

/*
 * Pointer to `len` bytes at `off`. When they lie in one segment, a pointer into it; else they
 * are copied to `buf` (which must hold len bytes) and buf is returned. NULL when off+len is
 * beyond the packet. Like the kernel's skb_header_pointer.
 */
static inline const void *pkt_header(const struct pkt *p, uint32_t off, uint32_t len, void *buf);
/* Copy out `len` bytes at `off` into dst. 0, or -EFAULT if out of range. */
static inline int pkt_copy_out(const struct pkt *p, uint32_t off, void *dst, uint32_t len);
/* Overwrite `len` bytes at `off` (across segments). 0 or -EFAULT. */
static inline int pkt_store(struct pkt *p, uint32_t off, const void *src, uint32_t len);
/* A big-endian 16-bit field at `off` (across segments): 0, or -EFAULT if out of range. */
static inline int pkt_load_be16(const struct pkt *p, uint32_t off, uint16_t *v);
static inline int pkt_store_be16(struct pkt *p, uint32_t off, uint16_t v);

/*
 * The same for ranges that may cross segments (what the inline versions call when the range is
 * not inside the first segment, where headers nearly always are).
 */
const void *pkt_header_across(const struct pkt *p, uint32_t off, uint32_t len, void *buf);
int pkt_copy_out_across(const struct pkt *p, uint32_t off, void *dst, uint32_t len);
int pkt_store_across(struct pkt *p, uint32_t off, const void *src, uint32_t len);

/* [off, off+len) lies in the first segment and is not empty. */
static inline bool pkt_in_seg0(const struct pkt *p, uint32_t off, uint32_t len)
{
	return len && (uint64_t)off + len <= p->seg[0].len;
}

static inline const void *pkt_header(const struct pkt *p, uint32_t off, uint32_t len, void *buf)
{
	if (pkt_in_seg0(p, off, len))
		return p->seg[0].data + off;
	return pkt_header_across(p, off, len, buf);
}

static inline int pkt_copy_out(const struct pkt *p, uint32_t off, void *dst, uint32_t len)
{
	if (pkt_in_seg0(p, off, len)) {
		memcpy(dst, p->seg[0].data + off, len);
		return 0;
	}
	return pkt_copy_out_across(p, off, dst, len);
}

static inline int pkt_store(struct pkt *p, uint32_t off, const void *src, uint32_t len)
{
	if (pkt_in_seg0(p, off, len)) {
		p->written = true;
		memcpy(p->seg[0].data + off, src, len);
		return 0;
	}
	return pkt_store_across(p, off, src, len);
}

static inline int pkt_load_be16(const struct pkt *p, uint32_t off, uint16_t *v)
{
	uint8_t b[2];
	int r = pkt_copy_out(p, off, b, 2);

	if (r)
		return r;
	*v = (uint16_t)(b[0] << 8 | b[1]);
	return 0;
}

static inline int pkt_store_be16(struct pkt *p, uint32_t off, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	return pkt_store(p, off, b, 2);
}
/* Make the packet one segment. 0 or -ENOMEM. Offsets stay valid. */
int pkt_linearize(struct pkt *p);
/* Pointer to byte 0 of a linear (one-segment) packet, NULL if it is not linear. */
uint8_t *pkt_linear_data(struct pkt *p);
/* Cut the packet to `len` bytes (no-op when len >= p->len). p->info is not updated. */
void pkt_trim(struct pkt *p, uint32_t len);
/*
 * Replace `oldlen` bytes at `off` with `newlen` bytes from `src` (the packet grows or shrinks;
 * used by TCPMSS and the NAT helpers). Linearizes. 0, -EFAULT (range outside the packet),
 * -EMSGSIZE (result longer than PKT_MAX_LEN) or -ENOMEM. Does not touch p->info or any length
 * or checksum field: the caller fixes those and parses again.
 */
int pkt_splice(struct pkt *p, uint32_t off, uint32_t oldlen, const void *src, uint32_t newlen);

/* Call fn on each contiguous block of [off, off+len) in order; stops early if fn returns != 0
 * and returns that value. For checksums and textsearch over non-linear packets. */
int pkt_for_each_block(const struct pkt *p, uint32_t off, uint32_t len,
		       int (*fn)(const uint8_t *data, uint32_t len, void *arg), void *arg);

/* ---- parsing ----------------------------------------------------------------------------- */

enum pkt_link {
	PKT_LINK_ETHERNET, /* Ethernet II, 802.1Q/802.1ad tags */
	PKT_LINK_RAW,	   /* starts at the IP header; version nibble tells the family */
};

/*
 * Parse the headers and fill p->info. Returns 0 when the packet is IP and its headers (up to
 * the transport header when present) are intact; a negative code otherwise, with
 * p->info.bad saying why and info filled as far as it got: -EPROTONOSUPPORT for a frame that is
 * not IP (PKT_BAD_L2_PROTO), -EBADMSG for every malformation. Verifies the IPv4 header checksum
 * only when verify_csum is true.
 *
 * Details: l3len/l4len follow the IP length fields, so trailing bytes (Ethernet padding) are
 * ignored; every header must lie inside the datagram. For IPv6 the first 8 extension headers are
 * recorded in exthdr_type/off (ip6_exthdrs has a bit for every one seen); ESP ends the chain
 * with l4proto 50 and an 8-byte "transport header" (SPI, sequence); IPv4 AH (proto 51) is a
 * transport header too. No-next-header (59) gives l4proto 59, has_l4 false. For a non-first
 * fragment, l4proto is the fragment's protocol, l4off the start of its data, has_l4 false.
 */
int pkt_parse(struct pkt *p, enum pkt_link link, bool verify_csum);
/* Short human name of a bad reason: "ip-trunc", "l4-trunc", ... */
const char *pkt_bad_name(enum pkt_bad why);

/*
 * The same IP packet framed for another link: `have` is p's framing, `want` the new one. To
 * raw, the link header goes (up to p->info.l3off when p is parsed, else 14 bytes); to
 * Ethernet, a header with `dst`, `src` (NULL: zeros) and the ethertype of the IP version is put
 * in front. The copy is linear, carries p's metadata whole and is parsed for `want`; p is left
 * as it is. NULL on ENOMEM.
 */
struct pkt *pkt_reframe(const struct pkt *p, enum pkt_link have, enum pkt_link want,
			const uint8_t src[6], const uint8_t dst[6]);

/* ---- checksums --------------------------------------------------------------------------- */

/*
 * Byte order: every 16-bit checksum value here is a host-order number (what ntohs() of the
 * field gives), and sums add the bytes as big-endian 16-bit words. Store with htons().
 */

/*
 * One's complement sum of [off, off+len) (not folded, not inverted), added to `sum`; works
 * across segments, including odd-length ones. The range must lie in the packet (bytes beyond
 * the end count as absent).
 */
uint32_t pkt_csum_partial(const struct pkt *p, uint32_t off, uint32_t len, uint32_t sum);
/* One's complement sum of a flat buffer (same rules; `off` parity is that of byte 0: even). */
uint32_t pkt_csum_bytes(const void *data, size_t len, uint32_t sum);
/* Fold a sum to 16 bits and complement it: the value to store in a checksum field. */
static inline uint16_t pkt_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}
/*
 * The TCP/UDP/... pseudo-header sum (RFC 793, RFC 8200 8.1): addresses, protocol and the
 * transport length, not folded.
 */
uint32_t pkt_csum_pseudo(int family, const union pt_addr *src, const union pt_addr *dst,
			 uint8_t proto, uint32_t len);
/* CRC32c (Castagnoli) of [off, off+len), as SCTP uses it: init ~0, final complement. */
uint32_t pkt_crc32c(const struct pkt *p, uint32_t off, uint32_t len);
/* Recompute the IPv4 header checksum in place (no-op for IPv6). */
void pkt_ip_csum_update(struct pkt *p);
/*
 * Recompute the TCP/UDP/UDP-Lite/ICMP/ICMPv6/SCTP(crc32c)/DCCP/GRE(when C is set) checksum of
 * the transport header in place, from a parsed p->info. No-op for fragments (the checksum covers
 * the whole datagram) and packets without a transport header; a UDP-over-IPv4 zero checksum
 * ("none") stays zero. A partial checksum (csum_partial) is completed and the flag cleared.
 */
void pkt_l4_csum_update(struct pkt *p);
/*
 * True if the transport checksum is correct (UDPv4 zero checksum counts as correct, protocols
 * without a checksum too). False for fragments and packets without a transport header: they
 * cannot be verified.
 */
bool pkt_l4_csum_ok(const struct pkt *p);
/*
 * pkt_l4_csum_ok once per packet: true at once when p->l4_csum_verified, else verified in
 * software and, when right, remembered there (as the kernel's skb->csum_valid). Conntrack's
 * error check (nf_conntrack_checksum) asks this.
 */
bool pkt_l4_csum_check(struct pkt *p);
/*
 * Incremental update (RFC 1624 eqn. 3): the new checksum after a 16- or 32-bit field changed.
 * check, old and new_ in host order (ntohs/ntohl of the fields); replace16 takes the addresses
 * as stored (network order bytes).
 */
static inline uint16_t pkt_csum_replace2(uint16_t check, uint16_t old, uint16_t new_)
{
	uint32_t s = (uint16_t)~check;

	s += (uint16_t)~old;
	s += new_;
	return pkt_csum_fold(s);
}
static inline uint16_t pkt_csum_replace4(uint16_t check, uint32_t old, uint32_t new_)
{
	uint32_t s = (uint16_t)~check;

	s += (uint16_t) ~(old >> 16);
	s += (uint16_t)~old;
	s += new_ >> 16;
	s += new_ & 0xffff;
	return pkt_csum_fold(s);
}
/* replace16 on 16 address bytes as stored, wherever they lie (no alignment needed) */
static inline uint16_t pkt_csum_replace16_bytes(uint16_t check, const uint8_t *old,
						const uint8_t *new_)
{
	uint32_t s = (uint16_t)~check;

	for (unsigned i = 0; i < 16; i += 2) {
		s += (uint16_t) ~((unsigned)old[i] << 8 | old[i + 1]);
		s += (unsigned)new_[i] << 8 | new_[i + 1];
	}
	return pkt_csum_fold(s);
}
static inline uint16_t pkt_csum_replace16(uint16_t check, const union pt_addr *old,
					  const union pt_addr *new_)
{
	return pkt_csum_replace16_bytes(check, old->b, new_->b);
}

/* ---- addresses --------------------------------------------------------------------------- */

/* Parse "192.0.2.1" or "2001:db8::1"; returns the family (AF_INET/AF_INET6) or 0. */
int pt_addr_parse(const char *s, union pt_addr *a);
/* Write the address in the canonical text form (inet_ntop); returns buf. */
const char *pt_addr_str(int family, const union pt_addr *a, char *buf, size_t len);
/* Prefix length to a mask; -1 if len is out of range for the family. */
int pt_mask_from_len(int family, int len, union pt_addr *mask);
/* The prefix length of a contiguous mask, or -1 if the mask has holes. */
int pt_mask_len(int family, const union pt_addr *mask);
bool pt_addr_match(const union pt_addr *a, const union pt_addr *net, const union pt_addr *mask);
bool pt_addr_eq(const union pt_addr *a, const union pt_addr *b);
/* Compare as big-endian numbers: <0, 0, >0 (iprange). */
int pt_addr_cmp(const union pt_addr *a, const union pt_addr *b);

#endif
