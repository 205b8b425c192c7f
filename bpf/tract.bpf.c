// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract's kernel side.  Tracepoint programs keep what the kernel does not
 * keep itself (when a thread's syscall began, who woke it last, block
 * requests in flight) in small bounded maps; a task iterator snapshots the
 * active threads into its seq_file stream, which user space reads.  Nothing
 * is logged per event.
 *
 * Each part is a header of its own, with its maps, state and programs
 * (common.bpf.h: what they all share, the settings among it).  This file
 * holds the programs on hooks several parts share, and the sampler.
 * Programs are attached in the order they are defined: the headers' first,
 * in the order included here (wakeup.bpf.h: the timers' exits before their
 * entries).
 */
#include "common.bpf.h"
#include "thread.bpf.h"
#include "blockio.bpf.h"
#include "runq.bpf.h"
#include "window.bpf.h"
#include "wait_ends.bpf.h"
#include "wakeup.bpf.h"
#include "stacks.bpf.h"
#include "window_ustack.bpf.h"
#include "otel.bpf.h"
#include "profile.bpf.h"
#include "exits.bpf.h"
#include "syscall_latency.bpf.h"
#include "moment_timer.bpf.h"
#include "run_moment.bpf.h"
#include "moment.bpf.h"
#include "pass.bpf.h"
#include "holder.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Counters user space reads after every pass; the iterator is the only writer. */
__u64 threads_visited;
__u64 threads_selected;			/* of those, threads of the processes -p names */

/*
 * The sample being made's state when the sampler came to it (mark_wait()),
 * and where it takes its stacks from (as_at_pass_start()).  Kept in
 * memory, not in locals, and read where used: in a register the verifier
 * carries a value through the rest of the sampler, a state for each.  As
 * locals, 6.18's verifier gives up on the sampler at a million
 * instructions (visited_state) or walks 2.3 times as many (stacks_from:
 * 710,000, against 309,000), and 6.12's takes too long.
 */
volatile __u8 visited_state;
volatile __u8 stacks_from;

/* ---- programs on hooks several parts share ---- */

/*
 * With the wakeup edges (the default) or --runq-latency (autoload off with
 * neither): the one program that sees every switch does the work of both.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(tract_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if (runq_latency)
		account_runq(preempt, prev, next);
	if (wakeup_edges)
		count_edge(preempt, prev, next);
	if (window_switch_copies && window_open())
		window_switch_copy(prev);
	return 0;
}

/*
 * Syscall number and arguments are not copied here: the sampler reads them
 * from the task's saved user registers, which are never stale.  Only the
 * entry time is kept, which the registers do not have.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(tract_sys_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tag = owner_tag(task);
	struct tract_slot *s = slot_of(task->pid);

	if (!s)
		return 0;
	if (s->tag != tag)
		claim_slot(s, tag);
	s->sc_entry = rq_clock_of(task);
	/* tract's own syscalls are no sample's, and no histogram's either */
	if (syscall_latency)
		s->sc_entry_ktime = task->tgid == self_tgid || syscall_in(untimed_syscalls, id) ? 0 : bpf_ktime_get_ns();
	return 0;
}

/* Loaded with the syscall latency (syscall_latency.bpf.h). */
SEC("tp_btf/sys_exit")
int BPF_PROG(tract_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	/*
	 * An untimed syscall that never waits (so no thread slept in it in the
	 * window either) leaves first, on its number and the configuration
	 * sys_enter read: a map page not yet touched in this kernel entry
	 * costs more than the rest of this program where every entry flushes
	 * the TLB (page table isolation without PCID).
	 */
	if (syscall_in(never_waiting_syscalls, regs->orig_ax))
		return 0;
	if (window_exit_copies && window_open())
		window_exit_copy(task, regs);
	account_syscall(task, regs);
	return 0;
}

/*
 * One program on the hook for the timer mark (wakeup.bpf.h), the moment
 * (moment.bpf.h) and each CPU's timer for the next (moment_timer.bpf.h):
 * in the cold interrupt a timer's expiry runs in, a second program costs
 * as much as the first.
 */
SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(tract_hrtimer_entry, struct hrtimer *t, ktime_t *now)
{
	struct timer_mark *mark = cpu_mark();

	if (mark) {
		mark->running = 1;
		mark->timer = (__u64)t;
	}
	take_moment(t);
	arm_moment_timer(mark);
	return 0;
}

/* ---- the sampler ---- */

/* pass.now at the first pass */
__u64 first_pass_now;

/*
 * The sample's state, read from the sample, not from a register the
 * compiler kept: there the verifier would carry the constant each way of
 * deciding it gives through the rest of the sampler, eight states for each
 * (the decoded state, kept to tell on_cpu, made the verifier walk the
 * OpenTelemetry read 30 times).
 */
static __always_inline __u8 state_of(const struct tract_sample *s)
{
	return *(const volatile __u8 *)&s->state;
}

/* The documented "active" policy: tract_is_active() of abi.h, shared with the /proc source. */
static __always_inline bool is_active(const struct tract_sample *s)
{
	struct tract_policy_facts f = {
		.state = state_of(s),
		.kthread = !!(s->flags & TRACT_SF_KTHREAD),
		.in_syscall = !!(s->flags & TRACT_SF_IN_SYSCALL),
		.has_state_time = !!(s->flags & TRACT_SF_STATE_TIME),
		.state_ns = s->state_ns,
		.idle_grace_ns = idle_grace_ns,
		.site_keeps = s->wait_class == (TRACT_WAIT_BLOCKED | TRACT_WAIT_CROSS) &&
			      tract_wait_is_untimed(s->syscall_nr, s->sc_args),
		.site_idle = s->wait_class == TRACT_WAIT_SLEEPING || s->wait_class == TRACT_WAIT_INPUT,
		.site_fresh = s->wait_class == TRACT_WAIT_UNKNOWN && (s->flags & TRACT_SF_STATE_TIME) &&
			      pass.now > first_pass_now && s->state_ns < pass.now - first_pass_now &&
			      s->state_ns < TRACT_FRESH_KEEP_NS && tract_wait_is_untimed(s->syscall_nr, s->sc_args),
	};

	if (all_threads)
		return true;
	if (f.in_syscall) {
		f.idle_syscall = syscall_in(idle_syscalls, s->syscall_nr);
		f.lock_wait = s->syscall_nr == TRACT_NR_FUTEX && tract_futex_is_lock(s->sc_args[1], s->sc_args[2]);
	}
	return tract_is_active(&f);
}

/*
 * A thread is inside a syscall when its saved registers say so: orig_ax holds
 * the number, and ax still holds the -ENOSYS the entry code put there until
 * the syscall returns.  Interrupts and exceptions leave a negative orig_ax or
 * a different ax, so a thread back in user mode never looks like it is in a
 * syscall.  This is what /proc/PID/syscall reads too.  With the syscall,
 * the thread's sched_info counters; both, for a thread still since its
 * last read, from that read (struct tract_still).  Returns the thread's
 * switch count as the pass saw it, which its stacks are checked against.
 */
static __always_inline __u64 read_syscall(struct task_struct *task, struct tract_sample *s, __u32 tag, bool still)
{
	__u32 i = still_index(s->tid);
	struct tract_still *c = bpf_map_lookup_elem(&still_reads, &i);
	__u64 switches = switch_count(task);
	struct pt_regs *regs;
	long nr;

	if (c && still && c->tag == tag && c->switches == switches) {
		s->run_delay_ns = c->run_delay;
		s->run_count = c->pcount;
		if (c->nr >= 0)
			syscall_into(s, c->nr, c->args);
		return switches;
	}
	s->run_delay_ns = task->sched_info.run_delay;
	s->run_count = task->sched_info.pcount;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs || (s->flags & TRACT_SF_KTHREAD))
		return switches;
	nr = regs_syscall(regs);
	if (c) {
		/* kept only from a read of a thread off its CPU: a running one may leave its syscall any time */
		c->tag = still ? tag : 0;
		c->switches = switches;
		c->run_delay = s->run_delay_ns;
		c->pcount = s->run_count;
		c->nr = (__s32)nr;
		regs_syscall_args(regs, c->args);
		if (nr >= 0)
			syscall_into(s, nr, c->args);
		return switches;
	}
	if (nr >= 0) {
		__u64 args[6];

		regs_syscall_args(regs, args);
		syscall_into(s, nr, args);
	}
	return switches;
}

/*
 * How long the thread has been in its state, from times the kernel keeps:
 * sched_info.last_arrival (switched in), sched_info.last_queued (queued, by a
 * wakeup or a preemption) and se.exec_start (switched out).  exec_start is in
 * the run queue's task clock, which lags its clock by the steal and IRQ time
 * since boot, so the current lag is added back.
 */
static __always_inline void read_state_time(struct task_struct *task, struct tract_sample *s, __u64 now)
{
	struct rq *rq = task->se.cfs_rq->rq;
	__u64 since = 0;

	switch (state_of(s)) {
	case TRACT_STATE_RUN:
		since = task->sched_info.last_arrival;
		break;
	case TRACT_STATE_RUNQ:
		since = task->sched_info.last_queued;
		break;
	case TRACT_STATE_ZOMBIE:
		break;
	default:
		if (task->se.exec_start)
			since = task->se.exec_start + (rq->clock - rq->clock_task);
	}
	if (!since)
		return;
	/* a task that switched during this pass, after "now" was read, is at 0 */
	s->state_ns = since < now ? now - since : 0;
	s->flags |= TRACT_SF_STATE_TIME;
}


/* What the tracepoints recorded: the syscall's entry and the last wakeup. */
static __always_inline void read_tracked(struct task_struct *task, struct tract_slot *slot, __u32 tag,
					 struct tract_sample *s, __u64 now)
{
	struct tract_waker *w = waker_of(s->tid);

	if (slot && slot->tag == tag && (s->flags & TRACT_SF_IN_SYSCALL) && slot->sc_entry) {
		s->sc_ns = slot->sc_entry < now ? now - slot->sc_entry : 0;
		s->flags |= TRACT_SF_SC_TIME;
	}
	if (w && w->tag == tag && w->waker_tid) {
		s->waker_tid = w->waker_tid;
		s->flags |= TRACT_SF_WAKER;
		read_wake(task, w, s, now);
	}
}

/*
 * What the previous thread shared with this one, most often its process:
 * threads of a process come one after another in the iterator, and share
 * their leader, fd table and, nearly always, css_set.  Reusing them saves
 * the cache misses of walking the same pointers again.  Only pointers are
 * compared; the objects cannot go away while the iterator holds the task.
 */
struct {
	__u64 leader, files, css_set;
	__u64 fd_array, max_fds;
	__u64 proc_start_ns, cgroup_id;
	char pcomm[TRACT_COMM_LEN];
} seen;

/*
 * The task's pointers to what it shares are read with BPF_CORE_READ(), not
 * walked: 6.18's verifier checks each walk from a trusted pointer with a
 * search of the kernel's BTF by name, some 1 ms, once for every way the
 * sampler reaches it (these walks, its uid's, its rq's and OpenTelemetry's
 * were 600 of them: two thirds of its verification).
 */
static __always_inline void read_process(struct task_struct *task, struct tract_sample *s)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	struct css_set *cgroups = BPF_CORE_READ(task, cgroups);

	if ((__u64)leader != seen.leader) {
		seen.leader = (__u64)leader;
		seen.proc_start_ns = BPF_CORE_READ(leader, start_boottime);
		bpf_core_read(seen.pcomm, sizeof(seen.pcomm), &leader->comm);
	}
	if ((__u64)cgroups != seen.css_set) {
		seen.css_set = (__u64)cgroups;
		seen.cgroup_id = BPF_CORE_READ(cgroups, dfl_cgrp, kn, id);
	}
	s->proc_start_ns = seen.proc_start_ns;
	s->cgroup_id = seen.cgroup_id;
	__builtin_memcpy(s->pcomm, seen.pcomm, sizeof(s->pcomm));
}

/*
 * The inode of the file behind the fd a syscall works on: user space names
 * the file, and the inode tells a reused fd number from the file it had.
 * Two reads only, since this runs for most rows.
 */
static __always_inline void read_fd_file(struct task_struct *task, struct tract_sample *s)
{
	__u64 fd = s->sc_args[0];
	struct file *file = NULL;
	struct files_struct *files;
	struct fdtable *fdt;

	if (!(s->flags & TRACT_SF_IN_SYSCALL) || !syscall_in(fd_syscalls, s->syscall_nr))
		return;
	files = BPF_CORE_READ(task, files);
	if ((__u64)files != seen.files) {
		fdt = BPF_CORE_READ(files, fdt);
		if (!fdt)
			return;
		seen.files = (__u64)files;
		seen.fd_array = (__u64)BPF_CORE_READ(fdt, fd);
		seen.max_fds = BPF_CORE_READ(fdt, max_fds);
	}
	if (fd >= seen.max_fds)
		return;
	if (bpf_probe_read_kernel(&file, sizeof(file), (void *)(seen.fd_array + fd * sizeof(file))) || !file)
		return;
	s->fd_ino = BPF_CORE_READ(file, f_inode, i_ino);
	s->flags |= TRACT_SF_FD;
}

/* The sample being made, one a CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tract_sample);
} sample_scratch SEC(".maps");

SEC("iter.s/task")
int tract_sample_pass(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	__u32 zero = 0;
	/* off the BPF stack, which 6.1 bounds at 512 bytes for the program and its calls */
	struct tract_sample *s = bpf_map_lookup_elem(&sample_scratch, &zero);
	__u64 fresh_switches = 0, switches;
	struct tract_slot *slot;
	bool on_cpu;
	__u32 tag;

	if (!task || !s)
		return 0;
	__builtin_memset(s, 0, sizeof(*s));
	if (ctx->meta->seq_num == 0) {
		pass.now = rq_clock_of(bpf_get_current_task_btf());
		if (!first_pass_now)
			first_pass_now = pass.now;
		note_pass_start(&pass, bpf_get_current_task_btf(), pass.now);
		pass.seq++;
		sampler_task = (__u64)bpf_get_current_task_btf();
		pass.at_moment = moment_pass == pass.seq;
		/* objects of the previous pass may be gone and their addresses reused */
		__builtin_memset(&seen, 0, sizeof(seen));
		otel_leader = 0;
	}
	threads_visited++;
	learn_rq(task, task->thread_info.cpu);
	learn_pt_regs(task);
	s->tgid = task->tgid;
	if (s->tgid == self_tgid || !pid_selected(s->tgid)) {
		note_outside(&pass, task);
		return 0;
	}
	threads_selected++;

	s->kind = TRACT_REC_SAMPLE;
	s->tid = task->pid;
	s->state = tract_decode_state(task_state_bits(task), task->exit_state, task->on_cpu);
	on_cpu = state_of(s) == TRACT_STATE_RUN;
	visited_state = state_of(s);
	stacks_from = as_at_pass_start(&pass, task, s);
	if (task->flags & PF_KTHREAD)
		s->flags |= TRACT_SF_KTHREAD;
	/* the cheap verdicts first: most threads of a host are asleep */
	if (!all_threads && (state_of(s) == TRACT_STATE_IDLE || state_of(s) == TRACT_STATE_ZOMBIE ||
			     ((s->flags & TRACT_SF_KTHREAD) && state_of(s) == TRACT_STATE_SLEEP))) {
		if (state_of(s) != TRACT_STATE_ZOMBIE && is_named_holder(&pass, s->tid))
			s->flags |= TRACT_SF_HOLDER;
		else if (!(s->flags & TRACT_SF_RAN_AT_START))
			return 0;
		else
			s->flags |= TRACT_SF_ONLY_IF_RAN;
	}
	s->syscall_nr = -1;
	tag = owner_tag(task);
	switches = read_syscall(task, s, tag, !on_cpu && state_of(s) != TRACT_STATE_RUN);
	read_state_time(task, s, pass.now);
	if (state_of(s) == TRACT_STATE_SLEEP && (s->flags & TRACT_SF_IN_SYSCALL))
		s->wait_class = site_class(task, s->syscall_nr, s->sc_args[0],
					   tract_wait_is_untimed(s->syscall_nr, s->sc_args));
	if (task->sched_info.last_arrival && task->sched_info.last_arrival < pass.now)
		s->arrival_ns = pass.now - task->sched_info.last_arrival;
	if (!(s->flags & TRACT_SF_HOLDER) && !is_active(s)) {
		if (is_named_holder(&pass, s->tid))
			s->flags |= TRACT_SF_HOLDER;
		else if (!(s->flags & TRACT_SF_RAN_AT_START)) {
			if (s->flags & TRACT_SF_IN_SYSCALL)
				mark_wait(&pass, task, s, visited_state, 1);
			return 0;
		}
		else
			s->flags |= TRACT_SF_ONLY_IF_RAN;
	}
	read_holder(&pass, task, s);

	slot = slot_of(s->tid);
	read_tracked(task, slot, tag, s, pass.now);
	/* what a thread on its CPU runs: its latest profile tick, of what it ran at the moment where that is known */
	s->prof_kstack = s->prof_ustack = -1;
	if (state_of(s) == TRACT_STATE_RUN) {
		const struct moment_run *run = stacks_from == STACKS_RAN ? run_at_moment(s, s->cpu, pass.now) : NULL;

		read_profile(task, tag, s, pass.now, run, run ? run->nr : -1, run ? run->entry : 0);
	}
	if (state_of(s) == TRACT_STATE_DISK)
		read_io(slot, tag, s);
	if (state_of(s) == TRACT_STATE_DISK && !(s->flags & TRACT_SF_IO))
		read_bio(task, tag, s);
	s->uid = BPF_CORE_READ(task, real_cred, uid.val);	/* not walked: read_process() says why */
	read_process(task, s);
	read_otel(seq, task, s, on_cpu || state_of(s) == TRACT_STATE_RUN, tag);
	if (stacks_from == STACKS_WINDOW && window_syscall_left(task, slot, tag, s, pass.now))
		stacks_from = STACKS_WINDOW_KEPT;
	read_fd_file(task, s);
	__builtin_memcpy(s->comm, task->comm, sizeof(s->comm));
	/*
	 * A stack is only still while the thread is off its CPU, and a running
	 * one has none.  One woken in the window from the sleep it was in at the
	 * moment has that sleep's kernel stack as its wakeup kept it, unless it
	 * has not run since, and its user stack as it is while it has not left
	 * that sleep's syscall, on its CPU or not, or as that syscall's exit
	 * copied it.
	 */
	kstack_given = stacks_from == STACKS_WINDOW_KEPT ||
		       (stacks_from == STACKS_WINDOW && (on_cpu || !window_stack_still(task)));
	if (kstack_given)
		s->kstack_hash = take_window_kstack(seq, task);
	if (((stacks_from == STACKS_NOW && !on_cpu) ||
	     (stacks_from == STACKS_WINDOW && (!on_cpu || (s->flags & TRACT_SF_IN_SYSCALL)))) &&
	    state_of(s) != TRACT_STATE_RUN)
		take_stacks(seq, task, slot, tag, s, switches, &fresh_switches);
	/* ... also where it left that syscall as its user stack was read */
	if (kstack_given && take_ustacks && !s->ustack_hash)
		s->ustack_hash = take_window_ustack(seq, task);
	if (stacks_from == STACKS_RAN && state_of(s) == TRACT_STATE_RUN)
		take_run_stacks(seq, task, slot, tag, s);
	/*
	 * An overflowing seq_file is not a loss: the kernel shows this task
	 * again in the next read, so rows never drop between here and user space.
	 */
	if (bpf_seq_write(seq, s, sizeof(*s)))
		return 0;
	otel_remember();
	mark_wait(&pass, task, s, visited_state, 0);
	if (pass.at_moment)
		window_seen(s->tid, tag);
	if (fresh_switches && slot) {
		/* a thread with no syscall since tract started takes its slot here */
		if (slot->tag != tag)
			claim_slot(slot, tag);
		slot->kstack_hash = s->kstack_hash;
		slot->ustack_hash = s->ustack_hash;
		slot->stack_switches = fresh_switches;
	}
	return 0;
}
