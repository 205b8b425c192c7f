/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read back end of a directory of hours (read_backend.h), each hour
 * read as an SQLite database: its operations, each beside the engine it
 * runs on.
 */
#ifndef TRACT_HOURS_READ_H
#define TRACT_HOURS_READ_H

#include <stdio.h>
#include "read_backend.h"

/* aggregate.c */
int hours_aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r);
/* hours_sql.c */
int hours_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out);

#endif
