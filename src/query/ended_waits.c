// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ended_waits.h"
#include "value_names.h"
#include "util.h"
#include "tract/abi.h"

struct ended_wait {
	int64_t thread;			/* threads.id of the waiter */
	int64_t start_us, end_us;
	int wait_class;			/* enum tract_wait_class */
};

struct ended_waits {
	int holders;
	int loaded;
	struct ended_wait *w;		/* by thread, then start */
	size_t n, cap;
};

struct ended_waits *ended_waits__new(void)
{
	struct ended_waits *e = calloc(1, sizeof(*e));

	if (e)
		e->holders = 1;
	return e;
}

void ended_waits__hold(struct ended_waits *e)
{
	e->holders++;
}

void ended_waits__release(void *p)
{
	struct ended_waits *e = p;

	if (!e || --e->holders > 0)
		return;
	free(e->w);
	free(e);
}

/* The file's waits, sorted by the query itself; none where the file has no such table. */
static void load(sqlite3 *db, struct ended_waits *e)
{
	sqlite3_stmt *st;

	e->loaded = 1;
	if (sqlite3_prepare_v2(db,
			       "SELECT t.id, w.start_us, w.end_us, w.wait_class FROM main.wait_ends w"
			       " JOIN main.threads t ON t.tid = w.tid ORDER BY t.id, w.start_us",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 3);
		struct ended_wait *w;

		ARRAY_GROW(e->w, e->n, e->cap, 256);
		w = &e->w[e->n++];
		w->thread = sqlite3_column_int64(st, 0);
		w->start_us = sqlite3_column_int64(st, 1);
		w->end_us = sqlite3_column_int64(st, 2);
		w->wait_class = name ? wait_class_id(name) : TRACT_WAIT_UNKNOWN;
	}
	sqlite3_finalize(st);
}

/* The wait of thread that began last at or before ts_us; NULL if none did. */
static const struct ended_wait *latest_begun(const struct ended_waits *e, int64_t thread, int64_t ts_us)
{
	size_t lo = 0, hi = e->n;

	/* the first wait after (thread, ts_us) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ended_wait *w = &e->w[mid];

		if (w->thread < thread || (w->thread == thread && w->start_us <= ts_us))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && e->w[lo - 1].thread == thread ? &e->w[lo - 1] : NULL;
}

int ended_waits__class(struct ended_waits *e, sqlite3 *db, int64_t thread, int64_t ts_us)
{
	const struct ended_wait *w;

	if (!e->loaded)
		load(db, e);
	w = latest_begun(e, thread, ts_us);
	return w && ts_us <= w->end_us ? w->wait_class : TRACT_WAIT_UNKNOWN;
}

static void sql_ended_wait_class(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *name;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	name = wait_class_name(ended_waits__class(sqlite3_user_data(ctx), sqlite3_context_db_handle(ctx),
						  sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1])));
	if (name)
		sqlite3_result_text(ctx, name, -1, SQLITE_STATIC);
}

int ended_waits_register(sqlite3 *db, struct ended_waits *e)
{
	int rc;

	ended_waits__hold(e);
	/* not deterministic: its value is the file's, which SQLite must not fold into a prepared plan */
	rc = sqlite3_create_function_v2(db, "ended_wait_class", 2, SQLITE_UTF8, e, sql_ended_wait_class, NULL,
					NULL, ended_waits__release);
	return rc == SQLITE_OK ? 0 : rc == SQLITE_NOMEM ? -ENOMEM : -EINVAL;
}
