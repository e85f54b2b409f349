// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The simulator's `classifier [auto|linear|compiled]` (how rules loaded from now on are
 * compiled, for the current box and the boxes made after it) and `show classifier` (per chain:
 * engine, rules, build time, memory, rules with matches left to the candidates).
 */
#include <string.h>
#include <sys/socket.h>

#include "classify/ruleset.h"
#include "sim/internal.h"

void sim_set_classifier(struct sim *s, int mode)
{
	s->cls_mode = mode;
	for (unsigned i = 0; i < s->nboxes; i++)
		box_set_classifier(s->boxes[i]->box, mode, NULL);
}

int sim_cmd_classifier(struct sim *s, int argc, char **argv)
{
	int mode;

	if (argc == 1) {
		fprintf(s->out, "classifier %s\n", cls_mode_name((enum cls_mode)s->cls_mode));
		return 0;
	}
	mode = argc == 2 ? cls_mode_parse(argv[1]) : -1;
	if (mode < 0)
		return sim_errorf(s, "usage: classifier [auto|linear|compiled]");
	sim_set_classifier(s, mode);
	return 0;
}

void sim_show_classifier(struct sim *s, struct box *b)
{
	fprintf(s->out, "classifier %s\n", cls_mode_name((enum cls_mode)box_classifier(b)));
	cls_ruleset_print(box_ruleset(b, AF_INET), s->out);
	cls_ruleset_print(box_ruleset(b, AF_INET6), s->out);
}
