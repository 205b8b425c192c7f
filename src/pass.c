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

struct hist_row *hist_rows__add(struct hist_rows *h)
{
	if (h->nr == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 64;
		h->rows = xrealloc(h->rows, h->cap * sizeof(*h->rows));
	}
	memset(&h->rows[h->nr], 0, sizeof(h->rows[0]));
	return &h->rows[h->nr++];
}

/* Keeps the buffers: passes are frequent and similar in size. */
void pass__reset(struct pass *p)
{
	struct pass keep = { .rows = p->rows, .cap = p->cap, .io_hist = p->io_hist, .sc_hist = p->sc_hist };

	*p = keep;
	p->io_hist.nr = p->sc_hist.nr = 0;
}

void pass__free_rows(struct pass *p)
{
	free(p->rows);
	free(p->io_hist.rows);
	free(p->sc_hist.rows);
	memset(p, 0, sizeof(*p));
}
