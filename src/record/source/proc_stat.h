/* SPDX-License-Identifier: GPL-2.0-only */
/* A thread's /proc stat line, as the /proc source reads it. */
#ifndef TRACT_PROC_STAT_H
#define TRACT_PROC_STAT_H

#include <stdint.h>
#include "sample.h"

/*
 * "tid (comm) S ppid ... flags(9) ... starttime(22) ... processor(39)":
 * s's comm, state and cpu, the flags and the start time.  The comm is the
 * thread's to choose, ')' and spaces included.  0, or -1 when buf is not
 * such a line.
 */
int proc_stat__parse(const char *buf, struct sample *s, uint32_t *flags, uint64_t *start);

#endif
