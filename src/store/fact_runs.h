/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SQLite store's runs of repeated samples (repeats.h): each thread's
 * latest fact in the file, the pass it was written at and the last pass it
 * stands for.  A row marked repeat extends its thread's run when that run
 * reached the pass before; the file says REPEATS_OPEN while a run goes on,
 * and its count when it ends.  Kept in two generations, the committed one
 * and the pass being written, so that a pass that fails leaves them as
 * they were.
 */
#ifndef TRACT_FACT_RUNS_H
#define TRACT_FACT_RUNS_H

#include <stdint.h>
#include "sample.h"

struct fact_runs;

struct fact_runs *fact_runs__new(void);
void fact_runs__free(struct fact_runs *fr);
/* A new file: no runs. */
void fact_runs__forget(struct fact_runs *fr);
/* The pass pass_id is being written: its runs begin empty. */
void fact_runs__begin(struct fact_runs *fr, int64_t pass_id);
/*
 * The fact the row r of the pass goes on (r->repeat, and its thread's run
 * reached the pass before), with *mark_open 1 when the file must be told
 * the run is open; 0 when r must be stored as a fact of its own
 * (fact_runs__stored() then).
 */
int64_t fact_runs__extend(struct fact_runs *fr, const struct sample *r, int *mark_open);
/* r was stored as fact (its rowid); a second row of the same thread in a pass begins no run. */
void fact_runs__stored(struct fact_runs *fr, const struct sample *r, int64_t fact);
/* Each open run the pass did not go on with: end(arg, fact, repeats), stopping at the first error. */
int fact_runs__ended(struct fact_runs *fr, int (*end)(void *arg, int64_t fact, int64_t repeats), void *arg);
/* The pass is stored: its runs are the committed ones. */
void fact_runs__commit(struct fact_runs *fr);

#endif
