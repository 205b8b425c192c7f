/* SPDX-License-Identifier: GPL-2.0-only */
/* A query's rows as one text, for unit tests that hold a table to what it should be (after cmocka.h). */
#ifndef TRACT_SQL_ROWS_H
#define TRACT_SQL_ROWS_H

#include <stdio.h>
#include <sqlite3.h>

/* Columns by |, NULL as NULL, a line a row; the caller frees it. */
static __attribute__((unused)) char *dump(sqlite3 *db, const char *sql)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++)
			fprintf(f, "%s%s", c ? "|" : "",
				sqlite3_column_type(st, c) == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, c));
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	fclose(f);
	return buf;
}

#endif
