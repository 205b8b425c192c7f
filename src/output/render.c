// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sqlite3.h>
#include "csv.h"
#include "json.h"
#include "render.h"
#include "timespec.h"
#include "util.h"
#include "width.h"

#define BAR_WIDTH 20

double render_avg(const struct agg_result *r, uint64_t measure)
{
	return r->sampled_us ? (double)measure / (double)r->sampled_us : 0;
}

int render_steal(char *buf, size_t len, const struct agg_result *r)
{
	double pct = r->run ? 100.0 * (double)r->run_steal_us / (double)r->run : 0;

	/* a tick here and there is no news: half a percent of the time on a CPU, or of a CPU */
	if (!r->steal_us || !r->sampled_us || (pct < 0.5 && render_avg(r, r->steal_us) < 0.005))
		return 0;
	if (r->run) {
		snprintf(buf, len, "the host took %.*f%% of the threads' time on a CPU (steal: %.2f CPUs)",
			 pct < 10 ? 1 : 0, pct, render_avg(r, r->steal_us));
	} else {
		snprintf(buf, len, "the host took %.2f CPUs (steal)", render_avg(r, r->steal_us));
	}
	return 1;
}

int render_waiting(char *buf, size_t len, const struct agg_result *r)
{
	if (r->filtered || !r->input || render_avg(r, r->input) < 0.005)
		return 0;
	snprintf(buf, len, "%.2f of them waiting for input or on a timer", render_avg(r, r->input));
	return 1;
}

void render_range(FILE *f, const struct agg_result *r)
{
	char from[32], to[32];

	if (!r->passes) {
		/* a server's store has no files to count */
		fputs("no passes in the time range", f);
		if (r->files || r->skipped)
			fprintf(f, " (%zu store files read", r->files);
		if (r->skipped)
			fprintf(f, ", %zu damaged ones skipped", r->skipped);
		fputs(r->files || r->skipped ? ")\n" : "\n", f);
		return;
	}
	timespec_format(r->first_us, from, sizeof(from));
	timespec_format(r->last_us, to, sizeof(to));
	fprintf(f, "%s .. %s %s, %.0f s sampled in %" PRIu64 " pass%s", from, to + 11, timespec_zone(r->last_us),
		(double)r->sampled_us / 1e6, r->passes, r->passes == 1 ? "" : "es");
	if (r->unsampled_us >= 1000000)
		fprintf(f, ", %.0f s not sampled (the recorder was late)", (double)r->unsampled_us / 1e6);
	if (r->dropped)
		fprintf(f, ", %" PRIu64 " rows DROPPED", r->dropped);
	if (r->skipped)
		fprintf(f, ", %zu damaged store files skipped", r->skipped);
	fputc('\n', f);
}

size_t render_cell(const struct agg_value *v, char *buf, size_t cap)
{
	size_t n = 0;

	switch (v->type) {
	case SQLITE_INTEGER:
		return (size_t)snprintf(buf, cap, "%" PRId64, v->i);
	case SQLITE_FLOAT:
		return (size_t)snprintf(buf, cap, "%g", v->r);
	case SQLITE_TEXT: {
		/* NULL shows as -: a text that reads like it ("-", "NULL", nothing) is quoted */
		int quote = !v->len || (v->len == 1 && v->text[0] == '-') ||
			    (v->len == 4 && !strncasecmp(v->text, "NULL", 4));

		if (quote && cap > 2)
			buf[n++] = '"';
		/*
		 * a thread name is not allowed to move the cursor: its
		 * controls, C1 ones too, and a NUL in it show as '?'
		 */
		for (size_t i = 0, k; i < v->len; i += k) {
			int control;

			k = text_char(v->text + i, v->len - i, &control);
			if (n + (control ? 1 : k) + 1 + (size_t)quote > cap)
				break;
			if (control) {
				buf[n++] = '?';
			} else {
				memcpy(buf + n, v->text + i, k);
				n += k;
			}
		}
		if (quote && n + 1 < cap)
			buf[n++] = '"';
		buf[n] = '\0';
		return n;
	}
	default:
		return (size_t)snprintf(buf, cap, "-");
	}
}

/* Display width of UTF-8 text, in terminal cells: a CJK name takes two a character. */
static size_t columns_of(const char *s)
{
	return text_cells(s, strlen(s));
}

static void put_padded(FILE *f, const char *s, size_t width)
{
	size_t w = columns_of(s);

	fputs(s, f);
	for (; w < width; w++)
		fputc(' ', f);
}

char *render_bar(char *buf, size_t cap, double share, int width, int utf8)
{
	static const char *const eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	int units = (int)(share * width * 8 + 0.5), used = 0;
	size_t len = 0;

	/* a block is 3 bytes of UTF-8; cap must hold width of them */
	for (; units >= 8 && used < width && len + 4 < cap; units -= 8, used++)
		len += (size_t)snprintf(buf + len, cap - len, "%s", utf8 ? "█" : "#");
	if (units > 0 && used < width && utf8 && len + 4 < cap) {
		len += (size_t)snprintf(buf + len, cap - len, "%s", eighths[units]);
		used++;
	}
	for (; used < width && len + 1 < cap; used++)
		buf[len++] = ' ';
	buf[len] = '\0';
	return buf;
}

static void put_bar(FILE *f, double share, int utf8)
{
	char bar[4 * BAR_WIDTH + 1];

	fputs(render_bar(bar, sizeof(bar), share, BAR_WIDTH, utf8), f);
}

static size_t shown(const struct agg_result *r, const struct render_opts *o)
{
	return o->top && o->top < r->nrows ? o->top : r->nrows;
}


/* "60 s", or "23 s partial" for a bucket sampled for less than 90% of its length */
static void sampled_cell(const struct agg_result *r, const struct agg_row *row, char *buf, size_t cap)
{
	const struct agg_bucket *b = agg_result__bucket(r, row);
	/*
	 * a pass late across the bucket's start counts in it, its weight with
	 * it, and the bucket's average is right over that; but no bucket was
	 * sampled for longer than it lasts
	 */
	uint64_t len = r->time_col >= 0 ? r->cols[r->time_col]->bucket_us : 0;
	double s = b ? (double)(len && b->sampled_us > len ? len : b->sampled_us) / 1e6 : 0;

	snprintf(buf, cap, "%.*f s%s", s < 10 ? 1 : 0, s, b && agg_result__partial(r, b) ? " partial" : "");
}

char *render_cell_whole(const struct agg_value *v)
{
	/* text's bytes and its quotes; a number's digits */
	size_t cap = (v->type == SQLITE_TEXT ? v->len : 0) + 64;
	char *whole = xcalloc(1, cap);

	render_cell(v, whole, cap);
	return whole;
}

/* A table's cell: the whole value, or cut visibly where the terminal asks for it. */
static char *table_cell(const struct agg_value *v, const struct catalog_column *c, const struct render_opts *o)
{
	char *whole = render_cell_whole(v), *cut;
	/* the figures and the bar before the first column */
	const size_t lead = 8 + 1 + 6 + 2 + BAR_WIDTH + 2;

	if (!o->columns)
		return whole;
	cut = text_cut(whole, o->columns > lead + 40 ? o->columns - lead : 40, catalog_is_stack(c), o->utf8);
	free(whole);
	return cut;
}

static void table(FILE *f, const struct agg_result *r, const struct render_opts *o)
{
	size_t n = shown(r, o), width[AGG_MAX_GROUP];
	struct agg_value vals[AGG_MAX_GROUP];
	char *cell, sampled[64], steal[160], waiting[96];
	int timeline = r->time_col >= 0;
	double max_avg = 0;

	render_range(f, r);
	fprintf(f, "%.2f average active threads", render_avg(r, r->total));
	if (!r->filtered && r->load)
		fprintf(f, " (%.2f on a CPU, queued or in D state, as the load average counts)", render_avg(r, r->load));
	if (render_waiting(waiting, sizeof(waiting), r))
		fprintf(f, "; %s", waiting);
	if (render_steal(steal, sizeof(steal), r))
		fprintf(f, "; %s", steal);
	if (n < r->nrows)
		fprintf(f, "; top %zu of %zu groups", n, r->nrows);
	fputs("\n\n", f);
	for (size_t c = 0; c < r->ncols; c++)
		width[c] = strlen(catalog_heading(r->cols[c]));
	for (size_t i = 0; i < n; i++) {
		if (agg_result__avg(r, &r->rows[i]) > max_avg)
			max_avg = agg_result__avg(r, &r->rows[i]);
		agg_result__values(r, &r->rows[i], vals);
		for (size_t c = 0; c < r->ncols; c++) {
			cell = table_cell(&vals[c], r->cols[c], o);
			if (columns_of(cell) > width[c])
				width[c] = columns_of(cell);
			free(cell);
		}
	}
	fprintf(f, "%8s %6s  %-*s", "avg_thr", "share", BAR_WIDTH, "");
	for (size_t c = 0; c < r->ncols; c++) {
		fputs("  ", f);
		put_padded(f, catalog_heading(r->cols[c]), c + 1 < r->ncols || timeline ? width[c] : 0);
	}
	if (timeline)
		fputs("  sampled", f);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct agg_row *row = &r->rows[i];
		double share = agg_result__share(r, row), avg = agg_result__avg(r, row);

		fprintf(f, "%8.2f %5.1f%%  ", avg, share * 100);
		/* a timeline's bars compare its buckets, not shares */
		put_bar(f, timeline ? (max_avg > 0 ? avg / max_avg : 0) : share, o->utf8);
		agg_result__values(r, row, vals);
		for (size_t c = 0; c < r->ncols; c++) {
			cell = table_cell(&vals[c], r->cols[c], o);
			fputs("  ", f);
			put_padded(f, cell, c + 1 < r->ncols || timeline ? width[c] : 0);
			free(cell);
		}
		if (timeline) {
			sampled_cell(r, row, sampled, sizeof(sampled));
			fprintf(f, "  %s", sampled);
		}
		fputc('\n', f);
	}
}

/* A value as a CSV field: text made safe (csv_text()), numbers as they are, NULL empty. */
static void csv_value(FILE *f, const struct agg_value *v)
{
	char num[64];

	if (v->type == SQLITE_TEXT) {
		csv_text(f, v->text, v->len);
	} else if (v->type != SQLITE_NULL) {
		render_cell(v, num, sizeof(num));
		fputs(num, f);
	}
}

static void json_value(FILE *f, const struct agg_value *v)
{
	if (v->type == SQLITE_TEXT)
		json_string(f, v->text, v->len);
	else if (v->type == SQLITE_INTEGER)
		fprintf(f, "%" PRId64, v->i);
	else if (v->type == SQLITE_FLOAT)
		fprintf(f, "%.17g", v->r);
	else
		fputs("null", f);
}

static void csv(FILE *f, const struct agg_result *r, const struct render_opts *o)
{
	struct agg_value vals[AGG_MAX_GROUP];

	for (size_t c = 0; c < r->ncols; c++)
		fprintf(f, "%s,", r->cols[c]->name);
	fputs("avg_threads,share,samples", f);
	if (r->time_col >= 0)
		fputs(",sampled_us,partial", f);
	csv_end(f);
	for (size_t i = 0; i < shown(r, o); i++) {
		const struct agg_row *row = &r->rows[i];
		const struct agg_bucket *b = agg_result__bucket(r, row);

		agg_result__values(r, row, vals);
		for (size_t c = 0; c < r->ncols; c++) {
			csv_value(f, &vals[c]);
			csv_sep(f);
		}
		fprintf(f, "%.6f,%.6f,%" PRIu64, agg_result__avg(r, row), agg_result__share(r, row), row->samples);
		if (b)
			fprintf(f, ",%" PRIu64 ",%d", b->sampled_us, agg_result__partial(r, b));
		csv_end(f);
	}
}

static void json(FILE *f, const struct agg_result *r, const struct render_opts *o)
{
	struct agg_value vals[AGG_MAX_GROUP];

	fprintf(f, "{\"first_us\":%" PRIu64 ",\"last_us\":%" PRIu64 ",\"sampled_us\":%" PRIu64
		",\"unsampled_us\":%" PRIu64 ",\"passes\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"avg_threads\":%.6f,", r->first_us, r->last_us, r->sampled_us, r->unsampled_us, r->passes,
		r->dropped, render_avg(r, r->total));
	if (!r->filtered && r->load)
		fprintf(f, "\"load_threads\":%.6f,", render_avg(r, r->load));
	if (!r->filtered)
		fprintf(f, "\"input_threads\":%.6f,", render_avg(r, r->input));
	fprintf(f, "\"groups\":%zu,\"rows\":[", r->nrows);
	for (size_t i = 0; i < shown(r, o); i++) {
		agg_result__values(r, &r->rows[i], vals);
		fputs(i ? ",\n{" : "\n{", f);
		for (size_t c = 0; c < r->ncols; c++) {
			fprintf(f, "\"%s\":", r->cols[c]->name);
			json_value(f, &vals[c]);
			fputc(',', f);
		}
		fprintf(f, "\"avg_threads\":%.6f,\"share\":%.6f,\"samples\":%" PRIu64,
			agg_result__avg(r, &r->rows[i]), agg_result__share(r, &r->rows[i]), r->rows[i].samples);
		if (agg_result__bucket(r, &r->rows[i])) {
			const struct agg_bucket *b = agg_result__bucket(r, &r->rows[i]);

			fprintf(f, ",\"sampled_us\":%" PRIu64 ",\"partial\":%s", b->sampled_us,
				agg_result__partial(r, b) ? "true" : "false");
		}
		fputc('}', f);
	}
	fputs("]}\n", f);
}

void render_groups(FILE *f, const struct agg_result *r, const struct render_opts *o)
{
	if (o->format == RENDER_CSV)
		csv(f, r, o);
	else if (o->format == RENDER_JSON)
		json(f, r, o);
	else
		table(f, r, o);
}

/* ---- latency histograms ---- */

struct hist {
	size_t first, n;	/* rows of r, consecutive after sorting by the other columns */
	uint64_t total;
	uint64_t sum;		/* the latencies summed, where the store keeps them */
};

static int same_hist(const struct agg_result *r, size_t i, size_t j)
{
	struct agg_value a[AGG_MAX_GROUP], b[AGG_MAX_GROUP];

	agg_result__values(r, &r->rows[i], a);
	agg_result__values(r, &r->rows[j], b);
	for (size_t c = 0; c + 1 < r->ncols; c++)
		if (a[c].type != b[c].type || a[c].len != b[c].len || a[c].i != b[c].i ||
		    (a[c].len && memcmp(a[c].text, b[c].text, a[c].len)))
			return 0;
	return 1;
}

static int by_total(const void *x, const void *y)
{
	const struct hist *a = x, *b = y;

	return a->total > b->total ? -1 : a->total < b->total;
}

/* The bucket bound at or below which the fraction p of completions fall. */
static int64_t percentile(const struct agg_result *r, const struct hist *h, double p)
{
	uint64_t seen = 0;
	struct agg_value v[AGG_MAX_GROUP];

	for (size_t i = h->first; i < h->first + h->n; i++) {
		seen += r->rows[i].measure;
		if ((double)seen >= p * (double)h->total) {
			agg_result__values(r, &r->rows[i], v);
			return v[r->ncols - 1].i;
		}
	}
	return -1;
}

static void hist_title(FILE *f, const struct agg_result *r, const struct hist *h, const struct render_opts *o)
{
	struct agg_value v[AGG_MAX_GROUP];

	agg_result__values(r, &r->rows[h->first], v);
	for (size_t c = 0; c + 1 < r->ncols; c++) {
		char *cell = table_cell(&v[c], r->cols[c], o);

		fprintf(f, "%s%s", c ? " " : "", cell);
		free(cell);
	}
}

void render_hists(FILE *f, const struct agg_result *res, const struct render_opts *o)
{
	struct agg_result *r = (struct agg_result *)res;
	struct hist *h = NULL;
	size_t nh = 0;
	struct agg_value v[AGG_MAX_GROUP];

	/* by the histogram's columns, then le_us ascending */
	agg_result__sort_by_values(r);
	for (size_t i = 0; i < r->nrows; i++) {
		if (!nh || !same_hist(r, h[nh - 1].first, i)) {
			h = xrealloc(h, (nh + 1) * sizeof(*h));
			h[nh++] = (struct hist){ .first = i };
		}
		h[nh - 1].n++;
		h[nh - 1].total += r->rows[i].measure;
		h[nh - 1].sum += r->rows[i].sum;
	}
	if (nh > 1)
		qsort(h, nh, sizeof(*h), by_total);
	if (o->top && o->top < nh)
		nh = o->top;
	if (o->format == RENDER_TABLE)
		render_range(f, r);
	if (o->format == RENDER_JSON)
		fputs("[", f);
	if (o->format == RENDER_CSV) {
		for (size_t c = 0; c < r->ncols; c++)
			fprintf(f, "%s,", r->cols[c]->name);
		fputs("count", f);
		csv_end(f);
	}
	for (size_t k = 0; k < nh; k++) {
		uint64_t max = 0;

		for (size_t i = h[k].first; i < h[k].first + h[k].n; i++)
			if (r->rows[i].measure > max)
				max = r->rows[i].measure;
		if (o->format == RENDER_TABLE) {
			fputc('\n', f);
			hist_title(f, r, &h[k], o);
			fprintf(f, ": %" PRIu64 " completions, ", h[k].total);
			if (h[k].sum && h[k].total)
				fprintf(f, "mean %.0f us, ", (double)h[k].sum / (double)h[k].total);
			fprintf(f, "p50 < %" PRId64 " us, p95 < %" PRId64 " us, p99 < %" PRId64 " us\n",
				percentile(r, &h[k], 0.5), percentile(r, &h[k], 0.95), percentile(r, &h[k], 0.99));
			fprintf(f, "%22s %10s  distribution\n", "us", "count");
		} else if (o->format == RENDER_JSON) {
			fputs(k ? ",\n{" : "\n{", f);
			agg_result__values(r, &r->rows[h[k].first], v);
			for (size_t c = 0; c + 1 < r->ncols; c++) {
				fprintf(f, "\"%s\":", r->cols[c]->name);
				json_value(f, &v[c]);
				fputc(',', f);
			}
			fprintf(f, "\"count\":%" PRIu64 ",\"mean_us\":%.3f,\"p50_us\":%" PRId64 ",\"p95_us\":%" PRId64
				",\"p99_us\":%" PRId64 ",\"buckets\":[", h[k].total,
				h[k].total ? (double)h[k].sum / (double)h[k].total : 0, percentile(r, &h[k], 0.5),
				percentile(r, &h[k], 0.95), percentile(r, &h[k], 0.99));
		}
		for (size_t i = h[k].first; i < h[k].first + h[k].n; i++) {
			uint64_t count = r->rows[i].measure;

			agg_result__values(r, &r->rows[i], v);
			if (o->format == RENDER_TABLE) {
				int64_t le = v[r->ncols - 1].i;

				fprintf(f, "%10" PRId64 " -> %-9" PRId64 " %10" PRIu64 "  |", le / 2, le - 1, count);
				put_bar(f, max ? (double)count / (double)max : 0, o->utf8);
				fputs("|\n", f);
			} else if (o->format == RENDER_JSON) {
				fprintf(f, "%s{\"le_us\":%" PRId64 ",\"count\":%" PRIu64 "}", i > h[k].first ? "," : "",
					v[r->ncols - 1].i, count);
			} else {
				for (size_t c = 0; c < r->ncols; c++) {
					csv_value(f, &v[c]);
					csv_sep(f);
				}
				fprintf(f, "%" PRIu64, count);
				csv_end(f);
			}
		}
		if (o->format == RENDER_JSON)
			fputs("]}", f);
	}
	if (o->format == RENDER_JSON)
		fputs("]\n", f);
	/* passes but not one histogram row: most likely never recorded */
	if (o->format == RENDER_TABLE && !nh && r->passes && r->cat && r->cat->how_recorded)
		fprintf(f, "no %s latency in this range: %s\n", r->cat->name, r->cat->how_recorded);
	else if (o->format == RENDER_TABLE && !nh)
		fputs("no latency histograms in this range\n", f);
	free(h);
}
