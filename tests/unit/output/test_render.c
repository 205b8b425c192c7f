// SPDX-License-Identifier: GPL-2.0-only
/*
 * What query prints, from a store of known truth: the table keeps control
 * bytes off the terminal, CSV quotes what needs quoting and reads back, JSON
 * is valid and holds the same numbers, and the histogram view says its mean.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "csv.h"
#include "render.h"
#include "width.h"
#include "../store_fixture.h"

/* The groups of -g comm,file printed in a format, as text. */
static char *print(enum render_format format, int utf8)
{
	struct render_opts o = { .format = format, .top = 0, .utf8 = utf8 };
	struct agg_query q = { .cat = &catalog_samples, .group = "comm,file", .from_us = FIXTURE_FIRST_US,
			       .to_us = FIXTURE_FIRST_US + 20 * 1000000ull };
	struct store_reader set;
	struct agg_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	assert_int_equal(aggregate(&set, &q, &r), 0);
	agg_result__sort(&r);
	render_groups(f, &r, &o);
	fclose(f);
	agg_result__free(&r);
	store_reader__free(&set);
	return buf;
}

static void the_table_shows_no_control_bytes(void **state)
{
	char *t = print(RENDER_TABLE, 1);

	(void)state;
	for (const char *c = t; *c; c++)
		assert_true(*c == '\n' || (unsigned char)*c >= 0x20);
	assert_non_null(strstr(t, "x?y"));
	assert_non_null(strstr(t, "a\"b"));
	assert_non_null(strstr(t, "2.55 average active threads"));
	assert_non_null(strstr(t, "20 s sampled in 20 passes"));
	free(t);
}

static void csv_reads_back(void **state)
{
	char *t = print(RENDER_CSV, 0);
	FILE *f = fmemopen(t, strlen(t), "r");
	struct csv_record r = { 0 };
	int db = 0, quote = 0, esc = 0;

	(void)state;
	assert_int_equal(csv_read_record(f, &r), 1);
	assert_string_equal(r.fields[0].s, "comm");
	assert_string_equal(r.fields[1].s, "file");
	while (csv_read_record(f, &r) == 1) {
		assert_true(r.nr >= 4);
		if (!strcmp(r.fields[0].s, "db")) {
			db = 1;
			assert_string_equal(r.fields[1].s, FIXTURE_FILE);
			assert_float_equal(strtod(r.fields[2].s, NULL), 1.0, 1e-6);
		}
		quote |= !strcmp(r.fields[0].s, "a\"b");
		/* nothing reaches a terminal raw from CSV either: the escape as text */
		esc |= !strcmp(r.fields[0].s, "x\\x1by");
	}
	assert_true(db && quote && esc);
	fclose(f);
	csv_record_free(&r);
	free(t);
}

static void json_is_valid_and_holds_the_numbers(void **state)
{
	char *t = print(RENDER_JSON, 0);
	sqlite3 *db;
	sqlite3_stmt *st;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT json_valid(?1), ?1 ->> '$.avg_threads', "
					    "(SELECT sum(value ->> 'avg_threads') FROM json_each(?1, '$.rows')), "
					    "(SELECT count(*) FROM json_each(?1, '$.rows') WHERE value ->> 'comm' = 'a\"b')",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	assert_float_equal(sqlite3_column_double(st, 1), 2.55, 1e-6);
	assert_float_equal(sqlite3_column_double(st, 2), 2.55, 1e-6);
	assert_int_equal(sqlite3_column_int(st, 3), 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(t);
}

static void bars_are_as_long_as_the_share(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(render_bar(buf, sizeof(buf), 0.5, 10, 0), "#####     ");
	assert_string_equal(render_bar(buf, sizeof(buf), 0, 4, 0), "    ");
	assert_string_equal(render_bar(buf, sizeof(buf), 1, 4, 0), "####");
}

static const char *cell(int type, const char *text)
{
	static char buf[64];
	struct agg_value v = { .type = type, .text = text, .len = text ? strlen(text) : 0 };

	render_cell(&v, buf, sizeof(buf));
	return buf;
}

static void null_looks_like_nothing_else(void **state)
{
	(void)state;
	assert_string_equal(cell(SQLITE_NULL, NULL), "-");
	assert_string_equal(cell(SQLITE_TEXT, "-"), "\"-\"");
	assert_string_equal(cell(SQLITE_TEXT, "NULL"), "\"NULL\"");
	assert_string_equal(cell(SQLITE_TEXT, "null"), "\"null\"");
	assert_string_equal(cell(SQLITE_TEXT, ""), "\"\"");
	assert_string_equal(cell(SQLITE_TEXT, "--"), "--");
	assert_string_equal(cell(SQLITE_TEXT, "nginx"), "nginx");
}

/* C1 controls (CSI is 0x9b), bare or as UTF-8, reach no terminal; a character with 0x9b in it is no control. */
static void cells_hold_no_c1_controls(void **state)
{
	(void)state;
	assert_string_equal(cell(SQLITE_TEXT, "a\x9b" "2Jb"), "a?2Jb");
	assert_string_equal(cell(SQLITE_TEXT, "a\xc2\x9b" "2Jb"), "a?2Jb");
	assert_string_equal(cell(SQLITE_TEXT, "a\x1b[2J\x7f"), "a?[2J?");
	assert_string_equal(cell(SQLITE_TEXT, "\xc8\x9b" "ara"), "\xc8\x9b" "ara");
	assert_string_equal(cell(SQLITE_TEXT, "caf\xc3\xa9"), "caf\xc3\xa9");
}

/* A value in CSV: text made safe for terminals and spreadsheets, numbers as they are. */
static void csv_cells_are_safe_text_and_plain_numbers(void **state)
{
	struct agg_query q = { .cat = &catalog_samples, .group = "comm,tid", .from_us = FIXTURE_FIRST_US,
			       .to_us = FIXTURE_FIRST_US + 20 * 1000000ull, .filter = "tid = 4" };
	struct render_opts o = { .format = RENDER_CSV };
	struct store_reader set;
	struct agg_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	assert_int_equal(aggregate(&set, &q, &r), 0);
	render_groups(f, &r, &o);
	fclose(f);
	assert_non_null(strstr(buf, "\r\nx\\x1by,4,"));
	assert_null(strchr(buf, '\033'));
	agg_result__free(&r);
	store_reader__free(&set);
	free(buf);
}

/* A store of threads whose names take other widths than their bytes. */
static char *wide_store(void)
{
	static const char *const names[] = { "\xe6\x95\xb0\xe6\x8d\xae\xe5\xba\x93", "abc", "caf\xc3\xa9", "e\xcc\x81t\xc3\xa9" };
	struct store_config cfg = { .frequency_hz = 1, .source = "test", .gid = -1 };
	struct pass p = { .ts_us = FIXTURE_FIRST_US, .weight_us = 1000000, .visited = 4 };
	struct sink *s;
	char *dir = fixture_dir();

	cfg.dir = dir;
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fixture_row(&p, (uint32_t)i + 1, names[i], TRACT_STATE_RUN, -1);
	assert_int_equal(sink__write_pass(s, &p), 0);
	sink__close(s);
	pass__free_rows(&p);
	return dir;
}

static void wide_names_line_up(void **state)
{
	struct render_opts o = { .format = RENDER_TABLE, .utf8 = 1 };
	struct agg_result r;
	struct store_reader set;
	char *fixture_wide = wide_store();
	/* pcomm after comm: a line's cells are equal only if each comm is padded to the same cells */
	struct agg_query q = { .cat = &catalog_samples, .group = "comm,pcomm", .from_us = FIXTURE_FIRST_US - 1,
			       .to_us = FIXTURE_FIRST_US + 1 };
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	long last = -1;

	(void)state;
	assert_int_equal(store_reader__open(fixture_wide, &set), 0);
	assert_int_equal(aggregate(&set, &q, &r), 0);
	agg_result__sort(&r);
	render_groups(f, &r, &o);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long cells;

		if (!strstr(line, "%"))
			continue;
		cells = (long)text_cells(line, strlen(line));
		if (last >= 0 && cells != last)
			fail_msg("rows of %ld and %ld cells:\n%s", last, cells, line);
		last = cells;
	}
	assert_true(last > 0);
	free(buf);
	agg_result__free(&r);
	store_reader__free(&set);
	fixture_remove(fixture_wide);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_table_shows_no_control_bytes),
		cmocka_unit_test(csv_reads_back),
		cmocka_unit_test(json_is_valid_and_holds_the_numbers),
		cmocka_unit_test(bars_are_as_long_as_the_share),
		cmocka_unit_test(null_looks_like_nothing_else),
		cmocka_unit_test(cells_hold_no_c1_controls),
		cmocka_unit_test(csv_cells_are_safe_text_and_plain_numbers),
		cmocka_unit_test(wide_names_line_up),
	};
	return cmocka_run_group_tests_name("render", tests, fixture_setup, fixture_teardown);
}
