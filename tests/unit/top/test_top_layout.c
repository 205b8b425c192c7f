// SPDX-License-Identifier: GPL-2.0-only
/* top's rows at every screen width: never past the edge, and shrunk in the order stated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "top_layout.h"

static int row_cells(const struct top_layout *l)
{
	int cells = TOP_FIGURES_COLS + l->bar;

	for (int c = 0; c < l->shown; c++)
		cells += 2 + l->width[c];
	return cells;
}

static void a_row_that_fits_is_left_alone(void **state)
{
	const int want[] = { 5, 7, 20 };
	struct top_layout l;

	(void)state;
	top_layout(want, 3, 120, &l);
	assert_int_equal(l.bar, TOP_BAR_COLS);
	assert_int_equal(l.shown, 3);
	assert_int_equal(l.width[0], 5);
	assert_int_equal(l.width[1], 7);
	assert_int_equal(l.width[2], 20);
}

static void the_bar_goes_first_then_the_widest_column(void **state)
{
	/* comm, state, wait, file: the file is the widest */
	const int want[] = { 15, 5, 20, 60 };
	struct top_layout l;

	(void)state;
	/* 16 + 16 + 4 * 2 + 100 = 140: without the bar it is 124 */
	top_layout(want, 4, 124, &l);
	assert_int_equal(l.bar, 0);
	assert_int_equal(l.width[3], 60);
	top_layout(want, 4, 80, &l);
	assert_int_equal(l.bar, 0);
	assert_int_equal(l.shown, 4);
	assert_int_equal(row_cells(&l), 80);
	/* the narrow columns keep their width while the wide ones give */
	assert_int_equal(l.width[0], 15);
	assert_int_equal(l.width[1], 5);
	assert_int_equal(l.width[2] + l.width[3], 80 - 16 - 8 - 20);
}

static void at_every_width_the_row_ends_on_the_screen(void **state)
{
	const int want[][4] = { { 5, 7, 15, 3 }, { 15, 5, 20, 60 }, { 40, 40, 40, 40 }, { 1, 1, 1, 1 } };
	struct top_layout l;

	(void)state;
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		for (int cols = 40; cols <= 300; cols++) {
			top_layout(want[k], 4, cols, &l);
			assert_true(row_cells(&l) <= cols);
			assert_true(l.shown >= 2);
			for (int c = 0; c < l.shown; c++)
				assert_true(l.width[c] >= 1);
			for (int c = l.shown; c < 4; c++)
				assert_int_equal(l.width[c], 0);
		}
}

static void at_forty_columns_the_default_group_shows_what_fits(void **state)
{
	/* state, syscall, pcomm */
	const int want[] = { 5, 14, 15 };
	struct top_layout l;

	(void)state;
	top_layout(want, 3, 40, &l);
	assert_int_equal(l.bar, 0);
	assert_int_equal(row_cells(&l), 40);
	assert_int_equal(l.shown, 3);
	assert_int_equal(l.width[0], 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_row_that_fits_is_left_alone),
		cmocka_unit_test(the_bar_goes_first_then_the_widest_column),
		cmocka_unit_test(at_every_width_the_row_ends_on_the_screen),
		cmocka_unit_test(at_forty_columns_the_default_group_shows_what_fits),
	};
	return cmocka_run_group_tests_name("top_layout", tests, NULL, NULL);
}
