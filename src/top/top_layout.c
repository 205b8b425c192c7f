// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include "top_layout.h"

static int row_cells(const struct top_layout *l, size_t n)
{
	int cells = TOP_FIGURES_COLS + l->bar;

	for (size_t c = 0; c < n; c++)
		cells += 2 + l->width[c];
	return cells;
}

/* The widest column that can still give a cell, or -1. */
static int widest(const struct top_layout *l, size_t n)
{
	int best = -1;

	for (size_t c = 0; c < n; c++)
		if (l->width[c] > TOP_MIN_COL && (best < 0 || l->width[c] >= l->width[best]))
			best = (int)c;
	return best;
}

void top_layout(const int *want, size_t n, int cols, struct top_layout *out)
{
	int used, c;

	memset(out, 0, sizeof(*out));
	n = n < AGG_MAX_GROUP ? n : AGG_MAX_GROUP;
	out->bar = TOP_BAR_COLS;
	for (size_t i = 0; i < n; i++)
		out->width[i] = want[i] < cols ? want[i] : cols;
	out->shown = (int)n;
	if (row_cells(out, n) > cols)
		out->bar = 0;
	while (row_cells(out, n) > cols && (c = widest(out, n)) >= 0)
		out->width[c]--;
	if (row_cells(out, n) <= cols)
		return;
	/* the screen is too narrow for all of them even so: those past its edge go */
	used = TOP_FIGURES_COLS;
	for (c = 0; c < (int)n && used + 2 + out->width[c] <= cols; c++)
		used += 2 + out->width[c];
	out->shown = c;
	if (c < (int)n && cols - used - 2 >= 1) {
		out->width[c] = cols - used - 2;
		out->shown = c + 1;
	}
	for (c = out->shown; c < (int)n; c++)
		out->width[c] = 0;
}
