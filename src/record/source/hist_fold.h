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

/*
 * Folds h's rows of the processes in fold (keys: uint32_t tgids), and past
 * budget rows those of the processes with the fewest counts, merging rows
 * of the same name, what and bucket.  The rows folded.
 */
size_t hist_rows__fold(struct hist_rows *h, const struct dict *fold, size_t budget);
/* The same for the wakeup edges, on either end; irq and timer wakers stay as they are. */
size_t wakeup_rows__fold(struct wakeup_rows *w, const struct dict *fold, size_t budget);

#endif
