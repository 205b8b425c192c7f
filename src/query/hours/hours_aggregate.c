// SPDX-License-Identifier: GPL-2.0-only
/*
 * The group-by over a directory of hours, in SQLite: each hour in range
 * read in two phases (the plan below), its groups merged into the answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "dict.h"
#include "expr.h"
#include "hours_read.h"
#include "progress.h"
#include "sqlfuncs.h"
#include "strbuf.h"
#include "util.h"

/* The expression a time column's buckets follow from. */
static const char *time_key(const struct agg_result *r)
{
	const struct catalog_column *c = r->cols[r->time_col];

	return c->base ? c->base : c->sql;
}

static int prepare(sqlite3 *db, const char *path, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return -EIO;
}

/* With a time column: what the passes of one file sampled in each bucket. */
static int read_bucket_passes(sqlite3 *db, const char *path, const struct agg_query *q, struct agg_result *r)
{
	char sql[512];
	sqlite3_stmt *st;
	int rc, err;

	/* the column's own SQL, from the catalog or made by tract: no user text */
	snprintf(sql, sizeof(sql), "SELECT %s, sum(p.weight_us), count(*) FROM passes p "
		 "WHERE p.ts_us >= ?1 AND p.ts_us < ?2 GROUP BY 1", time_key(r));
	err = prepare(db, path, sql, &st);
	if (err)
		return err;
	sqlite3_bind_int64(st, 1, (int64_t)q->from_us);
	sqlite3_bind_int64(st, 2, (int64_t)q->to_us);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		agg_result__add_bucket_passes(r, sqlite3_column_int64(st, 0), (uint64_t)sqlite3_column_int64(st, 1),
					      (uint64_t)sqlite3_column_int64(st, 2));
	if (rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EIO;
	}
	sqlite3_finalize(st);
	return err;
}

/* The passes of one file in range: the time they sampled. */
static int read_passes(sqlite3 *db, const char *path, const struct agg_query *q, struct agg_result *r)
{
	sqlite3_stmt *st;
	/* an older tract's passes in an upgraded file hold NULL: none changed */
	int rc, err = prepare(db, path,
			      "SELECT coalesce(sum(weight_us), 0), count(*), coalesce(sum(dropped), 0), "
			      "min(ts_us), max(ts_us), coalesce(sum(unsampled_us), 0), "
			      "coalesce(sum(load_rows * weight_us), 0), coalesce(sum(run_rows * weight_us), 0), "
			      "coalesce(sum(run_steal_us), 0), coalesce(sum(steal_us), 0), "
			      "max(coalesce(sum(input_rows * weight_us), 0) + coalesce(sum(input_gained_us), 0) - "
			      "coalesce(sum(input_lost_us), 0), 0) "
			      "FROM passes WHERE ts_us >= ?1 AND ts_us < ?2", &st);

	if (err)
		return err;
	sqlite3_bind_int64(st, 1, (int64_t)q->from_us);
	sqlite3_bind_int64(st, 2, (int64_t)q->to_us);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 1) > 0) {
		uint64_t first = (uint64_t)sqlite3_column_int64(st, 3), last = (uint64_t)sqlite3_column_int64(st, 4);

		r->sampled_us += (uint64_t)sqlite3_column_int64(st, 0);
		r->passes += (uint64_t)sqlite3_column_int64(st, 1);
		r->dropped += (uint64_t)sqlite3_column_int64(st, 2);
		r->unsampled_us += (uint64_t)sqlite3_column_int64(st, 5);
		r->load += (uint64_t)sqlite3_column_int64(st, 6);
		r->run += (uint64_t)sqlite3_column_int64(st, 7);
		r->run_steal_us += (uint64_t)sqlite3_column_int64(st, 8);
		r->steal_us += (uint64_t)sqlite3_column_int64(st, 9);
		r->input += (uint64_t)sqlite3_column_int64(st, 10);
		if (!r->first_us || first < r->first_us)
			r->first_us = first;
		if (last > r->last_us)
			r->last_us = last;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EIO;
	}
	sqlite3_finalize(st);
	if (!err && r->time_col >= 0)
		err = read_bucket_passes(db, path, q, r);
	return err;
}

/*
 * A query runs in two phases.  The first reads every fact in range and sums
 * weights here, in a hash, by the small integers the group's values follow
 * from (a thread id, a call id, a truncated time); SQLite's GROUP BY would
 * sort a million rows instead.  The second looks each distinct key's values
 * up once, through the same joins, on a one-row stand-in for the fact.
 */
struct plan {
	const char *base[AGG_MAX_GROUP];	/* distinct base expressions */
	size_t nbase;
	size_t base_of[AGG_MAX_GROUP];		/* column -> its base */
	char *scan_sql, *lookup_sql;
	char *prepare_sql;		/* what the joins need made in each file first; NULL: nothing */
};

/* Aliases the stand-in row gives the base expressions. */
static const char *const fact_bases[] = { "f.thread", "f.state", "f.call", "f.file", "f.waker", "f.kstack",
					  "f.ustack", "f.trace" };

static int is_fact_base(const char *base)
{
	for (size_t i = 0; i < ARRAY_SIZE(fact_bases); i++)
		if (!strcmp(base, fact_bases[i]))
			return 1;
	return 0;
}

/* The pass time, or a time bucket of it (hour, minute): the stand-in row binds it as p.ts_us. */
static int is_time_base(const char *base)
{
	return !strncmp(base, "p.ts_us", 7);
}

static void make_plan(const struct agg_query *q, const struct agg_result *r, const struct expr_sql *filter,
		      struct plan *pl)
{
	uint32_t scan_joins = filter ? catalog__joins_of(q->cat, filter->used) : 0, lookup_joins = 0;
	struct strbuf sql = { 0 }, look = { 0 };
	struct derived_input measure, sum = { 0 };
	size_t i, time_base = (size_t)-1;

	memset(pl, 0, sizeof(*pl));
	for (size_t c = 0; c < r->ncols; c++) {
		const char *base = r->cols[c]->base ? r->cols[c]->base : r->cols[c]->sql;

		for (i = 0; i < pl->nbase && strcmp(pl->base[i], base); i++)
			;
		if (i == pl->nbase)
			pl->base[pl->nbase++] = base;
		pl->base_of[c] = i;
		if (r->cols[c]->base)
			lookup_joins |= r->cols[c]->joins;
		else
			scan_joins |= r->cols[c]->joins;
	}
	/* phase 1: the bases and the weight of every fact in range (and the sum), with the joins they need */
	strbuf_add(&sql, "SELECT ");
	for (i = 0; i < pl->nbase; i++)
		strbuf_addf(&sql, "%s, ", pl->base[i]);
	if (catalog__input(q->cat, q->cat->measure, &measure) || (q->cat->sum && catalog__input(q->cat, q->cat->sum, &sum)))
		abort();	/* a catalog that sums no input of its own */
	scan_joins |= measure.joins | sum.joins;
	strbuf_addf(&sql, "%s%s%s FROM %s", measure.sql, q->cat->sum ? ", " : "", q->cat->sum ? sum.sql : "",
		    q->cat->from);
	catalog__joins_sql(q->cat, scan_joins, &sql);
	strbuf_add(&sql, " WHERE p.ts_us >= ?1 AND p.ts_us < ?2");
	if (filter)
		strbuf_addf(&sql, " AND (%s)", filter->sql);
	pl->scan_sql = strbuf_take(&sql);

	/* phase 2: the values, from a stand-in row holding one key's bases */
	strbuf_add(&look, "SELECT ");
	for (size_t c = 0; c < r->ncols; c++) {
		size_t b = pl->base_of[c];
		char param[24];

		snprintf(param, sizeof(param), "?%zu", b + 1);
		strbuf_add(&look, c ? ", " : "");
		if (r->cols[c]->base && is_time_base(pl->base[b]))
			/* a time bucket's label, of its own bucket's start: another bucket may be p.ts_us */
			strbuf_add_replaced(&look, r->cols[c]->sql, "p.ts_us", param);
		else if (r->cols[c]->base)
			strbuf_add(&look, r->cols[c]->sql);
		else
			/* a column that is a base itself: the key's value as it is */
			strbuf_add(&look, param);
	}
	if (!r->ncols)
		strbuf_add(&look, "1");
	strbuf_add(&look, " FROM (SELECT 0 AS zero");
	for (i = 0; i < pl->nbase; i++) {
		if (is_fact_base(pl->base[i]))
			strbuf_addf(&look, ", ?%zu AS %s", i + 1, pl->base[i] + 2);
		else if (is_time_base(pl->base[i]))
			time_base = i;
		else
			strbuf_addf(&look, ", ?%zu AS b%zu", i + 1, i);
	}
	strbuf_addf(&look, ") f, (SELECT ?%zu AS ts_us) p", time_base != (size_t)-1 ? time_base + 1 : 99);
	catalog__joins_sql(q->cat, lookup_joins, &look);
	pl->lookup_sql = strbuf_take(&look);
	catalog__prepare_sql(q->cat, scan_joins | lookup_joins, &look);
	pl->prepare_sql = look.len ? strbuf_take(&look) : NULL;
}

static void free_plan(struct plan *pl)
{
	free(pl->scan_sql);
	free(pl->lookup_sql);
	free(pl->prepare_sql);
}

/* The index-th value of a serialized key, as an integer (0 if it is not one). */
static int64_t key_int(const unsigned char *k, size_t index)
{
	int64_t v = 0;
	uint64_t len;

	for (size_t i = 0;; i++) {
		int type = *k++;

		if (i == index) {
			if (type == SQLITE_INTEGER)
				memcpy(&v, k, 8);
			return v;
		}
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
			k += 8;
		} else if (type == SQLITE_TEXT) {
			memcpy(&len, k, 8);
			k += 8 + len;
		}
	}
}

/* Binds the values serialized in key (as agg_row_key() wrote them) to ?1, ?2, ... */
static void bind_key(sqlite3_stmt *st, const unsigned char *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int type = *k++;
		uint64_t len;
		int64_t v;
		double d;

		if (type == SQLITE_INTEGER) {
			memcpy(&v, k, 8), k += 8;
			sqlite3_bind_int64(st, (int)i + 1, v);
		} else if (type == SQLITE_FLOAT) {
			memcpy(&d, k, 8), k += 8;
			sqlite3_bind_double(st, (int)i + 1, d);
		} else if (type == SQLITE_TEXT) {
			memcpy(&len, k, 8), k += 8;
			sqlite3_bind_text(st, (int)i + 1, (const char *)k, (int)len, SQLITE_TRANSIENT);
			k += len;
		} else {
			sqlite3_bind_null(st, (int)i + 1);
		}
	}
}

struct partial {
	struct dict *keys;		/* base values -> index in sums */
	uint64_t (*sums)[3];		/* measure, samples, latencies summed */
	size_t n, cap;
};

static int scan(sqlite3 *db, const char *path, const struct plan *pl, const struct agg_query *q,
		const struct expr_sql *filter, struct partial *part)
{
	unsigned char *key = NULL;
	size_t key_cap = 0;
	sqlite3_stmt *st;
	int rc, err = prepare(db, path, pl->scan_sql, &st);

	if (err)
		return err;
	sqlite3_bind_int64(st, 1, (int64_t)q->from_us);
	sqlite3_bind_int64(st, 2, (int64_t)q->to_us);
	if (filter && expr_bind(st, 3, filter) < 0) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -EIO;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = agg_row_key(st, pl->nbase, &key, &key_cap);
		int added;
		uint32_t id = dict__intern(part->keys, key, len, &added);

		if (added) {
			ARRAY_GROW(part->sums, part->n, part->cap, 256);
			part->sums[part->n][0] = part->sums[part->n][1] = part->sums[part->n][2] = 0;
			part->n++;
		}
		part->sums[id - 1][0] += (uint64_t)sqlite3_column_int64(st, (int)pl->nbase);
		part->sums[id - 1][1]++;
		if (q->cat->sum)
			part->sums[id - 1][2] += (uint64_t)sqlite3_column_int64(st, (int)pl->nbase + 1);
	}
	if (rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EIO;
	}
	free(key);
	sqlite3_finalize(st);
	return err;
}

static int lookup(sqlite3 *db, const char *path, const struct plan *pl, const struct partial *part,
		  struct agg_result *r)
{
	unsigned char *key = NULL;
	size_t key_cap = 0, len;
	sqlite3_stmt *st;
	int err = prepare(db, path, pl->lookup_sql, &st);

	for (size_t i = 0; !err && i < part->n; i++) {
		const unsigned char *bases = dict__key(part->keys, (uint32_t)i + 1);
		uint32_t bucket = r->time_col >= 0 ? agg_result__bucket_of(r, key_int(bases, pl->base_of[r->time_col])) : 0;

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		bind_key(st, bases, pl->nbase);
		if (sqlite3_step(st) != SQLITE_ROW) {
			tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
			err = -EIO;
			break;
		}
		/* agg_row_key() may move key: take the length first */
		len = agg_row_key(st, r->ncols, &key, &key_cap);
		agg_result__add_group(r, key, len, part->sums[i], bucket);
	}
	free(key);
	sqlite3_finalize(st);
	return err;
}

static int group_file(sqlite3 *db, const char *path, const struct plan *pl, const struct agg_query *q,
		      const struct expr_sql *filter, struct agg_result *r)
{
	struct partial part = { .keys = dict__new() };
	int err = 0;

	if (pl->prepare_sql && sqlite3_exec(db, pl->prepare_sql, NULL, NULL, NULL) != SQLITE_OK) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EIO;
	}
	if (!err)
		err = scan(db, path, pl, q, filter, &part);

	if (!err)
		err = lookup(db, path, pl, &part, r);
	dict__free(part.keys);
	free(part.sums);
	return err;
}

/* Adds one hour's result to the whole: its groups by their values, its buckets by their keys. */
static void merge_hour(struct agg_result *r, const struct agg_result *h)
{
	for (size_t i = 0; i < h->nbuckets; i++)
		agg_result__add_bucket_passes(r, h->buckets[i].key, h->buckets[i].sampled_us, h->buckets[i].passes);
	for (size_t i = 0; i < h->nrows; i++) {
		const struct agg_row *row = &h->rows[i];
		uint32_t bucket = row->bucket ? agg_result__bucket_of(r, h->buckets[row->bucket - 1].key) : 0;
		uint64_t sums[3] = { row->measure, row->samples, row->sum };

		agg_result__add_group(r, dict__key(h->keys, row->key), dict__key_len(h->keys, row->key), sums, bucket);
	}
	r->sampled_us += h->sampled_us;
	r->unsampled_us += h->unsampled_us;
	r->load += h->load;
	r->input += h->input;
	r->run += h->run;
	r->run_steal_us += h->run_steal_us;
	r->steal_us += h->steal_us;
	r->passes += h->passes;
	r->dropped += h->dropped;
	if (h->passes && (!r->first_us || h->first_us < r->first_us))
		r->first_us = h->first_us;
	if (h->last_us > r->last_us)
		r->last_us = h->last_us;
}

/*
 * Reads hour i whole into its own result before any of it counts, so that
 * one damaged mid-read (SQLite finds it only on the pages it reaches) is
 * skipped whole: 0, 1 when skipped after a warning, or an error.
 */
static int read_hour(const struct store_reader *set, size_t i, const struct plan *pl, const struct agg_query *q,
		     const struct expr_sql *filter, struct agg_result *r)
{
	struct agg_result hour;
	char *name;
	sqlite3 *db;
	int err = store_reader__open_or_skip(set, i, q->strict, &db);

	if (err)
		return err;
	if (sqlfuncs_register(db)) {
		sqlite3_close(db);
		return -ENOMEM;
	}
	agg_result__start(q, &hour);
	name = store_reader__hour_name(set, i);
	tract_clear_error();
	tract_hold_errors(1);
	err = read_passes(db, name, q, &hour) ?: group_file(db, name, pl, q, filter, &hour);
	tract_hold_errors(0);
	if (!err)
		merge_hour(r, &hour);
	err = store_reader__skip_damaged(err, q->strict);
	agg_result__free(&hour);
	free(name);
	sqlite3_close(db);
	return err;
}

int hours_aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r)
{
	struct expr_sql filter = { 0 };
	struct expr_error ee;
	struct plan plan;
	int has_filter = q->filter && *q->filter;
	size_t hours = 0, done = 0;
	int err = 0;

	if (agg_result__start(q, r))
		return -EINVAL;
	if (has_filter) {
		struct expr_column *cols = catalog__expr_columns(q->cat);

		err = expr_compile(q->filter, cols, q->cat->ncolumns, &filter, &ee);
		free(cols);
		if (err) {
			agg_filter_error(q->filter, &ee);
			return -EINVAL;
		}
	}
	make_plan(q, r, has_filter ? &filter : NULL, &plan);
	tract_debug("scan: %s", plan.scan_sql);
	tract_debug("lookup: %s", plan.lookup_sql);
	for (size_t i = 0; i < set->n; i++)
		hours += store_hour_overlaps(set->hours[i].hour_us, q->from_us, q->to_us);
	for (size_t i = 0; i < set->n && !err; i++) {
		if (!store_hour_overlaps(set->hours[i].hour_us, q->from_us, q->to_us))
			continue;
		progress_hours(done++, hours);
		err = read_hour(set, i, &plan, q, has_filter ? &filter : NULL, r);
		if (err > 0)
			r->skipped++;
		else if (!err)
			r->files++;
		err = err > 0 ? 0 : err;
	}
	if (!err && !r->files && r->skipped) {
		tract_err("no hour of the range could be read");
		err = -EIO;
	}
	free_plan(&plan);
	expr_sql_free(&filter);
	agg_result__finish(r);
	return err;
}
