// SPDX-License-Identifier: GPL-2.0-only
/* What a sample is doing, in the words the load average and xtop can be held to. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "activity.h"
#include "tract/abi.h"

static void states_that_count_in_the_load(void **state)
{
	(void)state;
	assert_string_equal(activity_of("RUN", NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "cpu");
	assert_string_equal(activity_of("RUN", "read", 5, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "cpu");
	assert_string_equal(activity_of("RUNQ", NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "runq");
	assert_string_equal(activity_of("DISK", "fsync", 300, -1, "/srv/db", 0, 0, TRACT_WAIT_UNKNOWN), "disk");
	assert_string_equal(activity_of("STOPPED", NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "stopped");
	assert_null(activity_of(NULL, NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN));
}

static void a_lock_is_not_an_idle_futex(void **state)
{
	(void)state;
	/* glibc's contended mutex: FUTEX_WAIT_PRIVATE on 2 */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 128, 2, TRACT_WAIT_UNKNOWN), "lock");
	/* FUTEX_LOCK_PI */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 6, 0, TRACT_WAIT_UNKNOWN), "lock");
	/* a condition variable: FUTEX_WAIT_BITSET_PRIVATE */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 137, 0, TRACT_WAIT_UNKNOWN), "idle");
}

static void input_is_a_terminal_or_a_long_silence(void **state)
{
	(void)state;
	assert_string_equal(activity_of("SLEEP", "read", 200, -1, "/dev/pts/3", 0, 0, TRACT_WAIT_UNKNOWN), "input");
	assert_string_equal(activity_of("SLEEP", "read", 200, -1, "/dev/tty1", 0, 0, TRACT_WAIT_UNKNOWN), "input");
	/* a client waiting on its server's reply is waiting, not idle */
	assert_string_equal(activity_of("SLEEP", "recvfrom", 571000, -1, "tcp 127.0.0.1:1->127.0.0.1:2 ESTABLISHED", 0, 0, TRACT_WAIT_UNKNOWN),
			    "waiting");
	assert_string_equal(activity_of("SLEEP", "read", 300000, -1, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
	/* ... until nobody has written for 10 s */
	assert_string_equal(activity_of("SLEEP", "read", ACTIVITY_INPUT_AFTER_US, -1, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "input");
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 60000000, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "input");
	/* a young event-loop wait is an idle wait */
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 3000, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
	/* time unknown: not input unless a terminal */
	assert_string_equal(activity_of("SLEEP", "read", -1, -1, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
	/*
	 * a read begun before tract started: asleep 20 s, so in the read at
	 * least that long; a young sleep there is still a wait
	 */
	assert_string_equal(activity_of("SLEEP", "read", -1, 20000000, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "input");
	assert_string_equal(activity_of("SLEEP", "read", -1, 2000, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
	/* the syscall's own time wins where it is known */
	assert_string_equal(activity_of("SLEEP", "read", 300000, 20000000, "pipe:[7]", 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
}

static void other_sleeps(void **state)
{
	(void)state;
	assert_string_equal(activity_of("SLEEP", "wait4", 9000000, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
	assert_string_equal(activity_of("SLEEP", "semop", 20, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
	/* asleep outside a syscall: a kernel thread */
	assert_string_equal(activity_of("SLEEP", NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
	assert_string_equal(activity_of("IDLE", NULL, -1, -1, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
}

/* What ended the waits at its site says what a wait is, whatever its syscall's name. */
static void wait_class_decides(void **state)
{
	(void)state;
	/* a latch's epoll_wait whose waits end by another worker of the server: blocked, however long */
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 14000000, -1, NULL, 0, 0, TRACT_WAIT_BLOCKED), "blocked");
	/* a monitor thread's short sleeps end by a timer */
	assert_string_equal(activity_of("SLEEP", "nanosleep", 20, -1, NULL, 0, 0, TRACT_WAIT_SLEEPING), "sleep");
	/* a pipe's reader whose writer is another program: input */
	assert_string_equal(activity_of("SLEEP", "read", 300000, -1, "pipe:[7]", 0, 0, TRACT_WAIT_INPUT), "input");
	/* a server's idle wait for its clients stays idle */
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 3000, -1, NULL, 0, 0, TRACT_WAIT_INPUT), "idle");
	/* a known lock stays a lock; a state no syscall explains keeps its own */
	assert_string_equal(activity_of("SLEEP", "futex", 50, -1, NULL, 128, 2, TRACT_WAIT_BLOCKED), "lock");
	assert_string_equal(activity_of("RUN", "read", 5, -1, NULL, 0, 0, TRACT_WAIT_BLOCKED), "cpu");
	assert_string_equal(activity_of("DISK", "fsync", 300, -1, NULL, 0, 0, TRACT_WAIT_INPUT), "disk");
}

/*
 * An idle syscall's wait younger than the grace is one the recorder keeps
 * as active (it may be a lock's hand-off): never idle, whatever its age
 * in the syscall says.  Older, or of an unknown age, it is idle.
 */
static void a_young_idle_wait_is_no_idle_one(void **state)
{
	int64_t young = (int64_t)(TRACT_IDLE_GRACE_DEFAULT_NS / 1000) - 1, old = young + 1;

	(void)state;
	/* no wait at its site has ended yet: a wait of a kind not known */
	assert_string_equal(activity_of("SLEEP", "futex", 3000, young, NULL, 137, 0, TRACT_WAIT_UNKNOWN), "waiting");
	assert_string_equal(activity_of("SLEEP", "epoll_wait", 3000, 2000, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "waiting");
	assert_string_equal(activity_of("SLEEP", "futex", old, old, NULL, 137, 0, TRACT_WAIT_UNKNOWN), "idle");
	/* but a nap's kind is known from the start: its timer ends it */
	assert_string_equal(activity_of("SLEEP", "clock_nanosleep", 300, 300, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "sleep");
	assert_string_equal(activity_of("SLEEP", "nanosleep", young, young, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "sleep");
	assert_string_equal(activity_of("SLEEP", "nanosleep", old, old, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
	/* ended by input (a child's exit, the network): input while young */
	assert_string_equal(activity_of("SLEEP", "wait4", 4000, 4000, NULL, 0, 0, TRACT_WAIT_INPUT), "input");
	assert_string_equal(activity_of("SLEEP", "wait4", old, old, NULL, 0, 0, TRACT_WAIT_INPUT), "idle");
	/* the classes that decide whatever the age still do */
	assert_string_equal(activity_of("SLEEP", "nanosleep", 20, 20, NULL, 0, 0, TRACT_WAIT_SLEEPING), "sleep");
	assert_string_equal(activity_of("SLEEP", "futex", 20, 20, NULL, 137, 0, TRACT_WAIT_BLOCKED), "blocked");
	/* a sleep outside a syscall (a kernel thread's) is no wait the policy keeps for its age */
	assert_string_equal(activity_of("SLEEP", NULL, -1, 20, NULL, 0, 0, TRACT_WAIT_UNKNOWN), "idle");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wait_class_decides),
		cmocka_unit_test(states_that_count_in_the_load),
		cmocka_unit_test(a_lock_is_not_an_idle_futex),
		cmocka_unit_test(input_is_a_terminal_or_a_long_silence),
		cmocka_unit_test(other_sleeps),
		cmocka_unit_test(a_young_idle_wait_is_no_idle_one),
	};
	return cmocka_run_group_tests_name("activity", tests, NULL, NULL);
}
