// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "aggregate.h"
#include "dict.h"
#include "expr.h"
#include "read_backend.h"
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
size_t agg_row_key(sqlite3_stmt *st, size_t ncols, unsigned char **buf, size_t *cap)
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

void agg_result__add_group(struct agg_result *r, const unsigned char *key, size_t len, const uint64_t *sums,
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
uint32_t agg_result__bucket_of(struct agg_result *r, int64_t key)
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

int aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r)
{
	return read_backend_of(set)->aggregate(set, q, r);
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
	uint32_t bucket = r->time_col >= 0 ? agg_result__bucket_of(r, bucket_key) : 0;
	size_t len = agg_row_key(st, r->ncols, &r->key_buf, &r->key_cap);

	agg_result__add_group(r, r->key_buf, len, sums, bucket);
}

void agg_result__add_bucket_passes(struct agg_result *r, int64_t key, uint64_t sampled_us, uint64_t passes)
{
	/* agg_result__bucket_of() may move the buckets: take the index first */
	uint32_t i = agg_result__bucket_of(r, key);

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
