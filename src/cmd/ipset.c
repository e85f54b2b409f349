// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pkttables ipset [--name BOX | --socket PATH] COMMAND ...: ipset(8) against a running box
 * (docs/sets.md). The words after the options go to the box as they are (CTL_SET_CMD,
 * docs/ctl.md); the box runs them with ipset's syntax and answers with what ipset would print
 * and its exit code. Only `-file FILE` is read here: restore reads FILE (else standard input)
 * and sends it along; save and list write their output to FILE.
 *
 * So a wrapper script named `ipset` that runs `pkttables ipset --name BOX "$@"` stands in for
 * ipset in fail2ban's actions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "ctl/client.h"
#include "ctl/msg.h"

#define TEXT_ATTR_MAX 65000u /* payload of one CTL_SA_TEXT (nla_len is 16 bits) */
#define PART_TEXT     (128u << 10)
#define IPSET_PREFIX  "ipset v7.17: "

static void usage(FILE *f)
{
	fputs("usage: pkttables ipset [--socket PATH | --name BOX] [OPTIONS] COMMAND ...\n"
	      "  ipset(8)'s commands on a running box's sets: create add del test destroy list\n"
	      "  save restore flush rename swap version; options -exist -output plain|save\n"
	      "  -quiet -terse -name -file FILE. Output, messages and exit codes are ipset's.\n"
	      "The box is the one serving --socket PATH, or the box named BOX (pkttables run's\n"
	      "`control NAME`, pkttables sim --serve NAME); default: the name \"default\".\n",
	      f);
}

struct answer {
	FILE *out;
	int status;
	char msg[1024];
	bool got_status;
};

static int collect(const struct nlmsghdr *nlh, void *priv)
{
	struct answer *a = priv;
	const struct nlattr *at;

	mnl_attr_for_each(at, nlh, sizeof(struct nfgenmsg))
	{
		switch (mnl_attr_get_type(at)) {
		case CTL_SA_OUTPUT:
			fwrite(mnl_attr_get_payload(at), 1, mnl_attr_get_payload_len(at), a->out);
			break;
		case CTL_SA_STATUS:
			if (mnl_attr_get_payload_len(at) == 4) {
				a->status = (int)ntohl(mnl_attr_get_u32(at));
				a->got_status = true;
			}
			break;
		case CTL_SA_MESSAGE:
			snprintf(a->msg, sizeof(a->msg), "%.*s", (int)mnl_attr_get_payload_len(at),
				 (const char *)mnl_attr_get_payload(at));
			break;
		}
	}
	return 0;
}

static int read_all(FILE *f, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n;

	*len = 0;
	if (!(*buf = malloc(cap)))
		return -ENOMEM;
	while ((n = fread(*buf + *len, 1, cap - *len, f)) > 0) {
		*len += n;
		if (*len == cap) {
			char *nb = realloc(*buf, cap * 2);

			if (!nb)
				return -ENOMEM;
			*buf = nb;
			cap *= 2;
		}
	}
	return ferror(f) ? -EIO : 0;
}

static bool is_restore(const char *w)
{
	return !strcmp(w, "restore") || !strcmp(w, "-R") || !strcmp(w, "r");
}

/* Send one CTL_SET_CMD: the words (none for a part with CTL_RF_MORE) and text[0..len). */
static int send_part(struct ctl_client *c, int argc, char **argv, const char *text, size_t len,
		     bool more, struct answer *a)
{
	size_t room = len + 8192 + (size_t)argc * 300;
	char *buf = malloc(room), err[1024];
	struct nlmsghdr *m;
	int r = -EMSGSIZE;

	if (!buf)
		return -ENOMEM;
	m = ctl_msg_start(buf, room, CTL_TYPE(CTL_SUBSYS_SET, CTL_SET_CMD),
			  NLM_F_REQUEST | NLM_F_ACK, ctl_client_seq(c), AF_UNSPEC, true);
	if (!m)
		goto out;
	for (int i = 0; i < argc; i++)
		if (!mnl_attr_put_strz_check(m, room, CTL_SA_ARG, argv[i]))
			goto out;
	for (size_t off = 0; off < len; off += TEXT_ATTR_MAX)
		if (!mnl_attr_put_check(m, room, CTL_SA_TEXT,
					len - off < TEXT_ATTR_MAX ? len - off : TEXT_ATTR_MAX,
					text + off))
			goto out;
	if (more && !mnl_attr_put_u32_check(m, room, CTL_SA_FLAGS, htonl(CTL_RF_MORE)))
		goto out;
	err[0] = '\0';
	r = ctl_client_request(c, m, collect, a, err, sizeof(err), NULL);
	if (r && err[0])
		fprintf(stderr, "pkttables ipset: %s\n", err);
out:
	free(buf);
	return r;
}

int cmd_ipset(int argc, char **argv)
{
	const char *socket = NULL, *name = NULL, *file = NULL;
	char path[256], *text = NULL, **words;
	struct answer a = {.out = stdout};
	struct ctl_client *c;
	size_t len = 0;
	int n = 0, r, restore = 0, i = 1;
	FILE *outf = NULL;

	if (!(words = calloc((size_t)argc + 1, sizeof(*words))))
		return 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--help") && n == 0) {
			usage(stdout);
			free(words);
			return 0;
		} else if ((!strcmp(argv[i], "--name") || !strcmp(argv[i], "--socket")) &&
			   i + 1 < argc && n == 0) {
			*(argv[i][2] == 'n' ? &name : &socket) = argv[i + 1];
			i++;
		} else if ((!strcmp(argv[i], "-file") || !strcmp(argv[i], "-f")) && i + 1 < argc) {
			file = argv[++i];
		} else {
			words[n++] = argv[i];
			restore |= is_restore(argv[i]);
		}
	}
	if ((r = ctl_socket_path(socket ? socket : name, path, sizeof(path))) < 0) {
		fprintf(stderr, "pkttables ipset: control socket '%s': %s\n",
			socket ? socket
			: name ? name
			       : "default",
			strerror(-r));
		free(words);
		return 1;
	}
	if (restore) {
		FILE *in = file ? fopen(file, "r") : stdin;

		if (!in || read_all(in, &text, &len) < 0) {
			fprintf(stderr, IPSET_PREFIX "Cannot open %s for reading: %s\n",
				file ? file : "stdin", strerror(errno));
			free(words);
			free(text);
			return 1;
		}
		if (file)
			fclose(in);
	} else if (file && !(a.out = outf = fopen(file, "w"))) {
		fprintf(stderr, IPSET_PREFIX "Cannot open %s for writing: %s\n", file,
			strerror(errno));
		free(words);
		return 1;
	}
	if (!(c = ctl_client_open(path))) {
		fprintf(stderr, "pkttables ipset: cannot connect to %s: %s\n", path,
			strerror(errno));
		free(words);
		free(text);
		if (outf)
			fclose(outf);
		return 1;
	}
	/* a big restore goes in parts, CTL_RF_MORE on all but the last (which has the words) */
	r = 0;
	while (len > PART_TEXT && !r) {
		r = send_part(c, 0, NULL, text, PART_TEXT, true, &a);
		memmove(text, text + PART_TEXT, len - PART_TEXT);
		len -= PART_TEXT;
	}
	if (!r)
		r = send_part(c, n, words, text, len, false, &a);
	ctl_client_close(c);
	free(words);
	free(text);
	fflush(a.out);
	if (outf)
		fclose(outf);
	if (r || !a.got_status)
		return 1;
	if (a.msg[0]) {
		/* test's answers stand alone; every other message has ipset's prefix */
		bool bare = !strncmp(a.msg, "Warning:", 8) || strstr(a.msg, " is NOT in set ");

		fprintf(stderr, "%s%s\n", bare ? "" : IPSET_PREFIX, a.msg);
		if (a.status == 2)
			fputs("Try `ipset help' for more information.\n", stderr);
	}
	return a.status;
}
