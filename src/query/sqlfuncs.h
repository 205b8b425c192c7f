/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SQL functions tract's queries use on a store: regexp() behind the filter
 * language's '~', and helpers that group rows by what they have in common
 * (doc/filter.md lists them).
 */
#ifndef TRACT_SQLFUNCS_H
#define TRACT_SQLFUNCS_H

#include <sqlite3.h>

/*
 * Register regexp, fold_digits, dir_name, file_ext, top_frame, log2_bucket,
 * activity, wait_class_name, ended_wait_class (ended_waits.h) and
 * fact_activity (fact_activity.h) on db.  Returns 0 or a negative errno.
 */
int sqlfuncs_register(sqlite3 *db);

#endif
