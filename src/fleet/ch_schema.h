/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract's tables in ClickHouse: the samples with the same column names as
 * the SQLite samples view, plus the host and the batch they came in, and
 * the stacks and passes beside them.  Each recorder writes its server's
 * *_local tables; queries read the tables without the suffix, Distributed
 * over a cluster or, on one server, views of the local ones.
 */
#ifndef TRACT_CH_SCHEMA_H
#define TRACT_CH_SCHEMA_H

#include <stdio.h>
#include "ch_http.h"

struct ch_schema_opts {
	const char *database;		/* an identifier (ch_identifier_ok) */
	const char *cluster;		/* NULL: one server */
};

/* The DDL, one statement a line's end with ";\n"; 0 or -1 on a write error. */
int ch_schema_write(FILE *out, const struct ch_schema_opts *o);
/*
 * Creates the tables of one server where they are missing, a statement a
 * request: CH_OK, or the first other outcome with the server's *answer
 * (malloc'd, or NULL).
 */
enum ch_outcome ch_schema_create(struct ch_http *h, const char *database, char **answer);

#endif
