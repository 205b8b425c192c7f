/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hours an older tract wrote, read and written by this one.  Since
 * TRACT_SCHEMA_OLDEST, versions differ only by columns added to the facts
 * (and the view that shows them) and to the passes: an hour gets the
 * columns it lacks, empty (NULL) in its old rows.  The recorder upgrades the hour it goes on
 * writing in place; a reader, who must not write, upgrades a copy in memory.
 */
#ifndef TRACT_UPGRADE_H
#define TRACT_UPGRADE_H

#include <stdint.h>
#include <sqlite3.h>

/* Whether an hour of this version can be upgraded. */
int store_upgradable(int64_t version);
/* Upgrades the hour open in db (its main schema; name for messages), in one transaction: 0 or -EIO. */
int store_upgrade(sqlite3 *db, const char *name);

/*
 * The hour open read-only in *db, copied into memory and upgraded there:
 * *db is then the copy; the file's connection is closed either way (*db
 * NULL on an error).  0 or -errno.
 */
int store_upgrade_copy(sqlite3 **db);

#endif
