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

#include "ct/ct_plugin.h"
#include "ctl/client.h"
#include "ctl/server.h"
#include "engine/box.h"
#include "engine/setup.h"
#include "ext/ct_timeout.h"
#include "ext/set_bind.h"
#include "set/set_plugin.h"
#include "live/live.h"
#include "rules/rules.h"

/* ---- rulesets ---------------------------------------------------------------------------- */

static int read_rules(FILE *err, const char *path, int family, bool unified,
		      struct rules_ruleset **rs4, struct rules_ruleset **rs6)
{
	const struct ext_registry *reg = ext_registry_default();
	struct rules_error e;
	char *buf;
	size_t len;
	int rc = box_read_file(path, &buf, &len);

	if (rc < 0) {
		fprintf(err, "%s: %s\n", path, strerror(-rc));
		return rc;
	}
	memset(&e, 0, sizeof(e));
	if (family == AF_INET)
		rc = rules_parse_buffer(buf, len, path, AF_INET, reg, NULL, 0, rs4, &e);
	if (rc == 0 &&
	    (family == AF_INET6 || (unified && rules_buffer_has_family_tag(buf, len, 6))))
		rc = rules_parse_buffer(buf, len, path, AF_INET6, reg, NULL, 0, rs6, &e);
	if (rc < 0)
		rules_error_print(&e, err);
	free(buf);
	return rc;
}

int live_load_rules(struct box *b, const char *rules, const char *rules6, FILE *err)
{
	struct rules_ruleset *rs4 = NULL, *rs6 = NULL, *x = NULL;
	bool has4 = rules && rules[0], has6 = rules6 && rules6[0];
	int rc = 0;

	/* Every file parses before anything is installed: a reload is all or nothing. */
	if (has4)
		rc = read_rules(err, rules, AF_INET, !has6, &rs4, &rs6);
	if (rc == 0 && has6)
		rc = read_rules(err, rules6, AF_INET6, false, &x, &rs6);
	if (rc == 0) {
		/* CT --timeout names a policy of the box (ct-timeout lines), checked as the
		 * kernel checks it at load */
		char msg[256];

		if (ext_ct_timeout_check(rs4, ct_box_table(b), msg, sizeof(msg)) < 0) {
			fprintf(err, "pkttables: %s: %s\n", rules, msg);
			rc = -EINVAL;
		} else if (ext_ct_timeout_check(rs6, ct_box_table(b), msg, sizeof(msg)) < 0) {
			fprintf(err, "pkttables: %s: %s\n", has6 ? rules6 : rules, msg);
			rc = -EINVAL;
		}
	}
	if (rc == 0) {
		/* -m set / -j SET name sets of the box (`sets FILE`, pkttables ipset) */
		struct rules_error e;

		memset(&e, 0, sizeof(e));
		if (ext_set_bind(set_box_table(b, false), rs4, &e) < 0) {
			snprintf(e.file, sizeof(e.file), "%s", rules);
			rules_error_print(&e, err);
			rc = -EINVAL;
		} else if (ext_set_bind(set_box_table(b, false), rs6, &e) < 0) {
			snprintf(e.file, sizeof(e.file), "%s", has6 ? rules6 : rules);
			rules_error_print(&e, err);
			rc = -EINVAL;
		}
	}
	if (rc < 0) {
		rules_ruleset_free(rs4);
		rules_ruleset_free(rs6);
		fprintf(err, "pkttables: ruleset refused, the running one stays\n");
		return -EINVAL;
	}
	/* `rules` alone sets IPv6 too (from its -6 rules, or none): a file that stops being
	 * unified does not leave an old IPv6 ruleset behind. */
	if (has4)
		box_set_ruleset(b, rs4, AF_INET);
	if (has4 || has6)
		box_set_ruleset(b, rs6, AF_INET6);
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
