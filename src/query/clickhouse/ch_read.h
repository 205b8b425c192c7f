/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read back end of the fleet's ClickHouse (read_backend.h), over a
 * reader ch_store__open() gave: its operations, each beside what it shares
 * with the hours' (the result model, the printing of --sql's rows).
 */
#ifndef TRACT_CH_READ_H
#define TRACT_CH_READ_H

#include <stdio.h>
#include "read_backend.h"

/* ch_aggregate.c */
int ch_aggregate(const struct store_reader *set, const struct agg_query *q, struct agg_result *r);
/*
 * For tests, without a server: what the fleet's table gives column c
 * from, its inputs' names (up to max, each cut to 511 bytes) as
 * ClickHouse reads them, how many, or -ENOTSUP when it cannot; and the two
 * statements of ch_aggregate() for q over every host: the SELECT the server
 * runs (*server) and the one SQLite makes each of its groups' values with
 * (*local), both malloc'd.  0, or -EINVAL after a message.
 */
struct catalog_column;
int ch_aggregate__inputs(const struct catalog_column *c, char (*names)[512], size_t max);
int ch_aggregate__sql(const struct agg_query *q, char **server, char **local);
/* ch_rawsql.c */
int ch_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out);

#endif
