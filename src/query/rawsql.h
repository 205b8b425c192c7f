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
#include "reader.h"

/*
 * What the user's SQL may take: the time it runs (not the range's copy;
 * with --clickhouse, the local part, the server's being the HTTP
 * request's), the rows it answers (0: no limit for either), and memory
 * beyond the copy, RAWSQL_HEAP_MIB.
 */
#define RAWSQL_TIMEOUT_S 60
#define RAWSQL_MAX_ROWS 1000000
#define RAWSQL_HEAP_MIB 1024
struct rawsql_limits {
	unsigned int timeout_s;
	uint64_t max_rows;
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
