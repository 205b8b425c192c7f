/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Group-by over the store: each file in the time range is grouped by SQLite,
 * and the partial sums are merged here by the groups' values, so a figure
 * over two hours is the sum over both files divided by the time both
 * sampled, not an average of averages.
 */
#ifndef TRACT_AGGREGATE_H
#define TRACT_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include "catalog.h"
#include "reader.h"

#define AGG_MAX_GROUP 8

struct agg_query {
	const struct catalog *cat;
	const char *group;		/* comma-separated column names; "" for the total only */
	/* or, when ncols is set, these columns (made at run time, such as time buckets) */
	const struct catalog_column *cols[AGG_MAX_GROUP];
	size_t ncols;
	const char *filter;		/* -w expression, or NULL */
	uint64_t from_us, to_us;	/* [from, to) */
	int strict;			/* a damaged hour is an error, not skipped */
};

/* One value of a group, as SQLite gave it. */
struct agg_value {
	int type;			/* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
	int64_t i;
	double r;
	const char *text;		/* not NUL-terminated: len bytes */
	size_t len;
};

struct agg_row {
	uint32_t key;			/* id of the group's values */
	uint32_t bucket;		/* with a time column: index + 1 in agg_result.buckets */
	uint64_t measure;		/* summed weight_us (samples) or count (histograms) */
	uint64_t samples;		/* fact rows */
	uint64_t sum;			/* histograms: the latencies summed (catalog.sum) */
};

/* A time bucket of the result: what its passes sampled, and its groups' sum. */
struct agg_bucket {
	int64_t key;			/* the bucket's value of the time column's base */
	uint64_t sampled_us, passes;
	uint64_t total;			/* Σ measure of its rows */
};

struct agg_result {
	const struct catalog *cat;	/* what was grouped: samples or a histogram */
	size_t ncols;
	const struct catalog_column *cols[AGG_MAX_GROUP];
	struct dict *keys;
	struct agg_row *rows;
	size_t nrows, cap;
	uint64_t total;			/* Σ measure over all rows */
	uint64_t sampled_us;		/* Σ weight_us of the passes in range */
	uint64_t unsampled_us;		/* time in range no pass stands for (the recorder was late) */
	uint64_t load;			/* Σ load_rows × weight_us: threads in RUN, RUNQ or DISK; without a filter */
	uint64_t input;			/* Σ input_rows × weight_us: asleep where waits end by input or a timer */
	uint64_t run;			/* Σ run_rows × weight_us: threads on a CPU; without a filter */
	uint64_t run_steal_us;		/* of that, the time the host took from their CPUs (steal) */
	uint64_t steal_us;		/* the time the host took from all CPUs */
	int filtered;
	uint64_t passes, dropped;
	/*
	 * The first column that is a time bucket (-1: none); a row's average
	 * is then over its bucket's sampled time, and rows sort by time.
	 */
	int time_col;
	struct dict *bucket_ids;	/* key -> index + 1 */
	struct agg_bucket *buckets;
	size_t nbuckets, bucket_cap;
	uint64_t first_us, last_us;	/* the passes in range */
	size_t files;			/* store files read */
	size_t skipped;			/* damaged hours skipped, with a warning each */
	unsigned char *key_buf;		/* agg_result__add_row()'s */
	size_t key_cap;
};

/* 0, or -EINVAL after a message (unknown column, bad filter, bad file). */
int aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *out);

/*
 * The steps of aggregate() for its back ends (hours_aggregate.c,
 * ch_aggregate.c): start reads the group columns (0 or -EINVAL after a
 * message); add_row adds a group whose values are the first r->ncols
 * columns of st's row; the passes of a time bucket are added by its key;
 * finish sums the buckets.  A group's key is its values serialized
 * (agg_row_key); add_group adds sums to the group of a key, in bucket
 * (agg_result__bucket_of's, made when first seen; 0: none).
 */
/* A filter's error, with the filter and a caret under the position. */
struct expr_error;
void agg_filter_error(const char *src, const struct expr_error *e);
int agg_result__start(const struct agg_query *q, struct agg_result *r);
void agg_result__add_row(struct agg_result *r, sqlite3_stmt *st, const uint64_t sums[3], int64_t bucket_key);
void agg_result__add_bucket_passes(struct agg_result *r, int64_t key, uint64_t sampled_us, uint64_t passes);
void agg_result__finish(struct agg_result *r);
size_t agg_row_key(sqlite3_stmt *st, size_t ncols, unsigned char **buf, size_t *cap);
uint32_t agg_result__bucket_of(struct agg_result *r, int64_t key);
void agg_result__add_group(struct agg_result *r, const unsigned char *key, size_t len, const uint64_t *sums,
			   uint32_t bucket);
void agg_result__free(struct agg_result *r);
/*
 * Rows by measure, largest first; ties by values so output is stable.  With
 * a time column, by time first.
 */
void agg_result__sort(struct agg_result *r);
/* A row's average active threads: over its time bucket's sampled time, or the range's. */
double agg_result__avg(const struct agg_result *r, const struct agg_row *row);
/* A row's share: of its time bucket's active threads when grouped by time, else of the range's. */
double agg_result__share(const struct agg_result *r, const struct agg_row *row);
/* The row's time bucket, or NULL without a time column. */
const struct agg_bucket *agg_result__bucket(const struct agg_result *r, const struct agg_row *row);
/* Whether a bucket was sampled for less than 90% of its length: at the range's ends, or gaps. */
int agg_result__partial(const struct agg_result *r, const struct agg_bucket *b);
/* Rows by their values, in column order. */
void agg_result__sort_by_values(struct agg_result *r);
/* Decodes a row's values into vals[r->ncols]. */
void agg_result__values(const struct agg_result *r, const struct agg_row *row, struct agg_value *vals);
/* Parses a comma-separated column list; 0, or -EINVAL after a message. */
int agg_parse_group(const struct catalog *cat, const char *list, const struct catalog_column **cols,
		    size_t *n);

#endif
