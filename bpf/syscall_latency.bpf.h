/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A latency histogram per (process, syscall), kept in the kernel and
 * emptied every pass (autoload off with --no-syscall-latency): the CPU's
 * running totals (sc_totals), or where another holds its entry the sc_hist
 * hash.  A timed syscall costs two clock reads and two atomic adds; the
 * untimed ones (that never wait) only this program's call.  sys_enter
 * (tract.bpf.c) stamps the entry of a timed syscall in the thread's slot.
 */
#ifndef TRACT_SYSCALL_LATENCY_BPF_H
#define TRACT_SYSCALL_LATENCY_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

/*
 * Keyed by process: a host that starts hundreds of programs a second makes
 * 25-40 keys of each within a take, so room for 32768 (allocated as used,
 * from 6.1, but its buckets are not: 16 bytes a key locked; a take's rows
 * are folded by command in user space).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct tract_sc_hist_key);
	__type(value, struct tract_hist_val);
} sc_hist SEC(".maps");

__u64 sc_hist_full, sc_hist_added;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* set before load: possible CPUs x TRACT_SC_WAYS */
	__type(key, __u32);
	__type(value, struct tract_sc_total);
} sc_totals SEC(".maps");

/* The latency into this CPU's running totals (abi.h): false when another (process, syscall) holds its entry. */
static __always_inline bool add_sc_total(__u64 key, __u8 bucket, __u64 ns)
{
	__u32 i = totals_index(key, TRACT_SC_WAYS_SHIFT);
	struct tract_sc_total *e = bpf_map_lookup_elem(&sc_totals, &i);
	__u64 held;

	if (!e)
		return false;
	held = e->key;
	if (held != key) {
		if (held || __sync_val_compare_and_swap(&e->key, 0, key))
			return false;
	}
	bucket &= TRACT_SC_BUCKETS - 1;
	/* the sum before the count: a reader that sees a completion counted sees its latency */
	__sync_fetch_and_add(&e->bucket[bucket].sum_ns, ns);
	__sync_fetch_and_add(&e->bucket[bucket].count, 1);
	return true;
}
/* At sys_exit: the latency of the syscall that returns, if timed, into the histogram. */
static __always_inline void account_syscall(struct task_struct *task, const struct pt_regs *regs)
{
	struct tract_sc_hist_key k = {};
	struct tract_slot *s = slot_of(task->pid);
	__u64 ns;

	if (!s || s->tag != owner_tag(task) || !s->sc_entry_ktime || !pid_selected(task->tgid))
		return;
	ns = bpf_ktime_get_ns() - s->sc_entry_ktime;
	k.tgid = task->tgid;
	k.nr = regs->orig_ax;
	k.bucket = log2_us(ns);
	s->sc_entry_ktime = 0;
	if (!add_sc_total((__u64)k.tgid << 32 | k.nr, k.bucket, ns))
		hist_add(&sc_hist, &k, ns, &sc_hist_full, &sc_hist_added);
}

#endif
