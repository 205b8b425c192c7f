/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How text shows on a terminal: the cells it takes, wide (CJK, emoji)
 * characters two, combining marks none; and the controls it must not carry.
 */
#ifndef TRACT_WIDTH_H
#define TRACT_WIDTH_H

#include <stddef.h>

/* The cells of the first len bytes of UTF-8 text (invalid bytes take one each). */
size_t text_cells(const char *s, size_t len);
/* The bytes of s (NUL-terminated) that fit in cells cells, not splitting a character. */
size_t text_fit(const char *s, size_t cells);
/*
 * s in at most cells cells, a copy the caller frees: whole when it fits,
 * else cut where the mark (… in UTF-8, else ~) says so.  A stack
 * ("outer;...;inner") keeps its innermost frames, "…;f;g", cut on a frame
 * where one starts within the room; other text keeps its start, "abc…".
 */
char *text_cut(const char *s, size_t cells, int stack, int utf8);
/*
 * The bytes of the character at s (1 for an invalid byte), and in *control
 * whether it is one a terminal obeys rather than shows: C0, DEL, or C1
 * (CSI is 0x9b), bare or as UTF-8.
 */
size_t text_char(const char *s, size_t len, int *control);
/* len bytes of s with each control as '?', into dst (len + 1 bytes, NUL-terminated); the length. */
size_t text_printable(char *dst, const char *s, size_t len);

#endif
