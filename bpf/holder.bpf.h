/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who holds the lock a sampled thread waits for, while it waits, where the
 * kernel or the C library records it:
 *
 * - a kernel mutex, semaphore or rw-semaphore: the task's blocker (its
 *   lock's address, the lock's kind in the low two bits: 6.16 on; 6.15 has
 *   blocker_mutex, mutexes only; include/linux/hung_task.h), then the lock's
 *   owner: a mutex's owner with its flag bits masked, a rw-semaphore's
 *   writer (a reader-owned one keeps only its last reader, which may be
 *   gone: none), a semaphore's last_holder;
 * - glibc's pthread_mutex_t in a contended FUTEX_WAIT: __owner beside the
 *   futex word, read twice from the waiter's memory and kept only if both
 *   reads agree and the mutex looks like one (tract_glibc_mutex_owner());
 * - a PI futex: the owner's tid in the futex word;
 * - a file lock (fcntl's F_SETLKW, flock): the waiter's request hangs on
 *   the blocked list of the lock it waits for, among the locks the file's
 *   inode holds; that lock's pid is its holder's process (a file lock is
 *   a process's, not a thread's): its main thread is named.
 *
 * What user memory names is a tid as the process sees it, and may be a
 * word that is no lock at all: it is a candidate (TRACT_SF_BLOCKER_USER)
 * that user space keeps only for a live thread of the waiter's process.
 * A process in a pid namespace of its own names tids of its namespace
 * (TRACT_BLOCKER_IN_NS): user space finds the host's tid of the thread
 * (src/record/source/nspid.c), and such a holder is not kept for being one.
 *
 * A holder is often asleep in no lock wait of its own (it holds a lock and
 * waits for something else), which the active policy would leave out; a
 * thread named as a holder is kept in the passes that follow while it is
 * named (holder_marks), so its own row says what it does meanwhile.
 */
#ifndef TRACT_HOLDER_BPF_H
#define TRACT_HOLDER_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

__u64 holders_named, holders_torn;

/* A thread named as a holder, and the pass that named it, by still_index(). */
struct holder_mark {
	__u32 tid;
	__u32 pass;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set at load: as still_reads */
	__type(key, __u32);
	__type(value, struct holder_mark);
} holder_marks SEC(".maps");

/* The latest pass that named a holder: no lookups at all in a pass with none named lately. */
__u64 holder_marked_pass;

static __always_inline void mark_holder(const struct tract_pass *p, __u32 tid)
{
	__u32 i = still_index(tid);
	struct holder_mark *m = bpf_map_lookup_elem(&holder_marks, &i);

	if (!m)
		return;
	m->tid = tid;
	m->pass = (__u32)p->seq;
	holder_marked_pass = p->seq;
}

/* Whether the thread was named a holder in this pass or the one before. */
static __always_inline bool is_named_holder(const struct tract_pass *p, __u32 tid)
{
	__u32 i;
	struct holder_mark *m;

	if (!holder_marked_pass || holder_marked_pass + 1 < p->seq)
		return false;
	i = still_index(tid);
	m = bpf_map_lookup_elem(&holder_marks, &i);
	return m && m->tid == tid && (__u32)p->seq - m->pass <= 1;
}

struct holder_scratch_buf {
	struct tract_glibc_mutex m, again;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct holder_scratch_buf);
} holder_scratch SEC(".maps");

static __always_inline bool mutexes_differ(const struct tract_glibc_mutex *a, const struct tract_glibc_mutex *b)
{
	return a->lock != b->lock || a->owner != b->owner || a->nusers != b->nusers || a->kind != b->kind;
}

/*
 * The holder of the user-space lock of a contended futex wait (the
 * syscall's first argument is the futex word).  A subprogram of its own,
 * as otel_of_thread(): its ways out end in one state of the caller's.
 */
static __noinline int user_lock_holder(const struct tract_pass *p, struct task_struct *task, struct tract_sample *s)
{
	__u32 zero = 0, owner, kind, level;
	struct holder_scratch_buf *b = bpf_map_lookup_elem(&holder_scratch, &zero);
	void *word = (void *)s->sc_args[0];

	if (!b || !user_holders)
		return 0;
	level = BPF_CORE_READ(task, thread_pid, level);
	if ((s->sc_args[1] & TRACT_FUTEX_CMD_MASK) == TRACT_FUTEX_WAIT) {
		if (bpf_copy_from_user_task(&b->m, sizeof(b->m), word, task, 0) ||
		    bpf_copy_from_user_task(&b->again, sizeof(b->again), word, task, 0))
			return 0;
		/* its holder let it go, or took it, between the reads */
		if (mutexes_differ(&b->m, &b->again)) {
			holders_torn++;
			return 0;
		}
		owner = tract_glibc_mutex_owner(&b->m, s->tid);
		kind = TRACT_BLOCKER_PTHREAD_MUTEX;
	} else {
		if (bpf_copy_from_user_task(&b->m.lock, sizeof(b->m.lock), word, task, 0))
			return 0;
		owner = tract_pi_futex_owner((__u32)b->m.lock, s->tid);
		kind = TRACT_BLOCKER_PI_FUTEX;
	}
	if (!owner)
		return 0;
	s->blocker_tid = owner;
	s->blocker_kind = kind | (level ? TRACT_BLOCKER_IN_NS : 0);
	s->flags |= TRACT_SF_BLOCKER_USER;
	/* a namespace's tid is not the host's: the tid may be another thread's here */
	if (!level)
		mark_holder(p, owner);
	holders_named++;
	return 0;
}

/* 6.15 kept only the mutex a task blocks on */
struct task_struct___615 {
	struct mutex *blocker_mutex;
} __attribute__((preserve_access_index));

/* struct semaphore's last_holder, 6.16 on */
struct semaphore___616 {
	unsigned long last_holder;
} __attribute__((preserve_access_index));

#define BLOCKER_TYPE_MASK 3ul
#define BLOCKER_TYPE_MUTEX 0ul
#define BLOCKER_TYPE_SEM 1ul
#define MUTEX_FLAGS 7ul
#define RWSEM_WRITER_LOCKED 1ul
#define RWSEM_READER_OWNED 1ul
#define RWSEM_OWNER_FLAGS_MASK 3ul

/* The holder of the kernel lock the task blocks on, where its kernel records it. */
static __noinline int kernel_lock_holder(const struct tract_pass *p, struct task_struct *task, struct tract_sample *s)
{
	unsigned long blocker = 0, lock, owner = 0, count;
	struct task_struct *holder;
	__u32 tid, kind;

	if (bpf_core_field_exists(task->blocker))
		blocker = BPF_CORE_READ(task, blocker);
	else if (bpf_core_field_exists(((struct task_struct___615 *)task)->blocker_mutex))
		blocker = (unsigned long)BPF_CORE_READ((struct task_struct___615 *)task, blocker_mutex);
	if (!blocker)
		return 0;
	lock = blocker & ~BLOCKER_TYPE_MASK;
	switch (blocker & BLOCKER_TYPE_MASK) {
	case BLOCKER_TYPE_MUTEX:
		owner = BPF_CORE_READ((struct mutex *)lock, owner.counter) & ~MUTEX_FLAGS;
		kind = TRACT_BLOCKER_MUTEX;
		break;
	case BLOCKER_TYPE_SEM:
		if (!bpf_core_field_exists(((struct semaphore___616 *)lock)->last_holder))
			return 0;
		owner = BPF_CORE_READ((struct semaphore___616 *)lock, last_holder);
		kind = TRACT_BLOCKER_SEM;
		break;
	default:
		count = BPF_CORE_READ((struct rw_semaphore *)lock, count.counter);
		owner = BPF_CORE_READ((struct rw_semaphore *)lock, owner.counter);
		if (!(count & RWSEM_WRITER_LOCKED) || (owner & RWSEM_READER_OWNED))
			return 0;
		owner &= ~RWSEM_OWNER_FLAGS_MASK;
		kind = TRACT_BLOCKER_RWSEM;
	}
	holder = (struct task_struct *)owner;
	if (!holder || holder == task)
		return 0;
	tid = BPF_CORE_READ(holder, pid);
	if (!tid || tid == s->tid)
		return 0;
	s->blocker_tid = tid;
	s->blocker_kind = kind;
	s->flags |= TRACT_SF_BLOCKER;
	mark_holder(p, tid);
	holders_named++;
	return 0;
}

/* Before 6.9 struct file_lock had the fields file_lock_core has since, in the same order. */
struct file_lock___old {
	struct file_lock___old *fl_blocker;
	struct list_head fl_list;
	struct list_head fl_blocked_requests;
	struct list_head fl_blocked_member;
	unsigned int fl_pid;
} __attribute__((preserve_access_index));

/* Bounds on the walk: the locks of the file, and the requests each one holds up. */
#define FILE_LOCKS_HELD 8
#define FILE_LOCK_WAITERS 8

static __always_inline void *next_of(void *node)
{
	void *next = NULL;

	bpf_probe_read_kernel(&next, sizeof(next), &((struct list_head *)node)->next);
	return next;
}

static __always_inline __s32 pid_at(void *lock, unsigned long off)
{
	__s32 pid = 0;

	bpf_probe_read_kernel(&pid, sizeof(pid), lock + off);
	return pid;
}

/*
 * The walk of a file's locks and the requests each one holds up, in steps
 * of bpf_loop(), which the verifier checks once each, not once for each of
 * the 8 x 8 places in the walk (a quarter of the sampler's verification).
 */
struct lock_walk {
	unsigned long off_list, off_requests, off_member, off_pid;
	void *head, *held, *lock, *requests, *waiter;
	__s32 tgid, holder;
};

/* A request the lock holds up: the task's process's ends the walk, naming the lock's owner. */
static long lock_waiter_step(__u64 j, struct lock_walk *w)
{
	void *waiter = w->waiter;

	if (!waiter || waiter == w->requests)
		return 1;
	if (pid_at(waiter - w->off_member, w->off_pid) == w->tgid) {
		w->holder = pid_at(w->lock, w->off_pid);
		return 1;
	}
	w->waiter = next_of(waiter);
	return 0;
}

static long held_lock_step(__u64 i, struct lock_walk *w)
{
	void *held = w->held;

	if (!held || held == w->head || w->holder)
		return 1;
	w->lock = held - w->off_list;
	w->requests = w->lock + w->off_requests;
	w->waiter = next_of(w->requests);
	bpf_loop(FILE_LOCK_WAITERS, lock_waiter_step, w, 0);
	w->held = next_of(held);
	return 0;
}

/*
 * The holder of the file lock the task waits for in fcntl or flock (which:
 * list, enum tract_file_lock_wait): the lock of the file whose blocked
 * requests hold one of the task's process.
 */
static __noinline int file_lock_holder(const struct tract_pass *p, struct task_struct *task, struct tract_sample *s,
				       int list)
{
	unsigned int fd = (unsigned int)s->sc_args[0];
	struct file_lock_context *ctx;
	struct fdtable *fdt;
	struct file **fds, *file = NULL;
	struct lock_walk w = { 0 };
	__s32 holder;

	if (bpf_core_type_exists(struct file_lock_core)) {
		w.off_list = bpf_core_field_offset(struct file_lock_core, flc_list);
		w.off_requests = bpf_core_field_offset(struct file_lock_core, flc_blocked_requests);
		w.off_member = bpf_core_field_offset(struct file_lock_core, flc_blocked_member);
		w.off_pid = bpf_core_field_offset(struct file_lock_core, flc_pid);
	} else {
		w.off_list = bpf_core_field_offset(struct file_lock___old, fl_list);
		w.off_requests = bpf_core_field_offset(struct file_lock___old, fl_blocked_requests);
		w.off_member = bpf_core_field_offset(struct file_lock___old, fl_blocked_member);
		w.off_pid = bpf_core_field_offset(struct file_lock___old, fl_pid);
	}
	fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return 0;
	ctx = BPF_CORE_READ(file, f_inode, i_flctx);
	if (!ctx)
		return 0;
	w.head = list == TRACT_FILE_LOCK_FLOCK ? (void *)&ctx->flc_flock : (void *)&ctx->flc_posix;
	w.held = next_of(w.head);
	w.tgid = task->tgid;
	bpf_loop(FILE_LOCKS_HELD, held_lock_step, &w, 0);
	holder = w.holder;
	if (holder <= 0 || holder == task->tgid)
		return 0;
	s->blocker_tid = (__u32)holder;
	s->blocker_kind = TRACT_BLOCKER_FILE_LOCK;
	s->flags |= TRACT_SF_BLOCKER;
	mark_holder(p, (__u32)holder);
	holders_named++;
	return 0;
}

/* The holder of what a thread off its CPU waits for, if any is recorded. */
static __always_inline void read_holder(const struct tract_pass *p, struct task_struct *task, struct tract_sample *s)
{
	if (s->state != TRACT_STATE_SLEEP && s->state != TRACT_STATE_DISK)
		return;
	kernel_lock_holder(p, task, s);
	if (!s->blocker_tid && (s->flags & TRACT_SF_IN_SYSCALL) && !(s->flags & TRACT_SF_KTHREAD) &&
	    s->syscall_nr == TRACT_NR_FUTEX && tract_futex_is_lock(s->sc_args[1], s->sc_args[2]))
		user_lock_holder(p, task, s);
	if (!s->blocker_tid && (s->flags & TRACT_SF_IN_SYSCALL) && !(s->flags & TRACT_SF_KTHREAD)) {
		int list = tract_file_lock_wait(s->syscall_nr, s->sc_args);

		if (list)
			file_lock_holder(p, task, s, list);
	}
}

#endif
