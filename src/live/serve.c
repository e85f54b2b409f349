// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every box served for real needs, live or NFQUEUE: its rulesets loaded from files (all
 * or nothing, errors as FILE:LINE) and a control socket.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ctl/client.h"
#include "ctl/server.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "live/live.h"
#include "plugins/load.h"
#include "rules/rules.h"

/* ---- rulesets ---------------------------------------------------------------------------- */

static int read_rules(struct box *b, struct box_load *l, FILE *err, const char *path, int family)
{
	struct box_load_error e;
	char *buf;
	size_t len;
	int rc = box_read_file(path, &buf, &len);

	if (rc < 0) {
		fprintf(err, "%s: %s\n", path, strerror(-rc));
		return rc;
	}
	rc = box_load_parse(b, l, buf, len, path, family, 0, &e);
	if (rc < 0)
		rules_error_print(&e.parse, err);
	free(buf);
	return rc;
}

int live_load_rules(struct box *b, const char *rules, const char *rules6, FILE *err)
{
	bool has4 = rules && rules[0], has6 = rules6 && rules6[0];
	struct box_load l = {0};
	struct box_load_error e;
	int rc = 0;

	/* Every file parses before anything is installed: a reload is all or nothing. `rules`
	 * alone gives IPv6 too, from its -6 rules. */
	if (has4)
		rc = read_rules(b, &l, err, rules, has6 ? AF_INET : 0);
	if (rc == 0 && has6)
		rc = read_rules(b, &l, err, rules6, AF_INET6);
	if (rc == 0 && (rc = box_load_check(b, &l, &e)) < 0) {
		if (e.refused[0])
			fprintf(err, "pkttables: %s: %s\n", e.name, e.refused);
		else
			rules_error_print(&e.parse, err);
	}
	if (rc < 0) {
		box_load_free(&l);
		fprintf(err, "pkttables: ruleset refused, the running one stays\n");
		return -EINVAL;
	}
	/* `rules` alone sets IPv6 too (from its -6 rules, or none): a file that stops being
	 * unified does not leave an old IPv6 ruleset behind. */
	if (has4)
		l.set[1] = true;
	box_load_install(b, &l);
	return 0;
}

/* ---- the control socket ------------------------------------------------------------------ */

struct ctl_server *live_control_open(struct box *b, const char *spec, FILE *err)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct ctl_server *s;
	int r;

	if ((r = ctl_socket_path(spec, path, sizeof(path))) < 0) {
		fprintf(err, "pkttables: control socket '%s': %s\n", spec, strerror(-r));
		return NULL;
	}
	if (!strchr(spec, '/') && (r = ctl_socket_dir(dir, sizeof(dir), 1)) < 0) {
		fprintf(err, "pkttables: control socket directory %s: %s\n", dir, strerror(-r));
		return NULL;
	}
	if (!(s = ctl_server_new(b, path, NULL))) {
		fprintf(err, "pkttables: control socket %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fprintf(err, "pkttables: control socket %s\n", path);
	return s;
}
