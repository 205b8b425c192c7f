/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results of a group-by as people and programs read them: an aligned table
 * with average active threads, share and a bar; CSV; JSON.  Shared by
 * tract query and tract top's batch mode.
 */
#ifndef TRACT_RENDER_H
#define TRACT_RENDER_H

#include <stdio.h>
#include "aggregate.h"
#include "format.h"

/* Average active threads of a measure over the sampled time. */
double render_avg(const struct agg_result *r, uint64_t measure);
/*
 * The host's steal over the range, as a phrase ("the host took 15% of the
 * threads' time on a CPU (steal: 0.30 CPUs)") into buf; 0 when it took
 * none worth saying (under 0.5% of that time and 0.005 CPUs).
 */
int render_steal(char *buf, size_t len, const struct agg_result *r);
/*
 * "N of them waiting for input or on a timer" where, without a filter, at
 * least 0.005 threads were (passes.input_rows): 1 if it wrote, else 0.
 */
int render_waiting(char *buf, size_t len, const struct agg_result *r);
/* The time range line: "2026-11-30 13:00:00 .. 13:59:59, 3600 s sampled in 3600 passes" */
void render_range(FILE *f, const struct agg_result *r);
void render_groups(FILE *f, const struct agg_result *r, const struct render_opts *o);
/*
 * Latency histograms: r grouped by its histogram's columns and then le_us,
 * last.  One histogram per value of the other columns, with p50/p95/p99.
 */
void render_hists(FILE *f, const struct agg_result *r, const struct render_opts *o);
/* A bar of width columns for share in [0, 1], eighths of a block wide in UTF-8; returns buf. */
char *render_bar(char *buf, size_t cap, double share, int width, int utf8);
/* A value as text for a table cell: NULL as "-", control characters (C1 ones too) as '?'. */
size_t render_cell(const struct agg_value *v, char *buf, size_t cap);
/* The same, whole however long, in a string the caller frees. */
char *render_cell_whole(const struct agg_value *v);

#endif
