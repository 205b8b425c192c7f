// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pass's BPF time keeps "not measured" apart from "free" in both stores:
 * passes written without it, with 0 and with a value read back as NULL, 0
 * and the value from the SQLite file, from passes.csv (an empty field, a
 * 0) and from the CSV hour as queries load it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "csv_reader.h"
#include "hours.h"
#include "reader.h"
#include "sink.h"
#include "../store_fixture.h"

/* passes 0, 1, 2: not measured, measured at 0, measured at 250 us */
#define WANT "NULL,0,250"

static void write_passes(int (*open)(const struct store_config *, struct sink **), const char *dir)
{
	struct store_config cfg = { .dir = dir, .frequency_hz = 10, .source = "test", .gid = -1 };
	struct sink *s;

	assert_int_equal(open(&cfg, &s), 0);
	for (int i = 0; i < 3; i++) {
		struct pass p = { .seq = (uint64_t)i, .ts_us = FIXTURE_FIRST_US + (uint64_t)i * 100000,
				  .weight_us = 100000, .visited = 1, .has_bpf_us = i > 0, .bpf_us = i == 2 ? 250 : 0 };

		fixture_row(&p, 1, "spin", TRACT_STATE_RUN, -1);
		assert_int_equal(sink__write_pass(s, &p), 0);
		pass__free_rows(&p);
	}
	sink__close(s);
}

/* The passes' bpf_us in time order, "NULL" for NULL, comma-separated. */
static void expect_bpf_us(sqlite3 *db)
{
	sqlite3_stmt *st;
	char got[64] = "";

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT bpf_us FROM passes ORDER BY ts_us", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", *got ? "," : "",
			 sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_string_equal(got, WANT);
}

static void sqlite_keeps_not_measured_apart_from_free(void **state)
{
	char *dir = fixture_dir(), *path;
	sqlite3 *db;

	(void)state;
	assert_non_null(dir);
	write_passes(store_sqlite__open, dir);
	path = store_hour_path(dir, FIXTURE_FIRST_US, HOUR_SQLITE_SUFFIX);
	assert_int_equal(store_open_file(path, &db), 0);
	expect_bpf_us(db);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

static void csv_keeps_not_measured_apart_from_free(void **state)
{
	char *dir = fixture_dir(), *path, line[512];
	/* bpf_us, then the run rows and steal of passes that had none, then no stop */
	const char *want[] = { ",,0,0,0,0,0,0,\r\n", ",0,0,0,0,0,0,0,\r\n", ",250,0,0,0,0,0,0,\r\n" };
	sqlite3 *db;
	FILE *f;

	(void)state;
	assert_non_null(dir);
	write_passes(store_csv__open, dir);
	/* in the file: an empty field is NULL, as the README says */
	path = store_hour_path(dir, FIXTURE_FIRST_US, ".passes.csv");
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(strstr(line, ",bpf_us,run_rows,steal_us,run_steal_us,input_rows,input_gained_us,input_lost_us,stop\r\n"));
	for (int i = 0; i < 3; i++) {
		size_t n;

		assert_non_null(fgets(line, sizeof(line), f));
		n = strlen(line);
		assert_true(n > strlen(want[i]) && !strcmp(line + n - strlen(want[i]), want[i]));
	}
	fclose(f);
	assert_int_equal(store_csv__load_hour(dir, FIXTURE_FIRST_US, &db), 0);
	expect_bpf_us(db);
	sqlite3_close(db);
	free(path);
	fixture_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sqlite_keeps_not_measured_apart_from_free),
		cmocka_unit_test(csv_keeps_not_measured_apart_from_free),
	};

	return cmocka_run_group_tests_name("passes", tests, NULL, NULL);
}
