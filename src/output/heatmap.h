/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A latency heatmap: time across, log2 latency buckets up, each cell
 * coloured by its count, as one SVG whose cells name their range and count
 * on hover.
 */
#ifndef TRACT_HEATMAP_H
#define TRACT_HEATMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HEATMAP_EXPS 41		/* bucket e holds [2^(e-1), 2^e) µs; 2^40 µs is 12 days */

struct heatmap {
	uint64_t from_us, bucket_us;	/* column c is [from + c·bucket, from + (c+1)·bucket) */
	uint64_t to_us;			/* the end of what it shows */
	size_t ncols;
	uint64_t (*counts)[HEATMAP_EXPS];	/* [column][e] */
	uint64_t total;
};

void heatmap__init(struct heatmap *h, uint64_t from_us, uint64_t to_us, size_t max_cols);
void heatmap__add(struct heatmap *h, size_t col, unsigned int e, uint64_t count);
void heatmap__free(struct heatmap *h);

struct heatmap_svg_opts {
	const char *title;
	const char *subtitle;
	const char *what;		/* a count's noun, plural: "syscalls", "requests", "waits" */
};

int heatmap__write_svg(const struct heatmap *h, FILE *out, const struct heatmap_svg_opts *o);

#endif
