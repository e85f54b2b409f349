// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: bytes -> packets received by (or sent from) a box loaded with a ruleset
 * like examples/home-router.rules, grown so that every table, most matches and the REJECT,
 * LOG, TRACE, NFQUEUE, TCPMSS and mangle targets are reached. Both families; the box is the
 * default gateway of `pkttables replay` plus local addresses, so PREROUTING, INPUT, FORWARD,
 * OUTPUT and POSTROUTING all run. Every packet the box emits is parsed and formatted again.
 *
 *   input: { [ctl][time][len][bytes: len] }*      up to MAX_PKTS records; the last one takes
 *                                                what remains when len runs past the end
 *   ctl bits 0-1  0 lan0, 1 wan0, 2 box_output (a local socket), 3 lan0 again
 *       bit  2    the receiving interface carries raw IP instead of Ethernet
 *       bit  3    TRACE every rule (box_set_trace_all)
 *       bits 4-5  NFQUEUE verdict: accept, drop, repeat (once), and accept + mark
 *       bits 6-7  segment size the packet is cut into: whole, 1, 7, 40 bytes
 *   time          seconds the clock moves before the packet (limits refill)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/box.h"
#include "pkt/build.h"
#include "pkt/pkt.h"
#include "rules/ext.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PKTS 8

static const char ruleset[] =
    "*raw\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    "-A PREROUTING -p tcp -m tcp --dport 8080 -j TRACE\n"
    "-A PREROUTING -m statistic --mode nth --every 3 --packet 0 -j TRACE\n"
    "-A PREROUTING -4 -m u32 --u32 \"0>>22&0x3C@0>>16=53\" -j TRACE\n"
    "-A OUTPUT -p udp -j TRACE\n"
    "COMMIT\n"
    "*mangle\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":INPUT ACCEPT [0:0]\n"
    ":FORWARD ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n"
    ":QOS - [0:0]\n"
    ":PROBE - [0:0]\n"
    "-A PREROUTING -j PROBE\n"
    "-A PROBE -6 -m ipv6header --soft --header frag,auth -j MARK --set-mark 0x10\n"
    "-A PROBE -6 -m ipv6header ! --header hop -j MARK --or-mark 0x20\n"
    "-A PROBE -6 -m frag --fragid 1:1000 --fragmore -j MARK --set-xmark 0x30/0xf0\n"
    "-A PROBE -6 -m rt --rt-type 0 --rt-segsleft 1:3 -j RETURN\n"
    "-A PROBE -4 -p ah -m ah --ahspi 1:100 -j RETURN\n"
    "-A PROBE -6 -m ah --ahspi 1:100 -j RETURN\n"
    "-A PROBE -p esp -m esp --espspi 5 -j RETURN\n"
    "-A PROBE -4 -m ipv4options --flags lsrr,ssrr --any -j MARK --set-mark 0x40\n"
    "-A PROBE -4 -m ipv4options --flags !3,7 -j MARK --set-mark 0x41\n"
    "-A PROBE -m length --length 0:60 -j MARK --and-mark 0xff\n"
    "-A PROBE -4 -m ttl --ttl-lt 5 -j MARK --set-mark 0x50\n"
    "-A PROBE -6 -m hl --hl-gt 200 -j MARK --set-mark 0x51\n"
    "-A PROBE -m tos --tos 0x10/0x3f -j MARK --set-mark 0x60\n"
    "-A PROBE -m dscp --dscp 10 -j MARK --set-mark 0x61\n"
    "-A PROBE -m mac --mac-source 02:00:00:00:00:01 -j MARK --set-mark 0x62\n"
    "-A PROBE -4 -m iprange --src-range 10.0.0.1-10.0.0.50 --dst-range 192.168.1.1-192.168.1.20 -j "
    "RETURN\n"
    "-A PROBE -6 -m iprange ! --src-range fd00:1::1-fd00:1::ff -j MARK --or-mark 0x100\n"
    "-A PROBE -m addrtype --dst-type LOCAL -j MARK --or-mark 0x200\n"
    "-A PROBE -4 -m addrtype --src-type BROADCAST,MULTICAST --limit-iface-in -j RETURN\n"
    "-A PROBE -m hashlimit --hashlimit-upto 5/sec --hashlimit-burst 2 --hashlimit-mode "
    "srcip,dstport --hashlimit-name fz -j RETURN\n"
    "-A PROBE -m hashlimit --hashlimit-above 1/min --hashlimit-srcmask 16 --hashlimit-mode srcip "
    "--hashlimit-name fz2 -j RETURN\n"
    "-A PROBE -p tcp -m tcp --tcp-flags SYN,ACK SYN --tcp-option 2 -j RETURN\n"
    "-A PROBE -p udp -m udp --sport 1:1024 ! --dport 53 -j RETURN\n"
    "-A PROBE -4 -p icmp -m icmp --icmp-type echo-request -j RETURN\n"
    "-A PROBE -6 -p ipv6-icmp -m icmp6 --icmpv6-type echo-request -j RETURN\n"
    "-A PROBE -4 -m u32 --u32 \"6&0xFF=6&&0>>22&0x3C@12>>26&0x3C@0>>24=0x47\" -j RETURN\n"
    "-A PROBE -m statistic --mode random --probability 0.25 -j RETURN\n"
    "-A PROBE -m mark --mark 0x1/0x1 -j RETURN\n"
    "-A PROBE -4 -f -j RETURN\n"
    "-A FORWARD -o wan0 -j QOS\n"
    "-A FORWARD -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu\n"
    "-A FORWARD -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 536\n"
    "-A FORWARD -p udp -j DSCP --set-dscp-class EF\n"
    "-A QOS -p udp -m multiport --dports 53,123 -m comment --comment \"dns, ntp\" -j MARK "
    "--set-mark 0x1\n"
    "-A QOS -p tcp -m tcp --dport 22 -j MARK --set-mark 0x1\n"
    "-A QOS -4 -p icmp -j MARK --set-mark 0x1\n"
    "-A QOS -6 -p ipv6-icmp -j MARK --set-mark 0x1\n"
    "-A QOS -p tcp -m multiport --dports 80,443 -j MARK --set-xmark 0x2/0xff\n"
    "-A POSTROUTING -p tcp -j TOS --set-tos 0x10\n"
    "-A POSTROUTING -j CLASSIFY --set-class 1:10\n"
    "-A OUTPUT -p tcp -j TCPMSS --set-mss 1200\n"
    "COMMIT\n"
    "*filter\n"
    ":INPUT DROP [0:0]\n"
    ":FORWARD DROP [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    ":LAN_OUT - [0:0]\n"
    ":WAN_IN - [0:0]\n"
    ":ICMP_IN - [0:0]\n"
    ":SSH_IN - [0:0]\n"
    ":SCAN - [0:0]\n"
    ":LOCAL - [0:0]\n"
    "-A INPUT -i lo -j ACCEPT\n"
    "-A INPUT -4 -i lan0 -p udp -m udp --sport 68 --dport 67 -j ACCEPT\n"
    "-A INPUT -6 -i lan0 -p ipv6-icmp -m icmp6 --icmpv6-type router-solicitation -j ACCEPT\n"
    "-A INPUT -6 -p ipv6-icmp -m icmp6 --icmpv6-type neighbour-solicitation -j ACCEPT\n"
    "-A INPUT -m addrtype --dst-type LOCAL -j LOCAL\n"
    "-A INPUT -m limit --limit 3/min --limit-burst 3 -j LOG --log-prefix \"in-drop: \"\n"
    "-A LOCAL -j LOG --log-prefix \"local: \" --log-level 7 --log-tcp-sequence --log-tcp-options "
    "--log-ip-options --log-uid --log-macdecode\n"
    "-A LOCAL -p tcp -m tcp --dport 9999 -j NFQUEUE --queue-num 3 --queue-bypass\n"
    "-A LOCAL -p udp -m udp --dport 9999 -j NFQUEUE --queue-balance 4:7\n"
    "-A LOCAL -p tcp -m tcp --dport 22 -j ACCEPT\n"
    "-A LOCAL -p tcp -m tcp --dport 23 -j REJECT --reject-with tcp-reset\n"
    "-A LOCAL -4 -p udp -m udp --dport 1:100 -j REJECT --reject-with icmp-host-prohibited\n"
    "-A LOCAL -4 -p udp -j REJECT --reject-with icmp-net-unreachable\n"
    "-A LOCAL -4 -p icmp -j REJECT --reject-with icmp-admin-prohibited\n"
    "-A LOCAL -4 -j REJECT --reject-with icmp-proto-unreachable\n"
    "-A LOCAL -6 -p udp -m udp --dport 1:100 -j REJECT --reject-with icmp6-adm-prohibited\n"
    "-A LOCAL -6 -p udp -j REJECT --reject-with icmp6-addr-unreachable\n"
    "-A LOCAL -6 -p ipv6-icmp -j REJECT --reject-with icmp6-no-route\n"
    "-A LOCAL -6 -j REJECT\n"
    "-A FORWARD -i lan0 -o wan0 -j LAN_OUT\n"
    "-A FORWARD -i wan0 -o lan0 -g WAN_IN\n"
    "-A FORWARD -m limit --limit 3/min --limit-burst 3 -j LOG --log-prefix \"fwd-odd: \"\n"
    "-A LAN_OUT -4 ! -s 192.168.1.0/24 -j DROP\n"
    "-A LAN_OUT -6 ! -s fd00:1::/64 -j DROP\n"
    "-A LAN_OUT -p tcp -m multiport --dports 25,135,137:139,445 -j REJECT --reject-with tcp-reset\n"
    "-A LAN_OUT -4 -p udp -m multiport --dports 137,138 -j REJECT --reject-with "
    "icmp-port-unreachable\n"
    "-A LAN_OUT -6 -p udp -m multiport --dports 137,138 -j REJECT --reject-with "
    "icmp6-port-unreachable\n"
    "-A LAN_OUT -j ACCEPT\n"
    "-A WAN_IN -p tcp -m tcp --tcp-flags FIN,SYN,RST,PSH,ACK,URG NONE -j SCAN\n"
    "-A WAN_IN -p tcp -m tcp --tcp-flags FIN,SYN,RST,PSH,ACK,URG FIN,PSH,URG -j SCAN\n"
    "-A WAN_IN -p tcp -m tcp --tcp-flags SYN,FIN SYN,FIN -j SCAN\n"
    "-A WAN_IN -p tcp -m tcp ! --syn -j ACCEPT\n"
    "-A WAN_IN -p udp -m udp --sport 53 -j ACCEPT\n"
    "-A WAN_IN -p udp -m udp --sport 123 --dport 123 -j ACCEPT\n"
    "-A WAN_IN -4 -p icmp -j ICMP_IN\n"
    "-A WAN_IN -6 -p ipv6-icmp -j ICMP_IN\n"
    "-A WAN_IN -4 -d 192.168.1.10/32 -p tcp -m multiport --dports 80,443 -j ACCEPT\n"
    "-A WAN_IN -6 -d fd00:1::10/128 -p tcp -m multiport --dports 80,443 -j ACCEPT\n"
    "-A WAN_IN -4 -d 192.168.1.10/32 -p tcp -m tcp --dport 22 -j SSH_IN\n"
    "-A WAN_IN -6 -d fd00:1::10/128 -p tcp -m tcp --dport 22 -j SSH_IN\n"
    "-A WAN_IN -p tcp -m multiport --dports 22,23,445,2323,3389,5900 -j SCAN\n"
    "-A WAN_IN -p tcp -j REJECT --reject-with tcp-reset\n"
    "-A WAN_IN -4 -p udp -j REJECT --reject-with icmp-port-unreachable\n"
    "-A WAN_IN -6 -p udp -j REJECT --reject-with icmp6-port-unreachable\n"
    "-A WAN_IN -j RETURN\n"
    "-A ICMP_IN -4 -p icmp -m icmp --icmp-type 0 -j ACCEPT\n"
    "-A ICMP_IN -4 -p icmp -m icmp --icmp-type 3 -j ACCEPT\n"
    "-A ICMP_IN -4 -p icmp -m icmp --icmp-type 8 -m limit --limit 3/min --limit-burst 2 -j ACCEPT\n"
    "-A ICMP_IN -6 -p ipv6-icmp -m icmp6 --icmpv6-type 129 -j ACCEPT\n"
    "-A ICMP_IN -6 -p ipv6-icmp -m icmp6 --icmpv6-type 1 -j ACCEPT\n"
    "-A ICMP_IN -6 -p ipv6-icmp -m icmp6 --icmpv6-type 128 -m limit --limit 3/min --limit-burst 2 "
    "-j ACCEPT\n"
    "-A ICMP_IN -j DROP\n"
    "-A SSH_IN -m limit --limit 3/min --limit-burst 3 -j ACCEPT\n"
    "-A SSH_IN -m limit --limit 1/min --limit-burst 2 -j LOG --log-prefix \"ssh-flood: \"\n"
    "-A SSH_IN -j DROP\n"
    "-A SCAN -m limit --limit 3/min --limit-burst 5 -j LOG --log-prefix \"scan: \"\n"
    "-A SCAN -j DROP\n"
    "-A OUTPUT -p tcp -m tcp --dport 25 -j REJECT --reject-with tcp-reset\n"
    "-A OUTPUT -4 -p udp -m udp --dport 7 -j REJECT\n"
    "-A OUTPUT -6 -p udp -m udp --dport 7 -j REJECT\n"
    "-A OUTPUT -p udp -m udp --dport 9 -j NFQUEUE --queue-num 1\n"
    "-A OUTPUT -m limit --limit 10/sec -j LOG --log-prefix \"out: \" --log-tcp-options\n"
    "COMMIT\n";

struct fuzz_run {
	unsigned qverdict;
	unsigned repeats;
};

/* Whatever leaves the box is a packet we made or changed: it must parse and format in bounds. */
static void check_out(struct pkt *p, enum pkt_link link)
{
	char line[512];

	pkt_parse(p, link, true);
	pkt_spec_format(p, line, sizeof(line));
	(void)pkt_l4_csum_ok(p);
	pkt_free(p);
}

static void fz_xmit(void *user, struct box *b, int oif, struct pkt *p)
{
	const struct box_iface *ifc = box_iface(b, oif);

	check_out(p, ifc ? ifc->link : PKT_LINK_ETHERNET);
}

static void fz_deliver(void *user, struct box *b, struct pkt *p)
{
	check_out(p, PKT_LINK_RAW);
}

static void fz_dropped(void *user, struct box *b, const struct pkt *p, const struct box_drop *why)
{
	(void)box_drop_kind_name(why->kind);
	if (why->chain && strlen(why->chain) > RULES_CHAIN_NAME_MAX)
		abort();
}

static void fz_text(const char *line)
{
	if (strlen(line) > 4096)
		abort();
}

static void fz_log(void *user, struct box *b, int level, const char *line)
{
	fz_text(line);
}

static void fz_trace(void *user, struct box *b, const struct pkt *p, const char *line)
{
	fz_text(line);
}

static int fz_queue(void *user, struct box *b, unsigned qnum, struct pkt *p, uint32_t *mark)
{
	struct fuzz_run *r = user;

	switch (r->qverdict) {
	case 0:
		return EXT_ACCEPT;
	case 1:
		return EXT_DROP;
	case 2:
		if (r->repeats++ < 1)
			return EXT_REPEAT;
		return EXT_ACCEPT;
	default:
		*mark = 0x1234;
		return EXT_ACCEPT;
	}
}

static const struct box_ops fz_ops = {
    .xmit = fz_xmit,
    .deliver = fz_deliver,
    .dropped = fz_dropped,
    .log = fz_log,
    .trace = fz_trace,
    .queue = fz_queue,
};

static struct rules_ruleset *load(int family)
{
	struct rules_ruleset *rs = NULL;
	struct rules_error e;

	memset(&e, 0, sizeof(e));
	if (rules_parse_buffer(ruleset, sizeof(ruleset) - 1, "fuzz_box", family,
			       ext_registry_default(), NULL, 0, &rs, &e)) {
		rules_error_print(&e, stderr);
		abort();
	}
	return rs;
}

static void add_addr(struct box *b, int ifindex, const char *text, int plen)
{
	union pt_addr a;
	int fam = pt_addr_parse(text, &a);

	if (!fam || box_add_addr(b, ifindex, fam, &a, plen) < 0)
		abort();
}

static struct box *make_box(struct fuzz_run *run)
{
	struct box *b = box_new("fz", &fz_ops, run);

	if (!b || box_setup_default_gateway(b) < 0)
		abort();
	add_addr(b, 1, "192.168.1.1", 24);
	add_addr(b, 1, "fd00:1::1", 64);
	add_addr(b, 2, "203.0.113.1", 24);
	add_addr(b, 2, "2001:db8::1", 64);
	box_set_iface_mtu(b, 2, 1280);
	box_set_ruleset(b, load(AF_INET), AF_INET);
	box_set_ruleset(b, load(AF_INET6), AF_INET6);
	box_set_time(b, 1000000000ull);
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t chunks[] = {PKT_MAX_LEN, 1, 7, 40};
	/*
	 * One box for the whole run: loading the ruleset costs ten times a packet. Between
	 * inputs a day passes (limits refill, hashlimit entries expire) and the PRNG is seeded
	 * again, so an input behaves the same alone; only statistic's nth counter carries over.
	 */
	static struct fuzz_run run;
	static struct box *b;
	unsigned n;

	if (size > 8 * 2048)
		return 0;
	if (!b)
		b = make_box(&run);
	box_advance(b, 86400ull * 1000000000ull);
	box_seed(b, 1);
	for (n = 0; n < MAX_PKTS && size >= 3; n++) {
		uint8_t ctl = data[0];
		size_t len = data[2] * 8u;
		struct pkt *p;
		int ifindex;

		box_advance(b, data[1] * 1000000000ull);
		data += 3;
		size -= 3;
		if (len == 0 || len > size)
			len = size;
		p = pkt_from_bytes_split(data, (uint32_t)len, chunks[ctl >> 6]);
		data += len;
		size -= len;
		if (!p)
			continue;
		run.qverdict = (ctl >> 4) & 3;
		run.repeats = 0;
		box_set_trace_all(b, ctl & 8);
		ifindex = (ctl & 3) == 1 ? 2 : 1;
		box_set_iface_link(b, ifindex, (ctl & 4) ? PKT_LINK_RAW : PKT_LINK_ETHERNET);
		if ((ctl & 3) == 2)
			box_output(b, p);
		else
			box_receive(b, ifindex, p);
	}
	return 0;
}
