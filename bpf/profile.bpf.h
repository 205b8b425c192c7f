/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-CPU profile: a software cpu-clock event on every CPU (--profile-hz)
 * takes the running thread's kernel and user stacks.  Tracking, not
 * tracing: each tick adds one to a count by (thread, kernel stack, user
 * stack) that the recorder reads and empties once a pass, and leaves the
 * thread's latest stacks where the sampler finds them, so a RUN sample says
 * what code it ran.
 */
#ifndef TRACT_PROFILE_BPF_H
#define TRACT_PROFILE_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"
#include "stacks.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, TRACT_PROFILE_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TRACT_KSTACK_MAX * sizeof(__u64));
} profile_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACT_PROFILE_COUNTS);
	__type(key, struct tract_profile_key);
	__type(value, struct tract_profile_val);
} profile_counts SEC(".maps");

/*
 * A thread's latest tick, by still_index() of its tid: a cache, as
 * still_reads, bounded whatever pid_max is; a thread whose entry another
 * took since its tick (tag) has no stack from it.  48 bytes.
 */
struct tract_prof_latest {
	__u32 tag;		/* owner_tag() of the thread */
	__s32 kstack, ustack;
	__u32 gen;		/* profile_gen then: its stack ids hold only until the tables are emptied */
	__u64 ns;		/* rq clock of the tick */
	__u64 tick;		/* its serial, when it went by the tick ring */
	__u64 stack_top;	/* the end of the thread's stack mapping, as last looked up */
	__s32 sc_nr;		/* the syscall it was in; -1: user code (or a fault or interrupt from it) */
	__u32 sc_entry;		/* ... and that syscall's entry as the thread's slot had it, its low
				   bits: enough to tell one call from the next (0: unknown) */
};

/*
 * --unwind cfi: ticks of user threads go here with their stack bytes, for
 * the recorder to unwind and count; it reads them once a pass, so no tick
 * wakes it.  A tick that does not fit is counted in profile_counts with its
 * frame-pointer stack instead: every tick is counted once, one way or the
 * other.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRACT_TICK_RING);
} profile_ticks_ring SEC(".maps");

struct tick_buf {
	struct tract_tick hdr;
	__u8 bytes[TRACT_USTACK_COPY + TRACT_USTACK_FAR];
	struct pt_regs ctx_regs;	/* not sent: the context's registers, where CO-RE may read them */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tick_buf);
} tick_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tract_prof_latest);
} prof_latest SEC(".maps");

__u64 profile_ticks;		/* ticks that counted */
__u32 profile_gen;		/* the recorder adds one each time it empties the tables */
__u64 profile_lost;		/* ticks the full count table could not take */
__u64 profile_ring_full;	/* ticks counted by frame-pointer stack for want of ring space */
__u64 profile_tick_serial;
__u64 profile_added;		/* ticks that may have added to the tables (map_news) */

/*
 * The tick with its user stack as bytes, into the ring; its serial, or 0
 * when the stack could not be read or the ring is full.
 */
static __always_inline __u64 tick_to_ring(struct bpf_perf_event_data *ctx, struct task_struct *task,
					  struct tract_profile_key *key, struct tract_prof_latest *latest)
{
	struct pt_regs *regs;
	__u32 zero = 0, len, still;
	struct tick_buf *buf = bpf_map_lookup_elem(&tick_scratch, &zero);
	__u64 sp;

	if (!buf)
		return 0;
	/*
	 * The context's registers are copied out first: the verifier takes
	 * no load from the context at the offsets relocations compute.
	 */
	if (bpf_probe_read_kernel(&buf->ctx_regs, sizeof(buf->ctx_regs), &ctx->regs))
		return 0;
	regs = &buf->ctx_regs;
	/* in its user code: else in the kernel, which may return to that code at any time */
	still = (regs->cs & 3) == 3 ? still_user(task) : TRACT_STILL_NONE;
	/* a tick in the kernel: the registers user mode left at its entry, copied alike */
	if ((regs->cs & 3) != 3 &&
	    bpf_probe_read_kernel(regs, sizeof(*regs), (void *)bpf_task_pt_regs(task)))
		return 0;
	if ((regs->cs & 3) != 3)
		return 0;
	copy_uregs(buf->hdr.ustack.regs, regs);
	sp = buf->hdr.ustack.regs[TRACT_UREG_SP];
	len = copy_len(task, sp, latest ? &latest->stack_top : NULL);
	if (len < 8 || len > TRACT_USTACK_COPY || bpf_probe_read_user(buf->bytes, len, (void *)sp))
		return 0;
	len = copy_far(task, &buf->hdr.ustack, buf->bytes, len, true);
	if (len > TRACT_USTACK_COPY + TRACT_USTACK_FAR)
		return 0;
	buf->hdr.kind = TRACT_REC_TICK;
	buf->hdr.tid = key->tid;
	buf->hdr.tgid = key->tgid;
	buf->hdr.kstack = key->kstack;
	buf->hdr.gen = profile_gen;
	buf->hdr.serial = __sync_fetch_and_add(&profile_tick_serial, 1) + 1;
	__builtin_memcpy(buf->hdr.comm, task->comm, sizeof(buf->hdr.comm));
	BPF_CORE_READ_STR_INTO(&buf->hdr.pcomm, task, group_leader, comm);
	ucopy_header(&buf->hdr.ustack, task, len, still);
	if (bpf_ringbuf_output(&profile_ticks_ring, buf, sizeof(buf->hdr) + len, BPF_RB_NO_WAKEUP)) {
		profile_ring_full++;
		return 0;
	}
	ustack_copies++;
	ustack_copy_bytes += len;
	return buf->hdr.serial;
}

/*
 * The syscall the tick found the thread in: none when it interrupted user
 * code, else what the registers saved at the kernel's entry say
 * (regs_syscall()), with that syscall's entry to tell it from the next one.
 */
static __always_inline void tick_syscall(struct bpf_perf_event_data *ctx, struct task_struct *task,
					 struct tract_prof_latest *latest)
{
	struct tract_slot *slot;
	struct pt_regs *regs;
	__u64 cs = 0;

	latest->sc_nr = -1;
	latest->sc_entry = 0;
	if ((task->flags & PF_KTHREAD) || bpf_probe_read_kernel(&cs, sizeof(cs), &ctx->regs.cs) || (cs & 3) == 3)
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs || regs_syscall(regs) < 0)
		return;
	latest->sc_nr = (__s32)regs_syscall(regs);
	slot = slot_of(task->pid);
	if (slot && slot->tag == latest->tag)
		latest->sc_entry = (__u32)slot->sc_entry;
}

SEC("perf_event")
int tract_profile(struct bpf_perf_event_data *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tract_profile_key key = { .tid = task->pid, .tgid = task->tgid };
	struct tract_profile_val *v, fresh = { .ticks = 1 };
	struct tract_prof_latest *latest;
	__u64 tick = 0;
	__u32 i;

	/* the idle task is no thread, and tract's own threads are never samples */
	if (!key.tid || key.tgid == self_tgid || !pid_selected(key.tgid))
		return 0;
	/* before a stack or a count is added: the recorder empties the tables after it moves */
	__sync_fetch_and_add(&profile_added, 1);
	i = still_index(key.tid);
	latest = bpf_map_lookup_elem(&prof_latest, &i);
	if (latest && latest->tag != owner_tag(task))
		latest->stack_top = 0;
	/* --no-kstacks and --no-ustacks hold here too: ticks by thread alone */
	key.kstack = take_kstacks ? bpf_get_stackid(ctx, &profile_stacks, 0) : -1;
	key.ustack = -1;
	if (take_ustacks && !(task->flags & PF_KTHREAD) && unwind_cfi)
		tick = tick_to_ring(ctx, task, &key, latest);
	if (tick)
		goto counted;
	if (take_ustacks && !(task->flags & PF_KTHREAD))
		key.ustack = bpf_get_stackid(ctx, &profile_stacks, BPF_F_USER_STACK);
	v = bpf_map_lookup_elem(&profile_counts, &key);
	if (v) {
		__sync_fetch_and_add(&v->ticks, 1);
	} else {
		__builtin_memcpy(fresh.comm, task->comm, sizeof(fresh.comm));
		BPF_CORE_READ_STR_INTO(&fresh.pcomm, task, group_leader, comm);
		if (bpf_map_update_elem(&profile_counts, &key, &fresh, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&profile_counts, &key)) {
			profile_lost++;
			return 0;
		}
	}
counted:
	profile_ticks++;
	if (latest) {
		latest->tag = owner_tag(task);
		latest->kstack = key.kstack;
		latest->ustack = key.ustack;
		latest->tick = tick;
		latest->gen = profile_gen;
		latest->ns = rq_clock_of(task);
		tick_syscall(ctx, task, latest);
	}
	return 0;
}

/*
 * A running thread's latest tick, into its sample.  For a thread the
 * moment read (run_moment.bpf.h: in syscall nr, entered at entry, or in
 * none, -1), only stacks of what it was in then: the kernel stack of a tick
 * in the same syscall, the user stack of a tick in the same call of it, or
 * both of a tick in user code.
 */
static __always_inline void read_profile(struct task_struct *task, __u32 tag, struct tract_sample *s, __u64 now,
					 bool at_moment_read, __s32 nr, __u64 entry)
{
	__u32 i = still_index(s->tid);
	struct tract_prof_latest *latest = bpf_map_lookup_elem(&prof_latest, &i);

	s->prof_kstack = s->prof_ustack = -1;
	s->prof_tick = 0;
	if (!latest || latest->tag != tag || !latest->ns || latest->gen != profile_gen)
		return;
	if (at_moment_read && latest->sc_nr != nr)
		return;
	s->prof_kstack = latest->kstack;
	s->prof_age_ns = now > latest->ns ? now - latest->ns : 0;
	if (at_moment_read && nr >= 0 && (!entry || latest->sc_entry != (__u32)entry))
		return;
	s->prof_ustack = latest->ustack;
	s->prof_tick = latest->tick;
}

#endif
