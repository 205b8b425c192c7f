/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-thread tracking state, kept in task storage and freed with the task. */
#ifndef TRACT_THREAD_BPF_H
#define TRACT_THREAD_BPF_H

struct tract_thread {
	__u64 sc_entry_ns;	/* entry of the latest syscall (sys_enter) */
	__u64 off_ns;		/* latest switch-out */
	__u64 on_ns;		/* latest switch-in */
	__u64 wake_ns;		/* latest wakeup */
	__u64 kstack_hash;	/* kernel stack taken while off CPU ... */
	__u64 kstack_off_ns;	/* ... during the off-CPU period that began then */
	__u32 waker_tid;	/* the task that ran the latest wakeup */
	__u32 pad;
};

_Static_assert(sizeof(struct tract_thread) <= 256, "per-thread storage must stay small");

#endif
