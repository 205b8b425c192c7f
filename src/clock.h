/* SPDX-License-Identifier: GPL-2.0-only */
/* Clocks and the time arithmetic of the pass schedule and hourly files. */
#ifndef TRACT_CLOCK_H
#define TRACT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define NSEC_PER_SEC 1000000000ull
#define USEC_PER_HOUR 3600000000ull

uint64_t mono_ns(void);
uint64_t realtime_us(void);
uint64_t thread_cpu_us(void);

/*
 * The next tick of the schedule start + k * interval that is strictly after
 * now.  Ticks missed by a slow pass are skipped, never bunched up, so the
 * schedule never drifts.
 */
uint64_t next_tick(uint64_t start, uint64_t interval, uint64_t now);

/* "YYYYMMDD-HH" of the UTC hour holding ts_us, for hourly file names. */
void format_hour(uint64_t ts_us, char *buf, size_t len);

#endif
