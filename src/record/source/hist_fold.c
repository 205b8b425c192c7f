// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "hist_fold.h"
#include "pass_tables.h"
#include "util.h"

static int in(const struct dict *d, uint32_t tgid)
{
	return tgid && dict__find(d, &tgid, sizeof(tgid)) != 0;
}

struct weight {
	uint32_t tgid;
	uint32_t rows;
	uint64_t count;
};

static int by_count(const void *a, const void *b)
{
	const struct weight *x = a, *y = b;

	return x->count < y->count ? -1 : x->count > y->count ? 1 : x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

/*
 * The processes to fold past the budget: the fewest events first, until
 * the rows left of their own are under three quarters of it (folded rows,
 * merged by command, take some of the rest).  Added to extra.
 */
static void over_budget(struct weight *w, size_t nw, size_t own_rows, size_t budget, struct dict *extra)
{
	int added;

	qsort(w, nw, sizeof(*w), by_count);
	for (size_t i = 0; i < nw && own_rows > budget / 4 * 3; i++) {
		dict__intern(extra, &w[i].tgid, sizeof(w[i].tgid), &added);
		own_rows -= w[i].rows;
	}
}

/* Per process of its own rows (not in fold): its rows and counts, into *w. */
static size_t weigh(const uint32_t *tgids, const uint64_t *counts, size_t n, const struct dict *fold,
		    struct weight **out, size_t *own_rows)
{
	struct dict *idx = dict__new();
	struct weight *w = NULL;
	size_t nw = 0;

	*own_rows = 0;
	for (size_t i = 0; i < n; i++) {
		int added;
		uint32_t id;

		if (!tgids[i] || in(fold, tgids[i]))
			continue;
		(*own_rows)++;
		id = dict__intern(idx, &tgids[i], sizeof(tgids[i]), &added);
		if (added) {
			w = xrealloc(w, (nw + 1) * sizeof(*w));
			w[nw++] = (struct weight){ .tgid = tgids[i] };
			*dict__value(idx, id) = nw - 1;
		}
		w[*dict__value(idx, id)].rows++;
		w[*dict__value(idx, id)].count += counts[i];
	}
	dict__free(idx);
	*out = w;
	return nw;
}

/* The merge key of a folded row: its strings whole, and a number. */
static uint32_t merge_slot(struct dict *merged, const char *a, const char *b, uint64_t n, int *added)
{
	size_t la = a ? strlen(a) + 1 : 0, lb = b ? strlen(b) + 1 : 0;
	unsigned char small[96], *key = la + lb + 10 <= sizeof(small) ? small : xcalloc(1, la + lb + 10);
	uint32_t id;

	key[0] = a != NULL;
	key[1] = b != NULL;
	memcpy(key + 2, &n, 8);
	memcpy(key + 10, a ? a : "", la);
	memcpy(key + 10 + la, b ? b : "", lb);
	id = dict__intern(merged, key, la + lb + 10, added);
	if (key != small)
		free(key);
	return id;
}

size_t hist_rows__fold(struct hist_rows *h, const struct pass_table *t, const struct dict *fold, size_t budget)
{
	uint32_t *tgids = xcalloc(h->nr + 1, sizeof(*tgids));
	uint64_t *counts = xcalloc(h->nr + 1, sizeof(*counts));
	struct dict *extra = dict__new(), *merged = dict__new();
	struct weight *w;
	size_t own, nw, out = 0, folded = 0;

	for (size_t i = 0; i < h->nr; i++) {
		tgids[i] = h->rows[i].tgid;
		counts[i] = h->rows[i].count;
	}
	nw = weigh(tgids, counts, h->nr, fold, &w, &own);
	if (own > budget)
		over_budget(w, nw, own, budget, extra);
	for (size_t i = 0; i < h->nr; i++) {
		struct hist_row r = h->rows[i];
		int added;
		uint32_t id;

		if (!r.tgid || !(in(fold, r.tgid) || in(extra, r.tgid))) {
			h->rows[out++] = r;
			continue;
		}
		folded++;
		id = merge_slot(merged, r.name, r.what, r.le_us, &added);
		if (added) {
			*dict__value(merged, id) = out;
			r.tgid = 0;
			h->rows[out++] = r;
		} else {
			pass_rows_merge(t, &h->rows[*dict__value(merged, id)], &r);
		}
	}
	h->nr = out;
	free(w);
	free(tgids);
	free(counts);
	dict__free(extra);
	dict__free(merged);
	return folded;
}

/* The edges with an end in fold or extra, merged by their ends (a folded end by its name). */
static size_t fold_edges(struct wakeup_rows *wr, const struct dict *fold, const struct dict *extra)
{
	struct dict *merged = dict__new();
	size_t out = 0, folded = 0;

	for (size_t i = 0; i < wr->nr; i++) {
		struct wakeup_row r = wr->rows[i];
		int fold_waker = in(fold, r.waker_tgid) || in(extra, r.waker_tgid);
		int fold_wakee = in(fold, r.wakee_tgid) || in(extra, r.wakee_tgid);
		int added;
		uint32_t id;

		if (!fold_waker && !fold_wakee) {
			wr->rows[out++] = r;
			continue;
		}
		folded++;
		if (fold_waker)
			r.waker_tgid = 0;
		if (fold_wakee)
			r.wakee_tgid = 0;
		/* an end kept is told by its pid, a folded one (pid 0) by its name */
		id = merge_slot(merged, r.waker, r.wakee, (uint64_t)r.waker_tgid << 32 | r.wakee_tgid, &added);
		if (added) {
			*dict__value(merged, id) = out;
			wr->rows[out++] = r;
		} else {
			pass_rows_merge(&pass_tables[PT_wakeups], &wr->rows[*dict__value(merged, id)], &r);
		}
	}
	wr->nr = out;
	dict__free(merged);
	return folded;
}

size_t wakeup_rows__fold(struct wakeup_rows *wr, const struct dict *fold, size_t budget)
{
	struct dict *none = dict__new(), *extra = dict__new();
	size_t folded = fold_edges(wr, fold, none), n = wr->nr, own, nw;
	/* past the budget: each edge weighs on both of its ends */
	uint32_t *tgids = xcalloc(2 * n + 1, sizeof(*tgids));
	uint64_t *counts = xcalloc(2 * n + 1, sizeof(*counts));
	struct weight *w = NULL;

	if (n > budget) {
		for (size_t i = 0; i < n; i++) {
			tgids[2 * i] = wr->rows[i].waker_tgid;
			tgids[2 * i + 1] = wr->rows[i].wakee_tgid;
			counts[2 * i] = counts[2 * i + 1] = wr->rows[i].count;
		}
		nw = weigh(tgids, counts, 2 * n, none, &w, &own);
		over_budget(w, nw, n, budget, extra);
		folded += fold_edges(wr, none, extra);
	}
	free(w);
	free(tgids);
	free(counts);
	dict__free(none);
	dict__free(extra);
	return folded;
}

void hist_hold__take(struct hist_hold *hh, const struct pass_table *t, struct hist_rows *h, uint64_t now_ns)
{
	size_t out = 0;

	if (!hh->slots)
		hh->slots = dict__new();
	for (size_t i = 0; i < h->nr; i++) {
		struct hist_row r = h->rows[i];
		int added;
		uint32_t id;

		if (r.tgid) {
			h->rows[out++] = r;
			continue;
		}
		id = merge_slot(hh->slots, r.name, r.what, r.le_us, &added);
		if (added) {
			*dict__value(hh->slots, id) = hh->rows.nr;
			r.name = r.name ? xstrdup(r.name) : NULL;
			*hist_rows__add(&hh->rows) = r;
		} else {
			pass_rows_merge(t, &hh->rows.rows[*dict__value(hh->slots, id)], &r);
		}
		if (!hh->since_ns)
			hh->since_ns = now_ns;
	}
	h->nr = out;
}

int hist_hold__due(const struct hist_hold *hh, uint64_t now_ns)
{
	return hh->since_ns && now_ns - hh->since_ns >= HIST_HOLD_NS;
}

static void hold_clear(struct hist_hold *hh)
{
	for (size_t i = 0; i < hh->rows.nr; i++)
		free((char *)hh->rows.rows[i].name);
	hh->rows.nr = 0;
	hh->since_ns = 0;
	if (hh->slots)
		dict__clear(hh->slots);
}

void hist_hold__release(struct hist_hold *hh, struct hist_rows *h, const char *(*keep)(void *arg, const char *s),
			void *arg)
{
	for (size_t i = 0; i < hh->rows.nr; i++) {
		struct hist_row r = hh->rows.rows[i];

		r.name = r.name ? keep(arg, r.name) : NULL;
		*hist_rows__add(h) = r;
	}
	hold_clear(hh);
}

void hist_hold__free(struct hist_hold *hh)
{
	hold_clear(hh);
	free(hh->rows.rows);
	dict__free(hh->slots);
	memset(hh, 0, sizeof(*hh));
}
