// SPDX-License-Identifier: GPL-2.0-only
/*
 * A file mapped to read from counts in the recorder's RSS with every page
 * ever read of it, for as long as it stays mapped: the symbol, CFI and
 * DWARF files of every program the host ran lately, tens of MB on a busy
 * host, which a user reads as the recorder's own memory growing.  Those
 * pages are the page cache's: dropped from this process (MADV_DONTNEED on
 * a read-only private file mapping loses nothing), they come back on the
 * next read from the cache.  Only a range /proc/self/maps shows inside one
 * such mapping is touched: libelf falls back to reading a file into heap
 * memory where it cannot map it, and there MADV_DONTNEED would zero it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mapped_pages.h"
#include "util.h"

struct file_mapping {
	uintptr_t lo, hi;
};

static int by_lo(const void *a, const void *b)
{
	const struct file_mapping *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The read-only private mappings of files, by address; NULL with *n 0 when maps cannot be read. */
static struct file_mapping *read_only_file_mappings(const char *maps_path, size_t *n)
{
	FILE *f = fopen(maps_path ? maps_path : "/proc/self/maps", "re");
	struct file_mapping *v = NULL;
	size_t cap = 0;
	char line[512];

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		unsigned long long inode;
		char perms[8];

		/* "lo-hi perms offset dev inode path": a file has an inode; no w, private */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %llu", &lo, &hi, perms, &inode) != 4 ||
		    !inode || strcmp(perms, "r--p"))
			continue;
		ARRAY_GROW(v, *n, cap, 64);
		v[(*n)++] = (struct file_mapping){ lo, hi };
		/* a line longer than the buffer: its rest is not a line of its own */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	qsort(v, *n, sizeof(*v), by_lo);
	return v;
}

/* The mapping that holds [lo, hi) whole, or NULL. */
static const struct file_mapping *holding(const struct file_mapping *v, size_t n, uintptr_t lo, uintptr_t hi)
{
	size_t a = 0, b = n;

	/* the last mapping that starts at or below lo */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (v[mid].lo <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a && hi <= v[a - 1].hi ? &v[a - 1] : NULL;
}

size_t mapped_pages__give_back(const struct mapped_range *r, size_t n, const char *maps_path)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	size_t nv, bytes = 0;
	struct file_mapping *v;

	if (!n)
		return 0;
	v = read_only_file_mappings(maps_path, &nv);
	for (size_t i = 0; i < n; i++) {
		/* the whole pages of the range: a mapping starts on a page */
		uintptr_t lo = r[i].lo & ~(page - 1), hi = (r[i].hi + page - 1) & ~(page - 1);

		if (hi <= lo || !holding(v, nv, lo, hi) || madvise((void *)lo, hi - lo, MADV_DONTNEED))
			continue;
		bytes += hi - lo;
	}
	free(v);
	return bytes;
}
