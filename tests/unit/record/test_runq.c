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
	assert_int_equal(runq_history__update(h, 42, 1000, 5, 0, &d), -1);	/* first sight */
	assert_int_equal(runq_history__update(h, 43, 0, 1, 0, &d), -1);
	assert_int_equal(runq_history__update(h, 42, 5000, 7, 0, &d), 0);
	assert_int_equal(d, 2000);
	assert_int_equal(runq_history__update(h, 43, 300, 4, 0, &d), 0);
	assert_int_equal(d, 100);
	/* tid 42 died and was reused: its counters start again */
	assert_int_equal(runq_history__update(h, 42, 10, 1, 0, &d), -1);
	assert_int_equal(runq_history__update(h, 42, 110, 2, 0, &d), 0);
	assert_int_equal(d, 100);
	runq_history__free(h);
}

/* Many threads, tids in runs and strides: each keeps its own counters as the table grows. */
static void history_holds_many_threads(void **state)
{
	struct runq_history *h = runq_history__new();
	enum { N = 20000 };
	uint64_t d = 0;

	(void)state;
	for (uint32_t i = 1; i <= N; i++)
		assert_int_equal(runq_history__update(h, i % 2 ? i : i * 1024, i, 1, 0, &d), -1);
	for (uint32_t i = 1; i <= N; i++) {
		assert_int_equal(runq_history__update(h, i % 2 ? i : i * 1024, 3 * i, 3, 0, &d), 0);
		assert_int_equal(d, i);
	}
	runq_history__free(h);
}

/*
 * A thread the sampler displaced: its next switch-in and that wait are the
 * observer's, not its own.
 */
static void the_observer_wait_is_left_out(void **state)
{
	struct runq_history *h = runq_history__new();
	uint64_t d = 0;

	(void)state;
	runq_history__pass_ns(h, 300);
	assert_int_equal(runq_history__update(h, 7, 1000, 10, 0, &d), -1);
	/* displaced at this sample */
	assert_int_equal(runq_history__update(h, 7, 1000, 10, 1, &d), -1);
	/* its only switch-in since was the end of the displacement: no wait of its own */
	assert_int_equal(runq_history__update(h, 7, 1250, 11, 0, &d), -1);
	/* then two switch-ins that waited 100 each */
	assert_int_equal(runq_history__update(h, 7, 1450, 13, 0, &d), 0);
	assert_int_equal(d, 100);

	/* displaced, then switched three times: the pass's cost stands for the displacement */
	assert_int_equal(runq_history__update(h, 8, 0, 1, 0, &d), -1);
	assert_int_equal(runq_history__update(h, 8, 0, 1, 1, &d), -1);
	assert_int_equal(runq_history__update(h, 8, 500, 4, 0, &d), 0);
	assert_int_equal(d, (500 - 300) / 2);
	/* ... but never more than the wait that grew */
	assert_int_equal(runq_history__update(h, 8, 500, 4, 1, &d), -1);
	assert_int_equal(runq_history__update(h, 8, 600, 6, 0, &d), 0);
	assert_int_equal(d, 0);
	runq_history__free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delay_per_switch_in),
		cmocka_unit_test(no_switch_in_or_reused_tid_is_unknown),
		cmocka_unit_test(history_follows_each_thread),
		cmocka_unit_test(history_holds_many_threads),
		cmocka_unit_test(the_observer_wait_is_left_out),
	};
	return cmocka_run_group_tests_name("runq", tests, NULL, NULL);
}
