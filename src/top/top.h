/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract top's model, apart from the screen: the window of time, the
 * drill-down stack of group-bys and filters, and one refresh of the rows
 * and the timeline.  The ncurses screen (top_screen.c) and batch mode both
 * read it.
 */
#ifndef TRACT_TOP_H
#define TRACT_TOP_H

#include <stddef.h>
#include <stdint.h>
#include "aggregate.h"
#include "read_opts.h"
#include "render.h"

#define TOP_DEPTH_MAX 16
#define TOP_TIMELINE_MAX 512
/* A timeline bucket no pass stands for: the recorder was not running, or late. */
#define TOP_NOT_SAMPLED (-1.0)

struct top_level {
	char *group;		/* comma-separated columns */
	char *filter;		/* NULL: none */
	size_t selected;
};

struct top {
	struct query_opts q;		/* store, and the range given */
	struct top_level levels[TOP_DEPTH_MAX];
	int depth;			/* levels[depth] is shown */
	int follow;			/* the window ends at the newest sample */
	int by_values;			/* sort rows by their values, not by size */
	uint64_t span_us, end_us;	/* the window: [end - span, end) */
	const char *mode;		/* "live", "following DIR", "history" */
	struct agg_result res;		/* rows of the last refresh */
	int have_res;
	double timeline[TOP_TIMELINE_MAX];	/* average active threads per bucket */
	size_t ntimeline;
	char message[600];		/* the last error or notice */
};

/*
 * What top groups the samples by when not told: what the active threads
 * wait for (activity: cpu, blocked, input, ...) first, then by program.
 */
#define TOP_DEFAULT_GROUP "activity,pcomm"
void top__init(struct top *t, const struct query_opts *q, const char *mode, uint64_t span_us, int follow);
void top__free(struct top *t);
/* Reads the window again; 0, or negative errno with t->message saying why. */
int top__refresh(struct top *t, size_t timeline_width);
struct top_level *top__level(struct top *t);
/*
 * Drills into the selected row: its values become filter terms of a new
 * level, grouped the next useful way (top__next_group()).
 */
int top__drill(struct top *t);
/* After group, the grouping a drill goes to: processes, threads (comm,title,state,syscall), wait, kstack. */
const char *top__next_group(const char *group);
/* Back to the previous level; 0 when already at the first. */
int top__back(struct top *t);
/* Regroup or refilter the current level; 0, or -EINVAL with t->message set. */
int top__set_group(struct top *t, const char *group);
int top__set_filter(struct top *t, const char *filter);
/*
 * The process title into the current level's group (after pcomm or comm,
 * else first), or out of it when it is in; as top__set_group().
 */
int top__toggle_title(struct top *t);
/* Zoom: factor 0.5 narrows the window, 2 widens it, around its end. */
void top__zoom(struct top *t, double factor);
/* Pan by a fraction of the span (negative: back in time); following stops. */
void top__pan(struct top *t, double fraction);
/* The timeline's highest bucket, and one bucket's glyph (a block, or ASCII). */
double top__timeline_max(const struct top *t);
const char *top__spark(double v, double max, int utf8, char glyph[8]);
/* "(a) and b", or b alone when a is NULL or empty; malloc'd. */
char *top__and_filters(const char *a, const char *b);
/* The filter that selects the selected row, in the filter language; malloc'd. */
char *top__row_filter(const struct top *t);
/*
 * The selected row's values of the columns names[] as a filter over other
 * columns, as[] ("pcomm = \"x\" and dev = \"vda\""); "" when the grouping has none.
 */
char *top__row_terms(const struct top *t, const char *const *names, const char *const *as, size_t n);

#endif
