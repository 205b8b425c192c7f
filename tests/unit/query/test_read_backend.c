// SPDX-License-Identifier: GPL-2.0-only
/*
 * The read back-end interface without a server: a reader of hours reads
 * through the hours' back end, a reader carrying another back end is read
 * through that one by every entry point, and the hours' coverage and pass
 * totals add up to what the fixture wrote, in SQLite and CSV alike.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "aggregate.h"
#include "rawsql.h"
#include "read_backend.h"
#include "../store_fixture.h"

/* A back end that answers nothing but counts what it is asked, the arguments it got kept. */
static struct {
	int aggregate, run_sql, coverage, pass_totals, newest_us;
	const struct store_reader *set;
	const char *sql;
	uint64_t to_us;
} asked;

static int fake_aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r)
{
	(void)q;
	memset(r, 0, sizeof(*r));
	asked.aggregate++;
	asked.set = set;
	return 0;
}

static int fake_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out)
{
	(void)out;
	asked.run_sql++;
	asked.set = set;
	asked.sql = rq->sql;
	return 0;
}

static int fake_coverage(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2])
{
	(void)sums;
	asked.coverage++;
	asked.set = set;
	asked.to_us = w->to_us;
	return 0;
}

static void fake_pass_totals(const struct store_reader *set, uint64_t from_us, uint64_t to_us, struct pass_totals *pt)
{
	(void)from_us;
	asked.pass_totals++;
	asked.set = set;
	asked.to_us = to_us;
	pt->passes = 7;
}

static int fake_newest_us(const struct store_reader *set, uint64_t *ts_us)
{
	asked.newest_us++;
	asked.set = set;
	*ts_us = 42;
	return 0;
}

static const struct read_backend fake = {
	.aggregate = fake_aggregate, .run_sql = fake_run_sql, .coverage = fake_coverage,
	.pass_totals = fake_pass_totals, .newest_us = fake_newest_us,
};

static void entry_points_call_the_readers_back_end(void **state)
{
	struct store_reader set = { .dir = "nowhere", .read = &fake };
	struct agg_query q = { .cat = &catalog_samples, .group = "state" };
	struct coverage_window w = { .from_us = 1, .to_us = 11, .bucket_us = 1, .nbuckets = 10 };
	double sums[10][2] = { { 0 } };
	struct pass_totals pt;
	struct agg_result r;
	uint64_t newest = 0;

	(void)state;
	memset(&asked, 0, sizeof(asked));
	assert_int_equal(store_newest_us(&set, &newest), 0);
	assert_int_equal(newest, 42);
	assert_int_equal(aggregate(&set, &q, &r), 0);
	assert_int_equal(rawsql_run(&set, 0, 10, 0, "SELECT 1", RENDER_TABLE, stdout), 0);
	assert_int_equal(store_coverage(&set, &w, sums), 0);
	assert_int_equal(asked.to_us, 11);
	store_pass_totals(&set, 0, 12, &pt);
	assert_int_equal(asked.to_us, 12);
	assert_int_equal(pt.passes, 7);
	pass_totals__free(&pt);
	assert_int_equal(asked.aggregate, 1);
	assert_int_equal(asked.run_sql, 1);
	assert_string_equal(asked.sql, "SELECT 1");
	assert_int_equal(asked.coverage, 1);
	assert_int_equal(asked.pass_totals, 1);
	assert_int_equal(asked.newest_us, 1);
	assert_ptr_equal(asked.set, &set);
}

static void hours_read_through_the_hours_back_end(void **state)
{
	struct store_reader set;
	uint64_t newest;

	(void)state;
	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	assert_ptr_equal(read_backend_of(&set), &read_hours);
	/* the last pass of the fixture's */
	assert_int_equal(store_newest_us(&set, &newest), 0);
	assert_int_equal(newest, FIXTURE_FIRST_US + (FIXTURE_PASSES - 1) * 1000000ull);
	store_reader__free(&set);
}

static const char *fact(const struct pass_totals *pt, const char *label)
{
	for (size_t i = 0; i < pt->nfacts; i++)
		if (!strcmp(pt->facts[i].label, label))
			return pt->facts[i].value;
	return NULL;
}

/* The fixture's passes, one a second over two hours, summed over a range of each. */
static void pass_totals_of(const char *dir)
{
	struct store_reader set;
	struct pass_totals pt;

	assert_int_equal(store_reader__open(dir, &set), 0);
	store_pass_totals(&set, FIXTURE_FIRST_US, FIXTURE_FIRST_US + FIXTURE_PASSES * 1000000ull, &pt);
	assert_int_equal(pt.passes, FIXTURE_PASSES);
	assert_int_equal(pt.dropped, 0);
	assert_non_null(fact(&pt, "passes a second"));
	assert_string_equal(fact(&pt, "passes a second"), "1");
	assert_string_equal(fact(&pt, "source"), "test");
	pass_totals__free(&pt);
	/* the first 3 passes only, from the older hour */
	store_pass_totals(&set, FIXTURE_FIRST_US, FIXTURE_FIRST_US + 3 * 1000000ull, &pt);
	assert_int_equal(pt.passes, 3);
	pass_totals__free(&pt);
	store_reader__free(&set);
}

static void pass_totals_sqlite(void **state)
{
	(void)state;
	pass_totals_of(fixture_sqlite);
}

static void pass_totals_csv(void **state)
{
	(void)state;
	pass_totals_of(fixture_csv);
}

/*
 * Pass i stands for the second before it and saw 2 rows, 3 when i is even,
 * 4 for the first: buckets of two seconds hold one even and one odd pass.
 */
static void coverage_of(const char *dir)
{
	struct coverage_window w = { .from_us = FIXTURE_FIRST_US - 1000000, .bucket_us = 2000000, .nbuckets = 10 };
	double sums[10][2] = { { 0 } };
	struct store_reader set;

	w.to_us = w.from_us + w.nbuckets * w.bucket_us;
	assert_int_equal(store_reader__open(dir, &set), 0);
	assert_int_equal(store_coverage(&set, &w, sums), 0);
	for (size_t b = 0; b < w.nbuckets; b++) {
		assert_float_equal(sums[b][1], 2e6, 1e-6);
		assert_float_equal(sums[b][0] / sums[b][1], b == 0 ? 3.0 : 2.5, 1e-9);
	}
	store_reader__free(&set);
}

static void coverage_sqlite(void **state)
{
	(void)state;
	coverage_of(fixture_sqlite);
}

static void coverage_csv(void **state)
{
	(void)state;
	coverage_of(fixture_csv);
}

/* A window past the passes: covered for the part a pass stands for, then a gap. */
static void coverage_ends_with_the_passes(void **state)
{
	struct coverage_window w = { .from_us = FIXTURE_FIRST_US + 18 * 1000000ull, .bucket_us = 1000000,
				     .nbuckets = 4 };
	double sums[4][2] = { { 0 } };
	struct store_reader set;

	(void)state;
	w.to_us = w.from_us + w.nbuckets * w.bucket_us;
	assert_int_equal(store_reader__open(fixture_sqlite, &set), 0);
	assert_int_equal(store_coverage(&set, &w, sums), 0);
	/* passes 18 and 19 stand for [17 s, 18 s] and [18 s, 19 s]: only the second is in the window */
	assert_float_equal(sums[0][1], 1e6, 1e-6);
	assert_float_equal(sums[1][1], 0, 1e-6);
	assert_float_equal(sums[2][1], 0, 1e-6);
	store_reader__free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entry_points_call_the_readers_back_end),
		cmocka_unit_test(hours_read_through_the_hours_back_end),
		cmocka_unit_test(pass_totals_sqlite),
		cmocka_unit_test(pass_totals_csv),
		cmocka_unit_test(coverage_sqlite),
		cmocka_unit_test(coverage_csv),
		cmocka_unit_test(coverage_ends_with_the_passes),
	};
	return cmocka_run_group_tests_name("read_backend", tests, fixture_setup, fixture_teardown);
}
