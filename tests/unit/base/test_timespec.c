// SPDX-License-Identifier: GPL-2.0-only
/* --from and --to as people write them, against a fixed now, in a fixed zone. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "timespec.h"

/* 2026-12-01 07:36:00 UTC */
#define NOW_US 1796110560000000ull
#define H (3600ull * 1000000)
#define M (60ull * 1000000)

static uint64_t at(const char *s)
{
	uint64_t us = 0;

	assert_int_equal(timespec_parse(s, NOW_US, &us), 0);
	return us;
}

static int bad(const char *s)
{
	uint64_t us;

	return timespec_parse(s, NOW_US, &us) == -EINVAL;
}

static int utc(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

static void durations_ago(void **state)
{
	(void)state;
	assert_true(at("-15m") == NOW_US - 15 * M);
	assert_true(at("2h") == NOW_US - 2 * H);
	assert_true(at("-1h30m") == NOW_US - 90 * M);
	assert_true(at("1d12h") == NOW_US - 36 * H);
	assert_true(at("90s") == NOW_US - 90 * 1000000ull);
	assert_true(at("1.5h") == NOW_US - 90 * M);
	assert_true(bad("-1h30"));
	assert_true(bad("h"));
	assert_true(bad("-"));
	assert_true(bad("10x"));
}

static void dates_that_exist(void **state)
{
	(void)state;
	assert_true(at("2026-12-01 07:00") == NOW_US - 36 * M);
	assert_true(at("2026-11-30") == NOW_US - 7 * H - 36 * M - 24 * H);
	assert_true(bad("2026-02-30"));
	assert_true(bad("2026-04-31 10:00"));
	assert_true(bad("2026-13-01"));
	assert_true(bad("2026-12-01 24:00"));
	/* 2028 is a leap year */
	assert_false(bad("2028-02-29"));
	assert_true(bad("2027-02-29"));
}

static void a_bare_time_is_its_latest_past(void **state)
{
	(void)state;
	/* 07:00 today, before now */
	assert_true(at("07:00") == NOW_US - 36 * M);
	/* 23:00 at 07:36 is yesterday's */
	assert_true(at("23:00") == NOW_US - 8 * H - 36 * M);
	assert_true(at("07:36:00") == NOW_US);
	assert_true(at("@1796110560") == NOW_US);
	assert_true(at("now") == NOW_US);
}

static void the_zone_is_named(void **state)
{
	(void)state;
	assert_string_equal(timespec_zone(NOW_US), "UTC");
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	assert_string_equal(timespec_zone(NOW_US), "CET");
	/* --utc makes local time UTC, whatever TZ said */
	timespec_use_utc();
	assert_string_equal(timespec_zone(NOW_US), "UTC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_ago),
		cmocka_unit_test(dates_that_exist),
		cmocka_unit_test(a_bare_time_is_its_latest_past),
		cmocka_unit_test(the_zone_is_named),
	};
	return cmocka_run_group_tests_name("timespec", tests, utc, NULL);
}
