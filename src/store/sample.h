/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One sampler pass as user space sees it, whatever source produced it:
 * the rows of the active threads and the pass's own accounting.
 */
#ifndef TRACT_SAMPLE_H
#define TRACT_SAMPLE_H

#include <stdint.h>
#include <stddef.h>
#include "tract/abi.h"

/* A stack, symbolized: the recorder's stack dictionary owns it. */
struct kstack {
	const char *kind;	/* "kernel" or "user" */
	uint64_t hash;		/* of the frames text: equal text, equal hash, in every file */
	char *frames;		/* "outermost;...;innermost", as folded stacks are written */
	const char *wait;	/* the innermost frame: where the thread waits */
	uint32_t tgid;		/* a user stack's process (its addresses are its own); 0: any */
};

struct sample {
	uint32_t tid, tgid, uid, cpu;
	uint8_t trace_id[16], span_id[8];	/* with TRACT_SF_TRACE: its OpenTelemetry thread context */
	uint8_t trace_flags;
	const char *trace_attrs;	/* its attributes, "key=value ..."; NULL if none */
	int32_t state;			/* enum tract_state */
	int32_t syscall_nr;		/* -1: user mode or unknown */
	uint32_t flags;			/* enum tract_sample_flags */
	uint32_t waker_tid;		/* valid with TRACT_SF_WAKER */
	const char *waker;		/* "irq", "timer", or the waker thread's name; NULL if unknown */
	uint64_t sc_us, state_us;	/* valid per flags */
	uint64_t sc_args[6];
	char comm[TRACT_COMM_LEN];
	char pcomm[TRACT_COMM_LEN];
	const char *exe;		/* NULL if unknown; owned by the source */
	const struct kstack *kstack;	/* NULL if none; owned by the stack dictionary */
	const struct kstack *ustack;	/* the user stack, likewise */
	uint64_t cgroup_id;		/* 0 if unknown */
	const char *cgroup;		/* path below the cgroup2 root; NULL if unknown */
	const char *file;		/* what the fd of a fd syscall is: path or socket; NULL if unknown */
	int has_runq;			/* runq_us is valid */
	uint64_t runq_us;		/* mean wait for a CPU per switch-in since the previous sample */
	/* the device a DISK thread waits on: its block request's, else its file's filesystem's; NULL if none */
	const char *io_dev;
	const char *io_op;		/* the request, with io_bytes and io_us: NULL if none is known */
	uint32_t io_bytes;
	uint64_t io_us, io_service_us;	/* since queued, since issued (0: not issued) */
	uint64_t wake_us, wake_runq_us;	/* with TRACT_SF_WAKE_TIME: since the latest wakeup, its CPU wait */
	/* sched_info counters, from which runq_us follows (runq.h) */
	uint64_t run_delay_ns, run_count;
	uint64_t arrival_ns;		/* since it last got a CPU; 0 if unknown */
	int32_t start_state;		/* with TRACT_SF_ARRIVED_SINCE: its state when the pass began */
	uint32_t blocker_tid;		/* the holder of the lock it waits for; 0: none named */
	/* with blocker_tid: the chain of holders at the pass (chains.h) */
	uint32_t chain_root_tid, chain_len, chain_cycle;
	uint64_t steal_us;		/* RUN: the time the host took from its CPU over the pass's interval */
	uint32_t wait_class;		/* asleep in a syscall: enum tract_wait_class of its wait's site */
	const char *title;		/* its process's command line as ps shows it; NULL if not read */
	/* 1: its thread's row of the previous stored pass again, its times gone on with the clock (repeats.h) */
	int repeat;
};

/*
 * A latency histogram the kernel kept over the pass's interval: block I/O by
 * (device, op), syscalls by (process, syscall), or waits for a CPU by process.
 */
struct hist_row {
	uint32_t tgid;			/* syscalls only */
	const char *name;		/* device, or process name */
	const char *what;		/* op, or syscall */
	uint64_t le_us;			/* latency below this (a power of two) */
	uint64_t count;
	uint64_t sum_us;		/* the latencies summed */
};

struct hist_rows {
	struct hist_row *rows;
	size_t nr, cap;
};

/* Wakeups from one process to another over the pass's interval. */
struct wakeup_row {
	uint32_t waker_tgid;		/* 0 for irq and timer */
	uint32_t wakee_tgid;
	const char *waker;		/* process name, "irq" or "timer"; NULL if gone */
	const char *wakee;
	uint64_t count;
	uint64_t runq_us;		/* summed: woken -> on CPU */
	uint64_t blocked_us;		/* summed: asleep -> woken */
};

struct wakeup_rows {
	struct wakeup_row *rows;
	size_t nr, cap;
};

/* The time the host took from one CPU over the pass's interval (a virtual machine's steal). */
struct steal_row {
	uint32_t cpu;
	uint64_t steal_us;
};

struct steal_rows {
	struct steal_row *rows;
	size_t nr, cap;
};

/*
 * A sampled wait as it ended, and what ended it: its samples are the
 * thread's with ts_us from start_us to end_us.
 */
struct wait_end_row {
	uint32_t tid, tgid;
	uint64_t start_us, end_us;	/* UTC microseconds */
	uint32_t ender_tid, ender_tgid;	/* 0: a timer or an interrupt ended it */
	char ender[TRACT_COMM_LEN];	/* the waking thread's name, or "timer" or "irq" */
	const char *wait_class;		/* "blocked", "sleeping" or "input" (static, or the pass's) */
};

struct wait_end_rows {
	struct wait_end_row *rows;
	size_t nr, cap;
};

/* On-CPU profile ticks of one thread with one pair of stacks, over the pass's interval. */
struct profile_row {
	uint32_t tid, tgid;
	char comm[TRACT_COMM_LEN];
	char pcomm[TRACT_COMM_LEN];
	const struct kstack *kstack;	/* NULL: none (a kernel thread has no user stack) */
	const struct kstack *ustack;
	uint64_t ticks;
};

struct profile_rows {
	struct profile_row *rows;
	size_t nr, cap;
};

struct pass {
	uint64_t seq;			/* 0, 1, ... within a run */
	uint64_t ts_us;			/* UTC microseconds at the start of the pass */
	uint64_t weight_us;		/* the real interval this pass stands for */
	uint64_t visited;		/* threads the iterator looked at */
	uint64_t selected;		/* of those, threads of the processes -p names (all without -p) */
	uint64_t dropped;		/* rows the source could not deliver */
	uint64_t displaced;		/* rows reported RUN that tract's own thread had taken the CPU from */
	uint64_t unsampled_us;		/* time before this pass that no pass stands for (the recorder was late) */
	uint64_t load_rows;		/* rows in RUN, RUNQ or DISK: what the load average counts */
	uint64_t run_rows;		/* rows in RUN */
	uint64_t steal_us;		/* the time the host took from all CPUs over the interval */
	uint64_t run_steal_us;		/* Σ steal_us of the RUN rows: their time the host took */
	uint64_t input_rows;		/* rows whose activity is input or sleep */
	/* thread time of earlier rows whose wait ended in this pass that its ender makes input or sleep, and not */
	uint64_t input_gained_us, input_lost_us;
	uint64_t moment_read;		/* 1: each CPU's runner was read at the pass's moment */
	uint64_t hist_lost;		/* histogram counts lost to full kernel maps */
	uint64_t duration_us;		/* wall time of the pass */
	uint64_t cpu_us;		/* CPU time the recorder spent on it */
	/*
	 * tract's own BPF programs' run time since the previous pass, valid
	 * with has_bpf_us: the kernel counts it only with kernel.bpf_stats_enabled
	 * (bpf_cost.h)
	 */
	uint64_t bpf_us;
	int has_bpf_us;
	const char *stop;		/* the last pass of a recording: why it stopped (a static string); else NULL */
	struct sample *rows;
	size_t nr, cap;
	struct hist_rows io_hist;	/* block I/O completions */
	struct hist_rows sc_hist;	/* syscall completions */
	struct hist_rows runq_hist;	/* switch-ins, by their wait for a CPU (--runq-latency) */
	struct wakeup_rows wakeups;	/* waker -> wakee edges */
	struct profile_rows profile;	/* on-CPU ticks (--profile-hz) */
	struct steal_rows steal;	/* the CPUs the host took time from */
	struct wait_end_rows wait_ends;	/* sampled waits that ended */
	/* strings the rows point to that the pass owns (pass__keep_str()): blocks, the last one filling */
	char **str_blocks;
	size_t nstr_blocks, capstr_blocks, str_used, str_room;
};

struct sample *pass__add_row(struct pass *p);
struct hist_row *hist_rows__add(struct hist_rows *h);
struct wakeup_row *wakeup_rows__add(struct wakeup_rows *w);
struct profile_row *profile_rows__add(struct profile_rows *pr);
struct steal_row *steal_rows__add(struct steal_rows *s);
struct wait_end_row *wait_end_rows__add(struct wait_end_rows *w);
void pass__reset(struct pass *p);
/* A copy of s that the pass owns: valid until it is reset. */
const char *pass__keep_str(struct pass *p, const char *s);
/*
 * 1 where r waits for input or on a timer, as the activity column says of
 * it with wait_class (enum tract_wait_class) for its wait: not held up by
 * anything in its own program.
 */
int sample_waits_for_input(const struct sample *r, int wait_class);
/* Counts the rows the load average would count into p->load_rows. */
void pass__count_load(struct pass *p);
void pass__free_rows(struct pass *p);

#endif
