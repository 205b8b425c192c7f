/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hourly SQLite files of a store directory, for the readers (query,
 * top): which files hold a time range, and opening one read-only, so that
 * anyone who may read the files may analyse them, beside a running recorder.
 */
#ifndef TRACT_STORESET_H
#define TRACT_STORESET_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

struct store_file {
	char *path;
	uint64_t hour_us;	/* the UTC hour the file holds */
};

struct storeset {
	char *dir;
	struct store_file *files;	/* oldest first */
	size_t n;
};

/* The store directory readers use when none is given: $TRACT_DATA or the default. */
#define DEFAULT_DATA_DIR "/var/lib/tract"

/* $TRACT_DATA, or DEFAULT_DATA_DIR. */
const char *storeset_default_dir(void);
/* The UTC hour of a store file's name "tract-YYYYMMDD-HH<suffix>", or 0; *suffix points into name. */
uint64_t store_hour_of_name(const char *name, const char **suffix);
/* Lists dir's files; 0, or a negative errno after a message (no such directory). */
int storeset__open(const char *dir, struct storeset *set);
void storeset__free(struct storeset *set);
/* Whether file f may hold samples in [from_us, to_us). */
int storeset__overlaps(const struct store_file *f, uint64_t from_us, uint64_t to_us);
/*
 * Opens a store file read-only, with tract's SQL functions; 0, or
 * -EINVAL after a message when it is not a store this tract reads.
 */
int store_open_readonly(const char *path, sqlite3 **db);
/* A SQLite URI for path (which may hold '?', '#' or '%') with params; malloc'd. */
char *store_file_uri(const char *path, const char *params);
/* The newest pass time in the set (0 when empty); negative errno on a bad file. */
int storeset__newest_us(const struct storeset *set, uint64_t *ts_us);

#endif
