/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of a store directory: one set of files per UTC hour, named
 * tract-YYYYMMDD-HH followed by a suffix (.db and its -wal and -shm for
 * SQLite, .samples.csv, .passes.csv, ... for CSV).  The one place that
 * knows it: writers, readers, retention and tract top's private store.
 */
#ifndef TRACT_HOURS_H
#define TRACT_HOURS_H

#include <stddef.h>
#include <stdint.h>

#define HOUR_SQLITE_SUFFIX ".db"
#define HOUR_CSV_SUFFIX ".samples.csv"	/* the file that makes an hour a CSV hour */

/* The file a recorder holds locked while it writes the store (store_lock()). */
#define STORE_LOCK_NAME "tract.lock"

enum hour_format { HOUR_SQLITE = 1 << 0, HOUR_CSV = 1 << 1 };

struct store_hour {
	uint64_t hour_us;		/* the UTC hour's first microsecond */
	unsigned int formats;		/* enum hour_format bits: what files it has */
	uint64_t bytes;			/* all its files, on disk */
};

/* "DIR/tract-YYYYMMDD-HH<suffix>" for the hour holding ts_us; the caller frees it. */
char *store_hour_path(const char *dir, uint64_t ts_us, const char *suffix);
/* The hour a file name stands for, and *suffix after it; 0 for other names. */
uint64_t store_hour_of_name(const char *name, const char **suffix);
/* Every hour of dir, oldest first; 0, or -errno after a message. */
int store_hours_list(const char *dir, struct store_hour **hours, size_t *n);
/* Deletes every file of the hour; a warning for each that will not go. */
void store_hours_remove(const char *dir, uint64_t hour_us);
/* Deletes every hour, then the directory if nothing else is in it. */
void store_hours_remove_all(const char *dir);
/* Whether the hour [hour_us, +1 h) overlaps [from_us, to_us). */
int store_hour_overlaps(uint64_t hour_us, uint64_t from_us, uint64_t to_us);

#endif
