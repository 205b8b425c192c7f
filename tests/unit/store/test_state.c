// SPDX-License-Identifier: GPL-2.0-only
/* Decoding of kernel task states into tract's states (shared with BPF). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "value_names.h"
#include "tract/abi.h"

static void running_depends_on_the_cpu(void **state)
{
	(void)state;
	assert_int_equal(tract_decode_state(0, 0, 1), TRACT_STATE_RUN);
	assert_int_equal(tract_decode_state(0, 0, 0), TRACT_STATE_RUNQ);
}

/* set to sleep but not switched out yet: on its CPU, so running */
static void on_its_way_to_sleep_it_runs(void **state)
{
	(void)state;
	assert_int_equal(tract_decode_state(TRACT_TASK_UNINTERRUPTIBLE, 0, 1), TRACT_STATE_RUN);
	assert_int_equal(tract_decode_state(TRACT_TASK_INTERRUPTIBLE, 0, 1), TRACT_STATE_RUN);
	assert_int_equal(tract_decode_state(TRACT_TASK_UNINTERRUPTIBLE | TRACT_TASK_NOLOAD, 0, 1), TRACT_STATE_RUN);
	/* but an exiting task's last switch is its end */
	assert_int_equal(tract_decode_state(0x80, TRACT_EXIT_ZOMBIE, 1), TRACT_STATE_ZOMBIE);
}

static void sleeps(void **state)
{
	(void)state;
	assert_int_equal(tract_decode_state(TRACT_TASK_INTERRUPTIBLE, 0, 0), TRACT_STATE_SLEEP);
	assert_int_equal(tract_decode_state(TRACT_TASK_UNINTERRUPTIBLE, 0, 0), TRACT_STATE_DISK);
	/* TASK_KILLABLE = WAKEKILL | UNINTERRUPTIBLE is still D state */
	assert_int_equal(tract_decode_state(0x100 | TRACT_TASK_UNINTERRUPTIBLE, 0, 0), TRACT_STATE_DISK);
	/* TASK_IDLE = UNINTERRUPTIBLE | NOLOAD: idle kernel threads, not disk waits */
	assert_int_equal(tract_decode_state(TRACT_TASK_UNINTERRUPTIBLE | TRACT_TASK_NOLOAD, 0, 0),
			 TRACT_STATE_IDLE);
	assert_int_equal(tract_decode_state(TRACT_TASK_PARKED, 0, 0), TRACT_STATE_IDLE);
	/* a freezable interruptible sleep (6.1+: TASK_FREEZABLE = 0x2000) is still a sleep */
	assert_int_equal(tract_decode_state(0x2000 | TRACT_TASK_INTERRUPTIBLE, 0, 0), TRACT_STATE_SLEEP);
}

static void stopped_traced_and_dead(void **state)
{
	(void)state;
	/* TASK_STOPPED = WAKEKILL | __TASK_STOPPED */
	assert_int_equal(tract_decode_state(0x100 | TRACT_TASK_STOPPED, 0, 0), TRACT_STATE_STOPPED);
	assert_int_equal(tract_decode_state(TRACT_TASK_TRACED, 0, 0), TRACT_STATE_TRACED);
	assert_int_equal(tract_decode_state(0x80, TRACT_EXIT_ZOMBIE, 0), TRACT_STATE_ZOMBIE);
	assert_int_equal(tract_decode_state(0x80, TRACT_EXIT_DEAD, 0), TRACT_STATE_ZOMBIE);
}

static void every_state_has_a_name(void **state)
{
	const char *want[] = { "RUN", "RUNQ", "DISK", "SLEEP", "STOPPED", "TRACED", "ZOMBIE", "IDLE" };

	(void)state;
	assert_int_equal(TRACT_STATE__COUNT, 8);
	for (int i = 0; i < TRACT_STATE__COUNT; i++)
		assert_string_equal(state_name(i), want[i]);
	assert_string_equal(state_name(99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(running_depends_on_the_cpu),
		cmocka_unit_test(on_its_way_to_sleep_it_runs),
		cmocka_unit_test(sleeps),
		cmocka_unit_test(stopped_traced_and_dead),
		cmocka_unit_test(every_state_has_a_name),
	};
	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
