/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract query --sql: the user's own SELECT over the samples of a time range.
 * The range's rows of every store file are copied into one in-memory
 * database, with stacks as text, so the SQL sees one `samples` table (and
 * `passes`, `wakeups`, `io_latency`, `syscall_latency`, each with ts_us)
 * however many hours it spans.  The store files are attached read-only and
 * detached before the user's SQL runs: it sees the copy alone, and that
 * read-only too, within a time, row and memory limit.
 */
#ifndef TRACT_RAWSQL_H
#define TRACT_RAWSQL_H

#include <stdint.h>
#include <stdio.h>
#include "format.h"
#include "rawsql_rows.h"
#include "reader.h"

/* What a back end's run_sql (read_backend.h) is asked: the arguments of rawsql_run_with(). */
struct rawsql_request {
	uint64_t from_us, to_us;	/* the range the hours' copy takes; the server's SQL names its own */
	int strict;
	const char *sql;
	enum render_format format;
	const struct rawsql_limits *lim;
};

/*
 * 0; -EINVAL after a message for bad SQL or SQL that would write; another
 * -errno after one for a bad file or a limit reached (-ETIME, -EFBIG,
 * -ENOMEM: the rows up to it printed).
 */
int rawsql_run_with(const struct store_reader *set, uint64_t from_us, uint64_t to_us, int strict, const char *sql,
		    enum render_format format, const struct rawsql_limits *lim, FILE *out);
/* The same with the default limits. */
int rawsql_run(const struct store_reader *set, uint64_t from_us, uint64_t to_us, int strict, const char *sql,
	       enum render_format format, FILE *out);

#endif
