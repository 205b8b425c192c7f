// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host's steal per pass: /proc/stat's per-CPU steal read right (the
 * 8th figure, the summed "cpu" line left out, CPUs with gaps), turned into
 * each CPU's time since the previous pass (never past the pass's weight),
 * and given to the RUN samples on each CPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "host_steal.h"

static const char stat_text[] =
	"cpu  100 0 50 9000 7 0 3 777 0 0\n"
	"cpu0 60 0 30 4500 4 0 2 300 0 0\n"
	"cpu2 40 0 20 4500 3 0 1 477 0 0\n"
	"intr 12345 0 0\n"
	"ctxt 999\n";

static void it_reads_each_cpus_steal(void **state)
{
	uint64_t ticks[4] = { 0 };

	(void)state;
	/* the highest CPU + 1: CPU 1 offline has none */
	assert_int_equal(host_steal__parse(stat_text, ticks, 4), 3);
	assert_int_equal(ticks[0], 300);
	assert_int_equal(ticks[1], 0);
	assert_int_equal(ticks[2], 477);
	/* a CPU past what the caller holds is left out; no CPU lines at all say so */
	assert_int_equal(host_steal__parse(stat_text, ticks, 1), 1);
	assert_int_equal(host_steal__parse("intr 1\nctxt 2\n", ticks, 4), -1);
	assert_int_equal(host_steal__parse("cpu0 1 2 3\n", ticks, 4), -1);
}

static void a_pass_gets_its_cpus_steal(void **state)
{
	struct pass p = { .weight_us = 1000000 };
	uint64_t was[3] = { 100, 50, 7 }, now[3] = { 115, 50, 107 };
	struct sample *on0, *on1, *on2, *queued;

	(void)state;
	on0 = pass__add_row(&p);
	on0->state = TRACT_STATE_RUN, on0->cpu = 0;
	on1 = pass__add_row(&p);
	on1->state = TRACT_STATE_RUN, on1->cpu = 1;
	on2 = pass__add_row(&p);
	on2->state = TRACT_STATE_RUN, on2->cpu = 2;
	queued = pass__add_row(&p);
	queued->state = TRACT_STATE_RUNQ, queued->cpu = 0;
	/* 100 ticks a second: 15 ticks are 150 ms */
	host_steal__apply(&p, was, now, 3, 100);
	assert_int_equal(p.steal.nr, 2);
	assert_int_equal(p.steal.rows[0].cpu, 0);
	assert_int_equal(p.steal.rows[0].steal_us, 150000);
	/* CPU 2 lost 100 ticks, a whole second: all of the pass, no more */
	assert_int_equal(p.steal.rows[1].cpu, 2);
	assert_int_equal(p.steal.rows[1].steal_us, 1000000);
	assert_int_equal(p.steal_us, 1150000);
	assert_int_equal(on0->steal_us, 150000);
	assert_int_equal(on1->steal_us, 0);
	assert_int_equal(on2->steal_us, 1000000);
	/* a queued thread's CPU is not its own */
	assert_int_equal(queued->steal_us, 0);
	assert_int_equal(p.run_steal_us, 1150000);
	pass__free_rows(&p);

	/* a pass that stands for 100 ms takes at most that from a CPU, however late it came */
	p = (struct pass){ .weight_us = 100000 };
	host_steal__apply(&p, was, now, 3, 100);
	assert_int_equal(p.steal.nr, 2);
	assert_int_equal(p.steal.rows[0].steal_us, 100000);
	assert_int_equal(p.steal.rows[1].steal_us, 100000);
	pass__free_rows(&p);

	/* a counter that went back (a CPU replaced) takes nothing */
	p = (struct pass){ .weight_us = 1000000 };
	host_steal__apply(&p, now, was, 3, 100);
	assert_int_equal(p.steal.nr, 0);
	assert_int_equal(p.steal_us, 0);
	pass__free_rows(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(it_reads_each_cpus_steal),
		cmocka_unit_test(a_pass_gets_its_cpus_steal),
	};

	return cmocka_run_group_tests_name("host_steal", tests, NULL, NULL);
}
