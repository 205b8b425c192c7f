// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hour-file layout at an hour's edge, from fixed times: passes either
 * side of midnight go to two files named for their UTC hours (and days),
 * the reader lists both in order and reads each back, in both formats, and
 * removing a store removes every file of it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "hours.h"
#include "reader.h"
#include "sink.h"

/* 2026-11-30 23:59:58.500 UTC, and a pass a second from there */
#define BEFORE_MIDNIGHT_US 1796083198500000ull

static void write_passes(int (*open)(const struct store_config *, struct sink **), const char *dir)
{
	struct store_config cfg = { .dir = dir, .frequency_hz = 1, .source = "test", .gid = -1 };
	struct sink *s;

	assert_int_equal(open(&cfg, &s), 0);
	for (int i = 0; i < 4; i++) {
		struct pass p = { .seq = (uint64_t)i, .ts_us = BEFORE_MIDNIGHT_US + (uint64_t)i * 1000000,
				  .weight_us = 1000000, .visited = 1 };
		struct sample *r = pass__add_row(&p);

		*r = (struct sample){ .tid = 1, .tgid = 1, .state = TRACT_STATE_RUN, .syscall_nr = -1 };
		memcpy(r->comm, "t", 2);
		assert_int_equal(sink__write_pass(s, &p), 0);
		pass__free_rows(&p);
	}
	sink__close(s);
}

static int exists(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st);
}

static void two_hours_either_side_of_midnight(int (*open)(const struct store_config *, struct sink **),
					      const char *suffix)
{
	char dir[] = "/tmp/tract-hours-XXXXXX", name[64];
	struct store_reader r;

	assert_non_null(mkdtemp(dir));
	write_passes(open, dir);
	snprintf(name, sizeof(name), "tract-20261130-23%s", suffix);
	assert_true(exists(dir, name));
	snprintf(name, sizeof(name), "tract-20261201-00%s", suffix);
	assert_true(exists(dir, name));

	assert_int_equal(store_reader__open(dir, &r), 0);
	assert_int_equal(r.n, 2);
	assert_true(r.hours[0].hour_us == 1796083200000000ull - 3600000000ull);
	assert_true(r.hours[1].hour_us == 1796083200000000ull);
	for (size_t i = 0; i < 2; i++) {
		sqlite3 *db;
		sqlite3_stmt *st;

		assert_int_equal(store_reader__open_hour(&r, i, &db), 0);
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), min(ts_us) FROM samples", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		/* two passes each side, each in its own hour */
		assert_int_equal(sqlite3_column_int64(st, 0), 2);
		assert_true((uint64_t)sqlite3_column_int64(st, 1) / 3600000000ull == r.hours[i].hour_us / 3600000000ull);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	uint64_t newest;
	assert_int_equal(store_reader__newest_us(&r, &newest), 0);
	assert_true(newest == BEFORE_MIDNIGHT_US + 3000000);
	store_reader__free(&r);

	store_hours_remove_all(dir);
	assert_false(exists(dir, ""));
}

static void sqlite_hours_either_side_of_midnight(void **state)
{
	(void)state;
	two_hours_either_side_of_midnight(store_sqlite__open, ".db");
}

static void csv_hours_either_side_of_midnight(void **state)
{
	(void)state;
	two_hours_either_side_of_midnight(store_csv__open, ".samples.csv");
}

static void names_and_hours(void **state)
{
	const char *suffix;
	char *path = store_hour_path("/d", BEFORE_MIDNIGHT_US, ".db");

	(void)state;
	assert_string_equal(path, "/d/tract-20261130-23.db");
	free(path);
	assert_true(store_hour_of_name("tract-20261201-00.samples.csv", &suffix) == 1796083200000000ull);
	assert_string_equal(suffix, ".samples.csv");
	assert_true(store_hour_of_name("tract-20261301-00.db", &suffix) == 0);
	assert_true(store_hour_of_name("tract-20261201-24.db", &suffix) == 0);
	assert_true(store_hour_of_name("other-20261201-00.db", &suffix) == 0);
	assert_true(store_hour_overlaps(1796083200000000ull, 1796083200000000ull - 1, 1796083200000000ull + 1));
	assert_false(store_hour_overlaps(1796083200000000ull, 0, 1796083200000000ull));
}

/*
 * A reader beside the writer never finds a new hour empty: the file is made
 * with its schema under another name, and the listing does not take that
 * name for an hour.
 */
static void an_hour_being_made_is_not_listed(void **state)
{
	char dir[] = "/tmp/tract-hours-XXXXXX", path[128];
	struct store_reader r;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tract-20261130-23.db.new", dir);
	assert_non_null(f = fopen(path, "w"));
	fclose(f);
	assert_int_equal(store_reader__open(dir, &r), 0);
	assert_int_equal(r.n, 0);
	store_reader__free(&r);
	/* and what the writer leaves is the hour, with its schema, and no such name */
	write_passes(store_sqlite__open, dir);
	assert_false(exists(dir, "tract-20261201-00.db.new"));
	assert_int_equal(store_reader__open(dir, &r), 0);
	assert_int_equal(r.n, 2);
	store_reader__free(&r);
	unlink(path);
	store_hours_remove_all(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_hours),
		cmocka_unit_test(sqlite_hours_either_side_of_midnight),
		cmocka_unit_test(csv_hours_either_side_of_midnight),
		cmocka_unit_test(an_hour_being_made_is_not_listed),
	};
	return cmocka_run_group_tests_name("hours", tests, NULL, NULL);
}
