// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "observer.h"
#include "util.h"

/* What one CPU showed in a pass. */
struct cpu_view {
	size_t runner;		/* row index + 1: RUN since before the pass began */
	size_t ran;		/* ... or had it then and left it, the latest to get it */
	size_t arrived;		/* ... or got it since: the CPU's runner when the pass met it */
	int outside;		/* a thread not sampled got it later than any row, and had it then */
};

static void show_as_then(struct sample *r)
{
	r->state = r->start_state;
	r->flags &= ~(uint32_t)TRACT_SF_STATE_TIME;
}

static void show_running(struct sample *r, int stacks_of_then)
{
	r->state = TRACT_STATE_RUN;
	r->flags |= TRACT_SF_DISPLACED | TRACT_SF_STATE_TIME;
	r->flags &= ~(uint32_t)TRACT_SF_ONLY_IF_RAN;
	r->state_us = r->arrival_ns / 1000;
	/*
	 * The kernel stack of a thread taken off its CPU is the path that took
	 * it off; its user stack is the code it ran then.  A thread the sampler
	 * knew ran at the moment has the stacks of what it ran then
	 * (bpf/run_moment.bpf.h): those stay.
	 */
	if (!stacks_of_then)
		r->kstack = NULL;
}

/* Row i stays, as row *kept: rows are large, and most stay where they are. */
static void keep_row(struct pass *p, size_t *kept, size_t i)
{
	if (*kept != i)
		p->rows[*kept] = p->rows[i];
	(*kept)++;
}

/* Growing as CPUs appear; a pass names each CPU once or a few times. */
static struct cpu_view *view_of(struct cpu_view **views, size_t *n, uint32_t cpu)
{
	if (cpu >= *n) {
		size_t grown = cpu + 64;

		*views = xrealloc(*views, grown * sizeof(**views));
		memset(*views + *n, 0, (grown - *n) * sizeof(**views));
		*n = grown;
	}
	return &(*views)[cpu];
}

size_t observer__resolve(struct pass *p, const uint64_t *outside_ns, size_t ncpus)
{
	static struct cpu_view *views;
	static size_t nviews;
	size_t displaced = 0, kept = 0;

	if (nviews)
		memset(views, 0, nviews * sizeof(*views));
	for (size_t i = 0; i < p->nr; i++) {
		const struct sample *r = &p->rows[i];
		struct cpu_view *v = view_of(&views, &nviews, r->cpu);

		if (r->state == TRACT_STATE_RUN && !(r->flags & TRACT_SF_ARRIVED_SINCE))
			v->runner = i + 1;
		else if ((r->flags & TRACT_SF_RAN_AT_START) &&
			 (!v->ran || r->arrival_ns < p->rows[v->ran - 1].arrival_ns))
			v->ran = i + 1;
		else if (r->flags & TRACT_SF_ARRIVED_SINCE)
			v->arrived = i + 1;
	}
	/* of the threads that had a CPU when the pass began and left it, the last to get it had it then */
	for (size_t cpu = 0; cpu < ncpus && cpu < nviews; cpu++) {
		struct cpu_view *v = &views[cpu];

		if (outside_ns[cpu] && (!v->ran || outside_ns[cpu] < p->rows[v->ran - 1].arrival_ns)) {
			v->outside = 1;
			v->ran = 0;
		}
	}
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *r = &p->rows[i];
		const struct cpu_view *v = &views[r->cpu];
		size_t me = i + 1, then = v->runner ? v->runner : v->ran ? v->ran : v->outside ? 0 : v->arrived;

		if ((r->flags & TRACT_SF_RAN_AT_START) && me == then) {
			show_running(r, 0);
			displaced++;
		} else if ((r->flags & TRACT_SF_ARRIVED_SINCE) && me != then) {
			show_as_then(r);
		}
		if ((r->flags & TRACT_SF_ONLY_IF_RAN) && me != then)
			continue;
		keep_row(p, &kept, i);
	}
	p->nr = kept;
	return displaced;
}

/* A CPU's runner at the moment, ordered by tid. */
struct moment_runner {
	uint32_t tid, cpu;
};

static int by_tid(const void *a, const void *b)
{
	const struct moment_runner *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

size_t observer__at_moment(struct pass *p, const uint32_t *moment_tid, size_t ncpus)
{
	static struct moment_runner *runners;
	static size_t cap;
	size_t n = 0, displaced = 0, kept = 0;

	if (ncpus > cap) {
		runners = xrealloc(runners, ncpus * sizeof(*runners));
		cap = ncpus;
	}
	for (size_t cpu = 0; cpu < ncpus; cpu++)
		if (moment_tid[cpu])
			runners[n++] = (struct moment_runner){ moment_tid[cpu], (uint32_t)cpu };
	qsort(runners, n, sizeof(*runners), by_tid);
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *r = &p->rows[i];
		struct moment_runner key = { r->tid, 0 }, *then;

		if (r->flags & TRACT_SF_AT_MOMENT) {
			if (r->flags & TRACT_SF_RAN_AT_START) {
				show_running(r, 1);
				displaced++;
			}
		} else if ((then = bsearch(&key, runners, n, sizeof(*runners), by_tid))) {
			/* it ran then on a CPU it has left for another */
			show_running(r, 0);
			r->cpu = then->cpu;
			r->flags |= TRACT_SF_AT_MOMENT;
			displaced++;
		} else if (r->flags & TRACT_SF_ONLY_IF_RAN) {
			continue;
		}
		keep_row(p, &kept, i);
	}
	p->nr = kept;
	return displaced;
}
