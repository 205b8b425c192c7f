// SPDX-License-Identifier: GPL-2.0-only
#include "rawsql.h"
#include "read_backend.h"

int rawsql_run_with(const struct store_reader *set, uint64_t from_us, uint64_t to_us, int strict, const char *sql,
		    enum render_format format, const struct rawsql_limits *lim, FILE *out)
{
	const struct rawsql_request rq = { .from_us = from_us, .to_us = to_us, .strict = strict, .sql = sql,
					   .format = format, .lim = lim };

	return read_backend_of(set)->run_sql(set, &rq, out);
}

int rawsql_run(const struct store_reader *set, uint64_t from_us, uint64_t to_us, int strict, const char *sql,
	       enum render_format format, FILE *out)
{
	static const struct rawsql_limits defaults = { RAWSQL_TIMEOUT_S, RAWSQL_MAX_ROWS };

	return rawsql_run_with(set, from_us, to_us, strict, sql, format, &defaults, out);
}
