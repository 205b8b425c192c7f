/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hours an older tract wrote, read and written by this one.  Since
 * TRACT_SCHEMA_OLDEST, versions differ by columns added to the facts (and
 * the view that shows them) and to the passes, which an hour gets empty
 * (NULL) in its old rows; by the histograms and edges naming processes and
 * syscalls by id (9); and by trace contexts kept once in a dimension (10):
 * the old rows are copied into those.  The recorder upgrades the hour it goes on
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
