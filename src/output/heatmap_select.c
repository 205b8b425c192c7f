// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "aggregate.h"
#include "heatmap_select.h"

const struct heatmap_kind heatmap_kinds[] = {
	[HEAT_SYSCALL] = { "Syscall latency", "syscalls" },
	[HEAT_IO] = { "Block I/O latency", "requests" },
	[HEAT_INFLIGHT] = { "Waits in flight: their age when a pass looked", "waits" },
};

/* The grid: counts by time column and latency bucket. */
static int fill(const struct store_reader *set, const struct heatmap_selection *o, struct heatmap *h)
{
	const struct catalog *cat = o->kind == HEAT_SYSCALL ? &catalog_syscall : o->kind == HEAT_IO ? &catalog_io
											  : &catalog_samples;
	struct catalog_column tcol = { .name = "bucket" }, ecol = { .name = "latency" };
	struct agg_query q = { .cat = cat, .filter = o->filter, .ncols = 2, .from_us = o->from_us, .to_us = o->to_us,
			       .strict = o->strict };
	char tsql[128], esql[1024];
	struct agg_result r;
	struct agg_value v[2];
	int err;

	/* our own numbers, no user text */
	catalog_time_index(&tcol, tsql, sizeof(tsql), h->from_us, h->bucket_us);
	if (o->kind == HEAT_INFLIGHT) {
		/* an age in [2^(e-1), 2^e) µs is bucket e; the block request's if there is one */
		ecol.value = "log2_bucket(max(coalesce($1, $2), 1)) + 1";
		ecol.inputs[0] = "io_us";
		ecol.inputs[1] = "sc_us";
	} else {
		/* completions below le_us = 2^e */
		ecol.value = "log2_bucket($1)";
		ecol.inputs[0] = "le_us";
	}
	if (catalog__make_column(cat, &ecol, esql, sizeof(esql)))
		abort();	/* an input the catalog has not */
	q.cols[0] = &tcol;
	q.cols[1] = &ecol;
	err = aggregate(set, &q, &r);
	if (err)
		return err;
	for (size_t i = 0; i < r.nrows; i++) {
		agg_result__values(&r, &r.rows[i], v);
		if (v[0].type != SQLITE_INTEGER || v[1].type != SQLITE_INTEGER || v[0].i < 0 || v[1].i < 0)
			continue;
		heatmap__add(h, (size_t)v[0].i, (unsigned int)v[1].i,
			     o->kind == HEAT_INFLIGHT ? r.rows[i].samples : r.rows[i].measure);
	}
	agg_result__free(&r);
	return 0;
}

/* The range narrowed to the passes in it: an hour's default must not draw 59 empty minutes. */
static int data_extent(const struct store_reader *set, struct heatmap_selection *o)
{
	struct agg_query q = { .cat = o->kind == HEAT_SYSCALL ? &catalog_syscall : o->kind == HEAT_IO ? &catalog_io
											     : &catalog_samples,
			       .group = "", .filter = o->filter, .from_us = o->from_us, .to_us = o->to_us,
			       .strict = o->strict };
	struct agg_result r;
	int err = aggregate(set, &q, &r);

	if (err)
		return err;
	if (r.passes && r.first_us > o->from_us)
		o->from_us = r.first_us;
	if (r.passes && r.last_us + 1 < o->to_us)
		o->to_us = r.last_us + 1;
	agg_result__free(&r);
	return 0;
}

int heatmap__select(const struct store_reader *set, const struct heatmap_selection *sel, struct heatmap *h)
{
	struct heatmap_selection s = *sel;
	int err = data_extent(set, &s);

	if (err)
		return err;
	heatmap__init(h, s.from_us, s.to_us, 240);
	h->to_us = s.to_us;
	err = fill(set, &s, h);
	if (err)
		heatmap__free(h);
	return err;
}
