/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ended each sampled wait.  The sampler marks a thread it finds
 * asleep (SLEEP, DISK, IDLE) with the wait's start and its sched_info
 * switch-in count; the wakeup that finds the mark with that count unchanged
 * ends that very wait, and writes one record: the wait's start and end and
 * its ender (a thread, a timer or an interrupt, as sched_waking tells them
 * apart).  Only sampled waits cost a record; every other wakeup reads one
 * entry of wait_marks and finds no mark of its wakee there.
 *
 * A mark left by a wait whose wakeup came before the mark was written is
 * stale: the thread has been switched in since, its count moved, and the
 * next wakeup clears the mark without a record.
 */
#ifndef TRACT_WAIT_ENDS_BPF_H
#define TRACT_WAIT_ENDS_BPF_H

#include "common.bpf.h"
#include "thread.bpf.h"

/* A sampled wait, by still_index(): a host of more threads than entries loses some */
struct wait_mark {
	__u32 tag;		/* owner_tag() of the waiting thread */
	__u32 pcount;		/* its sched_info.pcount as sampled: unchanged until it is switched in */
	__u64 start_ns;		/* when it went to sleep (boot time); 0: no mark */
	__u64 arg0;		/* its site: the syscall it waits in (-1: none) and its first argument */
	__s32 nr;
	__u16 learn_only;	/* a wait of a thread left out: its end teaches its site, no record */
	__u16 untimed;		/* a wait with no timeout: a timer that ends it is a signal's (an alarm) */
};

/*
 * Where a program's threads wait, and what has ended waits there: a wait
 * still open takes that class (site_class()).  By program (its executable),
 * not by process: a server's new worker process waits where its siblings
 * did, its first lock wait as theirs.  The value holds a bit for each
 * class seen (1 << class) and TRACT_WAIT_CROSS: one timer that ends a
 * latch's wait (a deadlock check) does not unlearn that other workers end
 * them.  A timer's end is a nap's for the waits like it: SITE_NAPS_TIMED
 * where a timeout ran out, SITE_NAPS_UNTIMED where a wait with none was
 * ended by a timer's own event (a timerfd's); a wait with no timeout ended
 * by another timer (a signal it sends, an alarm: a server's deadlock check
 * in its lock wait) teaches nothing.  A runtime parks a thread on one condition
 * variable with and without a timeout: the timeouts make no nap of the
 * waits with none.
 */
#define SITE_NAPS_TIMED (1 << TRACT_WAIT_SLEEPING)
#define SITE_NAPS_UNTIMED 0x20
_Static_assert(!(SITE_NAPS_UNTIMED & (TRACT_WAIT_CROSS | (1 << TRACT_WAIT_BLOCKED) | (1 << TRACT_WAIT_SLEEPING) |
					(1 << TRACT_WAIT_INPUT))), "a bit of its own");

struct wait_site {
	__u64 program;		/* its executable's inode, as a number; the tgid where it has none */
	__u64 arg0;
	__s32 nr;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TRACT_WAIT_SITES);
	__type(key, struct wait_site);
	__type(value, __u8);
} wait_sites SEC(".maps");

static __always_inline __u64 program_of(struct task_struct *task)
{
	struct inode *i = BPF_CORE_READ(task, mm, exe_file, f_inode);

	return i ? (__u64)i : task->tgid;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set at load: as still_reads */
	__type(key, __u32);
	__type(value, struct wait_mark);
} wait_marks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TRACT_WAIT_ENDS_RING);
} wait_ends SEC(".maps");

/* records the ring had no room for, and waits that ended so */
__u64 wait_ends_lost;

/*
 * After the sample s of task is written: a thread asleep when visited (in
 * state visited), and in the same state as its sample shows, waits in what
 * the sample shows.  Its start is the pass's time in boot time (boot_ns,
 * which user space sets) less the sample's state_ns, as user space has the
 * sample's: samples of one wait give starts that differ by the sampler's
 * lateness at each pass; the earliest is kept, so that every sample of the
 * wait falls within it.  With learn_only, s was left out (an idle
 * syscall's wait past the grace): its end only teaches the class of its
 * site, so that the next wait there is kept if a thread of the program
 * ends it.
 */
static __noinline void mark_wait(const struct tract_pass *p, struct task_struct *task, const struct tract_sample *s,
				 __u8 visited, __u32 learn_only)
{
	/* the tag is not an argument: a BPF call takes five */
	__u32 i, pcount = (__u32)task->sched_info.pcount, tag = owner_tag(task);
	__u64 boot_ns = p->boot_ns, start = boot_ns - s->state_ns;
	struct wait_mark *m;

	if ((visited != TRACT_STATE_SLEEP && visited != TRACT_STATE_DISK && visited != TRACT_STATE_IDLE) ||
	    s->state != visited || !(s->flags & TRACT_SF_STATE_TIME) || s->state_ns >= boot_ns)
		return;
	i = still_index(s->tid);
	m = bpf_map_lookup_elem(&wait_marks, &i);
	if (!m)
		return;
	if (m->start_ns && m->tag == tag && m->pcount == pcount && m->start_ns <= start) {
		m->learn_only &= learn_only;
		return;
	}
	m->learn_only = learn_only;
	m->tag = tag;
	m->pcount = pcount;
	m->start_ns = start;
	m->nr = (s->flags & TRACT_SF_IN_SYSCALL) ? s->syscall_nr : -1;
	m->arg0 = s->sc_args[0];
	m->untimed = m->nr >= 0 && tract_wait_is_untimed(m->nr, s->sc_args);
}

/*
 * The class a wait at task's site would have, by what has ended waits
 * there: blocked (| TRACT_WAIT_CROSS where another process of the program
 * has) before input before sleeping (for a wait with a timeout, or
 * untimed with none, as the naps there were); TRACT_WAIT_UNKNOWN where none has.
 */
static __noinline __u8 site_class(struct task_struct *task, __s32 nr, __u64 arg0, __u32 untimed)
{
	struct wait_site k = { .program = program_of(task), .nr = nr, .arg0 = arg0 };
	__u8 *c = bpf_map_lookup_elem(&wait_sites, &k), seen;

	if (!c)
		return TRACT_WAIT_UNKNOWN;
	seen = *c;
	if (seen & (1 << TRACT_WAIT_BLOCKED))
		return TRACT_WAIT_BLOCKED | (seen & TRACT_WAIT_CROSS);
	if (seen & (1 << TRACT_WAIT_INPUT))
		return TRACT_WAIT_INPUT;
	if (seen & (untimed ? SITE_NAPS_UNTIMED : SITE_NAPS_TIMED))
		return TRACT_WAIT_SLEEPING;
	return TRACT_WAIT_UNKNOWN;
}

/* Two processes run the same program: their executables are one file (workers of a server). */
static __always_inline bool same_program(struct task_struct *a, struct task_struct *b)
{
	struct mm_struct *ma = BPF_CORE_READ(a, mm), *mb = BPF_CORE_READ(b, mm);
	struct inode *ia, *ib;

	if (!ma || !mb)
		return false;
	ia = BPF_CORE_READ(ma, exe_file, f_inode);
	ib = BPF_CORE_READ(mb, exe_file, f_inode);
	return ia && ia == ib;
}

static __always_inline __u8 class_of_end(struct task_struct *p, struct task_struct *cur, __u32 label)
{
	if (label == TRACT_WAKER_TIMER)
		return TRACT_WAIT_SLEEPING;
	/* an interrupt, or a child's exit (a parent's wait4): nothing held it up */
	if (label || (cur->flags & PF_EXITING))
		return TRACT_WAIT_INPUT;
	if (cur->tgid == p->tgid)
		return TRACT_WAIT_BLOCKED;
	if (same_program(p, cur))
		return TRACT_WAIT_BLOCKED | TRACT_WAIT_CROSS;
	return TRACT_WAIT_INPUT;
}

/*
 * A function of its own: its record on the stack would make sched_waking's
 * frame 64 bytes or more, a private stack from 6.13 (wakeup.bpf.h).
 */
static __noinline void write_wait_end(struct task_struct *p, struct task_struct *cur, __u32 label,
				      struct wait_mark *m, __u32 timer_event)
{
	struct wait_site site = { .program = program_of(p), .nr = m->nr, .arg0 = m->arg0 };
	__u64 start = m->start_ns;
	struct tract_wait_end *e;
	__u8 class, seen;

	m->start_ns = 0;
	/* switched in since it was sampled: another wait ends here */
	if (m->pcount != (__u32)p->sched_info.pcount)
		return;
	class = class_of_end(p, cur, label);
	if (site.nr >= 0) {
		__u8 *known = bpf_map_lookup_elem(&wait_sites, &site);

		seen = (known ? *known : 0) | (class & TRACT_WAIT_CROSS);
		if ((class & TRACT_WAIT_CLASS_MASK) != TRACT_WAIT_SLEEPING)
			seen |= 1 << (class & TRACT_WAIT_CLASS_MASK);
		else if (!m->untimed)
			seen |= SITE_NAPS_TIMED;
		else if (timer_event)
			seen |= SITE_NAPS_UNTIMED;
		if (seen && (!known || *known != seen))
			bpf_map_update_elem(&wait_sites, &site, &seen, BPF_ANY);
	}
	if (m->learn_only)
		return;
	e = bpf_ringbuf_reserve(&wait_ends, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&wait_ends_lost, 1);
		return;
	}
	e->tid = p->pid;
	e->tgid = p->tgid;
	e->start_ns = start;
	e->end_ns = bpf_ktime_get_boot_ns();
	e->wait_class = class & TRACT_WAIT_CLASS_MASK;
	if (label) {
		e->ender_tid = label;
		e->ender_tgid = 0;
		__builtin_memset(e->ender_comm, 0, sizeof(e->ender_comm));
	} else {
		e->ender_tid = cur->pid;
		e->ender_tgid = cur->tgid;
		__builtin_memcpy(e->ender_comm, cur->comm, sizeof(e->ender_comm));
	}
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

/*
 * At every wakeup (sched_waking), in the waker's context: label as
 * waker_label() gave it; timer_event: a timer's own event (a timerfd's).
 */
static __always_inline void end_wait(struct task_struct *p, struct task_struct *cur, __u32 label, __u32 timer_event)
{
	__u32 i = still_index(p->pid);
	struct wait_mark *m = bpf_map_lookup_elem(&wait_marks, &i);

	if (m && m->start_ns && m->tag == owner_tag(p))
		write_wait_end(p, cur, label, m, timer_event);
}

/* A thread that exits: its mark, if it left one, goes with it. */
static __always_inline void forget_wait(struct task_struct *task)
{
	__u32 i = still_index(task->pid);
	struct wait_mark *m = bpf_map_lookup_elem(&wait_marks, &i);

	if (m && m->start_ns && m->tag == owner_tag(task))
		m->start_ns = 0;
}

#endif
