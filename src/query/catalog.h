/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a query can name: for each fact table of the store (the samples, and
 * the pass's own tables: pass_catalogs.def), its columns and derived
 * dimensions.  Each is a value over inputs, the same for every store, and
 * the SQL that makes a local store's value, with the joins that SQL needs.
 * A query joins only those, so grouping by state over a million samples
 * does not pay for file names.
 */
#ifndef TRACT_CATALOG_H
#define TRACT_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include "derived.h"
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
	/*
	 * What it is made of in any store: its value over $1, $2, ... (NULL:
	 * the one input as it is) and its inputs by name (catalog__input()),
	 * NULL-ended.  sql is the value over the inputs' local SQL.  A time
	 * bucket has none: it is made of the pass time.
	 */
	const char *value;
	const char *inputs[DERIVED_MAX_INPUTS];
};

/* An input a pass table's catalog makes its columns of, as a local store has it (catalog__input()). */
struct catalog_input {
	const char *name;
	struct derived_input local;
};

struct catalog {
	const char *name;		/* samples, io, syscall */
	const char *table;		/* the table it reads: samples, or one of pass_tables.def's */
	const char *from;		/* fact table with alias, joined to passes p */
	/* inputs by name (catalog__input()): */
	const char *measure;		/* what a group sums: weight_us or a count */
	const char *sum;		/* histograms: the latencies summed, for means; NULL if none */
	const char *const *joins;	/* bit i: the JOIN clause it stands for */
	const char *const *join_prepare; /* bit i: SQL a store file runs before a query with that join; NULL: none */
	const struct catalog_input *inputs;	/* what its inputs are; NULL: the samples' (derived_input()) */
	size_t ninputs;
	const struct catalog_column *columns;
	size_t ncolumns;
	const char *default_group;	/* -g when none is given */
	const char *how_recorded;	/* how record keeps these rows, said where there are none; NULL: always kept */
};

extern const struct catalog catalog_samples;
/* pass_catalogs.def; read-only once main() runs: a constructor makes their columns */
#define PASS_CATALOG(name, ...) extern struct catalog catalog_##name;
#define CATALOG_COLUMN(...)
#define SHARED_COLUMN(...)
#include "pass_catalogs.def"
#undef PASS_CATALOG
#undef CATALOG_COLUMN
#undef SHARED_COLUMN

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
/*
 * An input of the catalog's columns, measure or sum by name: its SQL over
 * the catalog's from and joins, the joins, its base and type.  0, or -1
 * when the catalog has no such input.
 */
int catalog__input(const struct catalog *cat, const char *name, struct derived_input *out);
/*
 * A column made at run time of its value and inputs (c->value, c->inputs):
 * its SQL over the catalog's from into sql, its joins and base.  0, or -1
 * for an input the catalog has not.
 */
int catalog__make_column(const struct catalog *cat, struct catalog_column *c, char *sql, size_t size);
/* The same, its SQL malloc'd in *sql (held by a catalog made at start); 0, or -1 */
int catalog__column_sql(const struct catalog *cat, struct catalog_column *c, char **sql);
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
