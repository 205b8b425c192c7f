/* SPDX-License-Identifier: GPL-2.0-only */
/* Syscall names of the architecture tract was built for. */
#ifndef TRACT_SYSCALLS_H
#define TRACT_SYSCALLS_H

/* NULL for numbers without a name. */
const char *syscall_name(int nr);
/* -1 if there is no such syscall. */
int syscall_number(const char *name);
/* One past the highest known number. */
int syscall_count(void);

#endif
