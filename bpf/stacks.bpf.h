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

#include "common.bpf.h"
#include "thread.bpf.h"
#include "window.bpf.h"

struct kstack_buf {
	struct tract_kstack hdr;
	__u64 ip[TRACT_KSTACK_MAX + 1];	/* a spare slot: hash_step() masks its index to 128 */
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

struct ustack_copy_buf {
	struct tract_ustack_copy hdr;
	__u8 bytes[TRACT_USTACK_COPY + TRACT_USTACK_FAR];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ustack_copy_buf);
} ucopy_scratch SEC(".maps");

__u64 kstack_errors;
__u64 ustacks_taken;
__u64 ustack_copies;		/* user stacks copied for CFI unwinding, and their bytes */
__u64 ustack_copy_bytes;
__u64 ustack_serial;

struct hash_walk {
	const __u64 *ip;
	__u32 n;
	__u64 h;
};

static long hash_step(__u64 i, struct hash_walk *w)
{
	if (i >= w->n)
		return 1;
	w->h ^= w->ip[i & (TRACT_USTACK_MAX - 1)];
	w->h *= 0x100000001b3ull;
	w->h ^= w->h >> 29;
	return 0;
}

/*
 * A stack's id: its frames hashed, in steps of bpf_loop(), which the
 * verifier checks once, not once a frame for every way into the hash.
 */
static __always_inline __u64 hash_frames(const __u64 *ip, __u32 n, __u64 seed)
{
	struct hash_walk w = { .ip = ip, .n = n, .h = 0xcbf29ce484222325ull ^ seed };

	bpf_loop(TRACT_KSTACK_MAX, hash_step, &w, 0);
	/* the top bit tells copies' ids apart */
	w.h &= ~TRACT_COPY_ID;
	return w.h ? w.h : 1;
}

/*
 * A stack is read while its thread may be woken and given a CPU, and the
 * walk of a kernel stack takes microseconds (some 0.5 a frame).  The walk
 * goes from the innermost frame out, so the wait's own frames come first;
 * a thread woken meanwhile may write over outer frames not read yet with
 * the calls it makes next, and one that also switched out again has laid a
 * new sleep's frames over them all.  So a stack is read only while its
 * thread is off its CPU, and kept unless its thread switched meanwhile:
 * dropping also the stacks of threads woken during the walk would lose
 * most stacks of threads whose waits are tens of microseconds long, and
 * with them the waits they wait in.  A user stack is read after the
 * kernel's, and copied from the thread's memory, slower still: a thread in
 * a syscall does not touch it until it has left, but one preempted in user
 * code goes back to it as soon as it gets its CPU.
 */
__u64 stacks_raced;

static __always_inline bool raced(bool yes)
{
	if (yes)
		stacks_raced++;
	return yes;
}

/*
 * Whether a user stack moved while it was read.  A thread in a syscall
 * leaves the registers it entered with at the top of its kernel stack until
 * its next syscall or interrupt overwrites them (ip and sp: where its user
 * code was then), ax holds -ENOSYS until the syscall returns, and its user
 * stack is not touched before then, whatever it sleeps in meanwhile.  One
 * preempted in user code goes back to it as soon as it gets its CPU.
 */
static __always_inline bool user_moved(struct task_struct *task, __u64 switches, const struct pt_regs *regs,
				       __u64 ip, __u64 sp, const struct tract_sample *s)
{
	/* read here from the sample, not carried in a register: the verifier walks the loops before once */
	if (s->flags & TRACT_SF_IN_SYSCALL)
		return raced(regs->ip != ip || regs->sp != sp || (long)regs->ax != -ENOSYS);
	return raced(task->on_cpu || switch_count(task) != switches);
}

static __always_inline __u64 take_kstack(struct seq_file *seq, struct task_struct *task, __u64 switches)
{
	__u32 zero = 0;
	struct kstack_buf *buf = bpf_map_lookup_elem(&kstack_scratch, &zero);
	long len;
	__u32 n;

	if (!buf)
		return 0;
	len = bpf_get_task_stack(task, buf->ip, TRACT_KSTACK_MAX * sizeof(__u64), 0);
	if (raced(switch_count(task) != switches || (len <= 0 && task->on_cpu)))
		return 0;
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
 * A step of bpf_loop(), which the verifier checks once, not once for each
 * of the walk's 127 ways out.  The count and the cut are kept in the map,
 * where the verifier knows no values: on its stack it would know each
 * step's count exactly, and check the steps after each apart.
 */
struct fp_walk {
	struct task_struct *task;
	struct ustack_buf *buf;
	__u64 bp;
};

static long fp_step(__u64 i, struct fp_walk *w)
{
	struct ustack_buf *buf = w->buf;
	__u64 frame[2], bp = w->bp;
	__u32 n;

	if (!bp) {
		buf->hdr.cut = 0;
		return 1;
	}
	if ((bp & 7) || bpf_copy_from_user_task(frame, sizeof(frame), (void *)bp, w->task, 0))
		return 1;
	if (!frame[1]) {
		buf->hdr.cut = 0;
		return 1;
	}
	n = buf->hdr.nr_frames;
	buf->ip[n & (TRACT_USTACK_MAX - 1)] = frame[1];
	buf->hdr.nr_frames = n + 1;
	if (!frame[0]) {
		buf->hdr.cut = 0;
		return 1;
	}
	if (frame[0] <= bp)
		return 1;
	w->bp = frame[0];
	return 0;
}

static __always_inline __u64 take_ustack(struct seq_file *seq, struct task_struct *task, __u64 switches,
					 const struct tract_sample *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 zero = 0, n, steps = ustack_frames;
	struct ustack_buf *buf = bpf_map_lookup_elem(&ustack_scratch, &zero);
	struct fp_walk w = { .task = task };
	__u64 sp;

	if (!buf || !regs)
		return 0;
	buf->ip[0] = regs->ip;
	sp = regs->sp;
	buf->hdr.nr_frames = 1;
	buf->hdr.cut = 1;
	w.buf = buf;
	w.bp = regs->bp;
	/* 127 frames at most: the last slot of the buffer stays free */
	if (steps > TRACT_USTACK_MAX - 1)
		steps = TRACT_USTACK_MAX - 1;
	if (steps > 1)
		bpf_loop(steps - 1, fp_step, &w, 0);
	if (user_moved(task, switches, regs, buf->ip[0], sp, s))
		return 0;
	buf->hdr.kind = TRACT_REC_USTACK;
	buf->hdr.tgid = task->tgid;
	n = buf->hdr.nr_frames;
	buf->hdr.hash = hash_frames(buf->ip, n, (__u64)task->tgid << 32 | buf->hdr.cut);
	if (n > TRACT_USTACK_MAX ||
	    bpf_seq_write(seq, buf, sizeof(buf->hdr) + (n & (2 * TRACT_USTACK_MAX - 1)) * sizeof(__u64)))
		return 0;
	ustacks_taken++;
	return buf->hdr.hash;
}

/* The registers, in DWARF's order (rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip). */
static __always_inline void copy_uregs(__u64 *r, const struct pt_regs *regs)
{
	r[0] = regs->ax;
	r[1] = regs->dx;
	r[2] = regs->cx;
	r[3] = regs->bx;
	r[4] = regs->si;
	r[5] = regs->di;
	r[6] = regs->bp;
	r[7] = regs->sp;
	r[8] = regs->r8;
	r[9] = regs->r9;
	r[10] = regs->r10;
	r[11] = regs->r11;
	r[12] = regs->r12;
	r[13] = regs->r13;
	r[14] = regs->r14;
	r[15] = regs->r15;
	r[16] = regs->ip;
}

static long vma_end_of(struct task_struct *task, struct vm_area_struct *vma, void *end)
{
	*(__u64 *)end = vma->vm_end;
	return 0;
}

/*
 * How many bytes from sp up may be copied: to the end of the stack's
 * mapping, and no more than TRACT_USTACK_COPY.  *top caches the end, so a
 * thread whose stack pointer is still under it needs no lookup.
 */
static __always_inline __u32 copy_len(struct task_struct *task, __u64 sp, __u64 *top)
{
	__u64 end = top ? *top : 0;

	if (!end || sp >= end || end - sp > (1ull << 30)) {
		end = 0;
		if (bpf_find_vma(task, sp, vma_end_of, &end, 0) || end <= sp)
			return 0;
		if (top)
			*top = end;
	}
	end -= sp;
	if (end > TRACT_USTACK_COPY)
		end = TRACT_USTACK_COPY;
	return (__u32)end & ~7u;
}

__u64 ustack_fars;		/* copies that went on on another stack */

/*
 * Where the frame-pointer chain leaves the copied bytes for another stack:
 * Go calls the vdso on its thread's system stack (g0), and the frame of
 * the call there links back, by frame pointer, into the goroutine's stack,
 * anywhere in the heap.  The chain is followed through the copy, 8 links
 * at most, each one up the stack; the first that leads out of it (the
 * frame pointer itself, where the thread was interrupted on the other
 * stack or before its callee saved it) is where the far bytes go on from.
 * 0: none (no chain, or it stays in the copy).
 */
static __always_inline __u64 far_link(const __u8 *bytes, __u64 sp, __u32 len, __u64 bp)
{
	if (len < 16 || !bp || (bp & 7))
		return 0;
	if (bp < sp || bp - sp > len - 16)
		return bp;
	for (int i = 0; i < 8; i++) {
		__u64 off = bp - sp, next;

		if (!bp || (bp & 7) || bp < sp || off > len - 16)
			return 0;
		next = *(const __u64 *)(bytes + (off & (TRACT_USTACK_COPY - 8)));
		if (!next || (next & 7))
			return 0;
		if (next < sp || next - sp >= len)
			return next;
		if (next <= bp)
			return 0;
		bp = next;
	}
	return 0;
}

/*
 * After the len bytes copied from sp: the far bytes, if the chain leads
 * out of them (far_link()), TRACT_USTACK_FAR of them, or to the end of
 * their page where those are not all mapped (no lookup of the mapping: a
 * tick may not take the lock it needs).  Sets the header's far_sp and
 * near_len; returns the bytes in all.  own: task is the current thread (a
 * tick), else the sampler reads another's memory.
 */
static __always_inline __u32 copy_far(struct task_struct *task, struct tract_ustack_copy *hdr, __u8 *bytes, __u32 len,
				      bool own)
{
	__u64 far = far_link(bytes, hdr->regs[TRACT_UREG_SP], len, hdr->regs[TRACT_UREG_BP]);
	__u32 flen;
	long err;

	hdr->far_sp = 0;
	hdr->near_len = len;
	if (!far || len > TRACT_USTACK_COPY)
		return len;
	flen = TRACT_USTACK_FAR;
	for (int i = 0; i < 2; i++) {
		if (own)
			err = bpf_probe_read_user(bytes + len, flen, (void *)far);
		else
			err = bpf_copy_from_user_task(bytes + len, flen, (void *)far, task, 0);
		if (!err)
			break;
		flen = (4096 - (far & 4095)) & (TRACT_USTACK_FAR - 8);
		if (i || flen < 16)
			return len;
	}
	hdr->far_sp = far;
	ustack_fars++;
	return len + flen;
}

static __always_inline __u64 next_copy_id(void)
{
	return TRACT_COPY_ID | (__sync_fetch_and_add(&ustack_serial, 1) + 1);
}

/*
 * What tells the recorder the thread has not run on since its copy
 * (TRACT_STILL_*), which reads its interpreter's frames later.  In its user
 * code on its CPU: its voluntary switches, since it leaves that code for a
 * sleep only through one (a preemption leaves it where it was).  Off its
 * CPU: the times it got one, read before the copy, as it runs nothing
 * until it gets one again.
 */
static __always_inline __u32 still_user(struct task_struct *task)
{
	return (__u32)task->nvcsw << 2 | TRACT_STILL_USER;
}

static __always_inline __u32 still_off(struct task_struct *task)
{
	return (__u32)task->sched_info.pcount << 2 | TRACT_STILL_OFF;
}

/*
 * A copy's header, its bytes in place (copy_far() has set their far part,
 * or far_sp is 0): whose it is and its id.  Every copy is named by the
 * thread it was read from: an interpreter's frames are found by the tid.
 */
static __always_inline void ucopy_header(struct tract_ustack_copy *hdr, struct task_struct *task, __u32 len,
					 __u32 still)
{
	hdr->kind = TRACT_REC_USTACK_COPY;
	hdr->still = still;
	hdr->len = len;
	if (!hdr->far_sp)
		hdr->near_len = len;
	hdr->tgid = task->tgid;
	hdr->tid = task->pid;
	hdr->hash = next_copy_id();
}

/* A copy into the sampler's stream, counted: its id, or 0. */
static __always_inline __u64 ucopy_emit(struct seq_file *seq, struct ustack_copy_buf *buf)
{
	__u32 len = buf->hdr.len;

	if (len > TRACT_USTACK_COPY + TRACT_USTACK_FAR || bpf_seq_write(seq, buf, sizeof(buf->hdr) + len))
		return 0;
	ustack_copies++;
	ustack_copy_bytes += len;
	return buf->hdr.hash;
}

/*
 * The user stack as bytes, for the recorder to unwind by CFI: what is above
 * sp in the thread's stack mapping, up to 16 KiB.  The frame-pointer walk
 * needs a frame pointer in every function; libc and most distribution
 * binaries have none, and a walk through them loses the callers.
 */
static __always_inline __u64 take_ustack_copy(struct seq_file *seq, struct task_struct *task, __u64 switches,
					      const struct tract_sample *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u32 zero = 0, len, still = still_off(task);
	struct ustack_copy_buf *buf = bpf_map_lookup_elem(&ucopy_scratch, &zero);

	if (!buf || !regs)
		return 0;
	/* the registers the bytes are unwound from, as the copy begins */
	copy_uregs(buf->hdr.regs, regs);
	len = copy_len(task, buf->hdr.regs[7], NULL);
	if (len < 8 || len > TRACT_USTACK_COPY ||
	    bpf_copy_from_user_task(buf->bytes, len, (void *)buf->hdr.regs[7], task, 0))
		return 0;
	len = copy_far(task, &buf->hdr, buf->bytes, len, false);
	if (len > TRACT_USTACK_COPY + TRACT_USTACK_FAR ||
	    user_moved(task, switches, regs, buf->hdr.regs[16], buf->hdr.regs[7], s))
		return 0;
	/* one in a syscall may be running it, and return to its user code at any time */
	ucopy_header(&buf->hdr, task, len, task->on_cpu ? TRACT_STILL_NONE : still);
	return ucopy_emit(seq, buf);
}

/*
 * Set by the sampler for a sample whose kernel stack is the one its wakeup
 * in the window kept (window.bpf.h).  take_stacks() reads it here, not as
 * an argument: in a register the verifier would carry it through the user
 * stack's loops (6.18's then walks the sampler in 491,000 instructions,
 * against 309,000).
 */
volatile bool kstack_given;

/* Whether the registers at the top of task's kernel stack are user mode's (CPL 3 in cs). */
static __always_inline bool user_regs_saved(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return regs && (regs->cs & 3) == 3;
}

/* Whether the thread is in another syscall than the one its sample shows (read_syscall()). */
static __always_inline bool syscall_left(struct task_struct *task, const struct tract_sample *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return !regs || regs_syscall(regs) != s->syscall_nr || regs->di != s->sc_args[0];
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
					struct tract_slot *slot, __u32 tag, struct tract_sample *s, __u64 switches,
					__u64 *fresh_switches)
{
	bool user, moved;
	__u64 before, entry;

	if (!take_kstacks && !take_ustacks)
		return;
	if (!kstack_given && slot && slot->tag == tag && slot->stack_switches == switches &&
	    (slot->kstack_hash || slot->ustack_hash)) {
		s->kstack_hash = slot->kstack_hash;
		s->ustack_hash = slot->ustack_hash;
		return;
	}
	user = take_ustacks && !(s->flags & TRACT_SF_KTHREAD) && user_regs_saved(task);
	if (!take_kstacks && !user)
		return;
	/* a syscall left and entered again from the same place between two reads leaves the same registers */
	entry = slot && slot->tag == tag ? slot->sc_entry : 0;
	/*
	 * It got its CPU or switched since the pass saw it off its CPU: that
	 * sleep's kernel stack is gone, and so is its user stack unless it is
	 * still in the syscall the sample shows.
	 */
	moved = task->on_cpu || switch_count(task) != switches;
	if (user && ((s->flags & TRACT_SF_IN_SYSCALL) ? syscall_left(task, s) : moved))
		user = !raced(true);
	if (!kstack_given && take_kstacks && !raced(moved))
		s->kstack_hash = take_kstack(seq, task, switches);
	before = stacks_raced;
	if (user && unwind_cfi)
		s->ustack_hash = take_ustack_copy(seq, task, switches, s);
	/* frame pointers where there is no copy (an unreadable stack, not one that moved) */
	if (user && !s->ustack_hash && stacks_raced == before)
		s->ustack_hash = take_ustack(seq, task, switches, s);
	if (s->ustack_hash && (s->flags & TRACT_SF_IN_SYSCALL) && raced(entry && slot->sc_entry != entry))
		s->ustack_hash = 0;
	/* a user stack alone is not remembered: the slot keeps both */
	if (!kstack_given && (s->kstack_hash || s->ustack_hash))
		*fresh_switches = switches;
}

/* Whether a thread woken in the window has not switched since: its stacks are still that sleep's. */
static __always_inline bool window_stack_still(struct task_struct *task)
{
	struct moment_stack *ms = moment_entry(task->pid);

	return ms && ms->switches == switch_count(task);
}

/*
 * The kernel stack a thread's wakeup in this pass's window kept
 * (window.bpf.h), into the stream.  Copied out of the table first: a
 * wakeup may be writing the entry over for another thread meanwhile, and
 * a record whose length is not its own would break the stream.
 */
static __always_inline __u64 take_window_kstack(struct seq_file *seq, struct task_struct *task)
{
	__u32 tid = task->pid, zero = 0, n;
	struct moment_stack *ms = moment_entry(tid);
	struct kstack_buf *buf = bpf_map_lookup_elem(&kstack_scratch, &zero);

	if (!buf || !ms || !ms->hdr.nr_frames ||
	    bpf_probe_read_kernel(buf->ip, TRACT_KSTACK_MAX * sizeof(__u64), ms->ip) || ms->moment != window_moment || ms->tid != tid) {
		if (take_kstacks)
			window_stacks_missed++;
		return 0;
	}
	n = ms->hdr.nr_frames;
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

#endif
