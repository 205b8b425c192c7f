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
#define ENOSYS 38

/* Set by user space before load (see src/source_bpf.c). */
const volatile __u32 self_tgid;
const volatile __u8 all_threads;
const volatile __u8 take_kstacks = 1;
const volatile __u8 take_ustacks = 1;
/* --syscall-latency: sys_enter also reads the clock, and tract_sys_exit is loaded */
const volatile __u8 syscall_latency;
const volatile __u64 idle_grace_ns = 10000000;
const volatile __u32 nr_pids;
const volatile __u32 pids[TRACT_PID_FILTER_MAX];
/* Bit n set: syscall n is an idle wait (thread pools, timers, event loops). */
const volatile __u64 idle_syscalls[TRACT_SYSCALLS_MAX / 64];
/* Bit n set: syscall n works on the file descriptor in its first argument. */
const volatile __u64 fd_syscalls[TRACT_SYSCALLS_MAX / 64];

/* Counters user space reads after every pass; the iterator is the only writer. */
__u64 threads_visited;
__u64 threads_selected;			/* of those, threads of the processes -p names */
/* max_entries and slot_mask are set before load from the kernel's pid_max. */
const volatile __u32 slot_mask;

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
 * loses counts, and *full says how many.
 */
static __always_inline void hist_add(void *map, const void *key, __u64 ns, __u64 *full)
{
	struct tract_hist_val first = { 1, ns }, *v = bpf_map_lookup_elem(map, key);

	if (!v && !bpf_map_update_elem(map, key, &first, BPF_NOEXIST))
		return;
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
#include "wakeup.bpf.h"
#include "profile.bpf.h"

/*
 * Only with --wakeup-edges or --runq-latency (autoload off otherwise): the
 * one program that sees every switch does the work of both.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(tract_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if (runq_latency)
		account_runq(preempt, prev, next);
	if (wakeup_edges)
		count_edge(preempt, prev, next);
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
	if (syscall_latency)
		s->sc_entry_ktime = bpf_ktime_get_ns();
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct tract_sc_hist_key);
	__type(value, struct tract_hist_val);
} sc_hist SEC(".maps");

__u64 sc_hist_full;

/*
 * Only with --syscall-latency (autoload off otherwise): a latency histogram
 * per (process, syscall), kept in the kernel and emptied every pass.  It
 * costs two clock reads and a hash update per syscall, which is why it is
 * not on by default.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(tract_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct tract_sc_hist_key k = {};
	struct tract_slot *s = slot_of(task->pid);
	__u64 ns;

	if (!s || s->tag != owner_tag(task) || !s->sc_entry_ktime || !pid_selected(task->tgid))
		return 0;
	ns = bpf_ktime_get_ns() - s->sc_entry_ktime;
	k.tgid = task->tgid;
	k.nr = regs->orig_ax;
	k.bucket = log2_us(ns);
	s->sc_entry_ktime = 0;
	hist_add(&sc_hist, &k, ns, &sc_hist_full);
	return 0;
}

/* ---- the sampler ---- */

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
 * syscall.  This is what /proc/PID/syscall reads too.
 */
static __always_inline void read_syscall(struct task_struct *task, struct tract_sample *s)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr;

	if (!regs || (s->flags & TRACT_SF_KTHREAD))
		return;
	nr = regs->orig_ax;
	if (nr < 0 || (long)regs->ax != -ENOSYS)
		return;
	s->flags |= TRACT_SF_IN_SYSCALL;
	s->syscall_nr = nr;
	s->sc_args[0] = regs->di;
	s->sc_args[1] = regs->si;
	s->sc_args[2] = regs->dx;
	s->sc_args[3] = regs->r10;
	s->sc_args[4] = regs->r8;
	s->sc_args[5] = regs->r9;
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
 * space to weigh (src/observer.c): the flags say what each thread's own
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

	if (!w || w->tag != owner_tag(task) || (__u32)task->sched_info.pcount - w->pcount != 1)
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
 * (it was queued since) and it has not had a CPU since that wakeup.
 */
static __always_inline int woken_since(struct task_struct *task, __u64 start)
{
	struct tract_waker *w = waker_of(task->pid);

	if (task->sched_info.last_queued <= start || !w || w->tag != owner_tag(task) ||
	    (__u32)task->sched_info.pcount != w->pcount || task->sched_info.run_delay != w->run_delay)
		return -1;
	return w->slept_in;
}

/*
 * With each CPU's runner read at the moment (moment.bpf.h): those ran then,
 * and no other.  A runner that moved to another CPU since is found by its
 * tid in user space.
 */
static __always_inline void as_at_moment(struct task_struct *task, struct tract_sample *s, __u32 cpu)
{
	__u64 start = pass_start;
	int slept;

	if (moment_task[cpu] == (__u64)task) {
		s->flags |= TRACT_SF_AT_MOMENT;
		if (s->state != TRACT_STATE_RUN) {
			s->flags |= TRACT_SF_RAN_AT_START;
			if (task->sched_info.last_queued == pass_arrival && cpu == observer_cpu)
				s->flags |= TRACT_SF_PREEMPTED;
		}
		s->state = TRACT_STATE_RUN;
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

#include "stacks.bpf.h"

/* Read once per pass, when the iterator shows its first task. */
__u64 pass_now;

SEC("iter.s/task")
int tract_sample_pass(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct tract_sample s = {};
	__u64 fresh_switches = 0;
	struct tract_slot *slot;
	bool on_cpu;
	__u32 tag;

	if (!task)
		return 0;
	if (ctx->meta->seq_num == 0) {
		pass_now = rq_clock_of(bpf_get_current_task_btf());
		note_pass_start(bpf_get_current_task_btf(), pass_now);
		pass_seq++;
		sampler_task = (__u64)bpf_get_current_task_btf();
		at_moment = moment_pass == pass_seq;
		/* objects of the previous pass may be gone and their addresses reused */
		__builtin_memset(&seen, 0, sizeof(seen));
	}
	threads_visited++;
	learn_rq(task, task->thread_info.cpu);
	s.tgid = task->tgid;
	if (s.tgid == self_tgid || !pid_selected(s.tgid)) {
		note_outside(task);
		return 0;
	}
	threads_selected++;

	s.kind = TRACT_REC_SAMPLE;
	s.tid = task->pid;
	s.state = tract_decode_state(task_state_bits(task), task->exit_state, task->on_cpu);
	on_cpu = s.state == TRACT_STATE_RUN;
	as_at_pass_start(task, &s);
	if (task->flags & PF_KTHREAD)
		s.flags |= TRACT_SF_KTHREAD;
	/* the cheap verdicts first: most threads of a host are asleep */
	if (!all_threads && (s.state == TRACT_STATE_IDLE || s.state == TRACT_STATE_ZOMBIE ||
			     ((s.flags & TRACT_SF_KTHREAD) && s.state == TRACT_STATE_SLEEP))) {
		if (!(s.flags & TRACT_SF_RAN_AT_START))
			return 0;
		s.flags |= TRACT_SF_ONLY_IF_RAN;
	}
	s.syscall_nr = -1;
	read_syscall(task, &s);
	read_state_time(task, &s, pass_now);
	if (task->sched_info.last_arrival && task->sched_info.last_arrival < pass_now)
		s.arrival_ns = pass_now - task->sched_info.last_arrival;
	if (!is_active(&s)) {
		if (!(s.flags & TRACT_SF_RAN_AT_START))
			return 0;
		s.flags |= TRACT_SF_ONLY_IF_RAN;
	}

	tag = owner_tag(task);
	slot = slot_of(s.tid);
	read_tracked(task, slot, tag, &s, pass_now);
	/* what a thread on its CPU runs: its latest profile tick */
	s.prof_kstack = s.prof_ustack = -1;
	if (s.state == TRACT_STATE_RUN)
		read_profile(task, tag, &s, pass_now);
	if (s.state == TRACT_STATE_DISK)
		read_io(slot, tag, &s);
	s.uid = task->real_cred->uid.val;
	read_process(task, &s);
	s.run_delay_ns = task->sched_info.run_delay;
	s.run_count = task->sched_info.pcount;
	read_fd_file(task, &s);
	__builtin_memcpy(s.comm, task->comm, sizeof(s.comm));
	/* a stack is only still while the thread is off its CPU, and a running one has none */
	if (!on_cpu && s.state != TRACT_STATE_RUN)
		take_stacks(seq, task, slot, tag, &s, &fresh_switches);
	/*
	 * An overflowing seq_file is not a loss: the kernel shows this task
	 * again in the next read, so rows never drop between here and user space.
	 */
	if (bpf_seq_write(seq, &s, sizeof(s)))
		return 0;
	if (fresh_switches && slot) {
		/* a thread with no syscall since tract started takes its slot here */
		if (slot->tag != tag)
			claim_slot(slot, tag);
		slot->kstack_hash = s.kstack_hash;
		slot->ustack_hash = s.ustack_hash;
		slot->stack_switches = fresh_switches;
	}
	return 0;
}
