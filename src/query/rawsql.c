// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "csv.h"
#include "json.h"
#include "rawsql.h"
#include "sqlfuncs.h"
#include "util.h"

/* What each store file contributes: its rows in [?1, ?2), ids turned into text. */
static const char *const copy_sql[] = {
	"CREATE TABLE IF NOT EXISTS samples AS SELECT s.*, ks.frames AS kstack, us.frames AS ustack "
	"FROM src.samples s LEFT JOIN src.stacks ks ON ks.id = s.kstack_id "
	"LEFT JOIN src.stacks us ON us.id = s.ustack_id WHERE 0",
	"INSERT INTO samples SELECT s.*, ks.frames, us.frames FROM src.samples s "
	"LEFT JOIN src.stacks ks ON ks.id = s.kstack_id LEFT JOIN src.stacks us ON us.id = s.ustack_id "
	"WHERE s.ts_us >= ?1 AND s.ts_us < ?2",
	"CREATE TABLE IF NOT EXISTS passes AS SELECT * FROM src.passes WHERE 0",
	"INSERT INTO passes SELECT * FROM src.passes WHERE ts_us >= ?1 AND ts_us < ?2",
	"CREATE TABLE IF NOT EXISTS wakeups AS SELECT p.ts_us, w.* FROM src.wakeups w "
	"JOIN src.passes p ON p.id = w.pass WHERE 0",
	"INSERT INTO wakeups SELECT p.ts_us, w.* FROM src.wakeups w JOIN src.passes p ON p.id = w.pass "
	"WHERE p.ts_us >= ?1 AND p.ts_us < ?2",
	"CREATE TABLE IF NOT EXISTS io_latency AS SELECT p.ts_us, h.* FROM src.io_latency h "
	"JOIN src.passes p ON p.id = h.pass WHERE 0",
	"INSERT INTO io_latency SELECT p.ts_us, h.* FROM src.io_latency h JOIN src.passes p ON p.id = h.pass "
	"WHERE p.ts_us >= ?1 AND p.ts_us < ?2",
	"CREATE TABLE IF NOT EXISTS syscall_latency AS SELECT p.ts_us, h.* FROM src.syscall_latency h "
	"JOIN src.passes p ON p.id = h.pass WHERE 0",
	"INSERT INTO syscall_latency SELECT p.ts_us, h.* FROM src.syscall_latency h "
	"JOIN src.passes p ON p.id = h.pass WHERE p.ts_us >= ?1 AND p.ts_us < ?2",
	"CREATE TABLE IF NOT EXISTS runq_latency AS SELECT p.ts_us, h.* FROM src.runq_latency h "
	"JOIN src.passes p ON p.id = h.pass WHERE 0",
	"INSERT INTO runq_latency SELECT p.ts_us, h.* FROM src.runq_latency h "
	"JOIN src.passes p ON p.id = h.pass WHERE p.ts_us >= ?1 AND p.ts_us < ?2",
};

static int run_bound(sqlite3 *db, const char *sql, uint64_t from_us, uint64_t to_us)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	if (sqlite3_bind_parameter_count(st) >= 2) {
		sqlite3_bind_int64(st, 1, (int64_t)from_us);
		sqlite3_bind_int64(st, 2, (int64_t)to_us);
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static int attach(sqlite3 *db, const char *path, const char *params)
{
	char *uri = store_file_uri(path, params);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &st, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	free(uri);
	return rc;
}

static int copy_file(sqlite3 *db, const char *path, uint64_t from_us, uint64_t to_us)
{
	sqlite3 *check;
	int err = store_open_readonly(path, &check);

	/* the same checks and messages as every reader, before ATTACH */
	if (err)
		return err;
	sqlite3_close(check);
	/* without a WAL index and write access, read the file as it is */
	if (attach(db, path, "mode=ro") != SQLITE_OK && attach(db, path, "mode=ro&immutable=1") != SQLITE_OK)
		goto fail;
	for (size_t i = 0; i < ARRAY_SIZE(copy_sql); i++)
		if (run_bound(db, copy_sql[i], from_us, to_us) != SQLITE_OK) {
			sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
			goto fail;
		}
	if (sqlite3_exec(db, "DETACH src", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
fail:
	tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return -EINVAL;
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
		if (type != SQLITE_NULL)
			csv_field(f, text);
	} else {
		for (size_t i = 0; i < len; i++)
			fputc((unsigned char)text[i] < 0x20 ? '?' : text[i], f);
		if (type == SQLITE_NULL)
			fputc('-', f);
	}
}

/* Rows as they come: tab-separated for the table (pipe to column -t for more). */
static int print_rows(sqlite3 *db, sqlite3_stmt *st, enum render_format format, FILE *f)
{
	int ncol = sqlite3_column_count(st), rc;
	const char *sep = format == RENDER_TABLE ? "\t" : ",";
	size_t rows = 0;

	if (format != RENDER_JSON) {
		for (int c = 0; c < ncol; c++) {
			fputs(c ? sep : "", f);
			if (format == RENDER_CSV)
				csv_field(f, sqlite3_column_name(st, c));
			else
				fputs(sqlite3_column_name(st, c), f);
		}
		fputs(format == RENDER_CSV ? "\r\n" : "\n", f);
	} else {
		fputc('[', f);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
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
	if (rc != SQLITE_DONE) {
		tract_err("--sql: %s", sqlite3_errmsg(db));
		return -EINVAL;
	}
	return 0;
}

int rawsql_run(const struct storeset *set, uint64_t from_us, uint64_t to_us, const char *sql,
	       enum render_format format, FILE *out)
{
	sqlite3_stmt *st = NULL;
	const char *tail;
	size_t copied = 0;
	sqlite3 *db;
	int err = 0;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlfuncs_register(db)) {
		tract_err("cannot open an in-memory database");
		sqlite3_close(db);
		return -ENOMEM;
	}
	for (size_t i = 0; i < set->n && !err; i++)
		if (storeset__overlaps(&set->files[i], from_us, to_us)) {
			err = copy_file(db, set->files[i].path, from_us, to_us);
			copied++;
		}
	/* an empty range still gets the tables, from the newest file, so that the SQL runs */
	if (!err && !copied && set->n)
		err = copy_file(db, set->files[set->n - 1].path, 0, 0);
	if (!err && sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
		tract_err("--sql: %s", sqlite3_errmsg(db));
		err = -EINVAL;
	} else if (!err && !st) {
		tract_err("--sql: no statement");
		err = -EINVAL;
	} else if (!err && !sqlite3_stmt_readonly(st)) {
		tract_err("--sql: only statements that read are allowed");
		err = -EINVAL;
	} else if (!err) {
		err = print_rows(db, st, format, out);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return err;
}
