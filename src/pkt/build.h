/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building packets from a description, and the one-line text form of that description.
 *
 * Used by the simulator's `inject`, by REJECT (through reply.h), by the benchmark and the
 * packet generator. The text form (pkt_spec_parse / pkt_spec_format):
 *
 *   PROTO SRC > DST [WORD...] [KEY=VALUE...]
 *
 *   PROTO  tcp udp udplite icmp icmp6 sctp dccp gre esp ah, or proto=N
 *   SRC    10.0.0.2:1234  [2001:db8::2]:1234  10.0.0.2  2001:db8::2   (ports for tcp, udp,
 *          udplite, sctp, dccp)
 *   WORDS  tcp flags: syn,ack (fin syn rst psh ack urg ece cwr, or none)
 *          icmp/icmp6 type names as iptables knows them: echo-request, port-unreachable, ...
 *          sctp chunk names: init,data,...   dccp packet type: request, response, data, ack, ...
 *          df  sackok  eth  badsum (wrong transport checksum)  badipsum  nocsum (UDP, 0)
 *   KEYS   tcp: flags= seq= ack= win= urg= mss= wscale= ts=VAL:ECR tcpopt=hex:...
 *          icmp: type= code= id= seq= mtu= ptr= rest=     udplite: cov=
 *          sctp: vtag= chunks=   gre: key= greproto=   esp/ah: spi= seq=   dccp: seq= ack=
 *          ip: ttl= (hlim=) tos= (tc=) flow= id= (ipid= for icmp) frag=off:N[,mf]|mf
 *              ipopt=rr,ts,lsrr,ssrr,ra,nop,eol|hex:...  ext=hop,dst,rt,frag,ah (IPv6)
 *          payload: len=N  payload="text with \r\n \x41 escapes"  payload=hex:deadbeef
 *          link: smac= dmac= vlan=ID[,ID]  (any of them, or `eth`, adds an Ethernet header)
 *
 * pkt_spec_format prints the canonical form: the protocol, addresses, flags or type name,
 * transport fields that differ from the defaults, len=, then IP fields that differ from the
 * defaults, then link fields. Text in canonical form round-trips through build and parse.
 */
#ifndef PKT_BUILD_H
#define PKT_BUILD_H

#include "pkt/pkt.h"

#define PKT_SPEC_PAYLOAD_MAX	2048
#define PKT_SPEC_MAX_EXT	8
#define PKT_SPEC_MAX_CHUNKS	8
#define PKT_SPEC_DEFAULT_TTL	64
#define PKT_SPEC_DEFAULT_WINDOW 65535

struct pkt_spec {
	/* layer 3 */
	uint8_t family; /* AF_INET or AF_INET6 */
	union pt_addr src, dst;
	uint8_t proto;	    /* IPPROTO_*: the transport header built (none for unknown numbers) */
	uint8_t ttl;	    /* TTL or hop limit */
	uint8_t tos;	    /* TOS or traffic class */
	uint32_t flowlabel; /* IPv6, 20 bits */
	uint32_t ip_id;	    /* IPv4 identification (16 bits) or IPv6 fragment identification */
	bool df;	    /* IPv4 don't-fragment */
	bool frag;	    /* IPv6: a fragment header even when frag_off == 0 and !mf */
	bool mf;	    /* more fragments */
	uint16_t frag_off;  /* in 8-byte units; != 0: the packet carries no transport header */
	uint8_t ipopt[40];  /* IPv4 options as on the wire; padded with EOL to 4 bytes */
	uint8_t ipopt_len;
	uint8_t ext[PKT_SPEC_MAX_EXT]; /* IPv6 extension headers, in order: IPPROTO_HOPOPTS, ... */
	uint8_t n_ext;

	uint16_t sport, dport; /* tcp, udp, udplite, sctp, dccp */

	/* TCP; options are emitted as MSS, SACK-permitted, timestamps, window scale, raw */
	uint8_t tcp_flags;
	uint32_t seq, ack; /* also DCCP (low 32 bits of 48) and ESP/AH sequence numbers */
	uint16_t window, urg;
	uint16_t mss; /* 0: no MSS option */
	bool has_wscale;
	uint8_t wscale;
	bool sack_perm;
	bool has_ts;
	uint32_t ts_val, ts_ecr;
	uint8_t tcpopt[40]; /* raw options appended after the named ones */
	uint8_t tcpopt_len;

	/* ICMP / ICMPv6: bytes 4..7 of the header are icmp_rest (id << 16 | seq for echo) */
	uint8_t icmp_type, icmp_code;
	uint32_t icmp_rest;

	uint16_t udplite_cov; /* 0: the whole datagram */
	uint8_t dccp_type;    /* DCCP packet type (0 request ... 9 syncack) */
	uint32_t sctp_vtag;
	uint8_t sctp_chunks[PKT_SPEC_MAX_CHUNKS]; /* chunk types, each built at its minimal size */
	uint8_t n_chunks;
	uint16_t gre_proto; /* GRE protocol type, default 0x0800 */
	bool gre_has_key;
	uint32_t gre_key;
	uint32_t spi; /* ESP / AH */

	/*
	 * Payload after the transport header: payload_len bytes from `payload` when it is set,
	 * else from payload_buf (bytes beyond PKT_SPEC_PAYLOAD_MAX are zero).
	 */
	const uint8_t *payload;
	uint32_t payload_len;
	uint8_t payload_buf[PKT_SPEC_PAYLOAD_MAX];

	/* link layer: an Ethernet II header when eth is set, with up to two VLAN tags */
	bool eth;
	uint8_t eth_src[6], eth_dst[6];
	uint8_t n_vlan;
	uint16_t vlan[2]; /* outermost first; two tags: 802.1ad outside, 802.1Q inside */

	/* deliberate damage, for tests of checksum checks */
	bool bad_l4_csum, bad_ip_csum;
	bool udp_no_csum; /* UDP checksum 0 ("none"; valid over IPv4 only) */
};

/* Defaults: ttl 64, window 65535, GRE proto 0x0800, MACs 02:00:00:00:00:01 > ..:02. */
void pkt_spec_init(struct pkt_spec *s);

/*
 * Build the packet, with correct length fields and checksums (unless told otherwise). Raw IP
 * unless s->eth (then parse it with PKT_LINK_ETHERNET). p->info is filled by pkt_parse.
 * NULL with errno EINVAL (inconsistent spec), EMSGSIZE (too long) or ENOMEM.
 */
struct pkt *pkt_build(const struct pkt_spec *s);

/*
 * Parse the text form into *out (initialised first). 0, or -EINVAL with a message naming the
 * offending token in err (which may be NULL).
 */
int pkt_spec_parse(const char *text, struct pkt_spec *out, char *err, size_t errlen);

/*
 * One line describing a parsed packet (p->info) in the text form, e.g.
 * "tcp 10.0.0.2:1234 > 192.0.2.1:80 syn len=0". Returns the length the line has (like
 * snprintf: output is truncated when that is >= len).
 */
int pkt_spec_format(const struct pkt *p, char *buf, size_t len);

/* Name of a TCP flag set in the text form ("syn,ack", "none"), written to buf. */
const char *pkt_tcp_flags_str(uint8_t flags, char *buf, size_t len);

#endif
