/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What tract tracks per thread.  Only what the kernel does not keep itself is
 * here; switch-in, queueing and switch-out times come from the task's own
 * sched_info and sched_entity at sampling time.
 *
 * Both tables are plain arrays indexed by a hash of the tid: the verifier
 * inlines their lookups, where a task-storage lookup is a helper call several
 * times dearer on every syscall.  A tag made of the tid and the thread's start
 * time tells a slot's owner; two live threads that share a slot lose their
 * syscall time, waker or cached stack (they read as unknown), never get each
 * other's, and neither does a thread that reuses a dead thread's tid.  So
 * nothing needs cleaning at thread exit.
 */
#ifndef TRACT_THREAD_BPF_H
#define TRACT_THREAD_BPF_H

#include "common.bpf.h"

/* Written by the thread itself at sys_enter, and by the sampler. */
struct tract_slot {
	__u32 tag;		/* owner_tag() of the owning thread */
	__u32 ran_mark;		/* run_moment.bpf.h: the moment it ran at, and on which CPU */
	__u64 sc_entry;		/* rq clock at the latest sys_enter; 0: unknown */
	__u64 kstack_hash;	/* kernel stack taken while off CPU ... */
	__u64 ustack_hash;	/* ... its user stack (0: none) ... */
	__u64 stack_switches;	/* ... when the thread had made this many context switches */
	__u64 io_rq;		/* the block request it submitted last (a struct request pointer) */
	__u64 sc_entry_ktime;	/* CLOCK_MONOTONIC at the latest sys_enter of a timed syscall; 0: none */
	__u64 sleep_ts;		/* for the wakeup edges: rq clock when it last went to sleep */
};

/*
 * Written by wakers, in a table of its own so that a wakeup does not pull
 * the cache line the wakee writes at every syscall.
 */
struct tract_waker {
	__u32 tag;		/* owner_tag() of the wakee */
	__u32 waker_tid;	/* the task that ran the latest wakeup, or a TRACT_WAKER_* label */
	/*
	 * The wakee's sched_info switch-in count and total run-queue wait at
	 * that wakeup: against their values at sampling time they give the
	 * wakeup's own run-queue wait and time, with no clock read here.
	 */
	__u32 pcount;
	__u32 waker_tgid;	/* with --wakeup-edges */
	__u64 run_delay;
	__u8 edge_pending;	/* with --wakeup-edges: not counted yet */
	__u8 slept_in;		/* the enum tract_state it slept in until that wakeup */
	__u8 moment_slept_in;	/* ... and until its first wakeup in the window of moment_woke */
	__u8 ustack_wanted;	/* its exit from the syscall it was in then, or its next switch out, copies its user stack (enum below) */
	__u32 moment_woke;	/* a window (window.bpf.h) in which it woke, asleep at its moment */
};

/* tract_waker.ustack_wanted: why the exit (or, RAN_USER, the switch out) copies it */
enum { USTACK_WANTED_WOKEN = 1, USTACK_WANTED_RAN = 2, USTACK_WANTED_RAN_USER = 3 };

_Static_assert(sizeof(struct tract_slot) == 64, "slots stay small");
_Static_assert(sizeof(struct tract_waker) == 32, "waker slots stay small");

/* A thread's OpenTelemetry context as the sampler read it (otel.bpf.h). */
struct otel_found {
	__u8 trace_id[16];
	__u8 span_id[8];
	__u8 trace_flags;
	__u8 ok;
	__u8 pad[6];
};

/*
 * What the sampler found when it last read a thread, by the thread's slot,
 * for the passes the thread stays still: one that has not run since (the
 * same count of switches, off its CPU then and now) is in the same
 * syscall, its sched_info has not moved, and its trace context is the
 * same.  The kernel keeps these where every read is a miss of its own with
 * thousands of threads (the saved registers on the thread's kernel stack
 * page, sched_info on a line of the task read for nothing else, the
 * record in the thread's own memory); here they are two cache lines, the
 * first all a still thread outside a syscall needs.
 */
struct tract_still {
	__u32 tag;			/* owner_tag() of the thread read */
	__s32 nr;			/* its syscall then; -1: none */
	__u64 switches;			/* nvcsw + nivcsw then */
	__u64 run_delay, pcount;	/* its sched_info then */
	__u32 otel_tag, otel_gen;	/* the trace context's read: its thread, and otel_gen then */
	__u64 otel_switches;
	__u64 args[6];			/* the syscall's arguments: the first two on the first line */
	struct otel_found otel;
};

_Static_assert(sizeof(struct tract_still) == 128, "two cache lines");

/* max_entries, as slot_mask (common.bpf.h), set before load from the kernel's pid_max */
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

/* struct tract_still by still_index() */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* set at load: the slots' count, at most STILL_MAX (source_bpf.c) */
	__type(key, __u32);
	__type(value, struct tract_still);
} still_reads SEC(".maps");

/*
 * Fibonacci hashing spreads the consecutive tids of a process over the
 * arrays, so threads on different CPUs rarely write the same cache line.
 */
static __always_inline __u32 slot_index(__u32 tid)
{
	return (tid * 2654435761u) & slot_mask;
}

/* A thread's entry in still_reads: its slot's, folded onto the cache's size. */
static __always_inline __u32 still_index(__u32 tid)
{
	return slot_index(tid) & still_mask;
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

/* A thread takes over a slot: nothing of the previous owner's is valid. */
static __always_inline void claim_slot(struct tract_slot *s, __u32 tag)
{
	s->tag = tag;
	s->sc_entry = 0;
	s->kstack_hash = 0;
	s->ustack_hash = 0;
	s->stack_switches = 0;
}

#endif
