// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
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

void pass__count_load(struct pass *p)
{
	p->load_rows = 0;
	for (size_t i = 0; i < p->nr; i++)
		p->load_rows += p->rows[i].state == TRACT_STATE_RUN || p->rows[i].state == TRACT_STATE_RUNQ ||
				p->rows[i].state == TRACT_STATE_DISK;
}

/* Keeps the buffers: passes are frequent and similar in size. */
void pass__reset(struct pass *p)
{
	struct pass keep = { .rows = p->rows, .cap = p->cap, .io_hist = p->io_hist, .sc_hist = p->sc_hist,
			     .runq_hist = p->runq_hist, .wakeups = p->wakeups, .profile = p->profile };

	*p = keep;
	p->io_hist.nr = p->sc_hist.nr = p->runq_hist.nr = p->wakeups.nr = p->profile.nr = 0;
}

void pass__free_rows(struct pass *p)
{
	free(p->rows);
	free(p->io_hist.rows);
	free(p->sc_hist.rows);
	free(p->runq_hist.rows);
	free(p->wakeups.rows);
	free(p->profile.rows);
	memset(p, 0, sizeof(*p));
}
