// SPDX-License-Identifier: GPL-2.0-only
/* The idle-wait half of the active-thread policy; the rest is in BPF. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sampler.h"
#include "syscalls.h"
#include "util.h"

/*
 * Where idle thread pools, event loops and timers wait.  A thread asleep in
 * one of these is shown only while its sleep is younger than the grace, or
 * when the futex is a contended lock; see is_active() in bpf/tract.bpf.c.
 */
const char *const default_idle_syscalls =
	"futex,futex_waitv,epoll_wait,epoll_pwait,epoll_pwait2,poll,ppoll,select,"
	"pselect6,nanosleep,clock_nanosleep,pause,rt_sigsuspend,rt_sigtimedwait,"
	"wait4,waitid,accept,accept4,io_getevents,io_pgetevents,msgrcv,mq_timedreceive";

int idle_syscalls__parse(const char *list, uint64_t *bitmap, int strict, const char **bad)
{
	static char badname[64];
	char *copy = xstrdup(list), *save = NULL;
	int err = 0;

	memset(bitmap, 0, IDLE_SYSCALLS_MAX / 8);
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		int nr = syscall_number(name);

		if (nr < 0 || nr >= IDLE_SYSCALLS_MAX) {
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
