// SPDX-License-Identifier: GPL-2.0-only
/* The pass schedule never drifts and skips missed ticks; hours are UTC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "clock.h"

static void slots_follow_one_another(void **state)
{
	(void)state;
	/* on time or late within the next slot: the next one */
	assert_int_equal(next_slot(1000, 100, 1000, 1050), 1100);
	assert_int_equal(next_slot(1000, 100, 1000, 1150), 1100);
	assert_int_equal(next_slot(1000, 100, 1100, 1100), 1200);
}

static void slow_passes_skip_slots_without_drift(void **state)
{
	(void)state;
	/* a pass that overran 3.5 intervals lands in the slot holding now, on the grid */
	assert_int_equal(next_slot(1000, 100, 1000, 1350), 1300);
	/* after a million slots the grid is still exact */
	assert_int_equal(next_slot(0, 10000000, 0, 10000000ull * 1000000 + 5), 10000000ull * 1000000);
}

static void a_pass_runs_at_a_random_point_ahead(void **state)
{
	uint64_t rng = 42, lo = 2000, hi = 0;

	(void)state;
	for (int i = 0; i < 10000; i++) {
		uint64_t t = pass_time(1000, 100, 900, random_next(&rng));

		assert_true(t >= 1000 && t < 1100);
		lo = t < lo ? t : lo;
		hi = t > hi ? t : hi;
	}
	/* the whole interval is used */
	assert_true(lo < 1005 && hi > 1095);
	/* late into the interval: only what is left of it */
	for (int i = 0; i < 1000; i++) {
		uint64_t t = pass_time(1000, 100, 1060, random_next(&rng));

		assert_true(t >= 1060 && t < 1100);
	}
	/* past it: at once */
	assert_int_equal(pass_time(1000, 100, 1200, 7), 1200);
}

static void skipped_slots_are_unsampled(void **state)
{
	(void)state;
	/* one slot after the other, or the first */
	assert_int_equal(slots_skipped(0, 1000, 100), 0);
	assert_int_equal(slots_skipped(1000, 1100, 100), 0);
	/* stopped for 2 s at 10 Hz: 19 slots no pass stands for */
	assert_int_equal(slots_skipped(1000000, 1000000 + 2000000, 100000), 19);
}

static void hours_are_utc(void **state)
{
	char buf[32];

	(void)state;
	format_hour(0, buf, sizeof(buf));
	assert_string_equal(buf, "19700101-00");
	/* 2026-11-30 23:59:59.999999 UTC and one microsecond later */
	format_hour(1796083199999999ull, buf, sizeof(buf));
	assert_string_equal(buf, "20261130-23");
	format_hour(1796083200000000ull, buf, sizeof(buf));
	assert_string_equal(buf, "20261201-00");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slots_follow_one_another),
		cmocka_unit_test(slow_passes_skip_slots_without_drift),
		cmocka_unit_test(a_pass_runs_at_a_random_point_ahead),
		cmocka_unit_test(skipped_slots_are_unsampled),
		cmocka_unit_test(hours_are_utc),
	};
	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
