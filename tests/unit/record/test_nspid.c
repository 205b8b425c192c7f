// SPDX-License-Identifier: GPL-2.0-only
/* A thread's tid in its innermost pid namespace, from its status file; the host's tid of a namespace's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "nspid.h"

static uint32_t of(const char *text)
{
	return nspid_innermost(text, strlen(text));
}

static void the_last_field_of_nspid(void **state)
{
	(void)state;
	assert_int_equal(of("Name:\tx\nTgid:\t7\nNSpid:\t13897\t4\nNSpgid:\t1\n"), 4);
	assert_int_equal(of("NSpid:\t13897\n"), 13897);
	/* three namespaces deep, the line last, no newline */
	assert_int_equal(of("Pid:\t9\nNSpid:\t900\t90\t9"), 9);
	/* not NSpgid, not a line that only contains the word */
	assert_int_equal(of("NSpgid:\t5\nXNSpid:\t6\n"), 0);
	assert_int_equal(of(""), 0);
	assert_int_equal(of("NSpid:\n"), 0);
	/* a number past 32 bits is none */
	assert_int_equal(of("NSpid:\t99999999999\n"), 0);
}

/* This process in the host's namespace: each of its threads is its own. */
static void a_thread_of_the_host_namespace_is_itself(void **state)
{
	struct nspid *c = nspid__new();
	uint32_t me = (uint32_t)syscall(SYS_gettid);

	(void)state;
	assert_int_equal(nspid__global(c, (uint32_t)getpid(), me), me);
	/* again, from the cache */
	assert_int_equal(nspid__global(c, (uint32_t)getpid(), me), me);
	assert_int_equal(nspid__global(c, (uint32_t)getpid(), 0), 0);
	/* no thread of this process has that tid */
	assert_int_equal(nspid__global(c, (uint32_t)getpid(), 0x7ffffff0), 0);
	nspid__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_last_field_of_nspid),
		cmocka_unit_test(a_thread_of_the_host_namespace_is_itself),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
