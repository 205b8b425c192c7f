/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pages of files the recorder maps to read symbols, CFI and DWARF
 * from, given back now and then (mapped_pages.c).
 */
#ifndef TRACT_MAPPED_PAGES_H
#define TRACT_MAPPED_PAGES_H

#include <stddef.h>
#include <stdint.h>

struct mapped_range {
	uintptr_t lo, hi;
};

/*
 * Each range that lies in one read-only private mapping of a file, as
 * /proc/self/maps (maps_path, NULL: that) lists them, dropped from this
 * process's pages (the page cache keeps them: the next read faults them
 * back in); any other range (heap memory, a writable mapping) is left
 * alone.  The bytes given back: mapped, not necessarily resident.
 */
size_t mapped_pages__give_back(const struct mapped_range *r, size_t n, const char *maps_path);

#endif
