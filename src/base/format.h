/* SPDX-License-Identifier: GPL-2.0-only */
/* The forms an answer prints in, shared by every command that reads the store. */
#ifndef TRACT_FORMAT_H
#define TRACT_FORMAT_H

#include <stddef.h>

enum render_format { RENDER_TABLE, RENDER_CSV, RENDER_JSON };

struct render_opts {
	enum render_format format;
	size_t top;			/* rows shown; 0: all */
	int utf8;			/* bars of block characters */
	/*
	 * The terminal's width: a table's cells are cut to what a line leaves
	 * them (40 cells at least), with a mark where they were; 0: never cut,
	 * as for a pipe.
	 */
	size_t columns;
};

/* table, csv or json; -1 for anything else. */
int render_parse_format(const char *s);

#endif
