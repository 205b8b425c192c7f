/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Run-queue latency (--runq-latency): at every switch-in, how long the
 * thread waited for its CPU since it was queued (woken, or preempted), in a
 * log2 histogram per process, kept in the kernel and emptied every pass,
 * like runqlat -P.  The times are CLOCK_MONOTONIC: the run queue's clock is
 * not updated for a switch that a wakeup's preemption asked for
 * (rq_clock_skip_update()), which would read those waits as zero.
 *
 * tract's own threads are left out, and so is what they cost others: a
 * thread a tract thread preempted would have kept its CPU, and one queued
 * while tract held the CPU would have had it at once, so only the wait
 * before tract took the CPU counts.  sched_waking (wakeup.bpf.h) stamps
 * the wakeups; tract_sched_switch (tract.bpf.c) calls account_runq().
 */
#ifndef TRACT_RUNQ_BPF_H
#define TRACT_RUNQ_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

/* When a thread was queued, per slot as the other tracking tables; max_entries 1 when off. */
struct runq_since {
	__u32 tag;		/* owner_tag() of the thread */
	__u32 pad;
	__u64 queued_ns;	/* 0: not queued, or not known */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct runq_since);
} runq_since SEC(".maps");

/* Per CPU: since when one of tract's threads holds it (0: none does). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} observer_since SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tract_runq_hist_key);
	__type(value, struct tract_hist_val);
} runq_hist SEC(".maps");

__u64 runq_hist_full, runq_hist_added;

static __always_inline void stamp_queued(struct task_struct *task, __u64 now)
{
	__u32 i = slot_index(task->pid);
	struct runq_since *r = bpf_map_lookup_elem(&runq_since, &i);

	if (!r)
		return;
	r->tag = owner_tag(task);
	r->queued_ns = now;
}

/* The wait that ends as next gets the CPU, less what tract caused of it; -1: none to count. */
static __always_inline __s64 wait_to_count(struct task_struct *next, __u64 now, __u64 held_since)
{
	__u32 i = slot_index(next->pid);
	struct runq_since *r = bpf_map_lookup_elem(&runq_since, &i);
	__u64 queued;

	if (!r || r->tag != owner_tag(next) || !r->queued_ns)
		return -1;
	queued = r->queued_ns;
	r->queued_ns = 0;
	if (queued > now)
		return -1;
	if (!held_since)
		return now - queued;
	/* tract took the CPU from it: without tract it would not have switched at all */
	if (queued == held_since)
		return -1;
	return queued < held_since ? held_since - queued : 0;
}

static __always_inline void account_runq(bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), held = 0, *since;
	struct tract_runq_hist_key k = {};
	__u32 zero = 0;
	__s64 wait;

	since = bpf_map_lookup_elem(&observer_since, &zero);
	if (!since)
		return;
	/* preempted, still runnable: queued from now */
	if (prev->pid && (preempt || task_state_bits(prev) == TRACT_TASK_RUNNING))
		stamp_queued(prev, now);
	if (next->tgid == self_tgid) {
		if (prev->tgid != self_tgid)
			*since = now;
		return;
	}
	if (prev->tgid == self_tgid) {
		held = *since;
		*since = 0;
	}
	if (!next->pid || !pid_selected(next->tgid))
		return;
	wait = wait_to_count(next, now, held);
	if (wait < 0)
		return;
	k.tgid = next->tgid;
	k.bucket = log2_us(wait);
	hist_add(&runq_hist, &k, wait, &runq_hist_full, &runq_hist_added);
}

#endif
