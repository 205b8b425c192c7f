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

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(floor_irq_handler_entry) { return 0; }

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(floor_irq_handler_exit) { return 0; }

SEC("tp_btf/softirq_entry")
int BPF_PROG(floor_softirq_entry) { return 0; }

SEC("tp_btf/softirq_exit")
int BPF_PROG(floor_softirq_exit) { return 0; }

/*
 * The least a timed syscall costs: a clock read at each end.  sys_exit with
 * one clock read and nothing else, beside the empty one, says how much.
 */
__u64 floor_clock;

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit_clock) { floor_clock = bpf_ktime_get_ns(); return 0; }

/*
 * The least a hook that keeps anything per thread does: touch one word of
 * the thread's entry in an array map (as tract's slots are kept).  Beside
 * the empty programs they say what the first touch of a map's memory in a
 * kernel entry costs on this host: where every entry flushes the TLB, more
 * than the empty program itself.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u64[8]);
} floor_slots SEC(".maps");

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit_map)
{
	__u32 i = (bpf_get_current_pid_tgid() * 2654435761u) & 32767;
	__u64 *v = bpf_map_lookup_elem(&floor_slots, &i);

	return v && v[0] == 1;
}

/* who woke it, into the wakee's entry */
SEC("tp_btf/sched_waking")
int BPF_PROG(floor_sched_waking_map, struct task_struct *p)
{
	__u32 i = (p->pid * 2654435761u) & 32767;
	__u64 *v = bpf_map_lookup_elem(&floor_slots, &i);

	if (v)
		v[1] = bpf_get_current_pid_tgid();
	return 0;
}

/* whether the thread given the CPU has a wakeup to count, from its entry */
SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch_map, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 i = (next->pid * 2654435761u) & 32767;
	__u64 *v = bpf_map_lookup_elem(&floor_slots, &i);

	return v && v[2] == 1;
}

/*
 * The least a switch that counts a wakeup edge does: read the wakee's entry
 * and add to this CPU's running total, one entry of each of two maps.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64[8]);
} floor_totals SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch_edge, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 i = (next->pid * 2654435761u) & 32767, cpu = bpf_get_smp_processor_id() & 63;
	__u64 *v = bpf_map_lookup_elem(&floor_slots, &i), *total;

	if (!v)
		return 0;
	total = bpf_map_lookup_elem(&floor_totals, &cpu);
	if (total)
		total[0] += v[2] + 1;
	return 0;
}

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
