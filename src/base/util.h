/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers every part of tract uses: messages and allocation. */
#ifndef TRACT_UTIL_H
#define TRACT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit status for bad input, as documented in tract(8). */
/*
 * Exit statuses: 2 for a usage error (a bad option, column, filter or
 * time), 1 for a runtime error (an unreadable or damaged store, no memory,
 * a refusal).  Functions say which by returning -EINVAL for usage errors
 * and any other -errno for runtime ones, after printing the message.
 */
#define EXIT_USAGE 2
#define EXIT_RUNTIME 1
int exit_status(int err);

/* "tract: <message>" on stderr, git style: lowercase, no full stop. */
void tract_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The latest tract_err() message, for a screen that hides stderr. */
extern char tract_last_error[512];
void tract_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int tract_verbose;
void tract_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A bad option of "tract CMD": the message, a hint, and -EINVAL. */
int tract_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
