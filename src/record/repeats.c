// SPDX-License-Identifier: GPL-2.0-only
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "columns.h"
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

/*
 * Each thread's row of the pass judged last, by tid: open addressing, a
 * slot stamped with the pass it was set in, so nothing is cleared between
 * passes; slots of threads gone are dropped when the table is made again.
 */
struct slot {
	uint32_t tid;
	uint32_t pass;			/* 0: empty */
	struct seen seen;
};

struct repeats {
	struct slot *slots;
	size_t cap, used;		/* cap a power of two */
	uint32_t pass;			/* the pass being judged: 1, 2, ... */
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
	return rp;
}

void repeats__free(struct repeats *rp)
{
	if (!rp)
		return;
	free(rp->slots);
	free(rp);
}

static struct slot *slot_of(struct repeats *rp, uint32_t tid)
{
	size_t mask = rp->cap - 1, i = (size_t)((tid * 0x9e3779b97f4a7c15ULL) >> 32) & mask;

	while (rp->slots[i].pass && rp->slots[i].tid != tid)
		i = (i + 1) & mask;
	return &rp->slots[i];
}

/* Room for rows more threads at under half full: made again, with only the last pass's threads, when short. */
static void make_room(struct repeats *rp, size_t rows)
{
	struct slot *old = rp->slots;
	size_t old_cap = rp->cap, keep = 0;

	if (2 * (rp->used + rows) < rp->cap)
		return;
	for (size_t i = 0; i < old_cap; i++)
		keep += old[i].pass && old[i].pass + 1 == rp->pass;
	rp->cap = 1024;
	while (rp->cap < 4 * (keep + rows))
		rp->cap *= 2;
	rp->slots = xcalloc(rp->cap, sizeof(*rp->slots));
	rp->used = keep;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].pass && old[i].pass + 1 == rp->pass)
			*slot_of(rp, old[i].tid) = old[i];
	free(old);
}

/* The row's values but its pass's and its times (whether each is known, though, is one). */
static void seen_of(const struct pass *p, const struct sample *r, struct seen *s)
{
	for (size_t t = 0; t < ARRAY_SIZE(times); t++) {
		struct column_value v;

		sample_columns[times[t].column].value(p, r, &v);
		s->known[t] = v.kind != VAL_NULL;
		s->us[t] = v.u;
	}
	s->hash = column_mix_sample(r, 0x7261637473616d70ULL);
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

void repeats__judge(struct repeats *rp, struct pass *p)
{
	int judged = rp->pass && p->ts_us > rp->prev_ts_us;
	uint64_t gone_us = judged ? p->ts_us - rp->prev_ts_us : 0;
	uint64_t slack = gone_us / 100 < REPEAT_SLACK_US ? gone_us / 100 : REPEAT_SLACK_US;

	rp->pass++;
	make_room(rp, p->nr);
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *r = &p->rows[i];
		struct slot *slot = slot_of(rp, r->tid);
		struct seen s;

		r->repeat = 0;
		if (slot->pass == rp->pass)
			continue;	/* a thread twice in a pass: its first row is the one remembered */
		seen_of(p, r, &s);
		if (judged && slot->pass + 1 == rp->pass && slot->seen.hash == s.hash &&
		    times_follow(&slot->seen, &s, gone_us, slack)) {
			for (size_t t = 0; t < ARRAY_SIZE(times); t++) {
				s.us[t] = slot->seen.us[t] + gone_us;
				if (s.known[t])
					memcpy((char *)r + times[t].offset, &s.us[t], sizeof(uint64_t));
			}
			r->repeat = 1;
		}
		rp->used += !slot->pass;
		*slot = (struct slot){ .tid = r->tid, .pass = rp->pass, .seen = s };
	}
	rp->prev_ts_us = p->ts_us;
}
