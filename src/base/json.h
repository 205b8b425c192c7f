/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON strings from bytes that need not be UTF-8 (thread names, paths). */
#ifndef TRACT_JSON_H
#define TRACT_JSON_H

#include <stddef.h>
#include <stdio.h>

/*
 * A quoted JSON string.  Invalid UTF-8 bytes become U+FFFD, so the output is
 * always valid JSON; control characters are escaped.
 */
void json_string(FILE *f, const char *s, size_t len);

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
size_t utf8_len(const unsigned char *s, size_t n);

#endif
