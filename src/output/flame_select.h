/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The flame graph of a selection of the store: the samples a filter keeps
 * over a range, grouped by the columns a path is made of, or the on-CPU
 * profile's ticks.  What tract flame draws and tract top writes.
 */
#ifndef TRACT_FLAME_SELECT_H
#define TRACT_FLAME_SELECT_H

#include <stdint.h>
#include "aggregate.h"
#include "flame.h"
#include "reader.h"

struct flame_selection {
	const char *filter;		/* -w, or NULL */
	uint64_t from_us, to_us;
	int strict;
	int profile;			/* the profile's ticks, not the samples */
};

/*
 * *out gets the graph, NULL when nothing is selected; *res the grouped
 * rows it came from (their range and totals), to be freed by the caller
 * either way.  0, or -EINVAL after a message.
 */
int flame__select(const struct store_reader *set, const struct flame_selection *sel, struct flame **out,
		  struct agg_result *res);

/* The graph's subtitle: its range, and its average active threads or its ticks. */
void flame__describe(const struct agg_result *res, int profile, char *buf, size_t len);

#endif
