// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "sample.h"
#include "util.h"

struct sample *pass__add_row(struct pass *p)
{
	if (p->nr == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->rows = xrealloc(p->rows, p->cap * sizeof(*p->rows));
	}
	memset(&p->rows[p->nr], 0, sizeof(p->rows[0]));
	return &p->rows[p->nr++];
}

struct io_hist_row *pass__add_io_hist(struct pass *p)
{
	if (p->nr_io_hist == p->cap_io_hist) {
		p->cap_io_hist = p->cap_io_hist ? p->cap_io_hist * 2 : 64;
		p->io_hist = xrealloc(p->io_hist, p->cap_io_hist * sizeof(*p->io_hist));
	}
	memset(&p->io_hist[p->nr_io_hist], 0, sizeof(p->io_hist[0]));
	return &p->io_hist[p->nr_io_hist++];
}

/* Keeps the buffers: passes are frequent and similar in size. */
void pass__reset(struct pass *p)
{
	struct sample *rows = p->rows;
	struct io_hist_row *io_hist = p->io_hist;
	size_t cap = p->cap, cap_io_hist = p->cap_io_hist;

	memset(p, 0, sizeof(*p));
	p->rows = rows;
	p->cap = cap;
	p->io_hist = io_hist;
	p->cap_io_hist = cap_io_hist;
}

void pass__free_rows(struct pass *p)
{
	free(p->rows);
	free(p->io_hist);
	p->rows = NULL;
	p->io_hist = NULL;
	p->nr = p->cap = p->nr_io_hist = p->cap_io_hist = 0;
}
