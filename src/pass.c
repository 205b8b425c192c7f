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

/* Keeps the row buffer: passes are frequent and similar in size. */
void pass__reset(struct pass *p)
{
	struct sample *rows = p->rows;
	size_t cap = p->cap;

	memset(p, 0, sizeof(*p));
	p->rows = rows;
	p->cap = cap;
}

void pass__free_rows(struct pass *p)
{
	free(p->rows);
	p->rows = NULL;
	p->nr = p->cap = 0;
}
