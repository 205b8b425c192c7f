// SPDX-License-Identifier: GPL-2.0-only
/*
 * A file named by a process's maps, opened as that process sees it: an
 * absolute symlink a user planted resolves inside the process's root (a
 * chrooted child stands for a container), never the host's, and a FIFO or
 * a device is never opened.  Needs root (chroot).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "proc_file.h"

static char top[64], secret[128];
static pid_t child = -1;

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void read_back(int fd, const char *want)
{
	char buf[64] = "";

	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, want);
}

/* a root of its own, holding a file named as a host file is, and a child chrooted into it */
static int setup(void **state)
{
	char path[256];
	int ready[2];

	(void)state;
	if (geteuid() != 0)
		return 0;
	snprintf(top, sizeof(top), "/tmp/tract-proc-file.XXXXXX");
	snprintf(secret, sizeof(secret), "/tmp/tract-proc-file-host.%d", (int)getpid());
	if (!mkdtemp(top) || pipe(ready))
		return -1;
	put("lib.so", "inside");
	/* the file the symlink names, in the child's root and on the host */
	snprintf(path, sizeof(path), "%s/tmp", top);
	if (mkdir(path, 0755))
		return -1;
	put(secret + 1, "container's");
	FILE *f = fopen(secret, "w");

	if (!f)
		return -1;
	fputs("host's", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/abs", top);
	if (symlink(secret, path))
		return -1;
	snprintf(path, sizeof(path), "%s/up", top);
	if (symlink("../../../../..", path))
		return -1;
	snprintf(path, sizeof(path), "%s/fifo", top);
	if (mkfifo(path, 0600))
		return -1;
	snprintf(path, sizeof(path), "%s/null", top);
	if (mknod(path, S_IFCHR | 0666, makedev(1, 3)))
		return -1;
	child = fork();
	if (child == 0) {
		if (chroot(top) || chdir("/"))
			_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char c;

	if (child < 0 || read(ready[0], &c, 1) != 1)
		return -1;
	close(ready[0]);
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (*top) {
		unlink(secret);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		return system(cmd) ? -1 : 0;
	}
	return 0;
}

static void a_file_of_the_processs_own_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	read_back(proc_file_open("/proc", child, "/lib.so"), "inside");
}

static void an_absolute_symlink_stays_inside_its_root(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	/* the host's file of that name says "host's": it must not be the one read */
	read_back(proc_file_open("/proc", child, "/abs"), "container's");
	/* and ".." never climbs out of it either: at its root it stays there */
	read_back(proc_file_open("/proc", child, "/up/lib.so"), "inside");
}

static void a_fifo_or_a_device_is_never_opened(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	/* a FIFO would block a reader, a device's open can act: neither is opened */
	assert_int_equal(proc_file_open("/proc", child, "/fifo"), -EPERM);
	assert_int_equal(proc_file_open("/proc", child, "/null"), -EPERM);
	assert_int_equal(proc_file_open("/proc", child, "/"), -EPERM);
	assert_int_equal(proc_file_open("/proc", child, "lib.so"), -EINVAL);
	assert_true(proc_file_open("/proc", child, "/missing") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_file_of_the_processs_own_root),
		cmocka_unit_test(an_absolute_symlink_stays_inside_its_root),
		cmocka_unit_test(a_fifo_or_a_device_is_never_opened),
	};
	return cmocka_run_group_tests_name("proc file", tests, setup, teardown);
}
