// SPDX-License-Identifier: GPL-2.0-only
/*
 * The group-by over a store of known truth: hours merge into one answer (sums
 * before dividing), a NULL is a group of its own, filters and ranges select,
 * time buckets average over what they sampled, and an SQLite store and a CSV
 * store of the same passes give the same answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "aggregate.h"
#include "../store_fixture.h"

static void run(const char *dir, const char *group, const char *filter, uint64_t from, uint64_t to,
		struct agg_result *r)
{
	struct store_reader set;
	struct agg_query q = { .cat = &catalog_samples, .group = group, .filter = filter, .from_us = from,
			       .to_us = to };

	assert_int_equal(store_reader__open(dir, &set), 0);
	assert_int_equal(aggregate(&set, &q, r), 0);
	store_reader__free(&set);
	agg_result__sort(r);
}

static const uint64_t all_from = FIXTURE_FIRST_US, all_to = FIXTURE_FIRST_US + 20 * 1000000ull;

/* The average of the row whose first value is text (NULL for a NULL), or -1. */
static double avg_of(const struct agg_result *r, const char *text)
{
	for (size_t i = 0; i < r->nrows; i++) {
		struct agg_value v[AGG_MAX_GROUP];

		agg_result__values(r, &r->rows[i], v);
		if (text ? v[0].type == SQLITE_TEXT && v[0].len == strlen(text) && !memcmp(v[0].text, text, v[0].len) :
			   v[0].type == SQLITE_NULL)
			return agg_result__avg(r, &r->rows[i]);
	}
	return -1;
}

static void two_hours_are_one_answer(const char *dir)
{
	struct agg_result r;
	double shares = 0;

	run(dir, "state", NULL, all_from, all_to, &r);
	assert_int_equal(r.files, 2);
	assert_int_equal(r.passes, 20);
	assert_int_equal(r.sampled_us, 20 * 1000000ull);
	assert_float_equal(avg_of(&r, "RUN"), 1.0, 1e-9);
	assert_float_equal(avg_of(&r, "DISK"), 1.0, 1e-9);
	assert_float_equal(avg_of(&r, "SLEEP"), 0.5, 1e-9);
	assert_float_equal(avg_of(&r, "RUNQ"), 0.05, 1e-9);
	for (size_t i = 0; i < r.nrows; i++)
		shares += agg_result__share(&r, &r.rows[i]);
	assert_float_equal(shares, 1.0, 1e-9);
	/* largest first */
	assert_true(agg_result__avg(&r, &r.rows[0]) >= agg_result__avg(&r, &r.rows[r.nrows - 1]));
	agg_result__free(&r);
}

static void hours_merge_sqlite(void **state)
{
	(void)state;
	two_hours_are_one_answer(fixture_sqlite);
}

static void hours_merge_csv(void **state)
{
	(void)state;
	two_hours_are_one_answer(fixture_csv);
}

static void null_is_a_group(void **state)
{
	struct agg_result r;

	(void)state;
	run(fixture_sqlite, "syscall", NULL, all_from, all_to, &r);
	/* spin and x\033y, in user mode */
	assert_float_equal(avg_of(&r, NULL), 1.05, 1e-9);
	assert_float_equal(avg_of(&r, "fsync"), 1.0, 1e-9);
	assert_float_equal(avg_of(&r, "read"), 0.5, 1e-9);
	agg_result__free(&r);
}

static void filters_and_ranges_select(void **state)
{
	struct agg_result r;

	(void)state;
	run(fixture_sqlite, "comm", "state = DISK and file ~ \",\"", all_from, all_to, &r);
	assert_int_equal(r.nrows, 1);
	assert_float_equal(avg_of(&r, "db"), 1.0, 1e-9);
	agg_result__free(&r);
	/* the second hour alone: 10 passes, read only in the even ones */
	run(fixture_sqlite, "comm", NULL, FIXTURE_FIRST_US + 10 * 1000000ull, all_to, &r);
	assert_int_equal(r.passes, 10);
	assert_int_equal(r.files, 1);
	assert_float_equal(avg_of(&r, "a\"b"), 0.5, 1e-9);
	assert_float_equal(avg_of(&r, "x\033y"), -1, 1e-9);
	agg_result__free(&r);
}

static void minutes_average_over_what_they_sampled(void **state)
{
	struct agg_result r;

	(void)state;
	run(fixture_sqlite, "minute", NULL, all_from, all_to, &r);
	assert_int_equal(r.nbuckets, 2);
	for (size_t i = 0; i < r.nrows; i++) {
		const struct agg_bucket *b = agg_result__bucket(&r, &r.rows[i]);

		assert_non_null(b);
		assert_int_equal(b->sampled_us, 10 * 1000000ull);
		assert_true(agg_result__partial(&r, b));
	}
	/* 22:59 had the RUNQ pass: (10 + 10 + 5 + 1) / 10 s; 23:00: (10 + 10 + 5) / 10 s */
	assert_int_equal(r.nrows, 2);
	assert_float_equal(agg_result__avg(&r, &r.rows[0]) + agg_result__avg(&r, &r.rows[1]), 2.6 + 2.5, 1e-9);
	agg_result__free(&r);
}

static void sqlite_and_csv_give_the_same_rows(void **state)
{
	struct agg_result a, b;

	(void)state;
	run(fixture_sqlite, "comm,state,syscall,file,wait", NULL, all_from, all_to, &a);
	run(fixture_csv, "comm,state,syscall,file,wait", NULL, all_from, all_to, &b);
	assert_int_equal(a.nrows, b.nrows);
	assert_int_equal(a.total, b.total);
	for (size_t i = 0; i < a.nrows; i++) {
		struct agg_value va[AGG_MAX_GROUP], vb[AGG_MAX_GROUP];

		assert_int_equal(a.rows[i].measure, b.rows[i].measure);
		agg_result__values(&a, &a.rows[i], va);
		agg_result__values(&b, &b.rows[i], vb);
		for (size_t c = 0; c < a.ncols; c++) {
			assert_int_equal(va[c].type, vb[c].type);
			if (va[c].type == SQLITE_TEXT) {
				assert_int_equal(va[c].len, vb[c].len);
				assert_memory_equal(va[c].text, vb[c].text, va[c].len);
			}
		}
	}
	agg_result__free(&a);
	agg_result__free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hours_merge_sqlite),
		cmocka_unit_test(hours_merge_csv),
		cmocka_unit_test(null_is_a_group),
		cmocka_unit_test(filters_and_ranges_select),
		cmocka_unit_test(minutes_average_over_what_they_sampled),
		cmocka_unit_test(sqlite_and_csv_give_the_same_rows),
	};
	return cmocka_run_group_tests_name("aggregate", tests, fixture_setup, fixture_teardown);
}
