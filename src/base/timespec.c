// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "timespec.h"

#define USEC 1000000ull

/* "15m", "-2h", "90s", "1d", "1.5h", "1h30m": a duration before now_us */
static int parse_relative(const char *s, uint64_t now_us, uint64_t *out)
{
	static const struct { char unit; double us; } units[] = {
		{ 's', 1e6 }, { 'm', 60e6 }, { 'h', 3600e6 }, { 'd', 86400e6 }, { 'w', 604800e6 },
	};
	double total = 0;

	if (*s == '-')
		s++;
	if (!*s)
		return -EINVAL;
	while (*s) {
		char *end;
		double v;
		size_t i;

		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		v = strtod(s, &end);
		for (i = 0; i < sizeof(units) / sizeof(units[0]) && units[i].unit != *end; i++)
			;
		if (end == s || i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		total += v * units[i].us;
		s = end + 1;
	}
	if (total < 0 || total > (double)now_us)
		return -EINVAL;
	*out = now_us - (uint64_t)total;
	return 0;
}

/* A local time; fields after the date or before it may be missing. */
static int parse_absolute(const char *s, uint64_t now_us, uint64_t *out)
{
	time_t now = (time_t)(now_us / USEC), t;
	struct tm tm, want;
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0, dated = 0;

	localtime_r(&now, &tm);
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3) {
		s += n;
		if (*s == ' ' || *s == 'T')
			s++;
		else if (*s)
			return -EINVAL;
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		dated = 1;
	}
	if (*s) {
		n = 0;
		if (sscanf(s, "%2d:%2d%n", &h, &mi, &n) != 2)
			return -EINVAL;
		s += n;
		if (*s == ':' && sscanf(s, ":%2d%n", &sec, &n) == 1)
			s += n;
		if (*s)
			return -EINVAL;
	}
	if (h > 23 || mi > 59 || sec > 60 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31)
		return -EINVAL;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	want = tm;
	t = mktime(&tm);
	/* mktime() rolls 2026-02-30 over to March: a day the month lacks is no date */
	if (t < 0 || tm.tm_mday != want.tm_mday || tm.tm_mon != want.tm_mon)
		return -EINVAL;
	/* a time without a date is its latest past occurrence: 23:00 at 07:36 is yesterday's */
	if (!dated && (uint64_t)t * USEC > now_us) {
		want.tm_mday--;
		want.tm_isdst = -1;
		t = mktime(&want);
	}
	*out = (uint64_t)t * USEC;
	return 0;
}

int timespec_parse(const char *s, uint64_t now_us, uint64_t *out_us)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "now")) {
		*out_us = now_us;
		return 0;
	}
	if (*s == '@') {
		double v = strtod(s + 1, &end);

		if (end == s + 1 || *end || v < 0 || v > 1e11)
			return -EINVAL;
		*out_us = (uint64_t)(v * USEC);
		return 0;
	}
	if (!parse_relative(s, now_us, out_us))
		return 0;
	return parse_absolute(s, now_us, out_us);
}

void timespec_format(uint64_t us, char *buf, size_t len)
{
	time_t t = (time_t)(us / USEC);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

const char *timespec_zone(uint64_t us)
{
	static __thread char zone[16];
	time_t t = (time_t)(us / USEC);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(zone, sizeof(zone), "%Z", &tm);
	return zone;
}

void timespec_use_utc(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
}
