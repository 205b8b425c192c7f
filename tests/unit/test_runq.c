// SPDX-License-Identifier: GPL-2.0-only
/* Run-queue delay per switch-in, from sched_info counters between two samples. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "runq.h"

static void delay_per_switch_in(void **state)
{
	uint64_t d = 0;

	(void)state;
	assert_int_equal(runq_delay_between(1000, 10, 31000, 13, &d), 0);
	assert_int_equal(d, 10000);
	/* got the CPU without waiting */
	assert_int_equal(runq_delay_between(500, 1, 500, 2, &d), 0);
	assert_int_equal(d, 0);
}

static void no_switch_in_or_reused_tid_is_unknown(void **state)
{
	uint64_t d = 77;

	(void)state;
	assert_int_equal(runq_delay_between(1000, 10, 5000, 10, &d), -1);
	assert_int_equal(runq_delay_between(1000, 10, 50, 2, &d), -1);
	assert_int_equal(d, 77);
}

static void history_follows_each_thread(void **state)
{
	struct runq_history *h = runq_history__new();
	uint64_t d = 0;

	(void)state;
	assert_int_equal(runq_history__update(h, 42, 1000, 5, &d), -1);	/* first sight */
	assert_int_equal(runq_history__update(h, 43, 0, 1, &d), -1);
	assert_int_equal(runq_history__update(h, 42, 5000, 7, &d), 0);
	assert_int_equal(d, 2000);
	assert_int_equal(runq_history__update(h, 43, 300, 4, &d), 0);
	assert_int_equal(d, 100);
	/* tid 42 died and was reused: its counters start again */
	assert_int_equal(runq_history__update(h, 42, 10, 1, &d), -1);
	assert_int_equal(runq_history__update(h, 42, 110, 2, &d), 0);
	assert_int_equal(d, 100);
	runq_history__free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delay_per_switch_in),
		cmocka_unit_test(no_switch_in_or_reused_tid_is_unknown),
		cmocka_unit_test(history_follows_each_thread),
	};
	return cmocka_run_group_tests_name("runq", tests, NULL, NULL);
}
