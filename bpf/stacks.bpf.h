/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stacks of a sampled off-CPU thread: the kernel's from
 * bpf_get_task_stack(), the user one walked by frame pointers from the
 * registers the thread saved when it entered the kernel.  Both are taken
 * at sampling time, so no hot path pays for them.  A stack goes into the
 * stream ahead of its sample, once per value of the thread's context-switch
 * count: an off-CPU thread's stacks cannot change until it runs again.
 */
#ifndef TRACT_STACKS_BPF_H
#define TRACT_STACKS_BPF_H

struct kstack_buf {
	struct tract_kstack hdr;
	__u64 ip[TRACT_KSTACK_MAX];
};

struct ustack_buf {
	struct tract_ustack hdr;
	__u64 ip[TRACT_USTACK_MAX];
};

/* Too big for the BPF stack; the iterator is the only user. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstack_buf);
} kstack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_buf);
} ustack_scratch SEC(".maps");

__u64 kstack_errors;
__u64 ustacks_taken;
/*
 * The deepest user stack walked: 127 frames, or fewer where the kernel's
 * verifier will not take so long a loop (6.1's gives up at a million
 * instructions).  Read-only, so the verifier knows it as a constant.
 */
const volatile __u32 ustack_frames = TRACT_USTACK_MAX - 1;

static __always_inline __u64 hash_frames(const __u64 *ip, __u32 n, __u64 seed)
{
	__u64 h = 0xcbf29ce484222325ull ^ seed;

	for (__u32 i = 0; i < TRACT_KSTACK_MAX && i < n; i++) {
		h ^= ip[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static __always_inline __u64 take_kstack(struct seq_file *seq, struct task_struct *task)
{
	__u32 zero = 0;
	struct kstack_buf *buf = bpf_map_lookup_elem(&kstack_scratch, &zero);
	long len;
	__u32 n;

	if (!buf)
		return 0;
	len = bpf_get_task_stack(task, buf->ip, sizeof(buf->ip), 0);
	if (len <= 0) {
		kstack_errors++;
		return 0;
	}
	n = (__u32)len / sizeof(__u64);
	if (n > TRACT_KSTACK_MAX)
		n = TRACT_KSTACK_MAX;
	buf->hdr.kind = TRACT_REC_KSTACK;
	buf->hdr.nr_frames = n;
	buf->hdr.hash = hash_frames(buf->ip, n, 0);
	if (bpf_seq_write(seq, buf, sizeof(buf->hdr) + n * sizeof(__u64))) {
		kstack_errors++;
		return 0;
	}
	return buf->hdr.hash;
}

/*
 * Frame pointers: [bp] holds the caller's bp, [bp + 8] the return address.
 * Each step is one read of the thread's memory, which the sleepable
 * iterator may do for another task.  The walk ends at a zero bp or return
 * address (the outermost frame: thread and process entry clear bp), and
 * stops at a misaligned or non-increasing bp, an unreadable frame or after
 * 127 frames: code built without frame pointers ends the stack there
 * rather than producing garbage beyond it, and the stack says it was cut.
 */
static __always_inline __u64 take_ustack(struct seq_file *seq, struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 zero = 0, n = 1;
	struct ustack_buf *buf = bpf_map_lookup_elem(&ustack_scratch, &zero);
	__u64 bp, frame[2];
	__u32 cut = 1;

	if (!buf || !regs)
		return 0;
	buf->ip[0] = regs->ip;
	bp = regs->bp;
	/* 127 frames at most: the last slot of the buffer stays free */
	for (int i = 1; i < TRACT_USTACK_MAX - 1 && i < ustack_frames; i++) {
		if (!bp) {
			cut = 0;
			break;
		}
		if ((bp & 7) || bpf_copy_from_user_task(frame, sizeof(frame), (void *)bp, task, 0))
			break;
		if (!frame[1]) {
			cut = 0;
			break;
		}
		buf->ip[n & (TRACT_USTACK_MAX - 1)] = frame[1];
		n++;
		if (!frame[0]) {
			cut = 0;
			break;
		}
		if (frame[0] <= bp)
			break;
		bp = frame[0];
	}
	buf->hdr.kind = TRACT_REC_USTACK;
	buf->hdr.nr_frames = n;
	buf->hdr.tgid = task->tgid;
	buf->hdr.cut = cut;
	buf->hdr.hash = hash_frames(buf->ip, n, (__u64)task->tgid << 32 | cut);
	if (n > TRACT_USTACK_MAX ||
	    bpf_seq_write(seq, buf, sizeof(buf->hdr) + (n & (2 * TRACT_USTACK_MAX - 1)) * sizeof(__u64)))
		return 0;
	ustacks_taken++;
	return buf->hdr.hash;
}

/* Whether the registers at the top of task's kernel stack are user mode's (CPL 3 in cs). */
static __always_inline bool user_regs_saved(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return regs && (regs->cs & 3) == 3;
}

/*
 * A thread's stacks, reused while its switch count has not moved.  They are
 * remembered (*fresh_switches) only once the sample is written too, since an
 * overflowing seq_file drops both and shows the task again.  A user stack is
 * taken wherever the registers saved at the top of the kernel stack are the
 * ones user code left: inside a syscall, and when an interrupt preempted the
 * thread in user mode (a RUNQ thread, a spinner switched out).  A thread
 * that entered the kernel for a page fault or another exception has them
 * too; a kernel thread has none.
 */
static __always_inline void take_stacks(struct seq_file *seq, struct task_struct *task,
					struct tract_slot *slot, __u32 tag, struct tract_sample *s,
					__u64 *fresh_switches)
{
	__u64 switches = task->nvcsw + task->nivcsw;
	bool user = take_ustacks && !(s->flags & TRACT_SF_KTHREAD) && user_regs_saved(task);

	if (!take_kstacks && !user)
		return;
	if (slot && slot->tag == tag && slot->stack_switches == switches &&
	    (slot->kstack_hash || slot->ustack_hash)) {
		s->kstack_hash = slot->kstack_hash;
		s->ustack_hash = slot->ustack_hash;
		return;
	}
	if (take_kstacks)
		s->kstack_hash = take_kstack(seq, task);
	if (user)
		s->ustack_hash = take_ustack(seq, task);
	if (s->kstack_hash || s->ustack_hash)
		*fresh_switches = switches;
}

#endif
