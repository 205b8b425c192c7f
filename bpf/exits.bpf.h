/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes as they end: one record when a process's last thread exits,
 * with its name and start.  Per process, not per event of its life: a
 * host that starts a hundred programs a second writes a hundred records.
 */
#ifndef TRACT_EXITS_BPF_H
#define TRACT_EXITS_BPF_H

#include "common.bpf.h"
#include "wait_ends.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRACT_EXITS_RING);
} exits SEC(".maps");

/* records the ring had no room for: those processes' last rows may go unnamed */
__u64 exits_lost;

SEC("tp_btf/sched_process_exit")
int BPF_PROG(tract_process_exit, struct task_struct *task)
{
	struct task_struct *leader = task->group_leader;
	struct tract_exit *e;
	int group_dead;

	forget_wait(task);
	/* the verifier never reaches the argument a kernel does not pass: the flag is constant */
	if (exit_has_group_dead)
		group_dead = (__u8)ctx[1];
	else
		group_dead = task->signal->live.counter == 0;
	if (!group_dead || (task->flags & PF_KTHREAD))
		return 0;
	e = bpf_ringbuf_reserve(&exits, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&exits_lost, 1);
		return 0;
	}
	e->tgid = task->tgid;
	e->pad = 0;
	e->start_ns = leader->start_boottime;
	e->end_ns = bpf_ktime_get_boot_ns();
	__builtin_memcpy(e->comm, leader->comm, TRACT_COMM_LEN);
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

#endif
