// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract's kernel side.  Tracepoint programs keep what the kernel does not
 * keep itself (when a thread's syscall began, who woke it last, block
 * requests in flight) in small bounded maps; a task iterator snapshots the
 * active threads into its seq_file stream, which user space reads.  Nothing
 * is logged per event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tract/abi.h"
#include "thread.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define PF_KTHREAD 0x00200000
#define PF_EXITING 0x00000004
#define ENOSYS 38

/* Set by user space before load (see src/record/source/source_bpf.c). */
const volatile __u32 self_tgid;
const volatile __u8 all_threads;
const volatile __u8 take_kstacks = 1;
const volatile __u8 take_ustacks = 1;
/* --unwind cfi: user stacks go to user space as bytes, to be unwound by CFI */
const volatile __u8 unwind_cfi = 1;
/* syscall latency histograms (the default): sys_enter also reads the clock, and tract_sys_exit is loaded */
const volatile __u8 syscall_latency;
const volatile __u64 idle_grace_ns = TRACT_IDLE_GRACE_DEFAULT_NS;
const volatile __u32 nr_pids;
const volatile __u32 pids[TRACT_PID_FILTER_MAX];
/* Bit n set: syscall n is an idle wait (thread pools, timers, event loops). */
const volatile __u64 idle_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n works on the file descriptor in its first argument. */
const volatile __u64 fd_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n is left out of the latency histograms (it never waits) */
const volatile __u64 untimed_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n is untimed and can never wait (a default one): sys_exit leaves it at once */
const volatile __u64 never_waiting_syscalls[TRACT_SYSCALLS_MAX / 64];

/* Counters user space reads after every pass; the iterator is the only writer. */
__u64 threads_visited;
__u64 threads_selected;			/* of those, threads of the processes -p names */
/* max_entries and slot_mask are set before load from the kernel's pid_max. */
const volatile __u32 slot_mask;
/* still_reads holds fewer: a cache, bounded whatever pid_max is */
const volatile __u32 still_mask;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tract_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tract_waker);
} wakers SEC(".maps");

/*
 * Fibonacci hashing spreads the consecutive tids of a process over the
 * arrays, so threads on different CPUs rarely write the same cache line.
 */
static __always_inline __u32 slot_index(__u32 tid)
{
	return (tid * 2654435761u) & slot_mask;
}

/*
 * A slot's owner: the tid mixed with the thread's start time, so a thread
 * that reuses the tid of a dead one does not inherit its values.
 */
static __always_inline __u32 owner_tag(struct task_struct *task)
{
	return task->pid ^ (__u32)task->start_time;
}

/* A thread's entry in still_reads: its slot's, folded onto the cache's size. */
static __always_inline __u32 still_index(__u32 tid)
{
	return slot_index(tid) & still_mask;
}

/*
 * A key's entry in a CPU's running totals (abi.h): the CPU's row of 2^shift
 * entries, the key's place in it by Fibonacci hashing.
 */
static __always_inline __u32 totals_index(__u64 key, __u32 shift)
{
	return (bpf_get_smp_processor_id() << shift) + (__u32)((key * 0x9e3779b97f4a7c15ull) >> (64 - shift));
}

static __always_inline struct tract_slot *slot_of(__u32 tid)
{
	__u32 i = slot_index(tid);

	return bpf_map_lookup_elem(&slots, &i);
}

static __always_inline struct tract_waker *waker_of(__u32 tid)
{
	__u32 i = slot_index(tid);

	return bpf_map_lookup_elem(&wakers, &i);
}

/*
 * The syscall a thread is in, from the registers it entered the kernel
 * with: orig_ax holds the number, and ax the -ENOSYS the entry code put
 * there until the syscall returns.  -1 when it is in none.
 */
static __always_inline long regs_syscall(const struct pt_regs *regs)
{
	return (long)regs->orig_ax < 0 || (long)regs->ax != -ENOSYS ? -1 : (long)regs->orig_ax;
}

static __always_inline void regs_syscall_args(const struct pt_regs *regs, __u64 *args)
{
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;
}

/* Histogram bucket of a latency: the b with 2^(b-1) <= µs < 2^b. */
static __always_inline __u8 log2_us(__u64 ns)
{
	__u64 us = ns / 1000;
	__u8 b = 0;

	for (int i = 0; i < 31 && us; i++) {
		us >>= 1;
		b++;
	}
	return b;
}

/*
 * Count one latency in a histogram bucket.  When two CPUs create the same
 * bucket at once, the loser finds it made and adds to it; only a full map
 * loses counts, and *full says how many.  *added counts the buckets made:
 * the recorder empties a map only when it moved since the last time, as
 * emptying walks every bucket of the table, full or not.
 */
static __always_inline void hist_add(void *map, const void *key, __u64 ns, __u64 *full, __u64 *added)
{
	struct tract_hist_val first = { 1, ns }, *v = bpf_map_lookup_elem(map, key);

	if (!v && !bpf_map_update_elem(map, key, &first, BPF_NOEXIST)) {
		__sync_fetch_and_add(added, 1);
		return;
	}
	if (!v)
		v = bpf_map_lookup_elem(map, key);
	if (!v) {
		__sync_fetch_and_add(full, 1);
		return;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->sum_ns, ns);
}

/* -p: the processes the samples and the per-process histograms are of */
static __always_inline bool pid_selected(__u32 tgid)
{
	if (!nr_pids)
		return true;
	for (__u32 i = 0; i < TRACT_PID_FILTER_MAX && i < nr_pids; i++)
		if (pids[i] == tgid)
			return true;
	return false;
}

#include "blockio.bpf.h"

/*
 * Times are read from the run queue's clock, which the scheduler keeps fresh
 * (update_rq_clock() at every schedule, wakeup and tick): reading it costs a
 * few loads where bpf_ktime_get_ns() costs a clock read on every event.
 * It is the clock sched_info and sched_entity times are kept in.
 */
static __always_inline __u64 rq_clock_of(struct task_struct *task)
{
	return task->se.cfs_rq->rq->clock;
}

/* __state was called state before 5.14 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state_bits(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return task->__state;
	return ((struct task_struct___pre514 *)task)->state;
}

#include "runq.bpf.h"
#include "window.bpf.h"
#include "wait_ends.bpf.h"
#include "wakeup.bpf.h"
#include "stacks.bpf.h"
#include "window_ustack.bpf.h"
/* struct tract_still by still_index() (thread.bpf.h) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set at load: the slots' count, at most STILL_MAX (source_bpf.c) */
	__type(key, __u32);
	__type(value, struct tract_still);
} still_reads SEC(".maps");

#include "otel.bpf.h"
#include "profile.bpf.h"
#include "exits.bpf.h"

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

static __always_inline bool syscall_in(const volatile __u64 *set, __s32 nr)
{
	__u32 n = nr;

	if (nr < 0 || n >= TRACT_SYSCALLS_MAX)
		return false;
	/* the compiler may check one register and index with another; bound the index itself */
	barrier_var(n);
	n &= TRACT_SYSCALLS_MAX - 1;
	return set[n / 64] & (1ull << (n % 64));
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

/*
 * A latency histogram per (process, syscall), kept in the kernel and
 * emptied every pass (autoload off with --no-syscall-latency): the CPU's
 * running totals (sc_totals), or where another holds its entry the sc_hist
 * hash.  A timed syscall costs two clock reads and two atomic adds; the
 * untimed ones (that never wait) only this program's call.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(tract_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tract_sc_hist_key k = {};
	struct tract_slot *s;
	__u64 ns;

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
	s = slot_of(task->pid);
	if (!s || s->tag != owner_tag(task) || !s->sc_entry_ktime || !pid_selected(task->tgid))
		return 0;
	ns = bpf_ktime_get_ns() - s->sc_entry_ktime;
	k.tgid = task->tgid;
	k.nr = regs->orig_ax;
	k.bucket = log2_us(ns);
	s->sc_entry_ktime = 0;
	if (!add_sc_total((__u64)k.tgid << 32 | k.nr, k.bucket, ns))
		hist_add(&sc_hist, &k, ns, &sc_hist_full, &sc_hist_added);
	return 0;
}

/* ---- the sampler ---- */

/* Read once per pass, when the iterator shows its first task; and at the first pass */
__u64 pass_now, first_pass_now;

/* The documented "active" policy: tract_is_active() of abi.h, shared with the /proc source. */
static __always_inline bool is_active(const struct tract_sample *s)
{
	struct tract_policy_facts f = {
		.state = s->state,
		.kthread = !!(s->flags & TRACT_SF_KTHREAD),
		.in_syscall = !!(s->flags & TRACT_SF_IN_SYSCALL),
		.has_state_time = !!(s->flags & TRACT_SF_STATE_TIME),
		.state_ns = s->state_ns,
		.idle_grace_ns = idle_grace_ns,
		.site_keeps = s->wait_class == (TRACT_WAIT_BLOCKED | TRACT_WAIT_CROSS) &&
			      tract_wait_is_untimed(s->syscall_nr, s->sc_args),
		.site_idle = s->wait_class == TRACT_WAIT_SLEEPING || s->wait_class == TRACT_WAIT_INPUT,
		.site_fresh = s->wait_class == TRACT_WAIT_UNKNOWN && (s->flags & TRACT_SF_STATE_TIME) &&
			      s->state_ns < pass_now - first_pass_now && tract_wait_is_untimed(s->syscall_nr, s->sc_args),
	};

	if (all_threads)
		return true;
	if (f.in_syscall) {
		f.idle_syscall = syscall_in(idle_syscalls, s->syscall_nr);
		f.lock_wait = s->syscall_nr == TRACT_NR_FUTEX && tract_futex_is_lock(s->sc_args[1], s->sc_args[2]);
	}
	return tract_is_active(&f);
}

static __always_inline void syscall_into(struct tract_sample *s, long nr, const __u64 *args)
{
	s->flags |= TRACT_SF_IN_SYSCALL;
	s->syscall_nr = nr;
	__builtin_memcpy(s->sc_args, args, sizeof(s->sc_args));
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

	switch (s->state) {
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

/*
 * A pass is a snapshot of one moment: when the sampler's timer woke it.
 *
 * The sampler must run on a CPU to take a pass, and on a busy host it takes
 * that CPU from someone: the thread it preempted, or the one it waited
 * behind, would read as queued in every pass, half of the time on CPU of a
 * two-CPU host.  And while it waits for its CPU and then visits threads one
 * after another, the other CPUs go on switching: what they run by then is
 * often what the sampler's wait displaced there.  So the snapshot is of the
 * moment the sampler woke, which does not depend on the workload, where the
 * moments the sampler gets its CPU and visits a thread often do.  What ran
 * on each CPU then is read in the interrupt of the sampler's timer
 * (moment.bpf.h, as_at_moment() below).  Without that reading (the first
 * pass, a deadline already past), the kernel's own times tell: when each
 * thread last got a CPU (sched_info.last_arrival), was queued (last_queued)
 * and left one (se.exec_start); a thread's state then follows from them,
 * unless it has switched twice since, and then it is shown as found.
 * Whether another thread of the same CPU was running then is for user
 * space to weigh (src/record/source/observer.c): the flags say what each thread's own
 * times tell.  Either way, user space passes the sampler's sched_info as it
 * went to sleep, from which its wakeup follows.
 */
/* the sampler's time on a CPU and sched_info as it went to sleep */
__u64 rest_run_ns, rest_run_delay, rest_pcount;
__u64 pass_start;			/* when it woke for this pass */
__u64 pass_arrival;			/* when it then got its CPU */
__u32 observer_cpu;

/*
 * At the first task of a pass: when the sampler woke.  Since then it has
 * waited for a CPU (its run_delay grew) and, if it was preempted or blocked
 * before its latest arrival, run for a while (its time on a CPU up to that
 * arrival, se.prev_sum_exec_runtime, grew); its latest arrival less both is
 * its wakeup, to within the microseconds it ran between telling user space
 * its figures and falling asleep.  A wakeup that preempts at once skips the
 * clock update of the switch (rq_clock_skip_update()), so the wakeup and
 * the arrival are often equal.  If it did not sleep at all, the pass began
 * now.
 */
static __always_inline void note_pass_start(struct task_struct *me, __u64 now)
{
	__u64 delay = me->sched_info.run_delay, arrival = me->sched_info.last_arrival;
	__u64 ran = me->se.prev_sum_exec_runtime, back;

	observer_cpu = me->thread_info.cpu;
	pass_arrival = arrival;
	pass_start = arrival;
	if (!rest_pcount)
		return;
	if (me->sched_info.pcount == rest_pcount) {
		pass_start = now;
	} else if (delay >= rest_run_delay && ran >= rest_run_ns) {
		back = (delay - rest_run_delay) + (ran - rest_run_ns);
		if (arrival > back)
			pass_start = arrival - back;
	}
}

/*
 * Whether a thread that got its CPU after the pass began was asleep then:
 * that switch-in ended its latest wakeup, and the wakeup came later.
 */
static __always_inline bool woken_after(struct task_struct *task, __u64 start)
{
	struct tract_waker *w = waker_of(task->pid);
	__u64 waited;

	/* slept_in RUN: a wakeup that found it on its CPU, or no wakeup (mark_run_copy()) */
	if (!w || w->tag != owner_tag(task) || w->slept_in == TRACT_STATE_RUN ||
	    (__u32)task->sched_info.pcount - w->pcount != 1)
		return false;
	waited = task->sched_info.run_delay - w->run_delay;
	return task->sched_info.last_arrival - waited > start;
}

/*
 * Each CPU as the pass first met a thread of it (a per-CPU kernel thread,
 * within the pass's first microseconds): what ran on it, and its run
 * queue's clock less its task clock (the interrupt and steal time the task
 * clock leaves out).  The sampler visits threads one after another while
 * the other CPUs go on switching, and two threads that take turns every
 * microsecond would otherwise both read as running, or neither; and a
 * thread's exec_start, in the task clock, converted with a later lag would
 * seem to leave its CPU later than it did.  The run queue comes from that
 * thread, since a per-CPU variable's address needs kallsyms to hold data
 * symbols, which not every kernel's does.
 */
struct cpu_view {
	__u64 pass;		/* the pass that met the CPU */
	__u64 runner;		/* what ran on it then, as a number; the sampler's CPU: 0 */
	__u64 since;		/* when that got the CPU; an idle CPU: ~0, as any switch is since */
	__u64 lag;		/* its run queue's clock less its task clock then */
};

__u64 pass_seq;				/* passes begun */
bool at_moment;				/* this pass has each CPU's runner at its moment */

#include "moment.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACT_CPUS_MAX);
	__type(key, __u32);
	__type(value, struct cpu_view);
} cpu_views SEC(".maps");

/*
 * Per CPU, for user space: the latest time a thread that is not sampled
 * (another process under -p, a tract thread) got that CPU and was on it
 * when the pass began, and in which pass.  A sampled thread that got the
 * CPU after it then was not what ran there.
 */
__u64 outside_pass[TRACT_CPUS_MAX];
__u64 outside_arrival[TRACT_CPUS_MAX];

static __always_inline struct cpu_view *view_of(struct task_struct *task, __u32 cpu)
{
	struct cpu_view *v = bpf_map_lookup_elem(&cpu_views, &cpu);
	struct task_struct *curr;
	struct rq *rq;

	if (!v || v->pass == pass_seq)
		return v;
	rq = task->se.cfs_rq->rq;
	/* the thread moved since its CPU was read: this run queue is another CPU's */
	if (rq->cpu != cpu)
		return NULL;
	curr = rq->curr;
	v->pass = pass_seq;
	v->runner = cpu == observer_cpu ? 0 : (__u64)curr;
	/* sched_info_switch() keeps no times for the idle task */
	v->since = !curr ? 0 : curr->pid ? curr->sched_info.last_arrival : ~0ull;
	v->lag = rq->clock - rq->clock_task;
	return v;
}

/*
 * Whether a thread off its CPU now was on it when the pass began, and left
 * it since: preempted (its queue time is when it left, in the run queue's
 * clock) or asleep (exec_start, in the task clock, with that CPU's lag when
 * the pass met it: a lag read later would add the interrupt time since).  A
 * move to another CPU clears exec_start, and the time it left with it.
 */
static __always_inline bool left_since(struct task_struct *task, const struct tract_sample *s,
				       const struct cpu_view *v, __u64 start)
{
	__u64 queued = task->sched_info.last_queued, left;

	if (!task->se.exec_start)
		return false;
	left = task->se.exec_start + v->lag;
	if (s->state == TRACT_STATE_RUNQ && queued && queued < left)
		left = queued;
	return left >= start;
}

/*
 * A queued thread that was asleep when the pass began and was woken since,
 * and the state it slept in: its latest wakeup came after the pass began
 * (it was queued since), found it switched out (a thread woken while still
 * on its CPU never slept: a later preemption queued it) and it has not had
 * a CPU since that wakeup.
 */
static __always_inline int woken_since(struct task_struct *task, __u64 start)
{
	struct tract_waker *w = waker_of(task->pid);

	if (task->sched_info.last_queued <= start || !w || w->tag != owner_tag(task) ||
	    (__u32)task->sched_info.pcount != w->pcount || task->sched_info.run_delay != w->run_delay ||
	    w->slept_in == TRACT_STATE_RUN)
		return -1;
	return w->slept_in;
}

/*
 * Where the sample being made takes its stacks from: the thread as it is,
 * its wakeup in the window, or nowhere.  Kept in memory, not in a register
 * the verifier would carry, a value at a time, through every later loop.
 */
enum stacks_from { STACKS_NOW, STACKS_WINDOW, STACKS_WINDOW_KEPT, STACKS_NONE, STACKS_RAN };
volatile __u8 stacks_from;

/*
 * With each CPU's runner read at the moment (moment.bpf.h): those ran then,
 * and no other.  A runner that moved to another CPU since is found by its
 * tid in user space.  A thread asleep then and woken since shows what it
 * slept in (window.bpf.h); one that got a CPU since and was not asleep then
 * was queued, and what it sleeps in now is not the moment's.
 */
static __always_inline void as_at_moment(struct task_struct *task, struct tract_sample *s, __u32 cpu)
{
	struct tract_waker *w = waker_of(task->pid);
	__u64 start = pass_start;
	int slept, then;

	/* one that ran then on a CPU it has left for another is shown on that one */
	if (moment_task[cpu] != (__u64)task && (then = ran_cpu(task, cpu)) >= 0) {
		cpu = then & (TRACT_CPUS_MAX - 1);
		s->cpu = cpu;
	}
	if (moment_task[cpu] == (__u64)task) {
		s->flags |= TRACT_SF_AT_MOMENT;
		/* what it ran then: run_moment.bpf.h */
		stacks_from = STACKS_RAN;
		if (s->state != TRACT_STATE_RUN) {
			s->flags |= TRACT_SF_RAN_AT_START;
			if (task->sched_info.last_queued == pass_arrival && cpu == observer_cpu)
				s->flags |= TRACT_SF_PREEMPTED;
		}
		s->state = TRACT_STATE_RUN;
		return;
	}
	if (w && w->tag == owner_tag(task) && w->moment_woke == (__u32)moment_pass) {
		if (s->state == TRACT_STATE_RUN) {
			s->start_state = w->moment_slept_in;
			s->flags |= TRACT_SF_ARRIVED_SINCE;
		} else {
			s->flags |= TRACT_SF_WOKEN_SINCE;
		}
		s->state = w->moment_slept_in;
		stacks_from = STACKS_WINDOW;
		return;
	}
	if (s->state != TRACT_STATE_RUN && moment_clock[cpu] && task->sched_info.last_arrival > moment_clock[cpu]) {
		s->state = TRACT_STATE_RUNQ;
		stacks_from = STACKS_NONE;
		return;
	}
	if (s->state == TRACT_STATE_RUN) {
		/* it got its CPU since: then it was queued, or asleep */
		s->start_state = start && woken_after(task, start) ? TRACT_STATE_SLEEP : TRACT_STATE_RUNQ;
		s->state = s->start_state;
		s->flags |= TRACT_SF_ARRIVED_SINCE;
	} else if (start && s->state == TRACT_STATE_RUNQ && (slept = woken_since(task, start)) >= 0) {
		s->state = slept;
		s->flags |= TRACT_SF_WOKEN_SINCE;
	}
}

static __always_inline void as_at_pass_start(struct task_struct *task, struct tract_sample *s)
{
	__u64 start = pass_start, arrived = task->sched_info.last_arrival;
	__u32 cpu = task->thread_info.cpu;
	struct cpu_view *v;
	bool runner, changed;
	int slept;

	/* one read of its CPU: the view, the row and user space all go by it */
	s->cpu = cpu;
	if (cpu >= TRACT_CPUS_MAX || s->state == TRACT_STATE_ZOMBIE)
		return;
	if (at_moment) {
		as_at_moment(task, s, cpu);
		return;
	}
	if (!start || !arrived)
		return;
	v = view_of(task, cpu);
	if (!v)
		return;
	runner = v->runner == (__u64)task;
	/* the sampler holds its own CPU: what ran there then has left it */
	changed = cpu == observer_cpu || v->since > start;
	if (runner || s->state == TRACT_STATE_RUN) {
		if (arrived <= start) {
			/* what ran on its CPU when the pass met it, since before the pass: RUN, wherever it is now */
			if (runner) {
				s->state = TRACT_STATE_RUN;
				return;
			}
			/* on its CPU since before the pass, and leaving it as the pass met the CPU */
			s->state = TRACT_STATE_RUNQ;
			s->flags |= TRACT_SF_RAN_AT_START;
			return;
		}
		/* it got its CPU after the pass began: then it was queued, or asleep */
		s->start_state = woken_after(task, start) ? TRACT_STATE_SLEEP : TRACT_STATE_RUNQ;
		if (runner) {
			/* ... unless nothing else is known to have had the CPU then */
			s->state = TRACT_STATE_RUN;
			s->flags |= TRACT_SF_ARRIVED_SINCE;
		} else {
			/* and it was not on it when the pass met its CPU either */
			s->state = s->start_state;
		}
		return;
	}
	if (arrived > start || !changed)
		return;
	if (left_since(task, s, v, start)) {
		s->flags |= TRACT_SF_RAN_AT_START;
		if (task->sched_info.last_queued == pass_arrival && cpu == observer_cpu)
			s->flags |= TRACT_SF_PREEMPTED;
	} else if (s->state == TRACT_STATE_RUNQ && (slept = woken_since(task, start)) >= 0) {
		s->state = slept;
		s->flags |= TRACT_SF_WOKEN_SINCE;
	}
}

/*
 * A thread the pass does not sample may still have been what ran on its
 * CPU when the pass began: user space must know, to not show a sampled
 * thread that got the CPU later as running then.
 */
static __always_inline void note_outside(struct task_struct *task)
{
	struct tract_sample s = { .state = tract_decode_state(task_state_bits(task), task->exit_state,
							     task->on_cpu) };
	__u64 start = pass_start, arrived = task->sched_info.last_arrival;
	__u32 cpu = task->thread_info.cpu, i = cpu & (TRACT_CPUS_MAX - 1);
	struct cpu_view *v;

	if (at_moment || !start || !arrived || arrived > start || cpu >= TRACT_CPUS_MAX || s.state == TRACT_STATE_RUN ||
	    s.state == TRACT_STATE_ZOMBIE || task == bpf_get_current_task_btf())
		return;
	v = view_of(task, cpu);
	if (!v || (cpu != observer_cpu && v->since <= start) || !left_since(task, &s, v, start))
		return;
	if (outside_pass[i] != pass_seq || outside_arrival[i] < arrived) {
		outside_pass[i] = pass_seq;
		outside_arrival[i] = arrived;
	}
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

static __always_inline void read_process(struct task_struct *task, struct tract_sample *s)
{
	if ((__u64)task->group_leader != seen.leader) {
		seen.leader = (__u64)task->group_leader;
		seen.proc_start_ns = task->group_leader->start_boottime;
		__builtin_memcpy(seen.pcomm, task->group_leader->comm, sizeof(seen.pcomm));
	}
	if ((__u64)task->cgroups != seen.css_set) {
		seen.css_set = (__u64)task->cgroups;
		seen.cgroup_id = task->cgroups->dfl_cgrp->kn->id;
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
	struct fdtable *fdt;

	if (!(s->flags & TRACT_SF_IN_SYSCALL) || !syscall_in(fd_syscalls, s->syscall_nr))
		return;
	if ((__u64)task->files != seen.files) {
		fdt = task->files->fdt;
		if (!fdt)
			return;
		seen.files = (__u64)task->files;
		seen.fd_array = (__u64)fdt->fd;
		seen.max_fds = fdt->max_fds;
	}
	if (fd >= seen.max_fds)
		return;
	if (bpf_probe_read_kernel(&file, sizeof(file), (void *)(seen.fd_array + fd * sizeof(file))) || !file)
		return;
	s->fd_ino = BPF_CORE_READ(file, f_inode, i_ino);
	s->flags |= TRACT_SF_FD;
}

#include "holder.bpf.h"

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
		pass_now = rq_clock_of(bpf_get_current_task_btf());
		if (!first_pass_now)
			first_pass_now = pass_now;
		note_pass_start(bpf_get_current_task_btf(), pass_now);
		pass_seq++;
		sampler_task = (__u64)bpf_get_current_task_btf();
		at_moment = moment_pass == pass_seq;
		/* objects of the previous pass may be gone and their addresses reused */
		__builtin_memset(&seen, 0, sizeof(seen));
		otel_leader = 0;
	}
	threads_visited++;
	learn_rq(task, task->thread_info.cpu);
	learn_pt_regs(task);
	s->tgid = task->tgid;
	if (s->tgid == self_tgid || !pid_selected(s->tgid)) {
		note_outside(task);
		return 0;
	}
	threads_selected++;

	s->kind = TRACT_REC_SAMPLE;
	s->tid = task->pid;
	s->state = tract_decode_state(task_state_bits(task), task->exit_state, task->on_cpu);
	on_cpu = s->state == TRACT_STATE_RUN;
	visited_state = s->state;
	stacks_from = STACKS_NOW;
	as_at_pass_start(task, s);
	if (task->flags & PF_KTHREAD)
		s->flags |= TRACT_SF_KTHREAD;
	/* the cheap verdicts first: most threads of a host are asleep */
	if (!all_threads && (s->state == TRACT_STATE_IDLE || s->state == TRACT_STATE_ZOMBIE ||
			     ((s->flags & TRACT_SF_KTHREAD) && s->state == TRACT_STATE_SLEEP))) {
		if (s->state != TRACT_STATE_ZOMBIE && is_named_holder(s->tid))
			s->flags |= TRACT_SF_HOLDER;
		else if (!(s->flags & TRACT_SF_RAN_AT_START))
			return 0;
		else
			s->flags |= TRACT_SF_ONLY_IF_RAN;
	}
	s->syscall_nr = -1;
	tag = owner_tag(task);
	switches = read_syscall(task, s, tag, !on_cpu && s->state != TRACT_STATE_RUN);
	read_state_time(task, s, pass_now);
	if (s->state == TRACT_STATE_SLEEP && (s->flags & TRACT_SF_IN_SYSCALL)) {
		s->wait_class = site_class(task, s->syscall_nr, s->sc_args[0]);
		/*
		 * A timer ends a wait at a site where a timeout ran out: a nap.  A wait
		 * there with no timeout is no nap (a runtime parks its threads on one
		 * condition variable with and without a timeout): not known yet.
		 */
		if (s->wait_class == TRACT_WAIT_SLEEPING && tract_wait_is_untimed(s->syscall_nr, s->sc_args))
			s->wait_class = TRACT_WAIT_UNKNOWN;
	}
	if (task->sched_info.last_arrival && task->sched_info.last_arrival < pass_now)
		s->arrival_ns = pass_now - task->sched_info.last_arrival;
	if (!(s->flags & TRACT_SF_HOLDER) && !is_active(s)) {
		if (is_named_holder(s->tid))
			s->flags |= TRACT_SF_HOLDER;
		else if (!(s->flags & TRACT_SF_RAN_AT_START)) {
			if (s->flags & TRACT_SF_IN_SYSCALL)
				mark_wait(task, tag, s, 1);
			return 0;
		}
		else
			s->flags |= TRACT_SF_ONLY_IF_RAN;
	}
	read_holder(task, s);

	slot = slot_of(s->tid);
	read_tracked(task, slot, tag, s, pass_now);
	/* what a thread on its CPU runs: its latest profile tick, of what it ran at the moment where that is known */
	s->prof_kstack = s->prof_ustack = -1;
	if (s->state == TRACT_STATE_RUN) {
		const struct moment_run *run = stacks_from == STACKS_RAN ? run_at_moment(s, s->cpu, pass_now) : NULL;

		read_profile(task, tag, s, pass_now, run, run ? run->nr : -1, run ? run->entry : 0);
	}
	if (s->state == TRACT_STATE_DISK)
		read_io(slot, tag, s);
	if (s->state == TRACT_STATE_DISK && !(s->flags & TRACT_SF_IO))
		read_bio(task, tag, s);
	s->uid = task->real_cred->uid.val;
	read_process(task, s);
	read_otel(seq, task, s, on_cpu || s->state == TRACT_STATE_RUN, tag);
	if (stacks_from == STACKS_WINDOW && window_syscall_left(task, slot, tag, s, pass_now))
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
	    s->state != TRACT_STATE_RUN)
		take_stacks(seq, task, slot, tag, s, switches, &fresh_switches);
	/* ... also where it left that syscall as its user stack was read */
	if (kstack_given && take_ustacks && !s->ustack_hash)
		s->ustack_hash = take_window_ustack(seq, task);
	if (stacks_from == STACKS_RAN && s->state == TRACT_STATE_RUN)
		take_run_stacks(seq, task, slot, tag, s);
	/*
	 * An overflowing seq_file is not a loss: the kernel shows this task
	 * again in the next read, so rows never drop between here and user space.
	 */
	if (bpf_seq_write(seq, s, sizeof(*s)))
		return 0;
	otel_remember();
	mark_wait(task, tag, s, 0);
	if (at_moment)
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
