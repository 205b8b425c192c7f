// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
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

int agg_parse_group(const struct catalog *cat, const char *list, const struct catalog_column **cols,
		    size_t *n)
{
	char *copy = xstrdup(list), *next = copy;
	int err = 0;

	*n = 0;
	/* "" is the total alone; otherwise every name between commas counts */
	if (!list[strspn(list, " \t")]) {
		free(copy);
		return 0;
	}
	while (next && !err) {
		const struct catalog_column *c;
		char *name = next;

		next = strchr(next, ',');
		if (next)
			*next++ = '\0';
		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		if (!*name) {
			tract_err("an empty column name in '%s': columns are names joined by single commas", list);
			err = -EINVAL;
			break;
		}
		c = catalog__find(cat, name);
		if (!c) {
			if (cat == &catalog_samples)
				tract_err("unknown column '%s' to group by; 'tract query --columns' lists them", name);
			else
				tract_err("unknown column '%s' to group --hist %s by; 'tract query --hist %s --columns' "
					  "lists them", name, cat->name, cat->name);
			err = -EINVAL;
		} else if (*n == AGG_MAX_GROUP) {
			tract_err("at most %d columns to group by", AGG_MAX_GROUP);
			err = -EINVAL;
		} else {
			cols[(*n)++] = c;
		}
	}
	free(copy);
	return err;
}

/* The filter's error, with the expression and a caret under the position. */
void agg_filter_error(const char *src, const struct expr_error *e)
{
	tract_err("invalid filter: %s", e->msg);
	fprintf(stderr, "  %s\n  %*s^\n", src, (int)e->pos, "");
}

/* Values of the group columns, serialized: a type byte, then 8 bytes or a length and text. */
static size_t row_key(sqlite3_stmt *st, size_t ncols, unsigned char **buf, size_t *cap)
{
	size_t len = 0;

	/* a key of no columns is empty, but not NULL */
	if (!*buf) {
		*cap = 64;
		*buf = xcalloc(1, *cap);
	}
	for (size_t i = 0; i < ncols; i++) {
		int type = sqlite3_column_type(st, (int)i);
		size_t need = 1 + 8 + (type == SQLITE_TEXT || type == SQLITE_BLOB ?
				       (size_t)sqlite3_column_bytes(st, (int)i) : 0);

		if (len + need > *cap) {
			*cap = (len + need) * 2;
			*buf = xrealloc(*buf, *cap);
		}
		if (type == SQLITE_BLOB)
			type = SQLITE_TEXT;
		(*buf)[len++] = (unsigned char)type;
		if (type == SQLITE_INTEGER) {
			int64_t v = sqlite3_column_int64(st, (int)i);

			memcpy(*buf + len, &v, 8), len += 8;
		} else if (type == SQLITE_FLOAT) {
			double v = sqlite3_column_double(st, (int)i);

			memcpy(*buf + len, &v, 8), len += 8;
		} else if (type == SQLITE_TEXT) {
			/* the blob first, then its size, as SQLite asks; an empty one is NULL */
			const void *text = sqlite3_column_blob(st, (int)i);
			uint64_t n = (uint64_t)sqlite3_column_bytes(st, (int)i);

			memcpy(*buf + len, &n, 8), len += 8;
			if (n)
				memcpy(*buf + len, text, n), len += n;
		}
	}
	return len;
}

void agg_result__values(const struct agg_result *r, const struct agg_row *row, struct agg_value *vals)
{
	const unsigned char *k = dict__key(r->keys, row->key);

	for (size_t i = 0; i < r->ncols; i++) {
		struct agg_value *v = &vals[i];
		uint64_t n;

		memset(v, 0, sizeof(*v));
		v->type = *k++;
		if (v->type == SQLITE_INTEGER) {
			memcpy(&v->i, k, 8), k += 8;
		} else if (v->type == SQLITE_FLOAT) {
			memcpy(&v->r, k, 8), k += 8;
		} else if (v->type == SQLITE_TEXT) {
			memcpy(&n, k, 8), k += 8;
			v->text = (const char *)k;
			v->len = n;
			k += n;
		}
	}
}

static void add_group(struct agg_result *r, const unsigned char *key, size_t len, const uint64_t *sums,
		      uint32_t bucket)
{
	int added;
	uint32_t id = dict__intern(r->keys, key, len, &added);
	uint64_t *index = dict__value(r->keys, id);

	if (added) {
		ARRAY_GROW(r->rows, r->nrows, r->cap, 64);
		*index = r->nrows;
		r->rows[r->nrows++] = (struct agg_row){ .key = id, .bucket = bucket };
	}
	r->rows[*index].measure += sums[0];
	r->rows[*index].samples += sums[1];
	r->rows[*index].sum += sums[2];
	r->total += sums[0];
}

/* The bucket of a time column's value, made when first seen; index + 1. */
static uint32_t bucket_of(struct agg_result *r, int64_t key)
{
	int added;
	uint32_t id = dict__intern(r->bucket_ids, &key, sizeof(key), &added);
	uint64_t *index = dict__value(r->bucket_ids, id);

	if (added) {
		ARRAY_GROW(r->buckets, r->nbuckets, r->bucket_cap, 64);
		r->buckets[r->nbuckets] = (struct agg_bucket){ .key = key };
		*index = ++r->nbuckets;
	}
	return (uint32_t)*index;
}

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
	/* phase 1: the bases and the weight of every fact in range */
	strbuf_add(&sql, "SELECT ");
	for (i = 0; i < pl->nbase; i++)
		strbuf_addf(&sql, "%s, ", pl->base[i]);
	strbuf_addf(&sql, "%s%s%s FROM %s", q->cat->measure, q->cat->sum ? ", " : "", q->cat->sum ? q->cat->sum : "",
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

/* Binds the values serialized in key (as row_key() wrote them) to ?1, ?2, ... */
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
		size_t len = row_key(st, pl->nbase, &key, &key_cap);
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
		uint32_t bucket = r->time_col >= 0 ? bucket_of(r, key_int(bases, pl->base_of[r->time_col])) : 0;

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		bind_key(st, bases, pl->nbase);
		if (sqlite3_step(st) != SQLITE_ROW) {
			tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
			err = -EIO;
			break;
		}
		/* row_key() may move key: take the length first */
		len = row_key(st, r->ncols, &key, &key_cap);
		add_group(r, key, len, part->sums[i], bucket);
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
		uint32_t bucket = row->bucket ? bucket_of(r, h->buckets[row->bucket - 1].key) : 0;
		uint64_t sums[3] = { row->measure, row->samples, row->sum };

		add_group(r, dict__key(h->keys, row->key), dict__key_len(h->keys, row->key), sums, bucket);
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

int aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r)
{
	return read_backend_of(set)->aggregate(set, q, r);
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

int agg_result__start(const struct agg_query *q, struct agg_result *r)
{
	memset(r, 0, sizeof(*r));
	r->cat = q->cat;
	r->filtered = q->filter && *q->filter;
	r->keys = dict__new();
	r->bucket_ids = dict__new();
	r->time_col = -1;
	if (q->ncols) {
		r->ncols = q->ncols;
		memcpy(r->cols, q->cols, q->ncols * sizeof(q->cols[0]));
	} else if (agg_parse_group(q->cat, q->group ? q->group : "", r->cols, &r->ncols)) {
		return -EINVAL;
	}
	for (size_t c = 0; c < r->ncols && r->time_col < 0; c++)
		if (r->cols[c]->bucket_us)
			r->time_col = (int)c;
	return 0;
}

void agg_result__add_row(struct agg_result *r, sqlite3_stmt *st, const uint64_t sums[3], int64_t bucket_key)
{
	uint32_t bucket = r->time_col >= 0 ? bucket_of(r, bucket_key) : 0;
	size_t len = row_key(st, r->ncols, &r->key_buf, &r->key_cap);

	add_group(r, r->key_buf, len, sums, bucket);
}

void agg_result__add_bucket_passes(struct agg_result *r, int64_t key, uint64_t sampled_us, uint64_t passes)
{
	/* bucket_of() may move the buckets: take the index first */
	uint32_t i = bucket_of(r, key);

	r->buckets[i - 1].sampled_us += sampled_us;
	r->buckets[i - 1].passes += passes;
}

void agg_result__finish(struct agg_result *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].bucket)
			r->buckets[r->rows[i].bucket - 1].total += r->rows[i].measure;
}

const struct agg_bucket *agg_result__bucket(const struct agg_result *r, const struct agg_row *row)
{
	return row->bucket ? &r->buckets[row->bucket - 1] : NULL;
}

double agg_result__avg(const struct agg_result *r, const struct agg_row *row)
{
	const struct agg_bucket *b = agg_result__bucket(r, row);
	uint64_t sampled = b ? b->sampled_us : r->sampled_us;

	return sampled ? (double)row->measure / (double)sampled : 0;
}

double agg_result__share(const struct agg_result *r, const struct agg_row *row)
{
	const struct agg_bucket *b = agg_result__bucket(r, row);
	uint64_t total = b ? b->total : r->total;

	return total ? (double)row->measure / (double)total : 0;
}

int agg_result__partial(const struct agg_result *r, const struct agg_bucket *b)
{
	return r->time_col >= 0 && (double)b->sampled_us < 0.9 * (double)r->cols[r->time_col]->bucket_us;
}

static const struct agg_result *sorting;

static int compare_values(const struct agg_value *a, const struct agg_value *b)
{
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->type == SQLITE_INTEGER)
		return a->i < b->i ? -1 : a->i > b->i;
	if (a->type == SQLITE_FLOAT)
		return a->r < b->r ? -1 : a->r > b->r;
	if (a->type == SQLITE_TEXT) {
		int c = memcmp(a->text, b->text, a->len < b->len ? a->len : b->len);

		return c ? c : a->len < b->len ? -1 : a->len > b->len;
	}
	return 0;
}

static int by_values(const void *x, const void *y)
{
	const struct agg_row *a = x, *b = y;
	struct agg_value va[AGG_MAX_GROUP], vb[AGG_MAX_GROUP];

	agg_result__values(sorting, a, va);
	agg_result__values(sorting, b, vb);
	for (size_t i = 0; i < sorting->ncols; i++) {
		int c = compare_values(&va[i], &vb[i]);

		if (c)
			return c;
	}
	return 0;
}

static int by_measure(const void *x, const void *y)
{
	const struct agg_row *a = x, *b = y;

	if (a->bucket != b->bucket) {
		int64_t ka = sorting->buckets[a->bucket - 1].key, kb = sorting->buckets[b->bucket - 1].key;

		return ka < kb ? -1 : ka > kb;
	}
	if (a->measure != b->measure)
		return a->measure > b->measure ? -1 : 1;
	return by_values(x, y);
}

/* Sorts are not reentrant: tract reads one result at a time. */
static void sort_rows(struct agg_result *r, int (*cmp)(const void *, const void *))
{
	sorting = r;
	if (r->nrows > 1)
		qsort(r->rows, r->nrows, sizeof(*r->rows), cmp);
	sorting = NULL;
}

void agg_result__sort(struct agg_result *r)
{
	sort_rows(r, by_measure);
}

void agg_result__sort_by_values(struct agg_result *r)
{
	sort_rows(r, by_values);
}

void agg_result__free(struct agg_result *r)
{
	free(r->key_buf);
	dict__free(r->keys);
	dict__free(r->bucket_ids);
	free(r->buckets);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
