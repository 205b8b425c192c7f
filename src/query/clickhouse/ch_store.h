/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's store: tract's tables in ClickHouse (tract.samples, passes,
 * stacks, with a host column), read through the same store reader as a
 * directory of hours.  query, top and the pictures take --clickhouse URL and
 * their group-bys, filters and time ranges run in the server.
 */
#ifndef TRACT_CH_STORE_H
#define TRACT_CH_STORE_H

#include <stdint.h>
#include "ch_tsv.h"
#include "reader.h"
#include "strbuf.h"

struct ch_store_opts {
	const char *url;		/* NULL: read the local store */
	const char *user, *password_file, *ca_file;
	const char *host;		/* only this host's rows; NULL: every host */
};

struct ch_store;

/* Opens a reader over the server (it answers, tract's tables are there); 0 or -errno after a message. */
int ch_store__open(const struct ch_store_opts *o, struct store_reader *out);
/* The server of a reader, or NULL for a local store. */
struct ch_store *ch_store__of(const struct store_reader *r);
/* Runs sql (without FORMAT) and reads its answer; 0, or -EIO after a message. */
int ch_store__select(struct ch_store *s, const char *sql, struct ch_table *t);
/* The same for SQL that is not tract's (--sql): the server refuses anything but reading. */
int ch_store__select_readonly(struct ch_store *s, const char *sql, struct ch_table *t);
/* " AND host = '...'" when the reader is narrowed to a host, appended to sql (s NULL: every host). */
void ch_store__host_filter(const struct ch_store *s, struct strbuf *sql);

#endif
