// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "csv.h"
#include "json.h"
#include "rawsql_rows.h"
#include "util.h"
#include "width.h"

/* Text for the table: tab-separated, so its controls (tabs, newlines, escapes) show as '?'. */
static void put_printable(FILE *f, const char *text, size_t len)
{
	char *safe = xcalloc(1, len + 1);

	fwrite(safe, 1, text_printable(safe, text, len), f);
	free(safe);
}

static void put_value(FILE *f, sqlite3_stmt *st, int c, enum render_format format)
{
	int type = sqlite3_column_type(st, c);
	const char *text = (const char *)sqlite3_column_text(st, c);
	size_t len = (size_t)sqlite3_column_bytes(st, c);

	if (format == RENDER_JSON) {
		if (type == SQLITE_NULL)
			fputs("null", f);
		else if (type == SQLITE_INTEGER)
			fprintf(f, "%lld", sqlite3_column_int64(st, c));
		else if (type == SQLITE_FLOAT)
			fprintf(f, "%.17g", sqlite3_column_double(st, c));
		else
			json_string(f, text, len);
	} else if (format == RENDER_CSV) {
		/* a number stays one (-5 is no formula); text and blobs are made safe */
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
			fwrite(text, 1, len, f);
		else if (type != SQLITE_NULL)
			csv_text(f, text, len);
	} else {
		put_printable(f, text, len);
		if (type == SQLITE_NULL)
			fputc('-', f);
	}
}

int rawsql_past_deadline(void *arg)
{
	struct rawsql_deadline *d = arg;

	if (d->at_ns && mono_ns() >= d->at_ns)
		d->passed = 1;
	return d->passed;
}

void rawsql_say_only_reads(void)
{
	tract_err("--sql: only statements that read are allowed (SELECT; of the PRAGMAs only those that describe "
		  "tables; no ATTACH)");
}

/* The statement's own error: the user's SQL (-EINVAL), or a limit it reached (-ETIME, -ENOMEM). */
static int step_error(sqlite3 *db, const struct rawsql_deadline *d, const struct rawsql_limits *lim)
{
	if (d->passed) {
		tract_err("--sql: the query ran for more than %u s (--timeout gives it longer, 0 no limit)",
			  lim->timeout_s);
		return -ETIME;
	}
	if (sqlite3_errcode(db) == SQLITE_NOMEM) {
		tract_err("--sql: the query needs more than %u MiB of memory beyond the range's rows", RAWSQL_HEAP_MIB);
		return -ENOMEM;
	}
	if (sqlite3_errcode(db) == SQLITE_AUTH)
		rawsql_say_only_reads();
	else
		tract_err("--sql: %s", sqlite3_errmsg(db));
	return -EINVAL;
}

int rawsql_print_rows(sqlite3 *db, sqlite3_stmt *st, enum render_format format, const struct rawsql_limits *lim,
		      const struct rawsql_deadline *d, FILE *f)
{
	int ncol = sqlite3_column_count(st), rc;
	const char *sep = format == RENDER_TABLE ? "\t" : ",";
	size_t rows = 0;

	if (format != RENDER_JSON) {
		for (int c = 0; c < ncol; c++) {
			fputs(c ? sep : "", f);
			/* a name is the SQL's, or the server's */
			const char *name = sqlite3_column_name(st, c);

			if (format == RENDER_CSV)
				csv_text(f, name, strlen(name));
			else
				put_printable(f, name, strlen(name));
		}
		fputs(format == RENDER_CSV ? "\r\n" : "\n", f);
	} else {
		fputc('[', f);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (lim->max_rows && rows == lim->max_rows)
			break;
		if (format == RENDER_JSON)
			fputs(rows ? ",\n{" : "\n{", f);
		for (int c = 0; c < ncol; c++) {
			if (format == RENDER_JSON) {
				const char *name = sqlite3_column_name(st, c);

				fputs(c ? "," : "", f);
				json_string(f, name, strlen(name));
				fputc(':', f);
			} else {
				fputs(c ? sep : "", f);
			}
			put_value(f, st, c, format);
		}
		if (format == RENDER_JSON)
			fputc('}', f);
		else
			fputs(format == RENDER_CSV ? "\r\n" : "\n", f);
		rows++;
	}
	if (format == RENDER_JSON)
		fputs("]\n", f);
	if (rc == SQLITE_ROW) {
		tract_err("--sql: the answer has more than %" PRIu64 " rows (--max-rows allows more, 0 any number)",
			  lim->max_rows);
		return -EFBIG;
	}
	return rc == SQLITE_DONE ? 0 : step_error(db, d, lim);
}
