// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ch_tsv.h"
#include "util.h"

/* The escapes ClickHouse writes in TabSeparated, and what they stand for. */
static char unescaped(char c)
{
	switch (c) {
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case '0': return '\0';
	default: return c;	/* \\ \' and any other */
	}
}

/* Splits the line at t->pos into at most max fields, unescaping them in place; the count, or max + 1. */
static size_t split(struct ch_table *t, struct ch_field *fields, size_t max)
{
	size_t n = 0;
	char *s = t->text + t->pos, *end = t->text + t->len;

	for (;;) {
		char *from = s, *to = s;
		int escaped_null = 0;

		while (s < end && *s != '\t' && *s != '\n') {
			if (*s == '\\' && s + 1 < end) {
				if (s[1] == 'N' && to == from && (s + 2 == end || s[2] == '\t' || s[2] == '\n'))
					escaped_null = 1;
				*to++ = unescaped(s[1]);
				s += 2;
			} else {
				*to++ = *s++;
			}
		}
		if (n < max)
			fields[n] = (struct ch_field){ escaped_null ? NULL : from, escaped_null ? 0 : (size_t)(to - from) };
		n++;
		if (s >= end || *s == '\n') {
			t->pos = (size_t)(s - t->text) + (s < end);
			return n <= max ? n : max + 1;
		}
		s++;
	}
}

static enum ch_kind kind_of(const struct ch_field *type)
{
	const char *s = type->s;
	size_t len = type->len;

	if (len > 9 && !memcmp(s, "Nullable(", 9))
		s += 9, len -= 9;
	if ((len >= 3 && !memcmp(s, "Int", 3)) || (len >= 4 && !memcmp(s, "UInt", 4)))
		return CH_KIND_INT;
	if (len >= 5 && !memcmp(s, "Float", 5))
		return CH_KIND_REAL;
	return CH_KIND_TEXT;
}

int ch_table__open(struct ch_table *t, char *text, size_t len)
{
	struct ch_field *types;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->text = text;
	t->len = len;
	if (!len)
		return -EINVAL;
	/* the names line says how many columns there are */
	n = 1;
	for (size_t i = 0; i < len && text[i] != '\n'; i++)
		n += text[i] == '\t';
	t->ncols = n;
	t->names = xcalloc(n, sizeof(*t->names));
	t->row = xcalloc(n, sizeof(*t->row));
	t->kinds = xcalloc(n, sizeof(*t->kinds));
	types = t->row;
	if (split(t, t->names, n) != n || t->pos >= len || split(t, types, n) != n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		t->kinds[i] = kind_of(&types[i]);
	return 0;
}

int ch_table__next(struct ch_table *t)
{
	if (t->pos >= t->len)
		return 0;
	return split(t, t->row, t->ncols) == t->ncols ? 1 : -EINVAL;
}

void ch_table__free(struct ch_table *t)
{
	free(t->text);
	free(t->names);
	free(t->kinds);
	free(t->row);
	memset(t, 0, sizeof(*t));
}

long long ch_field_int(const struct ch_field *f)
{
	char buf[32];

	if (!f->s || !f->len || f->len >= sizeof(buf))
		return 0;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	/* UInt64 beyond INT64_MAX keeps its bits, as SQLite keeps such values */
	return buf[0] == '-' ? strtoll(buf, NULL, 10) : (long long)strtoull(buf, NULL, 10);
}

double ch_field_real(const struct ch_field *f)
{
	char buf[64];

	if (!f->s || !f->len || f->len >= sizeof(buf))
		return 0;
	memcpy(buf, f->s, f->len);
	buf[f->len] = '\0';
	return strtod(buf, NULL);
}
