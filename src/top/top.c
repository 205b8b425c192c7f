// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "clock.h"
#include "read_backend.h"
#include "strbuf.h"
#include "top.h"
#include "util.h"

#define SPAN_MIN_US (10 * 1000000ull)
#define SPAN_MAX_US (7 * 24 * USEC_PER_HOUR)

void top__init(struct top *t, const struct query_opts *q, const char *mode, uint64_t span_us, int follow)
{
	memset(t, 0, sizeof(*t));
	t->q = *q;
	t->mode = mode;
	t->span_us = span_us;
	t->follow = follow;
	t->end_us = q->to_us;
	t->levels[0].group = xstrdup(q->group ? q->group : q->cat == &catalog_samples ? TOP_DEFAULT_GROUP :
							  q->cat->default_group);
	t->levels[0].filter = q->filter && *q->filter ? xstrdup(q->filter) : NULL;
}

void top__free(struct top *t)
{
	for (int i = 0; i <= t->depth; i++) {
		free(t->levels[i].group);
		free(t->levels[i].filter);
	}
	if (t->have_res)
		agg_result__free(&t->res);
	memset(t, 0, sizeof(*t));
}

struct top_level *top__level(struct top *t)
{
	return &t->levels[t->depth];
}

/* The window's end: the newest sample when following. */
static int window_end(struct top *t, const struct store_reader *set)
{
	uint64_t newest;
	int err;

	if (!t->follow)
		return 0;
	err = store_newest_us(set, &newest);
	if (err)
		return err;
	t->end_us = newest ? newest + 1 : t->q.now_us;
	return 0;
}

/*
 * With a filter, from the facts: a bucket's average is over the time its
 * passes sampled, and a bucket no pass falls in but that one covers has
 * that pass's figure, the next bucket's.
 */
static int timeline_of_filter(struct top *t, const struct store_reader *set, uint64_t from, uint64_t bucket,
			      const double (*sums)[2])
{
	struct catalog_column col = { .name = "bucket" };
	struct agg_query q = { .cat = t->q.cat, .filter = top__level(t)->filter, .ncols = 1, .strict = t->q.strict,
			       .from_us = from, .to_us = t->end_us };
	int has[TOP_TIMELINE_MAX] = { 0 };
	struct agg_result r;
	struct agg_value v;
	char sql[96];
	int err;

	catalog_time_index(&col, sql, sizeof(sql), from, bucket);
	q.cols[0] = &col;
	err = aggregate(set, &q, &r);
	for (size_t i = 0; !err && i < r.nbuckets; i++)
		if (r.buckets[i].key >= 0 && (size_t)r.buckets[i].key < t->ntimeline) {
			t->timeline[r.buckets[i].key] = 0;
			has[r.buckets[i].key] = 1;
		}
	for (size_t i = 0; !err && i < r.nrows; i++) {
		agg_result__values(&r, &r.rows[i], &v);
		if (v.type == SQLITE_INTEGER && v.i >= 0 && (size_t)v.i < t->ntimeline)
			t->timeline[v.i] = agg_result__avg(&r, &r.rows[i]);
	}
	agg_result__free(&r);
	for (size_t b = t->ntimeline; b-- > 0;)
		if (!has[b] && sums[b][1] > 0 && b + 1 < t->ntimeline)
			t->timeline[b] = t->timeline[b + 1];
	return err;
}

/* Average active threads per bucket of the window, for the sparkline. */
static int read_timeline(struct top *t, const struct store_reader *set, size_t width)
{
	static double sums[TOP_TIMELINE_MAX][2];
	uint64_t from = t->end_us - t->span_us, bucket;
	int err;

	if (width > TOP_TIMELINE_MAX)
		width = TOP_TIMELINE_MAX;
	t->ntimeline = width;
	if (!width)
		return 0;
	bucket = t->span_us / width ? t->span_us / width : 1;
	memset(sums, 0, sizeof(sums));
	for (size_t b = 0; b < width; b++)
		t->timeline[b] = TOP_NOT_SAMPLED;
	/* a pass stands for the interval before it: what no pass stands for (the recorder stopped or late) is a gap */
	err = store_coverage(set, &(struct coverage_window){ .from_us = from, .to_us = t->end_us, .bucket_us = bucket,
							     .nbuckets = width }, sums);
	if (!err && top__level(t)->filter)
		return timeline_of_filter(t, set, from, bucket, (const double (*)[2])sums);
	/* without a filter, the passes table alone tells: rows over time */
	for (size_t b = 0; !err && b < width; b++)
		if (sums[b][1] > 0)
			t->timeline[b] = sums[b][0] / sums[b][1];
	return err;
}

int top__refresh(struct top *t, size_t timeline_width)
{
	struct top_level *l = top__level(t);
	struct agg_query q = { .cat = t->q.cat, .group = l->group, .filter = l->filter, .strict = t->q.strict };
	struct store_reader set;
	int err;

	t->q.now_us = realtime_us();
	tract_clear_error();
	/* new hourly files appear while following */
	err = query_open_store(&t->q, &set);
	if (err) {
		snprintf(t->message, sizeof(t->message), "%s", tract_last_error());
		return err;
	}
	err = window_end(t, &set);
	if (t->end_us < t->span_us)
		t->end_us = t->span_us;
	q.from_us = t->end_us - t->span_us;
	q.to_us = t->end_us;
	if (t->have_res)
		agg_result__free(&t->res);
	t->have_res = 0;
	if (!err)
		err = aggregate(&set, &q, &t->res);
	if (!err) {
		t->have_res = 1;
		if (t->by_values)
			agg_result__sort_by_values(&t->res);
		else
			agg_result__sort(&t->res);
		if (l->selected >= t->res.nrows)
			l->selected = t->res.nrows ? t->res.nrows - 1 : 0;
		err = read_timeline(t, &set, timeline_width);
	}
	/* the message of this refresh's own error, never an older one */
	if (err)
		snprintf(t->message, sizeof(t->message), "%s",
			 *tract_last_error() ? tract_last_error() : "cannot read the store");
	store_reader__free(&set);
	return err;
}

/* Appends the filter-language literal of v to buf. */
static void put_literal(char **buf, size_t *len, size_t *cap, const struct agg_value *v)
{
	size_t need = 64 + 2 * v->len;

	if (*len + need > *cap) {
		*cap = (*len + need) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	if (v->type == SQLITE_INTEGER) {
		*len += (size_t)snprintf(*buf + *len, *cap - *len, "%" PRId64, v->i);
	} else if (v->type == SQLITE_FLOAT) {
		*len += (size_t)snprintf(*buf + *len, *cap - *len, "%.17g", v->r);
	} else {
		(*buf)[(*len)++] = '"';
		for (size_t i = 0; i < v->len; i++) {
			if (v->text[i] == '"' || v->text[i] == '\\')
				(*buf)[(*len)++] = '\\';
			(*buf)[(*len)++] = v->text[i];
		}
		(*buf)[(*len)++] = '"';
		(*buf)[*len] = '\0';
	}
}

char *top__row_filter(const struct top *t)
{
	const struct top_level *l = &t->levels[t->depth];
	struct agg_value vals[AGG_MAX_GROUP];
	size_t cap = 256, len = 0;
	char *buf = xcalloc(1, cap);

	if (!t->have_res || l->selected >= t->res.nrows) {
		free(buf);
		return NULL;
	}
	agg_result__values(&t->res, &t->res.rows[l->selected], vals);
	for (size_t c = 0; c < t->res.ncols; c++) {
		const char *name = t->res.cols[c]->name;

		if (len + strlen(name) + 16 > cap) {
			cap = (len + strlen(name) + 16) * 2;
			buf = xrealloc(buf, cap);
		}
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", c ? " and " : "", name);
		if (vals[c].type == SQLITE_NULL) {
			len += (size_t)snprintf(buf + len, cap - len, " is null");
		} else {
			len += (size_t)snprintf(buf + len, cap - len, " = ");
			put_literal(&buf, &len, &cap, &vals[c]);
		}
	}
	return buf;
}

char *top__row_terms(const struct top *t, const char *const *names, const char *const *as, size_t n)
{
	const struct top_level *l = &t->levels[t->depth];
	struct agg_value vals[AGG_MAX_GROUP];
	size_t cap = 256, len = 0;
	char *buf = xcalloc(1, cap);

	if (!t->have_res || l->selected >= t->res.nrows)
		return buf;
	agg_result__values(&t->res, &t->res.rows[l->selected], vals);
	for (size_t c = 0; c < t->res.ncols; c++)
		for (size_t k = 0; k < n; k++) {
			if (strcmp(t->res.cols[c]->name, names[k]) || vals[c].type == SQLITE_NULL)
				continue;
			if (len + strlen(as[k]) + 16 > cap) {
				cap = (len + strlen(as[k]) + 16) * 2;
				buf = xrealloc(buf, cap);
			}
			len += (size_t)snprintf(buf + len, cap - len, "%s%s = ", len ? " and " : "", as[k]);
			put_literal(&buf, &len, &cap, &vals[c]);
		}
	return buf;
}

char *top__and_filters(const char *a, const char *b)
{
	size_t len;
	char *out;

	if (!a || !*a)
		return xstrdup(b);
	len = strlen(a) + strlen(b) + 16;
	out = xcalloc(1, len);
	snprintf(out, len, "(%s) and %s", a, b);
	return out;
}

/* Whether a comma-separated group names col. */
static int groups_by(const char *group, const char *col)
{
	size_t n = strlen(col);

	for (const char *g = group; (g = strstr(g, col)); g += n)
		if ((g == group || g[-1] == ',') && (g[n] == ',' || !g[n]))
			return 1;
	return 0;
}

const char *top__next_group(const char *group)
{
	/* processes, then their threads, then where they wait, then how they got there */
	if (groups_by(group, "kstack") || groups_by(group, "ustack"))
		return group;
	if (groups_by(group, "wait"))
		return "kstack";
	if (groups_by(group, "comm") || groups_by(group, "tid"))
		return "wait";
	/* a server's processes share a name and its threads a title: together they tell them apart */
	return "comm,title,state,syscall";
}

int top__toggle_title(struct top *t)
{
	const char *group = top__level(t)->group;
	size_t cap = strlen(group) + sizeof(",title"), len = 0, after = 0;
	char *copy = xstrdup(group), *out = xcalloc(1, cap), *save = NULL;
	int in = groups_by(group, "title"), err;

	/* in: after the process's or the thread's name, where it says more of it; else first */
	for (char *col = strtok_r(copy, ",", &save); col && !in; col = strtok_r(NULL, ",", &save))
		if (!strcmp(col, "pcomm") || (!strcmp(col, "comm") && !groups_by(group, "pcomm")))
			after = (size_t)(col - copy) + strlen(col);
	free(copy);
	copy = xstrdup(group);
	save = NULL;
	if (!in && !after)
		len += (size_t)snprintf(out + len, cap - len, "title");
	for (char *col = strtok_r(copy, ",", &save); col; col = strtok_r(NULL, ",", &save)) {
		if (in && !strcmp(col, "title"))
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "," : "", col);
		if (!in && after == (size_t)(col - copy) + strlen(col))
			len += (size_t)snprintf(out + len, cap - len, ",title");
	}
	free(copy);
	err = top__set_group(t, *out ? out : "pcomm");
	free(out);
	return err;
}

int top__drill(struct top *t)
{
	struct top_level *l = top__level(t);
	char *terms;

	if (t->depth + 1 >= TOP_DEPTH_MAX) {
		snprintf(t->message, sizeof(t->message), "drilled in too deep; Backspace goes back");
		return -EINVAL;
	}
	terms = top__row_filter(t);
	if (!terms)
		return -EINVAL;
	t->depth++;
	t->levels[t->depth] = (struct top_level){
		.group = xstrdup(top__next_group(l->group)),
		.filter = top__and_filters(l->filter, terms),
	};
	free(terms);
	/* one row drilled into is one row: look at it from the next angle, and say so */
	if (strcmp(t->levels[t->depth].group, l->group))
		snprintf(t->message, sizeof(t->message), "grouped by %s now; g groups otherwise, Backspace goes back",
			 t->levels[t->depth].group);
	return 0;
}

int top__back(struct top *t)
{
	if (!t->depth)
		return 0;
	free(t->levels[t->depth].group);
	free(t->levels[t->depth].filter);
	t->depth--;
	return 1;
}

int top__set_group(struct top *t, const char *group)
{
	const struct catalog_column *cols[AGG_MAX_GROUP];
	size_t n;
	struct top_level *l = top__level(t);

	if (!group[strspn(group, " \t")]) {
		snprintf(t->message, sizeof(t->message), "group by what? one or more columns, such as comm,state");
		return -EINVAL;
	}
	/* the checker prints to stderr, which the screen hides: say it here too */
	if (agg_parse_group(t->q.cat, group, cols, &n)) {
		snprintf(t->message, sizeof(t->message), "cannot group by '%s'; the columns are listed by ?",
			 group);
		return -EINVAL;
	}
	free(l->group);
	l->group = xstrdup(group);
	l->selected = 0;
	return 0;
}

int top__set_filter(struct top *t, const char *filter)
{
	struct expr_column *cols = catalog__expr_columns(t->q.cat);
	struct expr_sql sql = { 0 };
	struct expr_error e = { 0 };
	struct top_level *l = top__level(t);
	int err = 0;

	if (*filter) {
		err = expr_compile(filter, cols, t->q.cat->ncolumns, &sql, &e);
		expr_sql_free(&sql);
	}
	free(cols);
	if (err) {
		snprintf(t->message, sizeof(t->message), "filter: %s", e.msg);
		return -EINVAL;
	}
	free(l->filter);
	l->filter = *filter ? xstrdup(filter) : NULL;
	l->selected = 0;
	return 0;
}

void top__zoom(struct top *t, double factor)
{
	double span = (double)t->span_us * factor;

	if (span < (double)SPAN_MIN_US)
		span = (double)SPAN_MIN_US;
	if (span > (double)SPAN_MAX_US)
		span = (double)SPAN_MAX_US;
	t->span_us = (uint64_t)span;
}

void top__pan(struct top *t, double fraction)
{
	double end = (double)t->end_us + fraction * (double)t->span_us;

	t->follow = 0;
	if (end < (double)t->span_us)
		end = (double)t->span_us;
	t->end_us = (uint64_t)end;
}

double top__timeline_max(const struct top *t)
{
	double max = 0;

	for (size_t i = 0; i < t->ntimeline; i++)
		if (t->timeline[i] > max)
			max = t->timeline[i];
	return max;
}

const char *top__spark(double v, double max, int utf8, char glyph[8])
{
	static const char *const levels[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = " .:-=+*#%@";
	int level = max > 0 && v > 0 ? (int)(v / max * 8 + 0.5) : 0;

	/* no pass stands for this time: a gap, not zero */
	if (v < 0)
		return utf8 ? "·" : "_";
	if (utf8)
		return levels[level];
	glyph[0] = ascii[level];
	glyph[1] = '\0';
	return glyph;
}
