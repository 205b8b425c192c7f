/* SPDX-License-Identifier: GPL-2.0-only */
/* Syscall names of the architecture tract was built for. */
#ifndef TRACT_SYSCALLS_H
#define TRACT_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>
#include "tract/abi.h"

/* NULL for numbers without a name. */
const char *syscall_name(int nr);
/* -1 if there is no such syscall. */
int syscall_number(const char *name);
/* The number of a name syscall_name_or_number() gives: a syscall's, or N of syscall_N; -1 for others. */
int syscall_number_of(const char *name);
/* One past the highest known number. */
int syscall_count(void);
/*
 * Set the bits of the syscalls whose first argument is a file descriptor
 * (read, write, fsync, recvfrom, ioctl, ...) in a bitmap of nbits.
 */
void fd_syscalls_bitmap(uint64_t *bitmap, int nbits);
/* The syscall's name in buf, or "syscall_N" for a number without one; returns buf. */
const char *syscall_name_or_number(int nr, char *buf, size_t cap);

/* The default idle-wait syscalls (tract(8), ACTIVE THREADS). */
extern const char *const default_idle_syscalls;
/* The default syscalls the latency histograms leave out (tract(8), --untimed-syscalls). */
extern const char *const default_untimed_syscalls;
/*
 * Parse a comma-separated list of syscall names into a bitmap of
 * TRACT_SYSCALLS_MAX bits.  When strict, an unknown name is -EINVAL with *bad
 * naming it (static storage).
 */
int syscall_set__parse(const char *list, uint64_t *bitmap, int strict, const char **bad);
/*
 * Of the untimed syscalls (a bitmap as above), into out those of the
 * default list: they never wait, so no thread can have slept in one, and
 * sys_exit may leave them before anything else.  A syscall a user leaves
 * untimed that may wait is not among them.
 */
void syscall_set__never_waiting(const uint64_t *untimed, uint64_t *out);

#endif
