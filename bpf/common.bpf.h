/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every part of tract's kernel side shares, included first by
 * tract.bpf.c and by every .bpf.h: the kernel's and libbpf's headers, the
 * contract with user space (tract/abi.h), the settings user space fixes
 * before load, the state of the pass several parts read, and small helpers
 * on a task and the registers it entered the kernel with.
 */
#ifndef TRACT_COMMON_BPF_H
#define TRACT_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tract/abi.h"
#include "core_fixes.bpf.h"
#include "bits.bpf.h"
#include "maps.bpf.h"

#define PF_KTHREAD 0x00200000
#define PF_EXITING 0x00000004
#define ENOSYS 38

/*
 * ---- Settings ----
 * Set by user space before load (configure() in
 * src/record/source/source_bpf.c): constants to the verifier, which drops
 * the code they turn off, helpers older kernels lack included.
 */
const volatile __u32 self_tgid;
const volatile __u8 all_threads;
const volatile __u8 take_kstacks = 1;
const volatile __u8 take_ustacks = 1;
/* --unwind cfi: user stacks go to user space as bytes, to be unwound by CFI */
const volatile __u8 unwind_cfi = 1;
/* syscall latency histograms (the default): sys_enter also reads the clock, and tract_sys_exit is loaded */
const volatile __u8 syscall_latency;
/* run-queue latency (runq.bpf.h); with wakeup_edges, tract_sched_switch is loaded */
const volatile __u8 runq_latency;
/* wakeup edges (the default): sched_waking marks edges, and tract_sched_switch is loaded */
const volatile __u8 wakeup_edges;
const volatile __u64 idle_grace_ns = TRACT_IDLE_GRACE_DEFAULT_NS;
const volatile __u32 nr_pids;
const volatile __u32 pids[TRACT_PID_FILTER_MAX];
/* Bit n set: syscall n is an idle wait (thread pools, timers, event loops). */
const volatile __u64 idle_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n works on the file descriptor in its first argument. */
const volatile __u64 fd_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n is left out of the latency histograms (it never waits) */
const volatile __u64 untimed_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n is untimed and can never wait (a default one): sys_exit leaves it at once */
const volatile __u64 never_waiting_syscalls[TRACT_SYSCALLS_MAX / 64];
/* The per-thread tables' max_entries and slot_mask are set from the kernel's pid_max (thread.bpf.h). */
const volatile __u32 slot_mask;
/* still_reads holds fewer: a cache, bounded whatever pid_max is */
const volatile __u32 still_mask;
const volatile __u32 nr_cpus = 1;	/* possible CPUs */
/* x86_64 kernel stacks without KASAN */
const volatile __u64 thread_size = 16384;
/*
 * Telling the interrupt stack by a frame's address needs arithmetic on the
 * frame pointer, which verifiers before 6.2 or so refuse; user space turns
 * it off and loads again there (waker_label(), wakeup.bpf.h).
 */
const volatile __u8 irq_by_stack = 1;
/* The kernel has the timers' flags (6.7), and user stacks are copied for CFI unwinding (moment_timer.bpf.h). */
const volatile __u8 moment_timers;
/*
 * The deepest user stack walked: 127 frames, or fewer where the kernel's
 * verifier will not take so long a loop (6.1's gives up at a million
 * instructions).  Read-only, so the verifier knows it as a constant.
 */
const volatile __u32 ustack_frames = TRACT_USTACK_MAX - 1;
/*
 * The ring of user stacks copied for samples (window_ustack.bpf.h): at
 * least WINDOW_UCOPIES copies of 20 KiB (1.25 MiB, within the memory bar),
 * two a possible CPU on a larger host, where every busy CPU's timer copies
 * its runner's in each pass: its size less one.
 */
#define WINDOW_UCOPIES 64
const volatile __u32 window_ucopy_mask = WINDOW_UCOPIES - 1;
/* 0 where bpf_copy_from_user_task() is missing (before 5.18): no holder from user memory (holder.bpf.h) */
const volatile __u8 user_holders = 1;
/*
 * Set where the tracepoint says whether the group is dead (its second
 * argument, from 6.16 on, where it comes before the kernel counts the
 * thread out); before that, the thread is counted out first (exits.bpf.h).
 */
const volatile __u8 exit_has_group_dead;
/*
 * The kernel's timerfd_tmrproc (0: not known): an expiry that runs it is a
 * timerfd's own event.  Set between the load and the attach, not a
 * setting: the kernel's symbols are read beside the verifier's checking.
 */
__u64 timerfd_fn;

/*
 * Whether a syscall's exit copies the user stack of a thread woken in the
 * window (window_ustack.bpf.h): it needs the exit's program (loaded with
 * the syscall latency) and CFI unwinding.  Constants, so the verifier
 * drops what they turn off, helpers older kernels lack included.
 */
#define window_exit_copies (syscall_latency && take_ustacks && unwind_cfi)

/*
 * Whether a runner's switch out copies its user stack (window_switch_copy()):
 * tract_sched_switch is loaded with the wakeup edges or the run-queue
 * latency, and the copy is for CFI unwinding.
 */
#define window_switch_copies (take_ustacks && unwind_cfi && (wakeup_edges || runq_latency))

/* -p: the processes the samples and the per-process histograms are of */
static __always_inline bool pid_selected(__u32 tgid)
{
	if (!nr_pids)
		return true;
	for (__u32 i = 0; i < TRACT_PID_FILTER_MAX && i < nr_pids; i++)
		if (pids[i] == tgid)
			return true;
	return false;
}

static __always_inline bool syscall_in(const volatile __u64 *set, __s32 nr)
{
	__u32 n = nr;

	if (nr < 0 || n >= TRACT_SYSCALLS_MAX)
		return false;
	/* the compiler may check one register and index with another; bound the index itself */
	barrier_var(n);
	n &= TRACT_SYSCALLS_MAX - 1;
	return set[n / 64] & (1ull << (n % 64));
}

/*
 * ---- The pass and its moment ----
 * What the sampler, the moment's interrupt (moment.bpf.h) and the parts
 * that show a thread as it was at the moment all read.
 */
/*
 * The pass in progress (struct tract_pass: what user space sets before it
 * and what its first task found).  Only the sampler's program names it:
 * the helpers it calls take it as an argument (pass.bpf.h, holder.bpf.h,
 * mark_wait()); the moment's interrupt and timers read its number here.
 */
struct tract_pass pass;
__u64 moment_pass;			/* the pass the moment_* below are the moment of */
__u64 sampler_task;			/* the task that runs the passes, as a number */
__u64 moment_task[TRACT_CPUS_MAX];	/* what each CPU ran at the moment, as a number */
__u32 moment_tid[TRACT_CPUS_MAX];	/* ... and its tid, for a thread that moved since */
__u64 moment_clock[TRACT_CPUS_MAX];	/* each CPU's run-queue clock at the moment ... */
__u64 moment_clock_task[TRACT_CPUS_MAX];	/* ... and its task clock */

/* ---- A task ---- */

/*
 * A slot's owner: the tid mixed with the thread's start time, so a thread
 * that reuses the tid of a dead one does not inherit its values.
 */
static __always_inline __u32 owner_tag(struct task_struct *task)
{
	return task->pid ^ (__u32)task->start_time;
}

static __always_inline __u64 switch_count(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

/*
 * Times are read from the run queue's clock, which the scheduler keeps fresh
 * (update_rq_clock() at every schedule, wakeup and tick): reading it costs a
 * few loads where bpf_ktime_get_ns() costs a clock read on every event.
 * It is the clock sched_info and sched_entity times are kept in.
 */
static __always_inline __u64 rq_clock_of(struct task_struct *task)
{
	return task->se.cfs_rq->rq->clock;
}

/*
 * The syscall a thread is in, from the registers it entered the kernel
 * with: orig_ax holds the number, and ax the -ENOSYS the entry code put
 * there until the syscall returns.  -1 when it is in none.
 */
static __always_inline long regs_syscall(const struct pt_regs *regs)
{
	return (long)regs->orig_ax < 0 || (long)regs->ax != -ENOSYS ? -1 : (long)regs->orig_ax;
}

static __always_inline void regs_syscall_args(const struct pt_regs *regs, __u64 *args)
{
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;
}

/* A sample in syscall nr with its arguments. */
static __always_inline void syscall_into(struct tract_sample *s, long nr, const __u64 *args)
{
	s->flags |= TRACT_SF_IN_SYSCALL;
	s->syscall_nr = nr;
	__builtin_memcpy(s->sc_args, args, sizeof(s->sc_args));
}

#endif
