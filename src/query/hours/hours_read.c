// SPDX-License-Identifier: GPL-2.0-only
/*
 * The read back end of a directory of hours: the passes' coverage and
 * totals, read hour by hour; aggregate and --sql are aggregate.c's and
 * hours_sql.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "hours_read.h"
#include "util.h"

static int hours_coverage(const struct store_reader *set, const struct coverage_window *w, double (*sums)[2])
{
	for (size_t i = 0; i < set->n; i++) {
		sqlite3_stmt *st;
		sqlite3 *db;
		int err;

		if (!store_hour_overlaps(set->hours[i].hour_us, w->from_us, w->to_us + 2 * w->bucket_us))
			continue;
		tract_hold_errors(1);
		err = store_reader__open_hour(set, i, &db);
		tract_hold_errors(0);
		/* the refresh's own read of the hour has said it is damaged, or failed with strict */
		if (err)
			continue;
		if (sqlite3_prepare_v2(db, "SELECT ts_us, weight_us, emitted FROM passes "
					   "WHERE ts_us >= ?1 AND ts_us - weight_us < ?2", -1, &st, NULL) != SQLITE_OK) {
			char *name = store_reader__hour_name(set, i);

			tract_err("cannot read the passes of '%s': %s", name, sqlite3_errmsg(db));
			free(name);
			sqlite3_close(db);
			return -EIO;
		}
		sqlite3_bind_int64(st, 1, (int64_t)w->from_us);
		sqlite3_bind_int64(st, 2, (int64_t)w->to_us);
		while (sqlite3_step(st) == SQLITE_ROW)
			coverage_add_pass(w, (uint64_t)sqlite3_column_int64(st, 0), (uint64_t)sqlite3_column_int64(st, 1),
					  sqlite3_column_double(st, 2), sums);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
	return 0;
}

/* The facts of an hour's meta table, as a report's header names them. */
static void hour_facts(sqlite3 *db, struct pass_totals *pt)
{
	static const char *const keys[][2] = { { "host", "host" }, { "kernel", "kernel" },
					      { "frequency_hz", "passes a second" }, { "source", "source" } };
	sqlite3_stmt *st;

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL))
			break;
		sqlite3_bind_text(st, 1, keys[k][0], -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			pass_totals__add_fact(pt, keys[k][1], (const char *)sqlite3_column_text(st, 0),
					      (size_t)sqlite3_column_bytes(st, 0));
		sqlite3_finalize(st);
	}
}

/* The facts are the newest hour's in range that has passes (and those of newer hours without). */
static void hours_pass_totals(const struct store_reader *set, uint64_t from_us, uint64_t to_us,
			      struct pass_totals *pt)
{
	for (size_t i = set->n; i-- > 0;) {
		sqlite3 *db;
		sqlite3_stmt *st;

		if (!store_hour_overlaps(set->hours[i].hour_us, from_us, to_us) ||
		    store_reader__open_or_skip(set, i, 0, &db) || !db)
			continue;
		if (!pt->passes)
			hour_facts(db, pt);
		if (!sqlite3_prepare_v2(db, "SELECT coalesce(sum(cpu_us), 0), count(*), coalesce(sum(dropped), 0), "
					    "coalesce(sum(bpf_us), 0), count(bpf_us), "
					    "coalesce(sum(weight_us) FILTER (WHERE bpf_us IS NOT NULL), 0)"
					    " FROM passes WHERE ts_us >= ?1 AND ts_us < ?2", -1, &st, NULL)) {
			sqlite3_bind_int64(st, 1, (int64_t)from_us);
			sqlite3_bind_int64(st, 2, (int64_t)to_us);
			if (sqlite3_step(st) == SQLITE_ROW) {
				pt->cpu_us += (uint64_t)sqlite3_column_int64(st, 0);
				pt->passes += (uint64_t)sqlite3_column_int64(st, 1);
				pt->dropped += (uint64_t)sqlite3_column_int64(st, 2);
				pt->bpf_us += (uint64_t)sqlite3_column_int64(st, 3);
				pt->bpf_passes += (uint64_t)sqlite3_column_int64(st, 4);
				pt->bpf_weight_us += (uint64_t)sqlite3_column_int64(st, 5);
			}
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
	}
}

const struct read_backend read_hours = {
	.aggregate = hours_aggregate,
	.run_sql = hours_run_sql,
	.coverage = hours_coverage,
	.pass_totals = hours_pass_totals,
	.newest_us = store_reader__newest_us,
};
