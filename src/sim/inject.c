// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Packets into the simulation: `inject IFACE PACKET` (text, pcap FILE, or cut into fragments)
 * from the wire of an interface, and `send [BOX:] PACKET` from a box itself (OUTPUT).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pkt/build.h"
#include "sim/internal.h"

/* The packet text as a spec (malloc()ed), framed for ifc; NULL with the error printed. */
static struct pkt_spec *spec_from_text(struct sim *s, const char *text, const struct box_iface *ifc)
{
	struct pkt_spec *spec = malloc(sizeof(*spec));
	char err[256] = "";

	if (!spec) {
		sim_errorf(s, "out of memory");
		return NULL;
	}
	if (pkt_spec_parse(text, spec, err, sizeof(err)) < 0) {
		sim_errorf(s, "bad packet '%s': %s", text, err);
		free(spec);
		return NULL;
	}
	/* On an Ethernet interface the frame comes from the neighbour to this interface, unless
	 * the text gave its own link fields. */
	if (ifc && ifc->link == PKT_LINK_ETHERNET && !spec->eth) {
		spec->eth = true;
		memcpy(spec->eth_src, ifc->peer_mac, 6);
		memcpy(spec->eth_dst, ifc->mac, 6);
	}
	return spec;
}

static struct pkt *build_from_text(struct sim *s, const char *text, const struct box_iface *ifc)
{
	struct pkt_spec *spec = spec_from_text(s, text, ifc);
	struct pkt *p;

	if (!spec)
		return NULL;
	p = pkt_build(spec);
	if (!p)
		sim_errorf(s, "cannot build packet '%s': %s", text, strerror(errno));
	free(spec);
	return p;
}

/* Add i to the last 32 bits of an address (big-endian). */
static void addr_add(union pt_addr *a, uint8_t family, uint32_t i)
{
	uint8_t *b = family == AF_INET ? a->b : a->b + 12;
	uint32_t v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];

	v += i;
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/*
 * inject IFACE repeat N [src|dst|sport|dport] PACKET: N packets, the i-th (from 0) with i
 * added to the source address (the default), the destination address, or a port: N clients,
 * N connections (a large table for a bulk, a full one for a limit).
 */
static int inject_repeat(struct sim *s, struct sim_box *sb, int ifindex, struct words *w)
{
	static const char *const fields[] = {"src", "dst", "sport", "dport"};
	struct pkt_spec *spec, *one;
	char text[2048], *end;
	unsigned long n;
	int field = 0, first = 4;

	n = w->argc > 4 ? strtoul(w->argv[3], &end, 10) : 0;
	if (!n || *end || n > 1000000)
		return sim_errorf(s, "usage: inject IFACE repeat N [src|dst|sport|dport] PACKET "
				     "(N from 1 to 1000000)");
	for (int f = 0; f < 4; f++)
		if (!strcmp(w->argv[4], fields[f]))
			field = f, first = 5;
	if (first >= w->argc)
		return sim_errorf(s, "usage: inject IFACE repeat N [src|dst|sport|dport] PACKET");
	sim_rest_of(w, first, text, sizeof(text));
	spec = spec_from_text(s, text, box_iface(sb->box, ifindex));
	one = spec ? malloc(sizeof(*one)) : NULL;
	if (!one) {
		free(spec);
		return spec ? sim_errorf(s, "out of memory") : -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct pkt *p;

		*one = *spec;
		if (field < 2)
			addr_add(field ? &one->dst : &one->src, one->family, i);
		else if (field == 2)
			one->sport = (uint16_t)(one->sport + i);
		else
			one->dport = (uint16_t)(one->dport + i);
		if (!(p = pkt_build(one))) {
			free(one);
			free(spec);
			return sim_errorf(s, "cannot build packet %u of '%s'", i, text);
		}
		sim_inject(sb, ifindex, p);
		sim_run_wire(s);
	}
	free(one);
	free(spec);
	return 0;
}

/*
 * inject IFACE fragments SIZE [reverse|I,J,...] PACKET: the packet built whole, cut into
 * fragments of SIZE bytes of fragmentable data (the last one the rest), arriving in order,
 * reversed, or in the order of the 0-based indexes given (an index may repeat: a duplicate;
 * one left out never arrives). IPv6 fragments carry the packet's id= as identification.
 */
static int inject_fragments(struct sim *s, struct sim_box *sb, int ifindex, struct words *w)
{
	const struct box_iface *ifc = box_iface(sb->box, ifindex);
	struct pkt *f[SIM_MAX_FRAGS] = {NULL}, *p;
	unsigned order[SIM_MAX_FRAGS], norder = 0;
	struct pkt_spec *spec;
	char text[2048], err[256] = "", *end;
	unsigned long size;
	bool reverse = false;
	int first = 4, n, rc = 0;

	if (w->argc < 5)
		return sim_errorf(s, "usage: inject IFACE fragments SIZE [reverse|I,J,...] PACKET");
	size = strtoul(w->argv[3], &end, 10);
	if (*end || !size || size % 8 || size > 65528)
		return sim_errorf(s, "inject fragments: SIZE '%s' is not a multiple of 8",
				  w->argv[3]);
	if (!strcmp(w->argv[4], "reverse")) {
		reverse = true;
		first = 5;
	} else if (strspn(w->argv[4], "0123456789,") == strlen(w->argv[4])) {
		for (char *t = w->argv[4]; *t && norder < SIM_MAX_FRAGS;) {
			order[norder++] = (unsigned)strtoul(t, &t, 10);
			if (*t == ',')
				t++;
		}
		first = 5;
	}
	sim_rest_of(w, first, text, sizeof(text));
	spec = malloc(sizeof(*spec));
	if (!spec)
		return sim_errorf(s, "out of memory");
	if (pkt_spec_parse(text, spec, err, sizeof(err)) < 0) {
		free(spec);
		return sim_errorf(s, "bad packet '%s': %s", text, err);
	}
	p = pkt_build(spec);
	n = p ? sim_fragment(p, (uint32_t)size, spec->ip_id, f, SIM_MAX_FRAGS) : -ENOMEM;
	free(spec);
	pkt_free(p);
	if (n < 0)
		return sim_errorf(s, "inject fragments: cannot cut '%s': %s", text, strerror(-n));
	if (!norder)
		for (int i = 0; i < n; i++)
			order[norder++] = reverse ? (unsigned)(n - 1 - i) : (unsigned)i;
	for (unsigned i = 0; i < norder; i++)
		if (order[i] >= (unsigned)n)
			rc = sim_errorf(s, "inject fragments: no fragment %u (there are %d)",
					order[i], n);
	for (unsigned i = 0; i < norder && !rc; i++) {
		struct pkt *c = pkt_clone(f[order[i]]);

		c = sim_frame(c, PKT_LINK_RAW, ifc->link, ifc->peer_mac, ifc->mac);
		if (!c) {
			rc = sim_errorf(s, "out of memory");
			break;
		}
		c->tstamp_ns = s->now;
		sim_inject(sb, ifindex, c);
		sim_run_wire(s);
	}
	for (int i = 0; i < n; i++)
		pkt_free(f[i]);
	return rc;
}

int sim_cmd_inject(struct sim *s, struct words *w)
{
	struct sim_box *sb;
	int ifindex;
	char text[2048];
	struct pkt *p;

	if (w->argc < 3)
		return sim_errorf(
		    s, "usage: inject IFACE PACKET | inject IFACE pcap FILE | inject IFACE "
		       "hex [frame] BYTES | inject IFACE fragments SIZE [reverse|I,J,...] PACKET");
	if (sim_resolve_iface(s, w->argv[1], &sb, &ifindex) < 0)
		return -1;
	if (!strcmp(w->argv[2], "pcap")) {
		struct pcapio_reader *r;
		char path[PATH_MAX], err[512];
		uint64_t first = 0, base = s->now;
		int rc;

		if (w->argc != 4)
			return sim_errorf(s, "usage: inject IFACE pcap FILE");
		sim_path(s, w->argv[3], path, sizeof(path));
		if (pcapio_open(path, &r, err, sizeof(err)) < 0)
			return sim_errorf(s, "%s", err);
		box_set_iface_link(sb->box, ifindex, pcapio_link(r));
		/* The capture's time runs from now: its first packet arrives at once, the next
		 * ones as far apart as they were captured. */
		while ((rc = pcapio_next(r, &p, err, sizeof(err))) == 1) {
			uint64_t ts = p->tstamp_ns;

			if (!first)
				first = ts ? ts : 1;
			if (ts > first && base + (ts - first) > s->now)
				sim_set_now(s, base + (ts - first));
			p->tstamp_ns = s->now;
			sim_inject(sb, ifindex, p);
			sim_run_wire(s);
		}
		pcapio_close(r);
		if (rc < 0)
			return sim_errorf(s, "%s", err);
		return 0;
	}
	if (!strcmp(w->argv[2], "fragments"))
		return inject_fragments(s, sb, ifindex, w);
	if (!strcmp(w->argv[2], "repeat"))
		return inject_repeat(s, sb, ifindex, w);
	if (!strcmp(w->argv[2], "hex")) {
		/* Raw bytes (of an IP packet, or a whole frame on an Ethernet interface when
		 * `frame` follows): for packets the builder refuses to make, like truncated ones.
		 */
		uint8_t *bytes;
		size_t n = 0;
		int first = 3;
		bool frame = false;

		if (w->argc > 3 && !strcmp(w->argv[3], "frame")) {
			frame = true;
			first = 4;
		}
		bytes = malloc(PKT_MAX_LEN);
		if (!bytes)
			return sim_errorf(s, "out of memory");
		for (int i = first; i < w->argc; i++)
			for (const char *h = w->argv[i]; *h; h += 2) {
				unsigned v;

				if (!isxdigit((unsigned char)h[0]) ||
				    !isxdigit((unsigned char)h[1]) || n == PKT_MAX_LEN ||
				    sscanf(h, "%2x", &v) != 1) {
					free(bytes);
					return sim_errorf(s, "inject hex: bad byte at '%s'", h);
				}
				bytes[n++] = (uint8_t)v;
			}
		p = pkt_from_bytes(bytes, (uint32_t)n);
		free(bytes);
		if (!p)
			return sim_errorf(s, "out of memory");
		if (!frame) {
			const struct box_iface *ifc = box_iface(sb->box, ifindex);

			p = sim_frame(p, PKT_LINK_RAW, ifc->link, ifc->peer_mac, ifc->mac);
			if (!p)
				return sim_errorf(s, "out of memory");
		}
		sim_inject(sb, ifindex, p);
		sim_run_wire(s);
		return 0;
	}
	sim_rest_of(w, 2, text, sizeof(text));
	p = build_from_text(s, text, box_iface(sb->box, ifindex));
	if (!p)
		return -1;
	sim_inject(sb, ifindex, p);
	sim_run_wire(s);
	return 0;
}

int sim_cmd_send(struct sim *s, struct words *w)
{
	struct sim_box *sb;
	char text[2048];
	struct pkt *p;
	int start = 1;

	if (w->argc < 2)
		return sim_errorf(s, "usage: send [BOX:] PACKET");
	sb = sim_cur_box(s);
	if (!sb)
		return -1;
	/* "send r1: tcp ..." sends from another box. */
	if (w->argv[1][strlen(w->argv[1]) - 1] == ':' && strlen(w->argv[1]) > 1) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strlen(w->argv[1]) - 1, w->argv[1]);
		sb = sim_box_find(s, name);
		if (!sb)
			return sim_errorf(s, "no box '%s'", name);
		start = 2;
		if (w->argc < 3)
			return sim_errorf(s, "usage: send [BOX:] PACKET");
	}
	sim_rest_of(w, start, text, sizeof(text));
	if (sb->dead)
		return sim_errorf(s, "%s is dead (restart it)", box_name(sb->box));
	p = build_from_text(s, text, NULL);
	if (!p)
		return -1;
	sim_send(sb, p);
	sim_run_wire(s);
	return 0;
}
