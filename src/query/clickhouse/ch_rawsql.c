// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sqlite3.h>
#include "ch_read.h"
#include "ch_store.h"
#include "clock.h"
#include "rawsql.h"
#include "rawsql_rows.h"
#include "strbuf.h"
#include "util.h"

/* An identifier in double quotes, any bytes but NUL. */
static void quote_name(struct strbuf *b, const struct ch_field *f)
{
	strbuf_add(b, "\"");
	for (size_t i = 0; i < f->len; i++)
		strbuf_addn(b, f->s[i] == '"' ? "\"\"" : f->s + i, f->s[i] == '"' ? 2 : 1);
	strbuf_add(b, "\"");
}

/*
 * The server's answer as a table of db (columns c1, c2, ...: the server's
 * names may repeat, SQLite's may not), and the SELECT that prints it under
 * the server's names, as a local answer is printed.
 */
static int load_answer(sqlite3 *db, struct ch_table *t, struct strbuf *select)
{
	struct strbuf create = { 0 }, insert = { 0 };
	sqlite3_stmt *st = NULL;
	int rc = 0, err = 0;

	strbuf_add(&create, "CREATE TABLE answer (");
	strbuf_add(&insert, "INSERT INTO answer VALUES (");
	strbuf_add(select, "SELECT ");
	for (size_t c = 0; c < t->ncols; c++) {
		strbuf_addf(&create, "%sc%zu", c ? ", " : "", c + 1);
		strbuf_addf(&insert, "%s?", c ? ", " : "");
		strbuf_addf(select, "%sc%zu AS ", c ? ", " : "", c + 1);
		quote_name(select, &t->names[c]);
	}
	strbuf_add(&create, ")");
	strbuf_add(&insert, ")");
	strbuf_add(select, " FROM answer");
	if (sqlite3_exec(db, strbuf_str(&create), NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, strbuf_str(&insert), -1, &st, NULL) != SQLITE_OK)
		err = -EIO;
	while (!err && (rc = ch_table__next(t)) == 1) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct ch_field *f = &t->row[c];

			if (!f->s)
				sqlite3_bind_null(st, (int)c + 1);
			else if (t->kinds[c] == CH_KIND_INT)
				sqlite3_bind_int64(st, (int)c + 1, ch_field_int(f));
			else if (t->kinds[c] == CH_KIND_REAL)
				sqlite3_bind_double(st, (int)c + 1, ch_field_real(f));
			else
				sqlite3_bind_text(st, (int)c + 1, f->len ? f->s : "", (int)f->len, SQLITE_TRANSIENT);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			err = -EIO;
		sqlite3_reset(st);
	}
	if (!err && rc < 0) {
		tract_err("--sql: ClickHouse gave a row tract cannot read");
		err = -EIO;
	} else if (err) {
		tract_err("--sql: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	strbuf_free(&create);
	strbuf_free(&insert);
	return err;
}

/*
 * On the fleet's store the SQL is ClickHouse's, over its tables as they are
 * (tract.samples, tract.passes, tract.stacks, with host), the range left to
 * the SQL; the server runs it read-only (its time bounded by the HTTP
 * request's), and the answer prints as a local one.
 */
int ch_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out)
{
	const struct rawsql_limits *lim = rq->lim;
	struct ch_store *s = ch_store__of(set);
	struct rawsql_deadline d = { 0 };
	const char *sql = rq->sql;
	struct ch_table t = { 0 };
	struct strbuf q = { 0 }, select = { 0 };
	sqlite3_stmt *st = NULL;
	size_t len = strlen(sql);
	sqlite3 *db = NULL;
	int err;

	/* the limit is the SQL's */
	d.at_ns = lim->timeout_s ? mono_ns() + (uint64_t)lim->timeout_s * 1000000000 : 0;
	/* the FORMAT clause is tract's: a statement's own ; ends before it */
	while (len && (isspace((unsigned char)sql[len - 1]) || sql[len - 1] == ';'))
		len--;
	strbuf_addn(&q, sql, len);
	err = ch_store__select_readonly(s, strbuf_str(&q), &t);
	strbuf_free(&q);
	if (!err && sqlite3_open(":memory:", &db) != SQLITE_OK) {
		tract_err("cannot open an in-memory database");
		err = -ENOMEM;
	}
	if (!err)
		err = load_answer(db, &t, &select);
	if (!err && sqlite3_prepare_v2(db, strbuf_str(&select), -1, &st, NULL) != SQLITE_OK) {
		tract_err("--sql: %s", sqlite3_errmsg(db));
		err = -EIO;
	}
	if (!err) {
		sqlite3_progress_handler(db, 1000, rawsql_past_deadline, &d);
		err = rawsql_print_rows(db, st, rq->format, lim, &d, out);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	strbuf_free(&select);
	ch_table__free(&t);
	return err;
}
