// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQLite writer's memory of the dimension rows it wrote (threads,
 * calls, processes): ten minutes of a host that starts programs all the
 * time leave it holding about what was alive lately, not every thread of
 * the hour, and every sample still names its thread and call as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>
#include "sink.h"
#include "../store_fixture.h"

#define PASSES 600		/* ten minutes, a pass a second */
#define NEW_A_PASS 20		/* threads that live a moment, each in a call of its own */
#define DAEMON 1		/* a thread in every pass */
#define AGAIN_SOON 2		/* in the first pass and 30 s later */
#define AGAIN_LATE 3		/* in the first pass and 400 s later */

static int64_t count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void the_writer_remembers_what_is_alive(void **state)
{
	struct sink *s;
	sqlite3 *db;
	size_t most = 0;
	uint32_t tid = 1000;

	(void)state;
	assert_int_equal(store_sqlite__open_memory("test", &s, &db), 0);
	for (int i = 0; i < PASSES; i++) {
		struct pass p = { .seq = (uint64_t)i, .ts_us = FIXTURE_FIRST_US + (uint64_t)i * 1000000,
				  .weight_us = 1000000, .visited = 1 };

		fixture_row(&p, DAEMON, "daemon", TRACT_STATE_SLEEP, 7 /* poll */);
		if (i == 0 || i == 30)
			fixture_row(&p, AGAIN_SOON, "soon", TRACT_STATE_RUN, -1);
		if (i == 0 || i == 400)
			fixture_row(&p, AGAIN_LATE, "late", TRACT_STATE_RUN, -1);
		for (int k = 0; k < NEW_A_PASS; k++) {
			struct sample *r = fixture_row(&p, tid++, "sh", TRACT_STATE_SLEEP, 61 /* wait4 */);

			r->sc_args[0] = tid;
		}
		assert_int_equal(sink__write_pass(s, &p), 0);
		pass__free_rows(&p);
		if (store_sqlite__remembered(s) > most)
			most = store_sqlite__remembered(s);
	}
	/* two minutes of threads and calls at most, of the ten written */
	assert_true(most <= 2 * 2 * 60 * (NEW_A_PASS + 3) + 16);
	sink__close(s);
	/* what is written: one row a thread while it is used, every sample of its own */
	assert_int_equal(count(db, "SELECT count(*) FROM threads WHERE tid = 1"), 1);
	assert_int_equal(count(db, "SELECT count(*) FROM threads WHERE tid = 2"), 1);
	assert_int_equal(count(db, "SELECT count(*) FROM sample_facts f JOIN threads t ON t.id = f.thread "
				   "WHERE t.tid = 1 AND t.comm = 'daemon'"), PASSES);
	assert_int_equal(count(db, "SELECT count(*) FROM threads WHERE tid >= 1000"), PASSES * NEW_A_PASS);
	assert_int_equal(count(db, "SELECT count(DISTINCT id) FROM threads"), count(db, "SELECT count(*) FROM threads"));
	/* the one back after minutes away is written again, and its samples name it */
	assert_int_equal(count(db, "SELECT count(*) FROM sample_facts f JOIN threads t ON t.id = f.thread "
				   "WHERE t.tid = 3 AND t.comm = 'late'"), 2);
	/* every call's sample names its own arguments */
	assert_int_equal(count(db, "SELECT count(*) FROM sample_facts f JOIN threads t ON t.id = f.thread "
				   "JOIN calls c ON c.id = f.call WHERE t.tid >= 1000 AND c.a0 = t.tid + 1"),
			 PASSES * NEW_A_PASS);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_writer_remembers_what_is_alive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
