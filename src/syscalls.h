/* SPDX-License-Identifier: GPL-2.0-only */
/* Syscall names of the architecture tract was built for. */
#ifndef TRACT_SYSCALLS_H
#define TRACT_SYSCALLS_H

#include <stdint.h>

/* NULL for numbers without a name. */
const char *syscall_name(int nr);
/* -1 if there is no such syscall. */
int syscall_number(const char *name);
/* One past the highest known number. */
int syscall_count(void);
/*
 * Set the bits of the syscalls whose first argument is a file descriptor
 * (read, write, fsync, recvfrom, ioctl, ...) in a bitmap of nbits.
 */
void fd_syscalls_bitmap(uint64_t *bitmap, int nbits);

#endif
