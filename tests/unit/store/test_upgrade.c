// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hours an older tract wrote (schema 5: no trace columns; 6: no trace
 * flags or attributes; 7: no passes.bpf_us; 8: histograms and edges with
 * their names in every row; 9: trace contexts in every row; 10: long times
 * in microseconds), made from the fixture by taking the columns
 * away and making the tables of names again: a reader reads them as this tract writes them
 * without writing to them, the recorder goes on writing one after
 * upgrading it in place, and an hour older than the oldest upgradable is
 * refused by name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <cmocka.h>
#include "hours.h"
#include "csv_reader.h"
#include "reader.h"
#include "schema.h"
#include "sink.h"
#include "../store_fixture.h"
#include "../sql_rows.h"
#include "util.h"

static char *hour_file(const char *dir)
{
	return store_hour_path(dir, FIXTURE_FIRST_US, HOUR_SQLITE_SUFFIX);
}

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
}

static int64_t one_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* sample_facts made again without the columns of drop ("|a|b|") */
static void drop_columns(sqlite3 *db, const char *drop)
{
	char sql[4096] = "CREATE TABLE old_facts AS SELECT rowid AS rowid_";
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('sample_facts')", -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char key[80];

		snprintf(key, sizeof(key), "|%s|", (const char *)sqlite3_column_text(st, 0));
		if (!strstr(drop, key))
			snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), ", %s", sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	strcat(sql, " FROM sample_facts; DROP TABLE sample_facts; ALTER TABLE old_facts RENAME TO sample_facts");
	exec_ok(db, sql);
}

/*
 * The histograms and edges as schema 8 and older kept them, names in every
 * row: a syscall with a name, one without (syscall_499), one this tract does
 * not know, one spelt as this tract never writes a number (syscall_0499), and
 * none; a process gone (NULL); an irq waker.  The file's syscalls have the
 * numbers of another machine's table (fsync 1074, and 1 their_call): its
 * histograms keep them, and write, which it lacks, gets one of the file's own.
 */
static void old_named_tables(sqlite3 *db)
{
	exec_ok(db, "DROP VIEW syscall_latency; DROP VIEW runq_latency; DROP VIEW wakeups;"
		    "DROP TABLE syscall_latency_facts; DROP TABLE runq_latency_facts; DROP TABLE wakeup_facts;"
		    "DROP TABLE processes;"
		    "CREATE TABLE syscall_latency (pass INTEGER NOT NULL, tgid INTEGER NOT NULL, pcomm TEXT, syscall TEXT,"
		    "  le_us INTEGER NOT NULL, count INTEGER NOT NULL, sum_us INTEGER NOT NULL DEFAULT 0);"
		    "CREATE TABLE runq_latency (pass INTEGER NOT NULL, tgid INTEGER NOT NULL, pcomm TEXT,"
		    "  le_us INTEGER NOT NULL, count INTEGER NOT NULL, sum_us INTEGER NOT NULL);"
		    "CREATE TABLE wakeups (pass INTEGER NOT NULL, waker_tgid INTEGER, waker TEXT, wakee_tgid INTEGER NOT NULL,"
		    "  wakee TEXT, count INTEGER NOT NULL, runq_us INTEGER NOT NULL, blocked_us INTEGER NOT NULL);"
		    "INSERT INTO syscall_latency VALUES (1, 100, 'db', 'fsync', 128, 3, 300), (1, 100, 'db', 'syscall_499', 2, 1, 1),"
		    "  (2, 101, NULL, 'frobnicate', 4, 2, 5), (2, 100, 'db', NULL, 8, 1, 6), (3, 100, 'db', 'fsync', 64, 9, 400),"
		    "  (3, 100, 'db', 'syscall_0499', 16, 1, 10), (3, 100, 'db', 'write', 32, 1, 20);"
		    "UPDATE syscalls SET nr = nr + 1000; UPDATE calls SET nr = nr + 1000;"
		    "INSERT INTO syscalls VALUES (1, 'their_call');"
		    "INSERT INTO runq_latency VALUES (2, 100, 'db,\"x\"', 2, 70, 90);"
		    "INSERT INTO wakeups VALUES (1, NULL, 'irq', 100, 'db', 5, 10, 1000), (2, 7, NULL, 100, 'db', 1, 2, 3);");
}

/* What old_named_tables() wrote, through the views of this schema. */
static const char *const old_named_rows[][2] = {
	{ "SELECT * FROM syscall_latency ORDER BY pass, le_us",
	  "1|100|db|syscall_499|2|1|1\n1|100|db|fsync|128|3|300\n2|101|NULL|frobnicate|4|2|5\n2|100|db|NULL|8|1|6\n"
	  "3|100|db|syscall_0499|16|1|10\n3|100|db|write|32|1|20\n3|100|db|fsync|64|9|400\n" },
	/*
	 * fsync by the file's own number, as its samples have it; syscall_0499
	 * not taken for syscall 499, nor write for 1, which the file's table
	 * gives another name
	 */
	{ "SELECT CASE WHEN nr < 0 THEN 'own' ELSE nr END, count(*) FROM syscall_latency_facts "
	  "WHERE sum_us IN (300, 400, 10, 20) GROUP BY 1 ORDER BY 1", "1074|2\nown|2\n" },
	{ "SELECT * FROM runq_latency", "2|100|db,\"x\"|2|70|90\n" },
	{ "SELECT * FROM wakeups ORDER BY pass", "1|NULL|irq|100|db|5|10|1000\n2|7|NULL|100|db|1|2|3\n" },
};

static void holds_old_named_rows(sqlite3 *db, const char *prefix)
{
	for (size_t i = 0; i < sizeof(old_named_rows) / sizeof(old_named_rows[0]); i++) {
		char sql[256], *rows;

		snprintf(sql, sizeof(sql), "%s", old_named_rows[i][0]);
		if (prefix) {
			char *from = strstr(old_named_rows[i][0], "FROM ") + 5;

			snprintf(sql, sizeof(sql), "%.*s%s.%s", (int)(from - old_named_rows[i][0]), old_named_rows[i][0],
				 prefix, from);
		}
		rows = dump(db, sql);
		if (strcmp(rows, old_named_rows[i][1]))
			fail_msg("%s:\n%s\nexpected\n%s", sql, rows, old_named_rows[i][1]);
		free(rows);
	}
}

#define OLD_TRACE "0000000000000000000000000000000a"
#define OLD_SPAN "000000000000000b"

/* The samples of the first hour with no trace context, and those of each kind old_hour() made. */
static void holds_old_traces(sqlite3 *db, const char *samples, int version)
{
	char sql[512];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE trace_attrs IS NULL AND trace_id IS NULL "
		 "AND span_id IS NULL AND trace_flags IS NULL AND ts_us > 0", samples);
	assert_int_equal(one_int(db, sql), version <= 5 ? 26 : version == 6 ? 24 : 23);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE trace_id = '" OLD_TRACE "' AND span_id = '" OLD_SPAN
		 "' AND trace_flags IS %s AND trace_attrs IS %s", samples, version >= 7 ? "1" : "NULL",
		 version >= 7 ? "'http.route=/a'" : "NULL");
	assert_int_equal(one_int(db, sql), version <= 5 ? 0 : 2);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE trace_id IS NULL AND trace_attrs = 'http.route=/b'",
		 samples);
	assert_int_equal(one_int(db, sql), version >= 7);
}

/*
 * The ended waits as schema 15 and 16 kept them, whole in each row (15 and
 * 16 differ elsewhere), or none before 15: a wait blocked by a thread and
 * one a timer ended, in pass 2.
 */
static void old_wait_ends(sqlite3 *db, int version)
{
	exec_ok(db, "DROP VIEW wait_ends; DROP TABLE wait_end_facts; DROP TABLE enders");
	if (version >= 15)
		exec_ok(db, "CREATE TABLE wait_ends (pass INTEGER NOT NULL, tid INTEGER NOT NULL, tgid INTEGER NOT NULL,"
			    "  start_us INTEGER NOT NULL, end_us INTEGER NOT NULL, ender_tid INTEGER, ender_tgid INTEGER,"
			    "  ender TEXT NOT NULL, wait_class TEXT NOT NULL);"
			    "INSERT INTO wait_ends SELECT 2, 7, 100, ts_us - 2500000, ts_us - 300, 8, 100, 'kicker', 'blocked'"
			    "  FROM passes WHERE id = 2;"
			    "INSERT INTO wait_ends SELECT 2, 9, 100, ts_us - 700000, ts_us + 20, NULL, NULL, 'timer', 'sleeping'"
			    "  FROM passes WHERE id = 2;");
}

/* What old_wait_ends() wrote, through this schema's view: the times back where they were. */
static void holds_old_wait_ends(sqlite3 *db, const char *wait_ends)
{
	char sql[512], *rows;

	snprintf(sql, sizeof(sql), "SELECT w.pass, tid, tgid, p.ts_us - start_us, end_us - p.ts_us, ender_tid, ender_tgid, "
		 "ender, wait_class FROM %s w JOIN passes p ON p.id = w.pass WHERE w.pass = 2 ORDER BY tid", wait_ends);
	rows = dump(db, sql);
	assert_string_equal(rows, "2|7|100|2500000|-300|8|100|kicker|blocked\n2|9|100|700000|20|NULL|NULL|timer|sleeping\n");
	free(rows);
}

/* The fixture's first hour as version `version` of the schema had it. */
static char *old_hour(int version)
{
	char *dir = fixture_dir(), *path, sql[64];
	sqlite3 *db;

	assert_non_null(dir);
	assert_int_equal(fixture_store(store_sqlite__open, dir), 0);
	path = hour_file(dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_ok(db, "DROP VIEW samples");
	if (version <= 9) {
		/* trace contexts in columns of the facts: spin's first two samples traced, its third with attributes only */
		exec_ok(db, "DROP TABLE traces");
		drop_columns(db, "|trace|");
		if (version >= 6)
			exec_ok(db, "ALTER TABLE sample_facts ADD COLUMN trace_id TEXT;"
				    "ALTER TABLE sample_facts ADD COLUMN span_id TEXT;"
				    "UPDATE sample_facts SET trace_id = '" OLD_TRACE "', span_id = '" OLD_SPAN "' "
				    "WHERE thread = 1 AND pass <= 2");
		if (version >= 7)
			exec_ok(db, "ALTER TABLE sample_facts ADD COLUMN trace_flags INTEGER;"
				    "ALTER TABLE sample_facts ADD COLUMN trace_attrs TEXT;"
				    "UPDATE sample_facts SET trace_flags = 1, trace_attrs = 'http.route=/a' "
				    "WHERE thread = 1 AND pass <= 2;"
				    "UPDATE sample_facts SET trace_attrs = 'http.route=/b' WHERE thread = 1 AND pass = 3");
	}
	old_wait_ends(db, version);
	if (version <= 8)
		old_named_tables(db);
	if (version <= 7)
		exec_ok(db, "ALTER TABLE passes DROP COLUMN bpf_us");
	/* the old view: what it showed does not matter, the new one replaces it */
	exec_ok(db, "CREATE VIEW samples AS SELECT f.pass FROM sample_facts f");
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	exec_ok(db, sql);
	sqlite3_close(db);
	free(path);
	return dir;
}

static void a_reader_upgrades_a_copy(void **state)
{
	for (int version = 5; version <= 9; version++) {
		char *dir = old_hour(version), *path = hour_file(dir);
		sqlite3 *db, *file;

		(void)state;
		assert_int_equal(store_open_file(path, &db), 0);
		/* 10 passes in the first hour: spin and db in each, a"b in five, x\033y in one */
		assert_int_equal(one_int(db, "SELECT count(*) FROM samples"), 26);
		holds_old_traces(db, "samples", version);
		assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE file = '" FIXTURE_FILE "'"), 10);
		/* the passes' BPF time was not measured then: NULL, not 0 */
		assert_int_equal(one_int(db, "SELECT count(*) FROM passes WHERE bpf_us IS NULL"), 10);
		if (version <= 8)
			holds_old_named_rows(db, NULL);
		sqlite3_close(db);
		/* attached, as tract query --sql reads hours */
		{
			struct store_reader r;
			sqlite3 *mem;

			assert_int_equal(store_reader__open(dir, &r), 0);
			assert_int_equal(sqlite3_open(":memory:", &mem), SQLITE_OK);
			assert_int_equal(store_reader__attach_hour(&r, 0, mem, "src"), 0);
			holds_old_traces(mem, "src.samples", version);
			assert_int_equal(one_int(mem, "SELECT count(*) FROM src.passes WHERE bpf_us IS NULL"), 10);
			if (version <= 8)
				holds_old_named_rows(mem, "src");
			sqlite3_close(mem);
			store_reader__free(&r);
		}
		/* and the file is as it was */
		assert_int_equal(sqlite3_open(path, &file), SQLITE_OK);
		assert_int_equal(one_int(file, "PRAGMA user_version"), version);
		sqlite3_close(file);
		free(path);
		fixture_remove(dir);
	}
}

/*
 * Schema 10 differs from 11 only in how long times are kept, and both
 * from 12 in sample_blockers: read through an upgraded copy, the times of
 * its samples the same, and no sample blocked.
 */
static void a_reader_reads_schema_10_with_its_times(void **state)
{
	char *dir = fixture_dir(), *path;
	sqlite3 *db;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(fixture_store(store_sqlite__open, dir), 0);
	path = hour_file(dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_ok(db, "UPDATE sample_facts SET state_us = 9000123 WHERE thread = 1; PRAGMA user_version = 10");
	sqlite3_close(db);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(one_int(db, "PRAGMA user_version"), TRACT_SCHEMA_VERSION);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE state_us = 9000123"), 10);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE blocker_tid IS NOT NULL"), 0);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

/*
 * Schema 12 has no process titles: a reader reads it through an upgraded
 * copy, every title NULL, and a recorder that goes on writing it adds them.
 */
static void a_schema_12_hour_gets_titles(void **state)
{
	char *dir = fixture_dir(), *path;
	struct store_config cfg = { .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US + 3000000, .weight_us = 1000000, .visited = 1 };
	struct sink *s;
	sqlite3 *db;

	(void)state;
	assert_non_null(dir);
	cfg.dir = dir;
	assert_int_equal(fixture_store(store_sqlite__open, dir), 0);
	path = hour_file(dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	/* as schema 12 made it (SQLite's DROP COLUMN trips on the comments in the table's SQL) */
	exec_ok(db, "DROP VIEW samples; CREATE TABLE old AS SELECT id, tid, tgid, comm, pcomm, exe, uid, cgroup FROM threads;"
		    "DROP TABLE threads; ALTER TABLE old RENAME TO threads; PRAGMA user_version = 12");
	sqlite3_close(db);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples"), 26);
	assert_int_equal(one_int(db, "SELECT count(title) FROM samples"), 0);
	sqlite3_close(db);
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	fixture_row(&p, 9, "postgres", TRACT_STATE_SLEEP, 0)->title = "postgres: checkpointer";
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(one_int(db, "PRAGMA user_version"), TRACT_SCHEMA_VERSION);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE title = 'postgres: checkpointer'"), 1);
	assert_int_equal(one_int(db, "SELECT count(title) FROM samples"), 1);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

/*
 * A 14 hour: read as it is, its passes' input changes 0 and their stop
 * NULL (16's: nothing said); a recorder that goes on adds them.
 */
static void a_schema_14_hour_is_read_as_it_is(void **state)
{
	char *dir = fixture_dir(), *path;
	struct store_config cfg = { .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US + 3000000, .weight_us = 1000000, .visited = 1,
			  .input_gained_us = 5 };
	struct sink *s;
	sqlite3 *db;

	(void)state;
	assert_non_null(dir);
	cfg.dir = dir;
	assert_int_equal(fixture_store(store_sqlite__open, dir), 0);
	path = hour_file(dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	old_wait_ends(db, 14);
	exec_ok(db, "DROP VIEW samples; CREATE TABLE old AS SELECT id, ts_us, weight_us, visited, emitted, dropped, duration_us, cpu_us, "
		    "hist_lost, displaced, unsampled_us, load_rows, moment_read, bpf_us, run_rows, steal_us, run_steal_us, "
		    "input_rows FROM passes; DROP TABLE passes; ALTER TABLE old RENAME TO passes; PRAGMA user_version = 14");
	exec_ok(db, schema_view_sql());
	sqlite3_close(db);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes WHERE input_gained_us = 0 AND input_lost_us = 0"), 10);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes WHERE stop IS NULL"), 10);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples"), 26);
	sqlite3_close(db);
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	fixture_row(&p, 9, "postgres", TRACT_STATE_SLEEP, 0);
	p.stop = "duration";
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(one_int(db, "PRAGMA user_version"), TRACT_SCHEMA_VERSION);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes"), 11);
	assert_int_equal(one_int(db, "SELECT sum(input_gained_us) FROM passes"), 5);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes WHERE stop = 'duration'"), 1);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

/*
 * A 16 hour's ended waits, whole in each row of its wait_ends table: a
 * reader reads them as they are, and a recorder that goes on keeps them
 * and its own each ender once and times from the pass, the view the same.
 */
static void a_schema_16_hour_keeps_its_wait_ends(void **state)
{
	char *dir = fixture_dir(), *path, *rows;
	struct store_config cfg = { .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US + 3000000, .weight_us = 1000000, .visited = 1 };
	struct sink *s;
	sqlite3 *db;

	(void)state;
	assert_non_null(dir);
	cfg.dir = dir;
	assert_int_equal(fixture_store(store_sqlite__open, dir), 0);
	path = hour_file(dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	old_wait_ends(db, 16);
	exec_ok(db, "PRAGMA user_version = 16");
	sqlite3_close(db);
	assert_int_equal(store_open_file(path, &db), 0);
	holds_old_wait_ends(db, "wait_ends");
	sqlite3_close(db);
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	fixture_row(&p, 9, "postgres", TRACT_STATE_SLEEP, 0);
	*wait_end_rows__add(&p.wait_ends) = (struct wait_end_row){ .tid = 7, .tgid = 100, .start_us = p.ts_us - 400,
								   .end_us = p.ts_us - 4, .ender_tid = 8,
								   .ender_tgid = 100, .ender = "kicker",
								   .wait_class = "blocked" };
	*wait_end_rows__add(&p.wait_ends) = p.wait_ends.rows[0];
	p.wait_ends.rows[1].tid = 10;
	*wait_end_rows__add(&p.wait_ends) = (struct wait_end_row){ .tid = 9, .tgid = 100, .start_us = p.ts_us - 9,
								   .end_us = p.ts_us - 8, .ender = "timer",
								   .wait_class = "sleeping" };
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(one_int(db, "PRAGMA user_version"), TRACT_SCHEMA_VERSION);
	holds_old_wait_ends(db, "wait_ends");
	rows = dump(db, "SELECT w.pass, tid, p.ts_us - start_us, p.ts_us - end_us, ender_tid, ender, wait_class "
			"FROM wait_ends w JOIN passes p ON p.id = w.pass WHERE w.pass = 11 ORDER BY tid");
	assert_string_equal(rows, "11|7|400|4|8|kicker|blocked\n11|9|9|8|NULL|timer|sleeping\n"
				  "11|10|400|4|8|kicker|blocked\n");
	free(rows);
	/* each ender once: the old rows' two, and the two the recorder wrote (it stores again what it finds) */
	assert_int_equal(one_int(db, "SELECT count(*) FROM enders"), 4);
	assert_int_equal(one_int(db, "SELECT count(DISTINCT ender) FROM wait_end_facts WHERE pass = 11"), 2);
	assert_int_equal(one_int(db, "SELECT max(abs(start_before_us)) FROM wait_end_facts"), 2500000);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

static void the_recorder_upgrades_in_place(void **state)
{
	char *dir = old_hour(7), *path = hour_file(dir);
	struct store_config cfg = { .dir = dir, .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US + 3000000, .weight_us = 1000000, .visited = 1, .bpf_us = 77,
			  .has_bpf_us = 1 };
	struct sample *r;
	struct sink *s;
	sqlite3 *db;

	(void)state;
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	r = fixture_row(&p, 9, "traced", TRACT_STATE_SLEEP, 0);
	r->flags |= TRACT_SF_TRACE;
	r->trace_id[15] = 1;
	r->span_id[7] = 2;
	r->trace_flags = 1;
	r->trace_attrs = "http.route=/a";
	/* a second thread of the same request: the same context, one row of traces */
	*fixture_row(&p, 10, "traced2", TRACT_STATE_SLEEP, 0) = *r;
	p.rows[1].tid = 10;
	*hist_rows__add(&p.sc_hist) = (struct hist_row){ .tgid = 100, .name = "db", .what = "fsync", .le_us = 64,
							 .count = 1, .sum_us = 40 };
	*hist_rows__add(&p.sc_hist) = (struct hist_row){ .tgid = 101, .name = "x", .what = "frobnicate", .le_us = 2,
							 .count = 1, .sum_us = 1 };
	*wakeup_rows__add(&p.wakeups) = (struct wakeup_row){ .waker_tgid = 0, .wakee_tgid = 100, .waker = "timer",
							     .wakee = "db", .count = 2, .runq_us = 3, .blocked_us = 4 };
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(one_int(db, "PRAGMA user_version"), TRACT_SCHEMA_VERSION);
	/* the old rows as they were, the new pass's after them: an unknown name gets a number of its own */
	{
		char *rows = dump(db, "SELECT * FROM syscall_latency WHERE pass = 11 ORDER BY le_us");

		assert_string_equal(rows, "11|101|x|frobnicate|2|1|1\n11|100|db|fsync|64|1|40\n");
		free(rows);
		rows = dump(db, "SELECT * FROM wakeups WHERE pass = 11");
		assert_string_equal(rows, "11|NULL|timer|100|db|2|3|4\n");
		free(rows);
		exec_ok(db, "DELETE FROM syscall_latency_facts WHERE pass = 11; DELETE FROM wakeup_facts WHERE pass = 11");
		holds_old_named_rows(db, NULL);
	}
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples"), 28);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE trace_attrs = 'http.route=/a' AND trace_flags = 1 "
				     "AND trace_id = '00000000000000000000000000000001' AND span_id = '0000000000000002'"), 2);
	assert_int_equal(one_int(db, "SELECT count(*) FROM traces WHERE trace_id = '00000000000000000000000000000001'"), 1);
	holds_old_traces(db, "samples", 7);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes"), 11);
	assert_int_equal(one_int(db, "SELECT count(bpf_us) FROM passes"), 1);
	assert_int_equal(one_int(db, "SELECT bpf_us FROM passes WHERE bpf_us IS NOT NULL"), 77);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

static void older_hours_are_refused_by_name(void **state)
{
	char *dir = old_hour(5), *path = hour_file(dir);
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec_ok(db, "PRAGMA user_version = 4");
	sqlite3_close(db);
	tract_hold_errors(1);
	assert_int_equal(store_open_file(path, &db), -EIO);
	tract_hold_errors(0);
	assert_non_null(strstr(tract_last_error(), "schema version 4; this tract reads versions 5 to"));
	free(path);
	fixture_remove(dir);
}

/* The hour's file of this suffix without its last columns: the header ends in names, each row in rest. */
static void cut_csv_columns(const char *dir, const char *suffix, const char *names, const char *rest)
{
	char *path = store_hour_path(dir, FIXTURE_FIRST_US, suffix), line[4096], tmp[256];
	FILE *in, *out;

	snprintf(tmp, sizeof(tmp), "%s.old", path);
	in = fopen(path, "r");
	out = fopen(tmp, "w");
	assert_non_null(in);
	assert_non_null(out);
	for (int first = 1; fgets(line, sizeof(line), in); first = 0) {
		char *end = line + strlen(line);
		const char *cut = first ? names : rest;

		while (end > line && (end[-1] == '\n' || end[-1] == '\r'))
			end--;
		assert_true((size_t)(end - line) >= strlen(cut));
		assert_memory_equal(end - strlen(cut), cut, strlen(cut));
		fprintf(out, "%.*s\r\n", (int)(end - line - (long)strlen(cut)), line);
	}
	fclose(in);
	fclose(out);
	assert_int_equal(rename(tmp, path), 0);
	free(path);
}

/*
 * The fixture's first CSV hour as schema 6 had it: the samples without
 * their last columns (empty in the fixture's rows), the passes without
 * bpf_us (empty: not measured) and the columns after it.
 */
static char *old_csv_hour(void)
{
	char *dir = fixture_dir();

	assert_non_null(dir);
	assert_int_equal(fixture_store(store_csv__open, dir), 0);
	cut_csv_columns(dir, HOUR_CSV_SUFFIX,
			",trace_flags,trace_attrs,blocker_tid,chain_root_tid,chain_len,chain_cycle,steal_us,wait_class_id,title",
			",,,,,,,,,");
	cut_csv_columns(dir, ".passes.csv", ",bpf_us,run_rows,steal_us,run_steal_us,input_rows,input_gained_us,input_lost_us,stop",
			",,1,0,0,0,0,0,");
	return dir;
}

static void a_csv_hour_an_older_tract_began_goes_on(void **state)
{
	char *dir = old_csv_hour();
	struct store_config cfg = { .dir = dir, .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US + 3000000, .weight_us = 1000000, .visited = 1, .bpf_us = 77,
			  .has_bpf_us = 1 };
	char *passes = store_hour_path(dir, FIXTURE_FIRST_US, ".passes.csv"), header[256];
	struct sample *r;
	struct sink *s;
	sqlite3 *db;
	FILE *f;

	(void)state;
	/* read as it is: the columns it lacks are NULL */
	assert_int_equal(store_csv__load_hour(dir, FIXTURE_FIRST_US, &db), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE trace_attrs IS NULL AND trace_flags IS NULL"), 26);
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes WHERE bpf_us IS NULL"), 10);
	sqlite3_close(db);
	/* and a recorder appends to it with its own columns */
	assert_int_equal(store_csv__open(&cfg, &s), 0);
	r = fixture_row(&p, 9, "traced", TRACT_STATE_SLEEP, 0);
	r->flags |= TRACT_SF_TRACE;
	r->trace_id[15] = 1;
	r->trace_flags = 1;
	r->trace_attrs = "http.route=/a b";
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	assert_int_equal(store_csv__load_hour(dir, FIXTURE_FIRST_US, &db), 0);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples"), 27);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE trace_attrs = 'http.route=/a b' AND trace_flags = 1"), 1);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE comm = 'a\"b' AND file IS NULL"), 5);
	assert_int_equal(one_int(db, "SELECT count(*) FROM samples WHERE file = '" FIXTURE_FILE "'"), 10);
	/* its passes.csv made over too: the old passes not measured, the new one's time under its own header */
	assert_int_equal(one_int(db, "SELECT count(*) FROM passes"), 11);
	assert_int_equal(one_int(db, "SELECT count(bpf_us) FROM passes"), 1);
	assert_int_equal(one_int(db, "SELECT bpf_us FROM passes WHERE bpf_us IS NOT NULL"), 77);
	sqlite3_close(db);
	f = fopen(passes, "r");
	assert_non_null(f);
	assert_non_null(fgets(header, sizeof(header), f));
	fclose(f);
	assert_non_null(strstr(header, ",moment_read,bpf_us,run_rows,steal_us,run_steal_us,input_rows,input_gained_us,"
				       "input_lost_us,stop\r\n"));
	free(passes);
	fixture_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_reader_upgrades_a_copy),
		cmocka_unit_test(a_reader_reads_schema_10_with_its_times),
		cmocka_unit_test(a_schema_12_hour_gets_titles),
		cmocka_unit_test(a_schema_14_hour_is_read_as_it_is),
		cmocka_unit_test(a_schema_16_hour_keeps_its_wait_ends),
		cmocka_unit_test(the_recorder_upgrades_in_place),
		cmocka_unit_test(older_hours_are_refused_by_name),
		cmocka_unit_test(a_csv_hour_an_older_tract_began_goes_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
