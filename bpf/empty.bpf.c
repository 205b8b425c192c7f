// SPDX-License-Identifier: GPL-2.0-only
/*
 * Empty programs: the floor that `make bench` compares tract's own cost
 * against, one on each hook tract uses.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter) { return 0; }

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit) { return 0; }

SEC("tp_btf/sched_waking")
int BPF_PROG(floor_sched_waking) { return 0; }

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch) { return 0; }

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(floor_hrtimer_expire_entry) { return 0; }

SEC("tp_btf/hrtimer_expire_exit")
int BPF_PROG(floor_hrtimer_expire_exit) { return 0; }

SEC("tp_btf/timer_expire_entry")
int BPF_PROG(floor_timer_expire_entry) { return 0; }

SEC("tp_btf/timer_expire_exit")
int BPF_PROG(floor_timer_expire_exit) { return 0; }

/*
 * The least a timed syscall costs: a clock read at each end.  sys_exit with
 * one clock read and nothing else, beside the empty one, says how much.
 */
__u64 floor_clock;

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit_clock) { floor_clock = bpf_ktime_get_ns(); return 0; }

/*
 * The sampler's floor: the kernel's task iterator showing every task to a
 * program that does nothing (the sleepable kind tract's sampler is).
 */
__u64 floor_tasks;

SEC("iter.s/task")
int floor_task_pass(struct bpf_iter__task *ctx)
{
	if (ctx->task)
		floor_tasks++;
	return 0;
}
