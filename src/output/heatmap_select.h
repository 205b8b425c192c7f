/* SPDX-License-Identifier: GPL-2.0-only */
/* A heatmap of a selection of the store: what tract heatmap draws and tract report shows. */
#ifndef TRACT_HEATMAP_SELECT_H
#define TRACT_HEATMAP_SELECT_H

#include <stdint.h>
#include "heatmap.h"
#include "reader.h"

enum heat_kind { HEAT_NONE, HEAT_SYSCALL, HEAT_IO, HEAT_INFLIGHT };

/* Each kind's title, and its count's noun. */
extern const struct heatmap_kind {
	const char *title, *what;
} heatmap_kinds[];

struct heatmap_selection {
	enum heat_kind kind;
	const char *filter;
	uint64_t from_us, to_us;	/* narrowed to the passes in range */
	int strict;
};

/* Fills h (h->total 0: nothing to draw); 0, or -EINVAL after a message.  h is the caller's to free on success. */
int heatmap__select(const struct store_reader *set, const struct heatmap_selection *sel, struct heatmap *h);

#endif
