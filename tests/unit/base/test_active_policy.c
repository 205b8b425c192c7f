// SPDX-License-Identifier: GPL-2.0-only
/* The active-thread policy both sources apply (tract/abi.h), with what a wait's site has learned. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "tract/abi.h"

#define MS 1000000ull

/* A thread asleep in an idle syscall for age ns, its site's facts as given. */
static struct tract_policy_facts idle_wait(uint64_t age, int site_keeps, int site_idle)
{
	return (struct tract_policy_facts){
		.state = TRACT_STATE_SLEEP, .in_syscall = 1, .idle_syscall = 1, .has_state_time = 1,
		.state_ns = age, .idle_grace_ns = 10 * MS, .site_keeps = (uint8_t)site_keeps,
		.site_idle = (uint8_t)site_idle,
	};
}

static void a_site_decides_an_idle_wait(void **state)
{
	struct tract_policy_facts f;

	(void)state;
	/* nothing learned: the grace */
	f = idle_wait(2 * MS, 0, 0);
	assert_true(tract_is_active(&f));
	f = idle_wait(14000 * MS, 0, 0);
	assert_false(tract_is_active(&f));
	/* waits there end by another worker of the program: however long */
	f = idle_wait(14000 * MS, 1, 0);
	assert_true(tract_is_active(&f));
	/* by a timer or input: idle from the start */
	f = idle_wait(1 * MS, 0, 1);
	assert_false(tract_is_active(&f));
	/* a contended lock stays active whatever the site says */
	f = idle_wait(14000 * MS, 0, 1);
	f.lock_wait = 1;
	assert_true(tract_is_active(&f));
	/* a syscall that is no idle wait is kept, whatever its site */
	f = idle_wait(14000 * MS, 0, 1);
	f.idle_syscall = 0;
	assert_true(tract_is_active(&f));
}

static void waits_without_a_timeout(void **state)
{
	__u64 forever[6] = { 5, 0, 64, (__u64)-1, 0, 0 }, timed[6] = { 5, 0, 64, 200, 0, 0 };
	__u64 futex_forever[6] = { 0x1000, 0, 0, 0, 0, 0 }, futex_timed[6] = { 0x1000, 0, 0, 0x7ffd00, 0, 0 };
	__u64 poll_forever[6] = { 0, 1, (__u64)-1, 0, 0, 0 };

	(void)state;
	/* epoll_wait(epfd, events, maxevents, timeout) */
	assert_true(tract_wait_is_untimed(232, forever));
	assert_false(tract_wait_is_untimed(232, timed));
	assert_true(tract_wait_is_untimed(281, forever));
	/* futex(uaddr, op, val, timeout) */
	assert_true(tract_wait_is_untimed(TRACT_NR_FUTEX, futex_forever));
	assert_false(tract_wait_is_untimed(TRACT_NR_FUTEX, futex_timed));
	/* poll(fds, nfds, timeout) */
	assert_true(tract_wait_is_untimed(7, poll_forever));
	assert_false(tract_wait_is_untimed(7, timed));
	/* a nap is always timed */
	assert_false(tract_wait_is_untimed(35, forever));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_site_decides_an_idle_wait),
		cmocka_unit_test(waits_without_a_timeout),
	};
	return cmocka_run_group_tests_name("active_policy", tests, NULL, NULL);
}
