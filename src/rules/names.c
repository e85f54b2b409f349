// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Name tables the rule language needs, built in so that parsing and printing never depend on
 * the host's /etc/protocols or /etc/services (same file, same output, on every machine).
 * The lists are those of Debian's netbase, which is what iptables-save on Debian resolves
 * against; the protocol names are what `-p NUMBER` prints as.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/rules_int.h"

struct proto_name {
	const char *name;
	uint16_t num;
};

/* /etc/protocols order: the first entry for a number is the name iptables-save prints. */
static const struct proto_name protocols[] = {
	{ "ip", 0 },
	{ "hopopt", 0 },
	{ "icmp", 1 },
	{ "igmp", 2 },
	{ "ggp", 3 },
	{ "ipencap", 4 },
	{ "st", 5 },
	{ "tcp", 6 },
	{ "egp", 8 },
	{ "igp", 9 },
	{ "pup", 12 },
	{ "udp", 17 },
	{ "hmp", 20 },
	{ "xns-idp", 22 },
	{ "rdp", 27 },
	{ "iso-tp4", 29 },
	{ "dccp", 33 },
	{ "xtp", 36 },
	{ "ddp", 37 },
	{ "idpr-cmtp", 38 },
	{ "ipv6", 41 },
	{ "ipv6-route", 43 },
	{ "ipv6-frag", 44 },
	{ "idrp", 45 },
	{ "rsvp", 46 },
	{ "gre", 47 },
	{ "esp", 50 },
	{ "ah", 51 },
	{ "skip", 57 },
	{ "ipv6-icmp", 58 },
	{ "ipv6-nonxt", 59 },
	{ "ipv6-opts", 60 },
	{ "rspf", 73 },
	{ "vmtp", 81 },
	{ "eigrp", 88 },
	{ "ospf", 89 },
	{ "ax.25", 93 },
	{ "ipip", 94 },
	{ "etherip", 97 },
	{ "encap", 98 },
	{ "pim", 103 },
	{ "ipcomp", 108 },
	{ "vrrp", 112 },
	{ "l2tp", 115 },
	{ "isis", 124 },
	{ "sctp", 132 },
	{ "fc", 133 },
	{ "mobility-header", 135 },
	{ "udplite", 136 },
	{ "mpls-in-ip", 137 },
	{ "manet", 138 },
	{ "hip", 139 },
	{ "shim6", 140 },
	{ "wesp", 141 },
	{ "rohc", 142 },
	{ "ethernet", 143 },
	{ "mptcp", 262 },
};

/* Names iptables knows itself, whatever /etc/protocols says. */
static const struct proto_name builtin_protos[] = {
	{ "tcp", 6 },  { "sctp", 132 },	     { "udp", 17 },	  { "udplite", 136 },
	{ "icmp", 1 }, { "icmpv6", 58 },     { "ipv6-icmp", 58 }, { "esp", 50 },
	{ "ah", 51 },  { "ipv6-mh", 135 },   { "mh", 135 },	  { "all", 0 },
};

enum { SVC_TCP = 1 << 0, SVC_UDP = 1 << 1, SVC_SCTP = 1 << 2 };

struct service {
	const char *name;
	uint16_t port;
	uint8_t protos; /* SVC_* */
};

/* Service names and aliases, sorted by name (strcmp) for bsearch. */
static const struct service services[] = {
	{ "Clearcase", 371, SVC_UDP },
	{ "acr-nema", 104, SVC_TCP },
	{ "afpovertcp", 548, SVC_TCP },
	{ "afs3-bos", 7007, SVC_UDP },
	{ "afs3-callback", 7001, SVC_UDP },
	{ "afs3-fileserver", 7000, SVC_UDP },
	{ "afs3-kaserver", 7004, SVC_UDP },
	{ "afs3-prserver", 7002, SVC_UDP },
	{ "afs3-rmtsys", 7009, SVC_UDP },
	{ "afs3-update", 7008, SVC_UDP },
	{ "afs3-vlserver", 7003, SVC_UDP },
	{ "afs3-volser", 7005, SVC_UDP },
	{ "amanda", 10080, SVC_TCP },
	{ "amandaidx", 10082, SVC_TCP },
	{ "amidxtape", 10083, SVC_TCP },
	{ "amqp", 5672, SVC_TCP|SVC_SCTP },
	{ "amqps", 5671, SVC_TCP },
	{ "asf-rmcp", 623, SVC_UDP },
	{ "asp", 27374, SVC_TCP|SVC_UDP },
	{ "auth", 113, SVC_TCP },
	{ "authentication", 113, SVC_TCP },
	{ "babel", 6696, SVC_UDP },
	{ "bacula-dir", 9101, SVC_TCP },
	{ "bacula-fd", 9102, SVC_TCP },
	{ "bacula-sd", 9103, SVC_TCP },
	{ "bbs", 7000, SVC_TCP },
	{ "bgp", 179, SVC_TCP },
	{ "bgpd", 2605, SVC_TCP },
	{ "biff", 512, SVC_UDP },
	{ "binkp", 24554, SVC_TCP },
	{ "bootpc", 68, SVC_UDP },
	{ "bootps", 67, SVC_UDP },
	{ "canna", 5680, SVC_TCP },
	{ "cfengine", 5308, SVC_TCP },
	{ "chargen", 19, SVC_TCP|SVC_UDP },
	{ "cisco-sccp", 2000, SVC_TCP },
	{ "clc-build-daemon", 8990, SVC_TCP },
	{ "clearcase", 371, SVC_UDP },
	{ "cmd", 514, SVC_TCP },
	{ "cmip-agent", 164, SVC_TCP|SVC_UDP },
	{ "cmip-man", 163, SVC_TCP|SVC_UDP },
	{ "codaauth2", 370, SVC_TCP|SVC_UDP },
	{ "codasrv", 2432, SVC_TCP|SVC_UDP },
	{ "codasrv-se", 2433, SVC_TCP|SVC_UDP },
	{ "comsat", 512, SVC_UDP },
	{ "csync2", 30865, SVC_TCP },
	{ "cvspserver", 2401, SVC_TCP },
	{ "daap", 3689, SVC_TCP },
	{ "datametrics", 1645, SVC_TCP|SVC_UDP },
	{ "daytime", 13, SVC_TCP|SVC_UDP },
	{ "db-lsp", 17500, SVC_TCP },
	{ "dcap", 22125, SVC_TCP },
	{ "dhcpv6-client", 546, SVC_UDP },
	{ "dhcpv6-server", 547, SVC_UDP },
	{ "dicom", 104, SVC_TCP },
	{ "dict", 2628, SVC_TCP },
	{ "dircproxy", 57000, SVC_TCP },
	{ "discard", 9, SVC_TCP|SVC_UDP },
	{ "distcc", 3632, SVC_TCP },
	{ "domain", 53, SVC_TCP|SVC_UDP },
	{ "domain-s", 853, SVC_TCP|SVC_UDP },
	{ "echo", 7, SVC_TCP|SVC_UDP },
	{ "epmap", 135, SVC_TCP },
	{ "epmd", 4369, SVC_TCP },
	{ "exec", 512, SVC_TCP },
	{ "f5-globalsite", 2792, SVC_TCP },
	{ "f5-iquery", 4353, SVC_TCP },
	{ "fax", 4557, SVC_TCP },
	{ "fido", 60179, SVC_TCP },
	{ "finger", 79, SVC_TCP },
	{ "font-service", 7100, SVC_TCP },
	{ "freeciv", 5556, SVC_TCP },
	{ "fsp", 21, SVC_UDP },
	{ "fspd", 21, SVC_UDP },
	{ "ftp", 21, SVC_TCP },
	{ "ftp-data", 20, SVC_TCP },
	{ "ftps", 990, SVC_TCP },
	{ "ftps-data", 989, SVC_TCP },
	{ "gdomap", 538, SVC_TCP|SVC_UDP },
	{ "gds-db", 3050, SVC_TCP },
	{ "gds_db", 3050, SVC_TCP },
	{ "git", 9418, SVC_TCP },
	{ "gnunet", 2086, SVC_TCP|SVC_UDP },
	{ "gnutella-rtr", 6347, SVC_TCP|SVC_UDP },
	{ "gnutella-svc", 6346, SVC_TCP|SVC_UDP },
	{ "gopher", 70, SVC_TCP },
	{ "gpsd", 2947, SVC_TCP },
	{ "gris", 2135, SVC_TCP },
	{ "groupwise", 1677, SVC_TCP },
	{ "gsidcap", 22128, SVC_TCP },
	{ "gsiftp", 2811, SVC_TCP },
	{ "gsigatekeeper", 2119, SVC_TCP },
	{ "hkp", 11371, SVC_TCP },
	{ "hprop", 754, SVC_TCP },
	{ "http", 80, SVC_TCP },
	{ "http-alt", 8080, SVC_TCP },
	{ "https", 443, SVC_TCP|SVC_UDP },
	{ "hylafax", 4559, SVC_TCP },
	{ "iax", 4569, SVC_UDP },
	{ "icp", 3130, SVC_UDP },
	{ "icpv2", 3130, SVC_UDP },
	{ "ident", 113, SVC_TCP },
	{ "imap", 143, SVC_TCP },
	{ "imap2", 143, SVC_TCP },
	{ "imaps", 993, SVC_TCP },
	{ "ingreslock", 1524, SVC_TCP },
	{ "ipp", 631, SVC_TCP },
	{ "iprop", 2121, SVC_TCP },
	{ "ipsec-nat-t", 4500, SVC_UDP },
	{ "ipx", 213, SVC_UDP },
	{ "ircd", 6667, SVC_TCP },
	{ "ircs-u", 6697, SVC_TCP },
	{ "isakmp", 500, SVC_UDP },
	{ "iscsi-target", 3260, SVC_TCP },
	{ "isisd", 2608, SVC_TCP },
	{ "isns", 3205, SVC_TCP|SVC_UDP },
	{ "iso-tsap", 102, SVC_TCP },
	{ "jabber-client", 5222, SVC_TCP },
	{ "jabber-server", 5269, SVC_TCP },
	{ "kamanda", 10081, SVC_TCP },
	{ "kdc", 750, SVC_UDP|SVC_TCP },
	{ "kerberos", 88, SVC_TCP|SVC_UDP },
	{ "kerberos-adm", 749, SVC_TCP },
	{ "kerberos-iv", 750, SVC_UDP|SVC_TCP },
	{ "kerberos-master", 751, SVC_UDP|SVC_TCP },
	{ "kerberos-sec", 88, SVC_TCP|SVC_UDP },
	{ "kerberos4", 750, SVC_UDP|SVC_TCP },
	{ "kerberos5", 88, SVC_TCP|SVC_UDP },
	{ "kerberos_master", 751, SVC_UDP },
	{ "kermit", 1649, SVC_TCP },
	{ "klogin", 543, SVC_TCP },
	{ "kpasswd", 464, SVC_TCP|SVC_UDP },
	{ "krb-prop", 754, SVC_TCP },
	{ "krb5", 88, SVC_TCP|SVC_UDP },
	{ "krb5_prop", 754, SVC_TCP },
	{ "krb_prop", 754, SVC_TCP },
	{ "krcmd", 544, SVC_TCP },
	{ "kshell", 544, SVC_TCP },
	{ "l2f", 1701, SVC_UDP },
	{ "l2tp", 1701, SVC_UDP },
	{ "ldap", 389, SVC_TCP|SVC_UDP },
	{ "ldaps", 636, SVC_TCP|SVC_UDP },
	{ "ldp", 646, SVC_TCP|SVC_UDP },
	{ "loc-srv", 135, SVC_TCP },
	{ "login", 513, SVC_TCP },
	{ "lotusnote", 1352, SVC_TCP },
	{ "lotusnotes", 1352, SVC_TCP },
	{ "lrrd", 4949, SVC_TCP },
	{ "mail", 25, SVC_TCP },
	{ "mailq", 174, SVC_TCP },
	{ "mdns", 5353, SVC_UDP },
	{ "microsoft-ds", 445, SVC_TCP },
	{ "moira-db", 775, SVC_TCP },
	{ "moira-update", 777, SVC_TCP },
	{ "moira-ureg", 779, SVC_UDP },
	{ "moira_db", 775, SVC_TCP },
	{ "moira_update", 777, SVC_TCP },
	{ "moira_ureg", 779, SVC_UDP },
	{ "mon", 2583, SVC_TCP|SVC_UDP },
	{ "ms-sql-m", 1434, SVC_UDP },
	{ "ms-sql-s", 1433, SVC_TCP },
	{ "ms-wbt-server", 3389, SVC_TCP },
	{ "mtn", 4691, SVC_TCP },
	{ "munin", 4949, SVC_TCP },
	{ "mysql", 3306, SVC_TCP },
	{ "mysql-proxy", 6446, SVC_TCP },
	{ "nbd", 10809, SVC_TCP },
	{ "netbios-dgm", 138, SVC_UDP },
	{ "netbios-ns", 137, SVC_UDP },
	{ "netbios-ssn", 139, SVC_TCP },
	{ "netstat", 15, SVC_TCP },
	{ "nfs", 2049, SVC_TCP|SVC_UDP },
	{ "nicname", 43, SVC_TCP },
	{ "nntp", 119, SVC_TCP },
	{ "nntps", 563, SVC_TCP },
	{ "nqs", 607, SVC_TCP },
	{ "nrpe", 5666, SVC_TCP },
	{ "nsca", 5667, SVC_TCP },
	{ "ntalk", 518, SVC_UDP },
	{ "ntp", 123, SVC_UDP },
	{ "ntske", 4460, SVC_TCP },
	{ "null", 9, SVC_TCP|SVC_UDP },
	{ "nut", 3493, SVC_TCP|SVC_UDP },
	{ "old-radacct", 1646, SVC_TCP|SVC_UDP },
	{ "old-radius", 1645, SVC_TCP|SVC_UDP },
	{ "omniorb", 8088, SVC_TCP },
	{ "openvpn", 1194, SVC_TCP|SVC_UDP },
	{ "ospf6d", 2606, SVC_TCP },
	{ "ospfapi", 2607, SVC_TCP },
	{ "ospfd", 2604, SVC_TCP },
	{ "passwd-server", 752, SVC_UDP },
	{ "passwd_server", 752, SVC_UDP },
	{ "pawserv", 345, SVC_TCP },
	{ "pop-3", 110, SVC_TCP },
	{ "pop3", 110, SVC_TCP },
	{ "pop3s", 995, SVC_TCP },
	{ "poppassd", 106, SVC_TCP },
	{ "portmapper", 111, SVC_TCP|SVC_UDP },
	{ "postgres", 5432, SVC_TCP },
	{ "postgresql", 5432, SVC_TCP },
	{ "predict", 1210, SVC_UDP },
	{ "printer", 515, SVC_TCP },
	{ "proofd", 1093, SVC_TCP },
	{ "ptp-event", 319, SVC_UDP },
	{ "ptp-general", 320, SVC_UDP },
	{ "puppet", 8140, SVC_TCP },
	{ "qmqp", 628, SVC_TCP },
	{ "qmtp", 209, SVC_TCP },
	{ "qotd", 17, SVC_TCP },
	{ "quote", 17, SVC_TCP },
	{ "radacct", 1813, SVC_TCP|SVC_UDP },
	{ "radius", 1812, SVC_TCP|SVC_UDP },
	{ "radius-acct", 1813, SVC_TCP|SVC_UDP },
	{ "radmin-port", 4899, SVC_TCP },
	{ "readnews", 119, SVC_TCP },
	{ "redis", 6379, SVC_TCP },
	{ "remctl", 4373, SVC_TCP },
	{ "ripd", 2602, SVC_TCP },
	{ "ripngd", 2603, SVC_TCP },
	{ "rmiregistry", 1099, SVC_TCP },
	{ "rmtcfg", 1236, SVC_TCP },
	{ "rootd", 1094, SVC_TCP },
	{ "route", 520, SVC_UDP },
	{ "routed", 520, SVC_UDP },
	{ "router", 520, SVC_UDP },
	{ "rpc2portmap", 369, SVC_TCP|SVC_UDP },
	{ "rplay", 5555, SVC_UDP },
	{ "rptp", 5556, SVC_TCP },
	{ "rsync", 873, SVC_TCP },
	{ "rtcm-sc104", 2101, SVC_TCP|SVC_UDP },
	{ "rtsp", 554, SVC_TCP|SVC_UDP },
	{ "sa-msg-port", 1646, SVC_TCP|SVC_UDP },
	{ "saft", 487, SVC_TCP },
	{ "sane", 6566, SVC_TCP },
	{ "sane-port", 6566, SVC_TCP },
	{ "saned", 6566, SVC_TCP },
	{ "sge-execd", 6445, SVC_TCP },
	{ "sge-qmaster", 6444, SVC_TCP },
	{ "sge_execd", 6445, SVC_TCP },
	{ "sge_qmaster", 6444, SVC_TCP },
	{ "sgi-cad", 17004, SVC_TCP },
	{ "sgi-cmsd", 17001, SVC_UDP },
	{ "sgi-crsd", 17002, SVC_UDP },
	{ "sgi-gcd", 17003, SVC_UDP },
	{ "shell", 514, SVC_TCP },
	{ "sieve", 4190, SVC_TCP },
	{ "silc", 706, SVC_TCP },
	{ "sink", 9, SVC_TCP|SVC_UDP },
	{ "sip", 5060, SVC_TCP|SVC_UDP },
	{ "sip-tls", 5061, SVC_TCP|SVC_UDP },
	{ "skkserv", 1178, SVC_TCP },
	{ "smtp", 25, SVC_TCP },
	{ "smtps", 465, SVC_TCP },
	{ "smux", 199, SVC_TCP },
	{ "snmp", 161, SVC_TCP|SVC_UDP },
	{ "snmp-trap", 162, SVC_TCP|SVC_UDP },
	{ "snmptrap", 162, SVC_TCP|SVC_UDP },
	{ "snntp", 563, SVC_TCP },
	{ "snpp", 444, SVC_TCP },
	{ "socks", 1080, SVC_TCP },
	{ "source", 19, SVC_TCP|SVC_UDP },
	{ "spamd", 783, SVC_TCP },
	{ "spooler", 515, SVC_TCP },
	{ "ssh", 22, SVC_TCP },
	{ "ssmtp", 465, SVC_TCP },
	{ "submission", 587, SVC_TCP },
	{ "submissions", 465, SVC_TCP },
	{ "subversion", 3690, SVC_TCP },
	{ "sunrpc", 111, SVC_TCP|SVC_UDP },
	{ "supfiledbg", 1127, SVC_TCP },
	{ "supfilesrv", 871, SVC_TCP },
	{ "suucp", 4031, SVC_TCP },
	{ "svn", 3690, SVC_TCP },
	{ "svrloc", 427, SVC_TCP|SVC_UDP },
	{ "syslog", 514, SVC_TCP|SVC_UDP },
	{ "syslog-tls", 6514, SVC_TCP },
	{ "sysrqd", 4094, SVC_TCP },
	{ "systat", 11, SVC_TCP },
	{ "tacacs", 49, SVC_TCP|SVC_UDP },
	{ "talk", 517, SVC_UDP },
	{ "tap", 113, SVC_TCP },
	{ "tcpmux", 1, SVC_TCP },
	{ "telnet", 23, SVC_TCP },
	{ "telnets", 992, SVC_TCP },
	{ "tfido", 60177, SVC_TCP },
	{ "tftp", 69, SVC_UDP },
	{ "time", 37, SVC_TCP|SVC_UDP },
	{ "timserver", 37, SVC_TCP|SVC_UDP },
	{ "tinc", 655, SVC_TCP|SVC_UDP },
	{ "tproxy", 8081, SVC_TCP },
	{ "tsap", 102, SVC_TCP },
	{ "ttytst", 19, SVC_TCP|SVC_UDP },
	{ "untp", 119, SVC_TCP },
	{ "urd", 465, SVC_TCP },
	{ "users", 11, SVC_TCP },
	{ "uucp", 540, SVC_TCP },
	{ "uucpd", 540, SVC_TCP },
	{ "venus", 2430, SVC_TCP|SVC_UDP },
	{ "venus-se", 2431, SVC_TCP|SVC_UDP },
	{ "wais", 210, SVC_TCP },
	{ "webcache", 8080, SVC_TCP },
	{ "webmin", 10000, SVC_TCP },
	{ "who", 513, SVC_UDP },
	{ "whod", 513, SVC_UDP },
	{ "whois", 43, SVC_TCP },
	{ "wnn6", 22273, SVC_TCP },
	{ "www", 80, SVC_TCP },
	{ "x11", 6000, SVC_TCP },
	{ "x11-0", 6000, SVC_TCP },
	{ "x11-1", 6001, SVC_TCP },
	{ "x11-2", 6002, SVC_TCP },
	{ "x11-3", 6003, SVC_TCP },
	{ "x11-4", 6004, SVC_TCP },
	{ "x11-5", 6005, SVC_TCP },
	{ "x11-6", 6006, SVC_TCP },
	{ "x11-7", 6007, SVC_TCP },
	{ "xdmcp", 177, SVC_UDP },
	{ "xfs", 7100, SVC_TCP },
	{ "xinetd", 9098, SVC_TCP },
	{ "xmms2", 9667, SVC_TCP },
	{ "xmpp-client", 5222, SVC_TCP },
	{ "xmpp-server", 5269, SVC_TCP },
	{ "xtel", 1313, SVC_TCP },
	{ "xtelw", 1314, SVC_TCP },
	{ "z3950", 210, SVC_TCP },
	{ "zabbix-agent", 10050, SVC_TCP },
	{ "zabbix-trapper", 10051, SVC_TCP },
	{ "zebra", 2601, SVC_TCP },
	{ "zebrasrv", 2600, SVC_TCP },
	{ "zephyr-clt", 2103, SVC_UDP },
	{ "zephyr-hm", 2104, SVC_UDP },
	{ "zephyr-srv", 2102, SVC_UDP },
	{ "zope", 9673, SVC_TCP },
	{ "zope-ftp", 8021, SVC_TCP },
	{ "zserv", 346, SVC_TCP },
};

int rules_strtou64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	*out = v;
	return 0;
}

int ext_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int ret = rules_strtou64(s, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int service_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct service *)elem)->name);
}

int rules_service_port(const char *s, const char *proto, uint16_t *out)
{
	const struct service *svc;
	uint8_t want = SVC_TCP | SVC_UDP | SVC_SCTP;

	if (proto && !strcmp(proto, "tcp"))
		want = SVC_TCP;
	else if (proto && (!strcmp(proto, "udp") || !strcmp(proto, "udplite")))
		want = SVC_UDP;
	else if (proto && !strcmp(proto, "sctp"))
		want = SVC_SCTP;
	else if (proto && !strcmp(proto, "dccp"))
		want = 0; /* netbase lists no dccp services */
	svc = bsearch(s, services, sizeof(services) / sizeof(services[0]), sizeof(services[0]),
		      service_cmp);
	if (!svc || !(svc->protos & want))
		return -EINVAL;
	*out = svc->port;
	return 0;
}

int ext_parse_port(const char *s, const char *proto, uint16_t *out)
{
	uint64_t v;

	if (!rules_strtou64(s, &v)) {
		if (v > 65535)
			return -EINVAL;
		*out = (uint16_t)v;
		return 0;
	}
	return rules_service_port(s, proto, out);
}

int rules_proto_parse(const char *s, uint16_t *proto)
{
	char lower[64];
	uint64_t v;
	size_t i;

	if (!rules_strtou64(s, &v)) {
		if (v > 255)
			return -EINVAL;
		*proto = (uint16_t)v;
		return 0;
	}
	for (i = 0; s[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)s[i]);
	if (s[i])
		return -EINVAL;
	lower[i] = '\0';
	for (i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (!strcmp(protocols[i].name, lower) && protocols[i].num <= 255) {
			*proto = protocols[i].num;
			return 0;
		}
	for (i = 0; i < sizeof(builtin_protos) / sizeof(builtin_protos[0]); i++)
		if (!strcmp(builtin_protos[i].name, lower)) {
			*proto = builtin_protos[i].num;
			return 0;
		}
	return -EINVAL;
}

const char *rules_proto_name(uint16_t proto)
{
	for (size_t i = 0; i < sizeof(protocols) / sizeof(protocols[0]); i++)
		if (protocols[i].num == proto)
			return protocols[i].name;
	for (size_t i = 0; i < sizeof(builtin_protos) / sizeof(builtin_protos[0]); i++)
		if (builtin_protos[i].num == proto)
			return builtin_protos[i].name;
	return NULL;
}

static const char *const table_names[TABLE_MAX] = {
	[TABLE_RAW] = "raw",	       [TABLE_MANGLE] = "mangle",     [TABLE_NAT] = "nat",
	[TABLE_FILTER] = "filter",     [TABLE_SECURITY] = "security",
};

static const uint32_t table_hooks[TABLE_MAX] = {
	[TABLE_RAW] = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_OUTPUT),
	[TABLE_MANGLE] = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT) |
			 HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_OUTPUT) |
			 HOOK_BIT(HOOK_POSTROUTING),
	[TABLE_NAT] = HOOK_BIT(HOOK_PREROUTING) | HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_OUTPUT) |
		      HOOK_BIT(HOOK_POSTROUTING),
	[TABLE_FILTER] = HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_OUTPUT),
	[TABLE_SECURITY] = HOOK_BIT(HOOK_INPUT) | HOOK_BIT(HOOK_FORWARD) | HOOK_BIT(HOOK_OUTPUT),
};

static const char *const hook_names[HOOK_MAX] = {
	[HOOK_PREROUTING] = "PREROUTING", [HOOK_INPUT] = "INPUT",
	[HOOK_FORWARD] = "FORWARD",	  [HOOK_OUTPUT] = "OUTPUT",
	[HOOK_POSTROUTING] = "POSTROUTING",
};

const char *rules_table_name(unsigned table)
{
	return table < TABLE_MAX ? table_names[table] : "?";
}

int rules_table_by_name(const char *name)
{
	for (unsigned t = 0; t < TABLE_MAX; t++)
		if (!strcmp(table_names[t], name))
			return (int)t;
	return -1;
}

const char *rules_hook_name(unsigned hook)
{
	return hook < HOOK_MAX ? hook_names[hook] : "?";
}

uint32_t rules_table_hooks(unsigned table)
{
	return table < TABLE_MAX ? table_hooks[table] : 0;
}
