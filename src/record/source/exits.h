/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes that ended, as the kernel side tells them (bpf/exits.bpf.h):
 * drained at each take, so that what a process did in its last moments
 * keeps its name, a process that lived less than a take is told apart, and
 * what user space kept for it can go.
 */
#ifndef TRACT_EXITS_H
#define TRACT_EXITS_H

#include <stddef.h>
#include <stdint.h>
#include "tract/abi.h"

struct exits;

/* Over the exits ring buffer's fd; NULL after a message. */
struct exits *exits__open(int ring_fd);
void exits__free(struct exits *ex);
/* Reads what ended since the last drain into the list (the list is not emptied). */
void exits__drain(struct exits *ex);
/* The processes drained since exits__clear(), in the order they ended. */
const struct tract_exit *exits__list(const struct exits *ex, size_t *n);
void exits__clear(struct exits *ex);

#endif
