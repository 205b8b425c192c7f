/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ClickHouse's answers read back: TabSeparatedWithNamesAndTypes, a line of
 * names, a line of types, then rows, each field unescaped in place.  The
 * reverse of ch_tsv_text(); one reader for every query tract sends.
 */
#ifndef TRACT_CH_TSV_H
#define TRACT_CH_TSV_H

#include <stddef.h>

enum ch_kind { CH_KIND_TEXT, CH_KIND_INT, CH_KIND_REAL };

struct ch_field {
	const char *s;		/* NULL for \N; not NUL-terminated past len for the last field */
	size_t len;
};

struct ch_table {
	char *text;		/* the answer, unescaped in place as rows are read */
	size_t len, pos;
	size_t ncols;
	struct ch_field *names;
	enum ch_kind *kinds;	/* from each column's type: Int and UInt are integers, Float reals */
	struct ch_field *row;	/* the current row */
};

/* Takes text (malloc'd, len bytes) over; 0, or -EINVAL when it has no names and types lines. */
int ch_table__open(struct ch_table *t, char *text, size_t len);
/* The next row into t->row: 1, 0 at the end, -EINVAL when a row has not ncols fields. */
int ch_table__next(struct ch_table *t);
void ch_table__free(struct ch_table *t);
/* A field as a number (0 for NULL or text that is not one). */
long long ch_field_int(const struct ch_field *f);
double ch_field_real(const struct ch_field *f);

#endif
