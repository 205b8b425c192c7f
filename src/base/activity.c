// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <sys/syscall.h>
#include "activity.h"
#include "syscalls.h"
#include "tract/abi.h"

static int is_one_of(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return 1;
	return 0;
}

/* Where a thread waits for data to arrive: it ends when someone sends it. */
static const char *const input_syscalls[] = {
	"read", "readv", "recvfrom", "recvmsg", "recvmmsg", "poll", "ppoll", "select", "pselect6",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "accept", "accept4", NULL,
};

static int is_terminal(const char *file)
{
	return !strncmp(file, "/dev/pts/", 9) || !strncmp(file, "/dev/tty", 8) || !strcmp(file, "/dev/console");
}

_Static_assert(TRACT_NR_FCNTL == SYS_fcntl && TRACT_NR_FLOCK == SYS_flock, "the numbers BPF and user space use");

/* fcntl(F_SETLKW) and flock without LOCK_NB: a wait for a file lock (its second argument, arg1) */
static int is_file_lock_wait(const char *syscall, int64_t arg1)
{
	__u64 args[2] = { 0, (__u64)arg1 };

	return tract_file_lock_wait(!strcmp(syscall, "fcntl") ? TRACT_NR_FCNTL :
				    !strcmp(syscall, "flock") ? TRACT_NR_FLOCK : -1, args) != TRACT_FILE_LOCK_NONE;
}

/* The default idle waits of the recorder's policy (active.c). */
static int is_idle_wait(const char *syscall)
{
	static uint64_t idle[TRACT_SYSCALLS_MAX / 64];
	static int parsed;
	const char *bad;
	int nr = syscall_number(syscall);

	/* queries run in one thread: the set is made once, on first use */
	if (!parsed) {
		syscall_set__parse(default_idle_syscalls, idle, 0, &bad);
		parsed = 1;
	}
	return nr >= 0 && nr < TRACT_SYSCALLS_MAX && (idle[nr / 64] >> (nr % 64) & 1);
}

/*
 * How long the wait has lasted: its time in the syscall, or where the
 * syscall began before tract started, its time asleep, which the syscall
 * has lasted at least (the kernel knows when the thread last ran).
 */
static int64_t waited_us(int64_t sc_us, int64_t state_us)
{
	return sc_us >= 0 ? sc_us : state_us;
}

const char *const activity_names[] = { "cpu",	 "runq",  "disk", "lock", "blocked", "waiting",
				       "sleep", "input", "idle", "stopped", NULL };

const char *activity_of(const char *state, const char *syscall, int64_t sc_us, int64_t state_us, const char *file,
			int64_t arg1, int64_t arg2, int wait_class)
{
	if (!state)
		return NULL;
	if (!strcmp(state, "RUN"))
		return "cpu";
	if (!strcmp(state, "RUNQ"))
		return "runq";
	if (!strcmp(state, "DISK"))
		return "disk";
	if (!strcmp(state, "STOPPED") || !strcmp(state, "TRACED"))
		return "stopped";
	if (strcmp(state, "SLEEP") || !syscall)
		return "idle";
	if (!strcmp(syscall, "futex") && tract_futex_is_lock((uint64_t)arg1, (uint64_t)arg2))
		return "lock";
	if (is_file_lock_wait(syscall, arg1))
		return "lock";
	/* what ended the waits at its site says what this one is, whatever the syscall's name */
	if (wait_class == TRACT_WAIT_BLOCKED)
		return "blocked";
	if (wait_class == TRACT_WAIT_SLEEPING)
		return "sleep";
	if (wait_class == TRACT_WAIT_INPUT && !is_idle_wait(syscall))
		return "input";
	if (is_one_of(syscall, input_syscalls) &&
	    ((file && is_terminal(file)) || waited_us(sc_us, state_us) >= ACTIVITY_INPUT_AFTER_US))
		return "input";
	if (is_idle_wait(syscall))
		return "idle";
	return "waiting";
}
