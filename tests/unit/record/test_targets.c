// SPDX-License-Identifier: GPL-2.0-only
/* With -p: when a process counts as exited (targets.c), on real processes. */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "targets.h"

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* waits up to 5 s for targets__gone() to say want */
static int becomes(struct targets *t, int want)
{
	for (int i = 0; i < 500; i++) {
		if (targets__gone(t) == want)
			return 1;
		nap_ms(10);
	}
	return 0;
}

/* A child process running child(arg), and the targets of it. */
static pid_t spawn(void (*child)(int), int arg, struct targets **t)
{
	pid_t pid = fork();
	uint32_t target;

	assert_true(pid >= 0);
	if (!pid) {
		child(arg);
		_exit(0);
	}
	target = (uint32_t)pid;
	*t = targets__open(&target, 1);
	return pid;
}

static void waits(int fd)
{
	(void)fd;
	pause();
}

static void a_running_process_is_there_and_a_zombie_is_gone(void **state)
{
	struct targets *t;
	pid_t child = spawn(waits, -1, &t);

	(void)state;
	assert_int_equal(targets__gone(t), 0);
	kill(child, SIGKILL);
	/* not reaped yet: a zombie has exited */
	assert_true(becomes(t, 1));
	waitpid(child, NULL, 0);
	assert_int_equal(targets__gone(t), 1);
	targets__free(t);
}

/* a thread that runs until the parent closes its end of the pipe */
static void *reads_until_closed(void *arg)
{
	char c;

	while (read((int)(intptr_t)arg, &c, 1) > 0)
		;
	return NULL;
}

/* the pipe that keeps it reading: the parent's write end is the only one left open */
static int gate[2];

static void leaves_a_thread_behind(int fd)
{
	pthread_t th;

	close(gate[1]);
	pthread_create(&th, NULL, reads_until_closed, (void *)(intptr_t)fd);
	pthread_exit(NULL);
}

/* the process's main thread as /proc shows it: its state letter */
static char main_thread_state(pid_t pid)
{
	char path[64], buf[512], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : '?';
}

static void a_process_whose_main_thread_left_is_there_while_a_thread_runs(void **state)
{
	struct targets *t;
	pid_t child;
	int i;

	(void)state;
	assert_int_equal(pipe(gate), 0);
	child = spawn(leaves_a_thread_behind, gate[0], &t);
	close(gate[0]);
	for (i = 0; i < 500 && main_thread_state(child) != 'Z'; i++)
		nap_ms(10);
	assert_int_equal(main_thread_state(child), 'Z');
	/* the main thread is a zombie, its other thread still runs: the process has not exited */
	assert_int_equal(targets__gone(t), 0);
	close(gate[1]);
	assert_true(becomes(t, 1));
	waitpid(child, NULL, 0);
	targets__free(t);
}

static void a_pid_that_names_no_process_is_gone_and_none_named_never_is(void **state)
{
	uint32_t none = 0x3fffff00u;
	struct targets *t = targets__open(&none, 1), *host = targets__open(NULL, 0);

	(void)state;
	assert_int_equal(targets__gone(t), 1);
	assert_int_equal(targets__gone(host), 0);
	targets__free(t);
	targets__free(host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_running_process_is_there_and_a_zombie_is_gone),
		cmocka_unit_test(a_process_whose_main_thread_left_is_there_while_a_thread_runs),
		cmocka_unit_test(a_pid_that_names_no_process_is_gone_and_none_named_never_is),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
