// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "targets.h"
#include "util.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct targets {
	struct pollfd *fds;	/* fd -1: exited before it was opened */
	uint32_t *pids;
	size_t nr;
};

/*
 * Where no pidfd could be had: from the process's status, a zombie or gone
 * being exited.
 */
static int gone_by_status(uint32_t pid)
{
	char path[64], line[256];
	FILE *f;
	int gone = 0;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6)) {
			const char *st = line + 6 + strspn(line + 6, " \t");

			gone = *st == 'Z' || *st == 'X';
			break;
		}
	fclose(f);
	return gone;
}

struct targets *targets__open(const uint32_t *pids, size_t nr)
{
	struct targets *t = xcalloc(1, sizeof(*t));

	t->nr = nr;
	t->fds = xcalloc(nr ? nr : 1, sizeof(*t->fds));
	t->pids = xcalloc(nr ? nr : 1, sizeof(*t->pids));
	for (size_t i = 0; i < nr; i++) {
		t->pids[i] = pids[i];
		t->fds[i].events = POLLIN;
		t->fds[i].fd = (int)syscall(SYS_pidfd_open, (pid_t)pids[i], 0);
		/* -2: no pidfd for a reason other than the process being gone */
		if (t->fds[i].fd < 0 && errno != ESRCH)
			t->fds[i].fd = -2;
	}
	return t;
}

void targets__free(struct targets *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		if (t->fds[i].fd >= 0)
			close(t->fds[i].fd);
	free(t->fds);
	free(t->pids);
	free(t);
}

int targets__gone(struct targets *t)
{
	if (!t->nr)
		return 0;
	for (size_t i = 0; i < t->nr; i++) {
		struct pollfd *p = &t->fds[i];

		if (p->fd == -1)
			continue;
		if (p->fd == -2) {
			if (!gone_by_status(t->pids[i]))
				return 0;
			continue;
		}
		/* readable once the whole process has exited, its leader and every thread */
		p->revents = 0;
		if (poll(p, 1, 0) <= 0 || !(p->revents & (POLLIN | POLLHUP | POLLERR)))
			return 0;
	}
	return 1;
}
