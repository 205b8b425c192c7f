/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass as rows of tract's ClickHouse tables, in TabSeparated: text with
 * backslash, tab and newline escaped, NULL as \N (the format ClickHouse
 * reads fastest among the text ones, and round-trips any bytes).
 */
#ifndef TRACT_CH_ROWS_H
#define TRACT_CH_ROWS_H

#include <stdint.h>
#include "pass_tables.h"
#include "sample.h"
#include "strbuf.h"

/* The pass's samples, one line each: host, batch_id, then the samples view's columns. */
size_t ch_rows__samples(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p);
/* A line of stacks_local. */
void ch_rows__stack(struct strbuf *b, const char *host, const struct kstack *s, uint64_t seen_us);
/*
 * The pass's rows of one of its tables (pass_tables.def): host, batch_id,
 * the pass's time (the passes have it), then the table's columns; each
 * stack a row names goes to stack.  How many.
 */
size_t ch_rows__pass_table(struct strbuf *b, enum pass_table_id id, const char *host, uint64_t batch_id,
			   const struct pass *p, void (*stack)(void *arg, const struct kstack *k), void *arg);
/* Text as a TabSeparated field. */
void ch_tsv_text(struct strbuf *b, const char *s, size_t len);

#endif
