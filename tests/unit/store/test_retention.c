// SPDX-License-Identifier: GPL-2.0-only
/* Retention deletes whole hours, oldest first, never the current one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "clock.h"
#include "retention.h"

#define HOUR USEC_PER_HOUR
/* 2026-01-01 00:00 UTC */
#define T0 1767225600000000ull

static char dir[64];

static void make_file(const char *name, size_t bytes)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < bytes; i++)
		fputc('x', f);
	fclose(f);
}

static int exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tract-retention.XXXXXX");
	assert_non_null(mkdtemp(dir));
	/* four hours: 00, 01, 02 and the current 03, each with a 64 KiB database */
	make_file("tract-20260101-00.db", 65536);
	make_file("tract-20260101-00.db-wal", 4096);
	make_file("tract-20260101-00.samples.csv", 4096);
	make_file("tract-20260101-01.db", 65536);
	make_file("tract-20260101-02.db", 65536);
	make_file("tract-20260101-03.db", 65536);
	make_file("notes.txt", 100);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void nothing_without_limits(void **state)
{
	(void)state;
	assert_int_equal(store_retention(dir, T0 + 3 * HOUR + 5, 0, 0), 0);
	assert_true(exists("tract-20260101-00.db"));
}

static void keep_deletes_whole_old_hours(void **state)
{
	(void)state;
	/* at 03:00:05 keeping 2 hours: hour 00 ended at 01:00, more than 2 h ago */
	assert_int_equal(store_retention(dir, T0 + 3 * HOUR + 5, 2 * HOUR, 0), 1);
	assert_false(exists("tract-20260101-00.db"));
	assert_false(exists("tract-20260101-00.db-wal"));
	assert_false(exists("tract-20260101-00.samples.csv"));
	assert_true(exists("tract-20260101-01.db"));
	assert_true(exists("notes.txt"));
}

static void max_size_deletes_oldest_first_but_not_the_current_hour(void **state)
{
	(void)state;
	/* hours 01, 02 and 03 are left, with room for about two: 01 goes */
	assert_int_equal(store_retention(dir, T0 + 3 * HOUR + 5, 0, 150000), 1);
	assert_false(exists("tract-20260101-01.db"));
	assert_true(exists("tract-20260101-02.db"));
	/* however small the limit, the hour being written stays */
	assert_int_equal(store_retention(dir, T0 + 3 * HOUR + 5, 0, 1), 1);
	assert_true(exists("tract-20260101-03.db"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_without_limits),
		cmocka_unit_test(keep_deletes_whole_old_hours),
		cmocka_unit_test(max_size_deletes_oldest_first_but_not_the_current_hour),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
