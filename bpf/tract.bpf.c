// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract's kernel side.  Tracepoint programs keep the latest state of every
 * thread in task storage; a task iterator snapshots the active threads into
 * its seq_file stream, which user space reads.  Nothing is logged per event.
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
#define NR_SYSCALLS_MAX 512

/* Set by user space before load (see src/source_bpf.c). */
const volatile __u32 self_tgid;
const volatile __u8 all_threads;
const volatile __u8 take_kstacks = 1;
const volatile __u64 idle_grace_ns = 10000000;
const volatile __u32 nr_pids;
const volatile __u32 pids[TRACT_PID_FILTER_MAX];
/* Bit n set: syscall n is an idle wait (thread pools, timers, event loops). */
const volatile __u64 idle_syscalls[NR_SYSCALLS_MAX / 64];

/* Counters user space reads after every pass; the iterator is the only writer. */
__u64 threads_visited;
__u64 rows_emitted;
__u64 rows_dropped;
__u64 kstacks_emitted;
__u64 kstack_errors;
/* Written from tracepoints on every CPU, hence atomic. */
__u64 storage_errors;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tract_thread);
} threads SEC(".maps");

struct kstack_buf {
	struct tract_kstack hdr;
	__u64 ip[TRACT_KSTACK_MAX];
};

/* Too big for the BPF stack; the iterator is the only user. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstack_buf);
} kstack_scratch SEC(".maps");

static __always_inline struct tract_thread *thread_of(struct task_struct *task, __u64 flags)
{
	struct tract_thread *t = bpf_task_storage_get(&threads, task, 0, flags);

	if (!t && flags)
		__sync_fetch_and_add(&storage_errors, 1);
	return t;
}

/*
 * Syscall number and arguments are not copied here: the sampler reads them
 * from the task's saved user registers, which are never stale.  Only the
 * entry time is kept, which the registers do not have.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(tract_sys_enter, struct pt_regs *regs, long id)
{
	struct tract_thread *t = thread_of(bpf_get_current_task_btf(), BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (t)
		t->sc_entry_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tract_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct tract_thread *t;

	t = thread_of(prev, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (t)
		t->off_ns = now;
	t = thread_of(next, 0);
	if (t)
		t->on_ns = now;
	return 0;
}

static __always_inline void note_wakeup(struct task_struct *p)
{
	struct tract_thread *t = thread_of(p, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!t)
		return;
	t->wake_ns = bpf_ktime_get_ns();
	t->waker_tid = bpf_get_current_pid_tgid();
}

SEC("tp_btf/sched_waking")
int BPF_PROG(tract_sched_waking, struct task_struct *p)
{
	note_wakeup(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(tract_sched_wakeup_new, struct task_struct *p)
{
	note_wakeup(p);
	return 0;
}

/* ---- the sampler ---- */

/* __state was called state before 5.14 */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 task_state_bits(struct task_struct *task)
{
	if (bpf_core_field_exists(task->__state))
		return BPF_CORE_READ(task, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)task, state);
}

static __always_inline bool pid_selected(__u32 tgid)
{
	if (!nr_pids)
		return true;
	for (__u32 i = 0; i < TRACT_PID_FILTER_MAX && i < nr_pids; i++)
		if (pids[i] == tgid)
			return true;
	return false;
}

static __always_inline bool is_idle_syscall(__s32 nr)
{
	__u32 n = nr;

	if (nr < 0 || n >= NR_SYSCALLS_MAX)
		return false;
	return idle_syscalls[n / 64] & (1ull << (n % 64));
}

#define FUTEX_WAIT 0
#define FUTEX_LOCK_PI 6
#define FUTEX_LOCK_PI2 13
#define FUTEX_CMD_MASK 0x7f
#define NR_futex 202

/*
 * A futex wait is a lock wait, not an idle pool, when it is a PI lock or
 * glibc's contended-mutex wait (FUTEX_WAIT on the value 2).  Condition
 * variables wait with FUTEX_WAIT_BITSET.
 */
static __always_inline bool is_lock_wait(__s32 nr, const __u64 *args)
{
	__u32 cmd = args[1] & FUTEX_CMD_MASK;

	if (nr != NR_futex)
		return false;
	return cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
	       (cmd == FUTEX_WAIT && (__u32)args[2] == 2);
}

/* The documented "active" policy (doc/tract.8, ACTIVE THREADS). */
static __always_inline bool is_active(const struct tract_sample *s)
{
	if (all_threads)
		return true;
	switch (s->state) {
	case TRACT_STATE_RUN:
	case TRACT_STATE_RUNQ:
	case TRACT_STATE_DISK:
	case TRACT_STATE_TRACED:
		return true;
	case TRACT_STATE_SLEEP:
	case TRACT_STATE_STOPPED:
		break;
	default:
		return false;
	}
	if (s->flags & TRACT_SF_KTHREAD)
		return false;
	if (s->state == TRACT_STATE_SLEEP && (s->flags & TRACT_SF_IN_SYSCALL) &&
	    !is_idle_syscall(s->syscall_nr))
		return true;
	if (s->state == TRACT_STATE_SLEEP && is_lock_wait(s->syscall_nr, s->sc_args))
		return true;
	/* Idle waits count only while they are young. */
	return (s->flags & TRACT_SF_STATE_TIME) && s->state_ns < idle_grace_ns;
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
	nr = BPF_CORE_READ(regs, orig_ax);
	if (nr < 0 || (long)BPF_CORE_READ(regs, ax) != -ENOSYS)
		return;
	s->flags |= TRACT_SF_IN_SYSCALL;
	s->syscall_nr = nr;
	s->sc_args[0] = BPF_CORE_READ(regs, di);
	s->sc_args[1] = BPF_CORE_READ(regs, si);
	s->sc_args[2] = BPF_CORE_READ(regs, dx);
	s->sc_args[3] = BPF_CORE_READ(regs, r10);
	s->sc_args[4] = BPF_CORE_READ(regs, r8);
	s->sc_args[5] = BPF_CORE_READ(regs, r9);
}

static __always_inline void read_times(struct tract_thread *t, struct tract_sample *s, __u64 now)
{
	__u64 since = 0;

	if (!t)
		return;
	/* sys_enter of the current syscall was seen: the entry time is real */
	if ((s->flags & TRACT_SF_IN_SYSCALL) && t->sc_entry_ns) {
		s->sc_ns = now - t->sc_entry_ns;
		s->flags |= TRACT_SF_SC_TIME;
	}
	switch (s->state) {
	case TRACT_STATE_RUN:
		since = t->on_ns;
		break;
	case TRACT_STATE_RUNQ:
		/* queued by a preemption or by a wakeup, whichever came last */
		since = t->off_ns > t->wake_ns ? t->off_ns : t->wake_ns;
		break;
	case TRACT_STATE_ZOMBIE:
		break;
	default:
		since = t->off_ns;
	}
	if (since && since <= now) {
		s->state_ns = now - since;
		s->flags |= TRACT_SF_STATE_TIME;
	}
	if (t->waker_tid) {
		s->waker_tid = t->waker_tid;
		s->flags |= TRACT_SF_WAKER;
	}
}

static __always_inline __u64 hash_frames(const __u64 *ip, __u32 n)
{
	__u64 h = 0xcbf29ce484222325ull;

	for (__u32 i = 0; i < TRACT_KSTACK_MAX && i < n; i++) {
		h ^= ip[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/*
 * An off-CPU thread's kernel stack cannot change until it runs again, so a
 * stack taken since its last switch-out is reused instead of unwound again.
 */
static __always_inline void take_kstack(struct seq_file *seq, struct task_struct *task,
					struct tract_thread *t, struct tract_sample *s)
{
	__u32 zero = 0;
	struct kstack_buf *buf;
	long len;
	__u32 n;

	if (t && t->kstack_hash && t->kstack_off_ns == t->off_ns) {
		s->kstack_hash = t->kstack_hash;
		return;
	}
	buf = bpf_map_lookup_elem(&kstack_scratch, &zero);
	if (!buf)
		return;
	len = bpf_get_task_stack(task, buf->ip, sizeof(buf->ip), 0);
	if (len <= 0) {
		kstack_errors++;
		return;
	}
	n = (__u32)len / sizeof(__u64);
	if (n > TRACT_KSTACK_MAX)
		n = TRACT_KSTACK_MAX;
	buf->hdr.kind = TRACT_REC_KSTACK;
	buf->hdr.nr_frames = n;
	buf->hdr.hash = hash_frames(buf->ip, n);
	if (bpf_seq_write(seq, buf, sizeof(buf->hdr) + n * sizeof(__u64))) {
		kstack_errors++;
		return;
	}
	kstacks_emitted++;
	s->kstack_hash = buf->hdr.hash;
	if (t) {
		t->kstack_hash = buf->hdr.hash;
		t->kstack_off_ns = t->off_ns;
	}
}

SEC("iter.s/task")
int tract_sample_pass(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct tract_sample s = {};
	struct tract_thread *t;
	__u64 now;

	if (!task)
		return 0;
	threads_visited++;
	s.tgid = task->tgid;
	if (s.tgid == self_tgid || !pid_selected(s.tgid))
		return 0;

	s.kind = TRACT_REC_SAMPLE;
	s.tid = task->pid;
	s.state = tract_decode_state(task_state_bits(task), task->exit_state, task->on_cpu);
	if (task->flags & PF_KTHREAD)
		s.flags |= TRACT_SF_KTHREAD;
	s.syscall_nr = -1;
	read_syscall(task, &s);

	now = bpf_ktime_get_ns();
	/* created here too, so the stack cache works for threads asleep since before tract started */
	t = bpf_task_storage_get(&threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	read_times(t, &s, now);
	if (!is_active(&s))
		return 0;

	s.cpu = BPF_CORE_READ(task, thread_info.cpu);
	s.uid = BPF_CORE_READ(task, real_cred, uid.val);
	s.proc_start_ns = BPF_CORE_READ(task, group_leader, start_boottime);
	bpf_probe_read_kernel(s.comm, sizeof(s.comm), task->comm);
	bpf_probe_read_kernel(s.pcomm, sizeof(s.pcomm), task->group_leader->comm);
	if (take_kstacks && s.state != TRACT_STATE_RUN)
		take_kstack(seq, task, t, &s);

	if (bpf_seq_write(seq, &s, sizeof(s))) {
		rows_dropped++;
		return 0;
	}
	rows_emitted++;
	return 0;
}
