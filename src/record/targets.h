/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * With -p: whether every process named has exited, asked once a pass.  By
 * pidfd: a poll that costs no more with a process of thousands of threads,
 * where reading /proc opens, formats and closes a file per process each pass.
 */
#ifndef TRACT_TARGETS_H
#define TRACT_TARGETS_H

#include <stddef.h>
#include <stdint.h>

struct targets;

/* The processes of pids (none: the whole host, which never exits). */
struct targets *targets__open(const uint32_t *pids, size_t nr);
void targets__free(struct targets *t);
/* 1 when every process named has exited (a zombie has), 0 otherwise */
int targets__gone(struct targets *t);

#endif
