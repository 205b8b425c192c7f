// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sampled wait's end as a wait_ends row: its boot times in UTC
 * microseconds, its ender a thread (blocked), a timer (sleeping) or an
 * interrupt (input), the names cut to the row's size, and a start the
 * sample's estimate put after the wakeup held at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "wait_ends.h"

/* a UTC of about 2026 against a boot time of a few hours */
#define UTC_MINUS_BOOT 1796000000000000000ll

static struct tract_wait_end end_by(uint32_t ender_tid, uint32_t ender_tgid, const char *comm)
{
	struct tract_wait_end e = { .tid = 42, .tgid = 40, .ender_tid = ender_tid, .ender_tgid = ender_tgid,
				    .start_ns = 7200000001999ull, .end_ns = 7200300002999ull };

	if (comm)
		strncpy(e.ender_comm, comm, sizeof(e.ender_comm));
	return e;
}

static void a_thread_blocks(void **state)
{
	struct tract_wait_end e = end_by(77, 70, "kicker");
	struct wait_end_row r;

	(void)state;
	/* the class is the kernel side's, by the ender: a thread of the same program */
	e.wait_class = TRACT_WAIT_BLOCKED;
	memset(&r, 0xa5, sizeof(r));
	wait_end_row__from(&r, &e, UTC_MINUS_BOOT, NULL);
	assert_int_equal(r.tid, 42);
	assert_int_equal(r.tgid, 40);
	/* ns to µs, rounded down, after the offset */
	assert_int_equal(r.start_us, 1796007200000001ull);
	assert_int_equal(r.end_us, 1796007200300002ull);
	assert_int_equal(r.ender_tid, 77);
	assert_int_equal(r.ender_tgid, 70);
	assert_string_equal(r.ender, "kicker");
	assert_string_equal(r.wait_class, "blocked");
}

static void a_timer_sleeps_and_an_interrupt_is_input(void **state)
{
	struct tract_wait_end timer = end_by(TRACT_WAKER_TIMER, 0, NULL), irq = end_by(TRACT_WAKER_SOFTIRQ | 3, 0, NULL);
	struct wait_end_row r;

	(void)state;
	timer.wait_class = TRACT_WAIT_SLEEPING;
	irq.wait_class = TRACT_WAIT_INPUT;
	wait_end_row__from(&r, &timer, UTC_MINUS_BOOT, "timer");
	assert_int_equal(r.ender_tid, 0);
	assert_int_equal(r.ender_tgid, 0);
	assert_string_equal(r.ender, "timer");
	assert_string_equal(r.wait_class, "sleeping");
	wait_end_row__from(&r, &irq, UTC_MINUS_BOOT, "softirq/NET_RX");
	assert_int_equal(r.ender_tid, 0);
	assert_string_equal(r.ender, "softirq/NET_RX");
	assert_string_equal(r.wait_class, "input");
}

static void names_and_times_are_kept_in_bounds(void **state)
{
	/* a comm of all 16 bytes, no NUL: the row's name ends within its array */
	struct tract_wait_end e = end_by(77, 70, NULL);
	struct wait_end_row r;

	(void)state;
	memset(e.ender_comm, 'x', sizeof(e.ender_comm));
	/* a start estimated after the wakeup */
	e.start_ns = e.end_ns + 5000;
	wait_end_row__from(&r, &e, UTC_MINUS_BOOT, NULL);
	assert_int_equal(strlen(r.ender), sizeof(r.ender) - 1);
	assert_int_equal(r.start_us, r.end_us);
	/* a boot time before the epoch's offset reads 0, not a wrapped time */
	wait_end_row__from(&r, &e, -(int64_t)e.end_ns - 1000000, NULL);
	assert_int_equal(r.end_us, 0);
	assert_int_equal(r.start_us, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_thread_blocks),
		cmocka_unit_test(a_timer_sleeps_and_an_interrupt_is_input),
		cmocka_unit_test(names_and_times_are_kept_in_bounds),
	};

	return cmocka_run_group_tests_name("wait_ends", tests, NULL, NULL);
}
