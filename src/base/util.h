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
/*
 * The latest message tract_err() printed in the calling thread ("" if none
 * since tract_clear_error()): each thread has its own, so live top's screen
 * shows the errors of what it asked, not the recorder's.
 */
const char *tract_last_error(void);
void tract_clear_error(void);
/* While on, tract_err() in this thread keeps its message for tract_last_error() and prints nothing. */
void tract_hold_errors(int on);
void tract_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int tract_verbose;
void tract_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A bad option of "tract CMD": the message, a hint, and -EINVAL. */
int tract_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/*
 * Room in the array arr of cap elements for element n (n <= cap): twice
 * the elements, first at first, when it is full.  cap is an lvalue.
 */
#define ARRAY_GROW(arr, n, cap, first)                                        \
	do {                                                                  \
		if ((n) >= (cap)) {                                           \
			(cap) = (cap) ? (cap) * 2 : (first);                  \
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));      \
		}                                                             \
	} while (0)
char *xstrdup(const char *s);

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);
/* The same purpose, 8 bytes a step, for keys held in memory only (its values may change between versions). */
uint64_t hash_words(const void *p, size_t n, uint64_t seed);

/* c, or '?' for a control byte (below 0x20, and DEL): names must not move a terminal's cursor. */
static inline char printable_byte(unsigned char c)
{
	return c < 0x20 || c == 0x7f ? '?' : (char)c;
}
/* Up to len bytes of src, to its first NUL, made printable into dst (cap bytes with the NUL); the length. */
size_t printable_copy(char *dst, size_t cap, const char *src, size_t len);

#endif
