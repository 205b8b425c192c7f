// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "syscall_names.h"
#include "syscalls.h"
#include "util.h"

int syscall_count(void)
{
	return ARRAY_SIZE(syscall_names);
}

const char *syscall_name(int nr)
{
	if (nr < 0 || nr >= syscall_count())
		return NULL;
	return syscall_names[nr];
}

/*
 * The numbers of the named syscalls by name, then number: a name is looked
 * up for every sample a query or the recorder classifies (activity.c), and
 * the table has hundreds.  Made once, by whichever thread asks first.
 */
static int by_name[ARRAY_SIZE(syscall_names)], nr_by_name;
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int by_name_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b, c = strcmp(syscall_names[x], syscall_names[y]);

	return c ? c : x - y;
}

static void sort_by_name(void)
{
	for (int nr = 0; nr < syscall_count(); nr++)
		if (syscall_names[nr])
			by_name[nr_by_name++] = nr;
	qsort(by_name, (size_t)nr_by_name, sizeof(by_name[0]), by_name_cmp);
}

int syscall_number(const char *name)
{
	int lo = 0, hi;

	pthread_once(&by_name_once, sort_by_name);
	/* the first of equal names: the lowest number, as a scan from 0 finds */
	hi = nr_by_name;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(syscall_names[by_name[mid]], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr_by_name && !strcmp(syscall_names[by_name[lo]], name) ? by_name[lo] : -1;
}

int syscall_number_of(const char *name)
{
	int nr = syscall_number(name);
	char *end, again[32];
	long n;

	if (nr >= 0 || strncmp(name, "syscall_", 8) || name[8] < '0' || name[8] > '9')
		return nr;
	n = strtol(name + 8, &end, 10);
	if (*end || n >= TRACT_SYSCALLS_MAX || syscall_name((int)n))
		return -1;
	/* only the name this build writes for n: not syscall_07 */
	return strcmp(syscall_name_or_number((int)n, again, sizeof(again)), name) ? -1 : (int)n;
}

void fd_syscalls_bitmap(uint64_t *bitmap, int nbits)
{
	static const char *const names[] = {
		"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
		"preadv2", "pwritev2", "fsync", "fdatasync", "sync_file_range", "fallocate",
		"ftruncate", "lseek", "getdents64", "ioctl", "fcntl", "flock", "fstat", "fstatfs",
		"recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg", "connect",
		"accept", "accept4", "shutdown", "sendfile", "splice", "tee", "copy_file_range",
		"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "syncfs", "fadvise64",
		"readahead", "getsockopt", "setsockopt", "bind", "listen",
	};

	memset(bitmap, 0, nbits / 8);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int nr = syscall_number(names[i]);

		if (nr >= 0 && nr < nbits)
			bitmap[nr / 64] |= 1ull << (nr % 64);
	}
}

/*
 * Where idle thread pools, event loops and timers wait.  A thread asleep in
 * one of these is shown only while its sleep is younger than the grace, or
 * when the futex is a contended lock; see is_active() in bpf/tract.bpf.c.
 */
const char *syscall_name_or_number(int nr, char *buf, size_t cap)
{
	const char *name = syscall_name(nr);

	if (name)
		snprintf(buf, cap, "%s", name);
	else
		snprintf(buf, cap, "syscall_%d", nr);
	return buf;
}

const char *const default_idle_syscalls =
	"futex,futex_waitv,epoll_wait,epoll_pwait,epoll_pwait2,poll,ppoll,select,"
	"pselect6,nanosleep,clock_nanosleep,pause,rt_sigsuspend,rt_sigtimedwait,"
	"wait4,waitid,accept,accept4,io_getevents,io_pgetevents,msgrcv,mq_timedreceive";

/*
 * Syscalls that only read an identity, a clock or a limit of the caller:
 * they never wait, so their latency is never the answer to anything, and
 * timing them would cost two clock reads for nothing (tract(8), --untimed-syscalls).
 */
const char *const default_untimed_syscalls =
	"getpid,getppid,gettid,getuid,geteuid,getgid,getegid,getresuid,getresgid,getpgrp,getpgid,"
	"getsid,getcpu,umask,time,gettimeofday,clock_gettime,clock_getres,uname,times,getrlimit";

int syscall_set__parse(const char *list, uint64_t *bitmap, int strict, const char **bad)
{
	static char badname[64];
	char *copy = xstrdup(list), *save = NULL;
	int err = 0;

	memset(bitmap, 0, TRACT_SYSCALLS_MAX / 8);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int nr = syscall_number(name);

		if (nr < 0 || nr >= TRACT_SYSCALLS_MAX) {
			/* the default list may name syscalls older headers lack */
			if (!strict)
				continue;
			snprintf(badname, sizeof(badname), "%s", name);
			*bad = badname;
			err = -EINVAL;
			break;
		}
		bitmap[nr / 64] |= 1ull << (nr % 64);
	}
	free(copy);
	return err;
}

void syscall_set__never_waiting(const uint64_t *untimed, uint64_t *out)
{
	const char *bad;

	syscall_set__parse(default_untimed_syscalls, out, 0, &bad);
	for (int i = 0; i < TRACT_SYSCALLS_MAX / 64; i++)
		out[i] &= untimed[i];
}
