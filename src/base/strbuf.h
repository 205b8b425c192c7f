/* SPDX-License-Identifier: GPL-2.0-only */
/* A string that grows as it is written: SQL and other text is never cut short. */
#ifndef TRACT_STRBUF_H
#define TRACT_STRBUF_H

#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *s;		/* NUL-terminated; NULL until the first write */
	size_t len, cap;
};

/* Room for more bytes and a NUL, so that a writer of many small pieces grows the buffer once. */
void strbuf_reserve(struct strbuf *b, size_t more);
void strbuf_add(struct strbuf *b, const char *s);
/* n bytes of s (which may hold NULs) */
void strbuf_addn(struct strbuf *b, const char *s, size_t n);
/* Decimal, without printf: what writers of many numbers use. */
void strbuf_add_u64(struct strbuf *b, uint64_t v);
void strbuf_add_i64(struct strbuf *b, int64_t v);
/* "0x" and lower-case hex digits */
void strbuf_add_hex(struct strbuf *b, uint64_t v);
void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s written at byte at (at most len), what was there after it */
void strbuf_insert(struct strbuf *b, size_t at, const char *s);
/* s with every from in it written as to */
void strbuf_add_replaced(struct strbuf *b, const char *s, const char *from, const char *to);
/* The text so far ("" when nothing was written); b keeps owning it. */
const char *strbuf_str(const struct strbuf *b);
/* Hands the text over to the caller ("" is allocated too) and empties b. */
char *strbuf_take(struct strbuf *b);
void strbuf_free(struct strbuf *b);

#endif
