// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "activity.h"
#include "sample.h"
#include "util.h"

/* A zeroed new element at the end of a growable array. */
static void *array_add(void **rows, size_t *nr, size_t *cap, size_t size)
{
	char *row;

	if (*nr == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*rows = xrealloc(*rows, *cap * size);
	}
	row = (char *)*rows + (*nr)++ * size;
	memset(row, 0, size);
	return row;
}

struct sample *pass__add_row(struct pass *p)
{
	return array_add((void **)&p->rows, &p->nr, &p->cap, sizeof(*p->rows));
}

struct hist_row *hist_rows__add(struct hist_rows *h)
{
	return array_add((void **)&h->rows, &h->nr, &h->cap, sizeof(*h->rows));
}

struct wakeup_row *wakeup_rows__add(struct wakeup_rows *w)
{
	return array_add((void **)&w->rows, &w->nr, &w->cap, sizeof(*w->rows));
}

struct profile_row *profile_rows__add(struct profile_rows *pr)
{
	return array_add((void **)&pr->rows, &pr->nr, &pr->cap, sizeof(*pr->rows));
}

struct steal_row *steal_rows__add(struct steal_rows *s)
{
	return array_add((void **)&s->rows, &s->nr, &s->cap, sizeof(*s->rows));
}

struct wait_end_row *wait_end_rows__add(struct wait_end_rows *w)
{
	return array_add((void **)&w->rows, &w->nr, &w->cap, sizeof(*w->rows));
}

int sample_waits_for_input(const struct sample *r, int wait_class)
{
	struct activity_call call;
	enum activity a;

	if (r->state != TRACT_STATE_SLEEP)
		return 0;
	if (r->syscall_nr >= 0)
		activity_call_of(r->syscall_nr, (int64_t)r->sc_args[1], (int64_t)r->sc_args[2], &call);
	a = activity_classify(r->state, r->syscall_nr >= 0 ? &call : NULL,
			      r->syscall_nr >= 0 && (r->flags & TRACT_SF_SC_TIME) ? (int64_t)r->sc_us : -1,
			      (r->flags & TRACT_SF_STATE_TIME) ? (int64_t)r->state_us : -1,
			      r->file && activity_file_is_terminal(r->file), wait_class);
	return a == ACTIVITY_INPUT || a == ACTIVITY_SLEEP;
}

void pass__count_load(struct pass *p)
{
	p->load_rows = p->run_rows = p->input_rows = 0;
	for (size_t i = 0; i < p->nr; i++) {
		p->load_rows += p->rows[i].state == TRACT_STATE_RUN || p->rows[i].state == TRACT_STATE_RUNQ ||
				p->rows[i].state == TRACT_STATE_DISK;
		p->run_rows += p->rows[i].state == TRACT_STATE_RUN;
		p->input_rows += sample_waits_for_input(&p->rows[i], (int)p->rows[i].wait_class);
	}
}

/* One allocation for the strings of most passes, not one a string: traced rows keep one each. */
#define STR_BLOCK 65536

const char *pass__keep_str(struct pass *p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *out;

	if (!p->nstr_blocks || n > p->str_room - p->str_used) {
		char **block = array_add((void **)&p->str_blocks, &p->nstr_blocks, &p->capstr_blocks,
					 sizeof(*p->str_blocks));

		p->str_room = n > STR_BLOCK ? n : STR_BLOCK;
		p->str_used = 0;
		*block = xrealloc(NULL, p->str_room);
	}
	out = p->str_blocks[p->nstr_blocks - 1] + p->str_used;
	memcpy(out, s, n);
	p->str_used += n;
	return out;
}

static void free_strs(struct pass *p)
{
	for (size_t i = 0; i < p->nstr_blocks; i++)
		free(p->str_blocks[i]);
	p->nstr_blocks = p->str_used = p->str_room = 0;
}

/* Keeps the buffers: passes are frequent and similar in size. */
void pass__reset(struct pass *p)
{
	struct pass keep = { .rows = p->rows, .cap = p->cap, .io_hist = p->io_hist, .sc_hist = p->sc_hist,
			     .runq_hist = p->runq_hist, .wakeups = p->wakeups, .profile = p->profile, .steal = p->steal,
			     .wait_ends = p->wait_ends,
			     .str_blocks = p->str_blocks, .capstr_blocks = p->capstr_blocks };

	free_strs(p);
	*p = keep;
	p->io_hist.nr = p->sc_hist.nr = p->runq_hist.nr = p->wakeups.nr = p->profile.nr = p->steal.nr = 0;
	p->wait_ends.nr = 0;
}

void pass__free_rows(struct pass *p)
{
	free(p->rows);
	free(p->io_hist.rows);
	free(p->sc_hist.rows);
	free(p->runq_hist.rows);
	free(p->wakeups.rows);
	free(p->profile.rows);
	free(p->steal.rows);
	free(p->wait_ends.rows);
	free_strs(p);
	free(p->str_blocks);
	memset(p, 0, sizeof(*p));
}
