/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What tract tracks per thread.  Only what the kernel does not keep itself is
 * here; switch-in, queueing and switch-out times come from the task's own
 * sched_info and sched_entity at sampling time.
 *
 * Both tables are plain arrays indexed by a hash of the tid: the verifier
 * inlines their lookups, where a task-storage lookup is a helper call several
 * times dearer on every syscall.  A tag made of the tid and the thread's start
 * time tells a slot's owner; two live threads that share a slot lose their
 * syscall time, waker or cached stack (they read as unknown), never get each
 * other's, and neither does a thread that reuses a dead thread's tid.  So
 * nothing needs cleaning at thread exit.
 */
#ifndef TRACT_THREAD_BPF_H
#define TRACT_THREAD_BPF_H

/* Written by the thread itself at sys_enter, and by the sampler. */
struct tract_slot {
	__u32 tag;		/* owner_tag() of the owning thread */
	__u32 pad;
	__u64 sc_entry;		/* rq clock at the latest sys_enter; 0: unknown */
	__u64 kstack_hash;	/* kernel stack taken while off CPU ... */
	__u64 kstack_switches;	/* ... when the thread had made this many context switches */
	__u64 io_rq;		/* the block request it submitted last (a struct request pointer) */
	__u64 sc_entry_ktime;	/* with --syscall-latency: CLOCK_MONOTONIC at the latest sys_enter */
};

/*
 * Written by wakers, in a table of its own so that a wakeup does not pull
 * the cache line the wakee writes at every syscall.
 */
struct tract_waker {
	__u32 tag;		/* owner_tag() of the wakee */
	__u32 waker_tid;	/* the task that ran the latest wakeup */
};

_Static_assert(sizeof(struct tract_slot) == 48, "slots stay small");
_Static_assert(sizeof(struct tract_waker) == 8, "waker slots stay small");

#endif
