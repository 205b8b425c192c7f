// SPDX-License-Identifier: GPL-2.0-only
/*
 * query --sql over a store of known truth: it reads and nothing else (no
 * PRAGMA but those that describe tables, no ATTACH, no setting changed),
 * within a time and a row limit, and what it prints reaches a terminal or
 * a spreadsheet with no control and no formula in it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "clock.h"
#include "rawsql.h"
#include "util.h"
#include "../store_fixture.h"

static const uint64_t all_from = FIXTURE_FIRST_US, all_to = FIXTURE_FIRST_US + 20 * 1000000ull;

/* The SQL's answer in format, within lim; its error in *err. */
static char *sql_with(const char *sql, enum render_format format, const struct rawsql_limits *lim, int *err)
{
	struct store_reader set;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	*err = rawsql_run_with(&set, all_from, all_to, 1, sql, format, lim, f);
	fclose(f);
	store_reader__free(&set);
	return buf;
}

static char *sql(const char *text, enum render_format format, int *err)
{
	static const struct rawsql_limits defaults = { RAWSQL_TIMEOUT_S, RAWSQL_MAX_ROWS };

	return sql_with(text, format, &defaults, err);
}

static int refused(const char *text)
{
	int err;

	free(sql(text, RENDER_TABLE, &err));
	return err == -EINVAL;
}

static void it_reads(void **state)
{
	int err;
	char *t = sql("SELECT count(*) AS n FROM samples", RENDER_CSV, &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_string_equal(t, "n\r\n51\r\n");
	free(t);
}

/* Not one pragma that runs or sets anything, on the copy or a file: only those that describe tables. */
static void pragmas_only_describe(void **state)
{
	static const char *const no[] = {
		"PRAGMA optimize", "PRAGMA shrink_memory", "PRAGMA wal_checkpoint", "PRAGMA wal_checkpoint(TRUNCATE)",
		"PRAGMA integrity_check", "PRAGMA query_only = 0", "PRAGMA query_only", "PRAGMA writable_schema = 1",
		"PRAGMA journal_mode", "PRAGMA incremental_vacuum", "PRAGMA temp_store_directory = '/tmp'",
		"SELECT * FROM pragma_integrity_check",
	};
	int err;
	char *t;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		t = sql(no[i], RENDER_TABLE, &err);
		if (err != -EINVAL)
			fail_msg("%s: %d, '%s'", no[i], err, t);
		free(t);
	}
	assert_false(refused("PRAGMA table_info(samples)"));
	assert_false(refused("SELECT m.name, count(*) FROM sqlite_master m JOIN pragma_table_info(m.name) GROUP BY 1"));
}

static void nothing_but_reading(void **state)
{
	(void)state;
	assert_true(refused("DELETE FROM samples"));
	assert_true(refused("UPDATE samples SET tid = 0"));
	assert_true(refused("CREATE TEMP TABLE t(a)"));
	assert_true(refused("ANALYZE"));
	assert_true(refused("ATTACH ':memory:' AS x"));
	assert_true(refused("DETACH main"));
	assert_true(refused("VACUUM INTO '/tmp/tract-rawsql-vacuum.db'"));
	assert_true(refused("BEGIN IMMEDIATE"));
	assert_true(refused("SELECT 1; PRAGMA optimize"));
	assert_true(refused("SELECT load_extension('libnone.so')"));
}

/* The store's files are as they were: the SQL never reached them, nor the reader. */
static void the_files_stay_as_they_were(void **state)
{
	struct stat before, after;
	struct store_reader set;
	char *path;
	int err;

	(void)state;
	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	path = store_reader__hour_name(&set, 0);
	store_reader__free(&set);
	assert_int_equal(stat(path, &before), 0);
	free(sql("SELECT count(*) FROM samples, passes", RENDER_TABLE, &err));
	assert_int_equal(err, 0);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
	/* nor a WAL of the reader's left beside it (root's, in a recorder's directory) */
	for (const char *const *end = (const char *const[]){ "-wal", "-shm", NULL }; *end; end++) {
		char name[512];

		snprintf(name, sizeof(name), "%s%s", path, *end);
		assert_int_equal(stat(name, &after), -1);
	}
	free(path);
}

/* A recursion without end stops at the time limit, a runtime error. */
static void a_query_stops_at_its_time_limit(void **state)
{
	struct rawsql_limits lim = { .timeout_s = 1 };
	uint64_t t0 = mono_ns();
	int err;
	char *t = sql_with("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
			   RENDER_TABLE, &lim, &err);

	(void)state;
	assert_int_equal(err, -ETIME);
	assert_true(mono_ns() - t0 < 10 * 1000000000ull);
	free(t);
}

/* An answer of more rows than the limit: the rows up to it, then a runtime error. */
static void an_answer_stops_at_its_row_limit(void **state)
{
	struct rawsql_limits lim = { .max_rows = 3 };
	int err;
	char *t = sql_with("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
			   RENDER_CSV, &lim, &err);

	(void)state;
	assert_int_equal(err, -EFBIG);
	assert_string_equal(t, "x\r\n1\r\n2\r\n3\r\n");
	free(t);
	lim.max_rows = 51;
	free(sql_with("SELECT * FROM samples", RENDER_CSV, &lim, &err));
	assert_int_equal(err, 0);
}

/* A hostile thread name: no escape reaches the terminal, in the table or in CSV; no formula the spreadsheet. */
static void names_print_safely(void **state)
{
	int err;
	char *t = sql("SELECT DISTINCT comm FROM samples WHERE tid = 4", RENDER_TABLE, &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_string_equal(t, "comm\nx?y\n");
	free(t);
	t = sql("SELECT DISTINCT comm FROM samples WHERE tid = 4", RENDER_CSV, &err);
	assert_string_equal(t, "comm\r\nx\\x1by\r\n");
	free(t);
	t = sql("SELECT '=1+2' AS \"=h\", -5 AS n, 1.5 AS r, '-5' AS t, '@x' AS a, 'a' || char(10) || 'b' AS nl",
		RENDER_CSV, &err);
	assert_int_equal(err, 0);
	assert_string_equal(t, "'=h,n,r,t,a,nl\r\n'=1+2,-5,1.5,'-5,'@x,a\\x0ab\r\n");
	free(t);
	t = sql("SELECT 'a' || char(27) || '[2J' AS \"b\x1b[H\"", RENDER_TABLE, &err);
	assert_string_equal(t, "b?[H\na?[2J\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(it_reads),
		cmocka_unit_test(pragmas_only_describe),
		cmocka_unit_test(nothing_but_reading),
		cmocka_unit_test(the_files_stay_as_they_were),
		cmocka_unit_test(a_query_stops_at_its_time_limit),
		cmocka_unit_test(an_answer_stops_at_its_row_limit),
		cmocka_unit_test(names_print_safely),
	};

	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
