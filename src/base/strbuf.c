// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strbuf.h"
#include "util.h"

void strbuf_reserve(struct strbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 256;
	while (b->len + more + 1 > b->cap)
		b->cap *= 2;
	b->s = xrealloc(b->s, b->cap);
	b->s[b->len] = '\0';	/* text from the first allocation on */
}

void strbuf_add(struct strbuf *b, const char *s)
{
	size_t n = strlen(s);

	strbuf_reserve(b, n);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void strbuf_addn(struct strbuf *b, const char *s, size_t n)
{
	strbuf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_insert(struct strbuf *b, size_t at, const char *s)
{
	size_t n = strlen(s);

	strbuf_reserve(b, n);
	memmove(b->s + at + n, b->s + at, b->len - at + 1);
	memcpy(b->s + at, s, n);
	b->len += n;
}

void strbuf_add_replaced(struct strbuf *b, const char *s, const char *from, const char *to)
{
	size_t n = strlen(from);

	for (const char *hit; (hit = strstr(s, from)); s = hit + n) {
		strbuf_addn(b, s, (size_t)(hit - s));
		strbuf_add(b, to);
	}
	strbuf_add(b, s);
}

/* "0x1f": printf's machinery was a third of the cost of a cached frame */
void strbuf_add_hex(struct strbuf *b, uint64_t v)
{
	char digits[16];
	size_t n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	strbuf_reserve(b, n + 2);
	b->s[b->len++] = '0';
	b->s[b->len++] = 'x';
	while (n)
		b->s[b->len++] = digits[--n];
	b->s[b->len] = '\0';
}

void strbuf_add_u64(struct strbuf *b, uint64_t v)
{
	char digits[20];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while (v /= 10);
	strbuf_reserve(b, n);
	while (n)
		b->s[b->len++] = digits[--n];
	b->s[b->len] = '\0';
}

void strbuf_add_i64(struct strbuf *b, int64_t v)
{
	if (v < 0) {
		strbuf_addn(b, "-", 1);
		strbuf_add_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		strbuf_add_u64(b, (uint64_t)v);
	}
}

void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	strbuf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

char *strbuf_take(struct strbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	*b = (struct strbuf){ 0 };
	return s;
}

void strbuf_free(struct strbuf *b)
{
	free(b->s);
	*b = (struct strbuf){ 0 };
}
