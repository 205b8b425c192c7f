/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Histogram rows and wakeup edges that do not grow with processes that come
 * and go.  The kernel side counts by process; a host that starts a hundred
 * short-lived programs a second would store 30 to 60 rows for each.  At
 * each take, the rows of the processes in a fold set (those that lived their
 * whole life within it), and past a row budget those of the processes with the
 * fewest events, go into one row per command (their name): tgid 0.
 */
#ifndef TRACT_HIST_FOLD_H
#define TRACT_HIST_FOLD_H

#include <stddef.h>
#include "dict.h"
#include "sample.h"

struct pass_table;

/*
 * Folds h's rows of the processes in fold (keys: uint32_t tgids), and past
 * budget rows those of the processes with the fewest counts, merging rows
 * of the same name, what and bucket as rows of t merge (their totals added
 * up: pass_rows_merge()).  The rows folded.
 */
size_t hist_rows__fold(struct hist_rows *h, const struct pass_table *t, const struct dict *fold, size_t budget);
/* The same for the wakeup edges, on either end; irq and timer wakers stay as they are. */
size_t wakeup_rows__fold(struct wakeup_rows *w, const struct dict *fold, size_t budget);

/*
 * The folded rows (tgid 0) of several takes held as one: a command a host
 * runs many times a second makes much the same rows every take, so they
 * are kept up to HIST_HOLD_NS, merged by name, what and bucket, and stored
 * together.  Their names are the hold's own copies.
 */
#define HIST_HOLD_NS (10 * 1000000000ull)

struct hist_hold {
	struct hist_rows rows;
	struct dict *slots;	/* merge key -> row */
	uint64_t since_ns;	/* when the oldest row held came in; 0: none held */
};

/* h's folded rows, rows of t, moved into the hold (h keeps the others, in their order). */
void hist_hold__take(struct hist_hold *hh, const struct pass_table *t, struct hist_rows *h, uint64_t now_ns);
/* Whether the rows held are due to be stored: HIST_HOLD_NS since the oldest came in. */
int hist_hold__due(const struct hist_hold *hh, uint64_t now_ns);
/* The rows held appended to h, each name given to keep (a copy that outlives the hold); the hold emptied. */
void hist_hold__release(struct hist_hold *hh, struct hist_rows *h, const char *(*keep)(void *arg, const char *s),
			void *arg);
void hist_hold__free(struct hist_hold *hh);

#endif
