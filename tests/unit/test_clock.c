// SPDX-License-Identifier: GPL-2.0-only
/* The pass schedule never drifts and skips missed ticks; hours are UTC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "clock.h"

static void next_tick_is_on_the_grid(void **state)
{
	(void)state;
	/* on time: the next tick */
	assert_int_equal(next_tick(1000, 100, 1000), 1100);
	assert_int_equal(next_tick(1000, 100, 1050), 1100);
	/* exactly on a tick: the one after it */
	assert_int_equal(next_tick(1000, 100, 1100), 1200);
	/* before the start: the start */
	assert_int_equal(next_tick(1000, 100, 10), 1000);
}

static void slow_passes_skip_ticks_without_drift(void **state)
{
	(void)state;
	/* a pass that overran 3.5 intervals lands on the grid, not 100 after now */
	assert_int_equal(next_tick(1000, 100, 1350), 1400);
	/* after a million ticks the grid is still exact */
	assert_int_equal(next_tick(0, 10000000, 10000000ull * 1000000 + 5), 10000000ull * 1000001);
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
		cmocka_unit_test(next_tick_is_on_the_grid),
		cmocka_unit_test(slow_passes_skip_ticks_without_drift),
		cmocka_unit_test(hours_are_utc),
	};
	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
