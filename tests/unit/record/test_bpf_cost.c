// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a pass says its BPF programs cost: the run time since the previous
 * pass when the stats were on at both, "not measured" (never 0) when they
 * were off at either, and figures that add up to the whole run time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "bpf_cost.h"

/* One pass of counted (the stats were on for it) with the programs' summed run time at run_ns. */
static struct pass pass_at(struct bpf_cost_mark *m, int counted, uint64_t run_ns)
{
	struct pass p = { 0 };

	bpf_cost_mark__pass(m, counted, run_ns, &p);
	return p;
}

static void measured_between_two_counted_passes(void **state)
{
	struct bpf_cost_mark m = { .run_ns = 1000000, .counted = 1 };
	struct pass p;

	(void)state;
	p = pass_at(&m, 1, 1250000);
	assert_true(p.has_bpf_us);
	assert_int_equal(p.bpf_us, 250);
	/* nothing ran: measured, and free */
	p = pass_at(&m, 1, 1250000);
	assert_true(p.has_bpf_us);
	assert_int_equal(p.bpf_us, 0);
}

static void stats_off_is_not_measured(void **state)
{
	struct bpf_cost_mark m = { 0 };
	struct pass p;

	(void)state;
	/* off from the start */
	p = pass_at(&m, 0, 0);
	assert_false(p.has_bpf_us);
	/* switched on: this pass's interval began with them off */
	p = pass_at(&m, 1, 5000000);
	assert_false(p.has_bpf_us);
	p = pass_at(&m, 1, 5400000);
	assert_true(p.has_bpf_us);
	assert_int_equal(p.bpf_us, 400);
	/* switched off: not counted, and the next one on again counts from itself */
	p = pass_at(&m, 0, 0);
	assert_false(p.has_bpf_us);
	p = pass_at(&m, 1, 5900000);
	assert_false(p.has_bpf_us);
	p = pass_at(&m, 1, 6000000);
	assert_true(p.has_bpf_us);
	assert_int_equal(p.bpf_us, 100);
}

static void the_passes_add_up_to_the_run_time(void **state)
{
	struct bpf_cost_mark m = { .run_ns = 999, .counted = 1 };
	uint64_t run_ns = 999, sum = 0;

	(void)state;
	/* 1.7 us a pass: truncating each would lose 0.7 us of every 1.7 */
	for (int i = 0; i < 1000; i++) {
		struct pass p;

		run_ns += 1700;
		p = pass_at(&m, 1, run_ns);
		assert_true(p.has_bpf_us);
		sum += p.bpf_us;
	}
	assert_int_equal(sum, run_ns / 1000 - 999 / 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(measured_between_two_counted_passes),
		cmocka_unit_test(stats_off_is_not_measured),
		cmocka_unit_test(the_passes_add_up_to_the_run_time),
	};

	return cmocka_run_group_tests_name("bpf_cost", tests, NULL, NULL);
}
