// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "read_backend.h"
#include "util.h"

const struct read_backend *read_backend_of(const struct store_reader *set)
{
	return set->read ? set->read : &read_hours;
}

int store_newest_us(const struct store_reader *set, uint64_t *ts_us)
{
	return read_backend_of(set)->newest_us(set, ts_us);
}

int store_coverage(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2])
{
	return read_backend_of(set)->coverage(set, w, sums);
}

void store_pass_totals(const struct store_reader *set, uint64_t from_us, uint64_t to_us, struct pass_totals *pt)
{
	memset(pt, 0, sizeof(*pt));
	read_backend_of(set)->pass_totals(set, from_us, to_us, pt);
}

void pass_totals__add_fact(struct pass_totals *pt, const char *label, const char *value, size_t len)
{
	struct store_fact *f;

	pt->facts = xrealloc(pt->facts, (pt->nfacts + 1) * sizeof(*pt->facts));
	f = &pt->facts[pt->nfacts++];
	f->label = label;
	f->value = xcalloc(1, len + 1);
	memcpy(f->value, value, len);
}

void pass_totals__free(struct pass_totals *pt)
{
	for (size_t i = 0; i < pt->nfacts; i++)
		free(pt->facts[i].value);
	free(pt->facts);
	pt->facts = NULL;
	pt->nfacts = 0;
}

void coverage_add_pass(const struct coverage_window *w, uint64_t ts_us, uint64_t weight_us, double threads,
		       double (*sums)[2])
{
	uint64_t lo = ts_us - weight_us > w->from_us ? ts_us - weight_us : w->from_us;
	uint64_t hi = ts_us < w->to_us ? ts_us : w->to_us;

	for (uint64_t b = (lo - w->from_us) / w->bucket_us; lo < hi && b < w->nbuckets; b++) {
		uint64_t end = w->from_us + (b + 1) * w->bucket_us, cut = end < hi ? end : hi;

		sums[b][0] += threads * (double)(cut - lo);
		sums[b][1] += (double)(cut - lo);
		lo = cut;
	}
}
