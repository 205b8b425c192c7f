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
 * The interval of the schedule start + k * interval after slot's: the next
 * one, or the one holding now if the recorder fell behind by more than an
 * interval.  Missed intervals are skipped, never bunched up, so the
 * schedule never drifts.
 */
uint64_t next_slot(uint64_t start, uint64_t interval, uint64_t slot, uint64_t now);

/*
 * When the pass of the interval starting at slot runs: at a random point of
 * the part of it still ahead of now.  One pass at a random point of each
 * interval (stratified sampling) keeps the schedule, and does not see work
 * that keeps time with the kernel's tick or with any other clock at one
 * phase only: an interval that is a multiple of the tick would see it
 * always at the same one.
 */
uint64_t pass_time(uint64_t slot, uint64_t interval, uint64_t now, uint64_t random);
/* The next number of a small generator (splitmix64); *state is any seed. */
uint64_t random_next(uint64_t *state);

/*
 * The intervals between the one of the previous pass (prev; 0: none) and
 * slot that no pass stands for: a pass stands for its own interval, so when
 * the recorder was stopped or starved, one snapshot does not stand for the
 * seconds nobody looked at.
 */
uint64_t slots_skipped(uint64_t prev, uint64_t slot, uint64_t interval);

/* "YYYYMMDD-HH" of the UTC hour holding ts_us, for hourly file names. */
void format_hour(uint64_t ts_us, char *buf, size_t len);

#endif
