// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <time.h>
#include "clock.h"

static uint64_t read_clock(clockid_t id, uint64_t unit_ns)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ((uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec) / unit_ns;
}

uint64_t mono_ns(void)
{
	return read_clock(CLOCK_MONOTONIC, 1);
}

uint64_t realtime_us(void)
{
	return read_clock(CLOCK_REALTIME, 1000);
}

uint64_t thread_cpu_us(void)
{
	return read_clock(CLOCK_THREAD_CPUTIME_ID, 1000);
}

uint64_t next_slot(uint64_t start, uint64_t interval, uint64_t slot, uint64_t now)
{
	uint64_t next = slot + interval;

	if (now < next + interval)
		return next;
	return start + (now - start) / interval * interval;
}

uint64_t pass_time(uint64_t slot, uint64_t interval, uint64_t now, uint64_t random)
{
	uint64_t ahead_from = now > slot ? now - slot : 0;

	if (ahead_from >= interval)
		return now;
	return slot + ahead_from + random % (interval - ahead_from);
}

uint64_t random_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t slots_skipped(uint64_t prev, uint64_t slot, uint64_t interval)
{
	return prev && slot > prev + interval ? (slot - prev) / interval - 1 : 0;
}

void format_hour(uint64_t ts_us, char *buf, size_t len)
{
	time_t secs = ts_us / 1000000;
	struct tm tm;

	gmtime_r(&secs, &tm);
	snprintf(buf, len, "%04d%02d%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour);
}
