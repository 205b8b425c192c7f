/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the read side asks of a store, whichever it is: a directory of hours
 * (hours_read.c, SQLite over each hour) or the fleet's ClickHouse
 * (ch_read.c).  A reader carries the back end it was opened with; query,
 * --sql, top and report call through it and never ask which store it is.
 * Each operation is named by what it answers; the entry points below and
 * aggregate() and rawsql_run() dispatch to it.
 */
#ifndef TRACT_READ_BACKEND_H
#define TRACT_READ_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "reader.h"

struct agg_query;
struct agg_result;
struct rawsql_request;

/* The buckets of a window, [from_us + b * bucket_us, + bucket_us) for b < nbuckets, none past to_us. */
struct coverage_window {
	uint64_t from_us, to_us, bucket_us;
	size_t nbuckets;
};

/* A line of a report's header: the store's host, kernel..., or the fleet's hosts. */
struct store_fact {
	const char *label;
	char *value;
};

/* What a range's passes recorded and cost, summed over its hours or the fleet, and the store's facts. */
struct pass_totals {
	uint64_t cpu_us, passes, dropped;
	uint64_t bpf_us, bpf_passes, bpf_weight_us;	/* over the passes whose BPF time was measured */
	struct store_fact *facts;
	size_t nfacts;
};

struct read_backend {
	/* The groups of q (aggregate.h): 0, or -errno after a message. */
	int (*aggregate)(const struct store_reader *set, const struct agg_query *q, struct agg_result *r);
	/* The user's SQL (rawsql.h), its answer printed to out: 0, or -errno after a message. */
	int (*run_sql)(const struct store_reader *set, const struct rawsql_request *rq, FILE *out);
	/*
	 * For each bucket of w, the time passes cover ([1]) and the active
	 * threads they saw times that time ([0]), added to sums; 0 or -errno.
	 */
	int (*coverage)(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2]);
	/* The passes in [from_us, to_us) summed, and the store's facts; what cannot be read is left out. */
	void (*pass_totals)(const struct store_reader *set, uint64_t from_us, uint64_t to_us, struct pass_totals *pt);
	/* The newest pass's time, 0 when the store has none; 0 or -errno after a message. */
	int (*newest_us)(const struct store_reader *set, uint64_t *ts_us);
};

extern const struct read_backend read_hours, read_clickhouse;

/* The back end set reads through: the one it was opened with, the hours of its directory by default. */
const struct read_backend *read_backend_of(const struct store_reader *set);

int store_newest_us(const struct store_reader *set, uint64_t *ts_us);
int store_coverage(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2]);
/* pt is zeroed first; pass_totals__free() frees its facts. */
void store_pass_totals(const struct store_reader *set, uint64_t from_us, uint64_t to_us, struct pass_totals *pt);
void pass_totals__add_fact(struct pass_totals *pt, const char *label, const char *value, size_t len);
void pass_totals__free(struct pass_totals *pt);

/*
 * For the back ends: a pass at ts_us stands for the interval before it,
 * [ts_us - weight_us, ts_us]; its part in each bucket of w, and that part
 * times the active threads it saw, are added to sums.
 */
void coverage_add_pass(const struct coverage_window *w, uint64_t ts_us, uint64_t weight_us, double threads,
		       double (*sums)[2]);

#endif
