// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include "chains.h"
#include "util.h"

struct tid_row {
	uint32_t tid;
	uint32_t row;
};

static int by_tid(const void *a, const void *b)
{
	const struct tid_row *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const struct sample *row_of(const struct pass *p, const struct tid_row *index, size_t n, uint32_t tid)
{
	struct tid_row key = { tid, 0 };
	const struct tid_row *hit = bsearch(&key, index, n, sizeof(*index), by_tid);

	return hit ? &p->rows[hit->row] : NULL;
}

/* A holder named in the waiter's memory stands only as a live thread of its process, not itself. */
static int holder_stands(const struct sample *r, const struct sample *holder, chains_alive_fn alive, void *arg)
{
	if (r->blocker_tid == r->tid)
		return 0;
	if (!(r->flags & TRACT_SF_BLOCKER_USER))
		return 1;
	if (holder)
		return holder->tgid == r->tgid;
	return alive && alive(arg, r->tgid, r->blocker_tid);
}

static void follow(const struct pass *p, const struct tid_row *index, size_t n, struct sample *r)
{
	uint32_t seen[CHAIN_MAX], cur = r->blocker_tid, len = 1;
	size_t nseen = 0;

	seen[nseen++] = r->tid;
	for (;;) {
		const struct sample *h;
		size_t at;

		for (at = 0; at < nseen && seen[at] != cur; at++)
			;
		if (at < nseen) {
			/* back to a thread the chain passed: the threads from there on wait for each other */
			uint32_t root = cur;

			for (size_t i = at; i < nseen; i++)
				if (seen[i] < root)
					root = seen[i];
			r->chain_root_tid = root;
			r->chain_len = len;
			r->chain_cycle = 1;
			return;
		}
		h = row_of(p, index, n, cur);
		if (!h || !h->blocker_tid || nseen == CHAIN_MAX)
			break;
		seen[nseen++] = cur;
		cur = h->blocker_tid;
		len++;
	}
	r->chain_root_tid = cur;
	r->chain_len = len;
	r->chain_cycle = 0;
}

void chains__resolve(struct pass *p, chains_alive_fn alive, void *arg)
{
	struct tid_row *index;
	size_t blocked = 0;

	for (size_t i = 0; i < p->nr; i++)
		blocked += p->rows[i].blocker_tid != 0;
	if (!blocked)
		return;
	index = xcalloc(p->nr, sizeof(*index));
	for (size_t i = 0; i < p->nr; i++)
		index[i] = (struct tid_row){ p->rows[i].tid, (uint32_t)i };
	qsort(index, p->nr, sizeof(*index), by_tid);
	for (size_t i = 0; i < p->nr; i++) {
		struct sample *r = &p->rows[i];

		if (r->blocker_tid && !holder_stands(r, row_of(p, index, p->nr, r->blocker_tid), alive, arg))
			r->blocker_tid = 0;
	}
	for (size_t i = 0; i < p->nr; i++)
		if (p->rows[i].blocker_tid)
			follow(p, index, p->nr, &p->rows[i]);
	free(index);
}
