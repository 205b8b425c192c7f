// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "dict.h"
#include "fact_runs.h"
#include "util.h"

struct run {
	int64_t fact, pass, last;	/* its rowid, its pass, the last pass it stands for */
	uint32_t tid;
	int open;			/* the file says REPEATS_OPEN */
};

struct generation {
	struct dict *tids;		/* tid -> 1 + index in runs */
	struct run *runs;
	size_t nr, cap;
};

struct fact_runs {
	struct generation gen[2];	/* [committed], and the pass being written */
	int committed;
	int64_t pass_id;
};

struct fact_runs *fact_runs__new(void)
{
	struct fact_runs *fr = xcalloc(1, sizeof(*fr));

	for (int g = 0; g < 2; g++)
		fr->gen[g].tids = dict__new();
	return fr;
}

void fact_runs__free(struct fact_runs *fr)
{
	if (!fr)
		return;
	for (int g = 0; g < 2; g++) {
		dict__free(fr->gen[g].tids);
		free(fr->gen[g].runs);
	}
	free(fr);
}

static void clear(struct generation *g)
{
	dict__clear(g->tids);
	g->nr = 0;
}

void fact_runs__forget(struct fact_runs *fr)
{
	clear(&fr->gen[0]);
	clear(&fr->gen[1]);
}

void fact_runs__begin(struct fact_runs *fr, int64_t pass_id)
{
	clear(&fr->gen[!fr->committed]);
	fr->pass_id = pass_id;
}

static struct run *find(struct generation *g, uint32_t tid)
{
	uint32_t id = dict__find(g->tids, &tid, sizeof(tid));

	return id ? &g->runs[*dict__value(g->tids, id) - 1] : NULL;
}

/* A new run of tid in the pass being written; NULL if the pass has one already. */
static struct run *add(struct fact_runs *fr, uint32_t tid)
{
	struct generation *g = &fr->gen[!fr->committed];
	int added;
	uint32_t id = dict__intern(g->tids, &tid, sizeof(tid), &added);

	if (!added)
		return NULL;
	ARRAY_GROW(g->runs, g->nr, g->cap, 256);
	*dict__value(g->tids, id) = ++g->nr;
	return &g->runs[g->nr - 1];
}

int64_t fact_runs__extend(struct fact_runs *fr, const struct sample *r, int *mark_open)
{
	const struct run *before = r->repeat ? find(&fr->gen[fr->committed], r->tid) : NULL;
	struct run *now;

	*mark_open = 0;
	if (!before || before->last != fr->pass_id - 1 || find(&fr->gen[!fr->committed], r->tid))
		return 0;
	now = add(fr, r->tid);
	*now = *before;
	now->last = fr->pass_id;
	*mark_open = !now->open;
	now->open = 1;
	return now->fact;
}

void fact_runs__stored(struct fact_runs *fr, const struct sample *r, int64_t fact)
{
	struct run *now = add(fr, r->tid);

	if (now)
		*now = (struct run){ .fact = fact, .pass = fr->pass_id, .last = fr->pass_id, .tid = r->tid };
}

int fact_runs__ended(struct fact_runs *fr, int (*end)(void *arg, int64_t fact, int64_t repeats), void *arg)
{
	struct generation *before = &fr->gen[fr->committed];

	for (size_t i = 0; i < before->nr; i++) {
		const struct run *b = &before->runs[i], *now;
		int err;

		if (!b->open)
			continue;
		now = find(&fr->gen[!fr->committed], b->tid);
		if (now && now->fact == b->fact)
			continue;
		err = end(arg, b->fact, b->last - b->pass);
		if (err)
			return err;
	}
	return 0;
}

void fact_runs__commit(struct fact_runs *fr)
{
	fr->committed = !fr->committed;
}
