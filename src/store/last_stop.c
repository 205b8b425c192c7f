// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the store's last recording ended.  A recording that stops says why
 * in its last pass (passes.stop); one killed, crashed, or cut off with its
 * host says nothing, and nothing else would tell: the next recorder does.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include "hours.h"
#include "last_stop.h"
#include "reader.h"
#include "schema.h"

/* The newest pass of an SQLite hour that has a stop column of its own (schema 16 on). */
static int last_pass(sqlite3 *db, struct last_stop *ls)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT ts_us, stop FROM passes WHERE (SELECT user_version FROM pragma_user_version) >= 16 "
			       "ORDER BY ts_us DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *stop = sqlite3_column_text(st, 1);

		ls->ts_us = (uint64_t)sqlite3_column_int64(st, 0);
		snprintf(ls->stop, sizeof(ls->stop), "%s", stop ? (const char *)stop : "");
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

int store_last_stop(const char *dir, struct last_stop *ls)
{
	struct store_reader r;
	sqlite3 *db;
	int found = 0;

	memset(ls, 0, sizeof(*ls));
	if (store_reader__open(dir, &r))
		return 0;
	/* the newest hour, if an SQLite file holds it (a CSV hour would be loaded whole for one line) */
	if (r.n && (r.hours[r.n - 1].formats & HOUR_SQLITE) && !store_reader__open_hour(&r, r.n - 1, &db)) {
		found = last_pass(db, ls);
		sqlite3_close(db);
	}
	store_reader__free(&r);
	return found;
}
