// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract top's model without a screen, over a store of known truth: a
 * refresh reads the window, drilling turns the selected row into a filter
 * and back undoes it, zoom and pan move the window, and the timeline has
 * the rows of the passes it covers and gaps where none stands.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "top.h"
#include "../store_fixture.h"

/* History of the fixture's 20 s, grouped by state. */
static void open_top(struct top *t, const char *group)
{
	struct query_opts q;

	read_opts_init(&q);
	q.dir = fixture_sqlite;
	q.group = group;
	q.from_us = FIXTURE_FIRST_US;
	q.to_us = FIXTURE_FIRST_US + 20 * 1000000ull;
	q.has_from = q.has_to = 1;
	top__init(t, &q, "history", q.to_us - q.from_us, 0);
}

static void a_refresh_reads_the_window(void **state)
{
	struct top t;

	(void)state;
	open_top(&t, "state");
	assert_int_equal(top__refresh(&t, 20), 0);
	assert_int_equal(t.res.passes, 20);
	/* RUN and DISK are one thread each, the largest rows */
	assert_float_equal(agg_result__avg(&t.res, &t.res.rows[0]), 1.0, 1e-9);
	assert_int_equal(t.ntimeline, 20);
	/*
	 * A second a bucket, each shown by the pass at its end (a pass stands
	 * for the interval before it): odd passes have 2 threads, even ones 3;
	 * the first pass, of 4, stands for the second before the window, and
	 * no pass stands for the last second: a gap.
	 */
	assert_float_equal(t.timeline[0], 2, 1e-9);
	assert_float_equal(t.timeline[1], 3, 1e-9);
	assert_float_equal(t.timeline[18], 2, 1e-9);
	assert_float_equal(t.timeline[19], TOP_NOT_SAMPLED, 1e-9);
	assert_float_equal(top__timeline_max(&t), 3, 1e-9);
	top__free(&t);
}

static void drill_and_back(void **state)
{
	struct top t;
	size_t rows;

	(void)state;
	open_top(&t, "state");
	assert_int_equal(top__refresh(&t, 20), 0);
	rows = t.res.nrows;
	assert_int_equal(rows, 4);
	/* the row of SLEEP, drilled into and regrouped by thread */
	for (t.levels[0].selected = 0; t.levels[0].selected < rows; t.levels[0].selected++) {
		struct agg_value v;

		agg_result__values(&t.res, &t.res.rows[t.levels[0].selected], &v);
		if (v.len == 5 && !memcmp(v.text, "SLEEP", 5))
			break;
	}
	assert_int_equal(top__drill(&t), 0);
	assert_int_equal(t.depth, 1);
	assert_string_equal(top__level(&t)->filter, "state = \"SLEEP\"");
	/* a drill looks at the row from the next angle, and says so */
	assert_string_equal(top__level(&t)->group, "comm,title,state,syscall");
	assert_non_null(strstr(t.message, "grouped by comm,title,state,syscall"));
	assert_int_equal(top__set_group(&t, "comm"), 0);
	assert_int_equal(top__refresh(&t, 20), 0);
	assert_int_equal(t.res.nrows, 1);
	assert_float_equal(agg_result__avg(&t.res, &t.res.rows[0]), 0.5, 1e-9);
	/* the quote in a"b is a literal's, so drilling again selects that thread */
	assert_int_equal(top__drill(&t), 0);
	assert_string_equal(top__level(&t)->filter, "(state = \"SLEEP\") and comm = \"a\\\"b\"");
	assert_string_equal(top__level(&t)->group, "wait");
	assert_int_equal(top__refresh(&t, 20), 0);
	assert_int_equal(t.res.nrows, 1);
	assert_int_equal(top__back(&t), 1);
	assert_int_equal(top__back(&t), 1);
	assert_int_equal(top__back(&t), 0);
	assert_int_equal(t.depth, 0);
	assert_null(top__level(&t)->filter);
	assert_int_equal(top__refresh(&t, 20), 0);
	assert_int_equal(t.res.nrows, rows);
	/* a bad group is refused with a message, and the level keeps its own */
	assert_int_equal(top__set_group(&t, "nosuch"), -EINVAL);
	assert_non_null(strstr(t.message, "nosuch"));
	assert_string_equal(top__level(&t)->group, "state");
	top__free(&t);
}

static void zoom_and_pan_move_the_window(void **state)
{
	struct top t;
	uint64_t end;

	(void)state;
	open_top(&t, "state");
	end = t.end_us;
	top__zoom(&t, 0.5);
	assert_int_equal(t.span_us, 10 * 1000000ull);
	/* never narrower than 10 s */
	top__zoom(&t, 0.1);
	assert_int_equal(t.span_us, 10 * 1000000ull);
	assert_int_equal(top__refresh(&t, 10), 0);
	/* the last 10 s: the second hour */
	assert_int_equal(t.res.passes, 10);
	top__pan(&t, -1);
	assert_int_equal(t.end_us, end - 10 * 1000000ull);
	assert_int_equal(top__refresh(&t, 10), 0);
	assert_int_equal(t.res.passes, 10);
	assert_float_equal(t.timeline[0], 2, 1e-9);
	/* back before the first pass: the timeline's buckets are gaps */
	top__pan(&t, -2);
	assert_int_equal(top__refresh(&t, 10), 0);
	assert_int_equal(t.res.passes, 0);
	for (size_t i = 0; i < t.ntimeline; i++)
		assert_float_equal(t.timeline[i], TOP_NOT_SAMPLED, 1e-9);
	top__free(&t);
}

static void the_drill_ladder(void **state)
{
	(void)state;
	assert_string_equal(top__next_group("state,syscall,pcomm"), "comm,title,state,syscall");
	assert_string_equal(top__next_group("pcomm_folded"), "comm,title,state,syscall");
	assert_string_equal(top__next_group("title"), "comm,title,state,syscall");
	assert_string_equal(top__next_group("comm,title,state,syscall"), "wait");
	assert_string_equal(top__next_group("comm,state,syscall"), "wait");
	assert_string_equal(top__next_group("tid"), "wait");
	assert_string_equal(top__next_group("pcomm,wait"), "kstack");
	assert_string_equal(top__next_group("kstack"), "kstack");
	assert_string_equal(top__next_group("ustack,comm"), "ustack,comm");
}

static void t_puts_the_title_in_and_out(void **state)
{
	struct top t;

	(void)state;
	open_top(&t, "state,syscall,pcomm");
	assert_int_equal(top__toggle_title(&t), 0);
	assert_string_equal(top__level(&t)->group, "state,syscall,pcomm,title");
	assert_int_equal(top__toggle_title(&t), 0);
	assert_string_equal(top__level(&t)->group, "state,syscall,pcomm");
	assert_int_equal(top__set_group(&t, "comm,state"), 0);
	assert_int_equal(top__toggle_title(&t), 0);
	assert_string_equal(top__level(&t)->group, "comm,title,state");
	assert_int_equal(top__set_group(&t, "state"), 0);
	assert_int_equal(top__toggle_title(&t), 0);
	assert_string_equal(top__level(&t)->group, "title,state");
	assert_int_equal(top__refresh(&t, 20), 0);
	assert_int_equal(top__toggle_title(&t), 0);
	assert_string_equal(top__level(&t)->group, "state");
	top__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_refresh_reads_the_window),
		cmocka_unit_test(t_puts_the_title_in_and_out),
		cmocka_unit_test(drill_and_back),
		cmocka_unit_test(zoom_and_pan_move_the_window),
		cmocka_unit_test(the_drill_ladder),
	};
	return cmocka_run_group_tests_name("top", tests, fixture_setup, fixture_teardown);
}
