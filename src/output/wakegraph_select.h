/* SPDX-License-Identifier: GPL-2.0-only */
/* The waker -> wakee edges of a selection of the store, and their layout by Graphviz. */
#ifndef TRACT_WAKEGRAPH_SELECT_H
#define TRACT_WAKEGRAPH_SELECT_H

#include <stddef.h>
#include <stdint.h>
#include "aggregate.h"
#include "reader.h"
#include "wakegraph.h"

struct wake_selection {
	const char *filter;
	uint64_t from_us, to_us;
	int strict;
};

/*
 * The edges, as wakegraph__rank() orders them, into *out (malloc'd; its
 * names point into *r, which the caller frees after it).  0, or -EINVAL
 * after a message.
 */
int wakegraph__select(const struct store_reader *set, const struct wake_selection *sel, struct agg_result *r,
		      struct wake_edge **out, size_t *n);

/*
 * The holder -> waiter edges between threads: the samples with a named
 * holder that match the filter (any samples column), their thread time by
 * holder and waiter, each holder named as its own samples in the range
 * name it ("?" where it has none).  As wakegraph__select(); free the edges
 * with wakegraph__free().
 */
int wakegraph__select_holders(const struct store_reader *set, const struct wake_selection *sel, struct agg_result *r,
			      struct wake_edge **out, size_t *n);

/* Graphviz's dot lays the graph out into an SVG at path; 0, or -errno after a message. */
int wakegraph__write_svg(const char *path, const struct wake_edge *e, size_t n, size_t max_edges, const char *title);

#endif
