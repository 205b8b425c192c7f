/* SPDX-License-Identifier: GPL-2.0-only */
/* The options tract query and tract top share: store, time range, grouping, filter. */
#ifndef TRACT_QUERY_H
#define TRACT_QUERY_H

#include <stdint.h>
#include "catalog.h"
#include "format.h"
#include "reader.h"

struct query_opts {
	const char *dir;
	const char *group;		/* NULL: the catalog's default */
	const char *filter;
	const char *sql;
	const struct catalog *cat;
	int hist, list_columns;
	int top_given;			/* -n was given */
	int has_from, has_to;
	uint64_t from_us, to_us, now_us;
	struct render_opts render;
};

/* 0, 1 when --help was shown, or -EINVAL after a message. */
int query_parse_args(int argc, char **argv, struct query_opts *o);
/* --from and --to of "tract CMD" into o; 0 or -EINVAL after a message. */
int query_parse_range(const char *cmd, const char *from, const char *to, struct query_opts *o);
/* Fills the open ends of the range from the store; 0 or -EINVAL after a message. */
int query_resolve_range(const struct store_reader *set, struct query_opts *o);
/* Whether the terminal takes UTF-8 (for bars of block characters). */
int query_utf8_terminal(void);

#endif
