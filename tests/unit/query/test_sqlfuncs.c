// SPDX-License-Identifier: GPL-2.0-only
/* The SQL functions queries group and filter by, on the values a store really holds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "sqlfuncs.h"
#include "util.h"

static sqlite3 *db;

static int setup(void **state)
{
	(void)state;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return -1;
	return sqlfuncs_register(db);
}

static int teardown(void **state)
{
	(void)state;
	return sqlite3_close(db) == SQLITE_OK ? 0 : -1;
}

/* The first column of the first row as text: "NULL" for NULL, "error: ..." when SQLite fails. */
static const char *eval(const char *sql)
{
	static char out[512];
	sqlite3_stmt *stmt;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
		return out;
	}
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) == SQLITE_NULL)
		snprintf(out, sizeof(out), "NULL");
	else if (rc == SQLITE_ROW)
		snprintf(out, sizeof(out), "%s", sqlite3_column_text(stmt, 0));
	else
		snprintf(out, sizeof(out), "error: %s", sqlite3_errmsg(db));
	sqlite3_finalize(stmt);
	return out;
}

/* f applied to one text argument, with the argument bound rather than quoted */
static const char *call(const char *f, const char *arg)
{
	static char out[512];
	char sql[64];
	sqlite3_stmt *stmt;

	snprintf(sql, sizeof(sql), "SELECT %s(?)", f);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK);
	if (arg)
		sqlite3_bind_text(stmt, 1, arg, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
	if (sqlite3_column_type(stmt, 0) == SQLITE_NULL)
		snprintf(out, sizeof(out), "NULL");
	else
		snprintf(out, sizeof(out), "%s", sqlite3_column_text(stmt, 0));
	sqlite3_finalize(stmt);
	return out;
}

static void regexp_matches_extended_patterns(void **state)
{
	(void)state;
	assert_string_equal(eval("SELECT 'kworker/1:2' REGEXP '^kworker/[0-9]+:[0-9]+$'"), "1");
	assert_string_equal(eval("SELECT 'xabcx' REGEXP 'abc'"), "1");
	assert_string_equal(eval("SELECT 'abc' REGEXP '^b'"), "0");
	assert_string_equal(eval("SELECT 'read' REGEXP '^(p?read|write)(64)?$'"), "1");
	assert_string_equal(eval("SELECT 'pread64' REGEXP '^(p?read|write)(64)?$'"), "1");
	assert_string_equal(eval("SELECT 'readv' REGEXP '^(p?read|write)(64)?$'"), "0");
	assert_string_equal(eval("SELECT regexp('a+', 'caaat')"), "1");
	assert_string_equal(eval("SELECT 'a.b' REGEXP 'a\\.b'"), "1");
	assert_string_equal(eval("SELECT 'axb' REGEXP 'a\\.b'"), "0");
	/* matching is case-sensitive, as everywhere else in SQL */
	assert_string_equal(eval("SELECT 'DISK' REGEXP 'disk'"), "0");
	assert_string_equal(eval("SELECT NULL REGEXP 'a'"), "NULL");
	assert_string_equal(eval("SELECT 'a' REGEXP NULL"), "NULL");
	assert_string_equal(eval("SELECT 12345 REGEXP '^[0-9]+$'"), "1");
}

static void regexp_reports_bad_patterns(void **state)
{
	const char *prefix = "error: invalid regular expression: ";
	const char *out;

	(void)state;
	out = eval("SELECT 'a' REGEXP '('");
	assert_memory_equal(out, prefix, strlen(prefix));
	assert_true(strlen(out) > strlen(prefix));
	out = eval("SELECT 'a' REGEXP 'a{2,1}'");
	assert_memory_equal(out, prefix, strlen(prefix));
	/* a NULL value is NULL before the pattern is looked at */
	assert_string_equal(eval("SELECT NULL REGEXP '('"), "NULL");
}

/*
 * The compiled pattern is cached per statement; a pattern that changes from
 * row to row must not be served from the cache.
 */
static void regexp_cache_follows_the_pattern(void **state)
{
	static const char sql[] =
		"WITH t(id, pattern, value) AS (VALUES "
		"(1, '^a', 'abc'), (2, '^b', 'abc'), (3, 'c$', 'abc'), (4, '^a', 'xbc'), (5, '^a', 'abc'))"
		"SELECT group_concat(id || ':' || (value REGEXP pattern), ' ') FROM (SELECT * FROM t ORDER BY id)";
	sqlite3_stmt *stmt;
	int matches = 0;

	(void)state;
	assert_string_equal(eval(sql), "1:1 2:0 3:1 4:0 5:1");
	/* a bound pattern, reused over many rows */
	assert_int_equal(sqlite3_prepare_v2(db,
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
		"SELECT count(*) FROM n WHERE ('kworker/' || i || ':0') REGEXP ?", -1, &stmt, NULL), SQLITE_OK);
	for (int round = 0; round < 2; round++) {
		sqlite3_reset(stmt);
		sqlite3_bind_text(stmt, 1, round ? "/[0-9]:" : "/1[0-9]*:", -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		matches = sqlite3_column_int(stmt, 0);
		/* 1, 10-19, 100-199, 1000: 112; then 1-9: 9 */
		assert_int_equal(matches, round ? 9 : 112);
	}
	sqlite3_finalize(stmt);
}

static void fold_digits_folds_runs(void **state)
{
	(void)state;
	assert_string_equal(call("fold_digits", "kworker/1:2"), "kworker/*:*");
	assert_string_equal(call("fold_digits", "kworker/u16:0-events_unbound"), "kworker/u*:*-events_unbound");
	/* running (+) or idle (-), a kernel worker is one group */
	assert_string_equal(call("fold_digits", "kworker/u8:3+ext4-rsv-conversion"), "kworker/u*:*-ext*-rsv-conversion");
	assert_string_equal(call("fold_digits", "kworker/u8:3-ext4-rsv-conversion"), "kworker/u*:*-ext*-rsv-conversion");
	assert_string_equal(call("fold_digits", "a+b"), "a+b");
	assert_string_equal(call("fold_digits", "php-fpm7"), "php-fpm*");
	assert_string_equal(call("fold_digits", "php-fpm12345"), "php-fpm*");
	assert_string_equal(call("fold_digits", "a12b345c6"), "a*b*c*");
	assert_string_equal(call("fold_digits", "123"), "*");
	assert_string_equal(call("fold_digits", "postgres"), "postgres");
	assert_string_equal(call("fold_digits", ""), "");
	assert_string_equal(call("fold_digits", "caf\xc3\xa9" "42"), "caf\xc3\xa9*");
	assert_string_equal(call("fold_digits", NULL), "NULL");
	assert_string_equal(eval("SELECT fold_digits(4096)"), "*");
}

static void dir_name_of_paths_only(void **state)
{
	(void)state;
	assert_string_equal(call("dir_name", "/var/lib/x.db"), "/var/lib");
	assert_string_equal(call("dir_name", "/x"), "/");
	assert_string_equal(call("dir_name", "/"), "/");
	assert_string_equal(call("dir_name", "//x"), "/");
	assert_string_equal(call("dir_name", "/a//b"), "/a");
	assert_string_equal(call("dir_name", "/a/b/"), "/a");
	assert_string_equal(call("dir_name", "/tmp/x.log (deleted)"), "/tmp");
	assert_string_equal(call("dir_name", "tcp 127.0.0.1:5->10.0.0.2:80 ESTABLISHED"),
			    "tcp 127.0.0.1:5->10.0.0.2:80 ESTABLISHED");
	assert_string_equal(call("dir_name", "pipe:[123]"), "pipe:[123]");
	assert_string_equal(call("dir_name", "unix /run/x.sock"), "unix /run/x.sock");
	assert_string_equal(call("dir_name", "a/b"), "a/b");
	assert_string_equal(call("dir_name", ""), "");
	assert_string_equal(call("dir_name", NULL), "NULL");
	assert_string_equal(eval("SELECT typeof(dir_name(42))"), "integer");
}

static void file_ext_of_the_last_component(void **state)
{
	(void)state;
	assert_string_equal(call("file_ext", "/a/b.tar.gz"), "gz");
	assert_string_equal(call("file_ext", "/var/lib/pg/base/1.dat"), "dat");
	assert_string_equal(call("file_ext", "/x.C"), "C");
	assert_string_equal(call("file_ext", "/a/.bashrc"), "NULL");
	assert_string_equal(call("file_ext", "/a/b"), "NULL");
	assert_string_equal(call("file_ext", "/a.d/b"), "NULL");
	assert_string_equal(call("file_ext", "/a/b."), "NULL");
	assert_string_equal(call("file_ext", "/a/b/"), "NULL");
	assert_string_equal(call("file_ext", "/"), "NULL");
	assert_string_equal(call("file_ext", "/tmp/x.log (deleted)"), "log");
	assert_string_equal(call("file_ext", "tcp 127.0.0.1:5->10.0.0.2:80"), "NULL");
	assert_string_equal(call("file_ext", "b.txt"), "NULL");
	assert_string_equal(call("file_ext", ""), "NULL");
	assert_string_equal(call("file_ext", NULL), "NULL");
}

/* The samples' NULLs are unknown times: a read begun before tract started is judged by its time asleep. */
static void activity_takes_null_times_as_unknown(void **state)
{
	(void)state;
	assert_string_equal(eval("select activity('SLEEP', 'read', NULL, 20000000, 'pipe:[7]', 0, 0, NULL, NULL)"),
			    "input");
	assert_string_equal(eval("select activity('SLEEP', 'read', NULL, NULL, 'pipe:[7]', 0, 0, NULL, NULL)"), "waiting");
	assert_string_equal(eval("select activity('SLEEP', 'read', 400, 20000000, 'pipe:[7]', 0, 0, NULL, NULL)"),
			    "waiting");
	assert_string_equal(eval("select activity('RUN', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"), "cpu");
	/* a wait its site's latest end classed blocked, in an idle syscall: blocked */
	assert_string_equal(eval("select activity('SLEEP', 'epoll_wait', 14000000, NULL, NULL, 0, 0, 1, NULL)"),
			    "blocked");
	/* one that has ended is what its ender says, whatever its site said */
	assert_string_equal(eval("select activity('SLEEP', 'epoll_wait', 14000000, NULL, NULL, 0, 0, 1, 'sleeping')"),
			    "sleep");
	assert_string_equal(eval("select activity('SLEEP', 'read', 400, NULL, 'pipe:[7]', 0, 0, NULL, 'blocked')"),
			    "blocked");
	/* a wait for a file lock, fcntl(F_SETLKW) or flock without LOCK_NB: lock, whatever ended it */
	assert_string_equal(eval("select activity('SLEEP', 'fcntl', 400, NULL, NULL, 7, 0, NULL, 'blocked')"), "lock");
	assert_string_equal(eval("select activity('SLEEP', 'flock', 400, NULL, NULL, 2, 0, NULL, NULL)"), "lock");
	assert_string_equal(eval("select activity('SLEEP', 'flock', 400, NULL, NULL, 6, 0, NULL, NULL)"), "waiting");
	assert_string_equal(eval("select activity('SLEEP', 'fcntl', 400, NULL, NULL, 3, 0, NULL, NULL)"), "waiting");
	/* no class it knows (a fleet's '' read as NULL, or a newer one): its site's */
	assert_string_equal(eval("select activity('SLEEP', 'epoll_wait', 14000000, NULL, NULL, 0, 0, 1, 'other')"),
			    "blocked");
	assert_string_equal(eval("select wait_class_name(3)"), "input");
}

static void top_frame_skips_scheduler_plumbing(void **state)
{
	(void)state;
	assert_string_equal(call("top_frame",
		"__schedule+0x2e0/0x8a0\nschedule+0x5e/0xd0\nio_schedule+0x46/0x70\n"
		"folio_wait_bit_common+0x13d/0x350\nfilemap_fault+0xaa/0x600"), "folio_wait_bit_common");
	assert_string_equal(call("top_frame",
		"__schedule+0x1\nschedule+0x2\nschedule_hrtimeout_range_clock+0xb1/0x140\n"
		"schedule_hrtimeout_range+0x13/0x20\ndo_sys_poll+0x4bf/0x5e0"), "do_sys_poll");
	assert_string_equal(call("top_frame",
		"__schedule\nschedule\nschedule_timeout+0x1\nio_schedule_timeout+0x2\nwait_for_completion_io+0x3"),
		"wait_for_completion_io");
	assert_string_equal(call("top_frame",
		"preempt_schedule_common+0x1\n__cond_resched+0x1\nmutex_lock+0x1"), "mutex_lock");
	assert_string_equal(call("top_frame", "preempt_schedule_irq+0x1/0x2\nirqentry_exit+0x1"), "irqentry_exit");
	/* syscall entry points say what was asked for: they are not skipped */
	assert_string_equal(call("top_frame", "__schedule\nschedule\n__x64_sys_pause+0x1"), "__x64_sys_pause");
	/* compiler clones of the scheduler's functions are the scheduler too */
	assert_string_equal(call("top_frame",
		"__schedule.isra.0+0x1\nschedule_timeout.constprop.0+0x1\nwait_for_completion+0x1"),
		"wait_for_completion");
	/* but a function that merely starts like one is not */
	assert_string_equal(call("top_frame", "schedule_tail+0x1\nret_from_fork"), "schedule_tail");
	assert_string_equal(call("top_frame", "futex_wait_queue+0x60/0x90\nfutex_wait+0x1"), "futex_wait_queue");
	assert_string_equal(call("top_frame", "func+0x1a"), "func");
	assert_string_equal(call("top_frame", "ext4_sync_file+0x1/0x2 [ext4]"), "ext4_sync_file");
	assert_string_equal(call("top_frame", "[unknown]"), "[unknown]");
	assert_string_equal(call("top_frame", "__schedule+0x1\r\nio_schedule\r\nblk_mq_get_tag+0x1\r\n"),
			    "blk_mq_get_tag");
}

static void top_frame_edge_cases(void **state)
{
	(void)state;
	/* all plumbing: the innermost frame, rather than nothing */
	assert_string_equal(call("top_frame", "__schedule+0x1/0x2\nschedule+0x1/0x2\n"), "__schedule");
	assert_string_equal(call("top_frame", "\n\nschedule\n"), "schedule");
	assert_string_equal(call("top_frame", "\n\n"), "NULL");
	assert_string_equal(call("top_frame", ""), "NULL");
	assert_string_equal(call("top_frame", NULL), "NULL");
	/* the store's folded stacks: outermost first, ';' between frames */
	assert_string_equal(call("top_frame",
		"entry_SYSCALL_64;do_syscall_64;__x64_sys_futex;futex_wait;schedule;__schedule"), "futex_wait");
	assert_string_equal(call("top_frame", "ret_from_fork;kthread;worker_thread;schedule;__schedule"),
			    "worker_thread");
	assert_string_equal(call("top_frame", "schedule;__schedule"), "__schedule");
	assert_string_equal(call("top_frame", "do_nanosleep"), "do_nanosleep");
}

static void log2_bucket_is_floor_log2(void **state)
{
	(void)state;
	assert_string_equal(eval("SELECT log2_bucket(1)"), "0");
	assert_string_equal(eval("SELECT log2_bucket(2)"), "1");
	assert_string_equal(eval("SELECT log2_bucket(3)"), "1");
	assert_string_equal(eval("SELECT log2_bucket(4)"), "2");
	assert_string_equal(eval("SELECT log2_bucket(1023)"), "9");
	assert_string_equal(eval("SELECT log2_bucket(1024)"), "10");
	assert_string_equal(eval("SELECT log2_bucket(9223372036854775807)"), "62");
	assert_string_equal(eval("SELECT log2_bucket(0)"), "0");
	assert_string_equal(eval("SELECT log2_bucket(-5)"), "0");
	assert_string_equal(eval("SELECT log2_bucket(-9223372036854775808)"), "0");
	assert_string_equal(eval("SELECT log2_bucket(1.5)"), "0");
	assert_string_equal(eval("SELECT log2_bucket(1024.0)"), "10");
	assert_string_equal(eval("SELECT log2_bucket(1023.999)"), "9");
	assert_string_equal(eval("SELECT log2_bucket(0.5)"), "-1");
	assert_string_equal(eval("SELECT log2_bucket(-0.5)"), "0");
	assert_string_equal(eval("SELECT log2_bucket('1024')"), "10");
	assert_string_equal(eval("SELECT log2_bucket('abc')"), "NULL");
	assert_string_equal(eval("SELECT log2_bucket(NULL)"), "NULL");
	assert_string_equal(eval("SELECT typeof(log2_bucket(5))"), "integer");
	assert_string_equal(eval(
		"WITH v(us) AS (VALUES (1), (3), (2), (900), (1000), (1024), (NULL)) "
		"SELECT group_concat(b || 'x' || n, ' ') FROM "
		"(SELECT log2_bucket(us) AS b, count(*) AS n FROM v WHERE us IS NOT NULL GROUP BY b ORDER BY b)"),
		"0x1 1x2 9x2 10x1");
}

/*
 * A local store's activity reads the facts' ids with the file's
 * dimensions in memory (fact_activity); it must say what activity says of
 * the names and values those ids stand for, for every kind of fact: each
 * state, a syscall of each kind (a lock, an idle wait, an input, one the
 * file does not name), a terminal or not, each site class and ended wait,
 * times known, unknown and coarse.
 */
static void fact_activity_says_what_activity_says_of_the_names(void **state)
{
	static const char *const store =
		"CREATE TABLE states (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
		"INSERT INTO states VALUES (0, 'RUN'), (1, 'RUNQ'), (2, 'DISK'), (3, 'SLEEP'), (4, 'STOPPED'),"
		" (5, 'TRACED'), (6, 'ZOMBIE'), (7, 'IDLE'), (8, 'LATER');"
		"CREATE TABLE syscalls (nr INTEGER PRIMARY KEY, name TEXT NOT NULL);"
		"INSERT INTO syscalls VALUES (0, 'read'), (202, 'futex'), (232, 'epoll_wait'), (72, 'fcntl'),"
		" (73, 'flock'), (61, 'wait4'), (64, 'semop'), (500, 'syscall_500');"
		"CREATE TABLE calls (id INTEGER PRIMARY KEY, nr INTEGER NOT NULL, a0, a1, a2, a3, a4, a5);"
		"INSERT INTO calls (id, nr, a1, a2) VALUES (1, 0, 0, 0), (2, 202, 128, 2), (3, 202, 137, 0), (4, 232, 0, 0),"
		" (5, 72, 7, 0), (6, 73, 2, 0), (7, 73, 6, 0), (8, 61, 0, 0), (9, 64, 0, 0), (10, 500, 0, 0), (11, 999, 0, 0);"
		"CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL, dev TEXT);"
		"INSERT INTO files (id, name) VALUES (1, '/dev/pts/3'), (2, 'pipe:[7]'), (3, '/dev/null'), (4, '/dev/tty1');"
		"CREATE TABLE threads (id INTEGER PRIMARY KEY, tid INTEGER NOT NULL);"
		"INSERT INTO threads VALUES (1, 100), (2, 200);"
		"CREATE TABLE wait_ends (tid, start_us, end_us, wait_class);"
		"INSERT INTO wait_ends VALUES (100, 1000, 2000, 'blocked'), (100, 3000, 4000, 'input'),"
		" (200, 1000, 5000, 'sleeping');"
		"CREATE TABLE v (x); INSERT INTO v VALUES (NULL), (1), (2), (3), (4);"
		/* every state and call with every file and site class; times and waits in turn */
		"CREATE TABLE facts AS SELECT s.id AS state, c.id AS call, fl.x AS file, wc.x AS wait_class_id,"
		" t.sc_us, t.state_us, t.thread, t.ts_us"
		" FROM states s, (SELECT id FROM calls UNION ALL SELECT NULL) c, v fl, v wc,"
		" (SELECT NULL AS sc_us, NULL AS state_us, 1 AS thread, 1500 AS ts_us"
		"  UNION ALL SELECT 500, 2000, 1, 2500 UNION ALL SELECT -20000, NULL, 1, 3500"
		"  UNION ALL SELECT NULL, -20000, 2, 100 UNION ALL SELECT 3000, 3000, 2, 4000"
		"  UNION ALL SELECT 9000000, 9000000, NULL, NULL) t;";
	sqlite3 *own = db;
	const char *out;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlfuncs_register(db), 0);
	assert_int_equal(sqlite3_exec(db, store, NULL, NULL, NULL), SQLITE_OK);
#define TIMES_US " CASE WHEN f.sc_us < 0 THEN -1000 * f.sc_us ELSE f.sc_us END," \
		 " CASE WHEN f.state_us < 0 THEN -1000 * f.state_us ELSE f.state_us END,"
	out = eval("SELECT count(*) || ' ' || sum(activity(st.name, sc.name," TIMES_US
		   " fl.name, c.a1, c.a2, f.wait_class_id, ended_wait_class(f.thread, f.ts_us))"
		   " IS NOT fact_activity(f.state, f.call," TIMES_US " f.file, f.wait_class_id, f.thread, f.ts_us))"
		   " FROM facts f LEFT JOIN states st ON st.id = f.state LEFT JOIN calls c ON c.id = f.call"
		   " LEFT JOIN syscalls sc ON sc.nr = c.nr LEFT JOIN files fl ON fl.id = f.file");
	assert_string_equal(out, "16200 0");
	/* and it tells them apart: every activity but none is among them */
	assert_string_equal(eval("SELECT count(DISTINCT fact_activity(f.state, f.call," TIMES_US " f.file,"
				 " f.wait_class_id, f.thread, f.ts_us)) FROM facts f"),
			    "10");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	db = own;
#undef TIMES_US
}

/* Deterministic functions may index: a query can group by them without recomputing. */
static void functions_are_deterministic(void **state)
{
	static const char *const indexes[] = {
		"CREATE INDEX i1 ON f(fold_digits(s))",
		"CREATE INDEX i2 ON f(dir_name(s))",
		"CREATE INDEX i3 ON f(file_ext(s))",
		"CREATE INDEX i4 ON f(top_frame(s))",
		"CREATE INDEX i5 ON f(log2_bucket(n))",
		"CREATE INDEX i6 ON f(regexp('^a', s))",
	};

	(void)state;
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE f(s TEXT, n INTEGER)", NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < ARRAY_SIZE(indexes); i++)
		assert_int_equal(sqlite3_exec(db, indexes[i], NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE f", NULL, NULL, NULL), SQLITE_OK);
	/* registering again replaces, it does not fail */
	assert_int_equal(sqlfuncs_register(db), 0);
	assert_string_equal(eval("SELECT fold_digits('a1')"), "a*");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regexp_matches_extended_patterns),
		cmocka_unit_test(regexp_reports_bad_patterns),
		cmocka_unit_test(regexp_cache_follows_the_pattern),
		cmocka_unit_test(fold_digits_folds_runs),
		cmocka_unit_test(dir_name_of_paths_only),
		cmocka_unit_test(file_ext_of_the_last_component),
		cmocka_unit_test(top_frame_skips_scheduler_plumbing),
		cmocka_unit_test(top_frame_edge_cases),
		cmocka_unit_test(log2_bucket_is_floor_log2),
		cmocka_unit_test(activity_takes_null_times_as_unknown),
		cmocka_unit_test(fact_activity_says_what_activity_says_of_the_names),
		cmocka_unit_test(functions_are_deterministic),
	};
	return cmocka_run_group_tests_name("sqlfuncs", tests, setup, teardown);
}
