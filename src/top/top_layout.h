/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where top's row columns go on a screen of a given width, apart from
 * curses so that every width can be tested.  A row is the figures, the
 * bar, then each column after two spaces; it never runs past the screen.
 */
#ifndef TRACT_TOP_LAYOUT_H
#define TRACT_TOP_LAYOUT_H

#include <stddef.h>
#include "aggregate.h"

/* "%8.2f %5.1f%% ": the average and the share, before the bar */
#define TOP_FIGURES_COLS 16
#define TOP_BAR_COLS 16
/* A column shrinks no narrower than this while another can give */
#define TOP_MIN_COL 8

struct top_layout {
	int bar;			/* the bar's cells: TOP_BAR_COLS, or 0 */
	int width[AGG_MAX_GROUP];	/* each column's cells; 0: beyond the screen */
	int shown;			/* the columns drawn, the last one perhaps narrowed to the edge */
};

/*
 * want[c] is column c's widest cell or its heading.  When the row does not
 * fit in cols, the bar goes first; then the widest column gives a cell at a
 * time, down to TOP_MIN_COL; then the columns past the screen's edge are
 * left out, the one it crosses narrowed to what is left (its cells show the
 * cut).
 */
void top_layout(const int *want, size_t n, int cols, struct top_layout *out);

#endif
