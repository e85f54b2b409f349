// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -m time (xt_time): the box clock's date, time of day, weekday and day of the month.
 *
 *   --datestart / --datestop  YYYY[-MM[-DD[Thh[:mm[:ss]]]]]   (1970 .. 2038-01-19T03:14:07)
 *   --timestart / --timestop  hh:mm[:ss]                       (a start after the stop: the
 *                                                               window crosses midnight)
 *   [!] --monthdays 1,15,31   [!] --weekdays Mon,Tue,... or 1..7   ("!": every other day)
 *   --kerneltz (the kernel's time zone; default UTC, --utc)   --contiguous
 *
 * Per packet, with t the box clock in seconds (less the time zone's offset with --kerneltz):
 * datestart <= t <= datestop; the time of day t mod 86400 inside [timestart, timestop], or
 * when the window crosses midnight outside (timestop, timestart); then the weekday and day of
 * the month of t, or with --contiguous and a time after midnight, of the day before (the day
 * the window started). A box has no time zone setting: its kernel zone is UTC, so --kerneltz
 * changes nothing (the kernel's is usually UTC too, hwclock being kept in UTC).
 *
 * Printed as iptables-save prints it: --timestart/--timestop (both, when not the whole day),
 * --monthdays, --weekdays, --datestart (when set), --datestop (always), --kerneltz,
 * --contiguous.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ext/match_util.h"
#include "rules/ext.h"

#define DAY	      86400u
#define ALL_MONTHDAYS 0xfffffffeu
#define ALL_WEEKDAYS  0xfeu

struct time_info {
	uint32_t date_start, date_stop; /* seconds since the epoch */
	uint32_t day_start, day_stop;	/* seconds since midnight */
	uint32_t monthdays;		/* bit d: day d (1..31) */
	uint32_t weekdays;		/* bit d: Mon 1 .. Sun 7 */
};

enum { O_DSTART, O_DSTOP, O_TSTART, O_TSTOP, O_MDAYS, O_WDAYS, O_KTZ, O_UTC, O_CONTIG };

static const struct ext_opt time_opts[] = {
    [O_DSTART] = {.name = "datestart", .type = EXT_T_CUSTOM},
    [O_DSTOP] = {.name = "datestop", .type = EXT_T_CUSTOM},
    [O_TSTART] = {.name = "timestart", .type = EXT_T_CUSTOM},
    [O_TSTOP] = {.name = "timestop", .type = EXT_T_CUSTOM},
    [O_MDAYS] = {.name = "monthdays", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [O_WDAYS] = {.name = "weekdays", .type = EXT_T_CUSTOM, .flags = EXT_OPT_INVERT},
    [O_KTZ] = {.name = "kerneltz", .type = EXT_T_NONE, .excl = 1u << O_UTC},
    [O_UTC] = {.name = "utc", .type = EXT_T_NONE, .excl = 1u << O_KTZ},
    [O_CONTIG] = {.name = "contiguous", .type = EXT_T_NONE},
};

static const char *const weekday_names[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

static void time_init(struct ext_instance *inst)
{
	struct time_info *ti = inst->data;

	ti->date_stop = INT32_MAX;
	ti->day_stop = DAY - 1;
	ti->monthdays = ALL_MONTHDAYS;
	ti->weekdays = ALL_WEEKDAYS;
}

/* Up to `max` digits as a number in lo..hi; *s moves past them. */
static int digits(const char **s, unsigned max, unsigned lo, unsigned hi, unsigned *out)
{
	unsigned v = 0, n = 0;

	while (n < max && **s >= '0' && **s <= '9')
		v = v * 10 + (unsigned)(*(*s)++ - '0'), n++;
	if (!n || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "hh:mm[:ss]" -> seconds since midnight */
static int parse_daytime(const char *s, uint32_t *out)
{
	unsigned h, m, sec = 0;

	if (digits(&s, 2, 0, 23, &h) || *s++ != ':' || digits(&s, 2, 0, 59, &m))
		return -EINVAL;
	if (*s == ':' && (s++, digits(&s, 2, 0, 59, &sec)))
		return -EINVAL;
	if (*s)
		return -EINVAL;
	*out = h * 3600 + m * 60 + sec;
	return 0;
}

/* "YYYY[-MM[-DD[Thh[:mm[:ss]]]]]" (UTC) -> seconds since the epoch, 0..INT32_MAX */
static int parse_date(const char *s, uint32_t *out)
{
	unsigned y, mo = 1, d = 1, h = 0, mi = 0, sec = 0;
	struct tm tm = {0};
	time_t t;

	if (digits(&s, 4, 1970, 2038, &y))
		return -EINVAL;
	if (*s == '-' && (s++, digits(&s, 2, 1, 12, &mo)))
		return -EINVAL;
	if (*s == '-' && (s++, digits(&s, 2, 1, 31, &d)))
		return -EINVAL;
	if (*s == 'T' && (s++, digits(&s, 2, 0, 23, &h)))
		return -EINVAL;
	if (*s == ':' && (s++, digits(&s, 2, 0, 59, &mi)))
		return -EINVAL;
	if (*s == ':' && (s++, digits(&s, 2, 0, 59, &sec)))
		return -EINVAL;
	if (*s)
		return -EINVAL;
	tm.tm_year = (int)y - 1900;
	tm.tm_mon = (int)mo - 1;
	tm.tm_mday = (int)d;
	tm.tm_hour = (int)h;
	tm.tm_min = (int)mi;
	tm.tm_sec = (int)sec;
	t = timegm(&tm);
	if (t < 0 || t > INT32_MAX)
		return -EINVAL;
	*out = (uint32_t)t;
	return 0;
}

/* A comma list of days: 1..31, or weekday names (a day's first three letters start the word,
 * as "Monday") and 1..7. */
static int parse_days(const char *arg, bool week, uint32_t *out)
{
	const char *s = arg;
	uint32_t mask = 0;

	while (*s) {
		unsigned v = 0;
		size_t n = strcspn(s, ",");
		bool found = false;

		if (week)
			for (unsigned i = 0; i < 7 && !found; i++)
				if (n >= 3 && !strncmp(s, weekday_names[i], 3)) {
					v = i + 1;
					found = true;
				}
		if (!found) {
			const char *p = s;

			if (digits(&p, 2, week ? 1 : 0, week ? 7 : 31, &v) || p != s + n)
				return -EINVAL;
		}
		mask |= 1u << v;
		s += n;
		if (*s == ',' && !*++s)
			return -EINVAL;
	}
	*out = mask;
	return 0;
}

static int time_parse(struct ext_parse_ctx *ctx, struct ext_instance *inst, unsigned i,
		      const char *arg)
{
	struct time_info *ti = inst->data;
	int rc = 0;

	switch (i) {
	case O_DSTART:
		rc = parse_date(arg, &ti->date_start);
		break;
	case O_DSTOP:
		rc = parse_date(arg, &ti->date_stop);
		break;
	case O_TSTART:
		rc = parse_daytime(arg, &ti->day_start);
		break;
	case O_TSTOP:
		rc = parse_daytime(arg, &ti->day_stop);
		break;
	case O_MDAYS:
		rc = parse_days(arg, false, &ti->monthdays);
		if (!rc && ctx->invert)
			ti->monthdays ^= ALL_MONTHDAYS;
		break;
	case O_WDAYS:
		rc = parse_days(arg, true, &ti->weekdays);
		if (!rc && ctx->invert)
			ti->weekdays ^= ALL_WEEKDAYS;
		break;
	default:
		return 0;
	}
	if (rc)
		ext_errf(ctx->err, ctx->errlen, "time: bad --%s \"%s\"", time_opts[i].name, arg);
	return rc;
}

static int time_check(const struct ext_check_ctx *ctx, struct ext_instance *inst)
{
	const struct time_info *ti = inst->data;

	if ((inst->seen & 1u << O_CONTIG) && ti->day_start < ti->day_stop) {
		ext_errf(
		    ctx->err, ctx->errlen,
		    "time: --contiguous only makes sense when --timestart is after --timestop");
		return -EINVAL;
	}
	return 0;
}

static void print_date(FILE *f, const char *name, uint32_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(f, " --%s %s", name, buf);
}

static void time_print(struct ext_printer *pr, const struct ext_instance *inst)
{
	const struct time_info *ti = inst->data;
	FILE *f = pr->f;

	if (ti->day_start != 0 || ti->day_stop != DAY - 1)
		fprintf(f, " --timestart %02u:%02u:%02u --timestop %02u:%02u:%02u",
			ti->day_start / 3600, ti->day_start / 60 % 60, ti->day_start % 60,
			ti->day_stop / 3600, ti->day_stop / 60 % 60, ti->day_stop % 60);
	if (ti->monthdays != ALL_MONTHDAYS) {
		const char *sep = "";

		fputs(" --monthdays ", f);
		for (unsigned d = 1; d <= 31; d++)
			if (ti->monthdays & 1u << d) {
				fprintf(f, "%s%u", sep, d);
				sep = ",";
			}
	}
	if (ti->weekdays != ALL_WEEKDAYS) {
		const char *sep = "";

		fputs(" --weekdays ", f);
		for (unsigned d = 1; d <= 7; d++)
			if (ti->weekdays & 1u << d) {
				fprintf(f, "%s%s", sep, weekday_names[d - 1]);
				sep = ",";
			}
	}
	if (ti->date_start)
		print_date(f, "datestart", ti->date_start);
	print_date(f, "datestop", ti->date_stop);
	if (inst->seen & 1u << O_KTZ)
		fputs(" --kerneltz", f);
	if (inst->seen & 1u << O_CONTIG)
		fputs(" --contiguous", f);
}

static bool time_match(struct ext_pkt_ctx *ctx, struct ext_instance *inst)
{
	const struct time_info *ti = inst->data;
	int64_t stamp = (int64_t)(ctx->now_ns / 1000000000u); /* the box's zone is UTC */
	uint32_t daytime;
	time_t tt;
	struct tm tm;
	unsigned wday;

	if (stamp < ti->date_start || stamp > ti->date_stop)
		return false;
	daytime = (uint32_t)(stamp % DAY);
	if (ti->day_start < ti->day_stop) {
		if (daytime < ti->day_start || daytime > ti->day_stop)
			return false;
	} else {
		if (daytime < ti->day_start && daytime > ti->day_stop)
			return false;
		/* the weekday and monthday are those of the day the window began */
		if ((inst->seen & 1u << O_CONTIG) && daytime <= ti->day_stop)
			stamp -= DAY;
	}
	tt = (time_t)stamp;
	gmtime_r(&tt, &tm);
	wday = tm.tm_wday ? (unsigned)tm.tm_wday : 7; /* Mon 1 .. Sun 7 */
	if (!(ti->weekdays & 1u << wday))
		return false;
	return (ti->monthdays & 1u << tm.tm_mday) != 0;
}

const struct ext_match ext_match_time = {
    .name = "time",
    .datasize = sizeof(struct time_info),
    .opts = time_opts,
    .nopts = sizeof(time_opts) / sizeof(time_opts[0]),
    .init = time_init,
    .parse = time_parse,
    .check = time_check,
    .print = time_print,
    .match = time_match,
};
