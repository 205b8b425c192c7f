/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The read side of a store directory: its hours, each opened as an SQLite
 * database of the store's schema whatever format it was written in (an
 * SQLite file as it is, CSV files loaded into memory).  query, top and
 * --sql read the store only through this.
 */
#ifndef TRACT_READER_H
#define TRACT_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "hours.h"

#define DEFAULT_DATA_DIR "/var/lib/tract"

/*
 * A store that is not a directory of hours (ClickHouse, in the query
 * layer): a reader with one has no hours, is read through its read back
 * end, and frees it.
 */
struct store_remote;
struct store_remote_ops {
	void (*free)(struct store_remote *r);
};
struct store_remote {
	const struct store_remote_ops *ops;
};

/* What the query layer reads a store through (query/read_backend.h). */
struct read_backend;

struct store_reader {
	char *dir;
	struct store_hour *hours;	/* oldest first */
	size_t n;
	struct store_remote *remote;	/* NULL: the hours of dir */
	const struct read_backend *read;	/* NULL: the hours of dir */
};

/* $TRACT_DATA, or DEFAULT_DATA_DIR. */
const char *store_default_dir(void);
/* Lists the hours of dir that hold samples; 0, or -errno after a message. */
int store_reader__open(const char *dir, struct store_reader *r);
void store_reader__free(struct store_reader *r);
/* The file that names hour i in messages; the caller frees it. */
char *store_reader__hour_name(const struct store_reader *r, size_t i);
/* Hour i, read-only, as a database of the store's schema; 0, or -errno after a message naming it. */
int store_reader__open_hour(const struct store_reader *r, size_t i, sqlite3 **db);
/*
 * The same, but a damaged hour is skipped with a warning naming it (1)
 * unless strict, when it is an error.
 */
int store_reader__open_or_skip(const struct store_reader *r, size_t i, int strict, sqlite3 **db);
/*
 * After reading an hour with tract_hold_errors() on: err as it was (0, or
 * an error after printing the held message), or 1 after a warning when
 * the hour could not be read (-EIO) and it is not strict.  Used where the
 * damage shows only mid-read, as SQLite reaches the damaged pages.
 */
int store_reader__skip_damaged(int err, int strict);
/* Attaches hour i to db under the schema name as; detaching it is the caller's. */
int store_reader__attach_hour(const struct store_reader *r, size_t i, sqlite3 *db, const char *as);
/* The newest pass time of the hours, 0 when they have none (the query layer's store_newest_us() any store's). */
int store_reader__newest_us(const struct store_reader *r, uint64_t *ts_us);

/* An SQLite store file opened to read, its schema version checked; it may recover a WAL first (reader.c). */
int store_open_file(const char *path, sqlite3 **db);
/* file:PATH?params, with the characters a URI path must not hold escaped. */
char *store_file_uri(const char *path, const char *params);

#endif
