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
/* ch_rawsql.c */
int ch_run_sql(const struct store_reader *set, const struct rawsql_request *rq, FILE *out);

#endif
