// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "columns.h"
#include "pass_tables.h"
#include "schema.h"
#include "strbuf.h"
#include "syscalls.h"
#include "upgrade.h"
#include "util.h"

int store_upgradable(int64_t version)
{
	return version >= TRACT_SCHEMA_OLDEST && version < TRACT_SCHEMA_VERSION;
}

/* 1 if the table has the column, 0 if not (or no such table), -1 on an error. */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
	/* the schema SQLite holds, asked without a statement: no SQL to parse for each column */
	int rc = sqlite3_table_column_metadata(db, "main", table, column, NULL, NULL, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 1 : rc == SQLITE_ERROR ? 0 : -1;
}

/* The column added to table unless it has it: -1 on an error. */
static int add_column(sqlite3 *db, const char *table, const char *name, const char *type)
{
	char sql[256];
	int has = has_column(db, table, name);

	if (has)
		return has < 0 ? -1 : 0;
	/* SQLite adds no NOT NULL column without a default: old rows have none */
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %.*s", table, name,
		 (int)(strstr(type, " NOT NULL") ? (size_t)(strstr(type, " NOT NULL") - type) : strlen(type)), type);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static int has_table(sqlite3 *db, const char *name);

static int add_columns(sqlite3 *db)
{

	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		const char *table = c->where == FACT ? "sample_facts" : c->where == IO ? "sample_io" :
				    c->where == TRACE ? "traces" : c->where == BLOCKER ? "sample_blockers" : NULL;

		if (table && add_column(db, table, column_stored_name(c), c->type))
			return -1;
		/* a thread's own (schema 13: the process title) */
		if (c->where == DIM && !strncmp(c->sql, "t.", 2) && add_column(db, "threads", c->sql + 2, c->type))
			return -1;
	}
	/* a file's device, for io_dev where a sample has no request (schema 14) */
	if (add_column(db, "files", "dev", "TEXT"))
		return -1;
	/* the passes a fact repeats at (schema 18) */
	if (add_column(db, "sample_facts", "repeats", "INTEGER"))
		return -1;
	/* the pass's own tables' (those schema 9 made come whole with it: name_facts()) */
	for (size_t t = 0; t < NR_PASS_TABLES; t++) {
		const struct pass_table *pt = &pass_tables[t];
		const struct pass_column *kept[64];
		size_t n = pass_table_stored(pt, kept, ARRAY_SIZE(kept));
		int has = has_table(db, pt->facts);

		for (size_t i = 0; has > 0 && i < n; i++)
			if (kept[i]->store == S_SELF_KIND && add_column(db, pt->facts, kept[i]->name, kept[i]->sqlite_type))
				return -1;
		if (has < 0)
			return -1;
	}
	return 0;
}

static int exec_ok(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* 1 if the schema has a table (not a view) of that name, 0 if not, -1 on an error. */
static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The column the old syscall_latency named each syscall in. */
static const char *syscall_name_column(void)
{
	const struct pass_table *t = &pass_tables[PT_syscall_latency];

	for (size_t i = 0; i < t->ncolumns; i++)
		if (t->columns[i].store == S_SYSCALL_KIND)
			return t->columns[i].name;
	return NULL;
}

/*
 * temp.syscall_map(name, nr): each syscall name of the old syscall_latency
 * table by its number: the one the file's own syscalls table gives it (the
 * recorder's, whatever machine it ran on), else this build's (store_sqlite.c);
 * a name without one gets a negative number below those the file has, and
 * every name a syscalls row.
 */
static int map_syscall_names(sqlite3 *db)
{
	sqlite3_stmt *names = NULL, *own = NULL, *held = NULL, *add = NULL, *map = NULL;
	int64_t odd = 0;
	int err = -1, rc;
	char distinct[128];

	if (exec_ok(db, "CREATE TEMP TABLE syscall_map (name TEXT UNIQUE, nr INTEGER NOT NULL)") ||
	    sqlite3_prepare_v2(db, "SELECT min(0, coalesce(min(nr), 0)) FROM syscalls", -1, &own, NULL) ||
	    sqlite3_step(own) != SQLITE_ROW)
		goto out;
	odd = sqlite3_column_int64(own, 0);
	sqlite3_finalize(own);
	own = NULL;
	snprintf(distinct, sizeof(distinct), "SELECT DISTINCT %s FROM %s", syscall_name_column(),
		 pass_tables[PT_syscall_latency].name);
	if (sqlite3_prepare_v2(db, distinct, -1, &names, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT min(nr) FROM syscalls WHERE name = ?1", -1, &own, NULL) ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM syscalls WHERE nr = ?1", -1, &held, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO syscalls(nr, name) VALUES (?1, ?2)", -1, &add, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO temp.syscall_map VALUES (?1, ?2)", -1, &map, NULL))
		goto out;
	while ((rc = sqlite3_step(names)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(names, 0);
		int64_t nr = NO_SYSCALL_NR;
		char unnamed[32];

		if (name) {
			sqlite3_reset(own);
			sqlite3_bind_text(own, 1, name, -1, SQLITE_STATIC);
			if (sqlite3_step(own) != SQLITE_ROW)
				goto out;
			nr = sqlite3_column_type(own, 0) != SQLITE_NULL ? sqlite3_column_int64(own, 0)
									  : syscall_number_of(name);
			/* this build's number, held in the file by another name (another machine's table): none */
			if (nr >= 0 && sqlite3_column_type(own, 0) == SQLITE_NULL) {
				int step;

				sqlite3_reset(held);
				sqlite3_bind_int64(held, 1, nr);
				step = sqlite3_step(held);
				if (step != SQLITE_ROW && step != SQLITE_DONE)
					goto out;
				if (step == SQLITE_ROW)
					nr = -1;
			}
			if (nr < 0)
				nr = --odd;
			/* the file's name for it, else the one the store writes, so that samples and histograms agree */
			sqlite3_bind_int64(add, 1, nr);
			sqlite3_bind_text(add, 2, nr >= 0 ? syscall_name_or_number((int)nr, unnamed, sizeof(unnamed)) : name,
					  -1, SQLITE_TRANSIENT);
			if (sqlite3_step(add) != SQLITE_DONE)
				goto out;
			sqlite3_reset(add);
		}
		sqlite3_bind_value(map, 1, sqlite3_column_value(names, 0));
		sqlite3_bind_int64(map, 2, nr);
		if (sqlite3_step(map) != SQLITE_DONE)
			goto out;
		sqlite3_reset(map);
	}
	err = rc == SQLITE_DONE ? 0 : -1;
out:
	sqlite3_finalize(names);
	sqlite3_finalize(own);
	sqlite3_finalize(held);
	sqlite3_finalize(add);
	sqlite3_finalize(map);
	return err;
}

/*
 * The tables schema 9 moved: before, each row named its processes and
 * syscall (the columns the view of each now gives); since, their rows are
 * in facts by the ids of processes and syscalls.
 */
static const enum pass_table_id named_tables[] = { PT_syscall_latency, PT_runq_latency, PT_wakeups };

/* The column of t that is part of the process kept in ref: the old table's name for it. */
static const char *process_part(const struct pass_table *t, const char *ref, enum pass_part part)
{
	for (size_t i = 0; i < t->ncolumns; i++) {
		const struct pass_column *c = &t->columns[i];

		if (c->store == S_PROCESS_KIND && !strcmp(c->ref, ref) && c->part == part)
			return c->name;
	}
	return NULL;
}

/* INSERT INTO processes every (tgid, name) the old tables name. */
static void add_processes_sql(struct strbuf *b)
{
	const char *sep = "INSERT INTO processes(tgid, name) SELECT ";

	for (size_t i = 0; i < ARRAY_SIZE(named_tables); i++) {
		const struct pass_table *t = &pass_tables[named_tables[i]];
		const struct pass_column *kept[64];
		size_t n = pass_table_stored(t, kept, ARRAY_SIZE(kept));

		for (size_t k = 0; k < n; k++) {
			if (kept[k]->store != S_PROCESS_KIND)
				continue;
			strbuf_addf(b, "%s%s, %s FROM %s", sep, process_part(t, kept[k]->ref, PART_TGID),
				    process_part(t, kept[k]->ref, PART_NAME), t->name);
			sep = " UNION SELECT ";
		}
	}
}

/*
 * The old table's rows copied into its facts, in their order, with the ids
 * of their processes and syscalls (temp.syscall_map): of its own columns,
 * those the old table has (one added since takes its default).  0, or -1.
 */
static int copy_named_sql(sqlite3 *db, const struct pass_table *t, struct strbuf *b)
{
	const struct pass_column *kept[64];
	size_t n = pass_table_stored(t, kept, ARRAY_SIZE(kept));
	struct strbuf values = { 0 }, joins = { 0 };
	int err = 0;

	strbuf_addf(b, "INSERT INTO %s(pass", t->facts);
	strbuf_add(&values, "h.pass");
	for (size_t i = 0; !err && i < n; i++) {
		const struct pass_column *c = kept[i];
		const char *a = c->alias;
		int has;

		switch (c->store) {
		case S_PROCESS_KIND:
			strbuf_addf(b, ", %s", c->ref);
			strbuf_addf(&values, ", %s.id", a);
			strbuf_addf(&joins, " JOIN processes %s ON %s.tgid IS h.%s AND %s.name IS h.%s", a, a,
				    process_part(t, c->ref, PART_TGID), a, process_part(t, c->ref, PART_NAME));
			break;
		case S_SYSCALL_KIND:
			strbuf_addf(b, ", %s", c->ref);
			strbuf_add(&values, ", m.nr");
			strbuf_addf(&joins, " JOIN temp.syscall_map m ON m.name IS h.%s", c->name);
			break;
		case S_SELF_KIND:
			has = has_column(db, t->name, c->name);
			if (has > 0) {
				strbuf_addf(b, ", %s", c->name);
				strbuf_addf(&values, ", h.%s", c->name);
			}
			err = has < 0;
			break;
		default:
			err = 1;	/* no other kind was kept by name */
		}
	}
	strbuf_addf(b, ") SELECT %s FROM %s h%s ORDER BY h.rowid", strbuf_str(&values), t->name, strbuf_str(&joins));
	strbuf_free(&values);
	strbuf_free(&joins);
	return err ? -1 : 0;
}

/* Each statement of the move in turn; 0, or -1. */
static int move_named(sqlite3 *db)
{
	struct strbuf sql = { 0 };
	int err = exec_ok(db, "CREATE INDEX processes_by_name ON processes(tgid, name)");

	if (!err) {
		add_processes_sql(&sql);
		err = exec_ok(db, strbuf_str(&sql));
	}
	for (size_t i = 0; !err && i < ARRAY_SIZE(named_tables); i++) {
		strbuf_free(&sql);
		err = copy_named_sql(db, &pass_tables[named_tables[i]], &sql) || exec_ok(db, strbuf_str(&sql));
	}
	strbuf_free(&sql);
	err = err || exec_ok(db, "DROP INDEX processes_by_name") || exec_ok(db, "DROP TABLE temp.syscall_map");
	for (size_t i = 0; !err && i < ARRAY_SIZE(named_tables); i++) {
		char drop[128];

		snprintf(drop, sizeof(drop), "DROP TABLE %s", pass_tables[named_tables[i]].name);
		err = exec_ok(db, drop);
	}
	return err ? -1 : 0;
}

static int name_facts(sqlite3 *db)
{
	int old = has_table(db, pass_tables[PT_syscall_latency].name);

	if (old <= 0)
		return old;
	if (exec_ok(db, schema_named_facts_sql()) || map_syscall_names(db) || move_named(db))
		return -1;
	return exec_ok(db, schema_named_views_sql());
}

/*
 * Schema 6 to 9 kept a sample's trace context in its own columns (6: the
 * trace and span ids only); schema 10 keeps each once in traces, and the
 * fact its id.  The old columns stay, empty in the rows written after.
 */
static const char *const trace_columns[][2] = {
	{ "trace_id", "TEXT" }, { "span_id", "TEXT" }, { "trace_flags", "INTEGER" }, { "trace_attrs", "TEXT" },
};

static const char *const traces_copy[] = {
	"CREATE INDEX traces_by_value ON traces(trace_id, span_id, trace_flags, trace_attrs)",
	"INSERT INTO traces(trace_id, span_id, trace_flags, trace_attrs) "
	"SELECT DISTINCT trace_id, span_id, trace_flags, trace_attrs FROM sample_facts "
	"WHERE trace_id IS NOT NULL OR trace_attrs IS NOT NULL",
	"UPDATE sample_facts SET trace = (SELECT t.id FROM traces t WHERE t.trace_id IS sample_facts.trace_id "
	"AND t.span_id IS sample_facts.span_id AND t.trace_flags IS sample_facts.trace_flags "
	"AND t.trace_attrs IS sample_facts.trace_attrs) WHERE trace_id IS NOT NULL OR trace_attrs IS NOT NULL",
	"DROP INDEX traces_by_value",
};

static int move_traces(sqlite3 *db)
{
	int traces = has_table(db, "traces"), old = has_column(db, "sample_facts", "trace_id");

	if (traces < 0 || old < 0 || (!traces && exec_ok(db, schema_traces_sql())) ||
	    add_column(db, "sample_facts", "trace", "INTEGER"))
		return -1;
	if (traces || !old)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(trace_columns); i++)
		if (add_column(db, "sample_facts", trace_columns[i][0], trace_columns[i][1]))
			return -1;
	for (size_t i = 0; i < ARRAY_SIZE(traces_copy); i++)
		if (exec_ok(db, traces_copy[i]))
			return -1;
	return 0;
}

/* Schema 12 keeps a blocked sample's holder and chain in sample_blockers: older hours have none. */
static int add_blockers(sqlite3 *db)
{
	int has = has_table(db, "sample_blockers");

	return has < 0 ? -1 : has ? 0 : exec_ok(db, schema_blockers_sql());
}

/*
 * Schema 15 and 16 kept each ended wait whole in the wait_ends table: its
 * ender and class as text, its times as they are.  Schema 17 keeps each
 * ender once (enders) and the times from the pass (wait_end_facts); the
 * view wait_ends gives the same rows back.
 */
static const char *const wait_ends_copy[] = {
	"INSERT INTO enders(tid, tgid, name, wait_class) SELECT DISTINCT ender_tid, ender_tgid, ender, wait_class "
	"FROM wait_ends",
	"INSERT INTO wait_end_facts(pass, tid, tgid, start_before_us, end_before_us, ender) "
	"SELECT w.pass, w.tid, w.tgid, p.ts_us - w.start_us, p.ts_us - w.end_us, en.id FROM wait_ends w "
	"JOIN passes p ON p.id = w.pass JOIN enders en ON en.tid IS w.ender_tid AND en.tgid IS w.ender_tgid "
	"AND en.name IS w.ender AND en.wait_class IS w.wait_class ORDER BY w.rowid",
	"DROP TABLE wait_ends",
};

static int compact_wait_ends(sqlite3 *db)
{
	const struct pass_table *t = &pass_tables[PT_wait_ends];
	int enders = has_table(db, "enders"), old = has_table(db, t->name);
	struct strbuf table = { 0 }, view = { 0 };
	int err;

	if (enders < 0 || old < 0 || (!enders && exec_ok(db, schema_enders_sql())))
		return -1;
	if (!old)
		return 0;
	pass_table_sqlite_create(&table, t);
	pass_table_sqlite_view(&view, t);
	err = exec_ok(db, strbuf_str(&table));
	for (size_t i = 0; !err && i < ARRAY_SIZE(wait_ends_copy); i++)
		err = exec_ok(db, wait_ends_copy[i]);
	err = err || exec_ok(db, strbuf_str(&view));
	strbuf_free(&table);
	strbuf_free(&view);
	return err ? -1 : 0;
}

/* The pass's tables an older tract did not have, made empty (with their views). */
static int add_tables(sqlite3 *db)
{
	for (size_t t = 0; t < NR_PASS_TABLES; t++) {
		int has = has_table(db, pass_tables[t].facts);
		struct strbuf sql = { 0 };
		int err;

		if (has)
			continue;
		pass_table_sqlite_create(&sql, &pass_tables[t]);
		pass_table_sqlite_view(&sql, &pass_tables[t]);
		err = has < 0 || exec_ok(db, strbuf_str(&sql));
		strbuf_free(&sql);
		if (err)
			return -1;
	}
	return 0;
}

int store_upgrade(sqlite3 *db, const char *name)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", TRACT_SCHEMA_VERSION);
	/*
	 * the samples view goes first and comes back last (schema_view_sql()):
	 * each column added parses the whole schema again, the longest
	 * statement of which it is
	 */
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	if (exec_ok(db, "DROP VIEW IF EXISTS samples") || move_traces(db) || add_blockers(db) ||
	    compact_wait_ends(db) || add_columns(db) || name_facts(db) || add_tables(db) || sqlite3_exec(db, schema_view_sql(), NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		tract_err("cannot upgrade '%s' to schema version %d: %s", name, TRACT_SCHEMA_VERSION,
			  sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	return 0;
fail:
	tract_err("cannot upgrade '%s': %s", name, sqlite3_errmsg(db));
	return -EIO;
}

/* The file's connection closed, *db NULL, and err. */
static int give_up(sqlite3 **db, int err)
{
	sqlite3_close(*db);
	*db = NULL;
	return err;
}

int store_upgrade_copy(sqlite3 **db)
{
	sqlite3_int64 size;
	unsigned char *bytes = sqlite3_serialize(*db, "main", &size, 0);
	sqlite3 *copy = NULL;
	int err;

	if (!bytes) {
		int nomem = sqlite3_errcode(*db) == SQLITE_NOMEM;

		/* a damaged page, a busy or unreadable file, or no memory */
		tract_err("cannot read '%s' to upgrade it: %s", sqlite3_db_filename(*db, "main"),
			  nomem ? "out of memory" : sqlite3_errmsg(*db));
		return give_up(db, nomem ? -ENOMEM : -EIO);
	}
	/* the copy is no WAL database: the header's read and write versions say so */
	if (size > 19)
		bytes[18] = bytes[19] = 1;
	if (sqlite3_open(":memory:", &copy) != SQLITE_OK) {
		sqlite3_free(bytes);
		sqlite3_close(copy);
		tract_err("out of memory");
		return give_up(db, -ENOMEM);
	}
	if (sqlite3_deserialize(copy, "main", bytes, size, size,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK) {
		sqlite3_close(copy);
		tract_err("out of memory");
		return give_up(db, -ENOMEM);
	}
	err = store_upgrade(copy, sqlite3_db_filename(*db, "main"));
	if (err) {
		sqlite3_close(copy);
		return give_up(db, err);
	}
	sqlite3_close(*db);
	*db = copy;
	return 0;
}
