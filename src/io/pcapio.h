/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcapio: captures in and out, through libpcap.
 *
 * Reading accepts pcap and pcapng (libpcap tells them apart), always at nanosecond precision.
 * Link types and what the reader hands on:
 *
 *   DLT_EN10MB               the frame as is                       PKT_LINK_ETHERNET
 *   DLT_RAW / IPV4 / IPV6    the IP datagram as is                 PKT_LINK_RAW
 *   DLT_LINUX_SLL            16-byte cooked header stripped        PKT_LINK_RAW
 *   DLT_LINUX_SLL2           20-byte cooked header stripped        PKT_LINK_RAW
 *   DLT_NULL / DLT_LOOP      4-byte address family stripped        PKT_LINK_RAW
 *
 *   Linux cooked header (SLL), v1:
 *   +--------+--------+--------+----------------------+--------+
 *   | type 2 | arphrd | addrlen| address (8)          | proto 2|   proto: ethertype
 *   +--------+--------+--------+----------------------+--------+
 *   SLL2: proto(2) reserved(2) ifindex(4) arphrd(2) type(1) addrlen(1) address(8)
 *
 * Writing produces classic pcap with nanosecond timestamps (magic a1b23c4d), one link type per
 * file; or pcapng (one section, one interface with if_tsresol 9, enhanced packet blocks) when
 * the file name ends in ".pcapng". Errors carry a message meant for a person: "FILE: reason".
 */
#ifndef IO_PCAPIO_H
#define IO_PCAPIO_H

#include <stddef.h>
#include <stdint.h>

#include "pkt/pkt.h"

struct pcapio_reader;
struct pcapio_writer;

/*
 * Open a capture for reading. 0, or -ENOENT (missing), -EINVAL (not a capture / corrupt header),
 * -EPROTONOSUPPORT (a link type pkttables does not handle); err says which and why.
 */
int pcapio_open(const char *path, struct pcapio_reader **out, char *err, size_t errlen);
/* How the packets of this capture are framed (after the reader stripped cooked headers). */
enum pkt_link pcapio_link(const struct pcapio_reader *r);
/* The capture's own link type (DLT_*), for messages. */
int pcapio_dlt(const struct pcapio_reader *r);
/*
 * Next packet: 1 with *out a new packet (tstamp_ns and id = 1-based number set; the caller
 * frees it), 0 at the end of the file, -EBADMSG for a truncated or corrupt record (err says
 * which packet). A record too short for its cooked header is returned as an empty packet so
 * that numbering stays in step with the file.
 */
int pcapio_next(struct pcapio_reader *r, struct pkt **out, char *err, size_t errlen);
/*
 * Where pcapio_next's packets come from: get(ctx, data, len) makes a packet holding a copy of
 * the record (e.g. box_pkt_get, a box's pool, so a replay allocates nothing per packet once
 * the pool holds enough). Not set, or get NULL: pkt_from_bytes. An empty record is always an
 * empty packet of its own.
 */
typedef struct pkt *pcapio_get_fn(void *ctx, const void *data, uint32_t len);
void pcapio_set_get(struct pcapio_reader *r, pcapio_get_fn *get, void *ctx);
/* Original (wire) length of the last packet returned, which may exceed its captured length. */
uint32_t pcapio_last_wirelen(const struct pcapio_reader *r);
void pcapio_close(struct pcapio_reader *r);

/*
 * Create a capture for packets framed as `link` (DLT_EN10MB or DLT_RAW): pcapng when path ends
 * in ".pcapng", pcap otherwise. 0 or -errno with err filled.
 */
int pcapio_create(const char *path, enum pkt_link link, struct pcapio_writer **out, char *err,
		  size_t errlen);
/* Append one record; the bytes are the packet's, whatever its segmentation. 0 or -EIO. */
int pcapio_write(struct pcapio_writer *w, const struct pkt *p, uint64_t tstamp_ns);
/* Append raw bytes as one record. 0 or -EIO. */
int pcapio_write_bytes(struct pcapio_writer *w, const void *data, uint32_t len, uint64_t tstamp_ns);
enum pkt_link pcapio_writer_link(const struct pcapio_writer *w);
uint64_t pcapio_writer_count(const struct pcapio_writer *w);
/* Flush and close. 0, or -EIO if anything failed to reach the file. */
int pcapio_finish(struct pcapio_writer *w);

#endif
