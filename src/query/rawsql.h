/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tract query --sql: the user's own SELECT over the samples of a time range.
 * The range's rows of every store file are copied into one in-memory
 * database, with stacks as text, so the SQL sees one `samples` table (and
 * `passes`, `wakeups`, `io_latency`, `syscall_latency`, each with ts_us)
 * however many hours it spans.  The store files are opened read-only.
 */
#ifndef TRACT_RAWSQL_H
#define TRACT_RAWSQL_H

#include <stdint.h>
#include <stdio.h>
#include "format.h"
#include "reader.h"

/* 0, or -EINVAL after a message (bad SQL, bad file). */
int rawsql_run(const struct store_reader *set, uint64_t from_us, uint64_t to_us, int strict, const char *sql,
	       enum render_format format, FILE *out);

#endif
