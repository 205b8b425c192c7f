// SPDX-License-Identifier: GPL-2.0-only
/* The /proc source's RUN or RUNQ of a runnable thread, from its schedstat growths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "proc_runq.h"

static void fraction_of_the_sums(void **state)
{
	(void)state;
	assert_int_equal(proc_runq_fraction(0, 0), PROC_RUNQ_ONE / 2);
	assert_int_equal(proc_runq_fraction(1000, 2000), PROC_RUNQ_ONE * 2 / 3 + 1);	/* rounded */
	assert_int_equal(proc_runq_fraction(0, 5), PROC_RUNQ_ONE);
	assert_int_equal(proc_runq_fraction(5, 0), 0);
}

/* A long span and a short one weigh by their time, not one each. */
static void sums_weigh_by_time(void **state)
{
	uint64_t c = 0, q = 0;

	(void)state;
	proc_runq_add(&c, &q, 0, 90000);
	proc_runq_add(&c, &q, 10000, 0);
	/* the first decayed by a sixteenth when the second was added */
	assert_int_equal(q, 90000 - 90000 / 16);
	assert_int_equal(c, 10000);
	assert_true(proc_runq_fraction(c, q) > PROC_RUNQ_ONE * 8 / 10);
}

/* Many samples at a fraction each: RUNQ the sum of the fractions, give or take one, every time. */
static void diffusion_is_exact_and_deterministic(void **state)
{
	const uint32_t f = PROC_RUNQ_ONE / 3;
	int32_t acc = 0;
	long queued = 0;

	(void)state;
	for (long i = 1; i <= 300000; i++) {
		long sum = i * f;

		queued += proc_runq_diffuse(&acc, f);
		assert_true(queued * PROC_RUNQ_ONE - sum <= PROC_RUNQ_ONE && sum - queued * PROC_RUNQ_ONE <= PROC_RUNQ_ONE);
	}
	acc = 0;
	assert_int_equal(proc_runq_diffuse(&acc, 0), 0);
	assert_int_equal(proc_runq_diffuse(&acc, PROC_RUNQ_ONE), 1);
	assert_int_equal(proc_runq_diffuse(&acc, PROC_RUNQ_ONE / 2), 1);
}

/* Three spinners on two CPUs: each queued a third of the time, RUNQ a third of its samples. */
static void spinners_share_two_cpus(void **state)
{
	struct proc_runq *r = proc_runq__new();
	uint64_t run[3] = { 0 }, wait[3] = { 0 };
	int queued[3] = { 0 };

	(void)state;
	for (int pass = 0; pass < 300; pass++) {
		proc_runq__new_pass(r);
		for (int t = 0; t < 3; t++) {
			/* in lumps: each thread waits one pass in three, runs the other two */
			if ((pass + t) % 3)
				run[t] += 20000000;
			else
				wait[t] += 20000000;
			queued[t] += proc_runq__queued(r, 100 + (uint32_t)t, run[t], wait[t], 1);
		}
	}
	for (int t = 0; t < 3; t++)
		assert_true(queued[t] >= 95 && queued[t] <= 105);
	proc_runq__free(r);
}

/* Asleep at a sample: not runnable, no verdict, and its growths wait for the next runnable one. */
static void asleep_keeps_its_growths(void **state)
{
	struct proc_runq *r = proc_runq__new();

	(void)state;
	proc_runq__new_pass(r);
	assert_int_equal(proc_runq__queued(r, 7, 1000, 0, 1), 0);
	/* queued a long time, counted at its switch-in, then asleep at the sample */
	proc_runq__new_pass(r);
	assert_int_equal(proc_runq__queued(r, 7, 1000, 1000000, 0), 0);
	/* runnable again: that wait decides */
	proc_runq__new_pass(r);
	assert_int_equal(proc_runq__queued(r, 7, 2000, 1000000, 1), 1);
	/* a reused tid starts again: nothing known, half, so RUNQ and RUN in turn */
	proc_runq__new_pass(r);
	assert_int_equal(proc_runq__queued(r, 7, 0, 0, 1), 1);
	assert_int_equal(proc_runq__queued(r, 7, 0, 0, 1), 0);
	assert_int_equal(proc_runq__queued(r, 7, 0, 0, 1), 1);
	proc_runq__free(r);
}

/* Many threads, and threads that end: each keeps its own, the ended ones forgotten. */
static void many_threads_come_and_go(void **state)
{
	struct proc_runq *r = proc_runq__new();

	(void)state;
	for (uint32_t round = 0; round < 10; round++) {
		proc_runq__new_pass(r);
		for (uint32_t i = 1; i <= 5000; i++)
			/* always queued: RUNQ from the second sample on, whatever else the table holds */
			assert_int_equal(proc_runq__queued(r, round * 5000 + i, 0, 1000 * (round + 1), 1), 1);
		for (int p = 0; p < 70; p++)
			proc_runq__new_pass(r);
	}
	proc_runq__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fraction_of_the_sums),
		cmocka_unit_test(sums_weigh_by_time),
		cmocka_unit_test(diffusion_is_exact_and_deterministic),
		cmocka_unit_test(spinners_share_two_cpus),
		cmocka_unit_test(asleep_keeps_its_growths),
		cmocka_unit_test(many_threads_come_and_go),
	};
	return cmocka_run_group_tests_name("proc_runq", tests, NULL, NULL);
}
