// SPDX-License-Identifier: GPL-2.0-only
/*
 * --sql over a directory of hours: the range's rows of every hour copied
 * into one in-memory database (rawsql.h says what the SQL sees), locked
 * down, and the user's one statement run there.
 */
#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>
#include "clock.h"
#include "pass_tables.h"
#include "hours_read.h"
#include "rawsql.h"
#include "rawsql_rows.h"
#include "strbuf.h"
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
	"CREATE TABLE IF NOT EXISTS profile AS SELECT p.ts_us, t.tid, t.tgid, t.comm, t.pcomm, ks.frames AS kstack, "
	"us.frames AS ustack, h.ticks FROM src.profile h JOIN src.passes p ON p.id = h.pass "
	"JOIN src.threads t ON t.id = h.thread "
	"LEFT JOIN src.stacks ks ON ks.id = h.kstack LEFT JOIN src.stacks us ON us.id = h.ustack WHERE 0",
	"INSERT INTO profile SELECT p.ts_us, t.tid, t.tgid, t.comm, t.pcomm, ks.frames, us.frames, h.ticks "
	"FROM src.profile h JOIN src.passes p ON p.id = h.pass JOIN src.threads t ON t.id = h.thread "
	"LEFT JOIN src.stacks ks ON ks.id = h.kstack "
	"LEFT JOIN src.stacks us ON us.id = h.ustack WHERE p.ts_us >= ?1 AND p.ts_us < ?2",
};

/*
 * The other tables of the pass (pass_tables.def) as their tables or views
 * have them, each row with its pass's time: the profile's threads and
 * stacks are named above.
 */
static char *pass_copy_sql[2 * NR_PASS_TABLES];
static size_t npass_copy;

static void make_pass_copy_sql(void)
{
	for (size_t t = 0; t < NR_PASS_TABLES; t++) {
		const struct pass_table *pt = &pass_tables[t];
		struct strbuf b = { 0 };

		if (pt->itself || !strcmp(pt->name, "profile"))
			continue;
		strbuf_addf(&b, "CREATE TABLE IF NOT EXISTS %s AS SELECT p.ts_us, h.* FROM src.%s h "
			    "JOIN src.passes p ON p.id = h.pass WHERE 0", pt->name, pt->name);
		pass_copy_sql[npass_copy++] = strbuf_take(&b);
		strbuf_addf(&b, "INSERT INTO %s SELECT p.ts_us, h.* FROM src.%s h JOIN src.passes p ON p.id = h.pass "
			    "WHERE p.ts_us >= ?1 AND p.ts_us < ?2", pt->name, pt->name);
		pass_copy_sql[npass_copy++] = strbuf_take(&b);
	}
}

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

/*
 * Copies hour i's rows in [from_us, to_us) into db's tables; 1 when it is
 * damaged and skipped.  The copy is one savepoint: an hour found damaged
 * mid-copy leaves none of its rows.
 */
static int copy_hour(sqlite3 *db, const struct store_reader *set, size_t i, uint64_t from_us, uint64_t to_us,
		     int strict)
{
	sqlite3 *check;
	int err = store_reader__open_or_skip(set, i, strict, &check);

	if (err)
		return err;
	sqlite3_close(check);
	tract_clear_error();
	tract_hold_errors(1);
	err = store_reader__attach_hour(set, i, db, "src");
	if (!err) {
		sqlite3_exec(db, "SAVEPOINT hour", NULL, NULL, NULL);
		static pthread_once_t once = PTHREAD_ONCE_INIT;

		pthread_once(&once, make_pass_copy_sql);
		for (size_t k = 0; k < ARRAY_SIZE(copy_sql) + npass_copy && !err; k++)
			if (run_bound(db, k < ARRAY_SIZE(copy_sql) ? copy_sql[k] : pass_copy_sql[k - ARRAY_SIZE(copy_sql)],
				      from_us, to_us) != SQLITE_OK) {
				char *name = store_reader__hour_name(set, i);

				tract_err("cannot read '%s': %s", name, sqlite3_errmsg(db));
				free(name);
				err = -EIO;
			}
		sqlite3_exec(db, err ? "ROLLBACK TO hour; RELEASE hour" : "RELEASE hour", NULL, NULL, NULL);
		sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
	}
	tract_hold_errors(0);
	return store_reader__skip_damaged(err, strict);
}

/*
 * Only reading: SELECT and what it reads and calls, and of the pragmas only
 * those that describe the schema.  The rest is refused, settings too
 * (query_only, which tract turns on, could be turned off), as every write,
 * ATTACH and DETACH (the files are the store's).
 */
static int only_reads(void *arg, int action, const char *a, const char *b, const char *db, const char *trigger)
{
	static const char *const inspecting[] = { "table_info", "table_xinfo", "table_list", "index_list",
						  "index_info", "index_xinfo", "foreign_key_list", "function_list",
						  "collation_list", "pragma_list", "module_list" };

	(void)arg, (void)b, (void)db, (void)trigger;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_UPDATE:
		/* asked as a table-valued function (pragma_table_info()) is set up: query_only stops any write */
		return !strcmp(a, "sqlite_master") ? SQLITE_OK : SQLITE_DENY;
	case SQLITE_PRAGMA:
		for (size_t i = 0; i < ARRAY_SIZE(inspecting); i++)
			if (!strcasecmp(a, inspecting[i]))
				return SQLITE_OK;
		return SQLITE_DENY;
	}
	return SQLITE_DENY;
}

/*
 * The in-memory copy as the user's SQL finds it: nothing it may change
 * (query_only, defensive), its sorts in memory rather than in files of
 * the temporary directory, and no more memory than the copy and
 * RAWSQL_HEAP_MIB.
 */
static int lock_down(sqlite3 *db)
{
	if (sqlite3_exec(db, "PRAGMA temp_store = MEMORY; PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) != SQLITE_OK) {
		tract_err("--sql: cannot make the database read-only: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_hard_heap_limit64(sqlite3_memory_used() + (sqlite3_int64)RAWSQL_HEAP_MIB * 1024 * 1024);
	return sqlite3_set_authorizer(db, only_reads, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* Whether text holds nothing but blanks and comments. */
static int only_blank(const char *s)
{
	while (*s) {
		if (isspace((unsigned char)*s)) {
			s++;
		} else if (s[0] == '-' && s[1] == '-') {
			s += strcspn(s, "\n");
		} else if (s[0] == '/' && s[1] == '*') {
			const char *end = strstr(s + 2, "*/");

			if (!end)
				return 1;
			s = end + 2;
		} else {
			return 0;
		}
	}
	return 1;
}

/* The user's statement, prepared: 0, or -EINVAL after a message. */
static int prepare_user_sql(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
	const char *tail;

	*st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, st, &tail) != SQLITE_OK) {
		if (sqlite3_errcode(db) == SQLITE_AUTH)
			rawsql_say_only_reads();
		else
			tract_err("--sql: %s", sqlite3_errmsg(db));
		return -EINVAL;
	}
	if (!*st) {
		tract_err("--sql: no statement");
		return -EINVAL;
	}
	if (!only_blank(tail)) {
		tract_err("--sql: one statement at a time; this is after the first: '%.40s'", tail);
		return -EINVAL;
	}
	if (!sqlite3_stmt_readonly(*st)) {
		tract_err("--sql: only statements that read are allowed");
		return -EINVAL;
	}
	return 0;
}

int hours_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out)
{
	uint64_t from_us = rq->from_us, to_us = rq->to_us;
	const struct rawsql_limits *lim = rq->lim;
	sqlite3_int64 heap = sqlite3_hard_heap_limit64(-1);
	struct rawsql_deadline d = { 0 };
	int strict = rq->strict;
	sqlite3_stmt *st = NULL;
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
		if (store_hour_overlaps(set->hours[i].hour_us, from_us, to_us)) {
			err = copy_hour(db, set, i, from_us, to_us, strict);
			copied += !err;
			err = err > 0 ? 0 : err;
		}
	/* an empty range still gets the tables, from the newest file, so that the SQL runs */
	if (!err && !copied && set->n)
		if ((err = copy_hour(db, set, set->n - 1, 0, 0, strict)) > 0)
			err = 0;
	if (!err)
		err = lock_down(db);
	if (!err)
		err = prepare_user_sql(db, rq->sql, &st);
	/* the limit is the SQL's: however long the range takes to copy */
	if (!err) {
		d.at_ns = lim->timeout_s ? mono_ns() + (uint64_t)lim->timeout_s * 1000000000 : 0;
		sqlite3_progress_handler(db, 1000, rawsql_past_deadline, &d);
		err = rawsql_print_rows(db, st, rq->format, lim, &d, out);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	sqlite3_hard_heap_limit64(heap);
	return err;
}
