// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorder's seccomp filter, in a child that installs it: starting a
 * program, tracing another process and unsharing fail with EPERM, what the
 * recorder does (files, /proc) still works.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "seccomp.h"

/* what the child saw, as its exit status: 0 when all was as it should be */
static int child_checks(void)
{
	char *const argv[] = { "true", NULL }, *const envp[] = { NULL };
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || seccomp_forbid())
		return 10;
	if (execve("/bin/true", argv, envp) != -1 || errno != EPERM)
		return 11;
#if !defined(__SANITIZE_ADDRESS__)
	/* (a sanitizer build keeps ptrace for LeakSanitizer) */
	if (ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) != -1 || errno != EPERM)
		return 12;
#endif
	if (unshare(CLONE_NEWNS) != -1 || errno != EPERM)
		return 13;
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd < 0)
		return 14;
	close(fd);
	return 0;
}

static void the_filter_forbids_programs_tracing_and_namespaces(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child_checks());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_filter_forbids_programs_tracing_and_namespaces),
	};
	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}
