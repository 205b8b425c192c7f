/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sampler interface: a source of passes.  The BPF task iterator is one
 * source; the store and the terminal do not care which source fills a pass.
 */
#ifndef TRACT_SAMPLER_H
#define TRACT_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include "sample.h"

struct sampler_config {
	int all_threads;		/* --all: every thread is active */
	uint64_t idle_grace_ns;		/* idle waits younger than this count as active */
	uint64_t idle_syscalls[TRACT_SYSCALLS_MAX / 64];	/* bitmap by syscall number */
	uint64_t fd_syscalls[TRACT_SYSCALLS_MAX / 64];	/* whose first argument is an fd */
	uint64_t untimed_syscalls[TRACT_SYSCALLS_MAX / 64];	/* left out of the latency histograms */
	uint32_t pids[TRACT_PID_FILTER_MAX];
	size_t nr_pids;
	int kstacks;			/* take kernel stacks of off-CPU threads */
	int ustacks;			/* take user stacks where the user registers are saved */
	int unwind_cfi;			/* copy user stacks and unwind them by CFI, not frame pointers */
	int syscall_latency;		/* keep syscall latency histograms (a sys_exit program; default) */
	int wakeup_edges;		/* keep waker -> wakee edges (a sched_switch program; default) */
	int runq_latency;		/* keep run-queue latency histograms (the same program) */
	double profile_hz;		/* on-CPU profile ticks per second per CPU; 0: none */
	int titles;			/* read the processes' titles (command lines); default */
};

struct sampler;
struct ksyms;

struct sampler_ops {
	const char *name;
	/* Fill pass->rows and the pass counters; negative errno on failure. */
	int (*pass)(struct sampler *s, struct pass *pass);
	/*
	 * Optional: what the kernel summed since the previous call (latency
	 * histograms, wakeup edges, profile ticks) into the pass just filled.
	 */
	void (*sums)(struct sampler *s, struct pass *pass);
	/* Optional: the recorder goes to sleep now until the next pass's moment (CLOCK_MONOTONIC ns). */
	void (*rest)(struct sampler *s, uint64_t moment_ns);
	void (*free)(struct sampler *s);
};

struct sampler {
	const struct sampler_ops *ops;
};

static inline int sampler__pass(struct sampler *s, struct pass *p)
{
	return s->ops->pass(s, p);
}

static inline void sampler__sums(struct sampler *s, struct pass *p)
{
	if (s->ops->sums)
		s->ops->sums(s, p);
}

static inline void sampler__rest(struct sampler *s, uint64_t moment_ns)
{
	if (s->ops->rest)
		s->ops->rest(s, moment_ns);
}

static inline void sampler__free(struct sampler *s)
{
	if (s)
		s->ops->free(s);
}

/* What turns raw ids into names, shared by every source; owned by the caller. */
struct resolvers {
	struct stackdict *stacks;
	struct procinfo *procs;
	struct cgroups *cgroups;
	struct files *files;
	struct runq_history *runq;
	struct blockdevs *blockdevs;
	struct proctitles *titles;	/* NULL: no process titles (--no-titles) */
	struct irqs *irqs;		/* the wakers that are no thread */
	struct ksyms *ksyms;		/* the kernel's symbols, being read (ksyms__load_async()); NULL: none */
};

/* Fills *out; on failure returns negative errno after printing why. */
int source_bpf__open(const struct sampler_config *cfg, const struct resolvers *res,
		     struct sampler **out);
/* The /proc source: less detail, no privilege needed (source_proc.c). */
int source_proc__open(const struct sampler_config *cfg, const struct resolvers *res,
		      struct sampler **out);

static inline const char *sampler__name(const struct sampler *s)
{
	return s->ops->name;
}

#endif
