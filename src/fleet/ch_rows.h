/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pass as rows of tract's ClickHouse tables, in TabSeparated: text with
 * backslash, tab and newline escaped, NULL as \N (the format ClickHouse
 * reads fastest among the text ones, and round-trips any bytes).
 */
#ifndef TRACT_CH_ROWS_H
#define TRACT_CH_ROWS_H

#include <stdint.h>
#include "sample.h"
#include "strbuf.h"

/* The pass's samples, one line each: host, batch_id, then the samples view's columns. */
size_t ch_rows__samples(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p);
/* The pass's own line of passes_local. */
void ch_rows__pass(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p);
/* A line of stacks_local. */
void ch_rows__stack(struct strbuf *b, const char *host, const struct kstack *s, uint64_t seen_us);
/* The pass's rows of a latency histogram's table, its wakeups' and its profile's: how many. */
enum ch_hist { CH_HIST_IO, CH_HIST_SYSCALL, CH_HIST_RUNQ };
size_t ch_rows__hist(struct strbuf *b, enum ch_hist kind, const char *host, uint64_t batch_id, const struct pass *p);
size_t ch_rows__wakeups(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p);
size_t ch_rows__profile(struct strbuf *b, const char *host, uint64_t batch_id, const struct pass *p);
/* Text as a TabSeparated field. */
void ch_tsv_text(struct strbuf *b, const char *s, size_t len);

#endif
