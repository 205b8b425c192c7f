// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sample that repeats its thread's previous one (same wait, same stacks,
 * its times gone on with the clock) is judged a repeat and costs the SQLite
 * store no row, and the samples view gives back every sample as it was:
 * each pass, its times at that pass.  A change, a time that does not
 * follow, a pass without the thread, and a recorder that stops and another
 * that goes on writing the file all end a run where it ended.
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
#include "reader.h"
#include "repeats.h"
#include "schema.h"
#include "sink.h"
#include "util.h"
#include "../store_fixture.h"

#define SEC 1000000ULL

/* tid asleep in futex since asleep_us, at the pass's time less lateness_us (the sampler reads it late) */
static struct sample *waiting(struct pass *p, uint32_t tid, uint64_t asleep_us, uint64_t lateness_us)
{
	struct sample *r = fixture_row(p, tid, "waiter", TRACT_STATE_SLEEP, 202 /* futex */);

	r->flags |= TRACT_SF_STATE_TIME | TRACT_SF_SC_TIME;
	r->state_us = r->sc_us = p->ts_us + lateness_us - asleep_us;
	r->sc_args[0] = 0x1000;
	return r;
}

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

/* The passes' rows of tid as the samples view reads them: "state_us,sc_us;" each, by pass. */
static char *view_of(sqlite3 *db, uint32_t tid)
{
	static char out[4096];
	sqlite3_stmt *st;
	size_t n = 0;
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT ts_us, state, state_us, sc_us FROM samples WHERE tid = %u ORDER BY ts_us", tid);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	out[0] = 0;
	while (sqlite3_step(st) == SQLITE_ROW && n < sizeof(out) - 64)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%lld %s %lld %lld;",
				      (long long)((uint64_t)sqlite3_column_int64(st, 0) - FIXTURE_FIRST_US) / (long long)SEC,
				      sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
	sqlite3_finalize(st);
	return out;
}

/*
 * Six passes a second apart: 1 waits throughout (read late by up to 300 µs:
 * within the slack); 2 waits, then its wait's time jumps (it woke and slept
 * again between two passes); 3 waits and is gone from the fourth pass on;
 * 4 changes its state at the third.
 */
static void write_passes(struct sink *s, struct repeats *rp, int first, int last, int *repeated)
{
	for (int i = first; i <= last; i++) {
		struct pass p = { .seq = (uint64_t)i, .ts_us = FIXTURE_FIRST_US + (uint64_t)i * SEC, .weight_us = SEC };

		waiting(&p, 1, FIXTURE_FIRST_US - 5 * SEC, (uint64_t)(i % 3) * 100);
		waiting(&p, 2, i < 3 ? FIXTURE_FIRST_US - SEC : FIXTURE_FIRST_US + 2 * SEC + SEC / 2, 0);
		if (i < 3)
			waiting(&p, 3, FIXTURE_FIRST_US, 0);
		fixture_row(&p, 4, "changer", i < 2 ? TRACT_STATE_SLEEP : TRACT_STATE_RUN, -1);
		repeats__judge(rp, &p);
		for (size_t k = 0; k < p.nr; k++)
			*repeated += p.rows[k].repeat;
		assert_int_equal(sink__write_pass(s, &p), 0);
		pass__free_rows(&p);
	}
}

static void repeats_cost_no_row_and_read_back_whole(void **state)
{
	struct store_config cfg = { .frequency_hz = 1, .source = "test", .gid = -1 };
	struct repeats *rp = repeats__new();
	char *dir = fixture_dir(), path[256];
	int repeated = 0;
	struct sink *s;
	sqlite3 *db;

	(void)state;
	cfg.dir = dir;
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	write_passes(s, rp, 0, 5, &repeated);
	sink__close(s);
	/* 1: five repeats; 2: two in each of its waits; 3: two; 4: one asleep, three on a CPU */
	assert_int_equal(repeated, 5 + 4 + 2 + 1 + 3);
	snprintf(path, sizeof(path), "%s/tract-20261130-22.db", dir);
	assert_int_equal(store_open_file(path, &db), 0);
	/* 24 samples in 10 rows: 1's one, 2's two, 3's one, 4's two, for 6 passes */
	assert_int_equal(count(db, "SELECT count(*) FROM samples"), 6 + 6 + 3 + 6);
	assert_int_equal(count(db, "SELECT count(*) FROM sample_facts"), 1 + 2 + 1 + 2);
	/* every pass's sample with its times at that pass: read late by at most the slack, as the first was */
	assert_string_equal(view_of(db, 1), "0 SLEEP 5000000 5000000;1 SLEEP 6000000 6000000;2 SLEEP 7000000 7000000;"
					    "3 SLEEP 8000000 8000000;4 SLEEP 9000000 9000000;5 SLEEP 10000000 10000000;");
	assert_string_equal(view_of(db, 2), "0 SLEEP 1000000 1000000;1 SLEEP 2000000 2000000;2 SLEEP 3000000 3000000;"
					    "3 SLEEP 500000 500000;4 SLEEP 1500000 1500000;5 SLEEP 2500000 2500000;");
	assert_string_equal(view_of(db, 3), "0 SLEEP 0 0;1 SLEEP 1000000 1000000;2 SLEEP 2000000 2000000;");
	/* the run that ended with the thread gone says so: the later passes are not its */
	assert_int_equal(count(db, "SELECT repeats FROM sample_facts f JOIN threads t ON t.id = f.thread WHERE t.tid = 3"),
			 2);
	/* the runs still going at the file's newest pass say so */
	assert_int_equal(count(db, "SELECT count(*) FROM sample_facts WHERE repeats = 8388607"), 3);
	sqlite3_close(db);

	/* another recorder goes on with the file: the runs left open end where the first stopped */
	assert_int_equal(store_sqlite__open(&cfg, &s), 0);
	repeats__free(rp);
	rp = repeats__new();
	repeated = 0;
	write_passes(s, rp, 7, 8, &repeated);
	sink__close(s);
	assert_int_equal(store_open_file(path, &db), 0);
	assert_int_equal(count(db, "SELECT count(*) FROM samples WHERE tid = 1"), 6 + 2);
	assert_int_equal(count(db, "SELECT count(*) FROM samples WHERE tid = 4 AND state = 'RUN'"), 4 + 2);
	assert_int_equal(count(db, "SELECT count(*) FROM samples s JOIN passes p ON p.ts_us = s.ts_us"), 8 * 3 + 3);
	sqlite3_close(db);
	repeats__free(rp);
	fixture_remove(dir);
}

/* A time off by more than the slack, or any other value changed, is a sample of its own. */
static void a_change_is_no_repeat(void **state)
{
	struct repeats *rp = repeats__new();
	struct pass p = { 0 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct sample *r;

		pass__reset(&p);
		p.ts_us = FIXTURE_FIRST_US + (uint64_t)i * SEC;
		r = waiting(&p, 1, FIXTURE_FIRST_US - SEC, i == 2 ? 2 * REPEAT_SLACK_US : 0);
		if (i == 3)
			r->sc_args[1] = 1;	/* another argument: another wait */
		repeats__judge(rp, &p);
		assert_int_equal(p.rows[0].repeat, i == 1);
	}
	pass__free_rows(&p);
	repeats__free(rp);
}

/*
 * A thread that has not run since (its count of runs the same) is in the
 * same wait however far its times drift (the kernel's task clock lags by
 * what the host took); one that ran in between is in a wait of its own,
 * even where its times happen to follow.
 */
static void the_count_of_runs_tells_one_wait(void **state)
{
	static const struct {
		uint64_t run_count, drift_us;
		int repeat;
	} passes[] = { { 7, 0, 0 }, { 7, 30000, 1 }, { 7, 50000, 1 }, { 8, 0, 0 }, { 8, 0, 1 } };
	struct repeats *rp = repeats__new();
	struct pass p = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(passes); i++) {
		struct sample *r;

		pass__reset(&p);
		p.ts_us = FIXTURE_FIRST_US + (uint64_t)i * SEC;
		r = waiting(&p, 1, FIXTURE_FIRST_US - SEC, 0);
		r->state_us -= passes[i].drift_us;
		r->run_count = passes[i].run_count;
		repeats__judge(rp, &p);
		assert_int_equal(p.rows[0].repeat, passes[i].repeat);
		/* a repeat's times are the first's gone on with the clock */
		if (i == 1 || i == 2)
			assert_int_equal(p.rows[0].state_us, (i + 1) * SEC);
	}
	pass__free_rows(&p);
	repeats__free(rp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(repeats_cost_no_row_and_read_back_whole),
		cmocka_unit_test(a_change_is_no_repeat),
		cmocka_unit_test(the_count_of_runs_tells_one_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
