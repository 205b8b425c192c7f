/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a query can name: for each fact table of the store (samples and the
 * two latency histograms), its columns, derived dimensions and the SQL each
 * stands for, with the joins that SQL needs.  A query joins only those, so
 * grouping by state over a million samples does not pay for file names.
 */
#ifndef TRACT_CATALOG_H
#define TRACT_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include "expr.h"

struct catalog_column {
	const char *name;
	const char *sql;
	uint32_t joins;		/* bits of catalog->joins this SQL needs */
	const char *doc;
	/*
	 * The fact column the value follows from (f.thread for a thread's
	 * names), or a truncated pass time: queries group by these small
	 * integers and look the values up once per group.  NULL: the value
	 * itself.
	 */
	const char *base;
	/*
	 * A time bucket this long (microseconds), whose value follows from the
	 * pass time: a group's average is over the time sampled in its bucket.
	 * 0: not a time bucket.
	 */
	uint64_t bucket_us;
	const char *type;	/* its SQL type, INTEGER or TEXT...; NULL: text made by a function */
	uint64_t bucket_origin_us;	/* where the buckets start: 0, or a range's start (catalog_time_index()) */
};

struct catalog {
	const char *name;		/* samples, io, syscall */
	const char *from;		/* fact table with alias, joined to passes p */
	const char *measure;		/* what a group sums: weight_us or a count */
	const char *sum;		/* histograms: the latencies summed, for means; NULL if none */
	const char *const *joins;	/* bit i: the JOIN clause it stands for */
	const char *const *join_prepare; /* bit i: SQL a store file runs before a query with that join; NULL: none */
	const struct catalog_column *columns;
	size_t ncolumns;
	const char *default_group;	/* -g when none is given */
	const char *how_recorded;	/* how record keeps these rows, said where there are none; NULL: always kept */
};

extern const struct catalog catalog_samples, catalog_io, catalog_syscall, catalog_runq, catalog_profile,
	catalog_wakeups;

/*
 * The heading a table gives a column: its name, or words where the name
 * would be read the wrong way (waker is who woke the thread last, not who
 * will).  CSV and JSON keep the names.
 */
const char *catalog_heading(const struct catalog_column *c);
/* Whether the column's values are stacks' frames, "outer;...;inner": a cut keeps the inner ones. */
int catalog_is_stack(const struct catalog_column *c);
/*
 * A time bucket made at run time: the index of the bucket_us-long bucket
 * since origin_us that a pass falls in, its SQL written into sql.
 */
void catalog_time_index(struct catalog_column *c, char *sql, size_t size, uint64_t origin_us, uint64_t bucket_us);
/* The column named name (case-insensitive), or NULL. */
const struct catalog_column *catalog__find(const struct catalog *c, const char *name);
/* The column list as the filter compiler takes it; an array of c->ncolumns. */
struct expr_column *catalog__expr_columns(const struct catalog *c);
/* Appends " JOIN ..." for every bit of joins to sql. */
struct strbuf;
void catalog__joins_sql(const struct catalog *c, uint32_t joins, struct strbuf *sql);
/* Appends the SQL a store file runs before a query with these joins (catalog->join_prepare). */
void catalog__prepare_sql(const struct catalog *c, uint32_t joins, struct strbuf *sql);
/* Bits of the joins the columns that a filter uses need (bit i of used: column i). */
uint32_t catalog__joins_of(const struct catalog *c, uint64_t used);

#endif
