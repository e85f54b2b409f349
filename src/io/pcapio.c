// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcap / pcapng in, through libpcap; pcap out through libpcap, pcapng out written here (libpcap
 * writes no pcapng). See pcapio.h for the link types handled and the cooked headers drawn.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/pcapio.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

struct pcapio_reader {
	pcap_t *pc;
	char path[256];
	int dlt;
	enum pkt_link link;
	uint32_t strip;	  /* bytes of cooked header before the IP header */
	uint64_t count;	  /* records read */
	uint32_t wirelen; /* of the last record */
	bool nano;
	pcapio_get_fn *get; /* the packets' source (pcapio_set_get); NULL: pkt_from_bytes */
	void *get_ctx;
};

struct pcapio_writer {
	pcap_t *dead;
	pcap_dumper_t *dump;
	FILE *ng; /* pcapng: the file, written block by block (dead and dump unused) */
	enum pkt_link link;
	uint64_t count;
	bool failed;
	uint8_t *buf; /* linear copy of a segmented packet */
};

int pcapio_open(const char *path, struct pcapio_reader **out, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct pcapio_reader *r;
	struct stat st;

	*out = NULL;
	/* libpcap's message for a missing file is fine, but say it the same way for every case. */
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", path);
		return -EISDIR;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!r->pc) {
		snprintf(err, errlen, "%s: not a readable pcap/pcapng capture (%s)", path, ebuf);
		free(r);
		return -EINVAL;
	}
	r->nano = pcap_get_tstamp_precision(r->pc) == PCAP_TSTAMP_PRECISION_NANO;
	r->dlt = pcap_datalink(r->pc);
	switch (r->dlt) {
	case DLT_EN10MB:
		r->link = PKT_LINK_ETHERNET;
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		r->link = PKT_LINK_RAW;
		break;
	case DLT_LINUX_SLL:
		r->link = PKT_LINK_RAW;
		r->strip = 16;
		break;
	case DLT_LINUX_SLL2:
		r->link = PKT_LINK_RAW;
		r->strip = 20;
		break;
	case DLT_NULL:
	case DLT_LOOP:
		r->link = PKT_LINK_RAW;
		r->strip = 4;
		break;
	default: {
		const char *name = pcap_datalink_val_to_name(r->dlt);

		snprintf(err, errlen,
			 "%s: link type %d (%s) is not supported (Ethernet, raw IP, "
			 "Linux cooked, loopback are)",
			 path, r->dlt, name ? name : "unknown");
		pcap_close(r->pc);
		free(r);
		return -EPROTONOSUPPORT;
	}
	}
	*out = r;
	return 0;
}

enum pkt_link pcapio_link(const struct pcapio_reader *r)
{
	return r->link;
}

int pcapio_dlt(const struct pcapio_reader *r)
{
	return r->dlt;
}

uint32_t pcapio_last_wirelen(const struct pcapio_reader *r)
{
	return r->wirelen;
}

int pcapio_next(struct pcapio_reader *r, struct pkt **out, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	uint32_t len, skip;
	struct pkt *p;
	int rc;

	*out = NULL;
	rc = pcap_next_ex(r->pc, &h, &data);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		snprintf(err, errlen, "%s: packet %llu: %s", r->path,
			 (unsigned long long)r->count + 1, pcap_geterr(r->pc));
		return -EBADMSG;
	}
	r->count++;
	r->wirelen = h->len;
	len = h->caplen;
	skip = r->strip <= len ? r->strip : len;
	if (len - skip > PKT_MAX_LEN)
		len = skip + PKT_MAX_LEN;
	if (len == skip)
		p = pkt_alloc(0);
	else if (r->get)
		p = r->get(r->get_ctx, data + skip, len - skip);
	else
		p = pkt_from_bytes(data + skip, len - skip);
	if (!p) {
		snprintf(err, errlen, "%s: packet %llu: out of memory", r->path,
			 (unsigned long long)r->count);
		return -ENOMEM;
	}
	p->tstamp_ns =
	    (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec * (r->nano ? 1 : 1000);
	p->id = r->count;
	*out = p;
	return 1;
}

void pcapio_set_get(struct pcapio_reader *r, pcapio_get_fn *get, void *ctx)
{
	r->get = get;
	r->get_ctx = ctx;
}

void pcapio_close(struct pcapio_reader *r)
{
	if (!r)
		return;
	pcap_close(r->pc);
	free(r);
}

/*
 * pcapng, in the writer's byte order (the section header's byte-order magic says which):
 *   Section Header Block   0x0A0D0D0A len 0x1A2B3C4D v1.0 section-length -1        len
 *   Interface Description  1 len linktype(2) 0(2) snaplen(4) if_tsresol=9 (ns) end len
 *   Enhanced Packet        6 len if(4) ts_hi(4) ts_lo(4) caplen(4) origlen(4) data+pad len
 */
static bool ng_put(struct pcapio_writer *w, const void *d, size_t n)
{
	if (fwrite(d, 1, n, w->ng) != n)
		w->failed = true;
	return !w->failed;
}

static bool ng_u32(struct pcapio_writer *w, uint32_t v)
{
	return ng_put(w, &v, 4);
}

static bool ng_u16(struct pcapio_writer *w, uint16_t v)
{
	return ng_put(w, &v, 2);
}

static int ng_start(struct pcapio_writer *w, int dlt)
{
	const uint64_t section_len = UINT64_MAX;   /* -1: not given */
	const uint8_t resol_pad[4] = {9, 0, 0, 0}; /* if_tsresol value 9 (10^-9 s), 3 bytes pad */

	ng_u32(w, 0x0A0D0D0A); /* section header */
	ng_u32(w, 28);
	ng_u32(w, 0x1A2B3C4D);
	ng_u16(w, 1); /* major */
	ng_u16(w, 0); /* minor */
	ng_put(w, &section_len, 8);
	ng_u32(w, 28);
	ng_u32(w, 1); /* interface description */
	ng_u32(w, 32);
	ng_u16(w, (uint16_t)dlt);
	ng_u16(w, 0);
	ng_u32(w, PKT_MAX_LEN);
	ng_u16(w, 9); /* option if_tsresol, length 1 */
	ng_u16(w, 1);
	ng_put(w, resol_pad, 4);
	ng_u32(w, 0); /* opt_endofopt */
	ng_u32(w, 32);
	return w->failed ? -EIO : 0;
}

static bool path_is_pcapng(const char *path)
{
	size_t n = strlen(path);

	return n >= 7 && !strcmp(path + n - 7, ".pcapng");
}

int pcapio_create(const char *path, enum pkt_link link, struct pcapio_writer **out, char *err,
		  size_t errlen)
{
	struct pcapio_writer *w;
	int dlt = link == PKT_LINK_ETHERNET ? DLT_EN10MB : DLT_RAW;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	w->link = link;
	if (path_is_pcapng(path)) {
		w->ng = fopen(path, "wb");
		if (!w->ng || ng_start(w, dlt)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
			if (w->ng)
				fclose(w->ng);
			free(w);
			return -EIO;
		}
		*out = w;
		return 0;
	}
	w->dead =
	    pcap_open_dead_with_tstamp_precision(dlt, PKT_MAX_LEN, PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead) {
		snprintf(err, errlen, "%s: cannot set up a pcap writer", path);
		free(w);
		return -ENOMEM;
	}
	w->dump = pcap_dump_open(w->dead, path);
	if (!w->dump) {
		snprintf(err, errlen, "%s: %s", path, pcap_geterr(w->dead));
		pcap_close(w->dead);
		free(w);
		return -EIO;
	}
	*out = w;
	return 0;
}

int pcapio_write_bytes(struct pcapio_writer *w, const void *data, uint32_t len, uint64_t tstamp_ns)
{
	struct pcap_pkthdr h;

	if (w->ng) {
		static const uint8_t pad[4];
		uint32_t padded = (len + 3) & ~3u;

		ng_u32(w, 6);
		ng_u32(w, 32 + padded);
		ng_u32(w, 0); /* interface 0 */
		ng_u32(w, (uint32_t)(tstamp_ns >> 32));
		ng_u32(w, (uint32_t)tstamp_ns);
		ng_u32(w, len);
		ng_u32(w, len);
		ng_put(w, data, len);
		ng_put(w, pad, padded - len);
		ng_u32(w, 32 + padded);
		w->count++;
		return w->failed ? -EIO : 0;
	}
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = (time_t)(tstamp_ns / 1000000000ull);
	/* With a nanosecond dead handle the "usec" field carries nanoseconds. */
	h.ts.tv_usec = (suseconds_t)(tstamp_ns % 1000000000ull);
	h.caplen = len;
	h.len = len;
	pcap_dump((u_char *)w->dump, &h, data);
	w->count++;
	return 0;
}

int pcapio_write(struct pcapio_writer *w, const struct pkt *p, uint64_t tstamp_ns)
{
	const void *d;

	if (!w->buf) {
		w->buf = malloc(PKT_MAX_LEN);
		if (!w->buf) {
			w->failed = true;
			return -ENOMEM;
		}
	}
	d = pkt_header(p, 0, p->len, w->buf);
	if (!d && p->len) {
		w->failed = true;
		return -EIO;
	}
	return pcapio_write_bytes(w, d ? d : w->buf, p->len, tstamp_ns);
}

enum pkt_link pcapio_writer_link(const struct pcapio_writer *w)
{
	return w->link;
}

uint64_t pcapio_writer_count(const struct pcapio_writer *w)
{
	return w->count;
}

int pcapio_finish(struct pcapio_writer *w)
{
	int rc;

	if (!w)
		return 0;
	if (w->ng) {
		rc = fclose(w->ng) != 0 || w->failed ? -EIO : 0;
		free(w->buf);
		free(w);
		return rc;
	}
	rc = pcap_dump_flush(w->dump) < 0 || w->failed ? -EIO : 0;
	pcap_dump_close(w->dump);
	pcap_close(w->dead);
	free(w->buf);
	free(w);
	return rc;
}
