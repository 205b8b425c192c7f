/* SPDX-License-Identifier: GPL-2.0-only */
/* RFC 4180 CSV fields. */
#ifndef TRACT_CSV_H
#define TRACT_CSV_H

#include <stdio.h>
#include <stdint.h>

/*
 * Write one field, quoted when it holds a comma, quote, CR or LF or starts or
 * ends with a space; inner quotes doubled.  Bytes are written as they are, so
 * invalid UTF-8 in a thread name round-trips.  NULL writes an empty field.
 */
void csv_field(FILE *f, const char *s);
void csv_u64(FILE *f, uint64_t v);
void csv_sep(FILE *f);
void csv_end(FILE *f);

#endif
