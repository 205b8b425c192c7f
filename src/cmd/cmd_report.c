// SPDX-License-Identifier: GPL-2.0-only
/*
 * tract report: one self-contained HTML file for a window of the store,
 * readable offline with no request to anywhere: what was recorded and what
 * recording cost, average active threads over time by state, where the time
 * went (by process and title, activity, state and syscall, wait and file by
 * activity first, what ended the waits), the flame graph, the
 * heatmaps of waits in flight and of block I/O, and who woke whom.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "durable.h"
#include "aggregate.h"
#include "commands.h"
#include "flame_select.h"
#include "heatmap_select.h"
#include "parse.h"
#include "progress.h"
#include "read_backend.h"
#include "read_opts.h"
#include "reader.h"
#include "render.h"
#include "value_names.h"
#include "strbuf.h"
#include "timespec.h"
#include "util.h"
#include "wakegraph_select.h"
#include "xml.h"

static const char report_usage[] =
"Usage: tract report [-o FILE.html] [-w FILTER] [--from TIME] [--to TIME] [--dir DIR]\n"
"\n"
"One self-contained HTML file for a window, readable offline: the host,\n"
"the window and what recording cost; average active threads over time by\n"
"state; where the time went by process (then title), activity, state and\n"
"syscall, wait and file (what a wait is first: lock, blocked, input,\n"
"disk...), what ended the waits; the flame graph; the heatmaps of waits in\n"
"flight, of block I/O and of syscall latency; who woke whom (Graphviz).\n"
"\n"
"Options:\n"
"  -o, --output FILE     write to FILE (default: standard output)\n"
"  -w, --where FILTER    only samples that match (the flame graph, the tables,\n"
"                        the timeline and the waits in flight)\n"
"      --from TIME, --to TIME, -D DIR, --strict, --utc, --local, -v: as tract query\n"
"      --clickhouse URL, --host NAME, --clickhouse-user, ...: the fleet's store, as tract query\n"
"  -h, --help            show this help\n"
"\n"
"Example:\n"
"  tract report -D /var/lib/tract --from -1h -o report.html\n";

static const struct option report_options[] = {
	READ_OPTS_LONG,
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define usage_error(...) tract_usage_error("report", __VA_ARGS__)

#define TABLE_ROWS 12
#define SUB_ROWS 3	/* a two-level table's rows under each value of its first column */
#define TIMELINE_COLS 120

struct report {
	const struct store_reader *set;
	const struct query_opts *q;
	FILE *out;
};

static int report_parse_args(int argc, char **argv, struct query_opts *q, const char **output)
{
	int c, taken;

	read_opts_init(q);
	*output = NULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" READ_OPTS_SHORT "o:h", report_options, NULL)) != -1) {
		if (c == 'g' || c == READ_OPT_FORMAT)
			return usage_error("%s", c == 'g' ? "-g does not apply: the report has its own tables"
							  : "--format does not apply: a report is HTML");
		taken = read_opts_take("report", c, optarg, q);
		if (taken < 0)
			return taken;
		if (taken)
			continue;
		switch (c) {
		case 'o':
			*output = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 1;
		default:
			return option_error("report", c, argv);
		}
	}
	return read_opts_finish("report", argc, argv, q);
}

static void html(FILE *out, const char *s)
{
	xml_text(out, s, strlen(s));
}

static void base64(FILE *out, const unsigned char *p, size_t n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = (unsigned int)p[i] << 16 | (i + 1 < n ? (unsigned int)p[i + 1] << 8 : 0) |
				 (i + 2 < n ? p[i + 2] : 0);

		fputc(digits[v >> 18 & 63], out);
		fputc(digits[v >> 12 & 63], out);
		fputc(i + 1 < n ? digits[v >> 6 & 63] : '=', out);
		fputc(i + 2 < n ? digits[v & 63] : '=', out);
	}
}

/*
 * A picture of its own (its tooltips and script work there) inside the
 * page, as a data: URL: the file needs nothing beside it.
 */
static void embed_svg(FILE *out, const char *svg, size_t len, const char *alt)
{
	fputs("<object class=\"pic\" type=\"image/svg+xml\" data=\"data:image/svg+xml;base64,", out);
	base64(out, (const unsigned char *)svg, len);
	fputs("\">", out);
	html(out, alt);
	fputs("</object>\n", out);
}

/*
 * The BPF programs' run time over the passes that measured it: their
 * intervals, not the window's, since the stats may have been on for part
 * of it only.
 */
static void bpf_cost_row(FILE *out, const struct pass_totals *pt)
{
	fputs("<tr><th>tract's BPF programs</th><td>", out);
	if (!pt->bpf_passes) {
		fputs("not measured (kernel.bpf_stats_enabled=0)</td></tr>\n", out);
		return;
	}
	fprintf(out, "%.3f%% of a CPU (%.0f µs a pass)",
		pt->bpf_weight_us ? 100.0 * (double)pt->bpf_us / (double)pt->bpf_weight_us : 0.0,
		(double)pt->bpf_us / (double)pt->bpf_passes);
	if (pt->bpf_passes < pt->passes)
		fprintf(out, ", measured in %" PRIu64 " of %" PRIu64 " passes", pt->bpf_passes, pt->passes);
	fputs("</td></tr>\n", out);
}

/* The store's facts for the header: the newest hour's in range, or the fleet's hosts. */
static void facts(struct report *r, const struct agg_result *all)
{
	struct pass_totals pt;
	char from[64], to[64], steal[160], waiting[96];

	fputs("<table class=\"facts\">\n", r->out);
	store_pass_totals(r->set, r->q->from_us, r->q->to_us, &pt);
	for (size_t i = 0; i < pt.nfacts; i++) {
		fprintf(r->out, "<tr><th>%s</th><td>", pt.facts[i].label);
		html(r->out, pt.facts[i].value);
		fputs("</td></tr>\n", r->out);
	}
	timespec_format(all->first_us, from, sizeof(from));
	timespec_format(all->last_us, to, sizeof(to));
	fprintf(r->out, "<tr><th>window</th><td>%s .. %s %s (%.0f s sampled)</td></tr>\n", from, to,
		timespec_zone(all->last_us), (double)all->sampled_us / 1e6);
	fprintf(r->out, "<tr><th>passes</th><td>%" PRIu64 ", rows dropped %" PRIu64 "</td></tr>\n", pt.passes,
		pt.dropped);
	fprintf(r->out, "<tr><th>tract's own cost</th><td>%.3f%% of a CPU (%.1f ms a pass)</td></tr>\n",
		all->sampled_us ? 100.0 * (double)pt.cpu_us / (double)all->sampled_us : 0.0,
		pt.passes ? (double)pt.cpu_us / 1e3 / (double)pt.passes : 0.0);
	bpf_cost_row(r->out, &pt);
	fprintf(r->out, "<tr><th>average active threads</th><td>%.2f</td></tr>\n", render_avg(all, all->total));
	if (render_waiting(waiting, sizeof(waiting), all))
		fprintf(r->out, "<tr><th>of them waiting</th><td>%s</td></tr>\n", waiting);
	if (render_steal(steal, sizeof(steal), all))
		fprintf(r->out, "<tr><th>the host's steal</th><td>%s</td></tr>\n", steal);
	if (r->q->filter) {
		fputs("<tr><th>filter</th><td>", r->out);
		html(r->out, r->q->filter);
		fputs("</td></tr>\n", r->out);
	}
	fputs("</table>\n", r->out);
	pass_totals__free(&pt);
}

static const char *const state_colour[] = {
	"#e2483c", "#e8cc34", "#4e7cde", "#48c4c8", "#a470d6", "#a470d6", "#a470d6", "#b0b0a0",
};

/* Average active threads per time column, stacked by state, as an inline SVG. */
static int timeline(struct report *r, const struct agg_result *all)
{
	static const uint64_t nice[] = { 200000, 500000, 1000000, 2000000, 5000000, 10000000, 30000000, 60000000,
					 300000000, 600000000, 1800000000, 3600000000ull };
	uint64_t span = all->last_us > all->first_us ? all->last_us - all->first_us + 1 : 1, bucket = nice[0];
	struct catalog_column tcol = { .name = "bucket" };
	struct agg_query q = { .cat = &catalog_samples, .filter = r->q->filter, .ncols = 2,
			       .from_us = all->first_us, .to_us = all->last_us + 1, .strict = r->q->strict };
	double (*stack)[8], top = 0;
	struct agg_result res;
	struct agg_value v[2];
	size_t ncols;
	char sql[96], t[64];
	int err;

	for (size_t i = 0; i < sizeof(nice) / sizeof(nice[0]) && span / nice[i] > TIMELINE_COLS; i++)
		bucket = nice[i + 1 < sizeof(nice) / sizeof(nice[0]) ? i + 1 : i];
	ncols = (size_t)(span / bucket) + 1;
	catalog_time_index(&tcol, sql, sizeof(sql), all->first_us, bucket);
	q.cols[0] = &tcol;
	q.cols[1] = catalog__find(&catalog_samples, "state");
	err = aggregate(r->set, &q, &res);
	if (err)
		return err;
	stack = xcalloc(ncols, sizeof(*stack));
	for (size_t i = 0; i < res.nrows; i++) {
		int s;

		agg_result__values(&res, &res.rows[i], v);
		if (v[0].type != SQLITE_INTEGER || v[0].i < 0 || (size_t)v[0].i >= ncols || v[1].type != SQLITE_TEXT)
			continue;
		for (s = 0; s < 7 && (strlen(state_name(s)) != v[1].len || memcmp(state_name(s), v[1].text, v[1].len)); s++)
			;
		stack[v[0].i][s] += agg_result__avg(&res, &res.rows[i]);
	}
	for (size_t c = 0; c < ncols; c++) {
		double sum = 0;

		for (int s = 0; s < 8; s++)
			sum += stack[c][s];
		top = sum > top ? sum : top;
	}
	fprintf(r->out, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"240\" "
		"viewBox=\"0 0 1200 240\"><rect width=\"1200\" height=\"240\" fill=\"#fff\"/>\n");
	for (size_t c = 0; top > 0 && c < ncols; c++) {
		double x = 50 + (double)c * 1120.0 / (double)ncols, w = 1120.0 / (double)ncols, y = 210;

		timespec_format(all->first_us + c * bucket, t, sizeof(t));
		for (int s = 0; s < 8; s++) {
			double h = stack[c][s] / top * 190;

			if (stack[c][s] <= 0)
				continue;
			y -= h;
			fprintf(r->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
				"<title>%s %s: %.2f threads</title></rect>\n", x, y, w > 1.5 ? w - 0.5 : w, h,
				state_colour[s], t + 11, s < 7 ? state_name(s) : "?", stack[c][s]);
		}
	}
	fprintf(r->out, "<text x=\"46\" y=\"24\" text-anchor=\"end\">%.1f</text><text x=\"46\" y=\"214\" "
		"text-anchor=\"end\">0</text>\n", top);
	timespec_format(all->first_us, t, sizeof(t));
	fprintf(r->out, "<text x=\"50\" y=\"230\">%s</text>", t + 11);
	timespec_format(all->last_us, t, sizeof(t));
	fprintf(r->out, "<text x=\"1170\" y=\"230\" text-anchor=\"end\">%s</text>\n", t + 11);
	for (int s = 0, x = 60; s < 5; s++, x += 90)
		fprintf(r->out, "<rect x=\"%d\" y=\"6\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"15\">%s</text>\n",
			x, state_colour[s], x + 14, s < 4 ? state_name(s) : "other");
	fputs("</svg>\n", r->out);
	free(stack);
	agg_result__free(&res);
	return 0;
}

/* The groups of one grouping, largest first. */
static int table_select(struct report *r, const char *group, const char *extra_filter, struct agg_result *res)
{
	char *filter = NULL;
	struct agg_query q = { .cat = &catalog_samples, .group = group, .from_us = r->q->from_us, .to_us = r->q->to_us,
			       .strict = r->q->strict };
	int err;

	progress_stage("tables");
	if (r->q->filter && extra_filter) {
		size_t n = strlen(r->q->filter) + strlen(extra_filter) + 16;

		filter = xcalloc(1, n);
		snprintf(filter, n, "(%s) and (%s)", r->q->filter, extra_filter);
	}
	q.filter = filter ? filter : r->q->filter ? r->q->filter : extra_filter;
	err = aggregate(r->set, &q, res);
	free(filter);
	if (!err)
		agg_result__sort(res);
	return err;
}

static void table_head(struct report *r, const char *title, const struct agg_result *res)
{
	fputs("<div class=\"tab\"><h3>", r->out);
	html(r->out, title);
	fputs("</h3><table><tr>", r->out);
	for (size_t c = 0; c < res->ncols; c++) {
		fputs("<th>", r->out);
		html(r->out, res->cols[c]->name);
		fputs("</th>", r->out);
	}
	fputs("<th>threads</th><th>share</th></tr>\n", r->out);
}

static void table_tail(struct report *r, const struct agg_result *res)
{
	if (!res->nrows)
		fputs("<tr><td>none</td></tr>\n", r->out);
	fputs("</table></div>\n", r->out);
}

/*
 * One line of a table: the values of columns [from, to) in their cells
 * (NULL values: the cells left empty; a note: in the first of them), the
 * others empty; then the line's threads and share, of a measure.
 */
static void table_line(struct report *r, const struct agg_result *res, const char *class, const struct agg_value *v,
		       size_t from, size_t to, const char *note, uint64_t measure)
{
	struct agg_row sum = { .measure = measure };
	double share = agg_result__share(res, &sum);
	char cell[512];

	fprintf(r->out, "<tr%s%s%s>", class ? " class=\"" : "", class ? class : "", class ? "\"" : "");
	for (size_t c = 0; c < res->ncols; c++) {
		fputs("<td>", r->out);
		if (v && c >= from && c < to) {
			size_t n = render_cell(&v[c], cell, sizeof(cell));

			xml_text(r->out, cell, n < sizeof(cell) ? n : sizeof(cell) - 1);
		} else if (note && c == from) {
			html(r->out, note);
		}
		fputs("</td>", r->out);
	}
	fprintf(r->out, "<td class=\"n\">%.2f</td><td class=\"bar\"><span style=\"width:%.0fpx\"></span>%.1f%%</td></tr>\n",
		agg_result__avg(res, &sum), share * 80, share * 100);
}

/* The largest groups of one grouping, as an HTML table with bars. */
static int table(struct report *r, const char *title, const char *group, const char *extra_filter)
{
	struct agg_result res;
	struct agg_value v[AGG_MAX_GROUP];
	int err = table_select(r, group, extra_filter, &res);

	if (err)
		return err;
	table_head(r, title, &res);
	for (size_t i = 0; i < res.nrows && i < TABLE_ROWS; i++) {
		agg_result__values(&res, &res.rows[i], v);
		table_line(r, &res, NULL, v, 0, res.ncols, NULL, res.rows[i].measure);
	}
	table_tail(r, &res);
	agg_result__free(&res);
	return 0;
}

static int same_value(const struct agg_value *a, const struct agg_value *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SQLITE_INTEGER:
		return a->i == b->i;
	case SQLITE_FLOAT:
		return a->r == b->r;
	case SQLITE_TEXT:
		return a->len == b->len && !memcmp(a->text, b->text, a->len);
	default:
		return 1;
	}
}

/* A value of a two-level table's first column: its rows, and their sum. */
struct outer {
	struct agg_value value;
	uint64_t measure;
	size_t first, n;	/* its rows, in the order of the result's (largest first) */
};

static int outer_larger_first(const void *a, const void *b)
{
	const struct outer *x = a, *y = b;

	/* ties in the order first seen, itself the rows' stable order */
	return x->measure != y->measure ? (x->measure < y->measure ? 1 : -1) : (x->first > y->first) - (x->first < y->first);
}

/*
 * A table of two levels: the values of the first column, largest first,
 * each on a line of its own with its sum, and under it its largest rows by
 * the other columns (the rest summed in one line).  A value of one row
 * only is one line.  So a wait is read first for what it is (blocked by a
 * thread of its program, input, disk...), then for where it sleeps, and a
 * program first, then what each of its processes says it is.
 */
static int two_level_table(struct report *r, const char *title, const char *group, const char *extra_filter)
{
	struct agg_result res;
	struct agg_value v[AGG_MAX_GROUP];
	struct outer *outer;
	size_t nouter = 0;
	int err = table_select(r, group, extra_filter, &res);

	if (err)
		return err;
	outer = xcalloc(res.nrows + 1, sizeof(*outer));
	for (size_t i = 0; i < res.nrows; i++) {
		size_t o;

		agg_result__values(&res, &res.rows[i], v);
		for (o = 0; o < nouter && !same_value(&outer[o].value, &v[0]); o++)
			;
		if (o == nouter)
			outer[nouter++] = (struct outer){ .value = v[0], .first = i };
		outer[o].measure += res.rows[i].measure;
		outer[o].n++;
	}
	qsort(outer, nouter, sizeof(*outer), outer_larger_first);
	table_head(r, title, &res);
	for (size_t o = 0; o < nouter && o < TABLE_ROWS; o++) {
		size_t seen = 0;
		uint64_t rest = 0;

		/* the value's rows, largest first, from its first on */
		for (size_t i = outer[o].first; i < res.nrows && seen < outer[o].n; i++) {
			agg_result__values(&res, &res.rows[i], v);
			if (!same_value(&outer[o].value, &v[0]))
				continue;
			if (outer[o].n == 1) {
				table_line(r, &res, "outer", v, 0, res.ncols, NULL, outer[o].measure);
				break;
			}
			if (!seen++)
				table_line(r, &res, "outer sum", v, 0, 1, NULL, outer[o].measure);
			if (seen <= SUB_ROWS)
				table_line(r, &res, "inner", v, 1, res.ncols, NULL, res.rows[i].measure);
			else
				rest += res.rows[i].measure;
		}
		if (outer[o].n > SUB_ROWS) {
			char note[64];

			snprintf(note, sizeof(note), "… %zu more", outer[o].n - SUB_ROWS);
			table_line(r, &res, "inner", NULL, 1, res.ncols, note, rest);
		}
	}
	table_tail(r, &res);
	free(outer);
	agg_result__free(&res);
	return 0;
}

/* What a writer of pictures printed, as a string of the report's. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mem_open(struct mem *m)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	return m->f;
}

static void mem_embed(struct report *r, struct mem *m, const char *alt)
{
	if (fclose(m->f) == 0 && m->len)
		embed_svg(r->out, m->buf, m->len, alt);
	free(m->buf);
}

static int flame_section(struct report *r)
{
	struct flame_selection sel = { .filter = r->q->filter, .from_us = r->q->from_us, .to_us = r->q->to_us,
				       .strict = r->q->strict };
	struct agg_result res;
	struct flame *f;
	struct mem m;
	char sub[256];
	int err;

	progress_stage("flame graph");
	err = flame__select(r->set, &sel, &f, &res);
	if (err)
		return err;
	fputs("<h2>Flame graph: thread time on and off CPU</h2>\n", r->out);
	if (f && mem_open(&m)) {
		flame__describe(&res, 0, sub, sizeof(sub));
		flame__write_svg(f, m.f, &(struct flame_svg_opts){ .title = "Thread time", .subtitle = sub });
		mem_embed(r, &m, "the flame graph");
	}
	flame__free(f);
	agg_result__free(&res);
	return 0;
}

static int heatmap_section(struct report *r, enum heat_kind kind)
{
	struct heatmap_selection sel = { .kind = kind, .filter = kind == HEAT_INFLIGHT ? r->q->filter : NULL,
					 .from_us = r->q->from_us, .to_us = r->q->to_us, .strict = r->q->strict };
	struct heatmap h;
	struct mem m;
	char sub[160], from[64], to[64];
	int err;

	progress_stage(heatmap_kinds[kind].title);
	err = heatmap__select(r->set, &sel, &h);
	if (err)
		return err;
	fprintf(r->out, "<h2>%s</h2>\n", heatmap_kinds[kind].title);
	if (!h.total) {
		fputs(kind == HEAT_SYSCALL ? "<p>None in this window: record keeps syscall latency unless given "
					     "<code>--no-syscall-latency</code>.</p>\n" : "<p>None in this window.</p>\n",
		      r->out);
	} else if (mem_open(&m)) {
		timespec_format(h.from_us, from, sizeof(from));
		timespec_format(h.to_us, to, sizeof(to));
		snprintf(sub, sizeof(sub), "%s .. %s, %llu %s", from, to, (unsigned long long)h.total,
			 heatmap_kinds[kind].what);
		heatmap__write_svg(&h, m.f, &(struct heatmap_svg_opts){ .title = heatmap_kinds[kind].title,
									.subtitle = sub, .what = heatmap_kinds[kind].what });
		mem_embed(r, &m, heatmap_kinds[kind].title);
	}
	heatmap__free(&h);
	return 0;
}

/* Graphviz writes the SVG to a file of its own; it is read back into the page. */
static int wakes_section(struct report *r)
{
	struct wake_selection sel = { .from_us = r->q->from_us, .to_us = r->q->to_us, .strict = r->q->strict };
	char path[] = "/tmp/tract-report-XXXXXX.svg";
	struct agg_result res;
	struct wake_edge *edges = NULL;
	size_t n = 0;
	int err, fd;

	progress_stage("who wakes whom");
	err = wakegraph__select(r->set, &sel, &res, &edges, &n);
	if (err)
		return err;
	fputs("<h2>Who wakes whom</h2>\n", r->out);
	if (!n) {
		fputs("<p>No wakeup edges in this window: record keeps them unless given <code>--no-wakeup-edges</code>.</p>\n",
		      r->out);
	} else if ((fd = mkstemps(path, 4)) >= 0) {
		close(fd);
		if (!wakegraph__write_svg(path, edges, n, WAKEGRAPH_EDGES, "Who wakes whom")) {
			FILE *f = fopen(path, "r");
			struct mem m;

			if (f && mem_open(&m)) {
				char buf[65536];
				size_t got;

				while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
					fwrite(buf, 1, got, m.f);
				mem_embed(r, &m, "who wakes whom");
			}
			if (f)
				fclose(f);
		} else {
			fputs("<p>Graphviz could not draw the waker graph.</p>\n", r->out);
		}
		unlink(path);
	}
	free(edges);
	agg_result__free(&res);
	return 0;
}

static const char style[] =
"<style>\n"
"body { font: 14px 'DejaVu Sans', Verdana, sans-serif; margin: 20px; color: #222; background: #fcfcf8; }\n"
"h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 14px; margin: 6px 0; }\n"
"table { border-collapse: collapse; } th, td { padding: 2px 8px; text-align: left; font-size: 12px; }\n"
"table.facts th { color: #555; font-weight: normal; }\n"
".tabs { display: flex; flex-wrap: wrap; gap: 18px; } .tab td { border-top: 1px solid #eee; max-width: 420px;\n"
"  overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }\n"
"tr.sum td { font-weight: 600; } tr.inner td { color: #555; } tr.inner td:nth-child(2) { padding-left: 16px; }\n"
"td.n { text-align: right; } td.bar span { display: inline-block; height: 9px; background: #e2483c; margin-right: 5px; }\n"
"object.pic { display: block; max-width: 100%; border: 1px solid #ddd; background: #fff; }\n"
"svg.timeline text { font-size: 11px; fill: #444; }\n"
"</style>\n";

/* the hours are read for: the samples, the timeline, 7 tables, the flame graph, 3 heatmaps, the waker graph */
#define REPORT_STAGES 14

static int write_report(struct report *r)
{
	struct agg_query q = { .cat = &catalog_samples, .group = "", .filter = r->q->filter, .from_us = r->q->from_us,
			       .to_us = r->q->to_us, .strict = r->q->strict };
	struct agg_result all;
	int err;

	progress_stage("the samples");
	err = aggregate(r->set, &q, &all);
	if (err)
		return err;
	if (!all.total) {
		tract_err("no samples in that range%s", r->q->filter ? " match the filter" : "");
		agg_result__free(&all);
		return -ENOENT;
	}
	/* no request may leave the file: not by a name in it, not by a picture in it */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
	      "img-src data:; object-src data:; frame-src data:\">\n<title>tract report</title>\n", r->out);
	fputs(style, r->out);
	fputs("</head><body>\n<h1>tract report</h1>\n", r->out);
	facts(r, &all);
	fputs("<h2>Average active threads over time, by state</h2>\n", r->out);
	progress_stage("timeline");
	err = timeline(r, &all);
	if (!err) {
		fputs("<h2>Where the time went</h2>\n<div class=\"tabs\">\n", r->out);
		/* what the time was before where it went: a server's lock waits are not read as its epoll */
		err = two_level_table(r, "by process", "pcomm,title", NULL) ?:
		      two_level_table(r, "by activity", "activity,pcomm", NULL) ?:
		      table(r, "by state and syscall", "state,syscall", NULL) ?:
		      two_level_table(r, "by wait, off CPU", "activity,wait", "state != RUN") ?:
		      two_level_table(r, "what ended the waits", "ender_class,ender", "ender is not null") ?:
		      table(r, "who holds up whom", "blocker_tid,chain_root_tid,pcomm", "blocker_tid is not null") ?:
		      two_level_table(r, "by file or socket", "activity,file,syscall", "file is not null");
		fputs("</div>\n", r->out);
	}
	if (!err)
		err = flame_section(r) ?: heatmap_section(r, HEAT_INFLIGHT) ?: heatmap_section(r, HEAT_IO) ?:
		      heatmap_section(r, HEAT_SYSCALL) ?: wakes_section(r);
	progress_end();
	fputs("</body></html>\n", r->out);
	agg_result__free(&all);
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct store_reader set;
	struct query_opts o;
	const char *output;
	struct report r = { .set = &set, .q = &o, .out = stdout };
	char tmp[4096];
	int err = report_parse_args(argc, argv, &o, &output);

	if (err)
		return err > 0 ? 0 : EXIT_USAGE;
	if (query_open_store(&o, &set))
		return EXIT_RUNTIME;
	err = query_resolve_range(&set, &o);
	/*
	 * Into a new file beside the output first: a failed report leaves no
	 * half page.  A name no one could guess, made anew (never a file or
	 * symlink another user put there), with the mode the umask gives.
	 */
	if (!err && output) {
		mode_t mask = umask(0);
		int fd;

		umask(mask);
		snprintf(tmp, sizeof(tmp), "%s.XXXXXX.partial", output);
		fd = mkostemps(tmp, 8, O_CLOEXEC);
		if (fd >= 0 && fchmod(fd, 0666 & ~mask))
			tract_debug("cannot set the mode of %s: %s", tmp, strerror(errno));
		r.out = fd < 0 ? NULL : fdopen(fd, "w");
		if (!r.out) {
			err = -errno;
			tract_err("cannot write %s: %s", fd < 0 ? output : tmp, strerror(-err));
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
		}
	}
	progress_begin("report", REPORT_STAGES);
	if (!err)
		err = write_report(&r);
	if (r.out && r.out != stdout) {
		int closed = durable_fclose(r.out);

		if (closed && !err) {
			tract_err("cannot write %s: %s", tmp, strerror(-closed));
			err = -EIO;
		}
		if (err)
			unlink(tmp);
		else if ((err = durable_rename(tmp, output)))
			tract_err("cannot write %s: %s", output, strerror(-err));
	} else if (!err && fflush(stdout)) {
		err = -EIO;
	}
	store_reader__free(&set);
	return err == -ENOENT ? EXIT_RUNTIME : exit_status(err);
}
