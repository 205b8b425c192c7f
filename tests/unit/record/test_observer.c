// SPDX-License-Identifier: GPL-2.0-only
/* A pass as one moment: which rows are RUN, on which CPU, and which go. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "observer.h"

static struct sample rows[8];

static struct pass pass_of(size_t n)
{
	return (struct pass){ .rows = rows, .nr = n, .cap = n };
}

static struct sample row(uint32_t tid, uint32_t cpu, int state, uint32_t flags)
{
	return (struct sample){ .tid = tid, .cpu = cpu, .state = state, .flags = flags, .arrival_ns = 3000000,
				.kstack = (void *)1 };
}

/* CPU 0 ran 10 and CPU 1 ran 20 at the moment; 30 got CPU 1 since, 40 never ran. */
static void the_cpus_runners_then_are_run(void **state)
{
	const uint32_t tids[2] = { 10, 20 };
	struct pass p;

	(void)state;
	rows[0] = row(10, 0, TRACT_STATE_RUN, TRACT_SF_AT_MOMENT | TRACT_SF_RAN_AT_START | TRACT_SF_PREEMPTED);
	rows[1] = row(20, 1, TRACT_STATE_RUN, TRACT_SF_AT_MOMENT);
	rows[2] = row(30, 1, TRACT_STATE_RUNQ, TRACT_SF_ARRIVED_SINCE);
	rows[3] = row(40, 0, TRACT_STATE_DISK, 0);
	p = pass_of(4);
	/*
	 * 10 had left its CPU when visited: shown running, with the stack the
	 * sampler gave it of what it ran at the moment (a profile tick's)
	 */
	assert_int_equal(observer__at_moment(&p, tids, 2), 1);
	assert_int_equal(p.nr, 4);
	assert_int_equal(rows[0].state, TRACT_STATE_RUN);
	assert_true(rows[0].flags & TRACT_SF_DISPLACED);
	assert_non_null(rows[0].kstack);
	assert_int_equal(rows[0].state_us, 3000);
	assert_false(rows[1].flags & TRACT_SF_DISPLACED);
	assert_int_equal(rows[2].state, TRACT_STATE_RUNQ);
	assert_int_equal(rows[3].state, TRACT_STATE_DISK);
}

/* 20 ran on CPU 1 at the moment and is on CPU 0 now: it is shown on CPU 1. */
static void a_runner_that_moved_keeps_its_cpu_then(void **state)
{
	const uint32_t tids[2] = { 0, 20 };
	struct pass p;

	(void)state;
	rows[0] = row(20, 0, TRACT_STATE_RUNQ, TRACT_SF_ARRIVED_SINCE);
	rows[1] = row(21, 1, TRACT_STATE_SLEEP, 0);
	p = pass_of(2);
	assert_int_equal(observer__at_moment(&p, tids, 2), 1);
	assert_int_equal(rows[0].state, TRACT_STATE_RUN);
	assert_int_equal(rows[0].cpu, 1);
	assert_true(rows[0].flags & TRACT_SF_AT_MOMENT);
	/* without the kernel stack it took off its CPU since */
	assert_null(rows[0].kstack);
	assert_int_equal(rows[1].state, TRACT_STATE_SLEEP);
}

/* A row kept only in case it ran then is dropped when it did not. */
static void rows_kept_in_case_go_when_they_did_not_run(void **state)
{
	const uint32_t tids[1] = { 50 };
	struct pass p;

	(void)state;
	rows[0] = row(51, 0, TRACT_STATE_IDLE, TRACT_SF_ONLY_IF_RAN);
	rows[1] = row(50, 0, TRACT_STATE_IDLE, TRACT_SF_ONLY_IF_RAN);
	p = pass_of(2);
	assert_int_equal(observer__at_moment(&p, tids, 1), 1);
	assert_int_equal(p.nr, 1);
	assert_int_equal(rows[0].tid, 50);
	assert_int_equal(rows[0].state, TRACT_STATE_RUN);
	assert_false(rows[0].flags & TRACT_SF_ONLY_IF_RAN);
}

/*
 * Without the moment read, from the threads' times: of two that had CPU 0
 * then and left it, the later to get it ran then; one that got it since is
 * shown as it was then.
 */
static void without_the_moment_the_latest_to_arrive_ran(void **state)
{
	const uint64_t outside[2] = { 0, 0 };
	struct pass p;

	(void)state;
	rows[0] = row(10, 0, TRACT_STATE_RUNQ, TRACT_SF_RAN_AT_START);
	rows[0].arrival_ns = 9000000;
	rows[1] = row(11, 0, TRACT_STATE_SLEEP, TRACT_SF_RAN_AT_START);
	rows[1].arrival_ns = 5000000;
	rows[2] = row(12, 0, TRACT_STATE_RUN, TRACT_SF_ARRIVED_SINCE);
	rows[2].start_state = TRACT_STATE_RUNQ;
	p = pass_of(3);
	assert_int_equal(observer__resolve(&p, outside, 2), 1);
	assert_int_equal(rows[0].state, TRACT_STATE_RUNQ);
	assert_int_equal(rows[1].state, TRACT_STATE_RUN);
	assert_int_equal(rows[2].state, TRACT_STATE_RUNQ);
}

/* ... unless a thread not sampled got the CPU later still: none of them ran then. */
static void without_the_moment_an_outsider_can_hold_the_cpu(void **state)
{
	const uint64_t outside[1] = { 1000000 };
	struct pass p;

	(void)state;
	rows[0] = row(11, 0, TRACT_STATE_SLEEP, TRACT_SF_RAN_AT_START);
	rows[0].arrival_ns = 5000000;
	p = pass_of(1);
	assert_int_equal(observer__resolve(&p, outside, 1), 0);
	assert_int_equal(rows[0].state, TRACT_STATE_SLEEP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_cpus_runners_then_are_run),
		cmocka_unit_test(a_runner_that_moved_keeps_its_cpu_then),
		cmocka_unit_test(rows_kept_in_case_go_when_they_did_not_run),
		cmocka_unit_test(without_the_moment_the_latest_to_arrive_ran),
		cmocka_unit_test(without_the_moment_an_outsider_can_hold_the_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
