/* SPDX-License-Identifier: GPL-2.0-only */
/* RFC 4180 CSV fields. */
#ifndef TRACT_CSV_H
#define TRACT_CSV_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Write one field as the store's files keep it, quoted when it holds a
 * comma, quote, CR or LF or starts or ends with a space, and when it is
 * empty; inner quotes doubled.  Bytes are written as they are, so invalid
 * UTF-8 in a thread name round-trips.  NULL writes an empty field,
 * unquoted: that is how a reader tells NULL from "".
 */
void csv_field(FILE *f, const char *s);
/* The same for len bytes of s, which may hold NULs. */
void csv_field_n(FILE *f, const char *s, size_t len);
/*
 * A text field of what tract prints for people and their spreadsheets (not
 * the store): each byte of a control character as \xNN (lowercase hex;
 * C0, DEL, C1 bare or as UTF-8), so no line breaks and nothing reaches a
 * terminal raw; text starting with =, +, - or @ after a ', which a
 * spreadsheet shows and does not run as a formula.  Backslashes stay as
 * they are: the exact bytes are JSON's.
 */
void csv_text(FILE *f, const char *s, size_t len);
void csv_u64(FILE *f, uint64_t v);
void csv_sep(FILE *f);
void csv_end(FILE *f);

/* A field read back: NUL-terminated, and len bytes long (it may hold NULs). */
struct csv_value {
	const char *s;
	size_t len;
	int null;			/* an empty field without quotes */
};

struct csv_record {
	struct csv_value *fields;
	size_t nr, fields_cap;
	char *buf;
	size_t cap;
};

/*
 * Reads one record (CRLF or LF ends it; quoted fields may hold both) into r,
 * whose fields last until the next read.  1 when a record was read, 0 at the
 * end of the file, -1 for a quote that never closes.
 */
int csv_read_record(FILE *f, struct csv_record *r);
void csv_record_free(struct csv_record *r);

#endif
