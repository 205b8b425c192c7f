// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "timespec.h"
#include "util.h"
#include "xml.h"

#define CELL_H 14
#define LEFT 70
#define TOP 60
#define BOTTOM 40
#define PLOT_W 1100

/* Bucket lengths a person reads at a glance. */
static const uint64_t nice_us[] = {
	1000000, 2000000, 5000000, 10000000, 15000000, 30000000, 60000000, 120000000, 300000000,
	600000000, 900000000, 1800000000, 3600000000ull, 7200000000ull, 21600000000ull, 86400000000ull,
};

void heatmap__init(struct heatmap *h, uint64_t from_us, uint64_t to_us, size_t max_cols)
{
	uint64_t span = to_us > from_us ? to_us - from_us : 1;
	size_t i = 0;

	while (i + 1 < sizeof(nice_us) / sizeof(nice_us[0]) && span / nice_us[i] > max_cols)
		i++;
	memset(h, 0, sizeof(*h));
	h->bucket_us = nice_us[i];
	h->from_us = from_us / h->bucket_us * h->bucket_us;
	h->ncols = (size_t)((to_us - h->from_us + h->bucket_us - 1) / h->bucket_us);
	if (!h->ncols)
		h->ncols = 1;
	h->counts = xcalloc(h->ncols, sizeof(*h->counts));
}

void heatmap__add(struct heatmap *h, size_t col, unsigned int e, uint64_t count)
{
	if (col >= h->ncols)
		return;
	if (e >= HEATMAP_EXPS)
		e = HEATMAP_EXPS - 1;
	h->counts[col][e] += count;
	h->total += count;
}

void heatmap__free(struct heatmap *h)
{
	free(h->counts);
	h->counts = NULL;
}

/* "1 us", "512 us", "2 ms", "1 s", "64 s" */
static void put_us(char *buf, size_t len, uint64_t us)
{
	if (us < 1000)
		snprintf(buf, len, "%llu us", (unsigned long long)us);
	else if (us < 1000000)
		snprintf(buf, len, "%.3g ms", (double)us / 1e3);
	else
		snprintf(buf, len, "%.3g s", (double)us / 1e6);
}

/* Light yellow for one, dark red for the most, on a log scale: counts span orders of magnitude. */
static void cell_rgb(uint64_t c, uint64_t max, int *r, int *g, int *b)
{
	double t = max > 1 ? log((double)c) / log((double)max) : 1;

	*r = (int)(255 - 75 * t);
	*g = (int)(236 - 236 * t);
	*b = (int)(160 - 160 * t);
}

int heatmap__write_svg(const struct heatmap *h, FILE *out, const struct heatmap_svg_opts *o)
{
	unsigned int lo = HEATMAP_EXPS, hi = 0, rows, width, height;
	uint64_t max = 0;
	double cw;
	char a[64], b[64];

	for (size_t c = 0; c < h->ncols; c++)
		for (unsigned int e = 0; e < HEATMAP_EXPS; e++)
			if (h->counts[c][e]) {
				lo = e < lo ? e : lo;
				hi = e > hi ? e : hi;
				max = h->counts[c][e] > max ? h->counts[c][e] : max;
			}
	if (lo > hi)
		lo = hi = 0;
	rows = hi - lo + 1;
	cw = (double)PLOT_W / (double)h->ncols;
	width = LEFT + PLOT_W + 20;
	height = TOP + rows * CELL_H + BOTTOM;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n"
		"<style>text { font: 11px Verdana, 'DejaVu Sans', sans-serif; fill: #333; } .title { font-size: 16px; fill: #000; }"
		" rect.c:hover { stroke: #000; stroke-width: 1; }</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fcfcf8\"/>\n", width, height, width, height, width,
		height);
	fprintf(out, "<text class=\"title\" x=\"%u\" y=\"22\" text-anchor=\"middle\">", width / 2);
	xml_text(out, o->title, strlen(o->title));
	fprintf(out, "</text>\n<text x=\"%u\" y=\"40\" text-anchor=\"middle\">", width / 2);
	xml_text(out, o->subtitle, strlen(o->subtitle));
	fputs("</text>\n", out);
	fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%u\" fill=\"#fff\" stroke=\"#ccc\"/>\n", LEFT, TOP,
		PLOT_W, rows * CELL_H);
	/* latency rows, the longest at the top; every other one labelled */
	for (unsigned int e = lo; e <= hi; e++) {
		unsigned int y = TOP + (hi - e) * CELL_H;

		if ((e - lo) % 2 == 0 || rows < 12) {
			put_us(a, sizeof(a), 1ull << e);
			fprintf(out, "<text x=\"%d\" y=\"%u\" text-anchor=\"end\">&lt; %s</text>\n", LEFT - 4,
				y + CELL_H - 3, a);
		}
	}
	for (size_t c = 0; c < h->ncols; c++) {
		char t0[64];

		timespec_format(h->from_us + c * h->bucket_us, t0, sizeof(t0));
		for (unsigned int e = lo; e <= hi; e++) {
			uint64_t n = h->counts[c][e];
			int r, g, bl;

			if (!n)
				continue;
			cell_rgb(n, max, &r, &g, &bl);
			put_us(a, sizeof(a), e ? 1ull << (e - 1) : 0);
			put_us(b, sizeof(b), 1ull << e);
			fprintf(out, "<rect class=\"c\" x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\">"
				"<title>%s, +%llu s: %s .. %s: %llu %s</title></rect>\n",
				LEFT + (double)c * cw, TOP + (hi - e) * CELL_H, cw > 1 ? cw - 0.3 : cw, CELL_H - 1, r, g, bl,
				t0, (unsigned long long)(h->bucket_us / 1000000), a, b, (unsigned long long)n, o->what);
		}
	}
	/* time along the bottom: six labels */
	for (int i = 0; i <= 5; i++) {
		size_t c = (size_t)((double)i / 5 * (double)h->ncols);
		char t[64];

		timespec_format(h->from_us + c * h->bucket_us, t, sizeof(t));
		fprintf(out, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"%s\">%s</text>\n", LEFT + (double)c * cw,
			TOP + rows * CELL_H + 16, i == 0 ? "start" : i == 5 ? "end" : "middle", t + 11);
	}
	fprintf(out, "<text x=\"%d\" y=\"%u\">each column %llu s; colour: count, log scale, up to %llu %s"
		" in a cell</text>\n</svg>\n", LEFT, TOP + rows * CELL_H + 32,
		(unsigned long long)(h->bucket_us / 1000000), (unsigned long long)max, o->what);
	return ferror(out) ? -1 : 0;
}
