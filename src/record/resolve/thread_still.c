// SPDX-License-Identifier: GPL-2.0-only
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tract/abi.h"
#include "thread_still.h"

/* The thread's file name, NUL-terminated into buf, or -1. */
static ssize_t read_task_file(const char *proc, uint32_t tgid, uint32_t tid, const char *name, char *buf, size_t cap)
{
	char path[320];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/task/%u/%s", proc, tgid, tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The count the copy's kind names, as the thread has it now: its low 30 bits, or -1. */
static int64_t count_now(const char *proc, uint32_t tgid, uint32_t tid, uint32_t kind)
{
	char buf[4096], *at, *end;
	unsigned long long v;

	if (kind == TRACT_STILL_OFF) {
		/* schedstat: time on a CPU, time waiting for one, times it got one */
		if (read_task_file(proc, tgid, tid, "schedstat", buf, sizeof(buf)) < 0 ||
		    sscanf(buf, "%*s %*s %llu", &v) != 1)
			return -1;
	} else {
		/* the line's own start: nonvoluntary_ctxt_switches ends the same */
		if (read_task_file(proc, tgid, tid, "status", buf, sizeof(buf)) < 0 ||
		    !(at = strstr(buf, "\nvoluntary_ctxt_switches:")))
			return -1;
		v = strtoull(at + sizeof("\nvoluntary_ctxt_switches:") - 1, &end, 10);
		if (end == at + sizeof("\nvoluntary_ctxt_switches:") - 1)
			return -1;
	}
	return (int64_t)(v & ((1u << 30) - 1));
}

int thread_still(const char *proc, uint32_t tgid, uint32_t tid, uint32_t still)
{
	uint32_t kind = still & TRACT_STILL_KIND;

	if (kind != TRACT_STILL_USER && kind != TRACT_STILL_OFF)
		return 0;
	return count_now(proc ? proc : "/proc", tgid, tid, kind) == (int64_t)(still >> 2);
}
