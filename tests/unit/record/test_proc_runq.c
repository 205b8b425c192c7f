// SPDX-License-Identifier: GPL-2.0-only
/* The /proc source's RUN or RUNQ of a runnable thread, from its schedstat growths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "proc_runq.h"
#include "tract/abi.h"

/* 1 when a runnable sample at now_ns is read as RUNQ */
static int is_runq(struct proc_runq *r, uint32_t tid, uint64_t run, uint64_t wait, uint64_t now_ns)
{
	return proc_runq__state(r, tid, run, wait, now_ns, TRACT_STATE_RUN) == TRACT_STATE_RUNQ;
}

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
			queued[t] += is_runq(r, 100 + (uint32_t)t, run[t], wait[t], (uint64_t)(pass + 1) * 20000000);
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
	assert_int_equal(is_runq(r, 7, 1000, 0, 0), 0);
	/* queued a long time, counted at its switch-in, then asleep at the sample: it stays asleep */
	proc_runq__new_pass(r);
	assert_int_equal(proc_runq__state(r, 7, 1000, 1000000, 0, TRACT_STATE_SLEEP), TRACT_STATE_SLEEP);
	/* runnable again (a pass later, no span known): that wait decides */
	proc_runq__new_pass(r);
	proc_runq__new_pass(r);
	assert_int_equal(is_runq(r, 7, 2000, 1000000, 0), 1);
	/* a reused tid starts again: nothing known, half, so RUNQ and RUN in turn */
	proc_runq__new_pass(r);
	assert_int_equal(is_runq(r, 7, 0, 0, 0), 1);
	assert_int_equal(is_runq(r, 7, 0, 0, 0), 0);
	assert_int_equal(is_runq(r, 7, 0, 0, 0), 1);
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
			assert_int_equal(is_runq(r, round * 5000 + i, 0, 1000 * (round + 1), 0), 1);
		for (int p = 0; p < 70; p++)
			proc_runq__new_pass(r);
	}
	proc_runq__free(r);
}

static void overseen_fraction(void **state)
{
	(void)state;
	/* runnable 41% of the time, found R in 74% of the samples: 33 of each 74 R samples were off CPU */
	assert_int_equal(proc_runq_overseen(41, 100, 74, 100), (uint32_t)(33.0 / 74 * PROC_RUNQ_ONE + 0.5));
	/* found R no more often than it was runnable, or never found off CPU: nothing taken back */
	assert_int_equal(proc_runq_overseen(50, 100, 40, 100), 0);
	assert_int_equal(proc_runq_overseen(60, 100, 100, 100), 0);
	assert_int_equal(proc_runq_overseen(0, 0, 0, 0), 0);
}

/*
 * A thread runnable 40% of each pass (on a CPU 20%, queued 20%) and in D
 * otherwise, that every look finds R three times in four (as a look woken
 * with the disk's interrupt does): it is recorded runnable in 40% of its
 * samples, RUN half of those, and D in the rest.
 */
static void found_runnable_too_often(void **state)
{
	struct proc_runq *r = proc_runq__new();
	const uint64_t span = 20000000;
	uint64_t run = 0, wait = 0;
	int n[TRACT_STATE__COUNT] = { 0 };
	const int passes = 4000;

	(void)state;
	for (int pass = 0; pass < passes; pass++) {
		proc_runq__new_pass(r);
		run += span / 5;
		wait += span / 5;
		n[proc_runq__state(r, 9, run, wait, (uint64_t)(pass + 1) * span,
				   pass % 4 ? TRACT_STATE_RUN : TRACT_STATE_DISK)]++;
	}
	/* the sums' first passes aside, within a few samples of 40% and 20% */
	assert_true(abs(n[TRACT_STATE_RUN] + n[TRACT_STATE_RUNQ] - passes * 2 / 5) < passes / 50);
	assert_true(abs(n[TRACT_STATE_RUN] - passes / 5) < passes / 50);
	assert_int_equal(n[TRACT_STATE_RUN] + n[TRACT_STATE_RUNQ] + n[TRACT_STATE_DISK], passes);
	proc_runq__free(r);
}

/* A spinner queued half of the time is never found off CPU: every sample stays RUN or RUNQ. */
static void spinner_keeps_every_r(void **state)
{
	struct proc_runq *r = proc_runq__new();
	uint64_t run = 0, wait = 0;

	(void)state;
	for (int pass = 0; pass < 1000; pass++) {
		int s;

		proc_runq__new_pass(r);
		/* its waits counted in lumps when they end: some spans look less than runnable */
		if (pass % 4 == 3)
			wait += 40000000;
		else
			run += 10000000;
		s = proc_runq__state(r, 5, run, wait, (uint64_t)(pass + 1) * 20000000, TRACT_STATE_RUN);
		assert_true(s == TRACT_STATE_RUN || s == TRACT_STATE_RUNQ);
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
		cmocka_unit_test(overseen_fraction),
		cmocka_unit_test(found_runnable_too_often),
		cmocka_unit_test(spinner_keeps_every_r),
	};
	return cmocka_run_group_tests_name("proc_runq", tests, NULL, NULL);
}
