// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables sync [--socket PATH | --name BOX] COMMAND: a running box's state replication, as
 * conntrackd's client does it (docs/sync.md):
 *
 *   commit              -c   the external cache into the table
 *   flush [internal|external]  -f
 *   resync              -n   ask the peer for its whole table (RESYNC)
 *   bulk                -B   send the whole table to the peer
 *   stats               -s   counters
 *   external / internal -e / -i   what was received / what is sent
 *
 * conntrackd's -R (read the kernel table into the internal cache) has no equivalent: the
 * box's table is the internal cache.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "cmd/cmd.h"
#include "ctl/client.h"
#include "ctl/msg.h"

static void usage(FILE *f)
{
	fputs("usage: pkttables sync [--socket PATH | --name BOX] COMMAND\n"
	      "  commit                      the received state into the table (conntrackd -c)\n"
	      "  flush [internal|external]   forget queued or received state (-f)\n"
	      "  resync                      ask the peer for its whole table (-n)\n"
	      "  bulk                        send the whole table to the peer (-B)\n"
	      "  stats                       counters (-s)\n"
	      "  external | internal         received / sent connections (-e / -i)\n",
	      f);
}

static int print_text(const struct nlmsghdr *nlh, void *priv)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
	{
		if (mnl_attr_get_type(a) == CTL_RA_TEXT)
			fwrite(mnl_attr_get_payload(a), 1, mnl_attr_get_payload_len(a), priv);
	}
	return 0;
}

int cmd_sync(int argc, char **argv)
{
	const char *spec = NULL, *socket = NULL;
	char path[256], cmd[64] = "", msg[1024];
	unsigned char buf[512];
	struct ctl_client *c;
	struct nlmsghdr *nlh;
	int i, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if ((!strcmp(argv[i], "--name") || !strcmp(argv[i], "--socket")) && i + 1 < argc) {
			*(argv[i][2] == 'n' ? &spec : &socket) = argv[i + 1];
			i++;
			continue;
		}
		if (strlen(cmd) + strlen(argv[i]) + 2 > sizeof(cmd)) {
			usage(stderr);
			return 2;
		}
		if (cmd[0])
			strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	if (!cmd[0]) {
		usage(stderr);
		return 2;
	}
	r = ctl_socket_path(socket ? socket : spec, path, sizeof(path));
	if (r < 0) {
		fprintf(stderr, "sync: control socket: %s\n", strerror(-r));
		return 1;
	}
	if (!(c = ctl_client_open(path))) {
		fprintf(stderr, "sync: cannot connect to %s: %s\n", path, strerror(errno));
		return 1;
	}
	nlh = ctl_msg_start(buf, sizeof(buf), CTL_TYPE(CTL_SUBSYS_SYNC, CTL_SYNC_CMD),
			    NLM_F_REQUEST | NLM_F_ACK, ctl_client_seq(c), AF_INET, true);
	mnl_attr_put(nlh, CTL_RA_TEXT, strlen(cmd), cmd);
	r = ctl_client_request(c, nlh, print_text, stdout, msg, sizeof(msg), NULL);
	ctl_client_close(c);
	if (r) {
		fprintf(stderr, "%s\n", msg[0] ? msg : strerror(-r));
		return 1;
	}
	return 0;
}
