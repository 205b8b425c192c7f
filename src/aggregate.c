// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "dict.h"
#include "expr.h"
#include "util.h"

int agg_parse_group(const struct catalog *cat, const char *list, const struct catalog_column **cols,
		    size_t *n)
{
	char *copy = xstrdup(list), *save = NULL;
	int err = 0;

	*n = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !err; name = strtok_r(NULL, ",", &save)) {
		const struct catalog_column *c;

		name += strspn(name, " \t");
		name[strcspn(name, " \t")] = '\0';
		if (!*name)
			continue;
		c = catalog__find(cat, name);
		if (!c) {
			tract_err("unknown column '%s' to group by; 'tract query --columns' lists them", name);
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
static void filter_error(const char *src, const struct expr_error *e)
{
	tract_err("invalid filter: %s", e->msg);
	fprintf(stderr, "  %s\n  %*s^\n", src, (int)e->pos, "");
}

/* Values of the group columns, serialized: a type byte, then 8 bytes or a length and text. */
static size_t row_key(sqlite3_stmt *st, size_t ncols, unsigned char **buf, size_t *cap)
{
	size_t len = 0;

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
			uint64_t n = (uint64_t)sqlite3_column_bytes(st, (int)i);

			memcpy(*buf + len, &n, 8), len += 8;
			memcpy(*buf + len, sqlite3_column_blob(st, (int)i), n), len += n;
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

static void add_group(struct agg_result *r, const unsigned char *key, size_t len, uint64_t measure,
		      uint64_t samples)
{
	int added;
	uint32_t id = dict__intern(r->keys, key, len, &added);
	uint64_t *index = dict__value(r->keys, id);

	if (added) {
		if (r->nrows == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 64;
			r->rows = xrealloc(r->rows, r->cap * sizeof(*r->rows));
		}
		*index = r->nrows;
		r->rows[r->nrows++] = (struct agg_row){ .key = id };
	}
	r->rows[*index].measure += measure;
	r->rows[*index].samples += samples;
	r->total += measure;
}

static int prepare(sqlite3 *db, const char *path, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return -EINVAL;
}

/* The passes of one file in range: the time they sampled. */
static int read_passes(sqlite3 *db, const char *path, const struct agg_query *q, struct agg_result *r)
{
	sqlite3_stmt *st;
	int rc, err = prepare(db, path,
			      "SELECT coalesce(sum(weight_us), 0), count(*), coalesce(sum(dropped), 0), "
			      "min(ts_us), max(ts_us) FROM passes WHERE ts_us >= ?1 AND ts_us < ?2", &st);

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
		if (!r->first_us || first < r->first_us)
			r->first_us = first;
		if (last > r->last_us)
			r->last_us = last;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EINVAL;
	}
	sqlite3_finalize(st);
	return err;
}

static char *group_sql(const struct agg_query *q, const struct agg_result *r, const struct expr_sql *filter)
{
	uint32_t joins = filter ? catalog__joins_of(q->cat, filter->used) : 0;
	size_t cap = 8192, len;
	char *sql = xcalloc(1, cap);

	len = (size_t)snprintf(sql, cap, "SELECT ");
	for (size_t i = 0; i < r->ncols; i++) {
		len += (size_t)snprintf(sql + len, cap - len, "%s, ", r->cols[i]->sql);
		joins |= r->cols[i]->joins;
	}
	len += (size_t)snprintf(sql + len, cap - len, "sum(%s), count(*) FROM %s", q->cat->measure, q->cat->from);
	catalog__joins_sql(q->cat, joins, sql, cap);
	len = strlen(sql);
	len += (size_t)snprintf(sql + len, cap - len, " WHERE p.ts_us >= ?1 AND p.ts_us < ?2");
	if (filter)
		len += (size_t)snprintf(sql + len, cap - len, " AND (%s)", filter->sql);
	for (size_t i = 0; i < r->ncols; i++)
		len += (size_t)snprintf(sql + len, cap - len, "%s%zu", i ? ", " : " GROUP BY ", i + 1);
	return sql;
}

static int group_file(sqlite3 *db, const char *path, const char *sql, const struct agg_query *q,
		      const struct expr_sql *filter, struct agg_result *r)
{
	unsigned char *key = NULL;
	size_t key_cap = 0;
	sqlite3_stmt *st;
	int rc, err = prepare(db, path, sql, &st);

	if (err)
		return err;
	sqlite3_bind_int64(st, 1, (int64_t)q->from_us);
	sqlite3_bind_int64(st, 2, (int64_t)q->to_us);
	if (filter && expr_bind(st, 3, filter) < 0) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -EINVAL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = row_key(st, r->ncols, &key, &key_cap);
		uint64_t samples = (uint64_t)sqlite3_column_int64(st, (int)r->ncols + 1);

		if (samples)
			add_group(r, key, len, (uint64_t)sqlite3_column_int64(st, (int)r->ncols), samples);
	}
	if (rc != SQLITE_DONE) {
		tract_err("cannot read '%s': %s", path, sqlite3_errmsg(db));
		err = -EINVAL;
	}
	free(key);
	sqlite3_finalize(st);
	return err;
}

int aggregate(const struct storeset *set, const struct agg_query *q, struct agg_result *r)
{
	struct expr_sql filter = { 0 };
	struct expr_error ee;
	int has_filter = q->filter && *q->filter, err = 0;
	char *sql;

	memset(r, 0, sizeof(*r));
	r->keys = dict__new();
	if (q->ncols) {
		r->ncols = q->ncols;
		memcpy(r->cols, q->cols, q->ncols * sizeof(q->cols[0]));
	} else if (agg_parse_group(q->cat, q->group ? q->group : "", r->cols, &r->ncols)) {
		return -EINVAL;
	}
	if (has_filter) {
		struct expr_column *cols = catalog__expr_columns(q->cat);

		err = expr_compile(q->filter, cols, q->cat->ncolumns, &filter, &ee);
		free(cols);
		if (err) {
			filter_error(q->filter, &ee);
			return -EINVAL;
		}
	}
	sql = group_sql(q, r, has_filter ? &filter : NULL);
	tract_debug("query: %s", sql);
	for (size_t i = 0; i < set->n && !err; i++) {
		const struct store_file *f = &set->files[i];
		sqlite3 *db;

		if (!storeset__overlaps(f, q->from_us, q->to_us))
			continue;
		err = store_open_readonly(f->path, &db);
		if (err)
			break;
		err = read_passes(db, f->path, q, r) ?:
		      group_file(db, f->path, sql, q, has_filter ? &filter : NULL, r);
		sqlite3_close(db);
		r->files++;
	}
	free(sql);
	expr_sql_free(&filter);
	return err;
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

	if (a->measure != b->measure)
		return a->measure > b->measure ? -1 : 1;
	return by_values(x, y);
}

/* Sorts are not reentrant: tract reads one result at a time. */
static void sort_rows(struct agg_result *r, int (*cmp)(const void *, const void *))
{
	sorting = r;
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
	dict__free(r->keys);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
