// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <sys/syscall.h>
#include "activity.h"
#include "syscalls.h"
#include "util.h"
#include "tract/abi.h"

const char *const activity_names[ACTIVITY__COUNT + 1] = {
	[ACTIVITY_CPU] = "cpu",		[ACTIVITY_RUNQ] = "runq",	[ACTIVITY_DISK] = "disk",
	[ACTIVITY_LOCK] = "lock",	[ACTIVITY_BLOCKED] = "blocked", [ACTIVITY_WAITING] = "waiting",
	[ACTIVITY_SLEEP] = "sleep",	[ACTIVITY_INPUT] = "input",	[ACTIVITY_IDLE] = "idle",
	[ACTIVITY_STOPPED] = "stopped",
};

/* Where a thread waits for data to arrive: it ends when someone sends it. */
static const char *const input_syscalls[] = {
	"read", "readv", "recvfrom", "recvmsg", "recvmmsg", "poll", "ppoll", "select", "pselect6",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "accept", "accept4",
};

_Static_assert(TRACT_NR_FCNTL == SYS_fcntl && TRACT_NR_FLOCK == SYS_flock && TRACT_NR_FUTEX == SYS_futex,
	       "the numbers BPF and user space use");

static int has(const uint64_t *set, int nr)
{
	return nr >= 0 && nr < TRACT_SYSCALLS_MAX && (set[nr / 64] >> (nr % 64) & 1);
}

void activity_call_of(int nr, int64_t arg1, int64_t arg2, struct activity_call *c)
{
	/* the default idle waits of the recorder's policy (syscalls.c), and the input syscalls, by number */
	static uint64_t idle[TRACT_SYSCALLS_MAX / 64], input[TRACT_SYSCALLS_MAX / 64];
	static int made;
	__u64 args[2] = { 0, (__u64)arg1 };

	/* queries run in one thread, and the recorder's writer in one: the sets are made once, on first use */
	if (!made) {
		const char *bad;

		syscall_set__parse(default_idle_syscalls, idle, 0, &bad);
		for (size_t i = 0; i < ARRAY_SIZE(input_syscalls); i++) {
			int n = syscall_number(input_syscalls[i]);

			if (n >= 0 && n < TRACT_SYSCALLS_MAX)
				input[n / 64] |= 1ull << (n % 64);
		}
		made = 1;
	}
	/* a contended glibc mutex or a PI lock; fcntl(F_SETLKW) and flock without LOCK_NB */
	c->lock = (nr == TRACT_NR_FUTEX && tract_futex_is_lock((uint64_t)arg1, (uint64_t)arg2)) ||
		  tract_file_lock_wait(nr, args) != TRACT_FILE_LOCK_NONE;
	c->idle = has(idle, nr);
	c->input = has(input, nr);
	c->timer = nr == SYS_nanosleep || nr == SYS_clock_nanosleep;
}

int activity_file_is_terminal(const char *file)
{
	return !strncmp(file, "/dev/pts/", 9) || !strncmp(file, "/dev/tty", 8) || !strcmp(file, "/dev/console");
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

enum activity activity_classify(int state, const struct activity_call *call, int64_t sc_us, int64_t state_us,
				int terminal, int wait_class)
{
	/*
	 * An idle syscall's wait the recorder keeps for being young, as it may
	 * be a lock's hand-off (tract_is_active()), is not idle: it is what
	 * ended it, or its site's waits, or while nothing has, a wait of a kind
	 * not known yet.  By the default grace: the store does not keep the
	 * recorder's.
	 */
	int young = state_us >= 0 && state_us < (int64_t)(TRACT_IDLE_GRACE_DEFAULT_NS / 1000);

	switch (state) {
	case TRACT_STATE_RUN:
		return ACTIVITY_CPU;
	case TRACT_STATE_RUNQ:
		return ACTIVITY_RUNQ;
	case TRACT_STATE_DISK:
		return ACTIVITY_DISK;
	case TRACT_STATE_STOPPED:
	case TRACT_STATE_TRACED:
		return ACTIVITY_STOPPED;
	case TRACT_STATE_SLEEP:
		break;
	default:
		return ACTIVITY_IDLE;
	}
	if (!call)
		return ACTIVITY_IDLE;
	if (call->lock)
		return ACTIVITY_LOCK;
	/* what ended the waits at its site says what this one is, whatever the syscall's name */
	if (wait_class == TRACT_WAIT_BLOCKED)
		return ACTIVITY_BLOCKED;
	if (wait_class == TRACT_WAIT_SLEEPING)
		return ACTIVITY_SLEEP;
	if (wait_class == TRACT_WAIT_INPUT && (!call->idle || young))
		return ACTIVITY_INPUT;
	if (call->input && (terminal || waited_us(sc_us, state_us) >= ACTIVITY_INPUT_AFTER_US))
		return ACTIVITY_INPUT;
	/* a nap kept for being young is its timer's before any end at its site says so */
	if (call->timer && young)
		return ACTIVITY_SLEEP;
	return call->idle && !young ? ACTIVITY_IDLE : ACTIVITY_WAITING;
}

/* The states activity tells apart by the names the store gives them; any other is -1. */
static int state_of(const char *name)
{
	static const struct {
		const char *name;
		int state;
	} named[] = {
		{ "RUN", TRACT_STATE_RUN },	    { "RUNQ", TRACT_STATE_RUNQ },	{ "DISK", TRACT_STATE_DISK },
		{ "SLEEP", TRACT_STATE_SLEEP },	    { "STOPPED", TRACT_STATE_STOPPED }, { "TRACED", TRACT_STATE_TRACED },
	};

	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		if (!strcmp(name, named[i].name))
			return named[i].state;
	return -1;
}

const char *activity_of(const char *state, const char *syscall, int64_t sc_us, int64_t state_us, const char *file,
			int64_t arg1, int64_t arg2, int wait_class)
{
	struct activity_call call;

	if (!state)
		return NULL;
	if (syscall)
		activity_call_of(syscall_number(syscall), arg1, arg2, &call);
	return activity_names[activity_classify(state_of(state), syscall ? &call : NULL, sc_us, state_us,
						file && activity_file_is_terminal(file), wait_class)];
}
