/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How --sql prints an answer, the same from either back end: the rows of a
 * statement of an in-memory SQLite (the hours' copy, or the server's answer
 * loaded into one) as a table, CSV or JSON, within the time and row limits.
 */
#ifndef TRACT_RAWSQL_ROWS_H
#define TRACT_RAWSQL_ROWS_H

#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>
#include "format.h"

/*
 * What the user's SQL may take: the time it runs (not the range's copy;
 * with --clickhouse, the local part, the server's being the HTTP
 * request's), the rows it answers (0: no limit for either), and memory
 * beyond the copy, RAWSQL_HEAP_MIB.
 */
#define RAWSQL_TIMEOUT_S 60
#define RAWSQL_MAX_ROWS 1000000
#define RAWSQL_HEAP_MIB 1024
struct rawsql_limits {
	unsigned int timeout_s;
	uint64_t max_rows;
};

/* What stops a query that runs too long: a deadline, and whether it passed. */
struct rawsql_deadline {
	uint64_t at_ns;		/* 0: none */
	int passed;
};

/* A progress handler of SQLite over a struct rawsql_deadline: nonzero stops the statement. */
int rawsql_past_deadline(void *arg);
void rawsql_say_only_reads(void);
/* Rows as they come: tab-separated for the table (pipe to column -t for more); 0 or -errno after a message. */
int rawsql_print_rows(sqlite3 *db, sqlite3_stmt *st, enum render_format format, const struct rawsql_limits *lim,
		      const struct rawsql_deadline *d, FILE *f);

#endif
