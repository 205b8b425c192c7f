/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract ship: the hours of a local store into ClickHouse, as the recorder
 * would have shipped them.  Exactly once, however often it runs and
 * whatever the recorder shipped itself: passes the server has of the host
 * (by their time) are left out, the rest go in batches whose ids follow
 * from the host and the passes, each table counted in the server by that
 * id before it is sent again.  A run that stops half-way is resumed by the
 * next.
 */
#ifndef TRACT_CH_BACKFILL_H
#define TRACT_CH_BACKFILL_H

#include <stdint.h>
#include "ch_http.h"
#include "reader.h"

struct ch_backfill_opts {
	const char *host;		/* the rows' host */
	const char *database;		/* tract */
	uint64_t from_us, to_us;	/* the passes of [from, to) */
	uint64_t batch_rows;		/* a batch is at most this many samples (and at least one pass) */
	int strict;			/* a damaged hour fails, not skipped */
	const volatile int *stop;	/* set: stop between batches (-EINTR); NULL: never */
};

struct ch_backfill_stats {
	uint64_t hours, passes, samples, batches;	/* sent */
	uint64_t present;		/* passes the server had already */
	uint64_t skipped;		/* damaged hours skipped */
};

/* 0, or -errno after a message that says where it stopped. */
int ch_backfill(struct ch_http *h, const struct store_reader *r, const struct ch_backfill_opts *o,
		struct ch_backfill_stats *st);

#endif
