// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "ended_inputs.h"
#include "value_names.h"
#include "util.h"
#include "tract/abi.h"

/* Runs of a thread kept at most: its waits sampled before their ends are drained (about a second). */
#define RUNS_PER_THREAD 8
/* Threads kept at most: past it, those with no run left are forgotten. */
#define MAX_THREADS 65536

/*
 * A store file holds a UTC hour, and a query gives a wait's ender only to
 * its samples in the file that holds its end: a run keeps to one hour.
 */
static uint64_t hour_of(uint64_t ts_us)
{
	return ts_us / (3600 * 1000000ULL);
}

/*
 * Rows of one thread in one wait, one after another: the thread time they
 * stand for that input_rows counted, and that each class of ender makes
 * input or sleep.
 */
struct run {
	uint64_t first_us, last_us;	/* the rows' pass times */
	uint64_t counted_us;
	uint64_t as_class_us[TRACT_WAIT_INPUT + 1];
};

struct thread_runs {
	struct run runs[RUNS_PER_THREAD];	/* oldest first */
	unsigned int n;
};

struct ended_inputs {
	struct dict *tids;		/* tid -> index in threads */
	struct thread_runs *threads;
	size_t cap;
};

struct ended_inputs *ended_inputs__new(void)
{
	struct ended_inputs *e = xcalloc(1, sizeof(*e));

	e->tids = dict__new();
	return e;
}

void ended_inputs__free(struct ended_inputs *e)
{
	if (!e)
		return;
	dict__free(e->tids);
	free(e->threads);
	free(e);
}

static int keep_busy(const void *key, size_t len, uint64_t value, void *ctx)
{
	const struct ended_inputs *e = ctx;

	(void)key, (void)len;
	return e->threads[value].n > 0;
}

/* Forgets the threads with no run left, when there are too many to keep. */
static void shed(struct ended_inputs *e)
{
	struct dict *kept = dict__filter(e->tids, keep_busy, e);
	struct thread_runs *threads = xcalloc(dict__size(kept) + 1, sizeof(*threads));

	for (uint32_t id = 1; id <= dict__size(kept); id++) {
		uint64_t *v = dict__value(kept, id);

		threads[id - 1] = e->threads[*v];
		*v = id - 1;
	}
	free(e->threads);
	dict__free(e->tids);
	e->tids = kept;
	e->threads = threads;
	e->cap = dict__size(kept) + 1;
}

static struct thread_runs *runs_of(struct ended_inputs *e, uint32_t tid, int add)
{
	uint32_t id;
	int added;

	if (!add) {
		id = dict__find(e->tids, &tid, sizeof(tid));
		return id ? &e->threads[*dict__value(e->tids, id)] : NULL;
	}
	if (dict__size(e->tids) >= MAX_THREADS && !dict__find(e->tids, &tid, sizeof(tid)))
		shed(e);
	id = dict__intern(e->tids, &tid, sizeof(tid), &added);
	if (added) {
		ARRAY_GROW(e->threads, id - 1, e->cap, 256);
		*dict__value(e->tids, id) = id - 1;
		e->threads[id - 1].n = 0;
	}
	return &e->threads[*dict__value(e->tids, id)];
}

/* r's row, in p: into the run of its wait, where its ender may change what it counts as. */
static void remember(struct ended_inputs *e, const struct pass *p, const struct sample *r)
{
	uint64_t as_class[TRACT_WAIT_INPUT + 1] = { 0 }, counted = sample_waits_for_input(r, (int)r->wait_class);
	uint64_t start_us;
	struct thread_runs *t;
	struct run *run;
	int differs = 0;

	if (r->state != TRACT_STATE_SLEEP)
		return;
	for (int c = TRACT_WAIT_BLOCKED; c <= TRACT_WAIT_INPUT; c++) {
		as_class[c] = (uint64_t)sample_waits_for_input(r, c);
		differs |= as_class[c] != counted;
	}
	if (!differs)
		return;
	t = runs_of(e, r->tid, 1);
	run = t->n ? &t->runs[t->n - 1] : NULL;
	/* asleep since before the run's last row: the same wait */
	start_us = (r->flags & TRACT_SF_STATE_TIME) && r->state_us <= p->ts_us ? p->ts_us - r->state_us : p->ts_us;
	if (!run || start_us >= run->last_us || hour_of(p->ts_us) != hour_of(run->last_us)) {
		if (t->n == RUNS_PER_THREAD)
			memmove(&t->runs[0], &t->runs[1], --t->n * sizeof(t->runs[0]));
		run = &t->runs[t->n++];
		memset(run, 0, sizeof(*run));
		run->first_us = p->ts_us;
	}
	run->last_us = p->ts_us;
	run->counted_us += counted * p->weight_us;
	for (int c = TRACT_WAIT_BLOCKED; c <= TRACT_WAIT_INPUT; c++)
		run->as_class_us[c] += as_class[c] * p->weight_us;
}

/* The wait w ended: what its rows' ender changes, into p; the runs it closes are forgotten. */
static void settle(struct ended_inputs *e, struct pass *p, const struct wait_end_row *w)
{
	struct thread_runs *t = runs_of(e, w->tid, 0);
	int c = wait_class_id(w->wait_class);
	unsigned int kept = 0;

	if (!t)
		return;
	for (unsigned int i = 0; i < t->n; i++) {
		const struct run *run = &t->runs[i];

		if (run->last_us > w->end_us) {
			t->runs[kept++] = *run;
			continue;
		}
		/* the query gives the ender to the rows from the wait's start to its end, in its end's file */
		if (c == TRACT_WAIT_UNKNOWN || run->first_us < w->start_us || hour_of(run->first_us) != hour_of(p->ts_us))
			continue;
		if (run->as_class_us[c] > run->counted_us)
			p->input_gained_us += run->as_class_us[c] - run->counted_us;
		else
			p->input_lost_us += run->counted_us - run->as_class_us[c];
	}
	t->n = kept;
}

void ended_inputs__take(struct ended_inputs *e, struct pass *p)
{
	p->input_gained_us = p->input_lost_us = 0;
	for (size_t i = 0; i < p->nr; i++)
		remember(e, p, &p->rows[i]);
	for (size_t i = 0; i < p->wait_ends.nr; i++)
		settle(e, p, &p->wait_ends.rows[i]);
}
