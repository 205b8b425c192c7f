/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Times as users write them for --from and --to: "now", relative ("-15m",
 * "1h" ago, "90s", "2d", "1h30m"), local absolute ("2026-11-30 13:05",
 * "13:05:30" at its latest past occurrence, "2026-11-30"), or "@EPOCH"
 * seconds.
 */
#ifndef TRACT_TIMESPEC_H
#define TRACT_TIMESPEC_H

#include <stddef.h>
#include <stdint.h>

/* UTC microseconds since the epoch; 0, or -EINVAL when s is none of the above. */
int timespec_parse(const char *s, uint64_t now_us, uint64_t *out_us);
/* Local "YYYY-MM-DD HH:MM:SS" of a UTC microsecond time. */
void timespec_format(uint64_t us, char *buf, size_t len);
/* The local time zone's name at that time ("UTC", "CET", "CEST"). */
const char *timespec_zone(uint64_t us);
/* From now on, local time is UTC: what --utc means, for parsing, printing and time buckets. */
void timespec_use_utc(void);

#endif
