// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pass's own tables, defined once (pass_tables.def), come out alike
 * from every store: a pass with rows in every table, written to the SQLite
 * store and to the CSV store, reads back the same from each table or view
 * of its name, every column and NULL included; and the SQL the definition
 * makes (tables, views, inserts, the fleet's backfill) is SQLite's.
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
#include "csv_reader.h"
#include "hours.h"
#include "pass_tables.h"
#include "reader.h"
#include "schema.h"
#include "sink.h"
#include "strbuf.h"
#include "../store_fixture.h"

static struct kstack kernel = { .hash = 0x8000000000000001ull, .kind = "kernel", .frames = (char *)"a;b" };
static struct kstack user = { .hash = 42, .kind = "user", .frames = (char *)"main;work" };

/* A pass with rows in every table: NULLs (a folded process, an irq waker, no user stack) and quoting among them. */
static void fill(struct pass *p, int i)
{
	struct hist_row *h;
	struct wakeup_row *w;
	struct profile_row *pr;
	struct steal_row *sr;
	struct wait_end_row *we;

	*p = (struct pass){ .seq = (uint64_t)i, .ts_us = FIXTURE_FIRST_US + (uint64_t)i * 1000000,
			    .weight_us = 1000000, .visited = 9, .dropped = 1, .duration_us = 300, .cpu_us = 200,
			    .hist_lost = 3, .displaced = 1, .unsampled_us = 7, .moment_read = 1, .has_bpf_us = i,
			    .bpf_us = 55 };
	fixture_row(p, 1, "spin", TRACT_STATE_RUN, -1);
	pass__count_load(p);
	h = hist_rows__add(&p->io_hist);
	*h = (struct hist_row){ .name = "vda", .what = "write", .le_us = 256, .count = 5, .sum_us = 900 };
	h = hist_rows__add(&p->sc_hist);
	*h = (struct hist_row){ .tgid = 100, .name = "d,b", .what = "fsync", .le_us = 1024, .count = 2, .sum_us = 1500 };
	h = hist_rows__add(&p->sc_hist);
	*h = (struct hist_row){ .name = "gcc", .what = "read", .le_us = 1, .count = 40, .sum_us = 20 };
	h = hist_rows__add(&p->runq_hist);
	*h = (struct hist_row){ .tgid = 100, .name = "db", .le_us = 64, .count = 3, .sum_us = 100 };
	w = wakeup_rows__add(&p->wakeups);
	*w = (struct wakeup_row){ .waker = "irq", .wakee_tgid = 100, .wakee = "db", .count = 4, .runq_us = 8,
				  .blocked_us = 16 };
	w = wakeup_rows__add(&p->wakeups);
	*w = (struct wakeup_row){ .waker_tgid = 100, .waker = "a\"b", .wakee_tgid = 100, .wakee = "db", .count = 1,
				  .runq_us = 2, .blocked_us = 3 };
	pr = profile_rows__add(&p->profile);
	*pr = (struct profile_row){ .tid = 1, .tgid = 100, .comm = "spin", .pcomm = "db", .kstack = &kernel,
				    .ustack = &user, .ticks = 6 };
	sr = steal_rows__add(&p->steal);
	*sr = (struct steal_row){ .cpu = 1, .steal_us = 2500 };
	/* a wait a thread ended, and one a timer did (no thread: NULLs) */
	we = wait_end_rows__add(&p->wait_ends);
	*we = (struct wait_end_row){ .tid = 5, .tgid = 100, .start_us = p->ts_us - 300000, .end_us = p->ts_us - 1000,
				     .ender_tid = 6, .ender_tgid = 100, .ender = "kick,er", .wait_class = "blocked" };
	we = wait_end_rows__add(&p->wait_ends);
	*we = (struct wait_end_row){ .tid = 7, .tgid = 100, .start_us = p->ts_us - 200000, .end_us = p->ts_us - 5,
				     .ender = "timer", .wait_class = "sleeping" };
	pr = profile_rows__add(&p->profile);
	*pr = (struct profile_row){ .tid = 7, .tgid = 7, .comm = "kworker/0:1", .pcomm = "kworker/0:1", .kstack = &kernel,
				    .ticks = 1 };
}

static void write_store(int (*open)(const struct store_config *, struct sink **), const char *dir)
{
	struct store_config cfg = { .dir = dir, .frequency_hz = 1, .source = "test", .gid = -1 };
	struct sink *s;

	assert_int_equal(open(&cfg, &s), 0);
	for (int i = 0; i < 2; i++) {
		struct pass p;

		fill(&p, i);
		assert_int_equal(sink__write_pass(s, &p), 0);
		pass__free_rows(&p);
	}
	sink__close(s);
}

/* Table t's rows as text, every column by its name (stacks by their frames), in a stable order. */
static char *rows_of(sqlite3 *db, const struct pass_table *t)
{
	struct strbuf sql = { 0 }, out = { 0 };
	sqlite3_stmt *st;

	strbuf_add(&sql, "SELECT ");
	for (size_t c = 0; c < t->ncolumns; c++) {
		const char *name = t->columns[c].name;

		if (c)
			strbuf_add(&sql, ", ");
		if (t->columns[c].store == S_STACK_KIND)
			strbuf_addf(&sql, "(SELECT frames FROM stacks s WHERE s.id = h.%s)", name);
		else
			strbuf_addf(&sql, "quote(h.%s)", name);
	}
	/* the profile keeps its thread by id; every other table or view has its columns by name */
	if (strcmp(t->name, "profile"))
		strbuf_addf(&sql, " FROM %s h", t->name);
	else
		strbuf_add(&sql, " FROM (SELECT t.tid, t.tgid, t.comm, t.pcomm, p.kstack AS kstack_id, "
			   "p.ustack AS ustack_id, p.ticks FROM profile p JOIN threads t ON t.id = p.thread) h");
	for (size_t c = 0; c < t->ncolumns; c++)
		strbuf_addf(&sql, "%s%zu", c ? ", " : " ORDER BY ", c + 1);
	assert_int_equal(sqlite3_prepare_v2(db, strbuf_str(&sql), -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++)
			strbuf_addf(&out, "%s%s", c ? "|" : "",
				    sqlite3_column_type(st, c) == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, c));
		strbuf_add(&out, "\n");
	}
	sqlite3_finalize(st);
	strbuf_free(&sql);
	return strbuf_take(&out);
}

static void every_table_reads_back_the_same_from_both_stores(void **state)
{
	char *sq = fixture_dir(), *cs = fixture_dir(), *path;
	sqlite3 *a, *b;

	(void)state;
	write_store(store_sqlite__open, sq);
	write_store(store_csv__open, cs);
	path = store_hour_path(sq, FIXTURE_FIRST_US, HOUR_SQLITE_SUFFIX);
	assert_int_equal(store_open_file(path, &a), 0);
	assert_int_equal(store_csv__load_hour(cs, FIXTURE_FIRST_US, &b), 0);
	for (size_t t = 0; t < NR_PASS_TABLES; t++) {
		char *x = rows_of(a, &pass_tables[t]), *y = rows_of(b, &pass_tables[t]);

		/* two passes' rows, none lost, none made up */
		assert_true(strlen(x) > 0);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	{
		char *w = rows_of(a, &pass_tables[PT_wakeups]), *s = rows_of(a, &pass_tables[PT_syscall_latency]);

		/* an irq waker has no tgid; a folded command's processes none either */
		assert_non_null(strstr(w, "NULL|'irq'|100|'db'|4|8|16"));
		assert_non_null(strstr(s, "NULL|'gcc'|'read'|1|40|20"));
		assert_non_null(strstr(s, "100|'d,b'|'fsync'|1024|2|1500"));
		free(w);
		free(s);
	}
	sqlite3_close(a);
	sqlite3_close(b);
	free(path);
	fixture_remove(sq);
	fixture_remove(cs);
}

static void its_sql_is_sqlites(void **state)
{
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema_sql(), NULL, NULL, NULL), SQLITE_OK);
	for (size_t t = 0; t < NR_PASS_TABLES; t++) {
		char *ins = pass_table_sqlite_insert(&pass_tables[t]), *sel = pass_table_sqlite_select(&pass_tables[t]);
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db, ins, -1, &st, NULL), SQLITE_OK);
		sqlite3_finalize(st);
		assert_int_equal(sqlite3_prepare_v2(db, sel, -1, &st, NULL), SQLITE_OK);
		/* the pass's time (the passes have it among theirs), the columns, the pass's id */
		assert_int_equal(sqlite3_column_count(st), (int)pass_tables[t].ncolumns + 1 + !pass_tables[t].itself);
		sqlite3_finalize(st);
		free(ins);
		free(sel);
	}
	sqlite3_close(db);
}

static void a_process_is_its_tgid_and_name_together(void **state)
{
	(void)state;
	for (size_t t = 0; t < NR_PASS_TABLES; t++)
		for (size_t c = 0; c < pass_tables[t].ncolumns; c++) {
			const struct pass_column *col = &pass_tables[t].columns[c];
			int parts = 0;

			if (col->store != S_PROCESS_KIND)
				continue;
			for (size_t d = 0; d < pass_tables[t].ncolumns; d++)
				parts += pass_tables[t].columns[d].store == S_PROCESS_KIND &&
					 !strcmp(pass_tables[t].columns[d].ref, col->ref);
			assert_int_equal(parts, 2);
		}
}

/* Rows that merge add up their totals (P_SUM, P_WEIGHT) and keep the rest as the row merged into has it. */
static void merged_rows_add_up_their_totals(void **state)
{
	struct pass p;
	struct hist_row h;
	struct wakeup_row w;
	struct column_value v = { 0 };
	const struct pass_column *weight;

	(void)state;
	fill(&p, 1);
	h = p.sc_hist.rows[0];
	pass_rows_merge(&pass_tables[PT_syscall_latency], &h, &p.sc_hist.rows[1]);
	assert_int_equal(h.count, 42);
	assert_int_equal(h.sum_us, 1520);
	assert_int_equal(h.tgid, 100);
	assert_int_equal(h.le_us, 1024);
	assert_string_equal(h.name, "d,b");
	w = p.wakeups.rows[1];
	pass_rows_merge(&pass_tables[PT_wakeups], &w, &p.wakeups.rows[0]);
	assert_int_equal(w.count, 5);
	assert_int_equal(w.runq_us, 10);
	assert_int_equal(w.blocked_us, 19);
	assert_int_equal(w.waker_tgid, 100);
	assert_string_equal(w.waker, "a\"b");
	/* the wake graph weighs an edge by its time held up; no other table is a graph */
	weight = pass_table_weight(&pass_tables[PT_wakeups]);
	assert_non_null(weight);
	weight->value(&p, &w, &v);
	assert_int_equal(v.u, 19);
	for (size_t t = 0; t < NR_PASS_TABLES; t++)
		if (t != PT_wakeups)
			assert_null(pass_table_weight(&pass_tables[t]));
	pass__free_rows(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_table_reads_back_the_same_from_both_stores),
		cmocka_unit_test(its_sql_is_sqlites),
		cmocka_unit_test(a_process_is_its_tgid_and_name_together),
		cmocka_unit_test(merged_rows_add_up_their_totals),
	};

	return cmocka_run_group_tests_name("pass_tables", tests, NULL, NULL);
}
