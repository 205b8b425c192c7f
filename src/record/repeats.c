// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "columns.h"
#include "dict.h"
#include "repeats.h"
#include "util.h"

/* The times that go on with the clock (COARSE_US in sample_columns.def), and where a sample holds them. */
static const struct {
	enum sample_column_index column;
	size_t offset;
} times[] = {
	{ COL_sc_us, offsetof(struct sample, sc_us) },
	{ COL_state_us, offsetof(struct sample, state_us) },
	{ COL_wake_us, offsetof(struct sample, wake_us) },
};

/* What a thread's row was: its other values by their hash, its times, and how often it had run. */
struct seen {
	uint64_t hash;
	uint64_t run_count;		/* sched_info.pcount; 0: unknown */
	uint64_t us[ARRAY_SIZE(times)];
	uint8_t known[ARRAY_SIZE(times)];
};

struct generation {
	struct dict *tids;		/* tid -> 1 + index in rows */
	struct seen *rows;
	size_t nr, cap;
};

struct repeats {
	struct generation gen[2];	/* [cur]: the pass judged last */
	int cur, have_prev;
	uint64_t prev_ts_us;
};

static int time_index(size_t column)
{
	for (size_t t = 0; t < ARRAY_SIZE(times); t++)
		if (times[t].column == column)
			return (int)t;
	return -1;
}

struct repeats *repeats__new(void)
{
	struct repeats *rp = xcalloc(1, sizeof(*rp));

	/* a time that goes on with the clock but is not one of the above would be taken for a change every pass */
	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++)
		if (column_coarse_us(&sample_columns[i]) != (time_index(i) >= 0))
			abort();
	for (int g = 0; g < 2; g++)
		rp->gen[g].tids = dict__new();
	return rp;
}

void repeats__free(struct repeats *rp)
{
	if (!rp)
		return;
	for (int g = 0; g < 2; g++) {
		dict__free(rp->gen[g].tids);
		free(rp->gen[g].rows);
	}
	free(rp);
}

/* The row's values but its pass's and its times (whether each is known, though, is one). */
static void seen_of(const struct pass *p, const struct sample *r, struct seen *s)
{
	uint64_t h = 0x7261637473616d70ULL;

	for (size_t i = 0; i < NR_SAMPLE_COLUMNS; i++) {
		const struct sample_column *c = &sample_columns[i];
		struct column_value v;
		int t;

		if (c->where == PASS)
			continue;
		c->value(p, r, &v);
		t = time_index(i);
		if (t >= 0) {
			s->known[t] = v.kind != VAL_NULL;
			s->us[t] = v.u;
			h = hash_bytes(&s->known[t], 1, h);
			continue;
		}
		h = hash_bytes(&v.kind, sizeof(v.kind), h);
		if (v.kind == VAL_INT)
			h = hash_bytes(&v.i, sizeof(v.i), h);
		else if (v.kind == VAL_UINT)
			h = hash_bytes(&v.u, sizeof(v.u), h);
		else if (v.kind == VAL_TEXT)
			h = hash_bytes(v.s, v.len, h);
	}
	s->hash = h;
	s->run_count = r->run_count;
}

/*
 * Whether now's times are before's gone on by gone_us.  A thread that has
 * not been on a CPU since (the same count of times it ran) is in the same
 * wait whatever the times it was read with say: they drift from the clock
 * by the time the host and interrupts took from its CPU meanwhile (the
 * kernel's task clock lags by it).  Where the count is unknown, the times
 * must agree within slack.
 */
static int times_follow(const struct seen *before, const struct seen *now, uint64_t gone_us, uint64_t slack)
{
	if (before->run_count && now->run_count)
		return before->run_count == now->run_count;
	for (size_t t = 0; t < ARRAY_SIZE(times); t++) {
		uint64_t want = before->us[t] + gone_us;

		if (now->known[t] && (now->us[t] > want + slack || now->us[t] + slack < want))
			return 0;
	}
	return 1;
}

static struct seen *add_seen(struct generation *g, uint32_t tid)
{
	int added;
	uint32_t id = dict__intern(g->tids, &tid, sizeof(tid), &added);

	if (!added)
		return NULL;	/* a thread twice in a pass: its first row is the one remembered */
	ARRAY_GROW(g->rows, g->nr, g->cap, 256);
	*dict__value(g->tids, id) = ++g->nr;
	return &g->rows[g->nr - 1];
}

void repeats__judge(struct repeats *rp, struct pass *p)
{
	struct generation *before = &rp->gen[rp->cur], *now = &rp->gen[!rp->cur];
	int judged = rp->have_prev && p->ts_us > rp->prev_ts_us;
	uint64_t gone_us = judged ? p->ts_us - rp->prev_ts_us : 0;
	uint64_t slack = gone_us / 100 < REPEAT_SLACK_US ? gone_us / 100 : REPEAT_SLACK_US;

	dict__clear(now->tids);
	now->nr = 0;
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *r = &p->rows[i];
		struct seen s, *kept;
		uint32_t id;

		r->repeat = 0;
		kept = add_seen(now, r->tid);
		if (!kept)
			continue;
		seen_of(p, r, &s);
		id = judged ? dict__find(before->tids, &r->tid, sizeof(r->tid)) : 0;
		if (id) {
			const struct seen *b = &before->rows[*dict__value(before->tids, id) - 1];

			if (b->hash == s.hash && times_follow(b, &s, gone_us, slack)) {
				for (size_t t = 0; t < ARRAY_SIZE(times); t++) {
					s.us[t] = b->us[t] + gone_us;
					if (s.known[t])
						memcpy((char *)r + times[t].offset, &s.us[t], sizeof(uint64_t));
				}
				r->repeat = 1;
			}
		}
		*kept = s;
	}
	rp->cur = !rp->cur;
	rp->have_prev = 1;
	rp->prev_ts_us = p->ts_us;
}
